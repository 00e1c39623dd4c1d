"""Every file in events/ goes through its handler, as Lambda would deliver it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltm_local.events import sqs_event
from tests.fakes.sqs import queue_arn

from .conftest import EVENTS, call, context, drain_extraction, load_event

ALL_EVENTS = sorted(p.name for p in EVENTS.glob("*.json"))
SUB = load_event("api_post_fragment.json")["requestContext"]["authorizer"]["claims"]["sub"]

# What each API event must answer on an account where the user has just sent the sample fragment.
EXPECTED_STATUS = {
    "api_get_health.json": 200,
    "api_get_docs.json": 200,
    "api_post_fragment.json": 202,
    "api_get_fragment.json": 200,
    "api_post_context.json": 200,
    "api_get_facts.json": 200,
    "api_get_fact.json": 404,  # the sample id is not one of this user's facts
    "api_patch_fact.json": 404,
    "api_delete_fact.json": 404,
    "api_put_section.json": 200,
    "api_get_export.json": 200,
    "api_delete_me.json": 200,
    "api_post_chat.json": 503,  # no model configured here: the turn is still buffered
    "api_post_session_end.json": 200,  # the chat event above opened this session
}
SETUP = {"api_post_session_end.json": "api_post_chat.json"}


def test_every_event_file_is_covered():
    handled = set(EXPECTED_STATUS) | {
        "sqs_extraction_batch.json",
        "sqs_maintenance_batch.json",
        "eventbridge_schedule.json",
    }
    assert set(ALL_EVENTS) == handled


@pytest.mark.parametrize("name", sorted(EXPECTED_STATUS))
def test_api_event(cloud, name):
    if name != "api_post_fragment.json":
        call(load_event("api_post_fragment.json"))
    if name in SETUP:
        call(load_event(SETUP[name]))
    status, body = call(load_event(name))
    assert status == EXPECTED_STATUS[name], body


def test_sqs_extraction_batch_event(cloud):
    from health_ltm.handlers.extract import handler

    call(load_event("api_post_fragment.json"))  # the first record's fragment exists; the second's does not
    result = handler(load_event("sqs_extraction_batch.json"), context("extract"))
    assert result == {"batchItemFailures": []}
    _, facts = call(_as_sample_user("/v1/facts"))
    sections = {f["section"] for f in facts["facts"]}
    assert {"medications", "allergies"} <= sections


def test_sqs_maintenance_batch_event(cloud):
    from health_ltm.handlers.maintain import handler

    call(load_event("api_post_fragment.json"))
    drain_extraction(cloud)
    result = handler(load_event("sqs_maintenance_batch.json"), context("maintain"))
    assert result == {"batchItemFailures": []}


def test_eventbridge_schedule_event_fans_out_to_the_maintenance_queue(cloud):
    from health_ltm.handlers.maintain import handler

    call(load_event("api_post_fragment.json"))
    drain_extraction(cloud)
    result = handler(load_event("eventbridge_schedule.json"), context("maintain"))
    assert result["days_queued"] >= 2
    # the listing tasks, run as the queue's worker would, queue this user's job
    tasks = cloud.receive(cloud.maintenance_queue)
    assert {json.loads(m["Body"])["task"] for m in tasks} == {"fanout"}
    batch = sqs_event(tasks, queue_arn("it-maintenance"))
    assert handler(batch, context("maintain")) == {"batchItemFailures": []}
    jobs = [json.loads(m["Body"]) for m in cloud.receive(cloud.maintenance_queue)]
    assert [u for j in jobs for u in j["user_ids"]] == [SUB]


def _as_sample_user(path: str) -> dict:
    event = load_event("api_get_facts.json")
    event["queryStringParameters"] = None
    event["multiValueQueryStringParameters"] = None
    event["path"] = path
    return event


def test_events_are_real_shapes():
    for name in ALL_EVENTS:
        event = json.loads(Path(EVENTS, name).read_text(encoding="utf-8"))
        if name.startswith("api_"):
            assert {"resource", "path", "httpMethod", "headers", "requestContext", "body"} <= set(event)
        elif name.startswith("sqs_"):
            assert all(r["eventSource"] == "aws:sqs" for r in event["Records"])
        if name == "sqs_extraction_batch.json":
            assert all(
                {"MessageGroupId", "MessageDeduplicationId", "SequenceNumber"} <= set(r["attributes"])
                for r in event["Records"]
            )
