"""The prompt fits its token budget, and safety constraints are the last to be dropped."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from health_ltm.domain.candidates import Candidate
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import AssertionKind, SectionState
from health_ltm.domain.sections import FactStatus, Section
from health_ltm.domain.transitions import DecisionContext, decide
from health_ltm.ports import ChangeSet, FactWrite
from health_ltm.read import tokens
from health_ltm.read.classify import QueryClassifier
from health_ltm.read.context import build_context
from health_ltm.storage.memory import InMemoryRepository
from tests.conftest import T0


@pytest.fixture(scope="module", autouse=True)
def exact_tokenizer():
    tokens.count_tokens("warm up")


def put(repo: InMemoryRepository, section: Section, key: str, name: str, status=FactStatus.PRESENT, **attrs):
    candidate = Candidate(
        section=section,
        kind=AssertionKind.FACT,
        key=key,
        name_raw=name,
        name_normalized=name,
        status=status,
        attributes=attrs,
    )
    d = decide(
        candidate,
        None,
        SectionState(section=section),
        [],
        [],
        DecisionContext(now=T0 - timedelta(days=len(key)), new_id=new_ulid),
    )
    repo.apply("u", None, ChangeSet(facts=[FactWrite(d.fact.fact, d.fact.event, None, new_key=True)]))


def profile(n_medications: int) -> InMemoryRepository:
    repo = InMemoryRepository()
    put(repo, Section.ALLERGIES, "peanut", "арахис", reaction="анафилаксия", severity="severe")
    put(repo, Section.CHRONIC_CONDITIONS, "hypertension", "гипертония")
    for i in range(n_medications):
        put(
            repo,
            Section.MEDICATIONS,
            f"drug{i:03d}",
            f"препарат номер {i} с длинным названием",
            FactStatus.ACTIVE,
            dose_value=5 + i,
            dose_unit="mg",
            frequency="два раза в день после еды",
        )
    for i in range(10):
        put(repo, Section.SYMPTOMS, f"symptom{i}", f"симптом {i}: тянущая боль в пояснице по вечерам")
    return repo


CLASSIFIER = QueryClassifier()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 60), budget=st.integers(50, 800))
def test_prompt_never_exceeds_the_budget(n, budget):
    ctx = build_context(
        profile(n),
        CLASSIFIER.classify("Можно ли мне ибупрофен от головной боли?"),
        "u",
        "Можно ли мне ибупрофен от головной боли?",
        budget,
    )
    assert tokens.count_tokens(ctx.prompt) <= budget
    assert ctx.tokens["prompt"] <= budget and ctx.tokens["counter"] == "o200k_base"


def test_a_tight_budget_keeps_allergies_and_conditions_and_drops_other_facts_first():
    ctx = build_context(
        profile(40),
        CLASSIFIER.classify("Можно ли мне ибупрофен от головной боли?"),
        "u",
        "Можно ли мне ибупрофен от головной боли?",
        120,
    )
    assert "арахис" in ctx.prompt and "гипертония" in ctx.prompt
    assert "симптом" not in ctx.prompt


def test_blocks_list_the_facts_the_prompt_carries_when_the_prompt_is_cut():
    # The typed blocks are the prompt's facts (what the budget held), not the whole record: a
    # response grows with the budget, not with the profile (issue 12).
    ctx = build_context(
        profile(40), CLASSIFIER.classify("Можно ли мне ибупрофен?"), "u", "Можно ли мне ибупрофен?", 100
    )
    listed = [f["id"] for b in ctx.self_reported for f in b["facts"]]
    assert sorted(listed) == sorted(ctx.fact_ids) and 0 < len(listed) < 40
    medications = next(b for b in ctx.self_reported if b["section"] == "medications")
    assert all(f["name"] in ctx.prompt for f in medications["facts"])


def test_blocks_list_every_visible_fact_when_the_budget_holds_them():
    ctx = build_context(
        profile(5), CLASSIFIER.classify("Можно ли мне ибупрофен?"), "u", "Можно ли мне ибупрофен?", 2000
    )
    medications = next(b for b in ctx.self_reported if b["section"] == "medications")
    assert len(medications["facts"]) == 5
    dates = [f["last_confirmed_at"] for f in medications["facts"]]
    assert dates == sorted(dates, reverse=True)  # newest first, as before


def test_same_memory_and_query_give_the_same_context():
    repo = profile(20)
    first = build_context(repo, CLASSIFIER.classify("Что мне поесть?"), "u", "Что мне поесть?", 400)
    second = build_context(repo, CLASSIFIER.classify("Что мне поесть?"), "u", "Что мне поесть?", 400)
    assert first == second


def test_rendering_cost_follows_the_budget_not_the_profile(monkeypatch):
    # Lines are formatted (and counted) lazily in fill order; filling stops once the budget is
    # full, so a profile ten times larger formats about the same number of lines.
    from health_ltm.read import context as context_module

    formatted: list[int] = []
    real = context_module.fact_line

    def counting(*args, **kwargs):
        formatted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(context_module, "fact_line", counting)
    query = "Можно ли мне ибупрофен?"
    counts = []
    for n in (20, 200):
        formatted.clear()
        ctx = build_context(profile(n), CLASSIFIER.classify(query), "u", query, 200)
        assert tokens.count_tokens(ctx.prompt) <= 200
        counts.append(len(formatted))
    assert counts[1] <= counts[0] + context_module.MAX_MISSES
    assert counts[1] < 120


def test_every_safety_section_keeps_its_newest_fact_with_a_long_profile():
    ctx = build_context(
        profile(300), CLASSIFIER.classify("Можно ли мне ибупрофен?"), "u", "Можно ли мне ибупрофен?", 100
    )
    assert "арахис" in ctx.prompt and "гипертония" in ctx.prompt
    assert "препарат номер" in ctx.prompt
