"""POST /v1/context: the right facts for this question, fast, predictable, with provenance.

query -> classes (local) -> union of sections -> ONE DynamoDB Query -> status rules ->
labelled blocks (self-reported, documented, gaps, clarifications, pending) ‖ episodes (kNN,
only when the class needs them, in parallel, degraded never failed) -> prompt within budget.
No LLM call, no semantic top-k over facts.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from ..domain.fingerprint import facts_fingerprint
from ..domain.models import Fact, UserMemory
from ..domain.sections import (
    CRITICAL_SECTIONS,
    CURRENT_STATUSES,
    HISTORICAL_STATUSES,
    SAFETY_SECTIONS,
    FactStatus,
    Section,
    SectionStatus,
    Stage,
)
from ..ports import Embedder, EpisodeHit, VectorIndex
from .classify import QueryClassification
from .recency import CANDIDATES_PER_RESULT, rerank
from .render import SECTION_TITLES, fact_line, fact_view
from .tokens import count_tokens, tokenizer_name

GAP_QUESTIONS: dict[Section, dict[str, str]] = {
    Section.ALLERGIES: {
        "ru": "Есть ли у вас аллергия на лекарства, продукты или что-то ещё?",
        "en": "Do you have any allergies to medicines, foods or anything else?",
    },
    Section.CHRONIC_CONDITIONS: {
        "ru": "Есть ли у вас хронические заболевания?",
        "en": "Do you have any chronic conditions?",
    },
    Section.FAMILY_HISTORY: {
        "ru": "Были ли у ваших близких родственников серьёзные заболевания (диабет, болезни сердца, рак)?",
        "en": "Have any close relatives had serious illnesses (diabetes, heart disease, cancer)?",
    },
}
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
EPISODES_K = 5
MIN_LINE_TOKENS = 5  # the shortest fact line and its newline: below this nothing more fits


@dataclass
class ContextResult:
    query_classes: list[str]
    sections: list[str]
    history_intent: bool
    self_reported: list[dict[str, Any]]
    documented: list[dict[str, Any]]
    discrepancies: list[dict[str, Any]]
    gaps: list[dict[str, str]]
    clarifications: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    episodes: list[dict[str, Any]]
    episodes_status: str
    prompt: str
    tokens: dict[str, Any]
    fact_ids: list[str] = field(default_factory=list)
    episode_ids: list[str] = field(default_factory=list)  # for the retrieval statistics


def visible(fact: Fact, history_intent: bool) -> bool:
    """Status rules: current facts always; stopped/resolved only for history questions;
    candidates, deprecated and user-deleted facts never."""
    if fact.is_deleted or fact.stage not in (Stage.ACTIVE, Stage.STABLE):
        return False
    if fact.status in CURRENT_STATUSES:
        return True
    return history_intent and fact.status in HISTORICAL_STATUSES


@lru_cache(maxsize=1)
def _episode_pool() -> concurrent.futures.ThreadPoolExecutor:
    return concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="episodes")


def _search_episodes(
    embedder: Embedder, index: VectorIndex, user_id: str, query: str, k: int, now: datetime
) -> list[EpisodeHit]:
    vector = embedder.embed([query])[0]
    return rerank(index.search(user_id, vector, k * CANDIDATES_PER_RESULT, text=query), now, k)


def build_context(
    repository,
    classification: QueryClassification,
    user_id: str,
    query: str,
    max_tokens: int,
    embedder: Embedder | None = None,
    vector_index: VectorIndex | None = None,
    episode_timeout_s: float = 0.25,
    now: datetime | None = None,
) -> ContextResult:
    now = now or datetime.now(UTC)
    sections = list(classification.sections)
    future = None
    if classification.needs_episodes and embedder is not None and vector_index is not None:
        future = _episode_pool().submit(
            _search_episodes, embedder, vector_index, user_id, query, EPISODES_K, now
        )
    memory: UserMemory = repository.load_memory(user_id, sections) if sections else UserMemory()

    history = classification.history_intent
    selected = set(sections)
    self_reported = _blocks(
        [f for f in memory.facts if f.section in selected and visible(f, history)], sections
    )
    documented = _blocks(
        [f for f in memory.documented if f.section in selected and visible(f, history)], sections
    )
    language = "ru" if _CYRILLIC.search(query) else "en"
    gaps = [
        {"section": s.value, "suggested_question": GAP_QUESTIONS[s][language]}
        for s in CRITICAL_SECTIONS
        if s in selected
        and memory.section_status(s) is SectionStatus.UNKNOWN
        and not any(f.section is s and not f.is_deleted for f in memory.facts)
    ]
    clarifications = [
        {
            "id": c.id,
            "section": c.section.value,
            "reason": c.reason,
            "current": c.current,
            "proposed": c.proposed,
        }
        for c in memory.clarifications
        if c.section in selected
    ]
    pending = [
        {
            "fragment_id": p.fragment_id,
            "sections": [s.value for s in p.sections],
            "text": p.text,
            "received_at": p.received_at.isoformat(),
        }
        for p in memory.pending
        if selected.intersection(p.sections)
    ]
    discrepancies = _discrepancies(memory, selected, history)

    episodes: list[dict[str, Any]] = []
    episode_ids: list[str] = []
    episodes_status = "skipped"
    if future is not None:
        try:
            hits = future.result(timeout=episode_timeout_s)
            episodes = [{"text": h.text, "at": h.at.isoformat(), "score": round(h.score, 4)} for h in hits]
            episode_ids = [h.episode_id for h in hits]
            episodes_status = "ok"
        except Exception:
            future.cancel()
            episodes_status = "unavailable"

    # A general question gets the compact profile summary, if it still describes these facts.
    summary = (
        memory.summary
        if classification.prefers_summary
        and memory.summary
        and memory.summary_fingerprint == facts_fingerprint(memory.facts)
        else None
    )
    prompt, used_fact_ids = render_prompt(
        memory,
        selected,
        history,
        gaps,
        clarifications,
        pending,
        discrepancies,
        episodes,
        max_tokens,
        summary=summary,
    )
    return ContextResult(
        query_classes=list(classification.classes),
        sections=[s.value for s in sections],
        history_intent=history,
        self_reported=self_reported,
        documented=documented,
        discrepancies=discrepancies,
        gaps=gaps,
        clarifications=clarifications,
        pending=pending,
        episodes=episodes,
        episodes_status=episodes_status,
        prompt=prompt,
        tokens={
            "prompt": count_tokens(prompt) if prompt else 0,
            "budget": max_tokens,
            "counter": tokenizer_name(),
        },
        fact_ids=used_fact_ids,
        episode_ids=episode_ids,
    )


def _blocks(facts: Sequence[Fact], order: Sequence[Section]) -> list[dict[str, Any]]:
    by_section: dict[Section, list[Fact]] = {}
    for fact in facts:
        by_section.setdefault(fact.section, []).append(fact)
    return [
        {"section": s.value, "facts": [fact_view(f) for f in _ordered(by_section[s])]}
        for s in order
        if s in by_section
    ]


def _ordered(facts: Sequence[Fact]) -> list[Fact]:
    # Current before historical, then most recently confirmed first.
    return sorted(facts, key=lambda f: (f.status in HISTORICAL_STATUSES, -f.last_confirmed_at.timestamp()))


def _discrepancies(memory: UserMemory, selected: set[Section], history: bool) -> list[dict[str, Any]]:
    """Self-reported and documented data that disagree. Both stay; code picks no winner."""
    found: list[dict[str, Any]] = []
    for doc in memory.documented:
        if doc.section not in selected or not visible(doc, history):
            continue
        own = next((f for f in memory.facts if f.section is doc.section and f.key == doc.key), None)
        if (
            own is not None
            and not own.is_deleted
            and (own.status is FactStatus.ABSENT) != (doc.status is FactStatus.ABSENT)
        ):
            found.append(
                {
                    "section": doc.section.value,
                    "self_reported": own.status.value,
                    "documented": doc.status.value,
                    "name": doc.name_normalized,
                }
            )
        elif own is None and memory.section_status(doc.section) is SectionStatus.CONFIRMED_ABSENT:
            found.append(
                {
                    "section": doc.section.value,
                    "self_reported": "confirmed_absent",
                    "documented": doc.status.value,
                    "name": doc.name_normalized,
                }
            )
    return found


def render_prompt(
    memory: UserMemory,
    selected: set[Section],
    history: bool,
    gaps: list[dict[str, str]],
    clarifications: list[dict[str, Any]],
    pending: list[dict[str, Any]],
    discrepancies: list[dict[str, Any]],
    episodes: list[dict[str, Any]],
    budget: int,
    summary: str | None = None,
) -> tuple[str, list[str]]:
    """Fill the budget in priority order, newest first within a priority; safety constraints are
    the last to go. Lines are formatted and counted lazily, and filling stops once no line can
    fit, so a long profile costs what the budget holds, not what the profile holds."""
    # (priority: lower is kept first, recency: lower first, block, a fact or a ready line, fact id)
    items: list[tuple[int, float, str, Fact | str, str | None]] = []
    if summary:  # it stands for the self-reported facts, in its own order
        items.extend((0, float(i), "summary", line, None) for i, line in enumerate(summary.splitlines()))
    for fact in [] if summary else memory.facts:
        if fact.section in selected and visible(fact, history):
            priority = 0 if fact.section in SAFETY_SECTIONS and fact.status not in HISTORICAL_STATUSES else 2
            items.append(
                (priority, -fact.last_confirmed_at.timestamp(), f"self:{fact.section.value}", fact, fact.id)
            )
    for fact in memory.documented:
        if fact.section in selected and visible(fact, history):
            priority = 1 if fact.section in SAFETY_SECTIONS else 3
            items.append(
                (priority, -fact.last_confirmed_at.timestamp(), f"doc:{fact.section.value}", fact, fact.id)
            )
    for p in pending:
        items.append(
            (0, 0.0, "pending", f'- "{p["text"]}" (said {p["received_at"][:10]}, not yet processed)', None)
        )
    for d in discrepancies:
        line = (
            f"- {d['section']}: {d['name']}: user says {d['self_reported']}, documents say {d['documented']}"
        )
        items.append((0, 0.0, "discrepancy", line, None))
    for c in clarifications:
        line = f"- {c['section']}: {c['reason']} (on record {c['current']}, newly said {c['proposed']})"
        items.append((1, 0.0, "clarify", line, None))
    for g in gaps:
        items.append(
            (
                1,
                0.0,
                "gaps",
                f"- {g['section']}: never discussed; you may ask: {g['suggested_question']}",
                None,
            )
        )
    for e in episodes:
        items.append((4, 0.0, "episodes", f"- ({e['at'][:10]}) {e['text'][:300]}", None))
    if not items:
        return "", []

    headers = _headers(selected)
    kept: dict[str, list[tuple[str, str | None]]] = {}
    used = 0
    for _priority, _recency, block, content, fact_id in sorted(items, key=lambda i: (i[0], i[1])):
        if budget - used < MIN_LINE_TOKENS:
            break
        line = fact_line(content) if isinstance(content, Fact) else content
        cost = count_tokens(line) + 1
        header_cost = 0 if block in kept else count_tokens(headers(block)) + 1
        if used + cost + header_cost > budget:
            continue
        kept.setdefault(block, []).append((line, fact_id))
        used += cost + header_cost
    lines: list[str] = []
    fact_ids: list[str] = []
    for block in _block_order(selected):
        if block in kept:
            lines.append(headers(block))
            lines.extend(line for line, _ in kept[block])
            fact_ids.extend(fact_id for _, fact_id in kept[block] if fact_id)
    return "\n".join(lines), fact_ids


def _block_order(selected: set[Section]) -> list[str]:
    ordered = [s for s in list(SAFETY_SECTIONS) + list(Section) if s in selected]
    seen: list[Section] = []
    for s in ordered:
        if s not in seen:
            seen.append(s)
    return (
        ["pending", "summary"]
        + [f"self:{s.value}" for s in seen]
        + [f"doc:{s.value}" for s in seen]
        + ["discrepancy", "clarify", "gaps", "episodes"]
    )


def _headers(selected: set[Section]):
    def header(block: str) -> str:
        if block.startswith("self:"):
            return f"[SELF-REPORTED by the user · {SECTION_TITLES[Section(block[5:])]}]"
        if block.startswith("doc:"):
            return f"[DOCUMENTED (records, lab results) · {SECTION_TITLES[Section(block[4:])]}]"
        return {
            "pending": "[JUST SAID by the user, not yet processed]",
            "summary": "[SELF-REPORTED by the user · profile summary]",
            "discrepancy": "[DISCREPANCY between what the user said and the documents: name it, do not pick]",
            "clarify": "[NEEDS CLARIFICATION: conflicting statements on record]",
            "gaps": "[UNKNOWN: never discussed; ask if it matters for the answer]",
            "episodes": "[PAST CONVERSATIONS, for reference]",
        }[block]

    return header
