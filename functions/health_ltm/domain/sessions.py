"""The session buffer: turns of one chat session waiting to become a fragment for the write path.

One item per session (SK ``SESS#<session_id>``), replaced as a whole under a version condition,
so concurrent writers (two turns, a turn and a flush, two flushes) never lose an update.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from .models import Message, Role


class Turn(BaseModel):
    role: Role
    text: str
    at: datetime

    def message(self) -> Message:
        return Message(role=self.role, text=self.text, at=self.at)


class OutboxEntry(BaseModel):
    """Turns claimed for one fragment (the claim is the conditional write that moved them here).

    Kept until the fragment is stored and queued: a function that dies in between leaves the entry,
    and whoever touches the session next submits it again under the same fragment id (processed once).
    """

    fragment_id: str
    seq: int
    trigger: str
    turns: list[Turn]


class SessionBuffer(BaseModel):
    session_id: str
    incarnation: str = Field(description="made when the item is created; part of every fragment id")
    seq: int = Field(default=0, description="flushes claimed so far: the next fragment's sequence number")
    pending: list[Turn] = Field(default_factory=list, description="turns not yet claimed for a fragment")
    user_turns: int = Field(default=0, description="user turns in pending (the flush counter)")
    recent: list[Turn] = Field(default_factory=list, description="last turns: chat history for the model")
    outbox: list[OutboxEntry] = Field(default_factory=list)
    locale: str | None = None
    created_at: datetime
    last_activity: datetime
    # The sparse "idle sessions" marker: set while anything is pending or claimed, None otherwise.
    idle_due: datetime | None = None
    version: int = Field(default=0, description="0 = not stored yet; +1 on every write")

    @property
    def open(self) -> bool:
        return bool(self.pending or self.outbox)
