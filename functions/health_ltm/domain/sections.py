"""The eleven memory sections and their per-section rules (data, read by code)."""

from __future__ import annotations

from enum import StrEnum


class Section(StrEnum):
    MEDICATIONS = "medications"
    SYMPTOMS = "symptoms"
    REPORTED_DIAGNOSES = "reported_diagnoses"
    CHRONIC_CONDITIONS = "chronic_conditions"
    DEMOGRAPHICS = "demographics"
    LIFESTYLE = "lifestyle"
    ALLERGIES = "allergies"
    SURGERIES = "surgeries"
    INJURIES = "injuries"
    VACCINATIONS = "vaccinations"
    FAMILY_HISTORY = "family_history"


class SectionStatus(StrEnum):
    """What is known about a whole section: never discussed is not the same as 'none'."""

    UNKNOWN = "unknown"
    CONFIRMED_ABSENT = "confirmed_absent"
    UNSURE = "unsure"
    PRESENT = "present"


class FactStatus(StrEnum):
    PRESCRIBED = "prescribed"  # medications: the doctor prescribed it, not started yet
    ACTIVE = "active"  # medications: taking it now
    STOPPED = "stopped"  # medications, lifestyle habits: no longer
    PRESENT = "present"  # conditions, allergies, symptoms, one-off events that happened
    ABSENT = "absent"  # entity-level negation: "not allergic to penicillin"
    RESOLVED = "resolved"  # symptoms, injuries, diagnoses that are over


class Stage(StrEnum):
    """Lifecycle (seed 003): only active and stable facts reach a context."""

    CANDIDATE = "candidate"
    ACTIVE = "active"
    STABLE = "stable"
    DEPRECATED = "deprecated"


# Sections where "never discussed", "none" and "don't know" are told apart (seed 000).
SECTIONS_WITH_STATUS: frozenset[Section] = frozenset(
    {
        Section.ALLERGIES,
        Section.CHRONIC_CONDITIONS,
        Section.FAMILY_HISTORY,
        Section.MEDICATIONS,
        Section.SURGERIES,
    }
)

# Critical sections: an unknown status there is a gap the assistant may ask about.
CRITICAL_SECTIONS: tuple[Section, ...] = (
    Section.ALLERGIES,
    Section.CHRONIC_CONDITIONS,
    Section.FAMILY_HISTORY,
)

# Safety constraints are the last to be dropped from a context under a token budget.
SAFETY_SECTIONS: tuple[Section, ...] = (
    Section.ALLERGIES,
    Section.CHRONIC_CONDITIONS,
    Section.MEDICATIONS,
)

# Facts in these sections are active at first mention; the others start as candidates and wait
# for a second mention (in another message) or an explicit "remember" (seed 003).
ACTIVE_AT_FIRST_MENTION: frozenset[Section] = frozenset(set(Section) - {Section.LIFESTYLE})
# Lifestyle habits that change what is safe to take or advise (interactions, dosing, nicotine): like the
# safety sections, they are active at first mention and are never held against a stable fact.
SAFETY_LIFESTYLE_KEYS: frozenset[str] = frozenset({"smoking", "vaping", "alcohol"})
# Keys active at first mention in a section that otherwise waits (pregnancy is a demographics
# slot, so already active; it is listed so the rule is visible in one place).
ACTIVE_AT_FIRST_MENTION_KEYS: dict[Section, frozenset[str]] = {
    Section.LIFESTYLE: SAFETY_LIFESTYLE_KEYS,
    Section.DEMOGRAPHICS: frozenset({"pregnancy"}),
}
# Stable facts of these sections resist a one-off contradiction (seed 003: "confirmed facts need a
# repeated refutation"): preference-type facts, except the safety-relevant habits above. The
# safety sections keep their first-mention rules: a stopped drug or a new allergy applies at once.
RESIST_ONE_OFF_CONTRADICTION: dict[Section, frozenset[str]] = {
    Section.LIFESTYLE: SAFETY_LIFESTYLE_KEYS,  # the section, except these keys
}


def active_at_first_mention(section: Section, key: str) -> bool:
    return section in ACTIVE_AT_FIRST_MENTION or key in ACTIVE_AT_FIRST_MENTION_KEYS.get(section, ())


def resists_one_off_contradiction(section: Section, key: str) -> bool:
    """A stable fact here changes only on a second mention of the new state or a correction."""
    exceptions = RESIST_ONE_OFF_CONTRADICTION.get(section)
    return exceptions is not None and key not in exceptions


# Statuses that describe the present; the rest answer history questions only.
CURRENT_STATUSES: frozenset[FactStatus] = frozenset(
    {FactStatus.PRESCRIBED, FactStatus.ACTIVE, FactStatus.PRESENT, FactStatus.ABSENT}
)
HISTORICAL_STATUSES: frozenset[FactStatus] = frozenset({FactStatus.STOPPED, FactStatus.RESOLVED})

# Which fact statuses each section admits (validation of model output).
ALLOWED_STATUSES: dict[Section, frozenset[FactStatus]] = {
    Section.MEDICATIONS: frozenset({FactStatus.PRESCRIBED, FactStatus.ACTIVE, FactStatus.STOPPED}),
    Section.SYMPTOMS: frozenset({FactStatus.PRESENT, FactStatus.ABSENT, FactStatus.RESOLVED}),
    Section.REPORTED_DIAGNOSES: frozenset({FactStatus.PRESENT, FactStatus.ABSENT, FactStatus.RESOLVED}),
    Section.CHRONIC_CONDITIONS: frozenset({FactStatus.PRESENT, FactStatus.ABSENT, FactStatus.RESOLVED}),
    Section.DEMOGRAPHICS: frozenset({FactStatus.PRESENT}),
    Section.LIFESTYLE: frozenset({FactStatus.PRESENT, FactStatus.STOPPED, FactStatus.ABSENT}),
    Section.ALLERGIES: frozenset({FactStatus.PRESENT, FactStatus.ABSENT, FactStatus.RESOLVED}),
    Section.SURGERIES: frozenset({FactStatus.PRESENT, FactStatus.ABSENT}),
    Section.INJURIES: frozenset({FactStatus.PRESENT, FactStatus.RESOLVED}),
    Section.VACCINATIONS: frozenset({FactStatus.PRESENT, FactStatus.ABSENT}),
    Section.FAMILY_HISTORY: frozenset({FactStatus.PRESENT, FactStatus.ABSENT}),
}

# Statuses that end a fact (the transition is a negation, not a change).
ENDING_STATUSES: frozenset[FactStatus] = frozenset(
    {FactStatus.STOPPED, FactStatus.RESOLVED, FactStatus.ABSENT}
)
