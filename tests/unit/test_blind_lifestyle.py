"""Blind lifestyle and symptom patterns (RU/EN/ZH), through whole dialogue fragments: a habit off
"for N years" is stopped, vaping is its own habit, colloquial and misspelt symptoms, a symptom
that ended."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus as F
from health_ltm.domain.sections import Section as S
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER


def _facts(*fragments: list[tuple[Role, str]]) -> dict[tuple[S, str], F]:
    d = Dialogue()
    for turns in fragments:
        d.say(*turns)
    return {(f.section, f.key): f.status for f in d.memory.facts}


# ---------------------------------------------------------------- a habit off for a while: stopped
@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [
        ("Курите?", "уже лет семь как не курю", "smoking"),
        ("Курите?", "три года не курю", "smoking"),
        ("Are you a smoker?", "nope, haven't touched a cigarette in a couple of years", "smoking"),
        ("Are you a smoker?", "I've been smoke-free since 2020", "smoking"),
        ("抽烟吗？", "好几年没抽了", "smoking"),
        ("抽烟吗？", "已经两年不抽烟了", "smoking"),
        ("Выпиваете?", "не пью уже полгода", "alcohol"),
        ("Do you drink alcohol?", "I've been sober for three years", "alcohol"),
        ("喝酒吗？", "三年没喝酒了", "alcohol"),
    ],
)
def test_a_habit_off_for_a_while_is_stopped(question: str, answer: str, key: str) -> None:
    assert _facts([(A, question), (U, answer)]).get((S.LIFESTYLE, key)) is F.STOPPED


@pytest.mark.parametrize(
    "answer",
    ["курил лет двадцать, по пачке в день", "I smoked half a pack a day for about 12 years"],
)
def test_the_past_habit_told_with_its_length_is_over(answer: str) -> None:
    d = Dialogue()
    d.say((A, "Have you ever smoked?"), (U, answer))
    smoking = d.fact(S.LIFESTYLE, "smoking")
    assert smoking is not None and smoking.status is F.STOPPED
    assert "former smoker" in smoking.attributes["value"] and "years" in smoking.attributes["value"]


def test_a_habit_told_as_still_going_stays_present() -> None:
    facts = _facts([(A, "Do you smoke?"), (U, "smoked for 15 years and still smoke, a pack a day")])
    assert facts.get((S.LIFESTYLE, "smoking")) is F.PRESENT


# ---------------------------------------------------------------- vaping is its own habit
@pytest.mark.parametrize(
    "answer",
    [
        "no cigarettes, just an e-cig these days",
        "сигареты не курю, парю электронку",
        "我不抽烟，只抽电子烟",
    ],
)
def test_vaping_is_its_own_habit(answer: str) -> None:
    facts = _facts([(A, "Do you smoke?"), (U, answer)])
    assert facts.get((S.LIFESTYLE, "vaping")) is F.PRESENT
    assert facts.get((S.LIFESTYLE, "smoking")) is not F.PRESENT


@pytest.mark.parametrize("answer", ["бросил курить, теперь на вейпе", "quit smoking and switched to vaping"])
def test_quit_smoking_for_vaping(answer: str) -> None:
    facts = _facts([(A, "Курите?"), (U, answer)])
    assert facts.get((S.LIFESTYLE, "smoking")) is F.STOPPED
    assert facts.get((S.LIFESTYLE, "vaping")) is F.PRESENT


@pytest.mark.parametrize("answer", ["I don't vape", "не парю и не курю", "我不抽电子烟"])
def test_denied_vaping_is_never_present(answer: str) -> None:
    facts = _facts([(A, "Do you smoke or vape?"), (U, answer)])
    assert facts.get((S.LIFESTYLE, "vaping")) in (None, F.ABSENT)
    assert facts.get((S.LIFESTYLE, "smoking")) is not F.PRESENT


# ---------------------------------------------------------------- colloquial and misspelt symptoms
@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("в животе крутит с утра", "abdominal_pain"),
        ("в боку колет, когда бегу", "side_pain"),
        ("my shoulder has been acting up all week", "shoulder_pain"),
        ("my lower back is killing me", "back_pain"),
        ("колено балит", "knee_pain"),
        ("с утра тимпература 38 и знобит", "fever"),
        ("got a temprature of 101", "fever"),
    ],
)
def test_colloquial_symptom_is_present(answer: str, key: str) -> None:
    assert _facts([(A, "Что беспокоит?"), (U, answer)]).get((S.SYMPTOMS, key)) is F.PRESENT


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("живот не крутит, всё нормально", "abdominal_pain"),
        ("my knee doesn't hurt", "knee_pain"),
        ("температура 36.6", "fever"),
    ],
)
def test_a_denied_or_normal_symptom_is_never_present(answer: str, key: str) -> None:
    assert _facts([(A, "How are you feeling?"), (U, answer)]).get((S.SYMPTOMS, key)) is not F.PRESENT


def test_someone_elses_killing_knee_is_not_the_users() -> None:
    facts = _facts([(A, "Anything else?"), (U, "my mom's knee is killing her")])
    assert (S.SYMPTOMS, "knee_pain") not in facts


# ---------------------------------------------------------------- a symptom that ended
@pytest.mark.parametrize(
    ("first", "later", "key"),
    [
        ("третий день понос", "всё, понос прошел", "diarrhea"),
        ("I've had diarrhea since Monday", "diarrhea's gone now", "diarrhea"),
        ("前天开始吐", "现在不吐了", "vomiting"),
        ("昨天发烧了", "今天烧退了", "fever"),
        ("拉肚子两天了", "吃了药，不拉了", "diarrhea"),
    ],
)
def test_a_symptom_that_ended_is_resolved(first: str, later: str, key: str) -> None:
    facts = _facts([(A, "What's bothering you?"), (U, first)], [(A, "How is it now?"), (U, later)])
    assert facts.get((S.SYMPTOMS, key)) is F.RESOLVED
