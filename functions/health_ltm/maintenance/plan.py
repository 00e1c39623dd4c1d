"""What a maintenance run changes (or would, in a dry run): reported by the fact policies
(engine.py) and by episode archival (episodes.py) alike, so it sits below both."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class PlannedChange:
    policy: str
    section: str
    fact_id: str
    summary: str  # what changes, without user text: e.g. "status present -> resolved"
