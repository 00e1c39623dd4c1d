"""Medication patterns through whole dialogues: a prescription the user then says they take (in
the same story or a later conversation), a finished course (named, or by its form: "the inhaler",
"мазать перестала"), drugs named in passing inside a long story (a regimen with no verb, the
user's own list, "still on my ..."), nicotine patches and gum, and one drug named twice."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.eval_wording import copied_eval_wording
from tests.unit.test_dialogue_memory import Dialogue

U = Role.USER
M = Section.MEDICATIONS
ACTIVE, PRESCRIBED, STOPPED = FactStatus.ACTIVE, FactStatus.PRESCRIBED, FactStatus.STOPPED


def _status(d: Dialogue, key: str) -> FactStatus | None:
    fact = d.fact(M, key)
    return fact.status if fact is not None else None


def _talk(*sessions: str) -> Dialogue:
    """Each user message its own conversation, in order."""
    d = Dialogue()
    for index, text in enumerate(sessions):
        d.say((U, text), session=f"s{index}")
    return d


# ------------------------------------------------------------ prescribed, then taken in the story
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("кардиолог назначил бисопролол 2,5 мг, принимаю уже вторую неделю", "bisoprolol"),
        ("эндокринолог выписала метформин 500, пью его по вечерам", "metformin"),
        ("врач прописал омепразол перед завтраком, начала пить с понедельника", "omeprazole"),
        ("невролог назначил карбамазепин, который пью уже месяц", "carbamazepine"),
        ("the GP prescribed sertraline 50 mg and I've been taking it since March", "sertraline"),
        ("my doctor prescribed amlodipine 5mg, i take it every morning", "amlodipine"),
        ("she prescribed me Lexapro in the spring, started taking it right away", "escitalopram"),
        ("the cardiologist prescribed metoprolol 25, which I take with breakfast", "metoprolol"),
        # no verb for the drug at all, the taking said after it
        ("the urgent care doc said naproxen 500 as needed, i take it most evenings", "naproxen"),
    ],
)
def test_a_prescription_the_user_then_takes_is_active(said, key) -> None:
    assert _status(_talk(said), key) is ACTIVE


@pytest.mark.parametrize(
    ("said", "key", "status"),
    [
        ("кардиолог назначил бисопролол, но я его ещё не начала пить", "bisoprolol", PRESCRIBED),
        ("терапевт выписал аторвастатин, начну после анализов", "atorvastatin", PRESCRIBED),
        ("the doctor prescribed amlodipine and told me to take it every morning", "amlodipine", PRESCRIBED),
        ("the doctor prescribed amlodipine, I haven't started it", "amlodipine", PRESCRIBED),
        ("my doctor mentioned metformin, I might take it", "metformin", None),
        ("терапевт предлагал аторвастатин, но я отказалась", "atorvastatin", None),
    ],
)
def test_a_drug_only_prescribed_or_considered_is_not_taken(said, key, status) -> None:
    assert _status(_talk(said), key) is status


def test_the_taking_said_belongs_to_the_drug_it_follows_not_to_the_one_after_it() -> None:
    d = _talk("терапевт выписал лозартан 50, пью ещё и аспирин по утрам")
    assert _status(d, "losartan") is PRESCRIBED
    assert _status(d, "acetylsalicylic_acid") is ACTIVE


@pytest.mark.parametrize(
    ("prescribed", "later", "key"),
    [
        ("терапевт выписал мне лозартан 50 мг", "пью его уже неделю, давление получше", "losartan"),
        ("терапевт выписал мне лозартан 50 мг", "я его уже неделю принимаю", "losartan"),
        (
            "the doctor prescribed lisinopril 10 mg",
            "been taking it for a week, no side effects",
            "lisinopril",
        ),
        ("the doctor prescribed lisinopril 10 mg", "i've started it, feels ok so far", "lisinopril"),
    ],
)
def test_a_prescription_taken_in_a_later_conversation_is_active(prescribed, later, key) -> None:
    assert _status(_talk(prescribed, later), key) is ACTIVE


@pytest.mark.parametrize(
    ("before", "later", "prescribed", "taken"),
    [
        (
            "пью метформин 500, а терапевт выписал лозартан 50",
            "я его уже неделю пью",
            "losartan",
            "metformin",
        ),
        (
            "I take metformin 500 daily and the doctor prescribed lisinopril 10 mg",
            "been taking it for a week now",
            "lisinopril",
            "metformin",
        ),
    ],
)
def test_it_taken_later_is_the_prescribed_drug_of_several(before, later, prescribed, taken) -> None:
    d = _talk(before, later)
    assert _status(d, prescribed) is ACTIVE
    assert _status(d, taken) is ACTIVE
    assert not d.memory.clarifications


def test_a_later_not_yet_keeps_it_prescribed() -> None:
    d = _talk("the doctor prescribed lisinopril 10 mg", "haven't started it yet, pharmacy was closed")
    assert _status(d, "lisinopril") is PRESCRIBED


# ------------------------------------------------------------------------ a course finished
@pytest.mark.parametrize(
    ("before", "later", "key"),
    [
        (
            "пью амоксиклав 875 два раза в день",
            "допила курс амоксиклава в пятницу",
            "amoxicillin+clavulanic_acid",
        ),
        (
            "пью амоксиклав 875 два раза в день",
            "курс амоксиклава закончила, всё хорошо",
            "amoxicillin+clavulanic_acid",
        ),
        ("пью амоксиклав 875 два раза в день", "всё, допила курс", "amoxicillin+clavulanic_acid"),
        (
            "мажу адвантаном локти на ночь",
            "закончила мазать адвантан, кожа чистая",
            "methylprednisolone_aceponate",
        ),
        ("мажу адвантаном локти на ночь", "адвантан больше не мажу", "methylprednisolone_aceponate"),
        (
            "I'm taking amoxicillin 500 three times a day",
            "finished the amoxicillin yesterday, feel great",
            "amoxicillin",
        ),
        ("I'm taking amoxicillin 500 three times a day", "done with the amoxicillin finally", "amoxicillin"),
        (
            "I'm taking amoxicillin 500 three times a day",
            "the amoxicillin is finished, throat is fine",
            "amoxicillin",
        ),
        ("I'm on prednisone 20 mg", "completed my prednisone taper last week", "prednisone"),
        ("the clinic gave me a Z-Pak for my sinuses", "z-pak all done, sinuses clear", "azithromycin"),
    ],
)
def test_a_finished_course_is_stopped_also_in_a_later_conversation(before, later, key) -> None:
    assert _status(_talk(before, later), key) is STOPPED


def test_a_course_finished_in_the_same_story_is_stopped() -> None:
    d = _talk("после ангины пила азитромицин три дня, курс азитромицина закончила ещё в среду")
    assert _status(d, "azithromycin") is STOPPED


@pytest.mark.parametrize(
    ("before", "later", "key"),
    [
        (
            "I'm taking amoxicillin 500 three times a day",
            "finished my shift at 7 and went to bed",
            "amoxicillin",
        ),
        (
            "I'm taking amoxicillin 500 three times a day",
            "haven't finished the amoxicillin yet, two days left",
            "amoxicillin",
        ),
        ("I'm taking amoxicillin 500 three times a day", "I finished the Witcher last night", "amoxicillin"),
        (
            "пью амоксиклав 875 два раза в день",
            "закончила ремонт на кухне, устала жутко",
            "amoxicillin+clavulanic_acid",
        ),
        (
            "пью амоксиклав 875 два раза в день",
            "прошла курс массажа, спине лучше",
            "amoxicillin+clavulanic_acid",
        ),
        ("I take lisinopril 10 mg", "lisinopril done for today, feeling fine", "lisinopril"),
    ],
)
def test_finished_about_something_else_stops_nothing(before, later, key) -> None:
    assert _status(_talk(before, later), key) is ACTIVE


# ------------------------------------------------- a drug ended by its form ("the inhaler", "мазать")
@pytest.mark.parametrize(
    ("before", "later", "ended", "kept"),
    [
        (
            "I take metformin 500 daily and use a Ventolin inhaler when wheezy",
            "stopped the inhaler once my chest cleared up",
            "salbutamol",
            "metformin",
        ),
        (
            "I take metformin 500 daily and use a Ventolin inhaler when wheezy",
            "put the inhaler away, haven't wheezed in weeks",
            "salbutamol",
            "metformin",
        ),
        (
            "I take metformin 500 daily and I use Advantan cream on my elbows",
            "stopped the cream once the rash cleared",
            "methylprednisolone_aceponate",
            "metformin",
        ),
        (
            "пью метформин 500 утром. локти мажу адвантаном на ночь",
            "мазать уже перестала, всё прошло",
            "methylprednisolone_aceponate",
            "metformin",
        ),
        (
            "пью метформин 500 утром. локти мажу адвантаном на ночь",
            "закончила мазать, кожа чистая",
            "methylprednisolone_aceponate",
            "metformin",
        ),
        (
            "пью метформин 500 утром, а ещё у меня есть ингалятор с сальбутамолом",
            "ингалятор убрала в шкаф, приступов нет",
            "salbutamol",
            "metformin",
        ),
    ],
)
def test_a_drug_ended_by_its_form_is_the_one_of_that_form(before, later, ended, kept) -> None:
    d = _talk(before, later)
    assert _status(d, ended) is STOPPED
    assert _status(d, kept) is ACTIVE


@pytest.mark.parametrize(
    ("before", "later"),
    [
        (
            "I take metformin 500 daily and the doctor put me on amoxicillin 500 three times a day",
            "finished the antibiotics on friday",
        ),
        (
            "пью метформин 500 утром, а ещё терапевт назначил амоксициллин, пью его два раза в день",
            "антибиотик допила, горло прошло",
        ),
    ],
)
def test_the_antibiotic_finished_is_the_antibiotic_not_every_drug(before, later) -> None:
    d = _talk(before, later)
    assert _status(d, "amoxicillin") is STOPPED
    assert _status(d, "metformin") is ACTIVE


def test_tablets_run_out_are_not_stopped() -> None:
    assert (
        _status(_talk("пью метформин 500 утром", "таблетки закончились, надо купить"), "metformin") is ACTIVE
    )


def test_an_inhaler_packed_for_a_trip_is_not_stopped() -> None:
    d = _talk("I use a Ventolin inhaler when wheezy", "tossed the inhaler in my bag before the hike")
    assert _status(d, "salbutamol") is ACTIVE


def test_a_prescription_given_in_a_sentence_without_its_subject_is_kept() -> None:
    d = _talk("the doc said sinusitis. gave me a z-pack and a nasal rinse, twice a day")
    assert _status(d, "azithromycin") is PRESCRIBED


# ------------------------------------------------------------ drugs named in passing in a story
@pytest.mark.parametrize(
    ("said", "keys"),
    [
        (
            "съездили к сестре в Тверь, погода ужасная, но я молодец: "
            "пью эналаприл, аторвастатин и метформин как обычно",
            {"enalapril", "atorvastatin", "metformin"},
        ),
        ("мои лекарства: эналаприл 10 утром, аторвастатин 20 на ночь", {"enalapril", "atorvastatin"}),
        ("из таблеток у меня эналаприл 10 утром и метформин 850 два раза в день", {"enalapril", "metformin"}),
        (
            "от давления лизиноприл 10 по утрам, от холестерина аторвастатин 20 на ночь",
            {"lisinopril", "atorvastatin"},
        ),
        (
            "we flew to Denver for my niece's wedding, danced all night, "
            "still on my metformin and lisinopril though",
            {"metformin", "lisinopril"},
        ),
        ("my meds: amlodipine 5 in the morning and simvastatin 40 at bedtime", {"amlodipine", "simvastatin"}),
        ("busy week at work. metformin 1000 twice a day, nothing new there", {"metformin"}),
        ("packed for the lake house and did not forget my pills, losartan 50 in the am", {"losartan"}),
    ],
)
def test_drugs_named_in_passing_with_their_schedule_are_taken(said, keys) -> None:
    d = _talk(said)
    assert {k: _status(d, k) for k in keys} == dict.fromkeys(keys, ACTIVE)


@pytest.mark.parametrize(
    "said",
    [
        "врач сказал пить эналаприл 10 утром, но я пока не решила",
        "раньше эналаприл 10 утром, теперь ничего",
        "мама: эналаприл 10 утром и метформин 500 два раза в день",
        "my dad's meds: enalapril 10 in the morning",
        "the doctor mentioned enalapril 10 in the morning might help",
        "should I take enalapril 10 at night instead?",
    ],
)
def test_a_schedule_someone_else_said_or_had_is_not_taken(said) -> None:
    assert _status(_talk(said), "enalapril") is None


@pytest.mark.parametrize(
    "said",
    [
        "бросил курить месяц назад, наклеиваю никотиновый пластырь каждое утро",
        "неделю без сигарет, клею никоретте и держусь",
        "quit smoking two weeks ago, wearing a nicotine patch during the day",
        "three weeks smoke-free, chewing nicorette gum when cravings hit",
    ],
)
def test_a_nicotine_patch_or_gum_in_use_is_an_active_drug(said) -> None:
    assert _status(_talk(said), "nicotine") is ACTIVE


@pytest.mark.parametrize(
    "said",
    [
        "I quit nicotine cold turkey",
        "my friend uses nicotine patches, I'm thinking of trying them",
        "wearing a knee brace all day now",
    ],
)
def test_nicotine_itself_or_someone_elses_patch_is_no_drug_of_the_user(said) -> None:
    assert not _talk(said).keys(M)


def test_one_drug_named_twice_keeps_what_either_name_said() -> None:
    d = _talk("эндокринолог назначила витамин Д, аквадетрим 2000 в день, пью")
    fact = d.fact(M, "cholecalciferol")
    assert fact is not None and fact.status is ACTIVE
    assert fact.attributes.get("dose_value") == 2000


# ------------------------------------------------------------------------- test data hygiene
def test_no_wording_here_is_an_evaluation_dialogue() -> None:
    assert not copied_eval_wording(__file__, held=False, shortest=12)
