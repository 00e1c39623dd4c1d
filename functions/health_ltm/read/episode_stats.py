"""Retrieval statistics of episodes, kept cheaply: counted in memory, written in batches.

The read path records the episodes it returned; no read writes anything. A flush, at most every
FLUSH_AFTER_S seconds or once FLUSH_AFTER_HITS hits wait (checked when a read records), runs on
one background thread so no response waits for it, and writes one UpdateItem per touched episode
(ADD the count, move last_retrieved_at forward only) plus one "due on" marker per user at the
day the newest retrieval ages out, so the nightly scheduler looks at that user again then.

A batch not yet flushed is lost when the container dies (a Lambda container may be frozen and
reclaimed at any time). That is accepted for statistics: the worst case is an episode archived
although it was retrieved once in its last minute of a 180-day life.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol

from aws_lambda_powertools.metrics import MetricUnit

from ..observability import logger, metrics
from ..ports import ActivityIndex, EpisodeStore

FLUSH_AFTER_S = 60.0
FLUSH_AFTER_HITS = 200


@dataclass
class _Tally:
    count: int
    last_at: datetime


class StatsStore(EpisodeStore, ActivityIndex, Protocol):
    """Counts go to the episode rows; a retrieval also makes the user due for archiving later."""


class EpisodeStats:
    """One per container (see wiring); thread-safe."""

    def __init__(
        self,
        repository: StatsStore,
        *,
        due_after_days: int | None = None,
        flush_after_s: float = FLUSH_AFTER_S,
        flush_after_hits: int = FLUSH_AFTER_HITS,
        background: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._repository = repository
        self._due_after = timedelta(days=due_after_days) if due_after_days else None
        self._flush_after_s = flush_after_s
        self._flush_after_hits = flush_after_hits
        self._background = background
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._flushing = threading.Lock()  # one flush at a time
        self._pending: dict[tuple[str, str], _Tally] = {}
        self._hits = 0
        self._last_flush = monotonic()
        self._executor: ThreadPoolExecutor | None = None
        self._inflight: Future | None = None

    def record(self, user_id: str, episode_ids: Sequence[str], at: datetime) -> bool:
        """Count the episodes one read returned; True when this call started a flush."""
        with self._lock:
            for episode_id in episode_ids:
                tally = self._pending.get((user_id, episode_id))
                if tally is None:
                    self._pending[(user_id, episode_id)] = _Tally(1, at)
                else:
                    tally.count += 1
                    tally.last_at = max(tally.last_at, at)
                self._hits += 1
            now = self._monotonic()
            idle = self._inflight is None or self._inflight.done()
            due = (
                idle
                and bool(self._pending)
                and (self._hits >= self._flush_after_hits or now - self._last_flush >= self._flush_after_s)
            )
            if due:
                self._last_flush = now  # the next record must not start a second flush
        if due:
            self._start_flush()
        return due

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def flush(self) -> int:
        """Write everything waiting; returns the number of episode rows updated."""
        with self._flushing:
            with self._lock:
                batch, self._pending, self._hits = self._pending, {}, 0
                self._last_flush = self._monotonic()
            written = failed = 0
            newest: dict[str, date] = {}
            for (user_id, episode_id), tally in batch.items():
                try:
                    written += self._repository.add_episode_retrievals(
                        user_id, episode_id, tally.count, tally.last_at
                    )
                except Exception:  # statistics: counted and dropped, never retried forever
                    failed += 1
                day = tally.last_at.date()
                newest[user_id] = max(newest.get(user_id, day), day)
            if self._due_after is not None:
                for user_id, day in newest.items():
                    try:
                        self._repository.mark_active(user_id, (day + self._due_after).isoformat())
                    except Exception:
                        failed += 1
            if failed:
                metrics.add_metric(name="EpisodeStatsWriteFailed", unit=MetricUnit.Count, value=failed)
                logger.warning("episode statistics partly not written", extra={"failed": failed})
            return written

    def wait(self, timeout: float | None = None) -> None:
        """Block until a background flush in flight has finished (tests, local shutdown)."""
        inflight = self._inflight
        if inflight is not None:
            inflight.result(timeout)

    def _start_flush(self) -> None:
        if not self._background:
            self.flush()
            return
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="episode-stats")
            # RuntimeError: the interpreter is shutting down; statistics must never fail a read
            with contextlib.suppress(RuntimeError):
                self._inflight = self._executor.submit(self.flush)
