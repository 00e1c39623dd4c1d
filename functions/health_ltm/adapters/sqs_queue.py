"""SQS FIFO queue of fragments to extract: one message group per user keeps a user's fragments
in order and lets different users proceed in parallel."""

from __future__ import annotations

from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, Field


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
    """A job on the maintenance queue: run the policies for some users, or list the users of one
    activity day (a page at a time, continuing itself) and queue them in batches."""

    task: Literal["users", "fanout"] = "users"
    day: str = Field(description="the run day")
    dry_run: bool = False
    # task "users"
    user_id: str | None = None
    user_ids: list[str] = Field(default_factory=list, max_length=100)
    # task "fanout"
    activity_day: str | None = None
    cursor: dict[str, Any] | None = None

    def users(self) -> list[str]:
        return [*([self.user_id] if self.user_id else []), *self.user_ids]


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
