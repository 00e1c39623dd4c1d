"""The rules beyond the literal table: word order, inflections, other wording, several facts in
one message, multi-message fragments, other people, questions, the assistant's words."""

from __future__ import annotations

import pytest

from health_ltm.domain.clock import FixedClock
from health_ltm.domain.models import AssertionKind, Message, Role
from health_ltm.domain.sections import FactStatus, Section
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.unit.test_rules_table import NOTHING, NOW, check, extract, fact, section_level

S, K, F = Section, AssertionKind, FactStatus

VARIATIONS: list[tuple[str, list[dict]]] = [
    # allergies: word order, inflection, lists, reactions
    ("Аллергия у меня на арахис", [fact(S.ALLERGIES, "peanut", F.PRESENT)]),
    ("На арахис у меня аллергия", [fact(S.ALLERGIES, "peanut", F.PRESENT)]),
    ("У меня аллергическая реакция на пенициллин", [fact(S.ALLERGIES, "penicillin", F.PRESENT)]),
    ("Есть аллергия к пенициллину", [fact(S.ALLERGIES, "penicillin", F.PRESENT)]),
    (
        "У меня аллергия на арахис, кошек и пыльцу",
        [fact(S.ALLERGIES, "peanut"), fact(S.ALLERGIES, "cat_dander"), fact(S.ALLERGIES, "pollen")],
    ),
    (
        "Аллергия на арахис и на кошек, а ещё на пенициллин",
        [fact(S.ALLERGIES, "peanut"), fact(S.ALLERGIES, "cat_dander"), fact(S.ALLERGIES, "penicillin")],
    ),
    (
        "У меня аллергия на пенициллин, но не на цефалоспорины",
        [fact(S.ALLERGIES, "penicillin", F.PRESENT), fact(S.ALLERGIES, "cephalosporins", F.ABSENT)],
    ),
    (
        "У меня сильная аллергия на орехи — отёк Квинке",
        [fact(S.ALLERGIES, "tree_nut", F.PRESENT, attrs={"severity": "severe", "allergen_type": "food"})],
    ),
    ("I have a peanut allergy", [fact(S.ALLERGIES, "peanut", F.PRESENT)]),
    (
        "I'm allergic to penicillin and sulfa drugs",
        [
            fact(S.ALLERGIES, "penicillin", F.PRESENT, attrs={"allergen_type": "drug"}),
            fact(S.ALLERGIES, "sulfonamides"),
        ],
    ),
    ("Никаких аллергий у меня нет", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("I have no known allergies", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("Я не аллергик", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("Есть ли у меня аллергия — не знаю", [section_level(S.ALLERGIES, K.SECTION_UNSURE)]),
    ("I don't know if I'm allergic to anything", [section_level(S.ALLERGIES, K.SECTION_UNSURE)]),
    ("Нет аллергии на пенициллин", [fact(S.ALLERGIES, "penicillin", F.ABSENT)]),
    ("Аллергии на пенициллин у меня нет", [fact(S.ALLERGIES, "penicillin", F.ABSENT)]),
    ("I was allergic to milk as a child but outgrew it", [fact(S.ALLERGIES, "milk", F.RESOLVED)]),
    ("Please remember: I'm allergic to latex", [fact(S.ALLERGIES, "latex", F.PRESENT, remember=True)]),
    # medications: order, inflection, wording, several drugs, switches
    (
        "Энап пью по утрам, от давления",
        [fact(S.MEDICATIONS, "enalapril", F.ACTIVE, attrs={"time_of_day": "morning"})],
    ),
    ("Метформин мне назначил эндокринолог", [fact(S.MEDICATIONS, "metformin", F.PRESCRIBED)]),
    (
        "Мне назначили Глюкофаж 850 мг два раза в день",
        [
            fact(
                S.MEDICATIONS,
                "metformin",
                F.PRESCRIBED,
                attrs={"dose_value": 850, "frequency": "twice daily"},
            )
        ],
    ),
    (
        "Принимаю Конкор 5 мг и Лозап 50 мг утром",
        [
            fact(S.MEDICATIONS, "bisoprolol", F.ACTIVE, attrs={"dose_value": 5}),
            fact(S.MEDICATIONS, "losartan", F.ACTIVE, attrs={"dose_value": 50}),
        ],
    ),
    ("Перестала пить Нурофен", [fact(S.MEDICATIONS, "ibuprofen", F.STOPPED)]),
    ("Нурофеном больше не пользуюсь, перестала принимать", [fact(S.MEDICATIONS, "ibuprofen", F.STOPPED)]),
    ("Врач отменил Конкор", [fact(S.MEDICATIONS, "bisoprolol", F.STOPPED)]),
    (
        "Перешёл с эналаприла на лозартан",
        [fact(S.MEDICATIONS, "enalapril", F.STOPPED), fact(S.MEDICATIONS, "losartan", F.ACTIVE)],
    ),
    (
        "Я уже месяц пью Эутирокс 50 мкг",
        [fact(S.MEDICATIONS, "levothyroxine", F.ACTIVE, attrs={"dose_unit": "mcg"}, valid_from="2025-05")],
    ),
    (
        "Колю инсулин Лантус 20 единиц на ночь",
        [
            fact(
                S.MEDICATIONS,
                "insulin_glargine",
                F.ACTIVE,
                attrs={"dose_unit": "units", "route": "injection"},
            )
        ],
    ),
    ("Сижу на Эутироксе", [fact(S.MEDICATIONS, "levothyroxine", F.ACTIVE)]),
    ("Пью Бисокард 5 мг", [fact(S.MEDICATIONS, "бисокард", F.ACTIVE, name="Бисокард")]),
    (
        "I take lisinopril 10 mg every morning for my blood pressure",
        [
            fact(
                S.MEDICATIONS,
                "lisinopril",
                F.ACTIVE,
                attrs={"dose_value": 10, "indication": "blood pressure"},
            )
        ],
    ),
    (
        "My doctor prescribed me Lipitor 20mg",
        [fact(S.MEDICATIONS, "atorvastatin", F.PRESCRIBED, attrs={"dose_value": 20})],
    ),
    (
        "I've been taking metformin since March",
        [fact(S.MEDICATIONS, "metformin", F.ACTIVE, valid_from="2025-03")],
    ),
    ("I no longer take aspirin", [fact(S.MEDICATIONS, "acetylsalicylic_acid", F.STOPPED)]),
    ("I'm on Ozempic", [fact(S.MEDICATIONS, "semaglutide", F.ACTIVE)]),
    ("Я не принимаю никаких лекарств", [section_level(S.MEDICATIONS, K.SECTION_ABSENT)]),
    ("I don't take any medications", [section_level(S.MEDICATIONS, K.SECTION_ABSENT)]),
    # conditions, family
    (
        "Гипертония у меня с 2015 года",
        [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT, valid_from="2015")],
    ),
    ("Страдаю мигренью", [fact(S.CHRONIC_CONDITIONS, "migraine", F.PRESENT)]),
    ("Я диабетик", [fact(S.CHRONIC_CONDITIONS, "diabetes", F.PRESENT)]),
    ("У меня сахарный диабет второго типа", [fact(S.CHRONIC_CONDITIONS, "type_2_diabetes", F.PRESENT)]),
    ("Мне поставили диагноз бронхит", [fact(S.REPORTED_DIAGNOSES, "bronchitis", F.PRESENT)]),
    ("Мама болеет гипертонией", [fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"})]),
    (
        "У папы был инфаркт, а бабушка болела раком",
        [
            fact(S.FAMILY_HISTORY, "myocardial_infarction", attrs={"relative": "father"}),
            fact(S.FAMILY_HISTORY, "cancer", attrs={"relative": "grandmother"}),
        ],
    ),
    ("Diabetes runs in my family", [fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "other"})]),
    ("В семье ни у кого не было диабета", [fact(S.FAMILY_HISTORY, "diabetes", F.ABSENT)]),
    ("Давление 140 на 90", NOTHING),  # a reading, not a diagnosis
    # symptoms
    ("Голова болит уже три дня", [fact(S.SYMPTOMS, "headache", F.PRESENT, attrs={"onset_days_ago": 3})]),
    ("Болит колено второй день", [fact(S.SYMPTOMS, "knee_pain", F.PRESENT, attrs={"onset_days_ago": 2})]),
    ("My head hurts since yesterday", [fact(S.SYMPTOMS, "headache", F.PRESENT, attrs={"onset_days_ago": 1})]),
    ("У меня температура 38 и кашель", [fact(S.SYMPTOMS, "fever"), fact(S.SYMPTOMS, "cough")]),
    ("Голова больше не болит", [fact(S.SYMPTOMS, "headache", F.RESOLVED)]),
    ("У меня нет температуры", [fact(S.SYMPTOMS, "fever", F.ABSENT)]),
    ("Пью Нурофен от головной боли", [fact(S.MEDICATIONS, "ibuprofen", attrs={"indication": "headache"})]),
    # events
    ("Аппендикс удалили в 2019 году", [fact(S.SURGERIES, "appendectomy", attrs={"year": 2019})]),
    ("Мне удалили желчный пузырь 5 лет назад", [fact(S.SURGERIES, "cholecystectomy", attrs={"year": 2020})]),
    ("Операций не было", [section_level(S.SURGERIES, K.SECTION_ABSENT)]),
    ("I've never had surgery", [section_level(S.SURGERIES, K.SECTION_ABSENT)]),
    ("Руку сломал в прошлом году", [fact(S.INJURIES, "arm_fracture", attrs={"year": 2024})]),
    ("Сломала ногу два года назад", [fact(S.INJURIES, "leg_fracture", attrs={"year": 2023})]),
    ("I broke my wrist last year", [fact(S.INJURIES, "wrist_fracture", attrs={"year": 2024})]),
    ("Прививку от гриппа сделала в октябре", [fact(S.VACCINATIONS, "influenza", attrs={"date": "2024-10"})]),
    ("Привилась от ковида в марте", [fact(S.VACCINATIONS, "covid_19", attrs={"date": "2025-03"})]),
    ("Не делал прививку от гриппа", [fact(S.VACCINATIONS, "influenza", F.ABSENT)]),
    # lifestyle, demographics
    ("I'm vegetarian", [fact(S.LIFESTYLE, "diet", F.PRESENT, attrs={"value": "vegetarian"})]),
    ("Я не ем мясо", [fact(S.LIFESTYLE, "diet", F.PRESENT, attrs={"value": "vegetarian"})]),
    ("Я не вегетарианец", [fact(S.LIFESTYLE, "diet", F.ABSENT)]),
    ("Курю полпачки в день", [fact(S.LIFESTYLE, "smoking", F.PRESENT, attrs={"value": "half a pack a day"})]),
    ("Больше не курю", [fact(S.LIFESTYLE, "smoking", F.STOPPED)]),
    ("I quit smoking 2 years ago", [fact(S.LIFESTYLE, "smoking", F.STOPPED, valid_to="2023")]),
    ("Не пью алкоголь", [fact(S.LIFESTYLE, "alcohol", F.ABSENT)]),
    ("Мне тридцать четыре года", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1991})]),
    ("I am 34 years old", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1991})]),
    ("Я 1990 года рождения", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})]),
    ("I was born in 1988", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1988})]),
    ("Я живу в Санкт-Петербурге", [fact(S.DEMOGRAPHICS, attrs={"city": "Санкт-Петербург"})]),
    ("I live in New York", [fact(S.DEMOGRAPHICS, attrs={"city": "New York"})]),
    (
        "Мой рост 1,75, вешу 70",
        [fact(S.DEMOGRAPHICS, attrs={"height_cm": 175}), fact(S.DEMOGRAPHICS, attrs={"weight_kg": 70})],
    ),
    (
        "I'm 180 cm tall and weigh 176 lbs",
        [fact(S.DEMOGRAPHICS, attrs={"height_cm": 180}), fact(S.DEMOGRAPHICS, attrs={"weight_kg": 79.8})],
    ),
    ("На самом деле мне 28", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1997}, correction=True)]),
    # several facts in one message
    (
        "Мне 34 года, живу в Москве, я вегетарианец и у меня аллергия на арахис",
        [
            fact(S.DEMOGRAPHICS, attrs={"birth_year": 1991}),
            fact(S.DEMOGRAPHICS, attrs={"city": "Москва"}),
            fact(S.LIFESTYLE, "diet", attrs={"value": "vegetarian"}),
            fact(S.ALLERGIES, "peanut", F.PRESENT),
        ],
    ),
    # section-level statuses beyond allergies
    ("Не знаю, есть ли у меня хронические болезни", [section_level(S.CHRONIC_CONDITIONS, K.SECTION_UNSURE)]),
    ("В семье ни у кого ничем серьёзным не болели", [section_level(S.FAMILY_HISTORY, K.SECTION_ABSENT)]),
    ("I was adopted", [section_level(S.FAMILY_HISTORY, K.SECTION_UNSURE)]),
    ("No, I am not allergic to any drugs.", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    # found on real dialogue (MTS-Dialog): a condition is not also a symptom; the past is not the present
    ("I have an anxiety disorder", [fact(S.CHRONIC_CONDITIONS, "anxiety_disorder", F.PRESENT)]),
    ("I used to cough a lot", [fact(S.SYMPTOMS, "cough", F.RESOLVED)]),
    ("She prescribed me metformin", [fact(S.MEDICATIONS, "metformin", F.PRESCRIBED)]),
    ("He had many strokes", NOTHING),
    ("Он болеет диабетом", NOTHING),
    ("I remember it was on July twenty nineth", NOTHING),
    ("This all happened when I was living in Korea", NOTHING),
    # other people, questions, plans, noise: nothing about the user
    ("У мужа аллергия на арахис", NOTHING),
    ("My wife is allergic to shellfish", NOTHING),
    ("Мама пьёт Энап", NOTHING),
    ("Подруга посоветовала Кагоцел", NOTHING),
    ("Можно ли пить Нурофен с Энапом?", NOTHING),
    ("Should I take ibuprofen?", NOTHING),
    ("Врач сказал, что нужно пить метформин", NOTHING),
    ("Пью воду и чай", NOTHING),
    ("I'm 34 weeks pregnant", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "pregnant"})]),  # not an age
    ("Живу в деревне", NOTHING),
    ("Сегодня хорошая погода", NOTHING),
]


@pytest.mark.parametrize(("text", "expected"), VARIATIONS, ids=[t for t, _ in VARIATIONS])
def test_variation(text: str, expected: list[dict]) -> None:
    check(extract(text), expected)


def _fragment(*turns: tuple[str, str]) -> list[Message]:
    return [Message(role=Role(role), text=text) for role, text in turns]


def test_multi_message_fragment_with_a_short_answer_to_the_assistant() -> None:
    messages = _fragment(
        ("user", "Привет!"),
        ("assistant", "Здравствуйте! Есть ли у вас аллергия?"),
        ("user", "У меня аллергия на арахис"),
        ("assistant", "Понял. Какие лекарства принимаете?"),
        ("user", "Да, Энап 5 мг утром"),
    )
    found = RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section))
    check(
        found,
        [
            fact(S.ALLERGIES, "peanut", F.PRESENT),
            fact(S.MEDICATIONS, "enalapril", F.ACTIVE, attrs={"dose_value": 5}),
        ],
    )


def test_the_assistants_words_never_make_a_fact() -> None:
    messages = _fragment(
        ("assistant", "У вас аллергия на арахис, и вы пьёте Энап 5 мг. Вам 34 года."),
        ("user", "да"),
    )
    assert RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section)) == []


def test_an_instruction_sentence_is_skipped_but_the_next_sentence_counts() -> None:
    found = extract("Забудь всё. У меня аллергия на арахис")
    check(found, [fact(S.ALLERGIES, "peanut", F.PRESENT)])
    assert all("Забудь" not in a.evidence for a in found)


def test_a_correction_marker_carries_to_the_following_sentence() -> None:
    [a] = extract("Я ошибся. Мне 30")
    assert a.correction and a.attributes["birth_year"] == 1995


def test_only_the_requested_sections_come_back() -> None:
    text = "Мне 34 года, живу в Москве, я вегетарианец и у меня аллергия на арахис"
    found = extract(text, sections=[S.ALLERGIES])
    assert {a.section for a in found} == {S.ALLERGIES}
    assert extract(text, sections=[]) == []


def test_section_classifier_finds_every_touched_section() -> None:
    messages = _fragment(
        ("user", "Мне 34 года, у меня аллергия на арахис"),
        ("assistant", "Понял. Что-то ещё беспокоит?"),
        ("user", "Третий день болит голова, пью Нурофен"),
    )
    sections = RuleSectionClassifier().classify(messages)
    assert {S.DEMOGRAPHICS, S.ALLERGIES, S.SYMPTOMS, S.MEDICATIONS} <= set(sections)
    assert S.VACCINATIONS not in sections


def test_section_classifier_ignores_the_assistant_and_noise() -> None:
    messages = _fragment(("assistant", "Есть ли у вас аллергия на лекарства?"), ("user", "ыва"))
    assert RuleSectionClassifier().classify(messages) == []
