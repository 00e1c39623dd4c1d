"""A validated, normalised candidate: what code matches against stored facts."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .models import AssertionKind, EvidenceKind
from .sections import FactStatus, Section


@dataclass(frozen=True)
class Candidate:
    section: Section
    kind: AssertionKind
    key: str
    name_raw: str
    name_normalized: str
    status: FactStatus | None
    attributes: dict[str, Any] = field(default_factory=dict)
    code: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    correction: bool = False
    remember: bool = False
    retracted: bool = False
    evidence_kind: EvidenceKind = EvidenceKind.STATED
    context_evidence: str | None = None

    def fingerprint(self) -> str:
        """Stable identity of this candidate inside one fragment: a redelivery applies it once."""
        payload = json.dumps(
            [
                self.section,
                self.kind,
                self.key,
                self.status,
                self.attributes,
                self.valid_from,
                self.valid_to,
                self.retracted,
            ],
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.blake2b(payload.encode(), digest_size=12).hexdigest()
