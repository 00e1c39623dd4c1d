"""Memory the user can see, correct, export and erase (seed 003: a visible, editable profile)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..domain.models import Fact, HistoryEvent, SectionState
from ..domain.sections import ALLOWED_STATUSES, HISTORICAL_STATUSES, Section, SectionStatus, Stage
from ..domain.transitions import DecisionContext, user_delete, user_edit, user_section_status
from ..observability import logger
from ..ports import ChangeSet, Clock, ConflictError, FactWrite, SectionWrite, VectorIndex


class NotFound(Exception):
    pass


class StaleVersion(Exception):
    pass


class InvalidEdit(Exception):
    pass


def list_facts(
    repository,
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
    return facts, memory.sections


def get_fact(repository, user_id: str, fact_id: str) -> tuple[Fact, list[HistoryEvent]]:
    fact = repository.get_fact(user_id, fact_id)
    if fact is None:
        raise NotFound(fact_id)
    return fact, repository.get_history(user_id, fact_id)


def edit_fact(
    repository,
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
    repository,
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
    repository, vectors: VectorIndex | None, user_id: str, fragment_ids: Sequence[str]
) -> int:
    """Delete the episodes of these fragments (one per fragment, keyed by it): the vector first,
    then the row that lets erasure and export find it. Returns how many were deleted."""
    deleted = 0
    for fragment_id in fragment_ids:
        episode = repository.get_episode(user_id, fragment_id)
        if episode is None:
            continue
        if episode.vector_doc_id and vectors is not None:
            vectors.delete_documents(user_id, [episode.vector_doc_id])
        repository.delete_episode(user_id, episode.id)
        deleted += 1
    return deleted


def set_section_status(
    repository, clock: Clock, new_id: Callable[[], str], user_id: str, section: Section, status: SectionStatus
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


def export_user(repository, vectors: VectorIndex | None, user_id: str) -> dict:
    data = repository.export(user_id)
    data["vector_documents"] = vectors.count_user(user_id) if vectors else 0
    return data


def erase_user(repository, vectors: VectorIndex | None, user_id: str) -> dict[str, int]:
    """Erase everything held about the user, then verify that nothing is left."""
    erased_items = repository.erase(user_id)
    erased_vectors = vectors.delete_user(user_id) if vectors else 0
    remaining = repository.export(user_id)
    remaining_items = sum(len(v) for v in remaining.values() if isinstance(v, list))
    remaining_vectors = vectors.count_user(user_id) if vectors else 0
    return {
        "erased_items": erased_items,
        "erased_vectors": erased_vectors,
        "remaining_items": remaining_items,
        "remaining_vectors": remaining_vectors,
    }


def _ctx(clock: Clock, new_id: Callable[[], str]) -> DecisionContext:
    return DecisionContext(now=clock.now(), new_id=new_id, extractor="user")
