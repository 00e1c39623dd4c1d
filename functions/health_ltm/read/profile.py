"""Memory the user can see, correct, export and erase (seed 003: a visible, editable profile)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypedDict

from aws_lambda_powertools.metrics import MetricUnit

from ..domain.models import Fact, HistoryEvent, SectionState
from ..domain.sections import (
    ALLOWED_STATUSES,
    HISTORICAL_STATUSES,
    SECTIONS_WITH_STATUS,
    Section,
    SectionStatus,
    Stage,
)
from ..domain.transitions import DecisionContext, is_current, user_delete, user_edit, user_section_status
from ..errors import ConflictError, InvalidEdit, NotFound, StaleVersion
from ..observability import logger, metrics
from ..ports import (
    ChangeSet,
    Clock,
    ContextStore,
    EpisodeStore,
    ErasureStore,
    FactStore,
    FactWrite,
    SectionWrite,
    VectorIndex,
)


class SectionStore(ContextStore, FactStore, Protocol):
    """A section's status is read from its memory and written as a change set."""


class FactAndEpisodes(FactStore, EpisodeStore, Protocol):
    """Deleting a fact also forgets the episodes it came from."""


class ErasureAndEpisodes(ErasureStore, EpisodeStore, Protocol):
    """Erasure reads the episode rows' vector references before deleting them."""


def list_facts(
    repository: ContextStore,
    user_id: str,
    section: Section | None = None,
    status: str | None = None,
    include_inactive: bool = False,
) -> tuple[list[Fact], dict[Section, SectionState]]:
    memory = repository.load_memory(user_id, [section] if section else None)
    facts = [f for f in memory.facts if not f.is_deleted]
    if status:
        facts = [f for f in facts if f.status.value == status]
    elif not include_inactive:
        facts = [
            f
            for f in facts
            if f.stage in (Stage.ACTIVE, Stage.STABLE) and f.status not in HISTORICAL_STATUSES
        ]
    facts.sort(key=lambda f: (list(Section).index(f.section), f.first_mentioned_at))
    sections = dict(memory.sections)
    # A section without a tracked status (symptoms, diagnoses, lifestyle...) that holds a current
    # fact is present, not "unknown" beside the fact that says otherwise.
    for fact in memory.facts:
        if fact.section not in SECTIONS_WITH_STATUS and fact.section not in sections and is_current(fact):
            sections[fact.section] = SectionState(section=fact.section, status=SectionStatus.PRESENT)
    return facts, sections


def get_fact(repository: FactStore, user_id: str, fact_id: str) -> tuple[Fact, list[HistoryEvent]]:
    fact = repository.get_fact(user_id, fact_id)
    if fact is None:
        raise NotFound(fact_id)
    return fact, repository.get_history(user_id, fact_id)


def edit_fact(
    repository: FactStore,
    clock: Clock,
    new_id: Callable[[], str],
    user_id: str,
    fact_id: str,
    if_match: int,
    changes: dict[str, Any],
) -> Fact:
    fact = repository.get_fact(user_id, fact_id)
    if fact is None or fact.is_deleted:
        raise NotFound(fact_id)
    if fact.version != if_match:
        raise StaleVersion(fact_id)
    if changes.get("status") is not None and changes["status"] not in ALLOWED_STATUSES[fact.section]:
        raise InvalidEdit(f"status {changes['status']} is not allowed in section {fact.section.value}")
    if changes.get("attributes") is not None:
        from ..domain.attributes import validate_attributes  # the attribute models cost a cold start

        try:
            validate_attributes(fact.section, {**fact.attributes, **changes["attributes"]})
        except ValueError as exc:
            raise InvalidEdit(f"attributes do not fit section {fact.section.value}") from exc
    release: tuple[Section, str] | None = None
    if changes.get("name_raw"):
        from ..write.normalize import normalize_name

        normalized = normalize_name(fact.section, changes["name_raw"], None)
        key = normalized.key
        if fact.section is Section.FAMILY_HISTORY:  # the same key shape the write path gives it
            key = f"{fact.attributes.get('relative', 'other')}:{key}"
        if fact.section is not Section.DEMOGRAPHICS and key != fact.key:
            changes = {**changes, "name_normalized": normalized.name_normalized, "key": key}
            release = (fact.section, fact.key)
    decision = user_edit(fact, changes, _ctx(clock, new_id))
    write = FactWrite(
        fact=decision.fact,
        event=decision.event,
        expected_version=decision.expected_version,
        new_key=release is not None,
        release_key=release,
    )
    try:
        repository.apply(user_id, None, ChangeSet(facts=[write]))
    except ConflictError as exc:
        raise StaleVersion(fact_id) from exc
    return decision.fact


def delete_fact(
    repository: FactAndEpisodes,
    clock: Clock,
    new_id: Callable[[], str],
    user_id: str,
    fact_id: str,
    vectors: VectorIndex | None = None,
) -> None:
    """The fact leaves every context; so do the episodes that carry its words (the fragments it
    was said in): their vectors and rows are deleted. Its history stays until erasure."""
    fact = repository.get_fact(user_id, fact_id)
    if fact is None or fact.is_deleted:
        raise NotFound(fact_id)
    decision = user_delete(fact, _ctx(clock, new_id))
    write = FactWrite(fact=decision.fact, event=decision.event, expected_version=decision.expected_version)
    try:
        repository.apply(user_id, None, ChangeSet(facts=[write]))
    except ConflictError as exc:
        raise StaleVersion(fact_id) from exc
    try:
        forget_episodes(repository, vectors, user_id, fact.source_fragment_ids)
    except Exception as exc:  # the read path leaves them out meanwhile (read/context.py)
        logger.warning("episodes of a deleted fact not removed", extra={"error_type": type(exc).__name__})


def forget_episodes(
    repository: EpisodeStore, vectors: VectorIndex | None, user_id: str, fragment_ids: Sequence[str]
) -> int:
    """Delete the episodes of these fragments (one per fragment, keyed by it): the vectors first,
    by the references their rows keep (no search: one indexed a moment ago is found too), then
    the rows that let erasure and export find them. Returns how many were deleted."""
    found = (repository.get_episode(user_id, f) for f in dict.fromkeys(fragment_ids))
    episodes = [e for e in found if e is not None]
    refs = [e.vector_doc_id for e in episodes if e.vector_doc_id]
    if refs and vectors is not None:
        vectors.delete_documents(user_id, refs)
    for episode in episodes:
        repository.delete_episode(user_id, episode.id)
    return len(episodes)


def set_section_status(
    repository: SectionStore,
    clock: Clock,
    new_id: Callable[[], str],
    user_id: str,
    section: Section,
    status: SectionStatus,
) -> SectionState:
    # No version comes with this request: a concurrent write-path change (say, a new allergy)
    # is re-read and the user's choice applied on top of it.
    for attempt in range(3):
        memory = repository.load_memory(user_id, [section])
        state = memory.sections.get(section) or SectionState(section=section)
        decision = user_section_status(state, status, _ctx(clock, new_id))
        try:
            repository.apply(
                user_id,
                None,
                ChangeSet(sections=[SectionWrite(decision.state, decision.event, decision.expected_version)]),
            )
        except ConflictError as exc:
            if attempt == 2:
                raise StaleVersion(section.value) from exc
            continue
        return decision.state
    raise AssertionError("unreachable")


def export_user(repository: ErasureStore, vectors: VectorIndex | None, user_id: str) -> dict:
    data = repository.export(user_id)
    data["vector_documents"] = vectors.count_user(user_id) if vectors else 0
    return data


class Erasure(TypedDict):
    erased_items: int
    erased_vectors: int
    remaining_items: int
    remaining_vectors: int
    # "pending": the store could not vouch for its count (no refresh), or still counted some
    vector_verification: Literal["verified", "pending"]


def erase_user(repository: ErasureAndEpisodes, vectors: VectorIndex | None, user_id: str) -> Erasure:
    """Erase everything held about the user, then verify that nothing is left.

    Vectors: by the references the user's episode rows keep (read before the partition goes,
    since a search misses a vector indexed within the store's refresh interval), then a sweep
    of what a search finds (vectors no row named), then a count the store vouches for where it
    can (a refresh). Where it cannot, the verification is "pending"; DELETE /v1/me again sweeps
    again."""
    refs = [e.vector_doc_id for e in repository.list_episodes(user_id) if e.vector_doc_id] if vectors else []
    erased_items = repository.erase(user_id)  # the tombstone first: no new row names a vector now
    erased_vectors = remaining_vectors = 0
    verified = True
    if vectors is not None:
        erased_vectors = vectors.delete_documents(user_id, refs)
        erased_vectors += vectors.delete_user(user_id)
        count = vectors.settled_count(user_id)
        if count.settled and count.count:  # written meanwhile (an in-flight fragment): once more
            erased_vectors += vectors.delete_user(user_id)
            count = vectors.settled_count(user_id)
        remaining_vectors, verified = count.count, count.settled and count.count == 0
        if not verified:
            metrics.add_metric(name="VectorErasurePending", unit=MetricUnit.Count, value=1)
    remaining = repository.export(user_id)
    remaining_items = sum(len(v) for v in remaining.values() if isinstance(v, list))
    return {
        "erased_items": erased_items,
        "erased_vectors": erased_vectors,
        "remaining_items": remaining_items,
        "remaining_vectors": remaining_vectors,
        "vector_verification": "verified" if verified else "pending",
    }


def _ctx(clock: Clock, new_id: Callable[[], str]) -> DecisionContext:
    return DecisionContext(now=clock.now(), new_id=new_id, extractor="user")
