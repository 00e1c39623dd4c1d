"""Answers read with their question: a no for oneself beside a relative's yes, a topic-less
"And you?" that keeps the previous question's topic, a list of what was tried for a complaint."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER


@pytest.fixture
def talk() -> Dialogue:
    return Dialogue()


# ------------------------------------------------- a no for oneself, a relative's yes beside it
@pytest.mark.parametrize(
    ("question", "answer", "relative", "key"),
    [
        ("Хронические болезни есть?", "у меня нету, а вот у мамы диабет", "mother", "diabetes"),
        ("Do you have any long-term conditions?", "not me, but my brother has asthma", "brother", "asthma"),
        ("您有什么慢性病吗？", "我自己没有，我妈妈有糖尿病", "mother", "diabetes"),
    ],
)
def test_own_no_with_a_relatives_condition_keeps_both(talk, question, answer, relative, key):
    talk.say((A, question), (U, answer))
    assert talk.status(Section.CHRONIC_CONDITIONS) is SectionStatus.CONFIRMED_ABSENT
    family = talk.fact(Section.FAMILY_HISTORY, f"{relative}:{key}")
    assert family is not None and family.attributes["relative"] == relative
    assert talk.keys(Section.CHRONIC_CONDITIONS) == set()  # never the user's own


@pytest.mark.parametrize(
    ("question", "answer", "relative"),
    [
        ("У вас есть астма?", "у меня нет, а у сестры есть", "sister"),
        ("Do you have asthma?", "not me, but my sister does", "sister"),
        ("你有哮喘吗？", "我没有，我姐姐有", "sister"),
    ],
)
def test_own_no_to_a_named_condition_and_the_relative_who_has_it(talk, question, answer, relative):
    talk.say((A, question), (U, answer))
    own = talk.fact(Section.CHRONIC_CONDITIONS, "asthma")
    assert own is not None and own.status is FactStatus.ABSENT
    family = talk.fact(Section.FAMILY_HISTORY, f"{relative}:asthma")
    assert family is not None and family.status is FactStatus.PRESENT


def test_own_no_then_the_users_own_condition_is_not_absent(talk):
    talk.say((A, "Any chronic illnesses?"), (U, "not me, but my mom has diabetes and I have asthma"))
    assert talk.fact(Section.CHRONIC_CONDITIONS, "asthma").status is FactStatus.PRESENT
    assert talk.status(Section.CHRONIC_CONDITIONS) is not SectionStatus.CONFIRMED_ABSENT


# ------------------------------------------------------- "And you?" keeps the earlier topic
@pytest.mark.parametrize(
    "turns",
    [
        [
            (A, "Чем болеют ваши родственники, есть хронические заболевания?"),
            (U, "у дедушки диабет"),
            (A, "А у вас?"),
            (U, "нет"),
        ],
        [
            (A, "Are there any chronic illnesses in your family?"),
            (U, "my grandpa has diabetes"),
            (A, "What about you?"),
            (U, "nope"),
        ],
        [(A, "家人有慢性病吗？"), (U, "我爷爷有糖尿病"), (A, "那你呢？"), (U, "没有")],
    ],
)
def test_and_you_takes_the_previous_questions_topic_for_the_user(talk, turns):
    talk.say(*turns)
    assert talk.status(Section.CHRONIC_CONDITIONS) is SectionStatus.CONFIRMED_ABSENT
    assert talk.fact(Section.FAMILY_HISTORY, "grandfather:diabetes") is not None
    assert talk.keys(Section.CHRONIC_CONDITIONS) == set()


def test_and_you_to_a_named_condition_is_about_that_condition_only(talk):
    talk.say(
        (A, "Does anyone in your family have high blood pressure?"),
        (U, "my father"),
        (A, "And you yourself?"),
        (U, "no"),
    )
    own = talk.fact(Section.CHRONIC_CONDITIONS, "hypertension")
    assert own is not None and own.status is FactStatus.ABSENT
    assert talk.status(Section.CHRONIC_CONDITIONS) is not SectionStatus.CONFIRMED_ABSENT
    assert talk.fact(Section.FAMILY_HISTORY, "father:hypertension") is not None


def test_and_you_about_a_habit_of_someone_else(talk):
    talk.say((A, "Does your husband smoke?"), (U, "yes, a lot"), (A, "And yourself?"), (U, "no, never"))
    smoking = talk.fact(Section.LIFESTYLE, "smoking")
    assert smoking is not None and smoking.status is FactStatus.ABSENT


def test_and_you_with_no_earlier_question_says_nothing(talk):
    talk.say((U, "my mom has diabetes"), (A, "And you?"), (U, "no"))
    assert talk.status(Section.CHRONIC_CONDITIONS) is not SectionStatus.CONFIRMED_ABSENT


# --------------------------------------------------------- what was tried for a complaint
@pytest.mark.parametrize(
    ("turns", "key"),
    [
        (
            [
                (U, "my lower back hurts since monday"),
                (A, "What have you tried so far?"),
                (U, "some advil and a heating pad, didn't really help"),
            ],
            "ibuprofen",
        ),
        (
            [
                (U, "поясница болит уже три дня"),
                (A, "Что-нибудь пробовали от этого?"),
                (U, "кетанов, грелку. толку нет, ничего не помогает"),
            ],
            "ketorolac",
        ),
        ([(U, "我头疼好几天了"), (A, "用过什么药吗？"), (U, "对乙酰氨基酚，不管用")], "paracetamol"),
    ],
)
def test_a_list_of_what_was_tried_names_the_drug(talk, turns, key):
    talk.say(*turns)
    drug = talk.fact(Section.MEDICATIONS, key)
    assert drug is not None and drug.status in (FactStatus.ACTIVE, FactStatus.STOPPED)
    # the remedies are no drugs, and "nothing helps" denies nothing
    assert talk.keys(Section.MEDICATIONS) == {key}


def test_nothing_tried_is_not_no_medications_at_all(talk):
    talk.say((U, "my knee hurts"), (A, "Have you tried anything for it?"), (U, "no"))
    assert talk.status(Section.MEDICATIONS) is not SectionStatus.CONFIRMED_ABSENT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("А раньше много курили?", "пачки полторы в день, лет десять"),
        ("Did you smoke before that?", "about half a pack a day through college"),
        ("以前抽烟抽得多吗？", "一天半包吧"),
    ],
)
def test_an_amount_answered_to_a_question_about_the_past_habit_is_a_former_habit(question, answer):
    d = Dialogue()
    d.say((Role.ASSISTANT, question), (Role.USER, answer))
    smoking = d.fact(Section.LIFESTYLE, "smoking")
    assert smoking is not None and smoking.status is FactStatus.STOPPED


def test_a_past_habit_question_answered_with_now_keeps_it_current():
    d = Dialogue()
    d.say((Role.ASSISTANT, "Раньше курили?"), (Role.USER, "полпачки, и сейчас тоже"))
    assert d.fact(Section.LIFESTYLE, "smoking").status is FactStatus.PRESENT


def test_what_the_pills_are_for_is_not_a_drug_name():
    d = Dialogue()
    d.say((A, "Что принимаете постоянно?"), (U, "сахар высокий, пью таблетки, название не помню"))
    assert d.keys(Section.MEDICATIONS) == set()
