"""The local stack in-process: front + auth, pollers (partial failures, DLQ, redrive), tick, persistence.

Stand-in handlers below replace api/extract/maintain (passed by dotted path), so these tests check
the local stack's plumbing, not the service's logic. Each test gets its own LTM_HOME and ephemeral
ports on 127.0.0.1. moto's backends are process-global, so the tests of this module share one xdist
group (one worker, one stack at a time).
"""

from __future__ import annotations

import base64
import http.client
import json
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel

from ltm_local import cli
from ltm_local.auth import DevSigner
from ltm_local.config import StackConfig
from ltm_local.emulator import client
from ltm_local.persistence import SnapshotError
from ltm_local.redrive import redrive
from ltm_local.stack import LocalStack

pytestmark = [pytest.mark.xdist_group("ltm_local_stack"), pytest.mark.slow]

# --- stand-in handlers ----------------------------------------------------------------------------------

CALLS: dict[str, list] = defaultdict(list)
POISON: set[str] = set()
FAIL_ONCE: set[str] = set()
_LOCK = threading.Lock()


def api_echo(event: dict, context) -> dict:
    with _LOCK:
        CALLS["api"].append(event)
    if event["path"] == "/v1/boom":
        raise RuntimeError("stand-in failure")
    claims = (event["requestContext"].get("authorizer") or {}).get("claims")
    return {
        "statusCode": 200,
        "headers": {"Content-Type": "application/json", "X-Single": "s"},
        "multiValueHeaders": {"X-Multi": ["a", "b"]},
        "body": json.dumps(
            {
                "path": event["path"],
                "sub": claims["sub"] if claims else None,
                "claims": claims,
                "query": event["multiValueQueryStringParameters"],
                "body": event["body"],
                "isBase64Encoded": event["isBase64Encoded"],
                "remaining_ms": context.get_remaining_time_in_millis(),
            }
        ),
    }


def extract_standin(event: dict, context) -> dict:
    failures = []
    for record in event["Records"]:
        with _LOCK:
            CALLS["extract"].append(record)
        body = record["body"]
        if body in POISON or (body in FAIL_ONCE and record["attributes"]["ApproximateReceiveCount"] == "1"):
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}


def flaky_extract(event: dict, context) -> None:
    with _LOCK:
        CALLS["flaky"].append([record["body"] for record in event["Records"]])
        first = len(CALLS["flaky"]) == 1
    if first:
        raise RuntimeError("first call fails")
    return None  # a null response: the whole batch succeeded


def maintain_standin(event: dict, context) -> dict:
    with _LOCK:
        CALLS["maintain"].append(event)
    return {"kind": event.get("detail-type", "sqs"), "detail": event.get("detail")}


HANDLERS = {
    "api": f"{__name__}.api_echo",
    "extract": f"{__name__}.extract_standin",
    "maintain": f"{__name__}.maintain_standin",
}


# --- helpers --------------------------------------------------------------------------------------

def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def call(stack: LocalStack, method: str, path: str, headers: dict | None = None, body: bytes | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", stack.front.port, timeout=15)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection.close()


@pytest.fixture(autouse=True)
def _reset_standins():
    CALLS.clear()
    POISON.clear()
    FAIL_ONCE.clear()
    yield


@pytest.fixture
def make_stack(tmp_path):
    stacks: list[LocalStack] = []

    def make(home: Path | None = None, *, front=True, pollers=True, timer=False, **overrides) -> LocalStack:
        values = {
            "home": home or tmp_path / "ltm",
            "api_port": 0,
            "emulator_port": 0,
            "emulator_port_fallback": False,
            "handlers": dict(HANDLERS),
            "tick_seconds": 0,
            "snapshot_seconds": 0.3,
            "retry_visibility_s": 0,
        }
        values.update(overrides)
        stack = LocalStack(StackConfig(**values), front=front, pollers=pollers, timer=timer).start()
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        stack.stop()


def _unsigned_token(sub: str) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    now = int(time.time())
    claims = {"sub": sub, "exp": now + 600, "iat": now, "token_use": "id"}
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}."


# --- front and auth -------------------------------------------------------------------------------

def test_health_needs_no_token(make_stack):
    stack = make_stack(pollers=False)
    status, _, body = call(stack, "GET", "/v1/health")
    assert status == 200
    assert json.loads(body)["claims"] is None
    event = CALLS["api"][0]
    assert event["resource"] == "/v1/{proxy+}"
    assert event["pathParameters"] == {"proxy": "health"}
    assert event["requestContext"]["identity"]["sourceIp"] == "127.0.0.1"
    assert event["requestContext"]["stage"] == "local"
    assert event["requestContext"]["requestId"]


@pytest.mark.parametrize("case", ["missing", "unsigned", "expired", "wrong_key", "garbage"])
def test_bad_tokens_get_401_and_never_reach_the_handler(make_stack, tmp_path, case):
    stack = make_stack(pollers=False)
    signer = DevSigner(stack.config.key_path)
    tokens = {
        "missing": None,
        "unsigned": _unsigned_token("mallory"),
        "expired": signer.mint("alice", ttl_s=60, now=time.time() - 3600),
        "wrong_key": DevSigner(tmp_path / "other" / "key.pem").mint("alice"),
        "garbage": "not.a.jwt",
    }
    headers = {} if tokens[case] is None else {"Authorization": f"Bearer {tokens[case]}"}
    status, _, body = call(stack, "GET", "/v1/facts", headers)
    assert status == 401
    assert json.loads(body) == {"message": "Unauthorized"}
    assert CALLS["api"] == []


def test_token_from_ltm_token_is_accepted_and_claims_pass_through(make_stack, monkeypatch, capsys):
    stack = make_stack(pollers=False)
    monkeypatch.setenv("LTM_HOME", str(stack.config.home))
    assert cli.main(["token", "bob", "--ttl", "600"]) == 0
    token = capsys.readouterr().out.strip()

    status, headers, body = call(stack, "GET", "/v1/facts?section=allergies&section=drugs",
                                 {"Authorization": f"Bearer {token}"})
    assert status == 200
    payload = json.loads(body)
    assert payload["sub"] == "bob"
    claims = payload["claims"]
    assert claims["cognito:username"] == "bob" and claims["token_use"] == "id"
    assert all(isinstance(value, str) for value in claims.values())  # API Gateway REST passes strings
    assert claims["exp"].endswith(time.strftime("%Y", time.gmtime(time.time() + 600)))
    assert payload["query"] == {"section": ["allergies", "drugs"]}
    assert 0 < payload["remaining_ms"] <= 29_000
    names = [name.lower() for name, _ in headers]
    assert "x-single" in names and names.count("x-multi") == 2

    # Cognito also takes the raw token without "Bearer".
    status, _, body = call(stack, "POST", "/v1/fragments", {"Authorization": token}, b'{"a": 1}')
    assert status == 200 and json.loads(body)["body"] == '{"a": 1}'


def test_binary_body_is_base64(make_stack):
    stack = make_stack(pollers=False)
    token = DevSigner(stack.config.key_path).mint("carol")
    raw = b"\xff\xfe\x00binary"
    status, _, body = call(stack, "POST", "/v1/upload", {"Authorization": f"Bearer {token}"}, raw)
    payload = json.loads(body)
    assert status == 200 and payload["isBase64Encoded"] is True
    assert base64.b64decode(payload["body"]) == raw


def test_internal_routes_need_the_local_header(make_stack):
    stack = make_stack(pollers=False)
    status, _, body = call(stack, "POST", "/v1/internal/erase-check")
    assert status == 403 and CALLS["api"] == []
    status, _, body = call(stack, "POST", "/v1/internal/erase-check", {"X-Ltm-Internal": "1"})
    assert status == 200 and json.loads(body)["claims"] is None


def test_limits_unknown_paths_and_handler_errors(make_stack):
    stack = make_stack(pollers=False, max_body_bytes=1024)
    token = DevSigner(stack.config.key_path).mint("dave")
    auth = {"Authorization": f"Bearer {token}"}
    assert call(stack, "POST", "/v1/fragments", auth, b"x" * 2048)[0] == 413
    assert call(stack, "GET", "/elsewhere")[0] == 403
    assert CALLS["api"] == []
    status, _, body = call(stack, "GET", "/v1/boom", auth)
    assert status == 502 and json.loads(body) == {"message": "Internal server error"}
    assert StackConfig(home=Path("/nonexistent")).max_body_bytes == 10 * 1024 * 1024


# --- pollers --------------------------------------------------------------------------------------

def _send_fifo(stack: LocalStack, body: str, group: str, dedup: str) -> str:
    sqs = client("sqs", stack.emulator.endpoint)
    return sqs.send_message(
        QueueUrl=stack.resources.queues["extraction"].url, MessageBody=body,
        MessageGroupId=group, MessageDeduplicationId=dedup,
    )["MessageId"]


def _count(stack: LocalStack, url: str) -> int:
    attributes = client("sqs", stack.emulator.endpoint).get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def _records(body: str) -> list[dict]:
    with _LOCK:
        return [record for record in CALLS["extract"] if record["body"] == body]


def test_poller_honours_batch_item_failures(make_stack):
    stack = make_stack(front=False)
    FAIL_ONCE.add("fragment-b")
    _send_fifo(stack, "fragment-a", "user-a", "dedup-a")
    _send_fifo(stack, "fragment-b", "user-b", "dedup-b")

    wait_for(lambda: len(_records("fragment-b")) >= 2)
    queue = stack.resources.queues["extraction"]
    wait_for(lambda: _count(stack, queue.url) == 0)
    assert len(_records("fragment-a")) == 1  # succeeded: deleted, never redelivered
    first, second = _records("fragment-b")
    assert first["messageId"] == second["messageId"]
    counts = [record["attributes"]["ApproximateReceiveCount"] for record in (first, second)]
    assert counts == ["1", "2"]

    record = _records("fragment-a")[0]
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == queue.arn and record["awsRegion"] == "eu-central-1"
    assert record["receiptHandle"]
    for name in ("ApproximateReceiveCount", "SentTimestamp", "MessageGroupId", "MessageDeduplicationId",
                 "SequenceNumber"):
        assert name in record["attributes"], name
    assert record["attributes"]["MessageGroupId"] == "user-a"
    SqsRecordModel.model_validate(record)  # what the handlers' Powertools parser expects
    assert record["attributes"]["MessageDeduplicationId"] == "dedup-a"


def test_poison_message_goes_to_dlq_and_redrive_brings_it_back(make_stack):
    stack = make_stack(front=False)
    queue = stack.resources.queues["extraction"]
    POISON.add("fragment-poison")
    message_id = _send_fifo(stack, "fragment-poison", "user-p", "dedup-p")

    wait_for(lambda: _count(stack, queue.dlq_url) == 1)
    assert len(_records("fragment-poison")) == queue.spec.max_receive_count
    assert _count(stack, queue.url) == 0

    POISON.clear()  # "fixed the bug": the redriven message now succeeds
    assert redrive(stack.emulator.endpoint, queue) == 1
    wait_for(lambda: len(_records("fragment-poison")) == queue.spec.max_receive_count + 1)
    wait_for(lambda: _count(stack, queue.url) == 0 and _count(stack, queue.dlq_url) == 0)
    redriven = _records("fragment-poison")[-1]
    assert redriven["messageId"] != message_id
    assert redriven["attributes"]["MessageGroupId"] == "user-p"
    assert redriven["attributes"]["MessageDeduplicationId"] == "dedup-p"


def test_handler_that_raises_retries_the_whole_batch(make_stack):
    stack = make_stack(front=False, handlers={**HANDLERS, "extract": f"{__name__}.flaky_extract"})
    _send_fifo(stack, "fragment-x", "user-x", "dedup-x")
    wait_for(lambda: len(CALLS["flaky"]) >= 2)
    wait_for(lambda: _count(stack, stack.resources.queues["extraction"].url) == 0)
    assert CALLS["flaky"][0] == CALLS["flaky"][1] == ["fragment-x"]


def test_maintenance_queue_feeds_the_maintain_handler(make_stack):
    stack = make_stack(front=False)
    queue = stack.resources.queues["maintenance"]
    client("sqs", stack.emulator.endpoint).send_message(QueueUrl=queue.url, MessageBody='{"user": "u1"}')
    event = wait_for(lambda: next((e for e in CALLS["maintain"] if "Records" in e), None))
    assert event["Records"][0]["eventSourceARN"] == queue.arn
    wait_for(lambda: _count(stack, queue.url) == 0)


# --- tick -----------------------------------------------------------------------------------------

def test_tick_sends_a_scheduled_event(make_stack, monkeypatch, capsys):
    stack = make_stack(pollers=False)
    assert stack.tick(dry_run=False) == {"kind": "Scheduled Event", "detail": {}}
    event = CALLS["maintain"][0]
    assert event["source"] == "aws.events" and event["detail-type"] == "Scheduled Event"

    # `ltm tick --dry-run` finds the running stack (stack.json) and goes through its control route.
    monkeypatch.setenv("LTM_HOME", str(stack.config.home))
    assert cli.main(["tick", "--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out) == {"kind": "Scheduled Event", "detail": {"dry_run": True}}
    assert call(stack, "POST", "/_ltm/tick", {"X-Ltm-Control": "wrong"}, b"{}")[0] == 403


def test_timer_ticks(make_stack):
    make_stack(front=False, pollers=False, timer=True, tick_seconds=0.2)
    wait_for(lambda: any(e.get("detail-type") == "Scheduled Event" for e in CALLS["maintain"]))


# --- persistence ----------------------------------------------------------------------------------

def test_data_survives_stop_and_start(make_stack, tmp_path):
    home = tmp_path / "persist"
    stack = make_stack(home, front=False, pollers=False)
    table = stack.resources.table_name
    item = {
        "PK": {"S": "USER#u1"}, "SK": {"S": "FACT#1"}, "blob": {"B": b"\x00\xff"}, "n": {"N": "3"},
        "m": {"M": {"l": {"L": [{"S": "Энап 5 мг"}, {"BOOL": True}, {"NULL": True}]},
                    "ss": {"SS": ["a", "b"]}}},
    }
    client("dynamodb", stack.emulator.endpoint).put_item(TableName=table, Item=item)
    message_id = _send_fifo(stack, "fragment-kept", "user-1", "dedup-kept")
    sqs = client("sqs", stack.emulator.endpoint)
    maintenance_url = stack.resources.queues["maintenance"].url
    sqs.send_message(QueueUrl=maintenance_url, MessageBody="in-flight")
    assert sqs.receive_message(QueueUrl=maintenance_url)["Messages"]  # invisible for minutes now

    # Periodic snapshot, not only at shutdown.
    table_file = home / "data" / f"table-{table}.jsonl"
    wait_for(lambda: table_file.exists() and "USER#u1" in table_file.read_text(encoding="utf-8"))
    assert oct(table_file.stat().st_mode & 0o777) == "0o600"
    stack.stop()

    again = make_stack(home, front=False, pollers=False)
    assert again.restored == (1, 2)
    stored = client("dynamodb", again.emulator.endpoint).get_item(
        TableName=table, Key={"PK": item["PK"], "SK": item["SK"]}
    )["Item"]
    assert stored == item
    messages = client("sqs", again.emulator.endpoint).receive_message(
        QueueUrl=again.resources.queues["extraction"].url, AttributeNames=["All"], MaxNumberOfMessages=10
    )["Messages"]
    assert [(m["MessageId"], m["Body"]) for m in messages] == [(message_id, "fragment-kept")]
    assert messages[0]["Attributes"]["MessageGroupId"] == "user-1"
    # In flight when the stack stopped: visible again after the restart, like an expired timeout.
    in_flight = client("sqs", again.emulator.endpoint).receive_message(
        QueueUrl=again.resources.queues["maintenance"].url, AttributeNames=["All"]
    )["Messages"]
    assert [m["Body"] for m in in_flight] == ["in-flight"]
    assert in_flight[0]["Attributes"]["ApproximateReceiveCount"] == "2"  # receive counts survive


def test_unreadable_snapshot_refuses_to_start_and_is_left_alone(make_stack, tmp_path):
    home = tmp_path / "corrupt"
    (home / "data").mkdir(parents=True)
    table_file = home / "data" / "table-health-ltm-local.jsonl"
    table_file.write_text("{not json\n")
    with pytest.raises(SnapshotError):
        make_stack(home, front=False, pollers=False)
    assert table_file.read_text() == "{not json\n"


def test_second_stack_on_the_same_home_is_refused(make_stack):
    from ltm_local.stack import StackBusy

    stack = make_stack(front=False, pollers=False)
    with pytest.raises(StackBusy):
        LocalStack(stack.config, front=False, pollers=False, timer=False).start()
