"""The per-user chat rate limit (storage/rate_limit.py): both implementations, the same cases.

A fixed window per UTC minute: the limit's worth of turns pass, the next is refused with the
seconds to the next window, the next window starts from zero, users never share a count, 0 is off.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from health_ltm.storage.rate_limit import (
    DynamoChatRateLimiter,
    InMemoryChatRateLimiter,
    rate_sk,
    retry_after_s,
    window_start,
)
from tests.conftest import T0  # 09:00:00 UTC, a window's first second


@pytest.fixture(params=["memory", "dynamodb"])
def make_limiter(request):
    """A factory of limiters of either implementation, with a given limit."""
    if request.param == "memory":
        return InMemoryChatRateLimiter
    import boto3

    table = request.getfixturevalue("dynamo_table")
    client = boto3.client("dynamodb")
    return lambda limit: DynamoChatRateLimiter(client, table, limit)


def test_the_limit_passes_then_the_next_turn_waits_for_the_next_window(make_limiter):
    limiter = make_limiter(3)
    at = T0 + timedelta(seconds=15)
    assert [limiter.acquire("alice", at).allowed for _ in range(3)] == [True, True, True]
    refused = limiter.acquire("alice", at + timedelta(seconds=5))
    assert not refused.allowed
    assert refused.retry_after_s == 40  # 09:00:20 -> 09:01:00
    assert not limiter.acquire("alice", T0 + timedelta(seconds=59, microseconds=500_000)).allowed


def test_the_next_window_starts_from_zero(make_limiter):
    limiter = make_limiter(2)
    for _ in range(2):
        assert limiter.acquire("alice", T0).allowed
    assert not limiter.acquire("alice", T0).allowed
    next_minute = T0 + timedelta(minutes=1)
    assert [limiter.acquire("alice", next_minute).allowed for _ in range(3)] == [True, True, False]


def test_users_never_share_a_count(make_limiter):
    limiter = make_limiter(1)
    assert limiter.acquire("alice", T0).allowed
    assert not limiter.acquire("alice", T0).allowed
    assert limiter.acquire("bob", T0).allowed


def test_a_refused_turn_is_not_counted(make_limiter):
    limiter = make_limiter(1)
    assert limiter.acquire("alice", T0).allowed
    for _ in range(5):
        assert not limiter.acquire("alice", T0).allowed
    assert limiter.acquire("alice", T0 + timedelta(minutes=1)).allowed


def test_zero_turns_the_limit_off():
    memory = InMemoryChatRateLimiter(0)
    assert all(memory.acquire("alice", T0).allowed for _ in range(100))

    class NoCalls:
        def __getattr__(self, name):
            raise AssertionError(f"no DynamoDB call when the limit is off ({name})")

    dynamo = DynamoChatRateLimiter(NoCalls(), "health-ltm", 0)
    assert all(dynamo.acquire("alice", T0).allowed for _ in range(100))


def test_in_memory_limiter_is_exact_under_concurrent_turns():
    limiter = InMemoryChatRateLimiter(20)
    allowed: list[bool] = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(10):
            allowed.append(limiter.acquire("alice", T0).allowed)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert allowed.count(True) == 20 and len(allowed) == 80


def test_in_memory_limiter_keeps_only_the_current_windows():
    limiter = InMemoryChatRateLimiter(5)
    for minute in range(100):
        limiter.acquire(f"user-{minute}", T0 + timedelta(minutes=minute))
    assert len(limiter._counts) == 1


def test_windows_are_utc_minutes_and_the_wait_is_whole_seconds():
    from datetime import datetime, timezone

    moscow = timezone(timedelta(hours=3))
    local = datetime(2026, 3, 2, 12, 0, 30, 250_000, tzinfo=moscow)  # 09:00:30.25 UTC
    assert window_start(local) == T0
    assert rate_sk(local) == "RATE#chat#202603020900"
    assert retry_after_s(local) == 30  # 29.75 s, rounded up
    assert retry_after_s(T0) == 60
    assert retry_after_s(T0 + timedelta(seconds=59, microseconds=999_999)) == 1


# ------------------------------------------------------------------------------ DynamoDB (moto)
def _items(table: str, pk: str) -> list[dict]:
    import boto3

    return boto3.client("dynamodb").query(
        TableName=table,
        KeyConditionExpression="PK = :pk",
        ExpressionAttributeValues={":pk": {"S": pk}},
    )["Items"]


def test_dynamodb_counts_in_one_item_per_user_and_minute_that_expires(dynamo_table):
    import boto3

    from health_ltm.schema import TTL_ATTRIBUTE

    limiter = DynamoChatRateLimiter(boto3.client("dynamodb"), dynamo_table, 5)
    for _ in range(3):
        limiter.acquire("alice", T0 + timedelta(seconds=10))
    limiter.acquire("alice", T0 + timedelta(minutes=1))
    items = sorted(_items(dynamo_table, "USER#alice"), key=lambda i: i["SK"]["S"])
    assert [(i["SK"]["S"], i["n"]["N"]) for i in items] == [
        ("RATE#chat#202603020900", "3"),
        ("RATE#chat#202603020901", "1"),
    ]
    # Expires two minutes after its window ends; nothing in it but the count.
    window_end = int((T0 + timedelta(minutes=1)).timestamp())
    assert int(items[0][TTL_ATTRIBUTE]["N"]) == window_end + 120
    assert set(items[0]) == {"PK", "SK", "n", "kind", TTL_ATTRIBUTE}


def test_erasing_the_user_deletes_the_counters(dynamo_table):
    import boto3

    from health_ltm.storage.dynamodb import DynamoRepository

    repository = DynamoRepository(dynamo_table, client=boto3.client("dynamodb"))
    limiter = DynamoChatRateLimiter(repository.client, repository.table_name, 5)
    limiter.acquire("alice", T0)
    limiter.acquire("bob", T0)
    assert _items(dynamo_table, "USER#alice")

    repository.erase("alice")

    assert _items(dynamo_table, "USER#alice") == []
    assert len(_items(dynamo_table, "USER#bob")) == 1


def test_dynamodb_errors_other_than_the_limit_are_not_a_refusal(dynamo_table):
    import boto3
    from botocore.exceptions import ClientError

    limiter = DynamoChatRateLimiter(boto3.client("dynamodb"), "no-such-table", 5)
    with pytest.raises(ClientError):  # the route decides what a failing counter means
        limiter.acquire("alice", T0)
