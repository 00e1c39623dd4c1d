"""Small interfaces between the domain and the outside world.

Each port has a real AWS/OpenAI adapter and a local one (see ``adapters/``); the domain code
only sees these protocols.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from .domain.models import (
    Assertion,
    Clarification,
    Episode,
    Fact,
    Fragment,
    FragmentStatus,
    HistoryEvent,
    Message,
    PendingMention,
    SectionState,
    UserMemory,
)
from .domain.sections import Section

if TYPE_CHECKING:
    from .domain.sessions import SessionBuffer


class Clock(Protocol):
    def now(self) -> datetime: ...


@dataclass
class FactWrite:
    """One fact change decided by code: written atomically with its history event.

    ``expected_version`` is None for a new fact (the (section, key) guard must not exist yet).
    """

    fact: Fact
    event: HistoryEvent
    expected_version: int | None
    new_key: bool = False  # claim the (section, key) guard for a new fact or a re-keyed one
    release_key: tuple[Section, str] | None = None


@dataclass
class SectionWrite:
    state: SectionState
    event: HistoryEvent
    expected_version: int


@dataclass
class ChangeSet:
    """Everything one decision writes, in one transaction, guarded by the fragment's state."""

    facts: list[FactWrite] = field(default_factory=list)
    sections: list[SectionWrite] = field(default_factory=list)
    clarifications: list[Clarification] = field(default_factory=list)
    resolved_clarifications: list[str] = field(default_factory=list)
    # Copies of history events (a merge joins histories); written as they are, idempotently.
    copied_history: list[HistoryEvent] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(
            self.facts
            or self.sections
            or self.clarifications
            or self.resolved_clarifications
            or self.copied_history
        )


# The repository, split by role: logic code asks for the narrowest role it uses (or an
# intersection of roles defined next to it), so what a function can touch is visible in its
# signature. MemoryRepository is the union both implementations provide.
class ContextStore(Protocol):
    """What the read path needs: the user's memory, whole or by section."""

    def load_memory(
        self,
        user_id: str,
        sections: Sequence[Section] | None = None,
        ended: bool = True,
        current_state: Collection[Section] = (),
    ) -> UserMemory:
        """Without sections: everything under CTX# (one Query, plus pages). With sections: the
        small always-read items (section states, clarifications, pending mentions, summary) and the
        facts and documented facts of those sections only, one Query per contiguous run of
        sections, in parallel (storage.keys.read_ranges; at most storage.keys.max_read_ranges()
        per block). ``ended=False``: the sections' ended facts (stopped, resolved, deprecated,
        deleted) come as briefs in ``UserMemory.ended`` and are not read whole (a question about
        the present). ``current_state``: of those sections, the ones read as their current-state
        copies (``domain.models.CurrentFact``: each current fact as the line a safety check needs,
        each ended one as its brief; storage.keys.current_ranges), not their whole facts."""
        ...


class FactStore(Protocol):
    """Single facts, their history, and atomic change sets (profile edits, maintenance, documents)."""

    def get_fact(self, user_id: str, fact_id: str) -> Fact | None: ...
    def get_history(self, user_id: str, fact_id: str) -> list[HistoryEvent]: ...
    def apply(
        self,
        user_id: str,
        fragment_id: str | None,
        changes: ChangeSet,
        applied: Sequence[dict] = (),
        fingerprint: str | None = None,
    ) -> None:
        """Write a change set atomically; raises ConflictError on a failed version condition and
        FragmentGone when the fragment is no longer processing (or already has the fingerprint)."""
        ...

    def put_documented(self, user_id: str, fact: Fact) -> None: ...


class FragmentStore(Protocol):
    """Fragment intake and its state machine (write/intake.py, the write path)."""

    def create_fragment(
        self, user_id: str, fragment: Fragment, pending: PendingMention | None, new_start: bool = True
    ) -> bool:
        """Store a new queued fragment; False when that id already exists (a client retry) or, with
        new_start=False (work queued before an erasure), when the user was erased."""
        ...

    def get_fragment(self, user_id: str, fragment_id: str) -> Fragment | None: ...
    def transition_fragment(
        self,
        user_id: str,
        fragment: Fragment,
        to: FragmentStatus,
        expected: Sequence[FragmentStatus],
        rejected: Sequence[dict] = (),
        reason: str | None = None,
    ) -> Fragment:
        """Move the fragment's state conditionally; raises FragmentGone if not in ``expected``."""
        ...

    def is_erased(self, user_id: str) -> bool:
        """Whether the user's erasure tombstone stands (intake tells an erased user's late retry
        from a lost fragment with it)."""
        ...


class EpisodeStore(Protocol):
    """Episode rows (the vectors live in the VectorIndex; these rows let erasure and export find them)."""

    def put_episode(self, user_id: str, episode: Episode) -> None: ...
    def get_episode(self, user_id: str, episode_id: str) -> Episode | None: ...
    def delete_episode(self, user_id: str, episode_id: str) -> None: ...
    def list_episodes(self, user_id: str) -> list[Episode]: ...
    def recent_episodes(self, user_id: str, limit: int) -> list[Episode]:
        """The user's last ``limit`` episodes, newest first (one bounded read: ids sort by time)."""
        ...

    def add_episode_retrievals(self, user_id: str, episode_id: str, count: int, last_at: datetime) -> bool:
        """Batched read statistics: add ``count``, move last_retrieved_at forward only. Never
        creates a row (an erased episode stays gone); False when there is none."""
        ...

    def update_episode(self, user_id: str, episode: Episode, seen_last_retrieved_at: datetime | None) -> None:
        """Rewrite the row's own fields (never its retrieval statistics) if it still exists and
        was not retrieved since it was read; ConflictError otherwise."""
        ...


class ActivityIndex(Protocol):
    """Which users maintenance visits on which day, and how far the scheduler got."""

    def mark_active(self, user_id: str, day: str) -> None: ...
    def list_active_users_page(
        self, day: str, cursor: dict | None = None, limit: int = 1000
    ) -> tuple[list[str], dict | None]:
        """One page of the users due on ``day``, and the cursor of the next page (None at the end)."""
        ...

    def get_scheduler_day(self) -> str | None: ...
    def put_scheduler_day(self, day: str) -> None: ...


class SummaryStore(Protocol):
    """The maintained profile summary (the read path gets it inside load_memory)."""

    def get_summary(self, user_id: str) -> dict | None: ...
    def put_summary(self, user_id: str, summary: dict) -> None: ...


class ErasureStore(Protocol):
    """Export and erasure of everything a user has."""

    def export(self, user_id: str) -> dict: ...
    def erase(self, user_id: str) -> int:
        """Delete every item of the user; returns the number of items deleted."""
        ...


class SessionStore(Protocol):
    """Chat session buffers, SK SESS#<session_id>; see chat/sessions.py."""

    def get_session(self, user_id: str, session_id: str) -> SessionBuffer | None:
        """The session's buffer, read consistently; None when the session was never seen."""
        ...

    def put_session(self, user_id: str, buffer: SessionBuffer, expected_version: int) -> bool:
        """Replace the buffer if its stored version is ``expected_version`` (0: must not exist yet);
        False when another writer came first. Writes the idle marker while ``idle_due`` is set."""
        ...

    def put_pending(self, user_id: str, mention: PendingMention) -> bool:
        """A buffered chat turn's mention, under the fragment id it will be flushed as; False
        after an erasure."""
        ...

    def list_open_sessions(self, user_id: str) -> list[SessionBuffer]:
        """The user's buffers with anything pending or claimed (one query in the user's partition)."""
        ...

    def list_due_sessions(self, day: str, until: datetime) -> list[tuple[str, str]]:
        """(user_id, session_id) of buffers whose idle marker is on ``day`` and due by ``until``
        (the sparse index, never a Scan)."""
        ...

    def get_session_sweep_day(self) -> str | None: ...
    def put_session_sweep_day(self, day: str) -> None: ...


class MemoryRepository(
    ContextStore,
    FactStore,
    FragmentStore,
    EpisodeStore,
    ActivityIndex,
    SummaryStore,
    ErasureStore,
    SessionStore,
    Protocol,
):
    """All state of all users; every method is scoped by the caller's user id.

    Implementations: storage.dynamodb.DynamoRepository (AWS, moto) and
    storage.memory.InMemoryRepository (tests, in-process benchmarks); the contract tests run both.
    """

    calls: int  # storage round trips, counted for tests and benchmarks


class FragmentQueue(Protocol):
    def send(self, user_id: str, fragment_id: str) -> None: ...


@dataclass
class EpisodeHit:
    episode_id: str
    text: str
    at: datetime
    score: float


@dataclass(frozen=True)
class VectorCount:
    """The user's documents as the store counts them, and whether that count can be trusted:
    ``settled`` is False where writes become searchable only after a refresh interval and the
    store offers no refresh (a serverless collection): what the last moments wrote or deleted
    may be missing from it."""

    count: int
    settled: bool


class VectorIndex(Protocol):
    def index(self, user_id: str, episode: Episode, vector: list[float]) -> str:
        """Store one episode vector; returns the reference the episode row keeps, the one
        ``delete_documents`` takes (the store makes the document id itself)."""
        ...

    def search(
        self, user_id: str, vector: list[float], k: int, *, text: str | None = None
    ) -> list[EpisodeHit]:
        """Top k of the user's episodes by similarity to ``vector``. An index may also use the
        query ``text`` (the local index fuses cosine with BM25 over the user's episodes)."""
        ...

    def delete_user(self, user_id: str) -> int:
        """Delete every document of the user a search finds (which may miss a write not yet
        searchable: erasure deletes the rows' references first); returns how many."""
        ...

    def delete_documents(self, user_id: str, doc_ids: Sequence[str]) -> int:
        """Delete these documents (references from the user's own episode rows) where they
        belong to the user: another user's, or a forged reference, is never deleted; one indexed
        a moment ago is. Returns how many were deleted; already-deleted ones are not an error."""
        ...

    def count_user(self, user_id: str) -> int: ...
    def settled_count(self, user_id: str) -> VectorCount:
        """Count after making recent writes countable where the store can (a refresh)."""
        ...


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class SectionClassifier(Protocol):
    """Which sections a dialogue fragment touches (write path)."""

    def classify(self, messages: Sequence[Message]) -> list[Section]: ...


class Extractor(Protocol):
    """Candidate assertions for the selected sections, from the user's own words."""

    name: str

    def extract(self, messages: Sequence[Message], sections: Sequence[Section]) -> list[Assertion]: ...
