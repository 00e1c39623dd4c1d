"""Nightly fan-out: find the users due for maintenance through the sparse GSI (never a Scan)
and send them in batches to the maintenance queue, where per-user jobs run in parallel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from ..domain.messages import MaintenanceMessage
from ..ports import ActivityIndex, Clock
from .policies import PolicyTable, load_policies

MAX_CATCH_UP_DAYS = 31


USERS_PER_MESSAGE = 25  # one maintenance record runs this many per-user jobs
PAGE_SIZE = 1000
SAFETY_MARGIN_S = 30.0  # leave the invocation this long to send its continuation


@dataclass
class FanOut:
    run_day: str
    days_queried: int
    users: int
    dry_run: bool


def due_days(today: date, last_run: date | None, table: PolicyTable) -> list[str]:
    """Activity days whose users may have something due today (and on any missed run day)."""
    first = (
        today if last_run is None else max(last_run + timedelta(days=1), today - timedelta(MAX_CATCH_UP_DAYS))
    )
    days: set[str] = set()
    run_day = first
    while run_day <= today:
        days.add(run_day.isoformat())  # explicit "due on" markers (e.g. a course's end date)
        days.update((run_day - timedelta(days=h)).isoformat() for h in table.horizons())
        run_day += timedelta(days=1)
    return sorted(days)


def fan_out(
    repository: ActivityIndex, queue, clock: Clock, dry_run: bool = False, policies: PolicyTable | None = None
) -> FanOut:
    """The scheduled run: one "list this day" task per due activity day. Listing the users
    happens in the queue's workers, in parallel across days and a page at a time, so no single
    invocation has to hold a night of ten million users."""
    table = policies or load_policies()
    today = clock.now().date()
    last = repository.get_scheduler_day()
    days = due_days(today, date.fromisoformat(last) if last else None, table)
    queue.send_batch(
        [
            MaintenanceMessage(task="fanout", day=today.isoformat(), activity_day=day, dry_run=dry_run)
            for day in days
        ]
    )
    if not dry_run:
        repository.put_scheduler_day(today.isoformat())
    return FanOut(run_day=today.isoformat(), days_queried=len(days), users=0, dry_run=dry_run)


def fan_out_day(
    repository: ActivityIndex, queue, task: MaintenanceMessage, seconds_left: Callable[[], float]
) -> int:
    """List one activity day's users page by page and queue them in batches; when the
    invocation runs short of time, queue a continuation from the cursor instead. Returns the
    number of users queued. A retried task re-queues some users: their jobs are idempotent."""
    assert task.activity_day is not None
    cursor = task.cursor
    queued = 0
    while True:
        users, cursor = repository.list_active_users_page(task.activity_day, cursor, PAGE_SIZE)
        queue.send_batch(
            [
                MaintenanceMessage(
                    day=task.day, dry_run=task.dry_run, user_ids=users[i : i + USERS_PER_MESSAGE]
                )
                for i in range(0, len(users), USERS_PER_MESSAGE)
            ]
        )
        queued += len(users)
        if cursor is None:
            return queued
        if seconds_left() < SAFETY_MARGIN_S:
            queue.send_batch([task.model_copy(update={"cursor": cursor})])
            return queued
