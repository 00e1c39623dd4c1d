"""Common phrasings end to end: the rule extractor alone, then the in-process write path.

Misspelt drugs and allergens, pregnancy, drug lists whose frequency must not leak to the next
drug, surgeries said as verbs, and the lifecycle of safety-relevant and stable habits.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.hashing_embedder import HashingEmbedder
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import Assertion, EventType, Message, Role
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.domain.transitions import snapshot
from health_ltm.maintenance.engine import run_user
from health_ltm.storage.memory import InMemoryRepository
from health_ltm.write.intake import submit_fragment
from health_ltm.write.normalize import normalize_name
from health_ltm.write.pipeline import WritePath
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.conftest import T0
from tests.fakes.queues import ListQueue

S, F = Section, FactStatus
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def extract(text: str, sections=tuple(Section), now: datetime = NOW) -> list[Assertion]:
    return RuleExtractor(clock=FixedClock(now)).extract([Message(role=Role.USER, text=text)], list(sections))


def key_of(a: Assertion) -> str:
    return normalize_name(a.section, a.name, a.normalized_hint).key


def of(assertions: list[Assertion], section: Section) -> list[Assertion]:
    return [a for a in assertions if a.section is section]


class Memory:
    """The small harness of test_write_path: say things as a user, run the worker, look."""

    def __init__(self):
        self.clock = FixedClock(T0)
        self.repo = InMemoryRepository()
        self.queue = ListQueue()
        self.path = WritePath(
            repository=self.repo,
            classifier=RuleSectionClassifier(),
            extractor=RuleExtractor(clock=self.clock),
            clock=self.clock,
            new_id=new_ulid,
            vector_index=LocalVectorIndex(None),
            embedder=HashingEmbedder(),
        )
        self.sessions = 0

    def say(self, *texts: str, user="u", session: str | None = None):
        if session is None:
            self.sessions += 1
            session = f"s{self.sessions}"
        messages = [Message(role=Role.USER, text=t) for t in texts]
        fragment = submit_fragment(self.repo, self.queue, self.clock, new_ulid, user, session, messages)
        return self.path.process(user, fragment.id)

    def facts(self, section: Section | None = None, user="u"):
        return [f for f in self.repo.load_memory(user).facts if section is None or f.section is section]

    def fact(self, section: Section, key: str):
        (found,) = [f for f in self.facts(section) if f.key == key]
        return found

    def clarifications(self, user="u"):
        return self.repo.load_memory(user).clarifications

    def history(self, fact_id: str, user="u"):
        return [e.type for e in self.repo.get_history(user, fact_id)]


@pytest.fixture
def memory():
    return Memory()


# --- misspelt drugs and allergens ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key", "status"),
    [
        ("I stopped the amoxicilin", "amoxicillin", F.STOPPED),
        ("I'm taking amoxicilline for a week", "amoxicillin", F.ACTIVE),
        ("I take ibuprofin for headaches", "ibuprofen", F.ACTIVE),
        ("My doctor prescribed lisinipril 10 mg", "lisinopril", F.PRESCRIBED),
        ("Пью метфармин 500 мг два раза в день", "metformin", F.ACTIVE),
        ("Больше не принимаю ибупрофин", "ibuprofen", F.STOPPED),
    ],
)
def test_a_misspelt_drug_is_recognised_by_the_medication_rules(text, key, status):
    (drug,) = of(extract(text), S.MEDICATIONS)
    assert (key_of(drug), drug.status) == (key, status)


@pytest.mark.parametrize(
    ("text", "key"),
    [("У меня аллергия на пенецилин", "penicillin"), ("I'm allergic to amoxicilin", "amoxicillin")],
)
def test_a_misspelt_allergen_meets_the_table_entity(text, key):
    (allergy,) = of(extract(text), S.ALLERGIES)
    assert key_of(allergy) == key


def test_a_misspelt_mention_meets_the_existing_fact(memory):
    memory.say("I take amoxicillin 500 mg three times a day")
    memory.clock.advance(days=5)
    memory.say("I stopped the amoxicilin")
    (fact,) = memory.facts(S.MEDICATIONS)
    assert fact.key == "amoxicillin" and fact.status is F.STOPPED
    assert fact.attributes["dose_value"] == 500  # kept from the first mention
    assert memory.history(fact.id) == [EventType.FIRST_MENTION, EventType.NEGATION]


def test_russian_spelling_variants_meet_one_fact(memory):
    memory.say("Пью метформин 500 мг")
    memory.clock.advance(days=3)
    memory.say("Врач увеличил дозу метфармина до 1000 мг")
    (fact,) = memory.facts(S.MEDICATIONS)
    assert fact.key == "metformin" and fact.attributes["dose_value"] == 1000
    memory.say("У меня аллергия на пенициллин")
    memory.say("Аллергия на пенецилин — сыпь")
    (allergy,) = memory.facts(S.ALLERGIES)
    assert allergy.key == "penicillin" and allergy.mention_count == 2


@pytest.mark.parametrize("text", ["I had a strike of luck", "Сегодня хорошая погода, лежу на диване"])
def test_common_words_near_drug_names_make_no_drug(text):
    assert of(extract(text), S.MEDICATIONS) == []


# --- pregnancy -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value", "weeks"),
    [
        ("I'm pregnant", "pregnant", None),
        ("I'm 20 weeks pregnant", "pregnant", 20),
        ("I am twelve weeks pregnant with twins", "pregnant", 12),
        ("We're expecting! I'm 12 weeks along", "pregnant", 12),
        ("I'm expecting a baby in May", "pregnant", None),
        ("Я беременна", "pregnant", None),
        ("Беременность 12 недель", "pregnant", 12),
        ("Я беременна, срок 8 недель", "pregnant", 8),
        ("Я на 20 неделе беременности", "pregnant", 20),
        ("Жду ребёнка", "pregnant", None),
        ("Кормлю грудью", "breastfeeding", None),
        ("Сейчас кормлю ребенка грудью, ей 3 месяца", "breastfeeding", None),
        ("I'm breastfeeding", "breastfeeding", None),
        ("I'm not pregnant", "not_pregnant", None),
        ("Я не беременна", "not_pregnant", None),
        ("Не беременна, можно ли мне ибупрофен?", "not_pregnant", None),
    ],
)
def test_pregnancy_phrasings(text, value, weeks):
    (said,) = [a for a in of(extract(text), S.DEMOGRAPHICS) if "pregnancy" in a.attributes]
    assert said.attributes == {"pregnancy": value}
    expected = (NOW.date() - timedelta(weeks=weeks)).isoformat() if weeks else None
    assert said.valid_from == expected
    assert not [a for a in of(extract(text), S.DEMOGRAPHICS) if "birth_year" in a.attributes]


@pytest.mark.parametrize(
    "text",
    [
        "Can I take ibuprofen if I'm pregnant?",
        "Is it safe to take paracetamol when pregnant?",
        "Планирую беременность",
        "Можно ли беременным пить парацетамол?",
        "Если я беременна, можно ли пить ибупрофен?",
        "We're expecting",  # who carries the baby is not said
        "Мы ждём ребёнка",
        "My wife is pregnant",
        "My wife and I are expecting",
        "Моя жена беременна",
        "Сестра беременна, 20 недель",
        "She is breastfeeding",
        "Когда я была беременна, пила фолиевую кислоту",
        "I was pregnant in 2019",
        "I'm expecting a call from my doctor",
        "Am I pregnant?",
    ],
)
def test_no_pregnancy_from_hypotheticals_others_or_the_past(text):
    assert not [a for a in extract(text) if "pregnancy" in a.attributes]


def test_pregnancy_is_active_at_once_and_changes_with_the_next_statement(memory):
    memory.say("I'm 20 weeks pregnant")
    fact = memory.fact(S.DEMOGRAPHICS, "pregnancy")
    assert fact.stage is Stage.ACTIVE and fact.attributes == {"pregnancy": "pregnant"}
    assert fact.valid_from == (T0.date() - timedelta(weeks=20)).isoformat()
    memory.clock.advance(days=150)
    memory.say("I'm breastfeeding now")
    fact = memory.fact(S.DEMOGRAPHICS, "pregnancy")
    assert fact.attributes == {"pregnancy": "breastfeeding"}
    assert memory.history(fact.id) == [EventType.FIRST_MENTION, EventType.CHANGE]


# --- drug lists: what stands between two drugs is the first one's -----------------------------------
def attrs(text: str) -> dict[str, dict]:
    return {key_of(a): a.attributes for a in of(extract(text), S.MEDICATIONS)}


def test_frequency_does_not_leak_to_the_next_drug():
    got = attrs("Пью эналаприл 2 раза в день и аторвастатин")
    assert got["enalapril"]["frequency"] == "twice daily"
    assert "frequency" not in got["atorvastatin"]
    got = attrs("I take metformin twice a day, and lisinopril")
    assert got["metformin"]["frequency"] == "twice daily" and "frequency" not in got["lisinopril"]


def test_each_drug_keeps_its_own_dose_frequency_and_time():
    got = attrs("I take metformin 500 mg twice daily and lisinopril 10 mg once daily")
    assert (got["metformin"]["dose_value"], got["metformin"]["frequency"]) == (500, "twice daily")
    assert (got["lisinopril"]["dose_value"], got["lisinopril"]["frequency"]) == (10, "once daily")
    got = attrs("Пью эналаприл 5 мг утром и аторвастатин 20 мг на ночь")
    assert got["enalapril"]["time_of_day"] == "morning" and got["atorvastatin"]["time_of_day"] == "bedtime"
    got = attrs("Пью эналаприл 5 мг и аторвастатин")
    assert got["enalapril"]["dose_value"] == 5 and "dose_value" not in got["atorvastatin"]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Утром пью эналаприл и аторвастатин", "time_of_day", "morning"),
        ("Пью 2 раза в день эналаприл и аторвастатин", "frequency", "twice daily"),
        ("Пью эналаприл и аторвастатин по утрам", "time_of_day", "morning"),
        ("I take metformin and lisinopril twice a day", "frequency", "twice daily"),
    ],
)
def test_what_leads_or_closes_a_bare_list_is_said_of_every_drug(text, key, value):
    got = attrs(text)
    assert len(got) == 2 and all(a.get(key) == value for a in got.values()), got


DETAILS = {
    "": {},
    "2 раза в день": {"frequency": "twice daily"},
    "утром": {"time_of_day": "morning"},
    "на ночь": {"time_of_day": "bedtime"},
    "5 мг": {"dose_value": 5},
    "10 мг 2 раза в день": {"dose_value": 10, "frequency": "twice daily"},
}
DRUGS = ["эналаприл", "аторвастатин", "метформин", "бисопролол"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(DRUGS), st.lists(st.sampled_from(sorted(DETAILS)), min_size=4, max_size=4))
def test_in_a_list_each_drug_gets_its_own_details_or_those_closing_its_bare_run(drugs, details):
    """'Пью A <d1> и B <d2> и C <d3> и D <d4>': a drug with details of its own gets exactly those;
    one with none ("A и B утром") shares the frequency and time closing its run, never a dose, and
    never what was said after an earlier drug."""
    parts = [f"{drug} {detail}".strip() for drug, detail in zip(drugs, details, strict=True)]
    text = "Пью " + " и ".join(parts)
    got = attrs(text)
    for i, drug in enumerate(drugs):
        own = {k: v for k, v in got[normalize_name(S.MEDICATIONS, drug).key].items() if k in _CHECKED}
        if details[i]:
            expected = DETAILS[details[i]]
        else:
            closing = next((d for d in details[i + 1 :] if d), "")
            expected = {k: v for k, v in DETAILS[closing].items() if k != "dose_value"}
        assert own == expected, (text, drug, own)


_CHECKED = {"dose_value", "frequency", "time_of_day"}


# --- surgeries said as verbs --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "key", "year"),
    [
        ("They took out my appendix when I was 12", "appendectomy", None),
        ("I had my gallbladder removed in 2019", "cholecystectomy", 2019),
        ("They removed my gallbladder in 2019", "cholecystectomy", 2019),
        ("Got my appendix removed in 2015", "appendectomy", 2015),
        ("I had my tonsils out as a kid", "tonsillectomy", None),
        ("Мне вырезали аппендицит в детстве", "appendectomy", None),
        ("Удалили желчный", "cholecystectomy", None),
        ("Мне удалили желчный в 2017 году", "cholecystectomy", 2017),
        ("В 2019 вырезали гланды", "tonsillectomy", 2019),
        ("I had surgery on my knee in 2020", "knee_arthroscopy", 2020),
        ("I had a knee op in 2021", "knee_arthroscopy", 2021),
        ("I had an operation on my back in 2012", "spine_surgery", 2012),
    ],
)
def test_surgeries_said_as_verbs(text, key, year):
    (surgery,) = of(extract(text), S.SURGERIES)
    assert key_of(surgery) == key and surgery.status is F.PRESENT
    assert surgery.attributes.get("year") == year


@pytest.mark.parametrize(
    "text",
    ["My mom had her gallbladder removed", "Should I have my gallbladder removed?", "У мамы удалили желчный"],
)
def test_no_surgery_from_others_or_questions(text):
    assert of(extract(text), S.SURGERIES) == []


def test_a_surgery_verb_reaches_the_stored_fact_with_its_year(memory):
    memory.say("I had my gallbladder removed in 2019")
    fact = memory.fact(S.SURGERIES, "cholecystectomy")
    assert fact.attributes["year"] == 2019 and fact.valid_from == "2019"
    memory.say("Мне удалили желчный в 2019 году")
    assert memory.fact(S.SURGERIES, "cholecystectomy").mention_count == 2


# --- lifecycle: safety-relevant habits at once, stable habits resist a one-off --------------------
def test_smoking_and_alcohol_are_active_at_first_mention_other_habits_wait(memory):
    memory.say("Курю пачку в день")
    memory.say("I drink wine on weekends")
    memory.say("Я вегетарианец")
    assert memory.fact(S.LIFESTYLE, "smoking").stage is Stage.ACTIVE
    assert memory.fact(S.LIFESTYLE, "alcohol").stage is Stage.ACTIVE
    assert memory.fact(S.LIFESTYLE, "diet").stage is Stage.CANDIDATE


def make_stable(memory: Memory, text: str, key: str):
    for _ in range(3):
        memory.say(text)
        memory.clock.advance(days=2)
    run_user(memory.repo, "u", memory.clock, new_ulid)
    fact = memory.fact(S.LIFESTYLE, key)
    assert fact.stage is Stage.STABLE
    return fact


def test_a_stable_diet_resists_one_contradiction_and_yields_to_a_second(memory):
    diet = make_stable(memory, "Я вегетарианец", "diet")
    memory.say("Больше не вегетарианец")
    held = memory.fact(S.LIFESTYLE, "diet")
    assert (held.status, held.version) == (F.PRESENT, diet.version)  # unchanged
    (clarification,) = memory.clarifications()
    assert clarification.reason == "contradicts_stable_fact" and clarification.fact_id == diet.id
    assert clarification.current == {"status": "present"} and clarification.proposed == {"status": "stopped"}
    memory.clock.advance(days=3)
    memory.say("Я больше не вегетарианец, снова ем мясо")
    changed = memory.fact(S.LIFESTYLE, "diet")
    assert changed.status is F.STOPPED and memory.clarifications() == []
    assert memory.history(diet.id)[-1] is EventType.NEGATION
    history = memory.repo.get_history("u", diet.id)
    assert snapshot(changed) == history[-1].after


def test_a_stable_diet_restated_settles_the_one_off(memory):
    make_stable(memory, "Я вегетарианец", "diet")
    memory.say("Больше не вегетарианец")
    assert len(memory.clarifications()) == 1
    memory.say("Я вегетарианец")
    assert memory.clarifications() == [] and memory.fact(S.LIFESTYLE, "diet").status is F.PRESENT


def test_a_correction_overturns_a_stable_diet_at_once(memory):
    make_stable(memory, "Я вегетарианец", "diet")
    memory.say("Я ошибся, я больше не вегетарианец")
    assert memory.fact(S.LIFESTYLE, "diet").status is F.STOPPED and memory.clarifications() == []


def test_a_stable_smoker_who_quits_is_recorded_at_once(memory):
    make_stable(memory, "Курю пачку в день", "smoking")
    memory.say("Бросил курить")
    smoking = memory.fact(S.LIFESTYLE, "smoking")
    assert smoking.status is F.STOPPED and memory.clarifications() == []


def test_a_stable_medication_stops_at_once(memory):
    for _ in range(3):
        memory.say("Пью эналаприл 5 мг")
        memory.clock.advance(days=2)
    run_user(memory.repo, "u", memory.clock, new_ulid)
    assert memory.fact(S.MEDICATIONS, "enalapril").stage is Stage.STABLE
    memory.say("Больше не принимаю эналаприл")
    assert memory.fact(S.MEDICATIONS, "enalapril").status is F.STOPPED and memory.clarifications() == []


def test_dates_in_phrasings_use_the_day_said():
    # "20 weeks" counts back from the day the message was sent, not from today
    message = Message(role=Role.USER, text="I'm 20 weeks pregnant", at=datetime(2025, 1, 1, tzinfo=UTC))
    (said,) = RuleExtractor().extract([message], [S.DEMOGRAPHICS])
    assert said.valid_from == (date(2025, 1, 1) - timedelta(weeks=20)).isoformat()


# --- a drug tried, a habit only attempted -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dose"),
    [
        ("I have a headache since Monday. I tried ibuprofen 200, didnt help", 200.0),
        ("пробовала нурофен, не помог", None),
        ("выпила нурофен вчера, голова всё равно болит", None),
        ("我试过布洛芬 没用", None),
    ],
)
def test_a_drug_tried_was_taken_and_is_not_taken_now(text, dose):
    drugs = [a for a in of(extract(text), S.MEDICATIONS) if key_of(a) == "ibuprofen"]
    assert [a.status for a in drugs] == [F.STOPPED]
    assert drugs[0].attributes.get("dose_value") == dose


@pytest.mark.parametrize(
    "text", ["I am trying to quit smoking", "I tried to quit smoking last year", "пытаюсь бросить курить"]
)
def test_an_attempt_to_quit_is_no_former_smoker(text):
    assert not [a for a in of(extract(text), S.LIFESTYLE) if a.status is F.STOPPED]


def test_a_try_beside_a_drug_taken_now_leaves_it_taken():
    drugs = of(extract("I take ibuprofen when I try to sleep"), S.MEDICATIONS)
    assert [a.status for a in drugs] == [F.ACTIVE]
