"""Chinese, third blind round, through whole dialogues: a doctor's switch is the drug taken now; a
medicine named by its form (止咳糖浆, 滴眼液, 喷雾) is a medication, not the symptom or disease in its
name; a yes to "started the medicine?" starts what was prescribed; a no to a question about
chronic diseases "like X, Y"; sitting all day is no exercise; a bare height beside the weight; a high
level that led to a diagnosis is the finding, not a second condition; symptoms said by their verb."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M, CC, RD, SY, LS, DM = (
    Section.MEDICATIONS,
    Section.CHRONIC_CONDITIONS,
    Section.REPORTED_DIAGNOSES,
    Section.SYMPTOMS,
    Section.LIFESTYLE,
    Section.DEMOGRAPHICS,
)


def _status(d: Dialogue, section: Section, key: str) -> FactStatus | None:
    fact = d.fact(section, key)
    return fact.status if fact is not None else None


# ------------------------------------------------------------------ 1. a doctor's switch
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("上周复诊，医生给我换成了缬沙坦80mg", "valsartan"),
        ("大夫给我改成氨氯地平了", "amlodipine"),
        ("医生给我换了西格列汀", "sitagliptin"),
        ("复查以后医生给我改用格列美脲了", "glimepiride"),
    ],
)
def test_a_switch_the_doctor_made_is_the_drug_taken_now(said: str, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, M, key) is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("said", "old", "new"),
    [
        ("医生把氯沙坦换成了缬沙坦", "losartan", "valsartan"),
        ("大夫把二甲双胍改成了格列美脲", "metformin", "glimepiride"),
    ],
)
def test_the_drug_switched_from_is_stopped(said: str, old: str, new: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, M, old) is FactStatus.STOPPED
    assert _status(d, M, new) is FactStatus.ACTIVE


def test_a_stop_then_a_switch_answered_to_still_taking_it() -> None:
    d = Dialogue()
    d.say((U, "我一直吃氯沙坦"))
    d.say((A, "氯沙坦还在吃吗？"), (U, "早就停了。大夫给我换成缬沙坦了"))
    assert _status(d, M, "losartan") is FactStatus.STOPPED
    assert _status(d, M, "valsartan") is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("before", "question", "answer", "old", "new"),
    [
        ("我一直吃氯沙坦", "氯沙坦还在吃吗？", "没有了，上周医生给我换成缬沙坦了", "losartan", "valsartan"),
        ("我在吃二甲双胍", "二甲双胍还在吃吗？", "不吃了 大夫给我改成西格列汀了", "metformin", "sitagliptin"),
    ],
)
def test_no_longer_then_the_new_drug_stops_the_one_asked_about(
    before: str, question: str, answer: str, old: str, new: str
) -> None:
    d = Dialogue()
    d.say((U, before), session="s0")
    d.say((A, question), (U, answer))
    assert _status(d, M, old) is FactStatus.STOPPED
    assert _status(d, M, new) is FactStatus.ACTIVE


def test_no_longer_after_another_question_stops_nothing() -> None:
    d = Dialogue()
    d.say((U, "我在吃二甲双胍"), session="s0")
    d.say((A, "最近还好吗？"), (U, "没有了 医生给我换成瑞舒伐他汀了"))
    assert _status(d, M, "metformin") is FactStatus.ACTIVE


def test_a_switch_not_begun_keeps_the_old_drug() -> None:
    d = Dialogue()
    d.say((U, "我在吃二甲双胍"), session="s0")
    d.say((A, "二甲双胍还在吃吗？"), (U, "没有了，换成西格列汀了，还没开始吃"))
    assert _status(d, M, "metformin") is FactStatus.ACTIVE
    assert _status(d, M, "sitagliptin") is FactStatus.PRESCRIBED


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("医生建议换成瑞舒伐他汀", "rosuvastatin"),
        ("医生说，改成缬沙坦试试", "valsartan"),
        ("医生给我换成缬沙坦了，还没开始吃", "valsartan"),
    ],
)
def test_a_switch_only_advised_or_not_begun_is_prescribed_not_taken(said: str, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, M, key) is FactStatus.PRESCRIBED


def test_a_new_brand_of_the_same_drug_is_no_switch() -> None:
    d = Dialogue()
    d.say((U, "我每晚吃阿托伐他汀"))
    d.say((U, "阿托伐他汀换了个牌子"))
    assert _status(d, M, "atorvastatin") is FactStatus.ACTIVE


def test_a_drug_only_asked_about_is_not_taken() -> None:
    d = Dialogue()
    d.say((A, "您吃过缬沙坦吗？"), (U, "没吃过"))
    assert _status(d, M, "valsartan") is None


# ------------------------------------------------------------------ 2. "started the medicine?"
def test_a_yes_to_started_the_medicine_starts_what_was_prescribed() -> None:
    d = Dialogue()
    d.say(
        (U, "看了门诊，大夫开了布地奈德和生理盐水喷雾"),
        (A, "开始用了吗？"),
        (U, "嗯 今天早上开始用了"),
    )
    assert _status(d, M, "budesonide") is FactStatus.ACTIVE
    assert _status(d, M, "生理盐水喷雾") is FactStatus.ACTIVE


def test_not_yet_keeps_the_prescription() -> None:
    d = Dialogue()
    d.say((U, "医生开了头孢克肟和川贝止咳糖浆"), (A, "开的药开始吃了吗？"), (U, "还没，明天开始"))
    assert _status(d, M, "cefixime") is FactStatus.PRESCRIBED
    assert _status(d, M, "川贝止咳糖浆") is FactStatus.PRESCRIBED


# ------------------------------------------------------------------ 3. a medicine named by its form
@pytest.mark.parametrize(
    ("said", "key", "not_section", "not_key"),
    [
        ("医生开了一瓶枇杷止咳糖浆", "枇杷止咳糖浆", SY, "cough"),
        ("大夫给我开了感冒冲剂", "感冒冲剂", RD, "common_cold"),
        ("医生开了鼻炎喷雾，一天两次", "鼻炎喷雾", CC, "allergic_rhinitis"),
        ("医生给我开了氧氟沙星滴眼液", "氧氟沙星滴眼液", SY, "eye_pain"),
    ],
)
def test_a_medicine_named_by_its_form_is_a_medication(
    said: str, key: str, not_section: Section, not_key: str
) -> None:
    d = Dialogue()
    d.say((U, said))
    assert _status(d, M, key) is FactStatus.PRESCRIBED
    assert d.keys(not_section) == set()
    assert d.fact(not_section, not_key) is None


def test_a_form_medicine_keeps_its_own_route() -> None:
    d = Dialogue()
    d.say((U, "医生开了感冒冲剂和鼻炎喷雾"))
    assert "route" not in d.fact(M, "感冒冲剂").attributes
    assert d.fact(M, "鼻炎喷雾").attributes.get("route") == "nasal"


@pytest.mark.parametrize("said", ["我每天用防晒喷雾", "早上吃了枫糖浆松饼"])
def test_a_spray_or_syrup_that_is_no_medicine_is_nothing(said: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert d.keys(M) == set()


def test_the_symptom_and_the_disease_themselves_stay() -> None:
    d = Dialogue()
    d.say((U, "咳嗽好几天了"))
    d.say((U, "我感冒了"))
    assert _status(d, SY, "cough") is FactStatus.PRESENT
    assert _status(d, RD, "common_cold") is FactStatus.PRESENT
    assert d.keys(M) == set()


# ------------------------------------------------------------------ 4. "chronic diseases like X, Y?"
@pytest.mark.parametrize(
    ("question", "answer"),
    [("有哮喘、冠心病这类慢性病吗？", "没有过"), ("有没有哮喘、冠心病这类慢性病？", "没有啊")],
)
def test_a_no_to_chronic_diseases_named_as_examples_is_the_section(question: str, answer: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert d.status(CC) is SectionStatus.CONFIRMED_ABSENT
    assert d.fact(CC, "asthma") is None and d.fact(CC, "coronary_artery_disease") is None


def test_a_no_to_a_drug_question_says_nothing_of_chronic_diseases() -> None:
    d = Dialogue()
    d.say((A, "平时吃药吗？"), (U, "不吃"))
    assert d.status(M) is SectionStatus.CONFIRMED_ABSENT
    assert d.status(CC) is SectionStatus.UNKNOWN
    assert d.keys(CC) == set()


# ------------------------------------------------------------------ 5. exercise, height and weight
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("平时有锻炼吗？", "不怎么动，一天到晚坐着"),
        ("运动多吗？", "很少动，整天宅在家"),
        ("您平时运动吗？", "没时间，久坐"),
    ],
)
def test_sitting_all_day_is_no_exercise(question: str, answer: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    fact = d.fact(LS, "physical_activity")
    assert fact is not None and fact.status is FactStatus.ABSENT


def test_exercise_said_is_exercise() -> None:
    d = Dialogue()
    d.say((A, "平常运动吗？"), (U, "每周跑步三次"))
    assert _status(d, LS, "physical_activity") is FactStatus.PRESENT


def test_a_limb_that_does_not_move_is_no_habit() -> None:
    d = Dialogue()
    d.say((A, "手怎么了？"), (U, "左手基本不动了"))
    assert d.keys(LS) == set()


@pytest.mark.parametrize(
    ("question", "answer", "height", "weight"),
    [
        ("身高体重能说一下吗？", "168，55公斤", 168, 55),
        ("体重和身高呢？", "62kg，170左右", 170, 62),
        ("身高体重？", "160，100斤", 160, 50),
    ],
)
def test_a_bare_height_beside_the_weight(question: str, answer: str, height: int, weight: int) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert d.fact(DM, "height_cm").attributes["height_cm"] == height
    assert d.fact(DM, "weight_kg").attributes["weight_kg"] == weight


def test_two_bare_numbers_are_no_height() -> None:
    d = Dialogue()
    d.say((A, "血压多少？"), (U, "150，90"))
    assert d.fact(DM, "height_cm") is None


# ------------------------------------------------------------------ 6. a finding and its diagnosis
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("体检发现血糖偏高，后来确诊2型糖尿病", "type_2_diabetes"),
        ("血糖一直高，医生说是糖尿病前期", "prediabetes"),
        ("查出血糖高，后来确诊糖尿病", "diabetes"),
    ],
)
def test_a_high_level_that_led_to_the_diagnosis_is_no_condition_of_its_own(said: str, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert d.keys(CC) == {key}
    assert d.keys(SY) == set()  # "查出血糖高" is no bleeding (出血)


@pytest.mark.parametrize(
    ("said", "keys"),
    [
        ("血糖有点高，医生说还不是糖尿病", {"hyperglycemia", "diabetes"}),
        ("我血糖偏高", {"hyperglycemia"}),
    ],
)
def test_a_high_level_with_no_diagnosis_stays(said: str, keys: set[str]) -> None:
    d = Dialogue()
    d.say((U, said))
    assert d.keys(CC) == keys
    assert _status(d, CC, "hyperglycemia") is FactStatus.PRESENT
    if "diabetes" in keys:
        assert _status(d, CC, "diabetes") is FactStatus.ABSENT


def test_a_relatives_diagnosis_leaves_the_users_level() -> None:
    d = Dialogue()
    d.say((U, "我血糖有点高，我妈有糖尿病"))
    assert _status(d, CC, "hyperglycemia") is FactStatus.PRESENT
    assert d.fact(CC, "diabetes") is None


# ------------------------------------------------------------------ 7. symptoms now and gone
@pytest.mark.parametrize(
    ("answer", "onset"),
    [("咳嗽三四天了，有点低烧，38度", 4), ("咳了五天了，晚上还低烧", 5)],
)
def test_cough_and_low_fever_are_present(answer: str, onset: int) -> None:
    d = Dialogue()
    d.say((A, "哪儿不舒服？"), (U, answer))
    assert _status(d, SY, "cough") is FactStatus.PRESENT
    assert _status(d, SY, "fever") is FactStatus.PRESENT
    assert d.fact(SY, "cough").attributes.get("onset_days_ago") == onset


@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [
        ("现在还拉肚子吗？", "已经不拉了，没事了", "diarrhea"),
        ("还吐吗？", "早就不吐了", "vomiting"),
        ("还咳吗？", "不咳了，舒服多了", "cough"),
    ],
)
def test_a_symptom_said_gone_by_its_verb_is_resolved(question: str, answer: str, key: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert _status(d, SY, key) is FactStatus.RESOLVED


@pytest.mark.parametrize(
    ("question", "answer", "key"),
    [("这两天还腹泻吗？", "还在拉，一天三四次", "diarrhea"), ("还咳吗？", "一直咳个不停", "cough")],
)
def test_a_symptom_said_going_on_by_its_verb_is_present(question: str, answer: str, key: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert _status(d, SY, key) is FactStatus.PRESENT


@pytest.mark.parametrize("answer", ["他还在吐槽我", "我还在拉伸", "吃了止咳药"])
def test_a_verb_that_is_no_symptom_is_nothing(answer: str) -> None:
    d = Dialogue()
    d.say((A, "最近怎么样？"), (U, answer))
    assert d.keys(SY) == set()
