"""A short fingerprint of a set of facts' versions: tells whether a derived text (the profile
summary) still describes the facts it was made from."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from .models import EndedFact, Fact


def facts_fingerprint(facts: Iterable[Fact | EndedFact]) -> str:
    """Over ids and versions only: a memory loaded with its ended facts in brief
    (``UserMemory.ended``) has the same fingerprint as one loaded whole."""
    versions = sorted(f"{f.id}:{f.version}" for f in facts)
    return hashlib.blake2b("|".join(versions).encode(), digest_size=12).hexdigest()
