"""Colloquial conditions, injuries named inside a surgery answer, and a prescribed drug later taken,
through whole dialogues (RU/EN/ZH), with wordings of their own."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER


@pytest.fixture
def talk() -> Dialogue:
    return Dialogue()


# ------------------------------------------------------------- a level "a bit high" is the condition
@pytest.mark.parametrize(
    ("turns", "key"),
    [
        ([(A, "What do you take?"), (U, "amlodipine, my BP runs slightly high")], "hypertension"),
        ([(U, "my cholesterol is on the high side")], "high_cholesterol"),
        ([(A, "Хронические болезни есть?"), (U, "давление немного повышенное")], "hypertension"),
        ([(U, "сахар у меня слегка повышен")], "hyperglycemia"),
        ([(A, "有什么慢性病吗？"), (U, "血压一直偏高")], "hypertension"),
        ([(U, "体检说血糖稍微有点高")], "hyperglycemia"),
        ([(U, "胆固醇比较高")], "high_cholesterol"),
    ],
)  # fmt: skip
def test_a_level_said_to_be_high_is_the_users_condition(talk, turns, key):
    talk.say(*turns)
    fact = talk.fact(Section.CHRONIC_CONDITIONS, key)
    assert fact is not None and fact.status is FactStatus.PRESENT


@pytest.mark.parametrize("said", ["my sugar is a little high", "сахар повышенный", "血糖偏高"])
def test_high_blood_sugar_is_not_diabetes(talk, said):
    talk.say((U, said))
    keys = talk.keys(Section.CHRONIC_CONDITIONS)
    assert "hyperglycemia" in keys and not {"diabetes", "type_2_diabetes", "type_1_diabetes"} & keys


@pytest.mark.parametrize(
    "said",
    [
        "my blood pressure is fine",
        "my blood pressure isn't high",
        "у меня давление в норме",
        "血压不高",
        "I check my blood sugar every morning",
        "maybe my cholesterol is a bit high, not sure",
    ],
)
def test_a_level_said_fine_or_guessed_is_no_condition(talk, said):
    talk.say((U, said))
    assert not talk.keys(Section.CHRONIC_CONDITIONS)


@pytest.mark.parametrize(
    "said", ["my dad's cholesterol is a bit high", "у мамы давление повышенное", "我爸爸血糖有点高"]
)
def test_a_relatives_high_level_is_family_history(talk, said):
    talk.say((U, said))
    assert not talk.keys(Section.CHRONIC_CONDITIONS)
    assert talk.keys(Section.FAMILY_HISTORY)


# ------------------------------------------------------------- the injury behind the surgery
@pytest.mark.parametrize(
    ("turns", "surgery", "injury"),
    [
        ([(A, "Any operations in the past?"), (U, "meniscus repair two years ago, I ripped it skiing")],
         "meniscus_surgery", "meniscus_tear"),
        ([(A, "Вас оперировали?"), (U, "да, пластика ПКС в 2020, разорвал её на баскетболе")],
         "acl_reconstruction", "acl_tear"),
        ([(A, "做过什么手术吗？"), (U, "前交叉韧带重建，打篮球时撕裂的")], "acl_reconstruction", "acl_tear"),
    ],
)  # fmt: skip
def test_a_tear_said_with_a_pronoun_in_a_surgery_answer_is_an_injury(talk, turns, surgery, injury):
    talk.say(*turns)
    assert talk.fact(Section.SURGERIES, surgery).status is FactStatus.PRESENT
    assert talk.fact(Section.INJURIES, injury).status in (FactStatus.PRESENT, FactStatus.RESOLVED)


@pytest.mark.parametrize(
    "said", ["I tore my ACL snowboarding", "порвал мениск на тренировке", "踢球时半月板撕裂了"]
)
def test_a_torn_structure_named_by_the_user_is_an_injury(talk, said):
    talk.say((U, said))
    assert talk.keys(Section.INJURIES) & {"acl_tear", "meniscus_tear"}


def test_a_relatives_torn_ligament_is_not_the_users(talk):
    talk.say((U, "my son tore his ACL playing rugby"))
    assert not talk.keys(Section.INJURIES)


# ------------------------------------------------------------- a prescribed drug later taken
@pytest.mark.parametrize(
    ("first", "then"),
    [
        ([(U, "the walk-in clinic prescribed me ibuprofen")],
         [(A, "Did it help?"), (U, "took it for five days")]),
        ([(U, "терапевт выписал ибупрофен")],
         [(A, "Ну как, помогло?"), (U, "пропила его неделю, полегчало")]),
        ([(U, "医生给我开了布洛芬")], [(A, "怎么样了？"), (U, "按时吃了三天，好多了")]),
    ],
)  # fmt: skip
def test_a_prescribed_drug_said_taken_later_is_taken(talk, first, then):
    talk.say(*first)
    assert talk.fact(Section.MEDICATIONS, "ibuprofen").status is FactStatus.PRESCRIBED
    talk.say(*then)
    assert talk.fact(Section.MEDICATIONS, "ibuprofen").status in (FactStatus.ACTIVE, FactStatus.STOPPED)


@pytest.mark.parametrize("then", ["I took it easy for a week", "吃了两碗饭", "She took it for a week"])
def test_other_taking_leaves_the_prescription_alone(talk, then):
    talk.say((U, "the doctor prescribed me ibuprofen"))
    talk.say((A, "How are you?"), (U, then))
    assert talk.fact(Section.MEDICATIONS, "ibuprofen").status is FactStatus.PRESCRIBED
