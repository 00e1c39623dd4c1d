"""Idle chat sessions: the maintenance schedule flushes buffers nobody touched for T minutes.

Where the lookup lives and why: a buffer with pending turns carries a sparse marker in the
existing active-users GSI (``IDLE#<due day>#<shard>`` -> due time; see the session section of
storage/dynamodb.py). The sweep asks the index, per day since its last run and per shard, for
markers due by now: a handful of key-condition Queries, never a Scan, and no new index or queue
(the CDK stays as it is; a delayed SQS message could not do it anyway: the extraction queue is
FIFO, which has no per-message delay, and 15 minutes is the most SQS can delay).

How soon an idle session is flushed depends on how often the schedule runs (nightly by default;
a rule with ``{"detail": {"task": "sessions"}}`` every few minutes runs this sweep alone). A user's
next session flushes their earlier ones at once anyway (chat/sessions.py).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, timedelta

from ..chat.sessions import BufferPolicy, BufferStore, SessionBuffers
from ..observability import logger
from ..ports import Clock, FragmentQueue

MAX_CATCH_UP_DAYS = 31
# Markers are always written for a time after their write, so with no cursor yet (the first run)
# the last two days hold every marker there can be.
FIRST_RUN_LOOKBACK_DAYS = 2
DEFAULT_BUDGET_S = 60.0  # the maintain function's timeout is 120 s; what is left waits for the next run


@dataclass
class SessionSweep:
    days_queried: int = 0
    due: int = 0
    outcomes: Counter = field(default_factory=Counter)
    fragments: int = 0
    failed: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict:
        return {
            "days_queried": self.days_queried,
            "due": self.due,
            "flushed": self.outcomes["flushed"],
            "rearmed": self.outcomes["rearmed"],
            "fragments": self.fragments,
            "failed": self.failed,
            "dry_run": self.dry_run,
        }


def sweep_idle_sessions(
    repository: BufferStore,
    queue: FragmentQueue,
    clock: Clock,
    new_id: Callable[[], str],
    policy: BufferPolicy,
    *,
    dry_run: bool = False,
    budget_s: float = DEFAULT_BUDGET_S,
) -> SessionSweep:
    now = clock.now()
    today = now.astimezone(UTC).date()
    last = repository.get_session_sweep_day()
    first = (
        max(date.fromisoformat(last), today - timedelta(days=MAX_CATCH_UP_DAYS))
        if last
        else today - timedelta(days=FIRST_RUN_LOOKBACK_DAYS)
    )
    buffers = SessionBuffers(repository, queue, clock, new_id, policy)
    report = SessionSweep(dry_run=dry_run)
    started = time.monotonic()
    unfinished: date | None = None  # the earliest day whose markers must be looked at again
    day = first
    while day <= today:
        report.days_queried += 1
        due = repository.list_due_sessions(day.isoformat(), now)
        report.due += len(due)
        for user_id, session_id in due if not dry_run else ():
            if time.monotonic() - started > budget_s:
                unfinished = min(unfinished or day, day)
                break
            try:
                outcome, fragment_ids = buffers.flush_if_idle(user_id, session_id, now)
            except Exception as exc:  # the marker stays; the next run retries from this day
                report.failed += 1
                unfinished = min(unfinished or day, day)
                logger.warning("idle session flush failed", extra={"error_type": type(exc).__name__})
                continue
            report.outcomes[outcome] += 1
            report.fragments += len(fragment_ids)
        day += timedelta(days=1)
    if not dry_run:
        repository.put_session_sweep_day((unfinished or today).isoformat())
    return report
