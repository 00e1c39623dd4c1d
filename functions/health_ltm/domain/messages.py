"""Queue message bodies: what the intake and the scheduler send and the workers parse.

Plain models, apart from any queue: the SQS adapter serialises them, the handlers and the
maintenance scheduler build and read them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ExtractionMessage(BaseModel):
    """The queue carries references only: the dialogue text stays in the (encrypted) table, so a
    DLQ holds no health data and erasure can reach fragments that are still queued."""

    user_id: str
    fragment_id: str


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
