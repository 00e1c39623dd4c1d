"""General patterns through the write path (RU/EN/ZH): two habits with a contrast ("quit X, still
Y"), a symptom inside a pseudo-negation ("can't stop sneezing"), an injury said with a verb
("摔断了腿"), and a colloquial denial ("да не, здоров") -- with the traps each must not fall in
(a relative's, a near miss, a denial, "да не знаю")."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
S, F = Section, FactStatus


def _facts(d: Dialogue) -> dict[tuple[Section, str], object]:
    return {(f.section, f.key): f for f in d.memory.facts}


# --- 1. two habits, one stopped and one kept ----------------------------------------------------
@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Gave up alcohol back in 2021, but I still smoke, around ten a day.", "10 cigarettes a day"),
        ("Stopped drinking last spring and still smoking, roughly a pack a day", "pack a day"),
        ("Завязала с алкоголем лет пять назад, а курю до сих пор, штук десять в день", "10 cigarettes a day"),
        ("Отказался от спиртного, но покуриваю, где-то пять сигарет в день", "5 cigarettes a day"),
        ("两年前就把酒戒了，可烟还是在抽，一天大概十根", "10 cigarettes a day"),
        ("酒早就戒了，烟一直没戒，一天半包", "half a pack a day"),
    ],
)
def test_quit_one_habit_keep_another(text: str, amount: str) -> None:
    d = Dialogue()
    d.say((U, text))
    facts = _facts(d)
    alcohol, smoking = facts.get((S.LIFESTYLE, "alcohol")), facts.get((S.LIFESTYLE, "smoking"))
    assert alcohol is not None and alcohol.status is F.STOPPED, facts
    assert smoking is not None and smoking.status is F.PRESENT, facts
    assert smoking.attributes.get("value") == amount


@pytest.mark.parametrize(
    "text",
    ["I quit smoking and drinking in 2020", "Бросил курить и пить три года назад"],
)
def test_quitting_both_keys_each_habit(text: str) -> None:
    d = Dialogue()
    d.say((U, text))
    facts = _facts(d)
    assert facts[(S.LIFESTYLE, "smoking")].status is F.STOPPED
    assert facts[(S.LIFESTYLE, "alcohol")].status is F.STOPPED


@pytest.mark.parametrize(
    "text",
    [
        "My dad quit drinking but still smokes, ten a day",
        "Мой брат бросил пить, но курит по пачке в день",
        "我爸戒了酒，烟还在抽，一天一包",
    ],
)
def test_a_relatives_habits_are_not_the_users(text: str) -> None:
    d = Dialogue()
    d.say((U, text))
    assert not d.keys(S.LIFESTYLE)


def test_an_amount_after_a_person_is_not_the_users() -> None:
    d = Dialogue()
    d.say((U, "I still smoke, my wife two packs a day"))
    assert d.fact(S.LIFESTYLE, "smoking").attributes.get("value") == "yes"


# --- 2. a symptom inside a pseudo-negation --------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Cannot stop sneezing since the weekend.",
        "Can't stop sneezing every time we visit my aunt's farm",
        "Не могу перестать чихать уже неделю",
        "Как переехали в новую квартиру, не могу остановиться чихать",
        "最近老是打喷嚏，停不下来",
    ],
)
def test_cant_stop_sneezing_is_the_users_symptom(text: str) -> None:
    d = Dialogue()
    d.say((U, text))
    fact = d.fact(S.SYMPTOMS, "sneezing")
    assert fact is not None and fact.status is F.PRESENT
    assert not d.keys(S.ALLERGIES)  # a symptom near an animal or a place is no proof of an allergy


@pytest.mark.parametrize(
    "text",
    [
        "My daughter can't stop sneezing since the weekend",
        "Муж не может перестать чихать",
        "我儿子最近一直打喷嚏",
        "The dog can't stop sneezing",
    ],
)
def test_someone_elses_sneezing_is_not_the_users(text: str) -> None:
    d = Dialogue()
    d.say((U, text))
    assert d.fact(S.SYMPTOMS, "sneezing") is None


def test_denied_sneezing_stays_denied() -> None:
    d = Dialogue()
    d.say((U, "Я не чихаю и не кашляю"))
    fact = d.fact(S.SYMPTOMS, "sneezing")
    assert fact is None or fact.status is F.ABSENT


# --- 3. an injury said with a verb ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key", "year"),
    [
        ("前年滑雪的时候摔断了右胳膊", "arm_fracture", 2024),
        ("2019年打球扭伤了脚踝", "ankle_sprain", 2019),
        ("В 2019 году сломал правую руку", "arm_fracture", 2019),
        ("I fractured my wrist in 2022", "wrist_fracture", 2022),
    ],
)
def test_an_injury_said_with_a_verb(text: str, key: str, year: int) -> None:
    d = Dialogue()
    d.say((U, text))
    fact = d.fact(S.INJURIES, key)
    assert fact is not None and fact.status in (F.PRESENT, F.RESOLVED), d.keys(S.INJURIES)
    assert fact.attributes.get("year") == year


def test_a_healed_chinese_injury_is_resolved() -> None:
    d = Dialogue()
    d.say((U, "小时候手腕骨折过，早就长好了"))
    assert d.fact(S.INJURIES, "wrist_fracture").status is F.RESOLVED


def test_accidentally_is_no_negation() -> None:
    d = Dialogue()
    d.say((U, "上个月不小心崴了脚踝"))
    assert d.fact(S.INJURIES, "ankle_sprain").status is F.PRESENT


@pytest.mark.parametrize(
    "text",
    [
        "我爸去年摔断了腿",  # a relative's
        "他上个月摔断了胳膊",  # someone else's
        "差点摔断了腿",  # a near miss
        "腿没有骨折，只是擦破了皮",  # denied
        "我从来没骨折过腿",  # denied
        "如果摔断了腿要多久才能好",  # a question
        "My brother broke his arm last year",
    ],
)
def test_not_the_users_injury(text: str) -> None:
    d = Dialogue()
    d.say((U, text))
    assert not d.keys(S.INJURIES)


# --- 4. a colloquial denial -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Хронические болезни есть?", "да не, здоровая как лошадь"),
        ("Хронические болезни есть?", "да нет, ничем не болею"),
        ("Хронические болезни есть?", "Да нет вроде"),
        ("Хронические болезни есть?", "здорова, тьфу-тьфу"),
        ("Do you have any chronic illnesses?", "nope, healthy as an ox"),
        ("Do you have any chronic illnesses?", "I'm perfectly healthy, thank god"),
        ("有什么慢性病吗？", "没有，我身体挺好的"),
        ("有什么慢性病吗？", "我身体很健康"),
    ],
)
def test_a_colloquial_no_confirms_the_section_absent(question: str, answer: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert d.status(S.CHRONIC_CONDITIONS) is SectionStatus.CONFIRMED_ABSENT
    assert not d.keys(S.CHRONIC_CONDITIONS)


def test_da_ne_znayu_is_unsure_not_no() -> None:
    d = Dialogue()
    d.say((A, "Хронические болезни есть?"), (U, "да не знаю даже"))
    assert d.status(S.CHRONIC_CONDITIONS) is not SectionStatus.CONFIRMED_ABSENT


def test_a_plain_da_still_names_the_condition() -> None:
    d = Dialogue()
    d.say((A, "Хронические болезни есть?"), (U, "да, сахарный диабет"))
    assert d.fact(S.CHRONIC_CONDITIONS, "type_2_diabetes") or d.keys(S.CHRONIC_CONDITIONS)
    assert d.status(S.CHRONIC_CONDITIONS) is not SectionStatus.CONFIRMED_ABSENT


def test_da_net_with_a_relatives_disease_is_family_history() -> None:
    d = Dialogue()
    d.say((A, "Хронические болезни есть?"), (U, "да нет, а вот у папы гипертония"))
    assert d.status(S.CHRONIC_CONDITIONS) is SectionStatus.CONFIRMED_ABSENT
    assert not d.keys(S.CHRONIC_CONDITIONS)
    assert d.keys(S.FAMILY_HISTORY)


def test_healthy_is_no_answer_to_an_allergy_question() -> None:
    d = Dialogue()
    d.say((A, "Any allergies?"), (U, "I'm healthy"))
    assert d.status(S.ALLERGIES) is not SectionStatus.CONFIRMED_ABSENT
