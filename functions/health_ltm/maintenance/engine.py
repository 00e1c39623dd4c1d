"""Per-user maintenance job: apply every due policy as a conditional, evented change.

Idempotent by construction: each rule looks at the current state, so a second run finds
nothing due. A concurrent write-path update makes a condition fail; the job re-reads and
decides again (bounded), so nothing is lost either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from ..domain.fingerprint import facts_fingerprint
from ..domain.models import Fact, UserMemory
from ..domain.sections import FactStatus, Section, Stage
from ..domain.transitions import DecisionContext, FactDecision, merge, policy_change
from ..errors import ConflictError
from ..ports import (
    ChangeSet,
    Clock,
    ContextStore,
    EpisodeStore,
    FactStore,
    FactWrite,
    SummaryStore,
    VectorIndex,
)
from .episodes import archive_episodes
from .plan import PlannedChange
from .policies import PolicyTable, load_policies
from .summary import render_summary

MAX_ATTEMPTS = 4


@dataclass
class UserReport:
    user_id: str
    dry_run: bool
    changes: list[PlannedChange] = field(default_factory=list)
    summary_refreshed: bool = False
    attempts: int = 1

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for change in self.changes:
            out[change.policy] = out.get(change.policy, 0) + 1
        return out


@dataclass
class _Step:
    """One transaction's worth of change, and how to report it."""

    decisions: list[FactDecision]
    planned: list[PlannedChange]
    release_keys: list[tuple[Section, str]] = field(default_factory=list)
    new_keys: set[str] = field(default_factory=set)
    copied_from: list[str] = field(default_factory=list)


class SummarySource(ContextStore, SummaryStore, Protocol):
    """The summary is rendered from the memory and kept only when its facts changed."""


class MaintenanceStore(SummarySource, FactStore, EpisodeStore, Protocol):
    """One user's maintenance: policy changes, consolidation, the summary, episode archival."""


def run_user(
    repository: MaintenanceStore,
    user_id: str,
    clock: Clock,
    new_id: Callable[[], str],
    normalize: Callable[[Section, str], str] | None = None,
    dry_run: bool = False,
    policies: PolicyTable | None = None,
    vector_index: VectorIndex | None = None,
) -> UserReport:
    """Facts' policies, the summary, then (given the vector index) episode archival."""
    table = policies or load_policies()
    report = UserReport(user_id=user_id, dry_run=dry_run)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report.attempts = attempt
        memory = repository.load_memory(user_id)
        ctx = DecisionContext(now=clock.now(), new_id=new_id, extractor=f"policies:{table.version}")
        steps = plan(memory, ctx, table, normalize)
        if dry_run:
            report.changes = [p for s in steps for p in s.planned]
            if vector_index is not None:
                report.changes += archive_episodes(repository, vector_index, user_id, ctx.now, table, True)
            return report
        try:
            for step in steps:
                _write(repository, user_id, step)
                report.changes.extend(step.planned)
            break
        except ConflictError:
            if attempt == MAX_ATTEMPTS:
                raise
            continue
    # The common night changes nothing: the memory already read describes the facts as they are.
    unchanged = memory if not report.changes else None
    report.summary_refreshed = refresh_summary(repository, user_id, clock.now(), table, memory=unchanged)
    if vector_index is not None:  # last: a vector store outage must not hold up the facts
        report.changes += archive_episodes(repository, vector_index, user_id, clock.now(), table)
    return report


def plan(
    memory: UserMemory,
    ctx: DecisionContext,
    table: PolicyTable,
    normalize: Callable[[Section, str], str] | None,
) -> list[_Step]:
    steps: list[_Step] = []
    merged_away: set[str] = set()
    if normalize is not None:
        for step in _consolidate(memory.facts, ctx, table, normalize):
            steps.append(step)
            merged_away.update(d.fact.id for d in step.decisions if d.fact.stage is Stage.DEPRECATED)
    today = ctx.now.date()
    for fact in memory.facts:
        if fact.id in merged_away or fact.is_deleted or fact.provenance.value != "self_reported":
            continue
        decision = _due(fact, today, ctx, table)
        if decision is not None:
            steps.append(
                _Step(
                    [decision],
                    [
                        PlannedChange(
                            decision.event.policy or "",
                            fact.section.value,
                            fact.id,
                            _describe(fact, decision),
                        )
                    ],
                )
            )
    return steps


def _due(fact: Fact, today: date, ctx: DecisionContext, table: PolicyTable) -> FactDecision | None:
    policy = table.sections[fact.section]
    version = table.version
    age_days = (today - fact.last_confirmed_at.date()).days
    if fact.stage is Stage.CANDIDATE:
        lapse = policy.candidate_lapse_days
        if lapse and (today - fact.first_mentioned_at.date()).days >= lapse:
            return policy_change(fact, {"stage": Stage.DEPRECATED}, "candidate_lapsed", version, ctx)
        return None
    if fact.stage not in (Stage.ACTIVE, Stage.STABLE):
        return None
    resolve_after = None if policy.never_expires else policy.resolve_after_days
    if resolve_after and fact.status is FactStatus.PRESENT and age_days >= resolve_after:
        presumed_end = (fact.last_confirmed_at + timedelta(days=resolve_after)).date().isoformat()
        return policy_change(
            fact,
            {"status": FactStatus.RESOLVED, "valid_to": fact.valid_to or presumed_end},
            "presumed_resolved",
            version,
            ctx,
        )
    if policy.stop_at_course_end and fact.status in (FactStatus.ACTIVE, FactStatus.PRESCRIBED):
        course_end = fact.attributes.get("course_end")
        end_day = _parse_day(course_end) if course_end else None
        if end_day is not None and end_day <= today:
            return policy_change(
                fact, {"status": FactStatus.STOPPED, "valid_to": course_end}, "course_ended", version, ctx
            )
    if (
        fact.stage is Stage.ACTIVE
        and fact.mention_count >= table.stable.min_confirmations
        and len(set(fact.session_ids)) >= table.stable.min_sessions
    ):
        return policy_change(fact, {"stage": Stage.STABLE}, "promoted_stable", version, ctx)
    return None


def _consolidate(
    facts: list[Fact], ctx: DecisionContext, table: PolicyTable, normalize: Callable[[Section, str], str]
) -> list[_Step]:
    groups: dict[tuple[Section, str], list[Fact]] = {}
    for fact in facts:
        if fact.is_deleted or fact.stage is Stage.DEPRECATED or fact.section is Section.DEMOGRAPHICS:
            continue
        canonical = normalize(fact.section, fact.name_raw)
        if fact.section is Section.FAMILY_HISTORY:
            canonical = f"{fact.attributes.get('relative', 'other')}:{canonical}"
        groups.setdefault((fact.section, canonical), []).append(fact)
    steps: list[_Step] = []
    for (section, canonical), group in groups.items():
        if len(group) < 2:
            continue
        # Keep the fact already under the canonical key (it owns the key guard), else the oldest.
        group.sort(key=lambda f: (f.key != canonical, f.first_mentioned_at))
        survivor = group[0]
        for duplicate in group[1:]:
            kept, retired = merge(survivor, duplicate, canonical, table.version, ctx)
            release = [(section, duplicate.key)]
            new_keys = set()
            if survivor.key != canonical:
                release.append((section, survivor.key))
                new_keys.add(survivor.id)
            steps.append(
                _Step(
                    [kept, retired],
                    [
                        PlannedChange(
                            "consolidate_duplicates",
                            section.value,
                            duplicate.id,
                            f"merged into {survivor.id}",
                        )
                    ],
                    release_keys=release,
                    new_keys=new_keys,
                    copied_from=[duplicate.id],
                )
            )
            survivor = kept.fact
    return steps


def _write(repository: FactStore, user_id: str, step: _Step) -> None:
    changes = ChangeSet()
    for i, decision in enumerate(step.decisions):
        changes.facts.append(
            FactWrite(
                fact=decision.fact,
                event=decision.event,
                expected_version=decision.expected_version,
                new_key=decision.fact.id in step.new_keys,
                release_key=step.release_keys[i] if i < len(step.release_keys) else None,
            )
        )
    if step.copied_from:
        survivor_id = step.decisions[0].fact.id
        for duplicate_id in step.copied_from:
            for event in repository.get_history(user_id, duplicate_id)[-80:]:
                changes.copied_history.append(event.model_copy(update={"fact_id": survivor_id}))
    repository.apply(user_id, None, changes)


def refresh_summary(
    repository: SummarySource,
    user_id: str,
    now: datetime,
    table: PolicyTable,
    memory: UserMemory | None = None,
) -> bool:
    """Rewrite the compact profile summary only when the facts behind it changed."""
    memory = memory if memory is not None else repository.load_memory(user_id)
    text, fact_ids = render_summary(memory, table.summary.max_tokens)
    fingerprint = facts_fingerprint(memory.facts)
    current = repository.get_summary(user_id)
    if current and current.get("fingerprint") == fingerprint:
        return False
    repository.put_summary(
        user_id,
        {
            "text": text,
            "fact_ids": fact_ids,
            "fingerprint": fingerprint,
            "at": now.isoformat(),
            "policy_version": table.version,
        },
    )
    return True


def _describe(fact: Fact, decision: FactDecision) -> str:
    before, after = decision.event.before or {}, decision.event.after or {}
    changed: list[str] = [
        f"{name} {before.get(name)} -> {after.get(name)}"
        for name in ("status", "stage")
        if before.get(name) != after.get(name)
    ]
    return "; ".join(changed)


def _parse_day(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None
