"""DynamoDB throttling against the real extract handler on a local stack (moto server over HTTP).

Faults are injected into the handlers' own boto3 client with botocore events:

* ``before-send`` answers a throttling error instead of sending: botocore's retry handler sees it
  and retries (standard mode, botocore's default and what the functions get: 4 attempts for
  DynamoDB; legacy mode: 10), so a short burst is absorbed and the record succeeds on its first
  delivery, while a burst as long as the attempts fails the record;
* ``before-call`` answers the error without any retry, i.e. the client's retries are exhausted: the
  record fails, SQS redelivers it, and the redelivery applies the fragment exactly once, whatever
  call the throttling hit (swept over every DynamoDB call one extraction makes).
"""

from __future__ import annotations

import json

import pytest
from bench.load import live_stack
from botocore.awsrequest import AWSResponse

from .conftest import assert_whole, drain, export, failures, summary

pytestmark = [pytest.mark.xdist_group("ltm_live_dynamodb_faults"), pytest.mark.slow]

TEXT = "У меня аллергия на пенициллин и арахис. Пью Энап 5 мг по утрам"
CODES = ("ProvisionedThroughputExceededException", "ThrottlingException")


class _Raw:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_kwargs):
        yield self._body


def _error_body(code: str) -> bytes:
    return json.dumps(
        {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": "Rate exceeded"}
    ).encode()


def throttled_response(code: str) -> AWSResponse:
    return AWSResponse("http://throttled", 400, {"x-amzn-errortype": code}, _Raw(_error_body(code)))


def throttled_parsed(code: str) -> tuple[AWSResponse, dict]:
    parsed = {
        "Error": {"Code": code, "Message": "Rate exceeded"},
        "ResponseMetadata": {"HTTPStatusCode": 400, "RetryAttempts": 9},
    }
    return throttled_response(code), parsed


class Injector:
    """Counts the DynamoDB calls of the handlers' client and throttles the chosen ones."""

    def __init__(self, client) -> None:
        self.client = client
        self.calls: list[str] = []
        self.sends: list[str] = []
        self.fail_call_at: int | None = None  # index into self.calls: raise there, no retries
        self.send_failures: dict[str, int] = {}  # operation -> throttled sends left (retried)
        self.code = CODES[0]
        self.fired = 0
        client.meta.events.register("before-call.dynamodb", self._before_call)
        client.meta.events.register("before-send.dynamodb", self._before_send)

    def close(self) -> None:
        self.client.meta.events.unregister("before-call.dynamodb", self._before_call)
        self.client.meta.events.unregister("before-send.dynamodb", self._before_send)

    def _before_call(self, model, **_kwargs):
        self.calls.append(model.name)
        if self.fail_call_at is not None and len(self.calls) - 1 == self.fail_call_at:
            self.fired += 1
            return throttled_parsed(self.code)
        return None

    def _before_send(self, request, **_kwargs):
        operation = request.headers.get("X-Amz-Target", b"")
        operation = (operation.decode() if isinstance(operation, bytes) else operation).rpartition(".")[2]
        self.sends.append(operation)
        if self.send_failures.get(operation, 0) > 0:
            self.send_failures[operation] -= 1
            self.fired += 1
            return throttled_response(self.code)
        return None


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "AWS_RETRY_MODE": None, "AWS_MAX_ATTEMPTS": None}
    with live_stack(tmp_path_factory.mktemp("throttle") / "ltm", env=env, pollers=False) as live:
        yield live


def _injector() -> Injector:
    from health_ltm import wiring

    return Injector(wiring.repository().client)


@pytest.fixture(scope="module")
def clean_run(live):
    """The reference: the same fragment without faults, and the DynamoDB calls it makes."""
    client = live.client("throttle-reference")
    assert client.say(TEXT)[0] == 202
    injector = _injector()
    try:
        results = drain(live)
    finally:
        injector.close()
    assert failures(results) == 0
    exported = export(client)
    assert_whole(exported)
    assert [f["status"] for f in exported["fragments"]] == ["applied"]
    assert len(exported["facts"]) == 3
    return summary(exported), list(injector.calls)


@pytest.mark.parametrize(("mode", "bursts"), [("legacy", 3), ("standard", 1)])
@pytest.mark.parametrize("code", CODES)
def test_a_short_throttling_burst_is_absorbed_by_the_sdk_retries(
    live, clean_run, monkeypatch, mode, bursts, code
):
    from health_ltm import wiring

    monkeypatch.setenv("AWS_RETRY_MODE", mode)
    wiring.reset()  # a new client with this retry mode
    user = f"absorbed-{mode}-{code[:8]}"
    client = live.client(user)
    assert client.say(TEXT)[0] == 202
    injector = _injector()
    injector.code = code
    injector.send_failures = {"TransactWriteItems": bursts, "Query": bursts}
    assert wiring.repository().client.meta.config.retries["mode"] == mode
    try:
        results = drain(live)
    finally:
        injector.close()
        monkeypatch.delenv("AWS_RETRY_MODE")
        wiring.reset()
    assert injector.fired == 2 * bursts  # the throttles really happened ...
    assert failures(results) == 0  # ... and cost no redelivery
    exported = export(client)
    assert_whole(exported)
    assert summary(exported) == clean_run[0]


def test_a_burst_as_long_as_the_sdk_attempts_fails_the_record_and_the_redelivery_applies_it(
    live, clean_run, monkeypatch
):
    from health_ltm import wiring

    client = live.client("exhausted-by-retries")
    assert client.say(TEXT)[0] == 202
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")  # keeps the throttling backoff (up to 1 s) short
    wiring.reset()
    assert wiring.repository().client.meta.config.retries == {"mode": "standard", "total_max_attempts": 2}
    injector = _injector()
    injector.send_failures = {"TransactWriteItems": 2}
    try:
        first = drain(live)
    finally:
        injector.close()
        monkeypatch.delenv("AWS_MAX_ATTEMPTS")
        wiring.reset()
    assert injector.fired == 2 and failures(first) == 1
    assert_whole(export(client))
    assert failures(drain(live)) == 0
    exported = export(client)
    assert_whole(exported)
    assert summary(exported) == clean_run[0]


def _active_today(live, user: str) -> bool:
    from datetime import UTC, datetime

    from health_ltm import wiring
    from health_ltm.storage import keys

    day = datetime.now(UTC).date().isoformat()
    item = wiring.repository().client.get_item(
        TableName=live.stack.resources.table_name,
        Key={"PK": {"S": keys.user_pk(user)}, "SK": {"S": keys.active_sk(day)}},
    )
    return "Item" in item


def test_throttling_past_the_retries_at_any_call_fails_the_record_and_the_redelivery_applies_it_once(
    live, clean_run
):
    reference, calls = clean_run
    assert len(calls) >= 8  # get, transition, done, load, three applies, episode, final transition, ...
    # After the fragment's final transition only the activity marker follows: since issue 15 it is a
    # TransactWriteItems too (the put guarded by the erasure tombstone), the last call of the run.
    final_transition = max(i for i, op in enumerate(calls) if op == "TransactWriteItems") - 1
    assert calls[final_transition] == "TransactWriteItems"
    assert calls[final_transition + 1 :] == ["TransactWriteItems"]
    for index, operation in enumerate(calls):
        user = f"exhausted-{index}"
        client = live.client(user)
        assert client.say(TEXT)[0] == 202
        injector = _injector()
        injector.code = CODES[index % 2]
        injector.fail_call_at = index
        try:
            first = drain(live)
        finally:
            injector.close()
        assert injector.fired == 1, (index, operation)
        assert failures(first) == 1, (index, operation)  # the record failed: SQS will redeliver it
        half = export(client)
        assert_whole(half)  # whatever was written before the fault is whole
        if index < final_transition:
            assert [f["status"] for f in half["fragments"]] in (["queued"], ["processing"]), (
                index,
                operation,
            )

        again = drain(live)  # the redelivery
        assert failures(again) == 0, (index, operation)
        exported = export(client)
        assert_whole(exported)
        assert summary(exported) == reference, (index, operation)
        visible_episodes = {e["episode_id"] if "episode_id" in e else e["id"] for e in exported["episodes"]}
        assert len(visible_episodes) == 1
        assert exported["vector_documents"] >= 1
        assert _active_today(live, user), (index, operation)  # the scheduler will see this user
