"""Nightly fan-out: find the users due for maintenance through the sparse GSI (never a Scan)
and send them in batches to the maintenance queue, where per-user jobs run in parallel."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ..adapters.sqs_queue import MaintenanceMessage
from ..ports import Clock
from .policies import PolicyTable, load_policies

MAX_CATCH_UP_DAYS = 31


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
    repository, queue, clock: Clock, dry_run: bool = False, policies: PolicyTable | None = None
) -> FanOut:
    table = policies or load_policies()
    today = clock.now().date()
    last = repository.get_scheduler_day()
    days = due_days(today, date.fromisoformat(last) if last else None, table)
    users: set[str] = set()
    for day in days:
        users.update(repository.list_active_users(day))
    queue.send_batch(
        [MaintenanceMessage(user_id=u, day=today.isoformat(), dry_run=dry_run) for u in sorted(users)]
    )
    if not dry_run:
        repository.put_scheduler_day(today.isoformat())
    return FanOut(run_day=today.isoformat(), days_queried=len(days), users=len(users), dry_run=dry_run)
