"""The write path for one fragment: filter -> classify -> extract -> validate -> decide -> write.

The model understands language; everything from validation on is code.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from aws_lambda_powertools.metrics import MetricUnit

from ..domain.candidates import Candidate
from ..domain.models import (
    AppliedEvent,
    AssertionKind,
    Clarification,
    Episode,
    Fact,
    Fragment,
    FragmentStatus,
    Message,
    SectionState,
    UserMemory,
)
from ..domain.sections import Section, Stage
from ..domain.transitions import Decision, DecisionContext, decide, is_current
from ..errors import ConflictError, FragmentGone
from ..observability import logger, metrics
from ..ports import (
    ChangeSet,
    Clock,
    Embedder,
    Extractor,
    FactWrite,
    MemoryRepository,
    SectionClassifier,
    SectionWrite,
    VectorIndex,
)
from .dialogue import episode_text
from .focus import resolve as resolve_focus
from .mentions import detect_critical_mentions
from .normalize import closest_existing_key
from .quality import filter_messages
from .validate import dialogue_words, validate

MAX_DECISION_ATTEMPTS = 5
# The conversations before this one that focus may read when a result is told without whose it
# is (decision log 41): one bounded query, only then.
EARLIER_EPISODES = 3
# Errors a redelivery would only repeat: the fragment is marked failed instead (WritePath._fail).
# Not among them: ConflictError, FragmentGone, ModelUnavailable, throttling and other AWS errors
# (botocore's are not ValueErrors), which a retry can cure.
DETERMINISTIC_ERRORS: tuple[type[BaseException], ...] = (
    ArithmeticError, LookupError, TypeError, AttributeError, UnicodeError, RecursionError, ValueError,
)
FAILURE_REASON_PREFIX = "error:"


def is_deterministic(err: BaseException) -> bool:
    if isinstance(err, DETERMINISTIC_ERRORS):
        return True
    # DynamoDB refusing the request itself (item over 400 KB, too many items in a transaction):
    # the same request fails the same way every time.
    response = getattr(err, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return code == "ValidationException"


@dataclass
class Outcome:
    status: FragmentStatus
    applied: list[AppliedEvent] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)


@dataclass
class WritePath:
    repository: MemoryRepository  # DynamoRepository in AWS and locally, InMemoryRepository in tests
    classifier: SectionClassifier
    extractor: Extractor
    clock: Clock
    new_id: Callable[[], str]
    vector_index: VectorIndex | None = None
    embedder: Embedder | None = None
    recall_guard: bool = False  # re-ask the model when the rules see an allergy/drug it missed

    def process(self, user_id: str, fragment_id: str) -> Outcome:
        repo = self.repository
        fragment = repo.get_fragment(user_id, fragment_id)
        if fragment is None:
            # Erased (DELETE /v1/me) or never stored: nothing to do, and nothing to retry.
            logger.info("fragment gone", extra={"fragment_id": fragment_id})
            return Outcome(FragmentStatus.FAILED)
        if fragment.status in (FragmentStatus.APPLIED, FragmentStatus.REJECTED):
            metrics.add_metric(name="FragmentRedelivered", unit=MetricUnit.Count, value=1)
            if fragment.status is FragmentStatus.APPLIED:
                # An earlier delivery may have died after its final transition, before marking
                # the user active: the markers are idempotent puts, so put them again.
                self._mark_active(user_id, self._due_days(user_id, fragment))
            return Outcome(fragment.status, fragment.applied)
        fragment = repo.transition_fragment(
            user_id,
            fragment,
            FragmentStatus.PROCESSING,
            expected=[FragmentStatus.QUEUED, FragmentStatus.PROCESSING, FragmentStatus.FAILED],
        )
        try:
            return self._process(user_id, fragment)
        except Exception as err:
            if not is_deterministic(err):
                raise
            return self._fail(user_id, fragment, err)

    def _fail(self, user_id: str, fragment: Fragment, err: BaseException) -> Outcome:
        """A failure that every delivery would repeat (a bug, data the code cannot handle): the
        fragment ends ``failed`` with a reason code (the error class, never what the user said)
        instead of blocking the user's later fragments until the DLQ. What it applied before the
        failure stays recorded in its ``done`` set: a re-queue after the fix (the same POST again:
        write/intake.py re-queues a failed fragment) applies the rest, once."""
        reason = f"{FAILURE_REASON_PREFIX}{err.__class__.__name__}"
        logger.error(
            "fragment failed deterministically",
            extra={"fragment_id": fragment.id, "error_class": err.__class__.__name__, "reason": reason},
        )
        metrics.add_metric(name="FragmentFailed", unit=MetricUnit.Count, value=1)
        with contextlib.suppress(FragmentGone):  # erased meanwhile, or another delivery finished it
            self.repository.transition_fragment(
                user_id, fragment, FragmentStatus.FAILED, [FragmentStatus.PROCESSING], reason=reason
            )
        return Outcome(FragmentStatus.FAILED)

    def _process(self, user_id: str, fragment: Fragment) -> Outcome:
        repo = self.repository
        filtered = filter_messages(fragment.messages)
        if filtered.all_filtered:
            reasons = sorted({d.reason for d in filtered.dropped}) or ["empty"]
            filtered_out = [{"section": None, "reason": f"quality_filter:{r}"} for r in reasons]
            repo.transition_fragment(
                user_id,
                fragment,
                FragmentStatus.REJECTED,
                [FragmentStatus.PROCESSING],
                rejected=filtered_out,
                reason="quality_filter",
            )
            metrics.add_metric(name="FragmentRejected", unit=MetricUnit.Count, value=1)
            return Outcome(FragmentStatus.REJECTED, rejected=filtered_out)

        kept: list[Message] = list(filtered.kept)
        sections = self.classifier.classify(kept)
        assertions = self.extractor.extract(kept, sections) if sections else []
        if self.recall_guard:
            assertions = self._recall_guard(kept, assertions)

        memory = repo.load_memory(user_id)
        focus = resolve_focus(
            assertions,
            kept,
            memory,
            fragment.session_id,
            self.clock.now(),
            self.new_id,
            fragment.id,
            earlier=lambda: repo.recent_episodes(user_id, EARLIER_EPISODES),
        )
        words = dialogue_words(kept)
        candidates: list[Candidate] = []
        rejected: list[dict] = []
        for position, assertion in enumerate(focus.assertions):
            accepted, rejection = validate(assertion, words)
            if position in focus.keys:
                # A follow-up resolved to a stored fact: it is that fact, whatever its name normalises to.
                accepted = [replace(c, key=focus.keys[position]) for c in accepted]
            candidates.extend(accepted)
            if rejection:
                rejected.append({"section": rejection.section, "reason": rejection.reason})
        if rejected:
            metrics.add_metric(name="EventRejected", unit=MetricUnit.Count, value=len(rejected))

        applied, due_days = self._apply_all(user_id, fragment, candidates, memory, focus.clarifications)
        self._store_episode(user_id, fragment, kept, sections)
        final = FragmentStatus.APPLIED
        try:
            repo.transition_fragment(user_id, fragment, final, [FragmentStatus.PROCESSING], rejected=rejected)
        except FragmentGone:
            if repo.get_fragment(user_id, fragment.id) is None:
                self._compensate_erasure(user_id, fragment.id)
                return Outcome(FragmentStatus.FAILED)
            raise
        self._mark_active(user_id, due_days)
        metrics.add_metric(name="EventApplied", unit=MetricUnit.Count, value=len(applied))
        return Outcome(final, applied, rejected)

    def _mark_active(self, user_id: str, due_days: set[str]) -> None:
        self.repository.mark_active(user_id, self.clock.now().date().isoformat())
        for day in sorted(due_days):
            self.repository.mark_active(user_id, day)  # e.g. a course's end date: maintenance stops it then

    def _due_days(self, user_id: str, fragment: Fragment) -> set[str]:
        """The course end dates of the facts this (already applied) fragment touched."""
        touched = {event.fact_id for event in fragment.applied}
        if not touched:
            return set()
        return {
            str(fact.attributes["course_end"])[:10]
            for fact in self.repository.load_memory(user_id).facts
            if fact.id in touched and fact.attributes.get("course_end")
        }

    # ------------------------------------------------------------------ decisions
    def _apply_all(
        self,
        user_id: str,
        fragment: Fragment,
        candidates: list[Candidate],
        memory: UserMemory,
        clarifications: Sequence[Clarification] = (),
    ) -> tuple[list[AppliedEvent], set[str]]:
        repo = self.repository
        due_days: set[str] = set()
        done = fragment.done  # read with the fragment: no second read
        applied: list[AppliedEvent] = []
        work: list[Candidate | Clarification] = [*clarifications, *candidates]
        for candidate in work:
            fingerprint = _fingerprint(candidate)
            if fingerprint in done:
                continue  # applied by an earlier delivery of this fragment
            for attempt in range(MAX_DECISION_ATTEMPTS):
                decision = (
                    Decision(clarification=candidate)
                    if isinstance(candidate, Clarification)
                    else self._decide(candidate, memory, fragment)
                )
                changes, event = _to_changes(decision)
                if not changes:
                    break  # nothing to write (e.g. a repeat inside this fragment)
                try:
                    repo.apply(
                        user_id,
                        fragment.id,
                        changes,
                        applied=[event.model_dump(mode="json")] if event else [],
                        fingerprint=fingerprint,
                    )
                except ConflictError:
                    metrics.add_metric(name="WriteConflict", unit=MetricUnit.Count, value=1)
                    memory = repo.load_memory(user_id)
                    if attempt == MAX_DECISION_ATTEMPTS - 1:
                        raise
                    continue
                except FragmentGone:
                    current = repo.get_fragment(user_id, fragment.id)
                    if current is None or current.status is not FragmentStatus.PROCESSING:
                        raise
                    break  # another delivery applied this very candidate meanwhile
                _remember(memory, decision)
                if decision.fact and decision.fact.fact.attributes.get("course_end"):
                    due_days.add(str(decision.fact.fact.attributes["course_end"])[:10])
                if event:
                    applied.append(event)
                break
        return applied, due_days

    def _decide(self, candidate: Candidate, memory: UserMemory, fragment: Fragment) -> Decision:
        existing = next(
            (f for f in memory.facts if f.section is candidate.section and f.key == candidate.key), None
        )
        if existing is None and candidate.kind is AssertionKind.FACT:
            # "amoxicilin" after "amoxicillin": a spelling variant of a stored fact is that fact.
            stored = [
                f
                for f in memory.facts
                if f.section is candidate.section and not f.is_deleted and f.stage is not Stage.DEPRECATED
            ]
            variant = closest_existing_key(
                candidate.section,
                candidate.key,
                candidate.name_normalized,
                [(f.key, f.name_normalized) for f in stored],
            )
            if variant is not None:
                candidate = replace(candidate, key=variant)
                existing = next(f for f in stored if f.key == variant)
        if candidate.retracted:
            return _retraction(candidate, existing, fragment, self.clock.now(), self.new_id)
        state = memory.sections.get(candidate.section) or SectionState(section=candidate.section)
        ctx = DecisionContext(
            now=self.clock.now(),
            new_id=self.new_id,
            fragment_id=fragment.id,
            session_id=fragment.session_id,
            extractor=self.extractor.name,
        )
        return decide(
            candidate,
            existing,
            state,
            [f for f in memory.facts if f.section is candidate.section],
            [c for c in memory.clarifications if c.section is candidate.section],
            ctx,
        )

    # ------------------------------------------------------------------ recall guard
    def _recall_guard(self, messages: list[Message], assertions: list) -> list:
        seen = {section for section, _ in detect_critical_mentions(messages)}
        covered = {a.section for a in assertions}
        missed = [s for s in (Section.ALLERGIES, Section.MEDICATIONS) if s in seen and s not in covered]
        if not missed:
            return assertions
        metrics.add_metric(name="RecallGuardSecondPass", unit=MetricUnit.Count, value=1)
        return assertions + self.extractor.extract(messages, missed)

    # ------------------------------------------------------------------ episodes
    def _store_episode(
        self, user_id: str, fragment: Fragment, kept: list[Message], sections: list[Section]
    ) -> None:
        if self.vector_index is None or self.embedder is None:
            return
        text = episode_text(kept)
        if not text:
            return
        # One episode per fragment, keyed by the fragment: a redelivery finds it and indexes nothing.
        existing = self.repository.get_episode(user_id, fragment.id)
        if existing is not None and existing.vector_doc_id:
            return
        episode = Episode(
            id=fragment.id,
            session_id=fragment.session_id,
            fragment_id=fragment.id,
            text=text[:4000],
            sections=sections,
            at=fragment.received_at,
        )
        # The row first, so that erasure finds the vector even if we die right after indexing.
        self.repository.put_episode(user_id, episode)
        vector = self.embedder.embed([episode.text])[0]
        doc_id = self.vector_index.index(user_id, episode, vector)
        self.repository.put_episode(user_id, episode.model_copy(update={"vector_doc_id": doc_id}))

    def _compensate_erasure(self, user_id: str, episode_id: str) -> None:
        """The user was erased while we worked: take back what we wrote outside the fragment's
        transactional guard (the episode row and its vector)."""
        self.repository.delete_episode(user_id, episode_id)
        if self.vector_index is not None:
            self.vector_index.delete_user(user_id)
        metrics.add_metric(name="ErasureRaceCompensated", unit=MetricUnit.Count, value=1)


def _fingerprint(item: Candidate | Clarification) -> str:
    if isinstance(item, Clarification):
        # Stable across redeliveries: the reason and what it is about, not the fresh id.
        return "clarification:" + hashlib.blake2b(
            f"{item.section}:{item.reason}:{item.current}:{item.proposed}".encode(), digest_size=12
        ).hexdigest()
    return item.fingerprint()


def _retraction(
    candidate: Candidate, existing: Fact | None, fragment: Fragment, now: datetime, new_id: Callable[[], str]
) -> Decision:
    """ "Scratch that": the mention is void. A fact stored from an earlier conversation is not
    deleted on one phrase (an allergy wrongly dropped is the dangerous direction): it is held
    as a clarification for the assistant to confirm."""
    from_before = existing is not None and fragment.id not in existing.source_fragment_ids
    if existing is None or not from_before or not is_current(existing):
        return Decision(noop_reason="retracted")
    return Decision(
        clarification=Clarification(
            id=new_id(),
            section=candidate.section,
            fact_id=existing.id,
            reason="retracted_mention",
            current={"name": existing.name_normalized, "status": existing.status.value},
            proposed={"retracted": True},
            created_at=now,
            fragment_id=fragment.id,
        )
    )


def _to_changes(decision: Decision) -> tuple[ChangeSet, AppliedEvent | None]:
    changes = ChangeSet()
    event: AppliedEvent | None = None
    if decision.fact:
        fd = decision.fact
        changes.facts.append(
            FactWrite(
                fact=fd.fact,
                event=fd.event,
                expected_version=fd.expected_version,
                new_key=fd.expected_version is None,
            )
        )
        changes.resolved_clarifications.extend(fd.resolves)
        event = AppliedEvent(fact_id=fd.fact.id, section=fd.fact.section, event=fd.event.type)
    if decision.section:
        sd = decision.section
        changes.sections.append(
            SectionWrite(state=sd.state, event=sd.event, expected_version=sd.expected_version)
        )
        if event is None:
            event = AppliedEvent(fact_id=sd.event.fact_id, section=sd.state.section, event=sd.event.type)
    if decision.clarification:
        changes.clarifications.append(decision.clarification)
        event = AppliedEvent(
            fact_id=decision.clarification.fact_id or decision.clarification.id,
            section=decision.clarification.section,
            event="clarification",
        )
    return changes, event


def _remember(memory: UserMemory, decision: Decision) -> None:
    """Keep the loaded memory current after our own write, so the next candidate needs no re-read."""
    if decision.fact:
        fact = decision.fact.fact
        memory.facts = [f for f in memory.facts if f.id != fact.id] + [fact]
        memory.clarifications = [c for c in memory.clarifications if c.id not in decision.fact.resolves]
    if decision.section:
        memory.sections[decision.section.state.section] = decision.section.state
    if decision.clarification:
        memory.clarifications.append(decision.clarification)
