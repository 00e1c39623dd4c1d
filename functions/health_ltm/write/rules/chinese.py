"""Chinese: the main sections read from CJK sentences (medications, allergies, conditions,
symptoms, family history, surgeries, demographics, lifestyle)."""

from __future__ import annotations

from ...domain.sections import Section
from .text import Context, Draft, Sentence

SECTIONS = frozenset(
    {
        Section.MEDICATIONS,
        Section.ALLERGIES,
        Section.CHRONIC_CONDITIONS,
        Section.REPORTED_DIAGNOSES,
        Section.SYMPTOMS,
        Section.FAMILY_HISTORY,
        Section.SURGERIES,
        Section.DEMOGRAPHICS,
        Section.LIFESTYLE,
    }
)


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    return []
