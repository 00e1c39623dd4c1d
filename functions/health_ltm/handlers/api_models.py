"""Request and response models of the public API (the OpenAPI spec is generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..domain.models import AppliedEvent, FragmentStatus, RejectedEvent, Role
from ..domain.sections import FactStatus, Section, SectionStatus, Stage

ID_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"


class Problem(BaseModel):
    """One error shape everywhere (RFC 9457 style). Never echoes what the user said."""

    type: str
    title: str
    detail: str
    status: int


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str = Field(min_length=1, max_length=20_000)
    at: datetime | None = None


class FragmentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fragment_id: str | None = Field(default=None, pattern=ID_PATTERN)
    session_id: str = Field(pattern=ID_PATTERN)
    messages: list[MessageIn] = Field(min_length=1, max_length=500)
    locale: str | None = Field(default=None, max_length=16, pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$")


class FragmentAccepted(BaseModel):
    fragment_id: str
    status: FragmentStatus


class FragmentOut(BaseModel):
    fragment_id: str
    status: FragmentStatus
    applied: list[AppliedEvent]
    rejected: list[RejectedEvent]


class FactOut(BaseModel):
    id: str
    section: Section
    key: str
    name_raw: str
    name_normalized: str
    code: str | None = None
    status: FactStatus
    stage: Stage
    provenance: str
    attributes: dict[str, Any]
    valid_from: str | None
    valid_to: str | None
    first_mentioned_at: datetime
    last_confirmed_at: datetime
    mention_count: int
    version: int
    deleted: bool = False


class SectionStatusOut(BaseModel):
    status: SectionStatus


class FactsOut(BaseModel):
    facts: list[FactOut]
    sections: dict[str, SectionStatusOut]


class HistoryEventOut(BaseModel):
    type: str
    at: datetime
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    fragment_id: str | None
    policy: str | None = None


class FactWithHistoryOut(FactOut):
    history: list[HistoryEventOut]


class FactPatch(BaseModel):
    """What a user may correct. Ids, times, versions and history stay code's."""

    model_config = ConfigDict(extra="forbid")

    name_raw: str | None = Field(default=None, min_length=1, max_length=200)
    status: FactStatus | None = None
    attributes: dict[str, Any] | None = None
    valid_from: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")
    valid_to: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")


class SectionStatusIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["confirmed_absent", "unsure", "unknown"]


class ErasureOut(BaseModel):
    erased_items: int
    erased_vectors: int
    remaining_items: int
    remaining_vectors: int


class RecentMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str = Field(min_length=1, max_length=4000)


class ContextIn(BaseModel):
    """POST, so that the question never lands in a URL or an access log."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    recent_messages: list[RecentMessage] = Field(default_factory=list, max_length=10)
    max_tokens: int = Field(default=400, ge=50, le=4000)
    session_id: str | None = Field(default=None, pattern=ID_PATTERN)


class FactBlock(BaseModel):
    section: str
    facts: list[dict[str, Any]]


class Gap(BaseModel):
    section: str
    suggested_question: str


class EpisodeOut(BaseModel):
    text: str
    at: str
    score: float


class TokensOut(BaseModel):
    prompt: int
    budget: int
    counter: str = Field(description="o200k_base, or an upper-bound estimate while it loads")


class ContextOut(BaseModel):
    query_classes: list[str]
    sections: list[str]
    history_intent: bool
    self_reported: list[FactBlock]
    documented: list[FactBlock]
    discrepancies: list[dict[str, Any]]
    gaps: list[Gap]
    clarifications: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    episodes: list[EpisodeOut]
    episodes_status: Literal["ok", "skipped", "unavailable"]
    prompt: str
    tokens: TokensOut
