"""POST /v1/chat's per-user rate limit through the API handler on moto (DynamoDB counter in the
user's partition), with the fake OpenAI-compatible server as the model."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.conftest import T0
from tests.fakes.fake_openai import FakeOpenAI

from .conftest import api_event, call

LIMIT = 3


@pytest.fixture
def limited(cloud, monkeypatch):
    from health_ltm import wiring
    from health_ltm.domain.clock import FixedClock

    clock = FixedClock(T0 + timedelta(seconds=20))
    with FakeOpenAI(rules=True) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LTM_LLM_MAX_RETRIES", "0")
        monkeypatch.setenv("LTM_CHAT_RATE_PER_MINUTE", str(LIMIT))
        monkeypatch.setattr(wiring, "clock", lambda: clock)
        wiring.reset()
        yield clock
    wiring.reset()


def chat(message: str, user: str = "alice", session: str = "s1") -> dict:
    from health_ltm.handlers.api import handler

    from .conftest import context

    event = api_event("POST", "/v1/chat", user, {"session_id": session, "message": message})
    return handler(event, context("api"))


def header(response: dict, name: str) -> str | None:
    """A response header, as the REST proxy response carries it (one value per name here)."""
    values = {k.lower(): v for k, v in (response.get("multiValueHeaders") or {}).items()}
    values.update({k.lower(): [v] for k, v in (response.get("headers") or {}).items()})
    return values.get(name.lower(), [None])[0]


def user_items(cloud, user: str) -> list[dict]:
    import boto3

    return boto3.client("dynamodb").query(
        TableName=cloud.table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": f"USER#{user}"}},
    )["Items"]


def test_the_call_after_the_limit_answers_429_with_retry_after_until_the_next_minute(
    limited, cloud, capsys, caplog
):
    for i in range(LIMIT):
        assert chat(f"Что мне перекусить? {i}")["statusCode"] == 200

    refused = chat("Что мне перекусить? ещё раз")

    assert refused["statusCode"] == 429
    assert header(refused, "Retry-After") == "40"  # 09:00:20 -> 09:01:00
    assert header(refused, "Content-Type") == "application/problem+json"
    problem = json.loads(refused["body"])
    assert problem["status"] == 429 and problem["type"].endswith("/errors/429")
    assert set(problem) == {"type", "title", "detail", "status"}
    assert "ещё" not in problem["detail"]  # never echoes what was said
    # Counted as a metric with no user dimension; the user id is in no log line or metric.
    out = capsys.readouterr().out
    emf = [json.loads(line) for line in out.splitlines() if '"ChatRateLimited"' in line]
    assert len(emf) == 1 and emf[0]["ChatRateLimited"] in (1.0, [1.0])
    dimensions = {d for group in emf[0]["_aws"]["CloudWatchMetrics"][0]["Dimensions"] for d in group}
    assert dimensions <= {"service"}
    assert "alice" not in out + " ".join(str(vars(record)) for record in caplog.records)

    # Another user is not limited; the next minute lets alice through again.
    assert chat("Что мне перекусить?", user="bob")["statusCode"] == 200
    limited.advance(seconds=39)
    assert header(chat("Что мне перекусить? ещё"), "Retry-After") == "1"
    limited.advance(seconds=1)
    assert chat("Что мне перекусить? наконец")["statusCode"] == 200


def test_a_refused_turn_is_not_kept_for_memory(limited, cloud):
    for i in range(LIMIT):
        chat(f"Что мне перекусить? {i}")
    assert chat("У меня аллергия на арахис")["statusCode"] == 429

    status, exported = call(api_event("GET", "/v1/export", "alice"))

    assert status == 200
    said = json.dumps(exported, ensure_ascii=False)
    assert "арахис" not in said and "перекусить? 2" in said


def test_erasure_leaves_no_item_of_the_user_not_even_the_counter(limited, cloud):
    for i in range(LIMIT + 1):
        chat(f"Что мне перекусить? {i}")
    assert any(i["SK"]["S"].startswith("RATE#chat#") for i in user_items(cloud, "alice"))

    status, erased = call(api_event("DELETE", "/v1/me", "alice"))

    assert status == 200 and erased["remaining_items"] == 0
    assert user_items(cloud, "alice") == []


def test_zero_turns_the_limit_off(cloud, monkeypatch):
    from health_ltm import wiring

    monkeypatch.setenv("LTM_CHAT_RATE_PER_MINUTE", "0")
    wiring.reset()
    # No model configured: each turn answers its 503 (and is kept); none is refused.
    statuses = {chat(f"Что мне перекусить? {i}")["statusCode"] for i in range(25)}
    assert statuses == {503}
    assert not any(i["SK"]["S"].startswith("RATE#") for i in user_items(cloud, "alice"))


def test_the_default_limit_counts_turns_without_a_model_too(cloud, monkeypatch):
    from health_ltm import wiring
    from health_ltm.domain.clock import FixedClock

    # One minute on a fixed clock: 21 turns on the wall clock could straddle two minutes.
    clock = FixedClock(T0 + timedelta(seconds=20))
    monkeypatch.setattr(wiring, "clock", lambda: clock)
    # 20 a minute by default; a turn answered 503 (no model) still went through the limit.
    statuses = [chat(f"Что мне перекусить? {i}")["statusCode"] for i in range(21)]
    assert statuses == [503] * 20 + [429]


def test_a_failing_counter_lets_the_turn_through_and_says_so(cloud, monkeypatch, caplog):
    import boto3

    from health_ltm import wiring
    from health_ltm.storage.rate_limit import DynamoChatRateLimiter

    broken = DynamoChatRateLimiter(boto3.client("dynamodb"), "no-such-table", 1)
    monkeypatch.setattr(wiring, "chat_rate_limiter", lambda: broken)

    statuses = [chat(f"Что мне перекусить? {i}")["statusCode"] for i in range(3)]

    assert statuses == [503] * 3  # no model here; never 429, never 500
    warned = [r for r in caplog.records if r.getMessage() == "chat rate limit unavailable"]
    assert [getattr(r, "error_type", None) for r in warned] == ["ResourceNotFoundException"] * 3
