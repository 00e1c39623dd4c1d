"""Short allergen answers after a topic sentence, habits cut down (not stopped), coffee as a habit."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus, Stage
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER


def _said(*turns: tuple[Role, str]) -> Dialogue:
    d = Dialogue()
    d.say(*turns)
    return d


def _fact(d: Dialogue, section: Section, key: str):
    return next((f for f in d.memory.facts if f.section is section and f.key == key), None)


# --- 1. a short allergen answer; a "no" about drugs keeps it ------------------------------------
@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [
        ("Теперь про аллергии. Есть что-нибудь?", "лишь на собак", "dog_dander"),
        ("Let's talk about allergies. Anything at all?", "only shellfish", "shellfish"),
        ("先说说过敏。有吗？", "就花粉", "pollen"),
    ],
)
def test_a_short_allergen_answer_after_the_topic_sentence(question, answer, key):
    d = _said((A, question), (U, answer))
    fact = _fact(d, Section.ALLERGIES, key)
    assert fact is not None and fact.status is FactStatus.PRESENT
    assert d.memory.sections[Section.ALLERGIES].status is SectionStatus.PRESENT


@pytest.mark.parametrize(
    ("first", "answer", "drugs", "no", "key"),
    [
        (
            "Поговорим об аллергии. Есть ли?",
            "на собак и на пыль",
            "А на препараты реакции были?",
            "не было",
            "dog_dander",
        ),
        ("Allergies next. Anything?", "just dogs", "Any reactions to medicines?", "nope", "dog_dander"),
        ("对什么过敏吗？", "狗毛", "对药物过敏吗？", "没有", "dog_dander"),
    ],
)
def test_a_no_about_drugs_keeps_the_allergen(first, answer, drugs, no, key):
    d = _said((A, first), (U, answer), (A, drugs), (U, no))
    fact = _fact(d, Section.ALLERGIES, key)
    assert fact is not None and fact.status is FactStatus.PRESENT
    assert d.memory.sections[Section.ALLERGIES].status is SectionStatus.PRESENT
    assert Section.MEDICATIONS not in d.memory.sections  # a drug-reaction question is about allergies


def test_a_no_to_drug_reactions_alone_is_about_allergies_not_medications():
    d = _said((A, "На препараты реакций не бывало?"), (U, "нет"))
    assert d.memory.sections[Section.ALLERGIES].status is SectionStatus.CONFIRMED_ABSENT
    assert Section.MEDICATIONS not in d.memory.sections


def test_an_elliptic_question_after_a_plain_remark_is_not_read_as_its_topic():
    d = _said((A, "Thanks. Anything else?"), (U, "no"))
    assert not d.memory.facts and not d.memory.sections


# --- 2. coffee, and a habit cut down ------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "answer", "value"),
    [
        ("How much coffee per day?", "I'm down to two cups a day", "two cups a day"),
        ("Сколько кофе в день?", "снизила до двух чашек", "двух чашек"),
        ("咖啡喝得多吗？", "少喝了，每天两杯", "2 cups a day"),
    ],
)
def test_coffee_cut_down_is_still_coffee(question, answer, value):
    d = _said((A, question), (U, answer))
    fact = _fact(d, Section.LIFESTYLE, "coffee")
    assert fact is not None and fact.status is FactStatus.PRESENT
    assert fact.attributes["value"] == value
    assert _fact(d, Section.LIFESTYLE, "alcohol") is None  # "drink" in a coffee question is no alcohol


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("I have about three cups of coffee every morning", FactStatus.PRESENT),
        ("Пью кофе, две чашки в день", FactStatus.PRESENT),
        ("我每天喝两杯咖啡", FactStatus.PRESENT),
        ("Кофе вообще не пью", FactStatus.ABSENT),
        ("I gave up coffee last spring", FactStatus.STOPPED),
        ("咖啡早就戒了", FactStatus.STOPPED),
    ],
)
def test_coffee_said_unprompted(text, status):
    fact = _fact(_said((U, text)), Section.LIFESTYLE, "coffee")
    assert fact is not None and fact.status is status


def test_someone_elses_coffee_is_not_the_users():
    assert _fact(_said((U, "My wife drinks coffee all day")), Section.LIFESTYLE, "coffee") is None


@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [
        ("Курите?", "сократил до пяти сигарет в день", "smoking"),
        ("Do you drink alcohol?", "I've cut down a lot", "alcohol"),
        ("你抽烟吗？", "少抽了", "smoking"),
    ],
)
def test_a_habit_cut_down_is_not_stopped(question, answer, key):
    fact = _fact(_said((A, question), (U, answer)), Section.LIFESTYLE, key)
    assert fact is not None and fact.status is FactStatus.PRESENT
    assert fact.attributes["value"] != "regularly"


# --- 3. exercise in answer to the question ------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Занимаетесь спортом?", "плаваю в бассейне"),
        ("Do you work out?", "I jog most mornings"),
        ("你锻炼吗？", "每周游泳两次"),
    ],
)
def test_exercise_in_answer_to_the_question_is_stored(question, answer):
    fact = _fact(_said((A, question), (U, answer)), Section.LIFESTYLE, "physical_activity")
    assert fact is not None and fact.status is FactStatus.PRESENT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Есть аллергия на какие-нибудь препараты?", "на амоксициллин нет"),
        ("Any drug allergies?", "amoxicillin no, never had a problem"),
        ("Аллергии есть?", "амоксициллин нет. пыльца да"),
    ],
)
def test_a_drug_denied_in_an_allergy_answer_is_not_an_allergy(question, answer):
    d = Dialogue()
    d.say((Role.ASSISTANT, question), (Role.USER, answer))
    fact = d.fact(Section.ALLERGIES, "amoxicillin")
    assert fact is None or fact.status is FactStatus.ABSENT


def test_a_denied_allergen_does_not_take_the_reaction_of_the_one_named_beside_it():
    d = Dialogue()
    d.say(
        (Role.ASSISTANT, "Аллергия на лекарства есть?"),
        (Role.USER, "на цефтриаксон нет, а на анальгин сыпь была"),
    )
    denied = d.fact(Section.ALLERGIES, "ceftriaxone")
    assert denied is not None and denied.status is FactStatus.ABSENT and "reaction" not in denied.attributes


@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [
        ("Физическая активность у вас какая?", "плаваю два раза в неделю", "physical_activity"),
        ("Do you work out at all?", "yoga most mornings", "physical_activity"),
        ("你平时锻炼吗？", "每周游泳两次", "physical_activity"),
        ("Кофе много пьёте?", "пью три чашки в день", "coffee"),
    ],
)
def test_a_habit_answered_to_the_assistants_question_about_it_is_remembered_at_once(question, answer, key):
    d = Dialogue()
    d.say((Role.ASSISTANT, question), (Role.USER, answer))
    fact = d.fact(Section.LIFESTYLE, key)
    assert fact is not None and fact.stage is Stage.ACTIVE


def test_a_habit_said_in_passing_still_waits_for_a_second_mention():
    d = Dialogue()
    d.say((Role.USER, "по выходным плаваю в бассейне"))
    fact = d.fact(Section.LIFESTYLE, "physical_activity")
    assert fact is None or fact.stage is Stage.CANDIDATE
