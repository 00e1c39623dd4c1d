"""What talking to the local stack found (2026-12-01): the condition or complaint a named drug is taken for,
an inhaler named with its drug in front, and Chinese answers that stop a drug or keep a habit."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M, CC, LI = Section.MEDICATIONS, Section.CHRONIC_CONDITIONS, Section.LIFESTYLE


@pytest.mark.parametrize(
    ("drugs", "question", "answer", "condition"),
    [
        ("конкор 5 утром", "По какому поводу вы пьёте конкор?", "гипертония, давно", "hypertension"),
        ("конкор 5 утром", "А конкор по какому поводу?", "давление высокое было, гипертония", "hypertension"),
        ("lisinopril 10 daily", "What do you take the lisinopril for?", "hypertension", "hypertension"),
        ("lisinopril 10 daily", "what's the lisinopril for?", "high blood pressure", "hypertension"),
    ],
)
def test_the_condition_a_named_drug_is_taken_for_is_the_users(drugs, question, answer, condition):
    d = Dialogue()
    d.say((A, "Which medicines do you take?"), (U, drugs), (A, question), (U, answer))
    assert d.fact(CC, condition) is not None


@pytest.mark.parametrize(
    ("drugs", "question", "answer", "symptom"),
    [
        ("эутирокс 75 утром натощак и конкор 2.5", "По какому поводу конкор?", "тахикардия", "palpitations"),
        ("metoprolol 25 mg twice a day", "What's the metoprolol for?", "palpitations", "palpitations"),
    ],
)
def test_a_complaint_a_named_drug_is_taken_for_is_the_users_symptom(drugs, question, answer, symptom):
    d = Dialogue()
    d.say((A, "Which medicines do you take?"), (U, drugs), (A, question), (U, answer))
    assert d.fact(Section.SYMPTOMS, symptom).status is FactStatus.PRESENT


def test_a_reason_for_a_visit_is_not_read_as_a_drugs_indication():
    d = Dialogue()
    d.say((A, "По какому поводу обращались к врачу?"), (U, "горло болело"))
    assert d.keys(CC) == set()


@pytest.mark.parametrize(
    "answer",
    ["oh and i do have a salbutamol inhaler, only when i need it", "i also keep my ventolin inhaler on me"],
)
def test_an_inhaler_named_with_its_drug_in_front_is_a_drug_in_use_after_a_no(answer):
    d = Dialogue()
    d.say((A, "Any medications at the moment?"), (U, "no"))
    d.say((A, "Any long-term conditions?"), (U, f"asthma. {answer}"))
    fact = d.fact(M, "salbutamol")
    assert fact is not None and fact.status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("抽烟喝酒吗？", "早就不抽了 戒了三年 啤酒周末喝点"),
        ("Курите? Алкоголь?", "бросил курить лет пять назад, а вино пью по выходным"),
        ("Do you smoke or drink?", "quit smoking years ago, i drink wine most weekends"),
    ],
)
def test_a_habit_given_up_does_not_end_the_other_habit_in_the_same_answer(question, answer):
    d = Dialogue()
    d.say((A, question), (U, answer))
    smoking, alcohol = d.fact(LI, "smoking"), d.fact(LI, "alcohol")
    assert smoking is not None and smoking.status is FactStatus.STOPPED
    assert alcohol is not None and alcohol.status is FactStatus.PRESENT


def test_both_habits_given_up_in_one_answer_are_both_ended():
    d = Dialogue()
    d.say((A, "Курите? Алкоголь?"), (U, "раньше и курил, и пил, всё бросил"))
    assert all(d.fact(LI, key).status is FactStatus.STOPPED for key in ("smoking", "alcohol"))


FH = Section.FAMILY_HISTORY


@pytest.mark.parametrize(
    ("answer", "relative_key"),
    [
        ("mum - asthma, dad - high blood pressure", "father:hypertension"),
        ("мама: астма. отец — гипертония", "father:hypertension"),
    ],
)
def test_a_relative_written_as_a_label_before_the_condition_is_family_history(answer, relative_key):
    d = Dialogue()
    d.say((A, "Any illnesses in the family?"), (U, answer))
    assert d.fact(FH, relative_key) is not None
    assert d.keys(CC) == set()  # never the user's own


AL = Section.ALLERGIES


@pytest.mark.parametrize(
    "take_back",
    [
        "actually no, the penicillin allergy was my sister, not me",
        "scratch that about the penicillin allergy",
    ],
)
def test_a_take_back_naming_what_it_takes_back_asks_before_dropping_a_stored_allergy(take_back):
    d = Dialogue()
    d.say((U, "I'm allergic to penicillin"), session="s1")
    d.say((U, take_back), session="s2")
    # an allergy wrongly dropped is the dangerous direction: held for the assistant to confirm
    assert d.fact(AL, "penicillin") is not None
    assert [c.reason for c in d.memory.clarifications] == ["retracted_mention"]


def test_a_take_back_in_the_same_conversation_voids_the_mention():
    d = Dialogue()
    d.say((U, "I'm allergic to penicillin"), (U, "scratch that about the penicillin, it was my sister"))
    assert d.fact(AL, "penicillin") is None


@pytest.mark.parametrize(
    ("messages", "meant"),
    [
        (("I take codeine for my knee", "scratch that, I meant tramadol"), "tramadol"),
        (("пью кетонал от спины", "нет, не так, я имела в виду кеторол"), "ketorolac"),
    ],
)
def test_the_name_meant_instead_takes_the_place_of_the_one_taken_back(messages, meant):
    d = Dialogue()
    d.say(*((U, text) for text in messages))
    assert d.keys(M) == {meant}
    assert d.fact(M, meant).status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("answer", "key", "age"),
    [
        ("mom has type 2 diabetes, dad had a stroke at 70", "father:stroke", 70),
        ("my father had a heart attack at age 52", "father:myocardial_infarction", 52),
        ("my mom got breast cancer when she was 45", "mother:breast_cancer", 45),
        ("папа - инфаркт в 60, мама: диабет", "father:myocardial_infarction", 60),
        ("у мамы в 50 лет нашли рак груди", "mother:breast_cancer", 50),
        # the age in the next clause, which says the disease came
        ("my mother has type 2 diabetes, she got it at 55", "mother:type_2_diabetes", 55),
        ("my dad had a stroke, he was 62 when it happened", "father:stroke", 62),
        ("мама болеет диабетом, заболела в 50", "mother:diabetes", 50),
        ("у мамы рак груди, нашли в 48 лет", "mother:breast_cancer", 48),
        ("我妈妈有糖尿病，五十岁得的", "mother:diabetes", 50),
        ("我爸爸高血压，他60岁查出来的", "father:hypertension", 60),
    ],
)
def test_a_relatives_age_when_the_disease_came_is_kept(answer, key, age):
    d = Dialogue()
    d.say((A, "Any diseases in your family?"), (U, answer))
    fact = d.fact(Section.FAMILY_HISTORY, key)
    assert fact is not None and fact.attributes.get("age_at_onset") == age


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("dad had a stroke in 2019", "father:stroke"),
        ("dad had a stroke at 7 am, we called 911", "father:stroke"),
        # an age now, a stay, a dose time in the next clause: not when the disease came
        ("my mom has diabetes, she is 70 now", "mother:diabetes"),
        ("my sister has asthma, she was 5 days in hospital", "sister:asthma"),
        ("у папы гипертония, он пьёт 2 таблетки в 8 утра", "father:hypertension"),
        ("我妈妈有糖尿病，今年七十岁了", "mother:diabetes"),
    ],
)
def test_a_year_or_a_clock_time_is_not_an_age(answer, key):
    d = Dialogue()
    d.say((A, "Any diseases in your family?"), (U, answer))
    fact = d.fact(Section.FAMILY_HISTORY, key)
    assert fact is not None and "age_at_onset" not in fact.attributes


@pytest.mark.parametrize(
    "said", ["urgent care said strep throat", "doc says it's strep", "医生说是链球菌咽炎"]
)
def test_strep_throat_is_streptococcal_pharyngitis_not_tonsillitis(said):
    d = Dialogue()
    d.say((U, said))
    fact = d.fact(Section.REPORTED_DIAGNOSES, "strep_throat")
    assert fact is not None and fact.code == "J02.0"
    assert d.fact(Section.REPORTED_DIAGNOSES, "tonsillitis") is None


@pytest.mark.parametrize("answer", ["吃了布洛芬，现在不吃了", "吃了两天布洛芬，就不吃了", "布洛芬我不吃了"])
def test_a_chinese_stop_in_the_next_clause_ends_the_drug_its_own_clause_took(answer):
    d = Dialogue()
    d.say((A, "有吃止痛药吗？"), (U, answer))
    fact = d.fact(M, "ibuprofen")
    assert fact is not None and fact.status is FactStatus.STOPPED


def test_a_chinese_pause_then_restart_keeps_the_drug_taken():
    d = Dialogue()
    d.say((U, "在吃氨氯地平，最近停了一周又开始吃了"))
    fact = d.fact(M, "amlodipine")
    assert fact is not None and fact.status is FactStatus.ACTIVE


@pytest.mark.parametrize("asked", ["拜新同不吃行不行", "拜新同不吃了好不好"])
def test_asking_whether_a_drug_may_be_stopped_does_not_stop_it(asked):
    d = Dialogue()
    d.say((U, asked))
    fact = d.fact(M, "nifedipine")
    assert fact is None or fact.status is not FactStatus.STOPPED


@pytest.mark.parametrize(
    "question", ["Are you still taking the cyclobenzaprine?", "Still on the cyclobenzaprine?"]
)
def test_a_stored_drug_no_table_lists_named_in_the_question_is_the_one_stopped(question):
    # the stop's referent is the drug the assistant named, not an ambiguity between the two stored
    d = Dialogue()
    d.say(
        (U, "nothing helps my back pain"), (A, "What have you tried?"), (U, "naproxen and cyclobenzaprine 10")
    )
    d.say((A, question), (U, "I stopped taking it last week"), session="s2")
    assert d.fact(M, "cyclobenzaprine").status is FactStatus.STOPPED
    assert d.fact(M, "naproxen").status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    "correction",
    [
        "sorry, I said ibuprofen but I meant naproxen",
        "я сказала ибупрофен, а имела в виду напроксен",
        "我说的是布洛芬，其实是萘普生",
    ],
)
def test_a_drug_name_said_wrong_then_meant_is_put_right(correction):
    d = Dialogue()
    d.say((A, "What have you tried?"), (U, "just ibuprofen and tramadol 50"))
    d.say((U, correction), session="s2")
    assert d.fact(M, "naproxen").status is FactStatus.ACTIVE
    # the stored wrong name is not dropped on the user's word alone: the assistant confirms it
    assert [c.reason for c in d.memory.clarifications] == ["retracted_mention"]
    assert d.fact(M, "tramadol").status is FactStatus.ACTIVE
