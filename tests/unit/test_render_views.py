"""The typed read contract and its rendering: plain words, the section statuses, read-your-writes
without double entries, episodes as the facts now stand."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from health_ltm.chat.sessions import buffer_mentions, fragment_id_for, publish_mentions
from health_ltm.domain.models import (
    Clarification,
    Fact,
    PendingMention,
    Provenance,
    Role,
    SectionState,
    UserMemory,
)
from health_ltm.domain.sections import FactStatus, Section, SectionStatus, Stage
from health_ltm.domain.sessions import OutboxEntry, SessionBuffer, Turn
from health_ltm.ports import EpisodeHit
from health_ltm.read import tokens
from health_ltm.read.classify import QueryClassification
from health_ltm.read.context import build_context, render_prompt
from health_ltm.read.render import (
    clarification_line,
    discrepancy_line,
    fact_line,
    status_line,
)
from health_ltm.read.views import ClarificationView, Discrepancy, StatusLine
from tests.conftest import T0

REPR = re.compile(r"[{}\[\]]|'\w+':|\b\w+_\w+\b")  # a dict, a list, a raw key like weight_kg


def fact(section: Section, name: str, status=FactStatus.PRESENT, fact_id="f1", **extra) -> Fact:
    fields = {
        "id": fact_id,
        "section": section,
        "key": name,
        "name_raw": name,
        "name_normalized": name,
        "status": status,
        "stage": Stage.ACTIVE,
        "first_mentioned_at": T0,
        "last_confirmed_at": T0,
        **extra,
    }
    return Fact(**fields)


class Repo:
    def __init__(self, memory: UserMemory) -> None:
        self.memory = memory

    def load_memory(self, user_id, sections=None, ended=True, current_state=()) -> UserMemory:
        return self.memory


class Embedder:
    name, dimensions = "stub", 2

    def embed(self, texts):
        return [[1.0, 0.0] for _ in texts]


class Index:
    def __init__(self, hits: list[EpisodeHit]) -> None:
        self.hits = hits

    def search(self, user_id, vector, k, *, text=None):
        return self.hits


def classified(*sections: Section, episodes: bool = False) -> QueryClassification:
    return QueryClassification(
        classes=["test"],
        sections=list(sections),
        history_intent=False,
        needs_episodes=episodes,
        method="test",
        data_version="test",
    )


def context(memory: UserMemory, *sections: Section, query="Можно ли мне ибупрофен?", hits=(), **kw):
    return build_context(
        Repo(memory),
        classified(*sections, episodes=bool(hits)),
        "u",
        query,
        400,
        embedder=Embedder(),
        vector_index=Index(list(hits)),
        episode_timeout_s=5,
        now=T0 + timedelta(days=5),
        **kw,
    )


@pytest.fixture(scope="module", autouse=True)
def exact_tokenizer():
    tokens.count_tokens("warm up")


# ------------------------------------------------------------------ fact lines in plain words
def test_demographics_are_words_and_units_not_keys():
    assert (
        fact_line(fact(Section.DEMOGRAPHICS, "weight_kg", attributes={"weight_kg": 58.0})) == "- weight 58 kg"
    )
    assert (
        fact_line(fact(Section.DEMOGRAPHICS, "birth_year", attributes={"birth_year": 1992})) == "- born 1992"
    )
    assert fact_line(fact(Section.DEMOGRAPHICS, "height_cm", attributes={"height_cm": 170.5})) == (
        "- height 170.5 cm"
    )
    assert fact_line(fact(Section.DEMOGRAPHICS, "pregnancy", attributes={"pregnancy": "not_pregnant"})) == (
        "- not pregnant"
    )


@pytest.mark.parametrize(
    ("section", "name", "line"),
    [
        (Section.ALLERGIES, "penicillin", "- NOT allergic to penicillin"),
        (Section.CHRONIC_CONDITIONS, "diabetes", "- does NOT have diabetes"),
        (Section.SYMPTOMS, "fever", "- NO fever"),
    ],
)
def test_a_negative_entity_says_not(section, name, line):
    assert fact_line(fact(section, name, FactStatus.ABSENT)) == line


def test_a_habit_denied_says_not_once():
    """Found talking to the local stack: "Курите?" / "нет" rendered "- NOT smoking: no"."""
    assert fact_line(fact(Section.LIFESTYLE, "smoking", FactStatus.ABSENT, attributes={"value": "no"})) == (
        "- NOT smoking"
    )
    assert fact_line(
        fact(Section.LIFESTYLE, "smoking", FactStatus.STOPPED, attributes={"value": "former"})
    ) == ("- smoking: former (stopped)")


def test_a_medication_line_has_its_dose_class_code_and_no_raw_keys():
    line = fact_line(
        fact(
            Section.MEDICATIONS,
            "enalapril",
            FactStatus.ACTIVE,
            name_raw="Энап",
            attributes={
                "dose_value": 5.0,
                "dose_unit": "mg",
                "time_of_day": "morning",
                "indication": "blood pressure",
                "atc_code": "C09AA02",
            },
        )
    )
    assert line == "- enalapril (taking now; as said: Энап; 5 mg; morning; for blood pressure; ATC C09AA02)"


def test_a_stopped_drug_says_why_and_a_symptom_its_onset_in_words():
    stopped = fact(
        Section.MEDICATIONS, "amitriptyline", FactStatus.STOPPED, attributes={"stop_reason": "made me dizzy"}
    )
    assert fact_line(stopped) == '- amitriptyline (stopped; why stopped: "made me dizzy")'
    line = fact_line(fact(Section.SYMPTOMS, "headache", attributes={"onset_days_ago": 1}))
    assert "began 1 day before" in line and not REPR.search(line)


def test_a_question_about_the_present_shows_a_drug_stopped_for_what_it_did():
    """Ended facts come to a question about the present as briefs; one that says why the drug was
    stopped is shown as its line (the user may ask about taking it again), a bare one is not."""
    from health_ltm.domain.models import EndedFact

    sumatriptan = fact(
        Section.MEDICATIONS, "sumatriptan", FactStatus.STOPPED, attributes={"stop_reason": "chest tightness"}
    )
    ibuprofen = fact(Section.MEDICATIONS, "ibuprofen", FactStatus.STOPPED, fact_id="f2")
    current = fact(Section.MEDICATIONS, "lisinopril", FactStatus.ACTIVE, fact_id="f3")
    memory = UserMemory(facts=[current], ended=[EndedFact.of(sumatriptan), EndedFact.of(ibuprofen)])
    result = context(memory, Section.MEDICATIONS, query="can I take sumatriptan again?")
    assert '- sumatriptan (stopped; why stopped: "chest tightness")' in result.prompt
    assert "ibuprofen" not in result.prompt and "- lisinopril (taking now)" in result.prompt
    assert {f.name for f in result.self_reported[0].facts} == {"sumatriptan", "lisinopril"}
    deleted = EndedFact.of(sumatriptan.model_copy(update={"deleted_at": T0}))
    assert (
        "sumatriptan" not in context(UserMemory(facts=[current], ended=[deleted]), Section.MEDICATIONS).prompt
    )


def test_no_date_twice_in_a_line():
    surgery = fact(Section.SURGERIES, "appendectomy", attributes={"year": 2019}, valid_from="2019")
    assert fact_line(surgery) == "- appendectomy (in 2019)"
    condition = fact(Section.CHRONIC_CONDITIONS, "asthma", attributes={"since": "2010", "icd10": "J45"})
    assert fact_line(condition.model_copy(update={"valid_from": "2010"})) == "- asthma (since 2010)"
    # found on the running stack: "ankle sprain (site: ankle; in 2026; in 2026-11-25)"
    sprain = fact(
        Section.INJURIES,
        "ankle sprain",
        attributes={"body_site": "ankle", "year": 2026, "date": "2026-11-25"},
        valid_from="2026-11-25",
    )
    assert fact_line(sprain) == "- ankle sprain (on 2026-11-25)"
    knee = fact(Section.INJURIES, "sprain", attributes={"body_site": "knee", "year": 2025}, valid_from="2025")
    assert fact_line(knee) == "- sprain (site: knee; in 2025)"
    # found on the running stack: "father: инфаркт миокарда (from age 60)"; a heart attack came at 60
    heart = fact(
        Section.FAMILY_HISTORY, "myocardial infarction", attributes={"relative": "father", "age_at_onset": 60}
    )
    assert fact_line(heart) == "- father: myocardial infarction (at age 60)"


def test_a_documented_fact_names_its_source_once():
    lab = fact(
        Section.CHRONIC_CONDITIONS,
        "anemia",
        provenance=Provenance.DOCUMENTED,
        document_id="d1",
        source_type="lab_result",
        document_date="2026-01-10",
    )
    assert fact_line(lab) == "- anemia [from lab result, 2026-01-10]"


def test_clarifications_and_discrepancies_are_words_not_reprs():
    implausible = ClarificationView(
        id="c1",
        section=Section.DEMOGRAPHICS,
        reason="implausible_change:birth_year",
        current={"birth_year": 1990},
        proposed={"birth_year": 2001},
    )
    line = clarification_line(implausible)
    assert (
        line
        == "- about the user: birth year changed implausibly; on record: born 1990; newly said: born 2001"
    )
    absent = ClarificationView(
        id="c2",
        section=Section.ALLERGIES,
        reason="section_absent_conflicts_with_recorded_facts",
        current={"facts": ["peanut", "penicillin"]},
        proposed={"status": "confirmed_absent"},
    )
    line = clarification_line(absent)
    assert "on record: peanut, penicillin; newly said: none at all" in line
    assert not REPR.search(line)
    taken_back = ClarificationView(
        id="c3",
        section=Section.ALLERGIES,
        reason="retracted_mention",
        current={"name": "sulfonamides", "status": "present"},
        proposed={"retracted": True},
    )
    line = clarification_line(taken_back)
    assert "took back" in line and "sulfonamides" in line
    assert "True" not in line and "newly said" not in line
    which = ClarificationView(
        id="c4",
        section=Section.MEDICATIONS,
        reason="ambiguous_reference",
        current={"facts": ["naproxen", "cyclobenzaprine"]},
        proposed={"said": "I stopped taking it"},
    )
    line = clarification_line(which)
    assert "ask which one" in line and 'newly said: "I stopped taking it"' in line
    assert "said: said" not in line
    disagreement = Discrepancy(
        section=Section.ALLERGIES, name="latex", self_reported="absent", documented="present"
    )
    assert discrepancy_line(disagreement) == (
        "- allergies: latex: the user says does not have it; the documents say has it"
    )


def test_status_lines():
    assert (
        status_line(
            StatusLine(section=Section.ALLERGIES, status=SectionStatus.CONFIRMED_ABSENT, since=T0.date())
        )
        == "- allergies: none known (confirmed 2026-03-02)"
    )
    assert status_line(StatusLine(section=Section.CHRONIC_CONDITIONS, status=SectionStatus.UNSURE)) == (
        "- chronic conditions: the user is not sure"
    )


# ------------------------------------------------------------------ statuses, gaps, pending
def sections(**statuses: SectionStatus) -> dict[Section, SectionState]:
    return {
        Section(s): SectionState(section=Section(s), status=v, updated_at=T0) for s, v in statuses.items()
    }


def test_confirmed_absent_and_unsure_are_lines_never_gaps():
    memory = UserMemory(
        sections=sections(allergies=SectionStatus.CONFIRMED_ABSENT, chronic_conditions=SectionStatus.UNSURE)
    )
    ctx = context(memory, Section.ALLERGIES, Section.CHRONIC_CONDITIONS, Section.FAMILY_HISTORY)
    assert [(s.section, s.status) for s in ctx.statuses] == [  # in the classification's order
        (Section.ALLERGIES, SectionStatus.CONFIRMED_ABSENT),
        (Section.CHRONIC_CONDITIONS, SectionStatus.UNSURE),
    ]
    assert [g.section for g in ctx.gaps] == [Section.FAMILY_HISTORY]
    assert "- allergies: none known (confirmed 2026-03-02)" in ctx.prompt
    assert "- chronic conditions: the user is not sure (said 2026-03-02)" in ctx.prompt
    assert ctx.tokens.prompt == tokens.count_tokens(ctx.prompt)


def test_a_status_line_only_where_no_current_fact_contradicts_it():
    memory = UserMemory(
        facts=[fact(Section.ALLERGIES, "peanut")], sections=sections(allergies=SectionStatus.CONFIRMED_ABSENT)
    )
    assert context(memory, Section.ALLERGIES).statuses == []
    negative_only = UserMemory(
        facts=[fact(Section.ALLERGIES, "penicillin", FactStatus.ABSENT)],
        sections=sections(allergies=SectionStatus.CONFIRMED_ABSENT),
    )
    ctx = context(negative_only, Section.ALLERGIES)
    assert [s.section for s in ctx.statuses] == [Section.ALLERGIES]
    assert "NOT allergic to penicillin" in ctx.prompt


@pytest.mark.parametrize(
    ("query", "question"),
    [
        ("我可以吃布洛芬吗？", "您对药物、食物或其他东西过敏吗？"),
        ("Можно ли мне ибупрофен?", "Есть ли у вас аллергия на лекарства, продукты или что-то ещё?"),
        ("Can I take ibuprofen?", "Do you have any allergies to medicines, foods or anything else?"),
    ],
)
def test_a_gap_question_is_asked_in_the_querys_script(query, question):
    (gap,) = context(UserMemory(), Section.ALLERGIES, query=query).gaps
    assert gap.suggested_question == question


def mention(fragment_id: str, text="У меня аллергия на пенициллин", minutes=0) -> PendingMention:
    return PendingMention(
        fragment_id=fragment_id,
        sections=[Section.ALLERGIES],
        text=text,
        received_at=T0 + timedelta(minutes=minutes),
    )


def test_a_pending_mention_is_never_beside_a_gap_and_is_shown_once():
    memory = UserMemory(pending=[mention("frag-1")])
    ctx = context(
        memory,
        Section.ALLERGIES,
        unprocessed=[mention("frag-1"), mention("chat-x-0", "и на киви", minutes=3)],
    )
    assert ctx.gaps == []
    assert [(p.fragment_id, p.source) for p in ctx.pending] == [
        ("frag-1", "fragment"),
        ("chat-x-0", "chat_session"),
    ]
    assert ctx.prompt.count("пенициллин") == 1 and "never discussed" not in ctx.prompt
    assert ctx.prompt.count("2026-03-02") == 1  # one day, named once


def test_a_pending_mention_of_other_sections_is_not_shown():
    memory = UserMemory(pending=[mention("frag-1")])
    assert context(memory, Section.SYMPTOMS).pending == []


def test_buffer_mentions_are_keyed_by_the_fragment_each_flush_makes():
    said = Turn(role=Role.USER, text="У меня аллергия на пенициллин", at=T0)
    answer = Turn(role=Role.ASSISTANT, text="Понял, аллергия на пенициллин", at=T0)
    claimed = Turn(role=Role.USER, text="Пью Энап 5 мг", at=T0 - timedelta(minutes=5))
    buffer = SessionBuffer(
        session_id="s1",
        incarnation="inc",
        seq=3,
        pending=[said, answer, Turn(role=Role.USER, text="Привет", at=T0)],
        outbox=[
            OutboxEntry(fragment_id=fragment_id_for("s1", "inc", 2), seq=2, trigger="turns", turns=[claimed])
        ],
        created_at=T0,
        last_activity=T0,
    )
    mentions = buffer_mentions(buffer)
    assert [(m.fragment_id, m.sections, m.text) for m in mentions] == [
        (fragment_id_for("s1", "inc", 2), [Section.MEDICATIONS], "Пью Энап 5 мг"),
        # penicillin is a drug too: the same rule as a queued fragment's
        (
            fragment_id_for("s1", "inc", 3),
            [Section.ALLERGIES, Section.MEDICATIONS],
            "У меня аллергия на пенициллин",
        ),
    ]
    quiet = buffer.model_copy(update={"pending": [Turn(role=Role.USER, text="Привет", at=T0)], "outbox": []})
    assert buffer_mentions(quiet) == []


# ------------------------------------------------------------------ episodes as the facts stand
def hit(episode_id: str, text: str, days_before: float = 0) -> EpisodeHit:
    return EpisodeHit(episode_id=episode_id, text=text, at=T0 - timedelta(days=days_before), score=0.9)


def test_a_deleted_facts_episode_is_left_out_and_a_changed_facts_is_earlier():
    deleted = fact(Section.ALLERGIES, "penicillin", fact_id="f1", source_fragment_ids=["e1"], deleted_at=T0)
    edited = fact(
        Section.MEDICATIONS,
        "metformin",
        FactStatus.ACTIVE,
        fact_id="f2",
        source_fragment_ids=["e2"],
        attributes={"dose_value": 1000, "dose_unit": "mg"},
        last_confirmed_at=T0 + timedelta(days=2),
        version=2,
    )
    mentioned_again = fact(
        Section.MEDICATIONS, "enalapril", FactStatus.ACTIVE, fact_id="f3", source_fragment_ids=["e3", "e4"]
    )
    memory = UserMemory(facts=[deleted, edited, mentioned_again])
    hits = [
        hit("e1", "Аллергия на пенициллин"),
        hit("e2", "Пью метформин 500 мг"),
        hit("e3", "Пью Энап 5 мг", days_before=30),
        hit("e4", "Всё ещё пью Энап"),
        hit("e5", "Болит голова"),
    ]
    ctx = context(memory, Section.ALLERGIES, Section.MEDICATIONS, hits=hits)
    assert {e.text: e.earlier for e in ctx.episodes} == {
        "Пью метформин 500 мг": True,  # the dose was edited after it was said
        "Пью Энап 5 мг": True,  # a later fragment spoke about the same drug
        "Всё ещё пью Энап": False,
        "Болит голова": False,
    }
    assert sorted(ctx.episode_ids) == ["e2", "e3", "e4", "e5"]
    assert "пенициллин" not in ctx.prompt
    lines = [line for line in ctx.prompt.splitlines() if "earlier conversation" in line]
    assert len(lines) == 2 and any("500 мг" in line for line in lines)


def test_episodes_of_one_day_name_the_day_once():
    hits = [hit("e1", "Болит голова"), hit("e2", "Болит спина"), hit("e3", "Кашель", days_before=3)]
    ctx = context(UserMemory(), Section.SYMPTOMS, hits=hits)
    lines = ctx.prompt.splitlines()[1:]
    assert lines == ["- (2026-03-02) Болит голова", "- Болит спина", "- (2026-02-27) Кашель"]


# ------------------------------------------------------------------ the contract
def test_views_are_typed_and_read_by_name_too():
    memory = UserMemory(
        facts=[fact(Section.ALLERGIES, "peanut")],
        clarifications=[
            Clarification(
                id="c1",
                section=Section.ALLERGIES,
                reason="section_absent_conflicts_with_recorded_facts",
                current={"facts": ["peanut"]},
                proposed={"status": "confirmed_absent"},
                created_at=T0,
            )
        ],
    )
    ctx = context(memory, Section.ALLERGIES)
    (block,) = ctx.self_reported
    assert block.section is Section.ALLERGIES and block.facts[0].name == "peanut"
    assert block["facts"][0]["id"] == "f1"  # the benchmarks read blocks by name
    assert ctx.clarifications[0].current == {"facts": ["peanut"]}
    assert "{" not in ctx.prompt and "'" not in ctx.prompt


def test_the_positional_render_prompt_still_renders_facts_alone():
    memory = UserMemory(facts=[fact(Section.ALLERGIES, "peanut")])
    prompt, ids = render_prompt(memory, {Section.ALLERGIES}, False, [], [], [], [], [], 400)
    assert prompt == "[SELF-REPORTED by the user · Allergies]\n- peanut" and ids == ["f1"]


def test_facts_of_one_document_name_it_once():
    def lab(fact_id: str, name: str, document_id: str) -> Fact:
        return fact(
            Section.CHRONIC_CONDITIONS,
            name,
            fact_id=fact_id,
            provenance=Provenance.DOCUMENTED,
            document_id=document_id,
            source_type="lab_result",
            document_date="2026-01-10" if document_id == "d1" else "2025-05-01",
        )

    memory = UserMemory(
        documented=[lab("a", "anemia", "d1"), lab("b", "gout", "d1"), lab("c", "asthma", "d2")]
    )
    ctx = context(memory, Section.CHRONIC_CONDITIONS)
    assert ctx.prompt.splitlines()[1:4] == [
        "- anemia [from lab result, 2026-01-10]",
        "- gout",
        "- asthma [from lab result, 2025-05-01]",
    ]


def test_publish_mentions_stores_only_the_unclaimed_turns_mention_under_the_flush_id():
    stored: list[tuple[str, PendingMention]] = []
    buffer = SessionBuffer(
        session_id="s1",
        incarnation="inc",
        seq=1,
        pending=[Turn(role=Role.USER, text="У меня аллергия на киви", at=T0)],
        outbox=[
            OutboxEntry(
                fragment_id=fragment_id_for("s1", "inc", 0),
                seq=0,
                trigger="turns",
                turns=[Turn(role=Role.USER, text="Пью Энап 5 мг", at=T0)],
            )
        ],
        created_at=T0,
        last_activity=T0,
    )
    published = publish_mentions(lambda user, m: stored.append((user, m)), "u", buffer)
    assert published is not None and stored == [("u", published)]
    assert published.fragment_id == fragment_id_for("s1", "inc", 1) and "киви" in published.text
    assert (
        publish_mentions(
            lambda user, m: stored.append((user, m)), "u", buffer.model_copy(update={"pending": []})
        )
        is None
    )
