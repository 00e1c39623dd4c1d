"""Running the real handlers with real events, against in-process storage or the local emulator.

- ``api_event``: the API Gateway REST proxy event of ``events/api_post_context.json`` with another
  question and user (the same shape the integration tests use).
- ``use_repository``: the composition root hands out a given repository (the InMemoryRepository
  of the in-process benchmarks) instead of building the DynamoDB one; nothing else changes.
- ``Emulator``: the moto server of the local stack (``ltm_local.emulator``) in a *child process*
  on 127.0.0.1, with the table and queues from ``health_ltm.schema``. A child process, so that the
  emulator's own CPU work does not run under the benchmark's GIL: the handler waits on a socket
  as it would wait on DynamoDB. moto is patched there as in the local stack
  (``ltm_local.emulator.install_moto_patches``), so a request's cost does not grow with the table.
- ``DynamoMeter``: counts the DynamoDB API calls a client makes (botocore events), the time spent
  in them, and the capacity units they consume, computed from item sizes (moto does not report
  consumed capacity).
"""

from __future__ import annotations

import contextlib
import copy
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.env import REPO, child_env
from health_ltm.storage import codec

EVENT = REPO / "events" / "api_post_context.json"
TABLE = "health-ltm-bench"
PREFIX = "health-ltm-bench"


# ------------------------------------------------------------------------------------ events
_BASE_EVENT: dict | None = None


def api_event(query: str, user: str, recent: list[str] | None = None, max_tokens: int = 400) -> dict:
    global _BASE_EVENT
    if _BASE_EVENT is None:
        _BASE_EVENT = json.loads(EVENT.read_text(encoding="utf-8"))
    event = copy.deepcopy(_BASE_EVENT)
    body: dict[str, Any] = {"query": query, "max_tokens": max_tokens}
    if recent:
        body["recent_messages"] = [{"role": "user", "text": t} for t in recent]
    event["body"] = json.dumps(body, ensure_ascii=False)
    claims = event["requestContext"]["authorizer"]["claims"]
    claims["sub"] = claims["cognito:username"] = user
    return event


def lambda_context(function: str = "api"):
    from ltm_local.invoke import LambdaContext

    return LambdaContext(function, timeout_s=30)


def invoke_api(event: dict, expect: int = 200) -> dict:
    from health_ltm.handlers.api import handler

    response = handler(event, lambda_context("api"))
    if response["statusCode"] != expect:
        raise RuntimeError(f"{event['path']} answered {response['statusCode']}: {response.get('body')}")
    return response


def fragment_event(messages: list[tuple[str, str]], user: str, session: str = "s1") -> dict:
    """POST /v1/fragments, built from the context event (same headers and authorizer)."""
    event = api_event("x", user)
    event["path"] = "/v1/fragments"
    event["requestContext"]["path"] = "/prod/v1/fragments"
    event["pathParameters"] = {"proxy": "fragments"}
    event["body"] = json.dumps(
        {"session_id": session, "messages": [{"role": r, "text": t} for r, t in messages]}, ensure_ascii=False
    )
    return event


# ------------------------------------------------------------------------------------ wiring
class _Fixed:
    """Stands in for the ``wiring.repository`` factory (keeps ``cache_clear`` for reset())."""

    def __init__(self, repository) -> None:
        self._repository = repository

    def __call__(self):
        return self._repository

    def cache_clear(self) -> None:
        pass


@contextlib.contextmanager
def use_repository(repository, fragment_queue=None) -> Iterator[None]:
    from health_ltm import wiring

    original = wiring.repository, wiring.fragment_queue
    wiring.reset()
    wiring.repository = _Fixed(repository)  # type: ignore[assignment]
    if fragment_queue is not None:
        wiring.fragment_queue = _Fixed(fragment_queue)  # type: ignore[assignment]
    try:
        yield
    finally:
        wiring.repository, wiring.fragment_queue = original  # type: ignore[assignment]
        wiring.reset()


# ------------------------------------------------------------------------------------ emulator
_SERVER = """
import sys
from ltm_local.emulator import Emulator, install_moto_patches
install_moto_patches()
emulator = Emulator(0, fallback_to_ephemeral=True)
print(emulator.start(), flush=True)
sys.stdin.read()
emulator.stop()
"""


@dataclass
class Emulator:
    endpoint: str
    table: str
    process: subprocess.Popen

    def client(self, service: str = "dynamodb"):
        """An uncounted client (seeding, size look-ups), not the one under measurement."""
        from ltm_local.emulator import client

        return client(service, self.endpoint)


@contextlib.contextmanager
def emulator() -> Iterator[Emulator]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
        cwd=REPO,
    )
    try:
        assert process.stdout is not None
        endpoint = process.stdout.readline().strip()
        if not endpoint.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the emulator did not start: {endpoint!r}")
        from ltm_local.emulator import ensure_resources

        resources = ensure_resources(endpoint, table_name=TABLE, prefix=PREFIX)
        saved = {k: os.environ.get(k) for k in ("AWS_ENDPOINT_URL", "LTM_TABLE_NAME")}
        os.environ["AWS_ENDPOINT_URL"] = endpoint
        os.environ["LTM_TABLE_NAME"] = resources.table_name
        from health_ltm import wiring

        wiring.reset()
        try:
            yield Emulator(endpoint, resources.table_name, process)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            wiring.reset()
    finally:
        if process.stdin:
            with contextlib.suppress(OSError):
                process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def dynamo_repository(env: Emulator):
    """A DynamoRepository on its own client (as wiring would build it, with AWS_ENDPOINT_URL)."""
    import boto3

    from health_ltm.storage.dynamodb import DynamoRepository

    return DynamoRepository(env.table, boto3.client("dynamodb"))


# ------------------------------------------------------------------------------------ metering
_KB = 1024
_READ_UNIT = 4 * _KB


# Item sizes by DynamoDB's rules: the repository meters its own reads with the same function.
attribute_size = codec.attribute_size
item_size = codec.item_size


def write_units(size: int) -> int:
    return max(1, math.ceil(size / _KB))


@dataclass
class Usage:
    calls: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    read_units: float = 0.0
    write_units: float = 0.0
    items_written: int = 0
    bytes_read: int = 0

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def as_dict(self) -> dict:
        return {
            "calls": self.total_calls,
            "by_operation": dict(sorted(self.calls.items())),
            "read_units": round(self.read_units, 2),
            "write_units": round(self.write_units, 2),
            "items_written": self.items_written,
            "bytes_read": self.bytes_read,
        }


class DynamoMeter:
    """botocore hooks on one client: calls, time inside them, and capacity units.

    Write units (on-demand WRU = provisioned WCU): 1 per KB of the item written, rounded up per
    item; a transactional write costs 2 per KB; an item carrying the sparse GSI's keys costs one
    more unit for the index write (KEYS_ONLY projection, under 1 KB). An Update is charged on the
    item's size after the update (looked up afterwards, so an upper bound while it grows); a
    Delete on the deleted item's size, taken as under 1 KB (the items deleted are pending
    mentions and key guards). Read units: a Query costs the summed size of the items it read,
    rounded up to 4 KB, halved when eventually consistent; GetItem the same per item (minimum
    one unit), computed on the attributes returned (a projection would still pay the whole item:
    an under-count).
    """

    def __init__(self, client, size_lookup=None) -> None:
        self.client = client
        self.usage = Usage()
        self._pending_updates: list[tuple[dict, int]] = []  # (key, multiplier)
        self._started: float | None = None
        self._size_lookup = size_lookup
        events = client.meta.events
        events.register("before-parameter-build.dynamodb", self._before_params)
        events.register("before-call.dynamodb", self._before_call)
        events.register("after-call.dynamodb", self._after_call)

    def reset(self) -> Usage:
        self.settle()
        usage, self.usage = self.usage, Usage()
        return usage

    # hooks
    def _before_params(self, params, model, **_):
        op = model.name
        self.usage.calls[op] = self.usage.calls.get(op, 0) + 1
        if op == "TransactWriteItems":
            for action in params.get("TransactItems", []):
                self._write(action, transactional=True)
        elif op in ("PutItem", "UpdateItem", "DeleteItem"):
            kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}[op]
            self._write({kind: params}, transactional=False)
        elif op == "BatchWriteItem":
            for requests in params.get("RequestItems", {}).values():
                for request in requests:
                    if "PutRequest" in request:
                        self._write({"Put": request["PutRequest"]}, transactional=False)
                    else:
                        self._write({"Delete": request["DeleteRequest"]}, transactional=False)

    def _before_call(self, **_):
        self._started = time.perf_counter()

    def _after_call(self, http_response, parsed, model, **_):
        if self._started is not None:
            self.usage.seconds += time.perf_counter() - self._started
            self._started = None
        op = model.name
        consistent = False
        if op == "Query":
            size = sum(item_size(i) for i in parsed.get("Items", []))
            self.usage.bytes_read += size
            units = max(1, math.ceil(size / _READ_UNIT))
        elif op == "GetItem":
            size = item_size(parsed.get("Item", {}))
            self.usage.bytes_read += size
            units = max(1, math.ceil(size / _READ_UNIT))
            consistent = True  # every GetItem of the service that matters reads consistently
        else:
            return
        self.usage.read_units += units if consistent else units / 2

    def _write(self, action: dict, transactional: bool) -> None:
        multiplier = 2 if transactional else 1
        self.usage.items_written += 1
        if "Put" in action:
            item = action["Put"]["Item"]
            units = write_units(item_size(item)) * multiplier
            if "active_day" in item:
                units += 1  # the sparse GSI's index write
            self.usage.write_units += units
        elif "Update" in action:
            self._pending_updates.append((action["Update"]["Key"], multiplier))
        elif "Delete" in action:
            self.usage.write_units += multiplier
        elif "ConditionCheck" in action:
            self.usage.read_units += multiplier

    def settle(self) -> None:
        """Charge the updates seen so far, on the size their items have now."""
        for key, multiplier in self._pending_updates:
            size = self._size_lookup(key) if self._size_lookup else _KB
            self.usage.write_units += write_units(size) * multiplier
        self._pending_updates.clear()


def size_lookup_for(env: Emulator):
    client = env.client("dynamodb")

    def lookup(key: dict) -> int:
        item = client.get_item(TableName=env.table, Key=key, ConsistentRead=True).get("Item")
        return item_size(item) if item else 1

    return lookup
