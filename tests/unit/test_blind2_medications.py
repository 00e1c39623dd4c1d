"""Medication patterns through whole dialogues: a yes to "have you started X?", a stop and a switch
said in Chinese, drugs added to the synonym table (gout, thyroid, diabetes), prenatal vitamins."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M = Section.MEDICATIONS


def _status(d: Dialogue, key: str) -> FactStatus | None:
    fact = d.fact(M, key)
    return fact.status if fact is not None else None


# ------------------------------------------------------------------ a yes to "have you started X?"
@pytest.mark.parametrize(
    ("prescribed", "question", "answer", "key", "status"),
    [
        (
            "the endocrinologist prescribed metformin 500 mg",
            "Did you start the metformin yet?",
            "yes, a few days ago",
            "metformin",
            FactStatus.ACTIVE,
        ),
        (
            "the endocrinologist prescribed metformin 500 mg",
            "Have you begun taking it?",
            "started it on the weekend",
            "metformin",
            FactStatus.ACTIVE,
        ),
        (
            "the endocrinologist prescribed metformin 500 mg",
            "Did you start the metformin yet?",
            "not yet, picking it up tomorrow",
            "metformin",
            FactStatus.PRESCRIBED,
        ),
        (
            "кардиолог выписал лозартан 50 мг",
            "Начали уже принимать лозартан?",
            "ага, третий день",
            "losartan",
            FactStatus.ACTIVE,
        ),
        (
            "кардиолог выписал лозартан 50 мг",
            "Вы его уже начали пить?",
            "начала вчера",
            "losartan",
            FactStatus.ACTIVE,
        ),
        (
            "кардиолог выписал лозартан 50 мг",
            "Начали уже принимать лозартан?",
            "пока нет, рецепт ещё не забрала",
            "losartan",
            FactStatus.PRESCRIBED,
        ),
        ("医生给我开了二甲双胍", "二甲双胍开始吃了吗？", "嗯，已经开始吃了", "metformin", FactStatus.ACTIVE),
        ("医生给我开了二甲双胍", "吃上了没？", "吃上了，一天两次", "metformin", FactStatus.ACTIVE),
        (
            "医生给我开了二甲双胍",
            "开始服用了吗？",
            "还没有，明天去药房拿",
            "metformin",
            FactStatus.PRESCRIBED,
        ),
    ],
)
def test_a_yes_to_have_you_started_makes_the_drug_active(
    prescribed: str, question: str, answer: str, key: str, status: FactStatus
) -> None:
    d = Dialogue()
    d.say((U, prescribed))
    assert _status(d, key) is FactStatus.PRESCRIBED
    d.say((A, question), (U, answer))
    assert _status(d, key) is status


def test_started_after_a_switch_in_the_same_fragment() -> None:
    d = Dialogue()
    d.say((U, "I've been on lisinopril 10 mg for years"))
    d.say(
        (U, "the cough got unbearable so I quit it last week, and the doctor switched me to valsartan"),
        (A, "Did you start the valsartan already?"),
        (U, "yeah, two days ago"),
    )
    assert _status(d, "lisinopril") is FactStatus.STOPPED
    assert _status(d, "valsartan") is FactStatus.ACTIVE


# ------------------------------------------------------------------ a stop and a switch
@pytest.mark.parametrize(
    ("before", "after", "old", "new"),
    [
        (
            "每天早上吃氯沙坦50毫克",
            "最近老是干咳，大夫说也许跟氯沙坦有关，所以就停了，改成氨氯地平5毫克",
            "losartan",
            "amlodipine",
        ),
        (
            "我一直在吃阿托伐他汀20mg",
            "肌肉酸痛得厉害，医生怀疑是阿托伐他汀的副作用，后来停掉了，换成瑞舒伐他汀",
            "atorvastatin",
            "rosuvastatin",
        ),
        (
            "пью аторвастатин 20 мг",
            "аторвастатин отменили из-за болей в мышцах, перевели на розувастатин",
            "atorvastatin",
            "rosuvastatin",
        ),
        (
            "I take atorvastatin 20 mg",
            "quit the atorvastatin because of muscle aches and switched to rosuvastatin",
            "atorvastatin",
            "rosuvastatin",
        ),
    ],
)
def test_a_stop_then_a_switch_ends_the_old_drug(before: str, after: str, old: str, new: str) -> None:
    d = Dialogue()
    d.say((U, before))
    assert _status(d, old) is FactStatus.ACTIVE
    d.say((U, after))
    assert _status(d, old) is FactStatus.STOPPED
    assert _status(d, new) in (FactStatus.ACTIVE, FactStatus.PRESCRIBED)


def test_a_switch_the_doctor_made_stops_the_old_drug_and_the_user_takes_the_new_one() -> None:
    # a switch told as done: the user is on the new drug (blind3 labels; "建议换成" stays prescribed)
    d = Dialogue()
    d.say((U, "医生把拜新同换成了氨氯地平"))
    assert _status(d, "nifedipine") is FactStatus.STOPPED
    assert _status(d, "amlodipine") is FactStatus.ACTIVE


def test_a_maybe_about_the_cause_is_no_stop_by_itself() -> None:
    d = Dialogue()
    d.say((U, "每天吃阿司匹林100mg"))
    d.say((U, "胃疼，可能是阿司匹林引起的"))
    assert _status(d, "acetylsalicylic_acid") is FactStatus.ACTIVE


# ------------------------------------------------------------------ drugs added to the table
@pytest.mark.parametrize(
    ("question", "answer", "key", "dose"),
    [
        ("你现在吃什么药？", "有，苯溴马隆，每天50毫克", "benzbromarone", 50.0),
        ("你现在吃什么药？", "非布司他，一天20毫克", "febuxostat", 20.0),
        ("你现在吃什么药？", "我在吃优立通40mg", "febuxostat", 40.0),
        ("Any regular medications?", "Uloric, 40 mg a day", "febuxostat", 40.0),
        ("Какие лекарства принимаете?", "аденурик 80 мг", "febuxostat", 80.0),
        ("你现在吃什么药？", "别嘌呤醇，一天100毫克", "allopurinol", 100.0),
        ("你现在吃什么药？", "秋水仙碱0.5毫克", "colchicine", 0.5),
        ("你现在吃什么药？", "每天早上吃优甲乐50微克", "levothyroxine", 50.0),
        ("你现在吃什么药？", "瑞格列奈，饭前1毫克", "repaglinide", 1.0),
        ("你现在吃什么药？", "格列美脲2毫克", "glimepiride", 2.0),
    ],
)
def test_drugs_for_gout_thyroid_and_diabetes_are_known(
    question: str, answer: str, key: str, dose: float
) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    fact = d.fact(M, key)
    assert fact is not None and fact.status is FactStatus.ACTIVE
    assert fact.attributes.get("dose_value") == dose


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Are you on any medications?", "only my prenatals"),
        ("Any medicines or supplements?", "a prenatal vitamin, nothing else"),
        ("Принимаете какие-нибудь препараты?", "только Элевит"),
        ("Принимаете какие-нибудь препараты?", "пью витамины для беременных"),
        ("平时吃什么药吗？", "就吃爱乐维"),
    ],
)
def test_prenatal_vitamins_have_their_own_key(question: str, answer: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert _status(d, "prenatal_vitamins") is FactStatus.ACTIVE
    assert "prenatal" not in d.keys(M)


def test_a_pronoun_stop_before_the_new_drug_is_the_old_one() -> None:
    d = Dialogue()
    d.say((U, "пью эналаприл 10 мг"))
    d.say((U, "от кашля его бросила, и терапевт перевёл меня на валсартан"))
    assert _status(d, "enalapril") is FactStatus.STOPPED
    assert _status(d, "valsartan") in (FactStatus.ACTIVE, FactStatus.PRESCRIBED)


def test_statin_names_are_no_third_person() -> None:
    d = Dialogue()
    d.say((U, "我在吃阿托伐他汀，还有二甲双胍"))
    assert _status(d, "atorvastatin") is FactStatus.ACTIVE
    assert _status(d, "metformin") is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("said", "key", "value"),
    [
        ("пью эгилок 25 по утрам", "metoprolol", 25.0),
        ("I take lisinopril 20 every day", "lisinopril", 20.0),
        ("принимаю варфарин 2,5", "warfarin", 2.5),
    ],
)
def test_a_number_right_after_the_drug_name_is_its_dose_as_said(said, key, value):
    d = Dialogue()
    d.say((Role.USER, said))
    fact = d.fact(Section.MEDICATIONS, key)
    assert fact is not None and fact.attributes.get("dose_value") == value


def test_a_count_a_time_or_a_name_number_after_a_drug_is_not_a_dose():
    d = Dialogue()
    d.say(
        (Role.ASSISTANT, "Какие лекарства принимаете?"),
        (Role.USER, "лизиноприл 10 утром и вечером, омега 3"),
    )
    assert d.keys(Section.MEDICATIONS) <= {"lisinopril", "omega_3_fatty_acids"}  # no "вечер"
    omega = d.fact(Section.MEDICATIONS, "omega_3_fatty_acids")
    assert omega is None or "dose_value" not in omega.attributes  # the 3 is its name's


@pytest.mark.parametrize(
    ("said", "key"),
    [("я на бисопрололе 5 мг", "bisoprolol"), ("я уже давно на L-тироксине", "levothyroxine")],
)
def test_the_russian_im_on_x_is_taking_x(said, key):
    d = Dialogue()
    d.say((Role.USER, said))
    fact = d.fact(Section.MEDICATIONS, key)
    assert fact is not None and fact.status is FactStatus.ACTIVE


@pytest.mark.parametrize("said", ["я на аспирин не реагирую", "я на цефтриаксон аллергик", "я на диете"])
def test_na_with_a_drug_in_another_case_or_no_drug_is_not_taking_it(said):
    d = Dialogue()
    d.say((Role.USER, said))
    assert d.keys(Section.MEDICATIONS) == set()
