"""The read path as one use case: a question in, the context out. Built in ``wiring`` with its
dependencies (like the write path), so the route only parses, calls and responds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from ..domain.models import PendingMention
from ..ports import Clock, ContextStore, Embedder, VectorIndex
from .classify import QueryClassification
from .context import ContextResult, build_context


class QueryClassifying(Protocol):
    def classify(self, query: str, recent_messages: Sequence[str] = ()) -> QueryClassification: ...


class RetrievalRecorder(Protocol):
    def record(self, user_id: str, episode_ids: Sequence[str], at: datetime) -> object: ...


@dataclass
class ContextService:
    repository: ContextStore
    classifier: QueryClassifying
    clock: Clock
    episode_timeout_s: float
    embedder: Embedder | None = None
    vector_index: VectorIndex | None = None
    stats: RetrievalRecorder | None = None
    # A chat session's buffered turns as pending mentions (chat.sessions.buffer_mentions over the
    # stored buffer): given by wiring, so the read path does not import the chat package.
    session_mentions: Callable[[str, str], list[PendingMention]] | None = None

    def build(
        self,
        user_id: str,
        query: str,
        max_tokens: int,
        recent_user_messages: Sequence[str] = (),
        session_id: str | None = None,
        unprocessed: Sequence[PendingMention] = (),
    ) -> ContextResult:
        """``unprocessed``: mentions the caller holds that are not stored yet (the chat turn's own
        buffer); ``session_id``: a session whose buffer is read for them."""
        classification = self.classifier.classify(query, list(recent_user_messages))
        now = self.clock.now()
        unprocessed = list(unprocessed)
        if session_id and self.session_mentions is not None:  # one GetItem, only when asked for
            unprocessed += self.session_mentions(user_id, session_id)
        result = build_context(
            self.repository,
            classification,
            user_id,
            query,
            max_tokens,
            embedder=self.embedder,
            vector_index=self.vector_index,
            episode_timeout_s=self.episode_timeout_s,
            now=now,
            unprocessed=unprocessed,
        )
        if self.stats is not None:
            self.stats.record(user_id, result.episode_ids, now)  # batched: no write per read
        return result
