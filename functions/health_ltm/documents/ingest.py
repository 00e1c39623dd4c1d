"""Ingest documented facts. They are stored apart from what the user said (provenance
"documented") and shown as their own labelled block; no code decides which source wins."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..domain.models import Fact, Provenance
from ..domain.sections import ALLOWED_STATUSES, FactStatus, Section, Stage
from ..errors import InvalidDocument
from ..ports import FactStore

SourceType = Literal["lab_result", "document", "appointment"]


class DocumentedFactIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    section: Section
    name: str = Field(min_length=1, max_length=200)
    status: FactStatus
    attributes: dict[str, Any] = Field(default_factory=dict)
    valid_from: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")
    valid_to: str | None = Field(default=None, pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")
    code: str | None = Field(default=None, max_length=16)


class DocumentIn(BaseModel):
    """What an internal service sends (IAM-authorised; the user id is the document's owner)."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_\-:.@]+$")
    source_type: SourceType
    document_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_\-:.]+$")
    document_date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    facts: list[DocumentedFactIn] = Field(min_length=1, max_length=200)


def documented_fact_id(document_id: str, section: Section, key: str) -> str:
    """Deterministic: re-sending the same document replaces its facts instead of adding more."""
    digest = hashlib.blake2b(f"{document_id}\x1f{section.value}\x1f{key}".encode(), digest_size=10)
    return f"doc-{digest.hexdigest()}"


def ingest(repository: FactStore, now: datetime, document: DocumentIn) -> list[str]:
    # Imported here: the internal route is rare, and these modules are heavy for a cold start.
    from ..domain.attributes import validate_attributes
    from ..write.normalize import normalize_name

    facts: list[Fact] = []
    for item in document.facts:
        if item.status not in ALLOWED_STATUSES[item.section]:
            raise InvalidDocument(f"status {item.status.value} is not allowed in {item.section.value}")
        try:
            attributes = validate_attributes(item.section, item.attributes)
        except ValueError as exc:
            raise InvalidDocument(f"attributes do not fit section {item.section.value}") from exc
        normalized = normalize_name(item.section, item.name, None)
        key = normalized.key
        if item.section is Section.FAMILY_HISTORY:
            key = f"{attributes.get('relative', 'other')}:{key}"
        facts.append(
            Fact(
                id=documented_fact_id(document.document_id, item.section, key),
                section=item.section,
                key=key,
                name_raw=item.name,
                name_normalized=normalized.name_normalized,
                code=item.code or normalized.code,
                status=item.status,
                stage=Stage.ACTIVE,
                provenance=Provenance.DOCUMENTED,
                attributes=attributes,
                valid_from=item.valid_from,
                valid_to=item.valid_to,
                first_mentioned_at=now,
                last_confirmed_at=now,
                source_type=document.source_type,
                document_id=document.document_id,
                document_date=document.document_date,
            )
        )
    for fact in facts:
        repository.put_documented(document.user_id, fact)
    return [f.id for f in facts]
