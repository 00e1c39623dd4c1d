"""Conditions, second blind round: a genitive denial ("диабета нет"), the adjective after the name
("синусит хронический"), a doctor's reported verdict with a grade ("2 степени"), the indication a
drug is taken for, a relative's fresh diagnosis (查出), and "我今年32"."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
CC, FH = Section.CHRONIC_CONDITIONS, Section.FAMILY_HISTORY


def _status(d: Dialogue, section: Section, key: str) -> FactStatus | None:
    fact = d.fact(section, key)
    return fact.status if fact is not None else None


# ------------------------------------------------------------- "X нет" and "X хронический"
@pytest.mark.parametrize(
    ("question", "answer", "denied", "present"),
    [
        (
            "Есть хронические болезни? Например, диабет или гипертония?",
            "диабета нет. синусит хронический",
            "diabetes",
            "chronic_sinusitis",
        ),
        (
            "Any long-term conditions, like diabetes or high blood pressure?",
            "no diabetes; sinusitis, chronic",
            "diabetes",
            "chronic_sinusitis",
        ),
        ("有什么慢性病吗？比如糖尿病、高血压？", "糖尿病没有，有慢性鼻窦炎", "diabetes", "chronic_sinusitis"),
        (
            "Хронические заболевания есть? Гипертония, астма?",
            "гипертонии нету, а вот астма есть",
            "hypertension",
            "asthma",
        ),
        ("Anything chronic, asthma or diabetes?", "asthma no, diabetes yes", "asthma", "diabetes"),
        ("Чем-то хроническим болеете? Астма, диабет?", "астма - нет, диабет - да", "asthma", "diabetes"),
        (
            "Any ongoing conditions? Asthma? Diabetes?",
            "asthma - never had it. diabetes, yes",
            "asthma",
            "diabetes",
        ),
    ],
)
def test_a_denied_name_in_an_answer_is_absent_and_the_next_one_is_said(question, answer, denied, present):
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert _status(d, CC, denied) is FactStatus.ABSENT
    assert _status(d, CC, present) is FactStatus.PRESENT


@pytest.mark.parametrize(
    "text",
    ["у меня астмы нет, а панкреатит хронический", "астмы у меня нет. пиелонефрит хронический"],
)
def test_the_genitive_denial_and_the_trailing_adjective_without_a_question(text):
    d = Dialogue()
    d.say((U, text))
    assert _status(d, CC, "asthma") is FactStatus.ABSENT
    assert {f.key for f in d.memory.facts if f.status is FactStatus.PRESENT} & {
        "chronic_pancreatitis",
        "chronic_pyelonephritis",
    }


def test_a_bare_name_or_a_question_is_no_statement():
    d = Dialogue()
    d.say((U, "бронхит?"))
    d.say((U, "chronic sinusitis"))
    assert not d.keys(CC) and not d.keys(Section.REPORTED_DIAGNOSES)


def test_allergies_denied_with_the_genitive_are_never_an_allergen():
    d = Dialogue()
    d.say((A, "Хронические болезни? Астма, аллергия?"), (U, "аллергии нет, астма есть"))
    assert not d.keys(Section.ALLERGIES)
    assert _status(d, CC, "asthma") is FactStatus.PRESENT


# ------------------------------------------------------------------- a doctor's verdict, graded
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("сходила к эндокринолгу, он сказал что у меня диабет 2 типа, выписал метформин", "type_2_diabetes"),
        ("была у терапевта, сказала, что у меня гипертензия 2 степени", "hypertension"),
        (
            "saw the cardiologist, he said I have hypertension grade 2, started me on amlodipine",
            "hypertension",
        ),
        ("看了医生，医生说我有2级高血压", "hypertension"),
    ],
)
def test_the_doctor_said_i_have_it_with_a_grade(text, key):
    d = Dialogue()
    d.say((U, text))
    assert _status(d, CC, key) is FactStatus.PRESENT


@pytest.mark.parametrize("text", ["давление 150 на 95", "сахар 7.2 утром", "my pressure was 150/95"])
def test_a_reading_is_still_no_diagnosis(text):
    d = Dialogue()
    d.say((U, text))
    assert not d.keys(CC)


def test_a_relatives_verdict_is_not_the_users():
    d = Dialogue()
    d.say((U, "врач сказал, что у папы гипертония 2 степени"))
    assert d.fact(CC, "hypertension") is None


# ----------------------------------------------------------------- the indication of a drug
@pytest.mark.parametrize(
    ("drug", "question", "answer", "key"),
    [
        ("I'm on allopurinol", "What do you take it for?", "gout, had a flare in spring", "gout"),
        (
            "пью метформин",
            "А для чего вы его принимаете?",
            "диабет второго типа, лет пять уже",
            "type_2_diabetes",
        ),
        ("我在吃氨氯地平", "这个药是治什么的？", "高血压，好几年了", "hypertension"),
        ("I take levothyroxine", "What's it for?", "hypothyroidism", "hypothyroidism"),
    ],
)
def test_the_condition_a_drug_is_taken_for_is_the_users(drug, question, answer, key):
    d = Dialogue()
    d.say((U, drug), (A, question), (U, answer))
    assert _status(d, CC, key) is FactStatus.PRESENT


def test_an_indication_answer_denies_nothing_and_says_nothing_for_a_no():
    d = Dialogue()
    d.say((U, "I take metformin"), (A, "What's that for?"), (U, "not for diabetes, for PCOS"))
    assert d.fact(CC, "diabetes") is None
    d = Dialogue()
    d.say((U, "пью аллопуринол"), (A, "Для чего он?"), (U, "не знаю, врач назначил"))
    assert not d.keys(CC)
    assert d.status(CC).value == "unknown"


def test_an_indication_for_someone_else_is_family_history():
    d = Dialogue()
    d.say((U, "I pick up metformin"), (A, "What's that for?"), (U, "my mom's diabetes, it's hers"))
    assert d.fact(CC, "diabetes") is None


# ------------------------------------------------------------- a relative's fresh diagnosis
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("我爷爷前年查出了胃癌", "grandfather:stomach_cancer"),
        ("我姐姐去年体检查出甲状腺结节", None),
        ("у деда в прошлом году обнаружили рак желудка", "grandfather:stomach_cancer"),
        ("my grandpa got diagnosed with gastric cancer last spring", "grandfather:stomach_cancer"),
    ],
)
def test_a_relatives_diagnosis_is_family_history(text, key):
    d = Dialogue()
    d.say((U, text))
    assert not d.keys(CC)
    if key is not None:
        assert _status(d, FH, key) is FactStatus.PRESENT


def test_this_years_age_without_sui():
    d = Dialogue()
    d.say((U, "我今年45，最近血压有点高"))
    fact = d.fact(Section.DEMOGRAPHICS, "birth_year")
    assert fact is not None and fact.attributes["birth_year"] == d.clock.now().year - 45
    d = Dialogue()
    d.say((U, "我爸今年70"))
    assert d.fact(Section.DEMOGRAPHICS, "birth_year") is None
