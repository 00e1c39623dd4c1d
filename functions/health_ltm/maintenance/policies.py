"""The policy table (data/policies.json): reviewed, versioned, read by code.

No policy lives in an if-statement: code only knows the kinds of rule, the data says which
section gets which rule and with what numbers.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field

from ..domain.sections import Section


class SectionPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    never_expires: bool = False
    resolve_after_days: int | None = Field(default=None, ge=1)
    stop_at_course_end: bool = False
    candidate_lapse_days: int | None = Field(default=None, ge=1)


class StablePolicy(BaseModel):
    min_confirmations: int = Field(ge=2)
    min_sessions: int = Field(ge=1)


class EpisodePolicy(BaseModel):
    archive_after_days: int = Field(ge=1)


class SummaryPolicy(BaseModel):
    max_tokens: int = Field(ge=50, le=2000)


class PolicyTable(BaseModel):
    model_config = ConfigDict(extra="ignore")

    version: str
    sections: dict[Section, SectionPolicy]
    stable: StablePolicy
    episodes: EpisodePolicy
    summary: SummaryPolicy

    def horizons(self) -> list[int]:
        """Days after a user's last activity at which some policy may fall due.

        The scheduler looks up the users active exactly that many days ago (plus yesterday for
        consolidation), so an inactive user's facts still age on time without any table Scan.
        """
        days = {1}
        for policy in self.sections.values():
            days.update(d for d in (policy.resolve_after_days, policy.candidate_lapse_days) if d)
        days.add(self.episodes.archive_after_days)
        return sorted(days)


@lru_cache(maxsize=1)
def load_policies() -> PolicyTable:
    text = resources.files("health_ltm.data").joinpath("policies.json").read_text(encoding="utf-8")
    table = PolicyTable.model_validate(json.loads(text))
    missing = set(Section) - set(table.sections)
    if missing:
        raise ValueError(f"policy table has no entry for {sorted(missing)}")
    return table
