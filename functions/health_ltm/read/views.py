"""The typed read contract: what POST /v1/context (and a chat turn's context) hands back.

One set of models for the renderer (``read/render.py`` writes the prompt lines from them) and for
the API (``handlers/api_models.ContextOut`` uses them as they are), so the OpenAPI description
documents every block a client receives.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..domain.sections import FactStatus, Section, SectionStatus


class View(BaseModel):
    model_config = ConfigDict(frozen=True)

    def __getitem__(self, name: str) -> Any:
        """Read a field by name, as the benchmarks' older readers do (``block["facts"]``)."""
        return getattr(self, name)


class FactView(View):
    """A remembered fact as a context carries it."""

    id: str
    name: str = Field(description="normalised name (the user's words when there is none)")
    name_raw: str = Field(description="as the user (or the document) said it")
    status: FactStatus = Field(description="absent: the user said it is NOT so ('not allergic to X')")
    attributes: dict[str, Any] = Field(description="the section's typed attributes (dose, reaction, ...)")
    last_confirmed_at: date
    valid_from: str | None = None
    valid_to: str | None = None
    code: str | None = Field(default=None, description="ATC / ICD-10 where known")
    source_type: str | None = Field(default=None, description="documented facts: the kind of document")
    document_date: str | None = None


class FactBlock(View):
    section: Section
    facts: list[FactView]


class StatusLine(View):
    """What is known about a whole section when no current fact says it: none at all
    (confirmed_absent), the user does not know (unsure), or only ended facts are on record
    (present, with ``ended``: "I stopped the amlodipine" and nothing taken now)."""

    section: Section
    status: Literal[SectionStatus.CONFIRMED_ABSENT, SectionStatus.UNSURE, SectionStatus.PRESENT]
    since: date | None = Field(default=None, description="when the user said so")
    ended: int = Field(
        default=0,
        ge=0,
        description="with status present: facts on record that ended (stopped, resolved), none current",
    )


class Gap(View):
    """A critical section never discussed: the assistant may ask."""

    section: Section
    suggested_question: str = Field(description="in the language of the query (ru, en or zh)")


class ClarificationView(View):
    """Conflicting statements held back until the user clarifies."""

    id: str
    section: Section
    reason: str = Field(description="e.g. implausible_change:birth_year")
    current: dict[str, Any] | None = Field(default=None, description="the value on record")
    proposed: dict[str, Any] | None = Field(default=None, description="the value newly said")


class PendingMentionView(View):
    """Said about allergies or drugs and not yet processed into facts (read-your-writes)."""

    fragment_id: str = Field(description="the fragment this will be processed as")
    sections: list[Section]
    text: str = Field(description="the user's sentences that mention it")
    received_at: datetime
    source: Literal["fragment", "chat_session"] = Field(
        default="fragment",
        description="fragment: queued for extraction; chat_session: still in a chat session's buffer",
    )


class Discrepancy(View):
    """What the user said and what the documents say disagree; both stay, code picks no winner."""

    section: Section
    name: str
    self_reported: str
    documented: str


class EpisodeView(View):
    """A past-conversation snippet found for the query."""

    text: str
    at: datetime
    score: float
    earlier: bool = Field(
        default=False,
        description="a fact it speaks about changed since: the facts are current where they differ",
    )


class TokenCount(View):
    prompt: int
    budget: int
    counter: str = Field(description="the tokenizer that counted: o200k_base (or an estimate without it)")
