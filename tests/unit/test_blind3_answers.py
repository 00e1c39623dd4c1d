"""Answers a clinician would chart from short replies (third blind round), through the write path.

What a drug is for, a confirmed summary that lists a condition, a year of birth said short, a
hedged no, the side of the family and a parent's parent, a reaction that is no allergen, what kind
of cough, a diagnosis told after a visit with no verb, a knee scope, and a no to a question that
only illustrates its section with examples. Each pattern in Russian and English, and what must
not follow from it. (Wording is our own: none of it comes from the evaluation data.)
"""

from __future__ import annotations

import pytest

from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import A, Dialogue, U

S, F = Section, FactStatus


@pytest.fixture
def talk() -> Dialogue:
    return Dialogue()


# ---------------------------------------------------------------- 1. what the drug is for
@pytest.mark.parametrize(
    ("drugs", "asked", "answer", "key"),
    [
        ("бисопролол 2.5 утром", "По какому поводу?", "гипертония, лет пять как", "hypertension"),
        ("беру бисопролол 5 мг", "А это от чего?", "гипертония у меня", "hypertension"),
        ("levothyroxine 50 mcg", "Whats that for?", "hypothyroidism since my twenties", "hypothyroidism"),
        ("levothyroxine 50 mcg", "What's this one for?", "thyroid. hypothyroidism", "hypothyroidism"),
    ],
)
def test_the_condition_a_drug_is_for_is_the_users(talk, drugs, asked, answer, key) -> None:
    talk.say((A, "Which medicines do you take?"), (U, drugs), (A, asked), (U, answer))
    fact = talk.fact(S.CHRONIC_CONDITIONS, key)
    assert fact is not None and fact.status is F.PRESENT
    assert talk.status(S.CHRONIC_CONDITIONS) is SectionStatus.PRESENT


def test_a_named_condition_answers_is_it_for_x(talk) -> None:
    talk.say((A, "Is it for an underactive thyroid?"), (U, "yeah, hashimoto's thyroiditis"))
    assert talk.fact(S.CHRONIC_CONDITIONS, "autoimmune_thyroiditis") is not None


@pytest.mark.parametrize(
    ("asked", "answer"),
    [("По какому поводу?", "не знаю, врач так назначил"), ("Whats that for?", "no idea, to be honest")],
)
def test_not_knowing_what_a_drug_is_for_says_nothing_about_conditions(talk, asked, answer) -> None:
    talk.say((A, "What do you take?"), (U, "metoprolol 25"), (A, asked), (U, answer))
    assert not talk.keys(S.CHRONIC_CONDITIONS)
    assert talk.status(S.CHRONIC_CONDITIONS) is SectionStatus.UNKNOWN


def test_a_condition_the_drug_is_not_for_is_not_stored_present(talk) -> None:
    talk.say((A, "What is that one for?"), (U, "not for diabetes, if that's what you mean"))
    fact = talk.fact(S.CHRONIC_CONDITIONS, "diabetes")
    assert fact is None or fact.status is not F.PRESENT


# ---------------------------------------------------------------- 2. a confirmed summary
@pytest.mark.parametrize(
    ("summary", "yes", "key"),
    [
        (
            "Your chart shows: atorvastatin 20 mg at night, aspirin 81 mg, and hypertension. Is that right?",
            "yep, correct",
            "hypertension",
        ),
        (
            "По данным прошлого приёма у вас: метформин 1000 мг вечером, и диабет 2 типа. Верно?",
            "да, всё так",
            "type_2_diabetes",
        ),
    ],
)
def test_a_confirmed_summary_stores_the_condition_it_lists(talk, summary, yes, key) -> None:
    talk.say((A, summary), (U, yes))
    fact = talk.fact(S.CHRONIC_CONDITIONS, key)
    assert fact is not None and fact.status is F.PRESENT
    assert talk.status(S.CHRONIC_CONDITIONS) is SectionStatus.PRESENT


@pytest.mark.parametrize(
    "statement",
    ["I've got asthma, eczema, and migraines.", "У меня: астма, гастрит и мигрень."],
)
def test_a_list_opened_by_having_is_the_users_item_by_item(talk, statement) -> None:
    talk.say((U, statement))
    assert {"asthma", "migraine"} <= talk.keys(S.CHRONIC_CONDITIONS)


@pytest.mark.parametrize(
    "statement",
    ["my sister has asthma, eczema, and migraines", "у сестры астма, гастрит и мигрень"],
)
def test_a_relatives_list_stays_family_history(talk, statement) -> None:
    talk.say((U, statement))
    assert not talk.keys(S.CHRONIC_CONDITIONS)


@pytest.mark.parametrize(
    "statement", ["I have no asthma, eczema, or migraines", "У меня нет: астмы, гастрита"]
)
def test_a_denied_list_makes_no_item_present(talk, statement) -> None:
    talk.say((U, statement))
    memory = talk.memory
    assert not [f for f in memory.facts if f.section is S.CHRONIC_CONDITIONS and f.status is F.PRESENT]


def test_a_summary_the_user_denies_stores_no_condition(talk) -> None:
    talk.say((A, "Your chart lists aspirin and hypertension. Is that right?"), (U, "no, not hypertension"))
    fact = talk.fact(S.CHRONIC_CONDITIONS, "hypertension")
    assert fact is None or fact.status is not F.PRESENT


# ---------------------------------------------------------------- 3. year of birth
@pytest.mark.parametrize(
    ("asked", "answer", "year"),
    [
        ("Какого вы года рождения?", "85-го", 1985),
        ("В каком году вы родились?", "в 91-м", 1991),
        ("Год рождения?", "72й", 1972),
        ("What's your year of birth?", "in 83", 1983),
        ("When were you born?", "born in '79", 1979),
        ("Which year were you born?", "1990, in May", 1990),
    ],
)
def test_a_short_year_of_birth_is_a_birth_year(talk, asked, answer, year) -> None:
    talk.say((A, asked), (U, answer))
    fact = talk.fact(S.DEMOGRAPHICS, "birth_year")
    assert fact is not None and fact.attributes["birth_year"] == year


def test_an_age_given_to_the_birth_year_question_is_still_an_age(talk) -> None:
    talk.say((A, "Какой у вас год рождения?"), (U, "мне 40 лет"))
    assert talk.fact(S.DEMOGRAPHICS, "birth_year").attributes["birth_year"] == 1986


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("How many cigarettes a day?", "about 15"),
        ("Когда оперировали колено?", "в 98-м"),
        ("What year was your son born?", "in 05"),
    ],
)
def test_a_number_to_another_question_is_no_birth_year(talk, asked, answer) -> None:
    talk.say((A, asked), (U, answer))
    assert talk.fact(S.DEMOGRAPHICS, "birth_year") is None


# ---------------------------------------------------------------- 4. a hedged no
@pytest.mark.parametrize(
    ("asked", "answer", "section"),
    [
        ("Any drug allergies?", "don't believe so", S.ALLERGIES),
        ("Any allergies?", "probably not", S.ALLERGIES),
        ("Есть ли на что-нибудь аллергия?", "не думаю", S.ALLERGIES),
        ("Аллергия на лекарства есть?", "скорее всего нет", S.ALLERGIES),
        ("Операции были?", "вроде бы не было", S.SURGERIES),
    ],
)
def test_a_hedged_no_confirms_the_section_absent(talk, asked, answer, section) -> None:
    talk.say((A, asked), (U, answer))
    assert talk.status(section) is SectionStatus.CONFIRMED_ABSENT


@pytest.mark.parametrize(
    "answer",
    ["не думаю, что это аллергия, но от клубники чешусь", "don't think so, but shrimp makes my lips swell"],
)
def test_a_hedge_before_something_named_is_not_an_empty_section(talk, answer) -> None:
    talk.say((A, "Any allergies?"), (U, answer))
    assert talk.status(S.ALLERGIES) is not SectionStatus.CONFIRMED_ABSENT


# ---------------------------------------------------------------- 5. whose is it in the family
@pytest.mark.parametrize(
    ("answer", "aunts", "sides"),
    [
        (
            "my aunt had breast cancer. fathers side has lots of high blood pressure",
            "breast_cancer",
            "hypertension",
        ),
        ("у тёти рак груди. по линии отца у всех гипертония", "breast_cancer", "hypertension"),
    ],
)
def test_a_side_of_the_family_is_not_the_relative_named_before(talk, answer, aunts, sides) -> None:
    talk.say((A, "Does anything run in your family?"), (U, answer))
    family = talk.keys(S.FAMILY_HISTORY)
    assert f"aunt:{aunts}" in family
    assert f"other:{sides}" in family and f"aunt:{sides}" not in family
    assert not talk.keys(S.CHRONIC_CONDITIONS)


@pytest.mark.parametrize(
    ("answer", "key"),
    [
        ("my dads mom had a stroke", "grandmother:stroke"),
        ("у папиной мамы был инсульт", "grandmother:stroke"),
        ("my moms father had diabetes", "grandfather:diabetes"),
    ],
)
def test_a_parents_parent_is_a_grandparent(talk, answer, key) -> None:
    talk.say((A, "Any serious illness in the family?"), (U, answer))
    assert key in talk.keys(S.FAMILY_HISTORY)
    assert not talk.keys(S.CHRONIC_CONDITIONS)


def test_a_parent_named_alone_stays_the_parent(talk) -> None:
    talk.say((A, "Any serious illness in the family?"), (U, "my dad had a stroke at 60"))
    assert "father:stroke" in talk.keys(S.FAMILY_HISTORY)


# ---------------------------------------------------------------- 6. a reaction is no allergen
@pytest.mark.parametrize(
    ("asked", "answer", "allergen"),
    [
        ("Allergic to anything?", "peanuts. my lips get tingly and puffy", "peanut"),
        ("На что аллергия?", "на креветки. горло першит и опухает", "shellfish"),
    ],
)
def test_the_words_of_a_reaction_are_never_allergens(talk, asked, answer, allergen) -> None:
    talk.say((A, asked), (U, answer))
    assert talk.keys(S.ALLERGIES) == {allergen}


def test_an_allergen_beside_its_reaction_is_still_stored(talk) -> None:
    talk.say((A, "Any allergies?"), (U, "latex. my hands get itchy"))
    assert "latex" in talk.keys(S.ALLERGIES)


# ---------------------------------------------------------------- 7. symptoms with a qualifier
@pytest.mark.parametrize(
    ("asked", "answer", "key"),
    [
        ("Что беспокоит?", "кашель у меня с мокротой уже неделю", "cough"),
        ("Как вам новый препарат?", "сухой кашель замучил", "cough"),
        ("How have you been feeling?", "still exhausted most days", "fatigue"),
        ("Anything else?", "my throat has been killing me since monday", "sore_throat"),
        ("Как себя чувствуете?", "насморк и кашель", "runny_nose"),
    ],
)
def test_a_symptom_said_with_its_kind_or_without_a_subject_is_present(talk, asked, answer, key) -> None:
    talk.say((A, asked), (U, answer))
    fact = talk.fact(S.SYMPTOMS, key)
    assert fact is not None and fact.status is F.PRESENT


def test_the_kind_of_cough_stays_in_its_name(talk) -> None:
    talk.say((A, "Какие жалобы?"), (U, "по утрам кашель у меня с мокротой"))
    assert "мокрот" in talk.fact(S.SYMPTOMS, "cough").name_raw


@pytest.mark.parametrize(
    ("first", "asked", "gone"),
    [
        ("сухой кашель замучил", "Кашель ещё есть?", "уже почти прошел"),
        ("dry cough keeps me up", "Still coughing?", "mostly gone now"),
    ],
)
def test_a_symptom_said_to_be_gone_is_resolved(talk, first, asked, gone) -> None:
    talk.say((A, "How are you?"), (U, first))
    talk.say((A, asked), (U, gone))
    assert talk.fact(S.SYMPTOMS, "cough").status is F.RESOLVED


@pytest.mark.parametrize(
    "statement",
    ["my son is still tired all the time", "cough is a common side effect of lisinopril"],
)
def test_someone_elses_or_a_general_symptom_is_not_the_users(talk, statement) -> None:
    talk.say((U, statement))
    assert not talk.keys(S.SYMPTOMS)


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("How do you feel today?", "should I worry if I get a fever?"),
        ("Как самочувствие?", "а если поднимется температура, что делать?"),
    ],
)
def test_a_symptom_the_user_only_asks_about_is_not_present(talk, asked, answer) -> None:
    talk.say((A, asked), (U, answer))
    fact = talk.fact(S.SYMPTOMS, "fever")
    assert fact is None or fact.status is not F.PRESENT


# ---------------------------------------------------------------- 8. a verdict after a visit
@pytest.mark.parametrize(
    ("message", "key"),
    [
        ("saw my GP this morning. sinusitis. she gave me amoxicillin", "sinusitis"),
        ("went to the walk-in yesterday, bronchitis", "bronchitis"),
        ("сходил в поликлинику. бронхит.", "bronchitis"),
        ("была у терапевта, синусит", "sinusitis"),
    ],
)
def test_a_bare_diagnosis_after_a_visit_is_the_users(talk, message, key) -> None:
    talk.say((U, message))
    fact = talk.fact(S.REPORTED_DIAGNOSES, key)
    assert fact is not None and fact.status is F.PRESENT


def test_a_bare_diagnosis_after_a_visit_answers_a_question_too(talk) -> None:
    talk.say((A, "Как дела?"), (U, "была у врача. пневмония. дали антибиотик"))
    assert talk.fact(S.REPORTED_DIAGNOSES, "pneumonia") is not None


@pytest.mark.parametrize(
    "message",
    [
        "went to the ER with my daughter last night. pneumonia.",
        "ходили с сыном к педиатру. бронхит.",
        "went to the doctor yesterday. diabetes runs in my family though",
    ],
)
def test_a_visit_for_someone_else_or_a_sentence_with_more_is_no_verdict(talk, message) -> None:
    talk.say((U, message))
    assert not talk.keys(S.REPORTED_DIAGNOSES) and not talk.keys(S.CHRONIC_CONDITIONS)


# ---------------------------------------------------------------- 9. surgeries said loosely
@pytest.mark.parametrize(
    ("asked", "answer", "key"),
    [
        ("Any past surgeries?", "had my knee scoped back in 2012", "knee_arthroscopy"),
        ("Операции были?", "артроскопия колена в 2010", "knee_arthroscopy"),
        ("Any surgeries?", "just my wisdom teeth, if that counts", "wisdom_tooth_extraction"),
        ("Операции?", "только зубы мудрости удаляли", "wisdom_tooth_extraction"),
    ],
)
def test_a_loosely_named_surgery_is_stored(talk, asked, answer, key) -> None:
    talk.say((A, asked), (U, answer))
    assert key in talk.keys(S.SURGERIES)
    assert talk.status(S.SURGERIES) is SectionStatus.PRESENT


def test_a_knee_scope_keeps_its_year_and_the_tear_behind_it(talk) -> None:
    talk.say(
        (A, "Have you had any operations?"), (U, "a knee scope in 2011, right side. tore my meniscus skiing")
    )
    assert talk.fact(S.SURGERIES, "knee_arthroscopy").attributes.get("year") == 2011
    assert "meniscus_tear" in talk.keys(S.INJURIES)


@pytest.mark.parametrize(
    "statement", ["my brother had a knee scope last year", "у брата была артроскопия колена"]
)
def test_a_relatives_surgery_is_not_the_users(talk, statement) -> None:
    talk.say((U, statement))
    assert not talk.keys(S.SURGERIES)


# ---------------------------------------------------------------- 10. a no to examples
@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("Any long-term conditions such as diabetes or asthma?", "nope"),
        ("Есть хронические болезни, например астма или гастрит?", "нет"),
    ],
)
def test_a_no_to_a_question_with_examples_empties_the_section_only(talk, asked, answer) -> None:
    talk.say((A, asked), (U, answer))
    assert talk.status(S.CHRONIC_CONDITIONS) is SectionStatus.CONFIRMED_ABSENT
    assert not talk.keys(S.CHRONIC_CONDITIONS) and not talk.keys(S.REPORTED_DIAGNOSES)


@pytest.mark.parametrize(
    ("asked", "key"),
    [("Do you have diabetes or asthma?", "diabetes"), ("У вас есть астма или гастрит?", "gastritis")],
)
def test_a_no_to_named_diseases_still_denies_each(talk, asked, key) -> None:
    talk.say((A, asked), (U, "no" if asked.startswith("Do") else "нет"))
    assert talk.fact(S.CHRONIC_CONDITIONS, key).status is F.ABSENT
