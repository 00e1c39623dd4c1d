"""SQS FIFO queue of fragments to extract: one message group per user keeps a user's fragments
in order and lets different users proceed in parallel."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from pydantic import BaseModel


class ExtractionMessage(BaseModel):
    """The queue carries references only: the dialogue text stays in the (encrypted) table, so a
    DLQ holds no health data and erasure can reach fragments that are still queued."""

    user_id: str
    fragment_id: str


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

    def send(self, user_id: str, fragment_id: str) -> None:
        self.client.send_message(
            QueueUrl=self.queue_url,
            MessageBody=ExtractionMessage(user_id=user_id, fragment_id=fragment_id).model_dump_json(),
            MessageGroupId=user_id,
            MessageDeduplicationId=fragment_id,
        )


class MaintenanceMessage(BaseModel):
    user_id: str
    day: str
    dry_run: bool = False


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
