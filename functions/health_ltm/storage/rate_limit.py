"""Per-user rate limit of POST /v1/chat (each turn is a paid model call): a fixed window per UTC
minute, counted where the user's data lives.

DynamoDB: one item per user and minute in the user's own partition,
``PK=USER#<id>, SK=RATE#chat#<yyyymmddHHMM>``, counted by one conditional ``UpdateItem``
(``ADD n :one`` only while ``n < limit``) and removed by TTL a couple of minutes after its window.
It lives in the user's partition so that erasing the user (every item under ``USER#<id>``) takes
it too. The in-memory limiter has the same semantics, for the in-process repository.

A limit of 0 turns the limit off (no storage call). The caller passes ``now`` (its clock).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from ..schema import TTL_ATTRIBUTE
from . import keys

WINDOW = timedelta(minutes=1)
# How long a window's item outlives its window (DynamoDB's TTL sweep is lazy anyway; a late
# deletion changes nothing since every window has its own item).
EXPIRE_AFTER_WINDOW = timedelta(minutes=2)
RATE_PREFIX = "RATE#chat#"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after_s: int = 0  # when refused: whole seconds until the next window opens


class ChatRateLimiter(Protocol):
    limit: int

    def acquire(self, user_id: str, now: datetime) -> Decision:
        """Count one chat turn of the user in the window of ``now``, unless the window is full."""
        ...


def window_start(now: datetime) -> datetime:
    utc = now.astimezone(UTC) if now.tzinfo else now.replace(tzinfo=UTC)
    return utc.replace(second=0, microsecond=0)


def retry_after_s(now: datetime) -> int:
    """Whole seconds (at least 1) until the window after the one of ``now`` opens."""
    utc = now.astimezone(UTC) if now.tzinfo else now.replace(tzinfo=UTC)
    return max(1, math.ceil((window_start(utc) + WINDOW - utc).total_seconds()))


def rate_sk(now: datetime) -> str:
    return f"{RATE_PREFIX}{window_start(now):%Y%m%d%H%M}"


class DynamoChatRateLimiter:
    """The counter item in the table the repository uses, through the repository's client."""

    def __init__(self, client: Any, table_name: str, limit: int) -> None:
        self.client = client
        self.table_name = table_name
        self.limit = limit

    def acquire(self, user_id: str, now: datetime) -> Decision:
        if self.limit <= 0:
            return Decision(True)
        expires = window_start(now) + WINDOW + EXPIRE_AFTER_WINDOW
        try:
            self.client.update_item(
                TableName=self.table_name,
                Key={"PK": {"S": keys.user_pk(user_id)}, "SK": {"S": rate_sk(now)}},
                UpdateExpression="SET #kind = :kind, #ttl = :ttl ADD #n :one",
                ConditionExpression="attribute_not_exists(#n) OR #n < :limit",
                ExpressionAttributeNames={"#n": "n", "#kind": "kind", "#ttl": TTL_ATTRIBUTE},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(self.limit)},
                    ":kind": {"S": "rate"},
                    ":ttl": {"N": str(int(expires.timestamp()))},
                },
            )
        except self.client.exceptions.ConditionalCheckFailedException:
            return Decision(False, retry_after_s(now))
        return Decision(True)


class InMemoryChatRateLimiter:
    """Same windows and limit, in this process (thread-safe); only the current windows are kept."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, datetime], int] = {}
        self._latest: datetime | None = None

    def acquire(self, user_id: str, now: datetime) -> Decision:
        if self.limit <= 0:
            return Decision(True)
        window = window_start(now)
        with self._lock:
            if self._latest is None or window > self._latest:
                # Past windows are never counted again: memory follows the users of this minute.
                self._counts = {k: v for k, v in self._counts.items() if k[1] >= window}
                self._latest = window
            count = self._counts.get((user_id, window), 0)
            if count >= self.limit:
                return Decision(False, retry_after_s(now))
            self._counts[(user_id, window)] = count + 1
        return Decision(True)
