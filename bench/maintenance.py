"""Maintenance: the per-user job at 100 and 5,000 facts, and the nightly fan-out.

The per-user job runs through the real ``maintain`` handler with a one-record SQS event (the
record the fan-out sends), so it is exactly the Lambda's per-user work: load the memory, plan
the due policies and consolidation, one conditional transaction per change, refresh the
summary, archive old episodes. Two nights per user:

- ``backlog``: the first run over a never-maintained profile (stale symptoms, ended courses,
  facts due for promotion, lapsed candidates and duplicates all at once): the worst case;
- ``nightly``: the run of the next night, when little is due: the common case.

The clock is fixed at the profiles' "now" (then +1 day). In-process storage and the emulator;
with the emulator, every DynamoDB call and its capacity units are counted.

The fan-out (``maintenance.scheduler.fan_out``: GSI queries for the due days, SendMessageBatch
of 10) is measured for calls per user, in-process for its CPU per user.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

from bench import harness
from bench.profiles import NOW, build_profile, seed
from bench.stats import summarize, summarize_counts

SIZES = (100, 5000)


def _event(user: str, day: str) -> dict:
    from tests.fakes.sqs import queue_arn, received

    from ltm_local.events import sqs_event

    body = json.dumps({"user_id": user, "day": day, "dry_run": False})
    return sqs_event([received(body)], queue_arn("HealthLtm-maintenance"))


class _Clock:
    def __init__(self) -> None:
        self.now_value = NOW

    def now(self):
        return self.now_value


def _job(user: str, clock: _Clock, when) -> tuple[float, dict]:
    from health_ltm.handlers.maintain import handler

    clock.now_value = when
    event = _event(user, when.date().isoformat())
    started = time.perf_counter()
    result = handler(event, harness.lambda_context("maintain"))
    elapsed = time.perf_counter() - started
    if result.get("batchItemFailures"):
        raise RuntimeError(f"maintenance job failed for {user}")
    return elapsed, result


def _changes_made(repo, user: str) -> int:
    """Policy and merge events written for this user (from its history)."""
    exported = repo.export(user)
    return sum(1 for h in exported["history"] if h.get("type") in ("policy", "merge"))


def run(quick: bool = False) -> dict:
    from health_ltm import wiring
    from health_ltm.observability import metrics
    from health_ltm.storage.memory import InMemoryRepository

    profiles = {n: build_profile(n, seed=3) for n in SIZES}
    clock = _Clock()
    original_clock = wiring.clock
    wiring.clock = lambda: clock  # type: ignore[assignment]
    out: dict = {"profiles": {str(n): p.describe() for n, p in profiles.items()}}
    try:
        # ------------------------------------------------------------ in-process
        reps = {100: 10, 5000: 2} if quick else {100: 60, 5000: 8}
        repo = InMemoryRepository()
        result: dict = {}
        with harness.use_repository(repo):
            for n in SIZES:
                rows: dict[str, list] = {"backlog": [], "nightly": []}
                calls: dict[str, list[int]] = {"backlog": [], "nightly": []}
                changes: list[int] = []
                for rep in range(reps[n] + 1):  # the first user is a warm-up
                    user = f"bench-maint-{n}-{rep}"
                    seed(repo, user, profiles[n])
                    for night, when in (("backlog", NOW), ("nightly", NOW + timedelta(days=1))):
                        before = repo.calls
                        elapsed, _ = _job(user, clock, when)
                        metrics.clear_metrics()
                        if rep:
                            rows[night].append(elapsed)
                            calls[night].append(repo.calls - before)
                    if rep:
                        changes.append(_changes_made(repo, user))
                result[str(n)] = {
                    night: {**summarize(rows[night]), "repository_calls": summarize_counts(calls[night])}
                    for night in rows
                }
                result[str(n)]["backlog_changes"] = summarize_counts(changes)
        out["in_process"] = result

        # ------------------------------------------------------------ emulator
        reps = {100: 2, 5000: 0} if quick else {100: 6, 5000: 1}
        result = {}
        with harness.emulator() as env:
            seeder = harness.dynamo_repository(env)
            repo = wiring.repository()
            meter = harness.DynamoMeter(repo.client, harness.size_lookup_for(env))
            for n in SIZES:
                if not reps[n]:
                    continue
                rows = {"backlog": [], "nightly": []}
                usage: dict[str, list] = {"backlog": [], "nightly": []}
                for rep in range(reps[n] + (1 if n < 5000 else 0)):
                    user = f"bench-maint-{n}-{rep}"
                    seed(seeder, user, profiles[n])
                    for night, when in (("backlog", NOW), ("nightly", NOW + timedelta(days=1))):
                        meter.reset()
                        elapsed, _ = _job(user, clock, when)
                        metrics.clear_metrics()
                        used = meter.reset()
                        if rep or n >= 5000:
                            rows[night].append(elapsed)
                            usage[night].append(used)
                result[str(n)] = {
                    night: {
                        **summarize(rows[night]),
                        "in_storage_calls": summarize([u.seconds for u in usage[night]]),
                        "dynamodb": usage[night][-1].as_dict(),
                    }
                    for night in rows
                }
            result["fan_out"] = fan_out_emulator(env, 100 if quick else 500)
        out["emulator"] = result
        out["fan_out_in_process"] = fan_out_in_process(2000 if quick else 20000)
    finally:
        wiring.clock = original_clock  # type: ignore[assignment]
    return out


class _NullQueue:
    def __init__(self) -> None:
        self.sent = 0

    def send_batch(self, messages) -> int:
        for start in range(0, len(messages), 10):
            _ = [m.model_dump_json() for m in messages[start : start + 10]]  # what SQS would get
        self.sent += len(messages)
        return len(messages)


class _TaskQueue(_NullQueue):
    """Keeps the listing tasks the schedule queues, to run them as the queue's workers would."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: list = []

    def send_batch(self, messages) -> int:
        self.tasks.extend(messages)
        return super().send_batch(messages)


def _fan_out_both_steps(repo, clock, jobs_queue):
    """The schedule (one listing task per due day), then every task (pages -> user batches)."""
    from health_ltm.maintenance.scheduler import fan_out, fan_out_day

    tasks = _TaskQueue()
    result = fan_out(repo, tasks, clock)
    users = sum(fan_out_day(repo, jobs_queue, task, seconds_left=lambda: 900.0) for task in tasks.tasks)
    return result, users


def fan_out_in_process(users: int) -> dict:
    """CPU per user of the fan-out (GSI listing + messages), storage and queue in-process."""
    from health_ltm.storage.memory import InMemoryRepository

    clock = _Clock()
    clock.now_value = NOW
    yesterday = (NOW - timedelta(days=1)).date().isoformat()
    repo = InMemoryRepository()
    for i in range(users):
        repo.mark_active(f"bench-fan-{i:07d}", yesterday)
    queue = _NullQueue()
    started = time.perf_counter()
    result, users_queued = _fan_out_both_steps(repo, clock, queue)
    elapsed = time.perf_counter() - started
    return {
        "users": users_queued,
        "days_queried": result.days_queried,
        "seconds": round(elapsed, 3),
        "cpu_us_per_user": round(elapsed / max(1, users_queued) * 1e6, 2),
        "_note": "InMemoryRepository.list_active_users_page scans its users (a Python stand-in for the GSI).",
    }


def fan_out_emulator(env, users: int) -> dict:
    """DynamoDB and SQS calls of the fan-out for `users` active users, against the emulator."""
    import boto3

    from health_ltm.adapters.sqs_queue import SqsMaintenanceQueue

    clock = _Clock()
    clock.now_value = NOW
    yesterday = (NOW - timedelta(days=1)).date().isoformat()
    seeder = harness.dynamo_repository(env)
    for i in range(users):
        seeder.mark_active(f"bench-fan-{i:07d}", yesterday)
    repo = harness.dynamo_repository(env)
    meter = harness.DynamoMeter(repo.client)
    sqs = boto3.client("sqs")
    sqs_calls: dict[str, int] = {}

    def count(model, **_):
        sqs_calls[model.name] = sqs_calls.get(model.name, 0) + 1

    sqs.meta.events.register("before-parameter-build.sqs", count)
    url = env.client("sqs").get_queue_url(QueueName=f"{harness.PREFIX}-maintenance")["QueueUrl"]
    started = time.perf_counter()
    result, users_queued = _fan_out_both_steps(repo, clock, SqsMaintenanceQueue(url, sqs))
    elapsed = time.perf_counter() - started
    usage = meter.reset()
    return {
        "users": users_queued,
        "days_queried": result.days_queried,
        "seconds_on_emulator": round(elapsed, 2),
        "dynamodb": usage.as_dict(),
        "sqs_calls": sqs_calls,
        "sqs_calls_per_user": round(sum(sqs_calls.values()) / max(1, users_queued), 3),
    }
