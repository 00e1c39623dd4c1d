"""Code decides what happened: first mention, reconfirmation, change, negation, correction.

Pure functions over the current state; the model never chooses IDs, times or event types.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .candidates import Candidate
from .models import (
    AssertionKind,
    Clarification,
    EventType,
    EvidenceKind,
    Fact,
    HistoryEvent,
    SectionState,
)
from .sections import (
    ENDING_STATUSES,
    SECTIONS_WITH_STATUS,
    FactStatus,
    Section,
    SectionStatus,
    Stage,
    active_at_first_mention,
    resists_one_off_contradiction,
)

# Single-valued attributes whose change is implausible without an explicit correction.
IMPLAUSIBLE_CHANGES: dict[str, Callable[[Any, Any], bool]] = {
    # Ageing moves a reported age by one year at most between two statements of birth year.
    "birth_year": lambda old, new: abs(int(new) - int(old)) > 1,
    "sex": lambda old, new: old != new,
}

# A one-off contradiction of a stable preference-type fact, held until a second mention.
CONTRADICTS_STABLE_FACT = "contradicts_stable_fact"

# Statuses that mean "this is true now" for the section-level conflict check.
_PRESENT_STATUSES = frozenset({FactStatus.PRESENT, FactStatus.ACTIVE, FactStatus.PRESCRIBED})


@dataclass(frozen=True)
class DecisionContext:
    now: datetime
    new_id: Callable[[], str]
    fragment_id: str | None = None
    session_id: str | None = None
    extractor: str | None = None


@dataclass
class FactDecision:
    fact: Fact
    event: HistoryEvent
    expected_version: int | None  # None: a new fact
    resolves: list[str] = field(default_factory=list)  # clarification ids this settles


@dataclass
class SectionDecision:
    state: SectionState
    event: HistoryEvent
    expected_version: int


@dataclass
class Decision:
    """The outcome of one candidate. Empty when nothing changes (e.g. a same-fragment repeat)."""

    fact: FactDecision | None = None
    section: SectionDecision | None = None
    clarification: Clarification | None = None
    noop_reason: str | None = None


def snapshot(fact: Fact) -> dict[str, Any]:
    """The part of a fact that history records before/after each event."""
    return {
        "name_raw": fact.name_raw,
        "name_normalized": fact.name_normalized,
        "key": fact.key,
        "code": fact.code,
        "status": fact.status.value,
        "stage": fact.stage.value,
        "attributes": dict(fact.attributes),
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "deleted": fact.deleted_at is not None,
    }


def is_current(fact: Fact) -> bool:
    return (
        fact.deleted_at is None
        and fact.stage in (Stage.ACTIVE, Stage.STABLE)
        and fact.status in _PRESENT_STATUSES
    )


def _event(
    ctx: DecisionContext, fact_id: str, type_: EventType, before: dict | None, after: dict | None
) -> HistoryEvent:
    return HistoryEvent(
        id=ctx.new_id(),
        fact_id=fact_id,
        type=type_,
        at=ctx.now,
        before=before,
        after=after,
        fragment_id=ctx.fragment_id,
        session_id=ctx.session_id,
        extractor=ctx.extractor,
    )


def _with_session(ids: list[str], session_id: str | None, cap: int = 20) -> list[str]:
    if not session_id or session_id in ids:
        return ids
    return [*ids, session_id][-cap:]


def _with_fragment(ids: list[str], fragment_id: str | None, cap: int = 20) -> list[str]:
    if not fragment_id or fragment_id in ids:
        return ids
    return [*ids, fragment_id][-cap:]


def decide(
    candidate: Candidate,
    existing: Fact | None,
    section_state: SectionState,
    section_facts: Iterable[Fact],
    pending: Iterable[Clarification],
    ctx: DecisionContext,
) -> Decision:
    """Match one candidate against the stored state and decide the transition."""
    if candidate.kind is AssertionKind.FACT:
        return _decide_fact(candidate, existing, section_state, pending, ctx)
    return _decide_section(candidate, section_state, section_facts, ctx)


# A symptom or an acute illness on record that the user now denies has ended; a denial that puts a
# mistake right comes as a correction and says absent.
_OVER_WHEN_DENIED = frozenset({Section.SYMPTOMS, Section.REPORTED_DIAGNOSES})


def _decide_fact(
    candidate: Candidate,
    existing: Fact | None,
    section_state: SectionState,
    pending: Iterable[Clarification],
    ctx: DecisionContext,
) -> Decision:
    if existing is None:
        return _first_mention(
            candidate, candidate.status or _default_status(candidate.section), section_state, ctx
        )
    # a change that says no status ("correction: it was 850 mg, not 500") keeps the fact's own
    status = candidate.status or existing.status
    if (
        status is FactStatus.ABSENT
        and existing.status is FactStatus.PRESENT
        and existing.section in _OVER_WHEN_DENIED
        and existing.deleted_at is None
        and not candidate.correction
    ):
        status = FactStatus.RESOLVED  # "fever 38" ... "no fever now": it was there and is over

    if existing.source_fragment_ids and ctx.fragment_id in existing.source_fragment_ids:
        same = existing.status == status and _attributes_after(existing, candidate) == existing.attributes
        if same and not (candidate.remember and existing.stage is Stage.CANDIDATE):
            # A repeat inside one fragment (or its redelivery) is not a second mention; an
            # explicit "remember" in the same message still makes the candidate active.
            return Decision(noop_reason="same_fragment_repeat")

    before = snapshot(existing)
    new_attributes = _attributes_after(existing, candidate)
    if existing.deleted_at is None and not candidate.correction:
        implausible = _implausible_change(existing.attributes, new_attributes)
        if implausible:
            return Decision(
                clarification=Clarification(
                    id=ctx.new_id(),
                    section=candidate.section,
                    fact_id=existing.id,
                    reason=f"implausible_change:{implausible}",
                    current={implausible: existing.attributes.get(implausible)},
                    proposed={implausible: new_attributes.get(implausible)},
                    created_at=ctx.now,
                    fragment_id=ctx.fragment_id,
                )
            )

    pending = list(pending)
    settled: list[str] = []  # pending contradictions this candidate settles
    if existing.deleted_at is None and not candidate.correction:
        held = _stable_contradiction(candidate, existing, status, new_attributes, pending, ctx)
        if isinstance(held, Decision):
            return held
        settled = held

    changed = bool(
        status != existing.status
        or new_attributes != existing.attributes
        or existing.deleted_at is not None
        or (candidate.valid_from and candidate.valid_from != existing.valid_from)
        or (candidate.valid_to and candidate.valid_to != existing.valid_to)
    )
    stage = _stage_after(existing, candidate, changed, ctx)
    updated = existing.model_copy(
        update={
            "status": status,
            "stage": stage,
            "attributes": new_attributes,
            "name_raw": candidate.name_raw if changed else existing.name_raw,
            "valid_from": candidate.valid_from or existing.valid_from,
            "valid_to": candidate.valid_to or (None if status not in ENDING_STATUSES else existing.valid_to),
            "code": existing.code or candidate.code,
            # Said in the user's own words once is enough to stop leaning on a question.
            **_provenance_after(existing, candidate),
            "deleted_at": None,
            "last_confirmed_at": ctx.now,
            "mention_count": existing.mention_count + 1,
            "session_ids": _with_session(existing.session_ids, ctx.session_id),
            "source_fragment_ids": _with_fragment(existing.source_fragment_ids, ctx.fragment_id),
            "version": existing.version + 1,
        }
    )
    if candidate.correction:
        event_type = EventType.CORRECTION
    elif not changed:
        event_type = EventType.RECONFIRMATION
    elif status in ENDING_STATUSES and status != existing.status:
        event_type = EventType.NEGATION
    else:
        event_type = EventType.CHANGE
    resolves = [c.id for c in pending if c.fact_id == existing.id] if candidate.correction else settled
    return Decision(
        fact=FactDecision(
            fact=updated,
            event=_event(ctx, existing.id, event_type, before, snapshot(updated)),
            expected_version=existing.version,
            resolves=resolves,
        )
    )


def _stable_contradiction(
    candidate: Candidate,
    existing: Fact,
    status: FactStatus,
    new_attributes: dict[str, Any],
    pending: list[Clarification],
    ctx: DecisionContext,
) -> Decision | list[str]:
    """Seed 003: a stable preference-type fact is not overturned by one contradicting mention.

    The first contradiction is held as a clarification; the same new state said again in another
    fragment applies (the clarification is settled), and so does restating the stable state.
    Returns the decision to hold, or the ids of the pending contradictions the candidate settles."""
    if existing.stage is not Stage.STABLE or not resists_one_off_contradiction(
        candidate.section, existing.key
    ):
        return []
    mine = [c for c in pending if c.fact_id == existing.id and c.reason == CONTRADICTS_STABLE_FACT]
    old = existing.attributes
    differs = [k for k in old if k in new_attributes and new_attributes[k] != old[k]]
    if status == existing.status and not differs:
        return [c.id for c in mine]  # the stable state restated: the one-off is over
    current = {"status": existing.status.value, **{k: old[k] for k in differs}}
    proposed = {"status": status.value, **{k: new_attributes[k] for k in differs}}
    same = [c for c in mine if c.proposed == proposed]
    if any(c.fragment_id != ctx.fragment_id for c in same):
        return [c.id for c in mine]  # a second mention of the new state
    if same:
        return Decision(noop_reason="stable_contradiction_pending")  # a repeat in the same fragment
    return Decision(
        clarification=Clarification(
            id=ctx.new_id(),
            section=candidate.section,
            fact_id=existing.id,
            reason=CONTRADICTS_STABLE_FACT,
            current=current,
            proposed=proposed,
            created_at=ctx.now,
            fragment_id=ctx.fragment_id,
        )
    )


def _first_mention(
    candidate: Candidate, status: FactStatus, section_state: SectionState, ctx: DecisionContext
) -> Decision:
    fact_id = ctx.new_id()
    active_now = active_at_first_mention(candidate.section, candidate.key) or candidate.remember
    fact = Fact(
        id=fact_id,
        section=candidate.section,
        key=candidate.key,
        name_raw=candidate.name_raw,
        name_normalized=candidate.name_normalized,
        code=candidate.code,
        status=status,
        stage=Stage.ACTIVE if active_now else Stage.CANDIDATE,
        attributes=dict(candidate.attributes),
        valid_from=candidate.valid_from,
        valid_to=candidate.valid_to,
        first_mentioned_at=ctx.now,
        last_confirmed_at=ctx.now,
        evidence_kind=candidate.evidence_kind,
        context_evidence=candidate.context_evidence,
        mention_count=1,
        session_ids=_with_session([], ctx.session_id),
        source_fragment_ids=_with_fragment([], ctx.fragment_id),
        version=1,
    )
    decision = Decision(
        fact=FactDecision(
            fact=fact,
            event=_event(ctx, fact_id, EventType.FIRST_MENTION, None, snapshot(fact)),
            expected_version=None,
        )
    )
    if (
        candidate.section in SECTIONS_WITH_STATUS
        and status in _PRESENT_STATUSES
        and section_state.status is not SectionStatus.PRESENT
    ):
        decision.section = _section_change(section_state, SectionStatus.PRESENT, ctx)
    return decision


def _decide_section(
    candidate: Candidate, state: SectionState, section_facts: Iterable[Fact], ctx: DecisionContext
) -> Decision:
    target = (
        SectionStatus.CONFIRMED_ABSENT
        if candidate.kind is AssertionKind.SECTION_ABSENT
        else SectionStatus.UNSURE
    )
    active = [f for f in section_facts if is_current(f) and f.status is not FactStatus.ABSENT]
    if active:
        if target is SectionStatus.UNSURE:
            return Decision(noop_reason="unsure_but_facts_known")
        # "No allergies" while an allergy is on record: ask, never delete silently.
        return Decision(
            clarification=Clarification(
                id=ctx.new_id(),
                section=candidate.section,
                fact_id=None,
                reason="section_absent_conflicts_with_recorded_facts",
                current={"facts": [f.name_normalized for f in active]},
                proposed={"status": target.value},
                created_at=ctx.now,
                fragment_id=ctx.fragment_id,
            )
        )
    return Decision(section=_section_change(state, target, ctx))


def _section_change(state: SectionState, target: SectionStatus, ctx: DecisionContext) -> SectionDecision:
    updated = state.model_copy(update={"status": target, "updated_at": ctx.now, "version": state.version + 1})
    event_type = EventType.RECONFIRMATION if state.status is target else EventType.SECTION_STATUS
    return SectionDecision(
        state=updated,
        event=_event(
            ctx,
            section_fact_id(state.section),
            event_type,
            {"status": state.status.value},
            {"status": target.value},
        ),
        expected_version=state.version,
    )


def section_fact_id(section: Section) -> str:
    """History of a section's status is kept under this pseudo fact id."""
    return f"section-{section.value}"


def _provenance_after(existing: Fact, candidate: Candidate) -> dict[str, Any]:
    if existing.evidence_kind is EvidenceKind.STATED:
        return {}
    if candidate.evidence_kind is EvidenceKind.STATED:
        return {"evidence_kind": EvidenceKind.STATED, "context_evidence": None}
    return {"evidence_kind": candidate.evidence_kind, "context_evidence": candidate.context_evidence}


def _default_status(section: Section) -> FactStatus:
    return FactStatus.ACTIVE if section is Section.MEDICATIONS else FactStatus.PRESENT


# A habit's value that only says the habit is there: "I smoke" after "a pack a day" says no less.
_BARE_HABIT_VALUE = "yes"


def _attributes_after(existing: Fact, candidate: Candidate) -> dict[str, Any]:
    # What the user did not restate is kept: "started taking metformin" keeps its 500 mg.
    said = dict(candidate.attributes)
    if (
        said.get("value") == _BARE_HABIT_VALUE
        and existing.status is (candidate.status or existing.status)
        and existing.attributes.get("value") not in (None, _BARE_HABIT_VALUE, "no", "former")
    ):
        del said["value"]  # the habit confirmed, its amount ("pack a day") kept
    return {**existing.attributes, **said}


def _implausible_change(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    for name, is_implausible in IMPLAUSIBLE_CHANGES.items():
        known = old.get(name) is not None and new.get(name) is not None
        if known and is_implausible(old[name], new[name]):
            return name
    return None


def _stage_after(existing: Fact, candidate: Candidate, changed: bool, ctx: DecisionContext) -> Stage:
    if existing.stage is Stage.CANDIDATE and (
        candidate.remember or (ctx.fragment_id not in existing.source_fragment_ids)
    ):
        return Stage.ACTIVE  # a second mention, or an explicit "remember"
    if existing.stage is Stage.DEPRECATED and changed:
        return Stage.ACTIVE
    return existing.stage


def user_edit(existing: Fact, changes: dict[str, Any], ctx: DecisionContext) -> FactDecision:
    """The user corrects what is remembered (already validated by the caller)."""
    before = snapshot(existing)
    update: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
    if "attributes" in update:
        update["attributes"] = {**existing.attributes, **update["attributes"]}
    updated = existing.model_copy(
        update={**update, "last_confirmed_at": ctx.now, "version": existing.version + 1}
    )
    if updated.stage is Stage.CANDIDATE:
        updated = updated.model_copy(update={"stage": Stage.ACTIVE})  # the user vouched for it
    return FactDecision(
        fact=updated,
        event=_event(ctx, existing.id, EventType.USER_EDIT, before, snapshot(updated)),
        expected_version=existing.version,
    )


def user_delete(existing: Fact, ctx: DecisionContext) -> FactDecision:
    """The fact leaves every context from now on; its history stays until erasure."""
    before = snapshot(existing)
    updated = existing.model_copy(update={"deleted_at": ctx.now, "version": existing.version + 1})
    return FactDecision(
        fact=updated,
        event=_event(ctx, existing.id, EventType.USER_DELETE, before, snapshot(updated)),
        expected_version=existing.version,
    )


def user_section_status(state: SectionState, target: SectionStatus, ctx: DecisionContext) -> SectionDecision:
    return _section_change(state, target, ctx)


def policy_change(
    existing: Fact, update: dict[str, Any], policy: str, policy_version: str, ctx: DecisionContext
) -> FactDecision:
    """A maintenance policy changes a fact; the event names the policy and its version."""
    before = snapshot(existing)
    updated = existing.model_copy(update={**update, "version": existing.version + 1})
    event = _event(ctx, existing.id, EventType.POLICY, before, snapshot(updated))
    event = event.model_copy(update={"policy": policy, "policy_version": policy_version})
    return FactDecision(fact=updated, event=event, expected_version=existing.version)


def merge(
    survivor: Fact, duplicate: Fact, canonical_key: str, policy_version: str, ctx: DecisionContext
) -> tuple[FactDecision, FactDecision]:
    """Consolidation: the duplicate folds into the survivor; both record a merge event."""
    survivor_before, duplicate_before = snapshot(survivor), snapshot(duplicate)
    merged = survivor.model_copy(
        update={
            "key": canonical_key,
            "first_mentioned_at": min(survivor.first_mentioned_at, duplicate.first_mentioned_at),
            "last_confirmed_at": max(survivor.last_confirmed_at, duplicate.last_confirmed_at),
            "mention_count": survivor.mention_count + duplicate.mention_count,
            "session_ids": list(dict.fromkeys(duplicate.session_ids + survivor.session_ids))[-20:],
            "source_fragment_ids": list(
                dict.fromkeys(duplicate.source_fragment_ids + survivor.source_fragment_ids)
            )[-20:],
            "attributes": {**duplicate.attributes, **survivor.attributes},
            "code": survivor.code or duplicate.code,
            "version": survivor.version + 1,
        }
    )
    retired = duplicate.model_copy(update={"stage": Stage.DEPRECATED, "version": duplicate.version + 1})
    survivor_event = _event(ctx, survivor.id, EventType.MERGE, survivor_before, snapshot(merged))
    survivor_event = survivor_event.model_copy(
        update={
            "policy": "consolidate_duplicates",
            "policy_version": policy_version,
            "after": {**snapshot(merged), "merged_from": duplicate.id},
        }
    )
    duplicate_event = _event(ctx, duplicate.id, EventType.MERGE, duplicate_before, snapshot(retired))
    duplicate_event = duplicate_event.model_copy(
        update={
            "policy": "consolidate_duplicates",
            "policy_version": policy_version,
            "after": {**snapshot(retired), "merged_into": survivor.id},
        }
    )
    return (
        FactDecision(fact=merged, event=survivor_event, expected_version=survivor.version),
        FactDecision(fact=retired, event=duplicate_event, expected_version=duplicate.version),
    )
