"""Request and response models of the public API (the OpenAPI spec is generated from them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from ..domain.models import AppliedEvent, EvidenceKind, FragmentStatus, RejectedEvent, Role
from ..domain.sections import FactStatus, Section, SectionStatus, Stage
from ..read.views import (
    ClarificationView,
    Discrepancy,
    EpisodeView,
    FactBlock,
    Gap,
    PendingMentionView,
    StatusLine,
    TokenCount,
)

ID_PATTERN = r"^[A-Za-z0-9_\-]{1,64}$"


class Problem(BaseModel):
    """One error shape everywhere (RFC 9457 style). Never echoes what the user said."""

    type: str
    title: str
    detail: str
    status: int


class GatewayMessage(BaseModel):
    """What API Gateway itself answers before the function runs (401, 413, 429)."""

    message: str


def _date_time_string(value: Any) -> Any:
    # The spec says a date-time string; pydantic alone would also take a number (epoch seconds).
    if value is not None and not isinstance(value, str | datetime):
        raise ValueError("a date-time string")
    return value


def _json_number(value: Any) -> Any:
    # A JSON number (400 or 400.0, as JSON Schema's integer allows), not "400" and not true.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("a number")
    return value


# A message's time: from 1900 to a day ahead of the server's clock (clock skew). Year 1 or 9999
# are not times anyone said something; they broke date arithmetic further down (issue 15).
EARLIEST_MESSAGE_AT = datetime(1900, 1, 1, tzinfo=UTC)
MESSAGE_AT_FUTURE_SLACK = timedelta(days=1)


def _sane_time(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if aware < EARLIEST_MESSAGE_AT:
        raise ValueError("a time from 1900 on")
    if aware > datetime.now(UTC) + MESSAGE_AT_FUTURE_SLACK:
        raise ValueError("a time not in the future")
    return value


class MessageIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str = Field(min_length=1, max_length=20_000)
    at: Annotated[
        datetime,
        BeforeValidator(_date_time_string),
        AfterValidator(_sane_time),
        Field(description="from 1900-01-01 to one day after the server's clock; 422 otherwise"),
    ] | None = None


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
    reason: str | None = Field(
        default=None,
        description="why a fragment ended failed (an error class, e.g. error:OverflowError; never what "
        "was said); POST the same fragment again to retry it",
    )


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
    evidence_kind: EvidenceKind = Field(
        default=EvidenceKind.STATED,
        description="the user's own words, an answer to the assistant's question, or a confirmed summary",
    )
    context_evidence: str | None = Field(
        default=None, description="the assistant's question the user's words answered (answers only)"
    )


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
    vector_verification: Literal["verified", "pending"] = Field(
        description="verified: the vector store confirmed that none of the user's vectors is left. "
        "pending: the store counts recent writes only after its refresh interval, so that could "
        "not be confirmed yet (DELETE /v1/me again sweeps again)"
    )


class RecentMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Role
    text: str = Field(min_length=1, max_length=4000)


class ContextIn(BaseModel):
    """POST, so that the question never lands in a URL or an access log."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=4000)
    recent_messages: list[RecentMessage] = Field(default_factory=list, max_length=10)
    max_tokens: Annotated[int, BeforeValidator(_json_number)] = Field(default=400, ge=50, le=4000)
    session_id: str | None = Field(
        default=None,
        pattern=ID_PATTERN,
        description="the open chat session, if any: what its buffered turns said about allergies or drugs "
        "is in the context as just said, before the session is flushed",
    )


class ContextOut(BaseModel):
    """The context's blocks are the read path's own typed views (read/views.py), as the prompt uses them."""

    query_classes: list[str]
    sections: list[Section]
    current_state: list[Section] = Field(
        default_factory=list,
        description="of those sections, the ones that ride along for safety and were read as their "
        "current state: each current fact as the line a safety check needs, without its details",
    )
    history_intent: bool
    self_reported: list[FactBlock] = Field(description="what the user said, by section")
    documented: list[FactBlock] = Field(description="from medical documents and lab results, by section")
    statuses: list[StatusLine] = Field(
        description="sections the user said have none (confirmed_absent), that they do not know (unsure), "
        "or that hold only ended facts (present, with ended: nothing current on record)"
    )
    discrepancies: list[Discrepancy]
    gaps: list[Gap] = Field(description="critical sections never discussed")
    clarifications: list[ClarificationView]
    pending: list[PendingMentionView] = Field(
        description="just said about allergies or drugs, not processed yet"
    )
    episodes: list[EpisodeView]
    episodes_status: Literal["ok", "skipped", "unavailable"]
    prompt: str
    tokens: TokenCount


# ---------------------------------------------------------------------- chat
class ChatIn(BaseModel):
    """One user message of a chat session. The turn is kept for memory whatever happens next."""

    model_config = ConfigDict(extra="forbid")

    session_id: str = Field(pattern=ID_PATTERN)
    message: str = Field(min_length=1, max_length=20_000, pattern=r"\S")
    locale: str | None = Field(default=None, max_length=16, pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$")


class ContextUsed(BaseModel):
    sections: list[str] = Field(description="memory sections the question was classified into")
    fact_ids: list[str] = Field(description="facts (self-reported and documented) put in the model's context")
    episodes: list[EpisodeView] = Field(description="past-conversation snippets put in the model's context")


class ChatOut(BaseModel):
    answer: str
    context_used: ContextUsed
    session_id: str


class SessionEndOut(BaseModel):
    session_id: str
    flushed: bool = Field(description="false when nothing was waiting (a repeated end flushes nothing)")
    fragment_ids: list[str] = Field(description="fragments handed to the write path (GET /v1/fragments/{id})")
