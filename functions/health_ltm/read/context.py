"""POST /v1/context: the right facts for this question, fast, predictable, with provenance.

query -> classes (local) -> union of sections -> the sections' memory -> status rules ->
typed blocks (read/views.py: self-reported facts and section statuses, documented facts, gaps,
clarifications, discrepancies, pending mentions of queued fragments and of a chat session's
buffered turns) ‖ episodes (kNN, only when the class needs them, in parallel, degraded never
failed; a deleted fact's left out, a changed fact's marked earlier) -> prompt within budget.
No LLM call, no semantic top-k over facts.

Cost follows the budget, not the profile: one pass over the loaded facts sorts out what is visible
(and which sections have a fact, for statuses and gaps); prompt lines are formatted and counted
lazily in fill order and filling stops when the budget is full; the self-reported and documented
blocks list the facts the prompt carries (when the profile summary stands for them, those a
prompt of facts would carry), not every fact on record (issue 12).
"""

from __future__ import annotations

import concurrent.futures
import heapq
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Literal

from ..domain.fingerprint import facts_fingerprint
from ..domain.models import EndedFact, Fact, PendingMention, UserMemory
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
from ..domain.text import CJK
from ..ports import ContextStore, Embedder, EpisodeHit, VectorIndex
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
EPISODES_K = 5
MIN_LINE_TOKENS = 5  # the shortest fact line and its newline: below this nothing more fits
# Lines that did not fit, after which filling stops (the first line of every priority-0 block is
# tried whatever): a full budget's tail is not searched line by line through a long profile.
MAX_MISSES = 64
# A fact's write lands moments after the words it came from; a fact changed later than this after
# an episode was said (or by a later fragment) makes that episode an "earlier conversation".
SETTLE = timedelta(minutes=10)


def query_language(query: str) -> str:
    """The language a gap question is asked in: by the query's script (CJK, Cyrillic, else en)."""
    if CJK.search(query):
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
    current_state: list[str] = field(default_factory=list)  # sections read as their current state


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
    repository: ContextStore,
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
    future = None  # started first: the search runs while the memory is read
    if classification.needs_episodes and embedder is not None and vector_index is not None:
        future = _episode_pool().submit(
            _search_episodes, embedder, vector_index, user_id, query, EPISODES_K, now
        )
    history = classification.history_intent
    # A question about the present reads ended facts in brief only (what was discussed, which
    # conversations they came from); a history question reads them whole. Sections that ride
    # along only for what is current (a drug question's allergies) are read as their lines.
    memory: UserMemory = (
        repository.load_memory(user_id, sections, ended=history, current_state=classification.current_state)
        if sections
        else UserMemory()
    )

    selected = set(sections)
    scan = _scan(memory, selected, history)  # one pass over the loaded facts
    pending = _pending(memory.pending, unprocessed, selected)
    statuses = _statuses(memory, sections, scan, {s for p in pending for s in p.sections})
    gaps = _gaps(memory, selected, pending, query_language(query), scan)
    clarifications = _clarifications(memory, selected)
    discrepancies = _discrepancies(memory, selected, history, scan)
    episodes, episode_ids, episodes_status = _await_episodes(future, episode_timeout_s, memory)
    summary = _summary(memory, classification)
    parts = PromptParts(statuses, gaps, clarifications, pending, discrepancies, episodes)
    prompt, used_fact_ids, in_prompt = _render(memory, selected, history, parts, max_tokens, summary, scan)
    if summary:  # the summary stands for the facts: the blocks list those a prompt of facts holds
        in_prompt = {**_render(memory, selected, history, parts, max_tokens, None, scan)[2], **in_prompt}
    # The blocks are the prompt's facts as typed views (what the budget held, not the whole record).
    self_reported = _blocks(in_prompt, "self:", sections)
    documented = _blocks(in_prompt, "doc:", sections)
    return ContextResult(
        query_classes=list(classification.classes),
        sections=[s.value for s in sections],
        current_state=[s.value for s in classification.current_state if s in selected],
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


def _clarifications(memory: UserMemory, selected: set[Section]) -> list[ClarificationView]:
    return [
        ClarificationView(id=c.id, section=c.section, reason=c.reason, current=c.current, proposed=c.proposed)
        for c in memory.clarifications
        if c.section in selected
    ]


def _await_episodes(
    future: concurrent.futures.Future[list[EpisodeHit]] | None, timeout_s: float, memory: UserMemory
) -> tuple[list[EpisodeView], list[str], str]:
    """The search's episodes, their ids and the status: within the time left, or none (the
    context never waits longer for episodes than ``timeout_s``)."""
    if future is None:
        return [], [], "skipped"
    try:
        kept = _episodes(future.result(timeout=timeout_s), memory)
    except Exception:
        future.cancel()
        return [], [], "unavailable"
    return [view for _, view in kept], [hit.episode_id for hit, _ in kept], "ok"


def _summary(memory: UserMemory, classification: QueryClassification) -> str | None:
    """A general question gets the compact profile summary, if it still describes these facts."""
    if not (classification.prefers_summary and memory.summary):
        return None
    fresh = memory.summary_fingerprint == facts_fingerprint([*memory.facts, *memory.ended])
    return memory.summary if fresh else None


# One line to be: (recency: lower first, insertion index: unique, what to write, fact id). Ties
# in recency fall back to the index: the order items were always listed in (summary lines,
# self-reported facts in memory order, section statuses, documented facts, the other blocks).
_Entry = tuple[float, int, Any, "str | None"]


@dataclass
class _Scan:
    """One pass over the loaded facts: what the read path asks of them. Facts keep their place in
    the memory (``index``: ties in the fill order fall back to it, as they always did)."""

    # Visible facts of the selected sections as fill entries: (recency, index, fact, fact id).
    own: dict[Section, list[_Entry]]
    documented: dict[Section, list[_Entry]]
    stated: set[Section]  # a current fact that is not "absent": a section status gives way to it
    discussed: set[Section]  # a fact not deleted, whatever its stage: not a gap
    # The visible documented facts, and per (section, key) of one of them the first self-reported
    # fact or brief on record (deleted too): what a discrepancy compares.
    documents: list[Fact] = field(default_factory=list)
    own_by_key: dict[tuple[Section, str], Fact | EndedFact] = field(default_factory=dict)


def _scan(memory: UserMemory, selected: set[Section], history: bool) -> _Scan:
    documents: list[Fact] = []
    documented: dict[Section, list[_Entry]] = {}
    offset = len(memory.facts) + len(memory.sections) + 1  # after the facts and status lines
    for index, doc in enumerate(memory.documented):
        if doc.section in selected and visible(doc, history):
            documents.append(doc)
            documented.setdefault(doc.section, []).append(
                (-doc.last_confirmed_at.timestamp(), offset + index, doc, doc.id)
            )
    # Per key of a document, the sections whose first self-reported fact is still to be found.
    unmatched: dict[str, set[Section]] = {}
    for doc in documents:
        unmatched.setdefault(doc.key, set()).add(doc.section)
    own_by_key: dict[tuple[Section, str], Fact | EndedFact] = {}
    own: dict[Section, list[_Entry]] = {}
    stated: set[Section] = set()
    discussed: set[Section] = set()
    shown = (Stage.ACTIVE, Stage.STABLE)
    current, historical = CURRENT_STATUSES, HISTORICAL_STATUSES if history else frozenset()
    absent = FactStatus.ABSENT
    for index, fact in enumerate(memory.facts):
        if unmatched and fact.key in unmatched:
            _match(unmatched, own_by_key, fact)
        if fact.deleted_at is not None:
            continue
        section = fact.section
        discussed.add(section)
        if fact.stage not in shown:
            continue
        status = fact.status
        if status in current:
            if status is not absent:
                stated.add(section)
        elif status not in historical:
            continue
        if section in selected:
            own.setdefault(section, []).append((-fact.last_confirmed_at.timestamp(), index, fact, fact.id))
    offset += len(memory.documented)
    for index, brief in enumerate(memory.ended):
        if unmatched and brief.key in unmatched:
            _match(unmatched, own_by_key, brief)
        if not brief.deleted:
            discussed.add(brief.section)
        # A drug stopped for what it did is shown to a question about the present as well.
        if brief.stop_reason and brief.section in selected and brief.stage in shown:
            line = brief.as_line()
            if line is not None:
                entry = (-brief.last_confirmed_at.timestamp(), offset + index, line, brief.id)
                own.setdefault(brief.section, []).append(entry)
    return _Scan(own, documented, stated, discussed, documents, own_by_key)


def _match(
    unmatched: dict[str, set[Section]],
    found: dict[tuple[Section, str], Fact | EndedFact],
    fact: Fact | EndedFact,
) -> None:
    """``fact`` is the first of its (section, key) a document waits for: found, no longer waited for."""
    sections = unmatched[fact.key]
    if fact.section in sections:
        found[(fact.section, fact.key)] = fact
        sections.discard(fact.section)
        if not sections:
            del unmatched[fact.key]


def _blocks(kept: dict[str, list[Fact]], prefix: str, order: Sequence[Section]) -> list[FactBlock]:
    """The facts the prompt carries, by section in the question's order (current first, newest
    first), as typed views: a block lists what the budget held, not every fact on record."""
    return [
        FactBlock(section=s, facts=[fact_view(f) for f in _ordered(kept[f"{prefix}{s.value}"])])
        for s in order
        if f"{prefix}{s.value}" in kept
    ]


def _ordered(facts: Sequence[Fact]) -> list[Fact]:
    # Current before historical, then most recently confirmed first.
    return sorted(facts, key=lambda f: (f.status in HISTORICAL_STATUSES, -f.last_confirmed_at.timestamp()))


def _pending(
    stored: Sequence[PendingMention], unprocessed: Sequence[PendingMention], selected: set[Section]
) -> list[PendingMentionView]:
    """Stored mentions (queued fragments) and a chat buffer's, once each by fragment id."""
    views: dict[str, PendingMentionView] = {}
    for p in (*stored, *(m.model_copy(update={"source": "chat_session"}) for m in unprocessed)):
        if p.fragment_id in views or not selected.intersection(p.sections):
            continue
        views[p.fragment_id] = PendingMentionView(
            fragment_id=p.fragment_id,
            sections=list(p.sections),
            text=p.text,
            received_at=p.received_at,
            source=p.source,
        )
    return sorted(views.values(), key=lambda v: (v.received_at, v.fragment_id))


def _statuses(
    memory: UserMemory,
    sections: Sequence[Section],
    scan: _Scan | None = None,
    just_said: set[Section] | frozenset[Section] = frozenset(),
) -> list[StatusLine]:
    """A section the user said has none, or that they do not know, or whose every fact ended: one
    line, never a gap. Not where a current fact of the section contradicts it (that is a
    clarification or a discrepancy), nor where something just said about it waits to be processed
    (``just_said``)."""
    lines: list[StatusLine] = []
    scan = scan or _scan(memory, set(sections), False)
    ended = _ended_counts(memory, scan)
    for section in sections:
        if section in scan.stated or section in just_said:
            continue  # a fresh mention ("I'm allergic to penicillin") outdates "none known"
        state = memory.sections.get(section)
        said = state.status if state is not None and section in SECTIONS_WITH_STATUS else None
        if state is not None and said in _SAID_OF_A_WHOLE_SECTION:
            since = state.updated_at.date() if state.updated_at else None
            lines.append(StatusLine(section=section, status=_SAID_OF_A_WHOLE_SECTION[said], since=since))
        elif ended.get(section):
            # "I stopped the amlodipine", nothing taken now: the model must not read "never discussed"
            lines.append(StatusLine(section=section, status=SectionStatus.PRESENT, ended=ended[section]))
    return lines


_SAID_OF_A_WHOLE_SECTION: dict[
    SectionStatus, Literal[SectionStatus.CONFIRMED_ABSENT, SectionStatus.UNSURE]
] = {
    SectionStatus.CONFIRMED_ABSENT: SectionStatus.CONFIRMED_ABSENT,
    SectionStatus.UNSURE: SectionStatus.UNSURE,
}


def _ended_counts(memory: UserMemory, scan: _Scan) -> dict[Section, int]:
    """Per section with nothing of it shown, how many of its facts ended (stopped, resolved): the
    briefs a question about the present loads instead of the whole ended facts, in one pass."""
    counts: dict[Section, int] = {}
    for brief in memory.ended:
        if scan.own.get(brief.section):
            continue  # something of it is shown (a drug stopped for what it did is)
        if (
            brief.deleted
            or brief.stage not in (Stage.ACTIVE, Stage.STABLE)
            or brief.status not in HISTORICAL_STATUSES
        ):
            continue
        counts[brief.section] = counts.get(brief.section, 0) + 1
    return counts


def _gaps(
    memory: UserMemory,
    selected: set[Section],
    pending: Sequence[PendingMentionView],
    language: str,
    scan: _Scan | None = None,
) -> list[Gap]:
    """Critical sections never discussed: no status, no fact, and nothing just said about them."""
    just_said = {s for p in pending for s in p.sections}
    discussed = (scan or _scan(memory, selected, False)).discussed
    return [
        Gap(section=s, suggested_question=GAP_QUESTIONS[s][language])
        for s in CRITICAL_SECTIONS
        if s in selected
        and s not in just_said
        and memory.section_status(s) is SectionStatus.UNKNOWN
        and s not in discussed
    ]


def _episodes(hits: Sequence[EpisodeHit], memory: UserMemory) -> list[tuple[EpisodeHit, EpisodeView]]:
    """Episodes as the facts now stand. One that carries a deleted fact's words is left out (a
    backstop: DELETE /v1/facts removes those episodes, read/profile.py); one that a fact it
    speaks about changed since (a correction, an edit, a later mention) is an earlier conversation.
    Only the facts that speak about one of the hits are looked at (a set test per fact)."""
    if not hits:
        return []
    found = {hit.episode_id for hit in hits}
    forgotten: set[str] = set()
    superseded: set[str] = set()  # a later fragment spoke about the same fact
    changed_at: dict[str, datetime] = {}  # the fact's newest fragment -> when the fact last changed
    for facts in (memory.facts, memory.documented, memory.ended):
        for fact in facts:
            sources = fact.source_fragment_ids
            if not sources or found.isdisjoint(sources):
                continue
            if fact.is_deleted:
                forgotten.update(sources)
            else:
                *older, newest = sources
                superseded.update(older)
                changed_at[newest] = max(
                    changed_at.get(newest, fact.last_confirmed_at), fact.last_confirmed_at
                )
    kept: list[tuple[EpisodeHit, EpisodeView]] = []
    for hit in hits:
        if hit.episode_id in forgotten:
            continue
        changed = changed_at.get(hit.episode_id)
        earlier = hit.episode_id in superseded or (changed is not None and changed > hit.at + SETTLE)
        kept.append((hit, EpisodeView(text=hit.text, at=hit.at, score=round(hit.score, 4), earlier=earlier)))
    return kept


def _discrepancies(
    memory: UserMemory, selected: set[Section], history: bool, scan: _Scan | None = None
) -> list[Discrepancy]:
    """Self-reported and documented data that disagree. Both stay; code picks no winner.
    Each documented fact meets the first self-reported fact of its (section, key), found by the scan."""
    scan = scan or _scan(memory, selected, history)
    docs, own_by_key = scan.documents, scan.own_by_key
    found: list[Discrepancy] = []
    for doc in docs:
        own = own_by_key.get((doc.section, doc.key))
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
    are formatted and counted lazily, in fill order (a heap per block), and filling stops once
    no line can fit, so a long profile costs what the budget holds, not what the profile holds."""
    prompt, fact_ids, _ = _render(memory, selected, history, parts, budget, summary)
    return prompt, fact_ids


def _render(
    memory: UserMemory,
    selected: set[Section],
    history: bool,
    parts: PromptParts,
    budget: int,
    summary: str | None = None,
    scan: _Scan | None = None,
) -> tuple[str, list[str], dict[str, list[Fact]]]:
    """The prompt, the ids of the facts in it, and those facts by block."""
    scan = scan or _scan(memory, selected, history)
    groups: dict[tuple[int, str], list[_Entry]] = {}

    def add(priority: int, block: str, recency: float, index: int, content: Any, fact_id: str | None) -> None:
        groups.setdefault((priority, block), []).append((recency, index, content, fact_id))

    # (The summary and the facts never share a prompt, so their indices may overlap.)
    if summary:  # it stands for the self-reported facts, in its own order
        for i, line in enumerate(summary.splitlines()):
            add(0, "summary", float(i), i, line, None)
    else:
        for section, entries in scan.own.items():
            block = f"self:{section.value}"
            if section in SAFETY_SECTIONS and not history:  # the scan kept current facts only
                groups[(0, block)] = list(entries)  # copied: the fill heapifies it in place
            elif section in SAFETY_SECTIONS:  # a historical safety fact is not a constraint now
                current = [e for e in entries if e[2].status not in HISTORICAL_STATUSES]
                if current:
                    groups[(0, block)] = current
                if len(current) < len(entries):
                    groups[(2, block)] = [e for e in entries if e[2].status in HISTORICAL_STATUSES]
            else:
                groups[(2, block)] = list(entries)  # copied: the fill heapifies it in place
    base = len(memory.facts)
    for i, status in enumerate(parts.statuses):  # what the user said about the whole section: first
        priority = 0 if status.section in SAFETY_SECTIONS or status.section in CRITICAL_SECTIONS else 2
        add(priority, f"self:{status.section.value}", float("-inf"), base + i, status, None)
    for section, entries in scan.documented.items():
        groups[(1 if section in SAFETY_SECTIONS else 3, f"doc:{section.value}")] = list(entries)
    base = len(memory.facts) + len(memory.sections) + 1 + len(memory.documented) + len(parts.statuses)
    others: tuple[tuple[int, str, Sequence[Any]], ...] = (
        (0, "pending", parts.pending),
        (0, "discrepancy", [discrepancy_line(d) for d in parts.discrepancies]),
        (1, "clarify", [clarification_line(c) for c in parts.clarifications]),
        (1, "gaps", [gap_line(g) for g in parts.gaps]),
        (4, "episodes", parts.episodes),
    )
    for priority, block, contents in others:
        for i, content in enumerate(contents):
            add(priority, block, 0.0, base + i, content, None)
        base += len(contents)
    if not groups:
        return "", [], {}

    headers = _headers(selected)
    header_costs: dict[str, int] = {}
    kept: dict[str, list[tuple[str, Fact | None]]] = {}
    named: dict[str, object] = {}  # per block: a day or a document is named once for a run of lines
    used = misses = 0
    for priority, rank, block, content in _fill_order(groups):
        if budget - used < MIN_LINE_TOKENS:
            break
        if misses >= MAX_MISSES and (priority, rank) != (0, 0):
            break  # every block's first safety line has been tried; the rest would not fit either
        line, names = _line(content, named.get(block))
        cost = count_tokens(line) + 1
        header_cost = 0
        if block not in kept:
            if block not in header_costs:
                header_costs[block] = count_tokens(headers(block)) + 1
            header_cost = header_costs[block]
        if used + cost + header_cost > budget:
            misses += 1
            continue
        kept.setdefault(block, []).append((line, content if isinstance(content, Fact) else None))
        if names is not None:
            named[block] = names
        used += cost + header_cost
    lines_out: list[str] = []
    fact_ids: list[str] = []
    facts_by_block: dict[str, list[Fact]] = {}
    for block in _block_order(selected):
        if block in kept:
            lines_out.append(headers(block))
            lines_out.extend(line for line, _ in kept[block])
            facts = [fact for _, fact in kept[block] if fact is not None]
            fact_ids.extend(fact.id for fact in facts)
            if facts:
                facts_by_block[block] = facts
    return "\n".join(lines_out), fact_ids, facts_by_block


def _fill_order(groups: dict[tuple[int, str], list[_Entry]]) -> Iterator[tuple[int, int, str, Any]]:
    """By priority, then round robin over the blocks of a priority (each block's newest line, then
    each one's second, ...), so a tight budget keeps every safety section, not one section's many.
    Lazily: a heap per block, popped as the filling asks (ties: recency, then insertion order)."""
    for priority in sorted({p for p, _ in groups}):
        heaps = [(block, entries) for (p, block), entries in groups.items() if p == priority]
        for _, entries in heaps:
            heapq.heapify(entries)  # insertion indices are unique: contents are never compared
        rank = 0
        while heaps:
            heads = sorted((*heapq.heappop(entries), block) for block, entries in heaps)
            for _recency, _index, content, _fact_id, block in heads:
                yield priority, rank, block, content
            heaps = [(block, entries) for block, entries in heaps if entries]
            rank += 1


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
            "clarify": "[NEEDS CLARIFICATION: ask the user before relying on these]",
            "gaps": "[UNKNOWN: never discussed; ask if it matters for the answer]",
            "episodes": "[PAST CONVERSATIONS, for reference]",
        }[block]

    return header
