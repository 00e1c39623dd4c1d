"""An episode's life through the unmodified handlers: said, recalled (counted in a batch, not
per read), then archived by the maintain handler once unused for the policy's N days."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from health_ltm.domain.clock import FixedClock
from health_ltm.maintenance.policies import load_policies
from ltm_local.events import sqs_event
from tests.fakes.sqs import queue_arn, received

from .conftest import api_event, call, context, drain_extraction

SAID = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def maintenance_event(user: str, dry_run: bool = False) -> dict:
    body = {"user_id": user, "day": "2026-01-01", "dry_run": dry_run}
    return sqs_event([received(json.dumps(body))], queue_arn("it-maintenance"))


def test_a_recalled_episode_is_counted_in_a_batch_and_archived_when_unused(cloud, monkeypatch):
    from health_ltm import wiring
    from health_ltm.handlers.maintain import handler as maintain

    clock = FixedClock(SAID)
    monkeypatch.setattr(wiring, "clock", lambda: clock)
    status, _ = call(api_event("POST", "/v1/fragments", "alice", {
        "session_id": "s1", "messages": [{"role": "user", "text": "У меня третий день кашель"}],
    }))
    assert status == 202 and drain_extraction(cloud)["batchItemFailures"] == []
    from health_ltm.storage import keys

    repo = wiring.repository()
    [stored] = repo.list_episodes("alice")

    clock.advance(days=10)
    calls_before = repo.calls
    status, out = call(api_event("POST", "/v1/context", "alice", {"query": "Кашель всё ещё не проходит"}))
    assert status == 200 and out["episodes_status"] == "ok" and len(out["episodes"]) == 1
    # the facts' Queries (one per key range, in parallel); the statistics wait in memory
    light = set(out["current_state"])
    whole = [s for s in out["sections"] if s not in light]
    assert repo.calls - calls_before == len(keys.read_ranges(whole)) + len(keys.current_ranges(light))
    assert wiring.episode_stats().pending() == 1

    wiring.episode_stats().flush()
    recalled = repo.get_episode("alice", stored.id)
    assert recalled.retrieval_count == 1 and recalled.last_retrieved_at == clock.now()

    days = load_policies().episodes.archive_after_days
    clock.advance(days=days - 1)
    assert maintain(maintenance_event("alice"), context("maintain")) == {"batchItemFailures": []}
    assert not repo.get_episode("alice", stored.id).archived  # counted from the recall, not the saying

    clock.advance(days=1)
    assert maintain(maintenance_event("alice", dry_run=True), context("maintain"))["batchItemFailures"] == []
    assert not repo.get_episode("alice", stored.id).archived
    assert maintain(maintenance_event("alice"), context("maintain")) == {"batchItemFailures": []}
    archived = repo.get_episode("alice", stored.id)
    assert archived.archived and archived.vector_doc_id is None
    assert wiring.vector_index().count_user("alice") == 0

    status, out = call(api_event("POST", "/v1/context", "alice", {"query": "Кашель всё ещё не проходит"}))
    assert status == 200 and out["episodes_status"] == "ok" and out["episodes"] == []
    status, export = call(api_event("GET", "/v1/export", "alice"))
    assert status == 200 and [e["archived"] for e in export["episodes"]] == [True]
