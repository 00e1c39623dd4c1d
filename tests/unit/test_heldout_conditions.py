"""Condition patterns beyond "I have X": a denial after the name, a doctor's verdict with no verb of
being, adjective forms, verbless lists answering a question, and a relative's side of the family.

Behaviour is checked through the whole write path (``Dialogue``), in Russian, English and Chinese.
The wordings are deliberately not the evaluation dialogues' own.
"""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.eval_wording import copied_eval_wording
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
S, F = Section, FactStatus


def _facts(*turns: tuple[Role, str]) -> dict[tuple[Section, str], FactStatus]:
    d = Dialogue()
    d.say(*turns)
    return {(f.section, f.key): f.status for f in d.memory.facts}


def _family(*turns: tuple[Role, str]) -> list[tuple[str, str, FactStatus]]:
    d = Dialogue()
    d.say(*turns)
    return [
        (f.key, f.attributes.get("relative"), f.status)
        for f in d.memory.facts
        if f.section is S.FAMILY_HISTORY
    ]


# ------------------------------------------------------------------ 1. a denial after the name
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Скарлатиной никогда не болел", "scarlet_fever"),
        ("Коклюшем ни разу не болела", "whooping_cough"),
        ("Свинкой я вроде не болел", "mumps"),
        ("Корью в детстве не болела", "measles"),
        ("Краснухи у меня не было", "rubella"),
        ("Ветрянку так и не переболела", "chickenpox"),
        ("Mumps I never had", "mumps"),
        ("I have never had scarlet fever", "scarlet_fever"),
        ("I've never caught the measles", "measles"),
        ("腮腺炎从来没得过", "mumps"),
        ("麻疹我没有得过", "measles"),
        ("我从没出过水痘", "chickenpox"),
    ],
)
def test_a_disease_denied_after_its_name_is_absent(text: str, key: str) -> None:
    facts = _facts((U, text))
    assert facts.get((S.REPORTED_DIAGNOSES, key)) is F.ABSENT, facts


@pytest.mark.parametrize(
    ("text", "key", "status"),
    [
        ("Скарлатиной болела в детстве", "scarlet_fever", F.RESOLVED),
        ("Коклюшем переболел в пять лет", "whooping_cough", F.RESOLVED),
        ("I had mumps when I was seven", "mumps", F.RESOLVED),
        ("小时候得过腮腺炎", "mumps", F.RESOLVED),
        ("Диабетом болею не первый год", "diabetes", F.PRESENT),
        ("Астмой болею, не очень тяжело", "asthma", F.PRESENT),
        ("Гастритом болею и ни разу не лежал в больнице", "gastritis", F.PRESENT),
        ("I have gout and never had a flare this year", "gout", F.PRESENT),
    ],
)
def test_a_disease_had_is_not_denied(text: str, key: str, status: FactStatus) -> None:
    facts = _facts((U, text))
    section = S.CHRONIC_CONDITIONS if status is F.PRESENT else S.REPORTED_DIAGNOSES
    assert facts.get((section, key)) is status, facts


def test_a_denial_after_the_name_keeps_its_own_clause() -> None:
    facts = _facts((U, "Скарлатиной болела, а коклюшем никогда не болела"))
    assert facts.get((S.REPORTED_DIAGNOSES, "scarlet_fever")) is F.RESOLVED
    assert facts.get((S.REPORTED_DIAGNOSES, "whooping_cough")) is F.ABSENT


@pytest.mark.parametrize(
    ("text", "relative", "key"),
    [
        ("Бабушка коклюшем никогда не болела", "grandmother", "whooping_cough"),
        ("My brother never had scarlet fever", "brother", "scarlet_fever"),
    ],
)
def test_a_relative_denied_after_the_name_stays_the_relatives(text: str, relative: str, key: str) -> None:
    assert (f"{relative}:{key}", relative, F.ABSENT) in _family((U, text))
    assert (S.REPORTED_DIAGNOSES, key) not in _facts((U, text))


# ------------------------------------------------------------- 2. a doctor's verdict, no verb
@pytest.mark.parametrize(
    ("text", "section", "key"),
    [
        ("был у гастроэнтеролога, сказал гастрит, прописал омепразол", S.CHRONIC_CONDITIONS, "gastritis"),
        ("Терапевт сказала гипертония", S.CHRONIC_CONDITIONS, "hypertension"),
        ("Невролог говорит мигрень", S.CHRONIC_CONDITIONS, "migraine"),
        ("Эндокринолог считает, что это гипотиреоз", S.CHRONIC_CONDITIONS, "hypothyroidism"),
        ("The cardiologist says it's angina", S.CHRONIC_CONDITIONS, "angina"),
        ("Went to the GP, he reckons it's gout", S.CHRONIC_CONDITIONS, "gout"),
        ("My doctor said bronchitis and gave me antibiotics", S.REPORTED_DIAGNOSES, "bronchitis"),
        ("大夫说偏头痛", S.CHRONIC_CONDITIONS, "migraine"),
        ("医生看了说胃炎，开了点药", S.CHRONIC_CONDITIONS, "gastritis"),
    ],
)
def test_a_doctors_verdict_names_the_users_condition(text: str, section: Section, key: str) -> None:
    facts = _facts((U, text))
    assert facts.get((section, key)) is F.PRESENT, facts


@pytest.mark.parametrize(
    "text",
    [
        "Терапевт сказал, что это не гастрит",
        "The doctor said it isn't asthma",
        "Врач сказал исключить гипотиреоз",
        "The GP wants to rule out gout",
        "The doctor said gout runs in families",
        "Врач сказал, возможно, мигрень",
        "The doctor thinks it might be angina",
        "Говорят, гастрит от нервов",
        "My sister says it's migraine",
        "Мама сказала гастрит",
    ],
)
def test_no_verdict_for_the_user_is_no_present_condition(text: str) -> None:
    facts = _facts((U, text))
    present = [k for (s, k), st in facts.items() if s is not S.FAMILY_HISTORY and st is F.PRESENT]
    assert present == [], facts


# ------------------------------------------------------------------------ 3. adjective forms
@pytest.mark.parametrize(
    ("text", "key", "status"),
    [
        ("The endocrinologist confirmed I'm hypothyroid.", "hypothyroidism", F.PRESENT),
        ("I'm hyperthyroid, on carbimazole", "hyperthyroidism", F.PRESENT),
        ("I am epileptic and take lamotrigine", "epilepsy", F.PRESENT),
        ("I'm coeliac so no gluten", "celiac_disease", F.PRESENT),
        ("I'm asthmatic since I was a kid", "asthma", F.PRESENT),
        ("I'm diabetic, type unknown", "diabetes", F.PRESENT),
        ("I'm anaemic, on iron tablets", "anemia", F.PRESENT),
        ("I'm hypertensive", "hypertension", F.PRESENT),
        ("I'm not epileptic", "epilepsy", F.ABSENT),
        ("Я эпилептик с детства", "epilepsy", F.PRESENT),
    ],
)
def test_an_adjective_form_names_the_condition(text: str, key: str, status: FactStatus) -> None:
    facts = _facts((U, text))
    assert facts.get((S.CHRONIC_CONDITIONS, key)) is status, facts


def test_a_relatives_adjective_is_family_history() -> None:
    assert ("father:epilepsy", "father", F.PRESENT) in _family((U, "My dad is epileptic"))
    assert (S.CHRONIC_CONDITIONS, "epilepsy") not in _facts((U, "My dad is epileptic"))


# ------------------------------------------------------- 4. a verbless list answering a question
@pytest.mark.parametrize(
    ("question", "answer", "keys"),
    [
        ("Do you have any long-term health problems?", "Asthma and gout.", {"asthma", "gout"}),
        (
            "Any ongoing conditions?",
            "High cholesterol, plus an underactive thyroid",
            {"high_cholesterol", "hypothyroidism"},
        ),
        ("Any long-standing illnesses?", "Epilepsy and migraines, both controlled", {"epilepsy", "migraine"}),
        ("Есть какие-то хронические болезни?", "Гастрит и астма, лечусь", {"gastritis", "asthma"}),
        ("Чем болеете давно?", "Подагра, гипотиреоз", {"gout", "hypothyroidism"}),
        ("有什么长期的病吗？", "痛风和哮喘，一直在治", {"gout", "asthma"}),
        ("您有慢性病吗？", "偏头痛，还有胃炎", {"migraine", "gastritis"}),
    ],
)
def test_a_verbless_list_answers_the_conditions_question(question: str, answer: str, keys: set[str]) -> None:
    facts = _facts((A, question), (U, answer))
    got = {k for (s, k), st in facts.items() if s is S.CHRONIC_CONDITIONS and st is F.PRESENT}
    assert keys <= got, facts


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Any long-term conditions at all?", "None at all."),
        ("有长期的病吗？", "没有，都没有"),
    ],
)
def test_a_no_to_the_long_term_question_closes_the_section(question: str, answer: str) -> None:
    d = Dialogue()
    d.say((A, question), (U, answer))
    assert d.memory.sections[S.CHRONIC_CONDITIONS].status.value == "confirmed_absent"


def test_a_long_term_medications_question_is_no_conditions_question() -> None:
    d = Dialogue()
    d.say((A, "Any long-term medications?"), (U, "No"))
    assert S.CHRONIC_CONDITIONS not in d.memory.sections


def test_a_relatives_disease_in_the_list_answer_is_not_the_users() -> None:
    facts = _facts((A, "Any long-term illnesses?"), (U, "My grandma has gout, I don't"))
    assert facts.get((S.CHRONIC_CONDITIONS, "gout")) is not F.PRESENT


# -------------------------------------------------------------- 5. a relative's side of the family
@pytest.mark.parametrize(
    ("text", "key", "relatives"),
    [
        ("我妈那边的亲戚好几个都有糖尿病", "diabetes", {"mother", "other"}),
        ("我爸爸那边的人都有高血压", "hypertension", {"father", "other"}),
        ("我外公那边都有心脏病", "coronary_artery_disease", {"grandfather", "other"}),
        ("По маминой линии у многих гипертония", "hypertension", {"mother", "other"}),
        ("По отцовской линии почти у всех астма", "asthma", {"father", "other"}),
        (
            "Heart disease on my mum's side, pretty much everyone",
            "coronary_artery_disease",
            {"mother", "other"},
        ),
        ("Most people on my father's side have diabetes", "diabetes", {"father", "other"}),
    ],
)
def test_a_side_of_the_family_is_family_history(text: str, key: str, relatives: set[str]) -> None:
    found = [(k, r) for k, r, st in _family((U, text)) if st is F.PRESENT and k.endswith(key)]
    assert found and all(r in relatives for _, r in found), _family((U, text))
    own = _facts((U, text))
    assert (S.CHRONIC_CONDITIONS, key) not in own


def test_a_side_of_the_family_denied_is_absent() -> None:
    assert [st for _, _, st in _family((U, "我爸那边的亲戚都没有心脏病"))] == [F.ABSENT]


# ------------------------------------------------------------------------- test data hygiene
def test_no_wording_here_is_an_evaluation_dialogue() -> None:
    assert not copied_eval_wording(__file__, files="dialogues.jsonl")


def test_a_disease_name_inside_a_longer_symptom_name_is_not_that_disease():
    # 麻疹 (measles) is part of 荨麻疹 (hives): CJK has no word boundary to tell them apart.
    d = Dialogue()
    d.say((Role.USER, "吃完海鲜身上起了一片荨麻疹"))
    assert not [f for f in d.memory.facts if f.section is Section.REPORTED_DIAGNOSES]
