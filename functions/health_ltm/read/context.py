"""POST /v1/context: the right facts for this question, fast, predictable, with provenance.

query -> classes (local) -> union of sections -> the sections' memory -> status rules ->
typed blocks (read/views.py: self-reported facts and section statuses, documented facts, gaps,
clarifications, discrepancies, pending mentions of queued fragments and of a chat session's
buffered turns) ‖ episodes (kNN, only when the class needs them, in parallel, degraded never
failed; a deleted fact's left out, a changed fact's marked earlier) -> prompt within budget.
No LLM call, no semantic top-k over facts.
"""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from ..domain.fingerprint import facts_fingerprint
from ..domain.models import Fact, PendingMention, UserMemory
from ..domain.sections import (
    CRITICAL_SECTIONS,
    CURRENT_STATUSES,
    HISTORICAL_STATUSES,
    SAFETY_SECTIONS,
    SECTIONS_WITH_STATUS,
    FactStatus,
    Section,
    SectionStatus,
    Stage,
)
from ..ports import Embedder, EpisodeHit, VectorIndex
from .classify import QueryClassification
from .recency import CANDIDATES_PER_RESULT, rerank
from .render import (
    SECTION_TITLES,
    clarification_line,
    discrepancy_line,
    episode_line,
    fact_line,
    fact_view,
    gap_line,
    pending_line,
    status_line,
)
from .tokens import count_tokens, tokenizer_name
from .views import (
    ClarificationView,
    Discrepancy,
    EpisodeView,
    FactBlock,
    Gap,
    PendingMentionView,
    StatusLine,
    TokenCount,
)

GAP_QUESTIONS: dict[Section, dict[str, str]] = {
    Section.ALLERGIES: {
        "ru": "Есть ли у вас аллергия на лекарства, продукты или что-то ещё?",
        "en": "Do you have any allergies to medicines, foods or anything else?",
        "zh": "您对药物、食物或其他东西过敏吗？",
    },
    Section.CHRONIC_CONDITIONS: {
        "ru": "Есть ли у вас хронические заболевания?",
        "en": "Do you have any chronic conditions?",
        "zh": "您有慢性疾病吗？",
    },
    Section.FAMILY_HISTORY: {
        "ru": "Были ли у ваших близких родственников серьёзные заболевания (диабет, болезни сердца, рак)?",
        "en": "Have any close relatives had serious illnesses (diabetes, heart disease, cancer)?",
        "zh": "您的直系亲属是否患过严重疾病（糖尿病、心脏病、癌症）？",
    },
}
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
EPISODES_K = 5
MIN_LINE_TOKENS = 5  # the shortest fact line and its newline: below this nothing more fits
# A fact's write lands moments after the words it came from; a fact changed later than this after
# an episode was said (or by a later fragment) makes that episode an "earlier conversation".
SETTLE = timedelta(minutes=10)


def query_language(query: str) -> str:
    """The language a gap question is asked in: by the query's script (CJK, Cyrillic, else en)."""
    if _CJK.search(query):
        return "zh"
    return "ru" if _CYRILLIC.search(query) else "en"


@dataclass
class ContextResult:
    query_classes: list[str]
    sections: list[str]
    history_intent: bool
    self_reported: list[FactBlock]
    documented: list[FactBlock]
    discrepancies: list[Discrepancy]
    gaps: list[Gap]
    clarifications: list[ClarificationView]
    pending: list[PendingMentionView]
    episodes: list[EpisodeView]
    episodes_status: str
    prompt: str
    tokens: TokenCount
    statuses: list[StatusLine] = field(default_factory=list)
    fact_ids: list[str] = field(default_factory=list)
    episode_ids: list[str] = field(default_factory=list)  # for the retrieval statistics


@dataclass
class PromptParts:
    """Everything but the facts that a prompt may carry, as typed views."""

    statuses: Sequence[StatusLine] = ()
    gaps: Sequence[Gap] = ()
    clarifications: Sequence[ClarificationView] = ()
    pending: Sequence[PendingMentionView] = ()
    discrepancies: Sequence[Discrepancy] = ()
    episodes: Sequence[EpisodeView] = ()


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
    unprocessed: Sequence[PendingMention] = (),
) -> ContextResult:
    """``unprocessed``: mentions not stored as pending yet (a chat session's buffered turns,
    ``chat.sessions.buffer_mentions``); one that a stored pending mention has taken over (same
    fragment id: the buffer was flushed) is shown once."""
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
    pending = _pending(memory.pending, unprocessed, selected)
    statuses = _statuses(memory, sections)
    gaps = _gaps(memory, selected, pending, query_language(query))
    clarifications = [
        ClarificationView(id=c.id, section=c.section, reason=c.reason, current=c.current, proposed=c.proposed)
        for c in memory.clarifications
        if c.section in selected
    ]
    discrepancies = _discrepancies(memory, selected, history)

    episodes: list[EpisodeView] = []
    episode_ids: list[str] = []
    episodes_status = "skipped"
    if future is not None:
        try:
            hits = future.result(timeout=episode_timeout_s)
            kept = _episodes(hits, memory)
            episodes = [view for _, view in kept]
            episode_ids = [hit.episode_id for hit, _ in kept]
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
    prompt, used_fact_ids = render(
        memory,
        selected,
        history,
        PromptParts(statuses, gaps, clarifications, pending, discrepancies, episodes),
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
        tokens=TokenCount(
            prompt=count_tokens(prompt) if prompt else 0, budget=max_tokens, counter=tokenizer_name()
        ),
        statuses=statuses,
        fact_ids=used_fact_ids,
        episode_ids=episode_ids,
    )


def _blocks(facts: Sequence[Fact], order: Sequence[Section]) -> list[FactBlock]:
    by_section: dict[Section, list[Fact]] = {}
    for fact in facts:
        by_section.setdefault(fact.section, []).append(fact)
    return [
        FactBlock(section=s, facts=[fact_view(f) for f in _ordered(by_section[s])])
        for s in order
        if s in by_section
    ]


def _ordered(facts: Sequence[Fact]) -> list[Fact]:
    # Current before historical, then most recently confirmed first.
    return sorted(facts, key=lambda f: (f.status in HISTORICAL_STATUSES, -f.last_confirmed_at.timestamp()))


def _pending(
    stored: Sequence[PendingMention], unprocessed: Sequence[PendingMention], selected: set[Section]
) -> list[PendingMentionView]:
    """Stored mentions (queued fragments) and a chat buffer's, once each by fragment id."""
    views: dict[str, PendingMentionView] = {}
    sources: tuple[tuple[Literal["fragment", "chat_session"], Sequence[PendingMention]], ...] = (
        ("fragment", stored),
        ("chat_session", unprocessed),
    )
    for source, mentions in sources:
        for p in mentions:
            if p.fragment_id in views or not selected.intersection(p.sections):
                continue
            views[p.fragment_id] = PendingMentionView(
                fragment_id=p.fragment_id,
                sections=list(p.sections),
                text=p.text,
                received_at=p.received_at,
                source=source,
            )
    return sorted(views.values(), key=lambda v: (v.received_at, v.fragment_id))


def _statuses(memory: UserMemory, sections: Sequence[Section]) -> list[StatusLine]:
    """A section the user said has none, or that they do not know: one line, never a gap. Not
    where a current fact of the section contradicts it (that is a clarification or a discrepancy)."""
    lines: list[StatusLine] = []
    for section in sections:
        state = memory.sections.get(section)
        if section not in SECTIONS_WITH_STATUS or state is None:
            continue
        status: Literal[SectionStatus.CONFIRMED_ABSENT, SectionStatus.UNSURE]
        if state.status is SectionStatus.CONFIRMED_ABSENT:
            status = SectionStatus.CONFIRMED_ABSENT
        elif state.status is SectionStatus.UNSURE:
            status = SectionStatus.UNSURE
        else:
            continue
        if any(
            f.section is section and visible(f, False) and f.status is not FactStatus.ABSENT
            for f in memory.facts
        ):
            continue
        lines.append(
            StatusLine(
                section=section,
                status=status,
                since=state.updated_at.date() if state.updated_at else None,
            )
        )
    return lines


def _gaps(
    memory: UserMemory, selected: set[Section], pending: Sequence[PendingMentionView], language: str
) -> list[Gap]:
    """Critical sections never discussed: no status, no fact, and nothing just said about them."""
    just_said = {s for p in pending for s in p.sections}
    return [
        Gap(section=s, suggested_question=GAP_QUESTIONS[s][language])
        for s in CRITICAL_SECTIONS
        if s in selected
        and s not in just_said
        and memory.section_status(s) is SectionStatus.UNKNOWN
        and not any(f.section is s and not f.is_deleted for f in memory.facts)
    ]


def _episodes(hits: Sequence[EpisodeHit], memory: UserMemory) -> list[tuple[EpisodeHit, EpisodeView]]:
    """Episodes as the facts now stand. One that carries a deleted fact's words is left out (a
    backstop: DELETE /v1/facts removes those episodes, read/profile.py); one that a fact it
    speaks about changed since (a correction, an edit, a later mention) is an earlier conversation."""
    forgotten: set[str] = set()
    superseded: set[str] = set()  # a later fragment spoke about the same fact
    changed_at: dict[str, datetime] = {}  # the fact's newest fragment -> when the fact last changed
    for fact in memory.facts + memory.documented:
        if fact.is_deleted:
            forgotten.update(fact.source_fragment_ids)
        elif fact.source_fragment_ids:
            *older, newest = fact.source_fragment_ids
            superseded.update(older)
            changed_at[newest] = max(changed_at.get(newest, fact.last_confirmed_at), fact.last_confirmed_at)
    kept: list[tuple[EpisodeHit, EpisodeView]] = []
    for hit in hits:
        if hit.episode_id in forgotten:
            continue
        changed = changed_at.get(hit.episode_id)
        earlier = hit.episode_id in superseded or (changed is not None and changed > hit.at + SETTLE)
        kept.append((hit, EpisodeView(text=hit.text, at=hit.at, score=round(hit.score, 4), earlier=earlier)))
    return kept


def _discrepancies(memory: UserMemory, selected: set[Section], history: bool) -> list[Discrepancy]:
    """Self-reported and documented data that disagree. Both stay; code picks no winner."""
    found: list[Discrepancy] = []
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
                Discrepancy(
                    section=doc.section,
                    self_reported=own.status.value,
                    documented=doc.status.value,
                    name=doc.name_normalized,
                )
            )
        elif own is None and memory.section_status(doc.section) is SectionStatus.CONFIRMED_ABSENT:
            found.append(
                Discrepancy(
                    section=doc.section,
                    self_reported="confirmed_absent",
                    documented=doc.status.value,
                    name=doc.name_normalized,
                )
            )
    return found


# (priority: lower is kept first, recency: lower first, block, what to write, fact id)
_Item = tuple[int, float, str, "Fact | StatusLine | PendingMentionView | EpisodeView | str", "str | None"]


def render_prompt(
    memory: UserMemory,
    selected: set[Section],
    history: bool,
    gaps: Sequence[Gap],
    clarifications: Sequence[ClarificationView],
    pending: Sequence[PendingMentionView],
    discrepancies: Sequence[Discrepancy],
    episodes: Sequence[EpisodeView],
    budget: int,
    summary: str | None = None,
) -> tuple[str, list[str]]:
    """The positional form the benchmarks call (bench/read_path.py, bench/context_size.py)."""
    return render(
        memory,
        selected,
        history,
        PromptParts((), gaps, clarifications, pending, discrepancies, episodes),
        budget,
        summary,
    )


def render(
    memory: UserMemory,
    selected: set[Section],
    history: bool,
    parts: PromptParts,
    budget: int,
    summary: str | None = None,
) -> tuple[str, list[str]]:
    """Fill the budget in priority order, newest first within a priority, a block's lines taking
    turns with the other blocks of that priority; safety constraints are the last to go. Lines
    are formatted and counted lazily, and filling stops once no line can fit, so a long profile
    costs what the budget holds, not what the profile holds."""
    items: list[_Item] = []
    if summary:  # it stands for the self-reported facts, in its own order
        items.extend((0, float(i), "summary", line, None) for i, line in enumerate(summary.splitlines()))
    for fact in [] if summary else memory.facts:
        if fact.section in selected and visible(fact, history):
            priority = 0 if fact.section in SAFETY_SECTIONS and fact.status not in HISTORICAL_STATUSES else 2
            items.append(
                (priority, -fact.last_confirmed_at.timestamp(), f"self:{fact.section.value}", fact, fact.id)
            )
    for status in parts.statuses:  # what the user said about the whole section, first in its block
        priority = 0 if status.section in SAFETY_SECTIONS or status.section in CRITICAL_SECTIONS else 2
        items.append((priority, float("-inf"), f"self:{status.section.value}", status, None))
    for fact in memory.documented:
        if fact.section in selected and visible(fact, history):
            priority = 1 if fact.section in SAFETY_SECTIONS else 3
            items.append(
                (priority, -fact.last_confirmed_at.timestamp(), f"doc:{fact.section.value}", fact, fact.id)
            )
    items.extend((0, 0.0, "pending", p, None) for p in parts.pending)
    items.extend((0, 0.0, "discrepancy", discrepancy_line(d), None) for d in parts.discrepancies)
    items.extend((1, 0.0, "clarify", clarification_line(c), None) for c in parts.clarifications)
    items.extend((1, 0.0, "gaps", gap_line(g), None) for g in parts.gaps)
    items.extend((4, 0.0, "episodes", e, None) for e in parts.episodes)
    if not items:
        return "", []

    headers = _headers(selected)
    kept: dict[str, list[tuple[str, str | None]]] = {}
    named: dict[str, object] = {}  # per block: a day or a document is named once for a run of lines
    used = 0
    for _priority, _rank, _recency, block, content, fact_id in _fill_order(items):
        if budget - used < MIN_LINE_TOKENS:
            break
        line, names = _line(content, named.get(block))
        cost = count_tokens(line) + 1
        header_cost = 0 if block in kept else count_tokens(headers(block)) + 1
        if used + cost + header_cost > budget:
            continue
        kept.setdefault(block, []).append((line, fact_id))
        if names is not None:
            named[block] = names
        used += cost + header_cost
    lines: list[str] = []
    fact_ids: list[str] = []
    for block in _block_order(selected):
        if block in kept:
            lines.append(headers(block))
            lines.extend(line for line, _ in kept[block])
            fact_ids.extend(fact_id for _, fact_id in kept[block] if fact_id)
    return "\n".join(lines), fact_ids


def _fill_order(items: list[_Item]) -> list[tuple[int, int, float, str, Any, str | None]]:
    """By priority, then round robin over the blocks of a priority (each block's newest line, then
    each one's second, ...), so a tight budget keeps every safety section, not one section's many."""
    ranked: list[tuple[int, int, float, str, Any, str | None]] = []
    seen: dict[tuple[int, str], int] = {}
    for priority, recency, block, content, fact_id in sorted(items, key=lambda i: (i[0], i[1])):
        rank = seen.get((priority, block), 0)
        seen[(priority, block)] = rank + 1
        ranked.append((priority, rank, recency, block, content, fact_id))
    return sorted(ranked, key=lambda i: (i[0], i[1], i[2]))


def _line(
    content: Fact | StatusLine | PendingMentionView | EpisodeView | str, previous: object
) -> tuple[str, object]:
    """The line for one item, and what it named that the next line of its block need not repeat:
    the day of a pending mention or an episode, the document of a documented fact."""
    if isinstance(content, Fact):
        if not content.document_id:
            return fact_line(content), None
        source = (content.document_id, content.source_type, content.document_date)
        return fact_line(content, with_source=source != previous), source
    if isinstance(content, StatusLine):
        return status_line(content), None
    if isinstance(content, PendingMentionView):
        day = content.received_at.date()
        return pending_line(content, with_date=day != previous), day
    if isinstance(content, EpisodeView):
        day = content.at.date()
        return episode_line(content, with_date=day != previous), day
    return content, None


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
