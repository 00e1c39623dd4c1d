"""Recency weighting of episode hits (seed 002: of two related memories, the recent one counts more).

    weighted = max(similarity, 0) * (FLOOR + (1 - FLOOR) * 2 ** (-age_days / HALF_LIFE_DAYS))

With a half-life of 180 days a half-year-old episode keeps 65% of its similarity, a year-old
one 47%; the floor keeps an old but exact match findable (a past reaction to a drug matters
years later). The store returns CANDIDATES_PER_RESULT * k nearest by similarity alone; they are
re-ranked here and the best k kept, so a recent, slightly less similar episode can overtake an
old one without a recent but unrelated one ever entering.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..ports import EpisodeHit

HALF_LIFE_DAYS = 180.0
FLOOR = 0.3
CANDIDATES_PER_RESULT = 3


def recency_factor(at: datetime, now: datetime) -> float:
    age_days = max(0.0, (now - at).total_seconds() / 86400.0)  # a clock skew never boosts
    return FLOOR + (1.0 - FLOOR) * 2.0 ** (-age_days / HALF_LIFE_DAYS)


def rerank(hits: Sequence[EpisodeHit], now: datetime, k: int) -> list[EpisodeHit]:
    """The best k by weighted score (ties: newer first, then id: the same input, the same order)."""
    weighted = [
        EpisodeHit(h.episode_id, h.text, h.at, round(max(h.score, 0.0) * recency_factor(h.at, now), 6))
        for h in hits
    ]
    weighted.sort(key=lambda h: (-h.score, -h.at.timestamp(), h.episode_id))
    return weighted[:k]
