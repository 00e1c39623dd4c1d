"""Episode archival (seed 002: a memory nobody recalls for N days goes cold; pinned ones stay).

An episode whose newest of (said, last retrieved) is ``episodes.archive_after_days`` old and
that is not pinned leaves the vector store; its row stays, marked archived, for export until
erasure. Order: mark the row (guarded: nobody retrieved it since we read it), delete the vector,
then forget the vector's id. A crash in between leaves an archived row that still names its
vector, which the next run finishes; a finished row is never touched again.
"""

from __future__ import annotations

from datetime import date, datetime

from ..domain.models import Episode
from ..errors import ConflictError
from ..ports import EpisodeStore, VectorIndex
from .plan import PlannedChange
from .policies import PolicyTable

ARCHIVED = "episode_archived"
RESUMED = "episode_archive_resumed"  # the vector removal of an earlier run, finished now
MAX_ATTEMPTS = 4


def is_due(episode: Episode, today: date, archive_after_days: int) -> bool:
    if episode.pinned or episode.archived:
        return False
    last = max(episode.at, episode.last_retrieved_at or episode.at)
    return (today - last.date()).days >= archive_after_days


def archive_episodes(
    repository: EpisodeStore,
    vector_index: VectorIndex,
    user_id: str,
    now: datetime,
    table: PolicyTable,
    dry_run: bool = False,
) -> list[PlannedChange]:
    days = table.episodes.archive_after_days
    changes: list[PlannedChange] = []
    for episode in repository.list_episodes(user_id):  # one Query over EPI#
        change = _archive(repository, vector_index, user_id, episode, now.date(), days, dry_run)
        if change is not None:
            changes.append(change)
    return changes


def _archive(
    repository: EpisodeStore,
    vector_index: VectorIndex,
    user_id: str,
    episode: Episode | None,
    today: date,
    days: int,
    dry_run: bool,
) -> PlannedChange | None:
    policy = None
    for _ in range(MAX_ATTEMPTS):
        if episode is None:
            return None  # deleted meanwhile
        unfinished = episode.archived and episode.vector_doc_id is not None
        if not unfinished and not is_due(episode, today, days):
            return None
        policy = policy or (RESUMED if unfinished else ARCHIVED)
        summary = "vector removal finished" if policy == RESUMED else f"unused {days}+ days -> archived"
        change = PlannedChange(policy, "episodes", episode.id, summary)
        if dry_run:
            return change
        seen = episode.last_retrieved_at
        try:
            if not episode.archived:
                episode = episode.model_copy(update={"archived": True})
                repository.update_episode(user_id, episode, seen)
            if episode.vector_doc_id is not None:
                vector_index.delete_documents(user_id, [episode.vector_doc_id])
                repository.update_episode(user_id, episode.model_copy(update={"vector_doc_id": None}), seen)
            return change
        except ConflictError:
            episode = repository.get_episode(user_id, episode.id)  # retrieved meanwhile: decide again
    raise ConflictError("episode kept changing")
