"""Medication patterns through whole dialogues: a doctor's switch to another drug, a yes to "have
you started the course?" that names no drug, an inhaler owned up to after a "no" to medications,
a dose raised "from X to Y", and drugs named by their form ("сироп от кашля", "nasal spray")."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M = Section.MEDICATIONS


def _status(d: Dialogue, key: str) -> FactStatus | None:
    fact = d.fact(M, key)
    return fact.status if fact is not None else None


def _meds_by_code(d: Dialogue) -> dict[str, FactStatus]:
    """ATC code -> status of the stored drugs (a drug named by its form has no table key)."""
    return {str(f.attributes.get("atc_code")): f.status for f in d.memory.facts if f.section is M}


# ------------------------------------------------------------------ a doctor's switch
@pytest.mark.parametrize(
    ("before", "turns", "old", "new"),
    [
        (
            "принимаю лизиноприл 10 мг утром",
            [
                (A, "Как давление в последнее время?"),
                (U, "скачет, поэтому терапевт поменял мне на валсартан 80"),
            ],
            "lisinopril",
            "valsartan",
        ),
        (
            "пью метопролол 50 мг",
            [(U, "кардиолог перевел меня на бисопролол 5 мг, сердце частило")],
            "metoprolol",
            "bisoprolol",
        ),
        (
            "I'm on citalopram 20 mg",
            [
                (A, "How is the citalopram working for you?"),
                (U, "not great, my psychiatrist switched me to sertraline 50"),
            ],
            "citalopram",
            "sertraline",
        ),
        (
            "I take ibuprofen for my knees",
            [(U, "the GP changed me over to naproxen last month")],
            "ibuprofen",
            "naproxen",
        ),
        (
            "I take ibuprofen for my knees",
            [(U, "my rheumatologist put me on naproxen instead")],
            "ibuprofen",
            "naproxen",
        ),
    ],
)
def test_a_switch_makes_the_new_drug_taken_and_ends_the_old(before, turns, old, new) -> None:
    d = Dialogue()
    d.say((U, before))
    d.say(*turns)
    assert _status(d, new) is FactStatus.ACTIVE  # a switch is the treatment now, not a plan
    assert _status(d, old) is FactStatus.STOPPED


@pytest.mark.parametrize(
    ("said", "old", "new"),
    [
        ("врач выписал бисопролол вместо метопролола", "metoprolol", "bisoprolol"),
        ("the doctor prescribed valsartan instead of lisinopril", "lisinopril", "valsartan"),
        ("терапевт заменил лизиноприл на валсартан", "lisinopril", "valsartan"),
    ],
)
def test_a_replacement_named_with_the_old_drug(said, old, new) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, new) is FactStatus.ACTIVE
    assert _status(d, old) is FactStatus.STOPPED


@pytest.mark.parametrize(
    "said",
    [
        "врач предложил перейти на валсартан, подумаю",
        "the doctor wants to switch me to valsartan next month",
        "should I switch to valsartan?",
        "кардиолог поменял мне на валсартан, но я ещё не начала",
    ],
)
def test_a_switch_offered_asked_or_not_yet_begun_is_not_taken(said) -> None:
    d = Dialogue()
    d.say((U, "пью лизиноприл 10 мг"))
    d.say((U, said))
    assert _status(d, "valsartan") is not FactStatus.ACTIVE
    assert _status(d, "lisinopril") is FactStatus.ACTIVE


def test_a_switch_stops_only_a_drug_of_the_same_use() -> None:
    d = Dialogue()
    d.say((U, "I take metformin 1000 mg"))
    d.say((U, "the cardiologist switched me to valsartan"))
    assert _status(d, "valsartan") is FactStatus.ACTIVE
    assert _status(d, "metformin") is FactStatus.ACTIVE  # a diabetes drug is not what valsartan replaced


# ------------------------------------------------------------------ "have you started the course?"
def test_a_yes_to_started_the_antibiotic_starts_only_the_antibiotic() -> None:
    d = Dialogue()
    d.say(
        (U, "лор назначил азитромицин 500 мг на три дня и капли в нос"),
        (A, "Вы уже начали приём антибиотика?"),
        (U, "да, утром выпила первую"),
    )
    assert _status(d, "azithromycin") is FactStatus.ACTIVE
    assert _meds_by_code(d)["R01"] is FactStatus.PRESCRIBED  # the nose drops are no antibiotic


def test_a_yes_to_started_the_course_starts_what_was_prescribed() -> None:
    d = Dialogue()
    d.say((U, "эндокринолог назначил метформин 500 мг"))
    d.say((A, "Курс уже начали?"), (U, "да, со вчерашнего дня"))
    assert _status(d, "metformin") is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Started taking them yet?", "yes, had the first one at lunch"),
        ("Have you started the antibiotics?", "yeah I took my first dose an hour ago"),
    ],
)
def test_a_yes_in_english_starts_the_prescribed_antibiotic(question, answer) -> None:
    d = Dialogue()
    d.say(
        (U, "the walk-in clinic prescribed doxycycline 100 mg twice a day"),
        (A, question),
        (U, answer),
    )
    assert _status(d, "doxycycline") is FactStatus.ACTIVE


def test_only_the_prescribed_drug_starts_in_a_later_conversation() -> None:
    d = Dialogue()
    d.say((U, "I take metformin every morning. Yesterday my doctor prescribed lisinopril 10 mg"))
    d.say((A, "Have you started the new tablets?"), (U, "yes, since this morning"))
    assert _status(d, "lisinopril") is FactStatus.ACTIVE
    assert _status(d, "metformin") is FactStatus.ACTIVE
    assert not d.memory.clarifications  # no "which one?": only one was waiting to be started


@pytest.mark.parametrize(
    ("prescribed", "question", "answer", "key"),
    [
        ("врач выписал азитромицин", "Начали принимать?", "нет, завтра начну", "azithromycin"),
        (
            "the clinic prescribed doxycycline",
            "Started taking it yet?",
            "not yet, picking it up later",
            "doxycycline",
        ),
    ],
)
def test_a_not_yet_keeps_the_course_prescribed(prescribed, question, answer, key) -> None:
    d = Dialogue()
    d.say((U, prescribed), (A, question), (U, answer))
    assert _status(d, key) is FactStatus.PRESCRIBED


# ------------------------------------------------------------------ an inhaler after a "no"
@pytest.mark.parametrize(
    ("question", "no", "follow_up", "answer"),
    [
        (
            "Do you take any medicines regularly?",
            "no",
            "Any lung problems?",
            "mild asthma. actually I do have an inhaler, salbutamol, just when I need it",
        ),
        (
            "Принимаете какие-нибудь лекарства?",
            "нет",
            "Хронические болезни есть?",
            "астма с детства. хотя у меня есть ингалятор с сальбутамолом, пользуюсь когда нужно",
        ),
    ],
)
def test_an_inhaler_owned_up_to_after_a_no_is_a_drug_in_use(question, no, follow_up, answer) -> None:
    d = Dialogue()
    d.say((A, question), (U, no), (A, follow_up), (U, answer))
    fact = d.fact(M, "salbutamol")
    assert fact is not None and fact.status is FactStatus.ACTIVE
    assert fact.attributes.get("frequency") == "as needed"
    assert d.status(M) is SectionStatus.PRESENT  # the earlier "no" is corrected


@pytest.mark.parametrize(
    ("question", "no", "follow_up", "answer"),
    [
        (
            "Do you take any medicines regularly?",
            "no",
            "Any lung problems?",
            "no, but my daughter has an inhaler, salbutamol",
        ),
        (
            "Do you take any medicines regularly?",
            "no",
            "Any lung problems?",
            "no, I don't have an inhaler, never needed one",
        ),
        (
            "Принимаете какие-нибудь лекарства?",
            "нет",
            "С лёгкими проблем нет?",
            "нет, ингалятор с сальбутамолом у сына",
        ),
    ],
)
def test_someone_elses_or_no_inhaler_leaves_the_no_standing(question, no, follow_up, answer) -> None:
    d = Dialogue()
    d.say((A, question), (U, no), (A, follow_up), (U, answer))
    assert _status(d, "salbutamol") is None
    assert d.status(M) is SectionStatus.CONFIRMED_ABSENT


# ------------------------------------------------------------------ a dose raised "from X to Y"
@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("the thyroid doctor upped my Euthyrox from 50 to 75 mcg", 75),
        ("my endo bumped the levothyroxine up from 100 mcg to 112 mcg", 112),
        ("эндокринолог поднял дозу эутирокса с 50 до 75 мкг", 75),
        ("врач увеличил мне эутирокс со 100 мкг до 125 мкг", 125),
    ],
)
def test_a_dose_raised_from_one_value_to_another_is_taken_at_the_new_one(said, value) -> None:
    d = Dialogue()
    d.say((U, said))
    fact = d.fact(M, "levothyroxine")
    assert fact is not None and fact.status is FactStatus.ACTIVE
    assert fact.attributes["dose_value"] == value and fact.attributes["dose_unit"] == "mcg"


@pytest.mark.parametrize(
    ("before", "change", "value"),
    [
        ("пью эутирокс 50 мкг", "врач подняла дозу с 50 мкг до 75 мкг", 75),
        ("I take levothyroxine 88 mcg", "they bumped my dose from 88 mcg to 100 mcg", 100),
    ],
)
def test_a_from_to_change_of_the_drug_in_focus_keeps_the_new_value(before, change, value) -> None:
    d = Dialogue()
    d.say((U, before))
    d.say((U, change))
    assert d.fact(M, "levothyroxine").attributes["dose_value"] == value


@pytest.mark.parametrize(
    "said",
    [
        "my mom's doctor raised her levothyroxine from 50 to 75 mcg",
        "маме подняли дозу эутирокса с 50 до 75 мкг",
    ],
)
def test_someone_elses_dose_change_is_not_the_users_drug(said) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, "levothyroxine") is None


# ------------------------------------------------------------------ drugs named by their form
def test_syrup_and_nose_drops_prescribed_in_russian_are_medications_not_symptoms() -> None:
    d = Dialogue()
    d.say((U, "лор выписал капли в нос и сироп от кашля"))
    assert _meds_by_code(d) == {"R01": FactStatus.PRESCRIBED, "R05": FactStatus.PRESCRIBED}
    assert not d.keys(Section.SYMPTOMS)  # "от кашля" says what the syrup is for


def test_spray_and_eye_drops_prescribed_in_english_are_medications() -> None:
    d = Dialogue()
    d.say((U, "the nurse practitioner prescribed a nasal spray and some eye drops"))
    assert _meds_by_code(d) == {"R01": FactStatus.PRESCRIBED, "S01": FactStatus.PRESCRIBED}
    d.say((U, "the doctor prescribed a cough syrup"))
    assert _meds_by_code(d)["R05"] is FactStatus.PRESCRIBED


def test_a_form_said_with_the_brand_is_that_one_drug() -> None:
    d = Dialogue()
    d.say((U, "I use Flonase nasal spray every morning"))
    assert _meds_by_code(d) == {"R01AD08": FactStatus.ACTIVE}  # fluticasone, not a second drug


@pytest.mark.parametrize("said", ["думаю купить сироп от кашля", "should I get a nasal spray?"])
def test_a_form_named_drug_only_thought_of_is_not_stored(said) -> None:
    d = Dialogue()
    d.say((U, said))
    assert not d.keys(M)
