"""SQS FIFO queue of fragments to extract: one message group per user keeps a user's fragments
in order and lets different users proceed in parallel. Group and deduplication ids are hashes
scoped to the user (docs/decision_log.md, issue 15)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..domain.messages import ExtractionMessage, MaintenanceMessage


class SqsFragmentQueue:
    def __init__(self, queue_url: str, client: Any | None = None) -> None:
        self.queue_url = queue_url
        self._client = client

    @cached_property
    def client(self) -> Any:
        if self._client is not None:
            return self._client
        import boto3

        return boto3.client("sqs")

    def resend(self, user_id: str, fragment_id: str, attempt: int) -> None:
        """Queue a failed fragment again (its retry by the client, after a fix)."""
        self.send(user_id, fragment_id, attempt)

    def send(self, user_id: str, fragment_id: str, attempt: int = 0) -> None:
        self.client.send_message(
            QueueUrl=self.queue_url,
            MessageBody=ExtractionMessage(user_id=user_id, fragment_id=fragment_id).model_dump_json(),
            MessageGroupId=message_group_id(user_id),
            MessageDeduplicationId=deduplication_id(user_id, fragment_id, attempt),
        )


def message_group_id(user_id: str) -> str:
    """One group per user (order within a user, users in parallel), named by a hash: queue and DLQ
    metadata (group ids show in consoles, metrics and DLQ listings) carry no user id."""
    import hashlib

    return "u-" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:48]


def deduplication_id(user_id: str, fragment_id: str, attempt: int = 0) -> str:
    """Scoped to the user (docs/decision_log.md): SQS FIFO deduplicates per queue, so the client's
    fragment id alone would let one user's id drop another user's fragment for five minutes. A
    hash, so the id carries neither the user id nor the client's id. ``attempt`` > 0 re-queues a
    failed fragment on purpose (a fixed poison), which the 5-minute window must not swallow."""
    import hashlib

    material = f"{user_id}\x00{fragment_id}" + (f"\x00{attempt}" if attempt else "")
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class SqsMaintenanceQueue:
    def __init__(self, queue_url: str, client: Any | None = None) -> None:
        self.queue_url = queue_url
        self._client = client

    @cached_property
    def client(self) -> Any:
        if self._client is not None:
            return self._client
        import boto3

        return boto3.client("sqs")

    def send_batch(self, messages: list[MaintenanceMessage]) -> int:
        sent = 0
        for start in range(0, len(messages), 10):
            chunk = messages[start : start + 10]
            response = self.client.send_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "MessageBody": m.model_dump_json()} for i, m in enumerate(chunk)],
            )
            if response.get("Failed"):
                raise RuntimeError(f"{len(response['Failed'])} maintenance messages not sent")
            sent += len(chunk)
        return sent
