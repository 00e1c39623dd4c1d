"""A diagnosis told as results that came, with no one named ("пришла гистология. рак лёгкого"), may
be a relative's whose tests the user spoke of in an earlier conversation: it is asked about, never
stored as the user's own by default (a relative's cancer on the user's record is the dangerous
direction). Said with "my", or already on the user's record, it is the user's."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import Section
from health_ltm.read.render import clarification_line
from health_ltm.read.views import ClarificationView
from tests.unit.test_dialogue_memory import Dialogue

S = Section
U, A = Role.USER, Role.ASSISTANT
OWN = (S.CHRONIC_CONDITIONS, S.REPORTED_DIAGNOSES)


@pytest.mark.parametrize(
    ("earlier", "news"),
    [
        (
            "у папы на флюорографии нашли пятно в лёгком, направили на кт и биопсию",
            "пришла гистология. рак лёгкого, аденокарцинома. будут химию делать",
        ),
        ("我爸拍了CT说肺上有个阴影 要做穿刺", "结果出来了 是肺癌 腺癌 医生说还能手术"),
        ("my mom had a biopsy on a lump last week", "results came back: it's lymphoma"),
    ],
)
def test_a_result_told_without_whose_it_is_is_asked_about(earlier: str, news: str) -> None:
    d = Dialogue()
    d.say((U, earlier), session="s1")
    d.clock.advance(days=12)
    d.say((U, news), session="s2")
    assert not [f for f in d.memory.facts if f.section in OWN]
    (asked,) = [c for c in d.memory.clarifications if c.reason == "owner_unknown"]
    assert asked.section in OWN and asked.proposed["said"]


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("my biopsy came back, it's lymphoma", "lymphoma"),
        ("мои анализы пришли, это гастрит", "gastritis"),
        ("у меня рак лёгкого", "lung_cancer"),
    ],
)
def test_a_result_said_as_ones_own_is_the_users(said: str, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert key in d.keys(S.CHRONIC_CONDITIONS)
    assert not d.memory.clarifications


def test_a_result_already_on_the_users_record_stays_theirs() -> None:
    d = Dialogue()
    d.say((U, "I have asthma"))
    d.say((U, "results came back, asthma again"), session="s2")
    assert d.keys(S.CHRONIC_CONDITIONS) == {"asthma"} and not d.memory.clarifications


def test_a_result_a_relatives_record_holds_adds_nothing() -> None:
    d = Dialogue()
    d.say((U, "my dad has lung cancer"))
    d.say((U, "пришла гистология. рак лёгкого, аденокарцинома"), session="s2")
    assert d.keys(S.FAMILY_HISTORY) == {"father:lung_cancer"}
    assert not [f for f in d.memory.facts if f.section in OWN] and not d.memory.clarifications


def test_the_question_reads_in_plain_words() -> None:
    line = clarification_line(
        ClarificationView(
            id="c1",
            section=S.CHRONIC_CONDITIONS,
            reason="owner_unknown",
            current={},
            proposed={"said": "рак лёгкого"},
        )
    )
    assert "without saying whose" in line and "рак лёгкого" in line and "_" not in line.split(":", 1)[1]


@pytest.mark.parametrize(
    ("earlier", "news", "key"),
    [
        (
            "у папы на флюорографии нашли пятно в лёгком, направили на кт и биопсию. я сам тоже курю",
            "пришла гистология. рак лёгкого, аденокарцинома. будут химию делать",
            "father:lung_cancer",
        ),
        ("我爸拍了CT说肺上有个阴影 要做穿刺", "结果出来了 是肺癌 腺癌 医生说还能手术", "father:lung_cancer"),
        (
            "my mom had a biopsy on a lump last week, waiting to hear",
            "results came back: it's lymphoma",
            "mother:lymphoma",
        ),
    ],
)
def test_the_relative_an_earlier_conversation_had_tested_gets_the_result(
    earlier: str, news: str, key: str
) -> None:
    """With the episodes stored (the deployed write path), the last conversations tell whose tests
    they were: the one relative said to be tested there."""
    from tests.unit.test_write_path import Memory

    m = Memory()
    m.say(earlier, session="s1")
    m.clock.advance(days=12)
    m.say(news, session="s2")
    memory = m.repo.load_memory("u")
    assert {f.key for f in memory.facts if f.section is S.FAMILY_HISTORY} == {key}
    assert not [f for f in memory.facts if f.section in OWN] and not memory.clarifications


def test_tests_of_the_user_too_leave_the_question_open() -> None:
    from tests.unit.test_write_path import Memory

    m = Memory()
    m.say("my dad had a CT and I had a biopsy too, both waiting", session="s1")
    m.clock.advance(days=5)
    m.say("results came back: it's lymphoma", session="s2")
    memory = m.repo.load_memory("u")
    assert [c.reason for c in memory.clarifications] == ["owner_unknown"]
    assert not [f for f in memory.facts if f.section in (*OWN, S.FAMILY_HISTORY)]
