"""A question that takes the user's condition for granted ("How's your asthma?") answered with
anything but a denial keeps that condition current; a denial or an "it's gone" keeps nothing."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER


@pytest.mark.parametrize(
    ("question", "answer", "section", "key"),
    [
        (
            "How's your eczema been lately?",
            "flaring up again on my hands",
            Section.CHRONIC_CONDITIONS,
            "eczema",
        ),
        (
            "And how is your migraine since the new pills?",
            "less often, maybe once a month",
            Section.CHRONIC_CONDITIONS,
            "migraine",
        ),
        (
            "Как ваша астма, не беспокоит?",
            "да потихоньку, ингалятор почти не нужен",
            Section.CHRONIC_CONDITIONS,
            "asthma",
        ),
        ("您的糖尿病最近控制得怎么样？", "还可以，空腹七点几", Section.CHRONIC_CONDITIONS, "diabetes"),
    ],
)
def test_an_answer_to_a_question_that_presupposes_a_condition_keeps_it(question, answer, section, key):
    d = Dialogue()
    d.say((A, question), (U, answer))
    fact = d.fact(section, key)
    assert fact is not None and fact.status is FactStatus.PRESENT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How's your eczema been lately?", "What eczema? I've never had that."),
        ("Как ваша астма?", "у меня её нет, вы меня с кем-то путаете"),
        ("你的哮喘最近怎么样？", "我没有哮喘"),
        ("How are your migraines?", "gone since spring, thankfully"),
        ("Как ваша мигрень?", "прошла, уже полгода не было"),
    ],
)
def test_a_denied_or_ended_presupposition_is_not_kept_as_current(question, answer):
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert not [f for f in d.memory.facts if f.status is FactStatus.PRESENT]
