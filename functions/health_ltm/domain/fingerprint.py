"""A short fingerprint of a set of facts' versions: tells whether a derived text (the profile
summary) still describes the facts it was made from."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from .models import Fact


def facts_fingerprint(facts: Iterable[Fact]) -> str:
    versions = sorted(f"{f.id}:{f.version}" for f in facts)
    return hashlib.blake2b("|".join(versions).encode(), digest_size=12).hexdigest()
