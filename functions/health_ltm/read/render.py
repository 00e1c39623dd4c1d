"""Facts and the other context views -> compact, labelled prompt lines, in plain words.

Provenance is always visible to the model (the block headers, ``read/context.py``). Lines carry
no raw keys (``weight_kg: 58.0`` is "weight 58 kg"), no Python reprs and no date twice; codes only
where they help the model (a drug's ATC code names its class).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from ..domain.models import Fact
from ..domain.sections import FactStatus, Section, SectionStatus
from .views import ClarificationView, Discrepancy, EpisodeView, FactView, Gap, PendingMentionView, StatusLine

SECTION_TITLES: dict[Section, str] = {
    Section.ALLERGIES: "Allergies",
    Section.CHRONIC_CONDITIONS: "Chronic conditions",
    Section.MEDICATIONS: "Medications",
    Section.SYMPTOMS: "Symptoms",
    Section.REPORTED_DIAGNOSES: "Diagnoses (reported)",
    Section.DEMOGRAPHICS: "About the user",
    Section.LIFESTYLE: "Lifestyle",
    Section.SURGERIES: "Surgeries",
    Section.INJURIES: "Injuries",
    Section.VACCINATIONS: "Vaccinations",
    Section.FAMILY_HISTORY: "Family history",
}

# Present is what a fact in its section block says by itself; the other statuses need a word.
_STATUS_WORDS: dict[FactStatus, str] = {
    FactStatus.PRESCRIBED: "prescribed, not started",
    FactStatus.ACTIVE: "taking now",
    FactStatus.STOPPED: "stopped",
    FactStatus.RESOLVED: "resolved",
}

# "The user said it is NOT so", per section ("not allergic to penicillin").
_NEGATIONS: dict[Section, str] = {
    Section.ALLERGIES: "NOT allergic to {name}",
    Section.SYMPTOMS: "NO {name}",
    Section.REPORTED_DIAGNOSES: "does NOT have {name}",
    Section.CHRONIC_CONDITIONS: "does NOT have {name}",
    Section.LIFESTYLE: "NOT {name}",
    Section.SURGERIES: "NO {name} (never had it)",
    Section.VACCINATIONS: "NOT vaccinated: {name}",
    Section.FAMILY_HISTORY: "NO {name}",
}

_SECTION_NOUNS: dict[Section, str] = {s: title.lower() for s, title in SECTION_TITLES.items()}

_DEMOGRAPHIC_UNITS = {"height_cm": ("height", "cm"), "weight_kg": ("weight", "kg")}
_PREGNANCY_WORDS = {"pregnant": "pregnant", "breastfeeding": "breastfeeding", "not_pregnant": "not pregnant"}
_DISCREPANCY_WORDS = {
    "present": "has it",
    "active": "takes it",
    "prescribed": "prescribed it",
    "stopped": "stopped it",
    "resolved": "it is resolved",
    "absent": "does not have it",
    "confirmed_absent": "has none at all",
}
EARLIER = "earlier conversation; where it differs, the facts above are current"
_TIME_KEYS = ("year", "date", "since")  # attributes that say when: never repeated by valid_from


def fact_view(fact: Fact) -> FactView:
    """The fields of a fact that a context response carries."""
    return FactView(
        id=fact.id,
        name=fact.name_normalized or fact.name_raw,
        name_raw=fact.name_raw,
        status=fact.status,
        attributes=fact.attributes,
        last_confirmed_at=fact.last_confirmed_at.date(),
        valid_from=fact.valid_from,
        valid_to=fact.valid_to,
        code=fact.code,
        source_type=fact.source_type if fact.document_id else None,
        document_date=fact.document_date if fact.document_id else None,
    )


def number(value: Any) -> str:
    """58.0 -> "58", 2.5 -> "2.5"; anything else as it is."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def fact_line(fact: Fact, with_source: bool = True) -> str:
    """``with_source=False``: a documented fact right under another from the same document."""
    name = fact.name_normalized or fact.name_raw
    if fact.section is Section.DEMOGRAPHICS:
        return f"- {demographic_words(fact.attributes) or name}"
    attributes = dict(fact.attributes)
    if fact.section is Section.LIFESTYLE and attributes.get("value"):
        value = attributes.pop("value")
        if not (fact.status is FactStatus.ABSENT and str(value).casefold() in ("no", "none", "never")):
            name = f"{name}: {value}"  # not "NOT smoking: no"
    relative = attributes.pop("relative", None)
    if fact.status is FactStatus.ABSENT:
        name = _NEGATIONS.get(fact.section, "NOT {name}").format(name=name)
    if relative:
        name = f"{relative}: {name}"
    details: list[str] = []
    if fact.status in _STATUS_WORDS:
        details.append(_STATUS_WORDS[fact.status])
    if fact.section is Section.MEDICATIONS and fact.name_raw and fact.name_raw.casefold() != name.casefold():
        details.append(f"as said: {fact.name_raw}")
    said_when = {str(attributes[k]) for k in _TIME_KEYS if k in attributes}
    if str(attributes.get("date", "")).startswith(str(attributes.get("year", "-"))):
        attributes.pop("year")  # "in 2026; on 2026-11-25": the date says the year
    if attributes.get("body_site") and str(attributes["body_site"]).casefold() in name.casefold():
        attributes.pop("body_site")  # "wrist fracture (site: wrist)"
    details.extend(attribute_words(fact.section, attributes, fact.last_confirmed_at.date()))
    if fact.section is Section.MEDICATIONS and fact.code and "atc_code" not in attributes:
        details.append(f"ATC {fact.code}")
    if fact.valid_from and fact.valid_from not in said_when:
        happened_once = fact.section in (Section.SURGERIES, Section.INJURIES, Section.VACCINATIONS)
        at = "on" if len(fact.valid_from) == 10 else "in"
        details.append(f"{at if happened_once else 'since'} {fact.valid_from}")
    if fact.valid_to and fact.valid_to not in said_when:
        details.append(f"until {fact.valid_to}")
    extra = f" ({'; '.join(details)})" if details else ""
    source = ""
    if fact.document_id and with_source:
        kind = (fact.source_type or "document").replace("_", " ")
        source = f" [from {kind}{', ' + fact.document_date if fact.document_date else ''}]"
    return f"- {name}{extra}{source}"


def demographic_words(attributes: Mapping[str, Any]) -> str:
    words: list[str] = []
    for key, value in attributes.items():
        if key == "birth_year":
            words.append(f"born {value}")
        elif key in _DEMOGRAPHIC_UNITS:
            label, unit = _DEMOGRAPHIC_UNITS[key]
            words.append(f"{label} {number(value)} {unit}")
        elif key == "pregnancy":
            words.append(_PREGNANCY_WORDS.get(str(value), str(value)))
        elif key == "city":
            words.append(f"lives in {value}")
        else:
            words.append(f"{key.replace('_', ' ')}: {number(value)}")
    return ", ".join(words)


def attribute_words(
    section: Section, attributes: Mapping[str, Any], said_on: date | None = None
) -> list[str]:
    """A fact's attributes as short phrases, in a fixed order (dose first)."""
    if section is Section.DEMOGRAPHICS:
        return [demographic_words(attributes)] if attributes else []
    rest = dict(attributes)
    words: list[str] = []
    if "dose_value" in rest:
        words.append(f"{number(rest.pop('dose_value'))} {rest.pop('dose_unit', '')}".strip())
    rest.pop("dose_unit", None)
    for key, value in rest.items():
        if key in ("frequency", "time_of_day", "route", "severity", "allergen_type", "value"):
            words.append(number(value))
        elif key == "indication":
            words.append(f"for {value}")
        elif key == "course_end":
            words.append(f"course ends {value}")
        elif key == "stop_reason":
            words.append(f'why stopped: "{value}"')
        elif key == "atc_code":
            words.append(f"ATC {value}")
        elif key == "icd10":
            continue  # the name says it; the code adds nothing for the model
        elif key == "reaction":
            words.append(f"reaction: {value}")
        elif key == "suspected":
            if value:
                words.append("suspected, not confirmed")
        elif key == "body_site":
            words.append(f"site: {value}")
        elif key == "onset_days_ago":
            days = f"{value} day" if value == 1 else f"{value} days"
            words.append(f"began {days} before {said_on}" if said_on else f"began {days} before")
        elif key in ("year", "date"):
            words.append(f"{'on' if len(str(value)) == 10 else 'in'} {value}")  # on 2026-11-25, in 2026-10
        elif key == "since":
            words.append(f"since {value}")
        elif key == "dose_number":
            words.append(f"dose {value}")
        elif key == "age_at_onset":
            words.append(f"at age {value}")
        elif key == "relative":
            words.append(str(value))
        else:
            words.append(f"{key.replace('_', ' ')}: {number(value)}")
    return words


# ---------------------------------------------------------------------- the other lines
def status_line(status: StatusLine) -> str:
    noun = _SECTION_NOUNS[status.section]
    when = status.since.isoformat() if status.since else None
    if status.status is SectionStatus.CONFIRMED_ABSENT:
        return f"- {noun}: none known ({f'confirmed {when}' if when else 'the user confirmed'})"
    if status.status is SectionStatus.PRESENT:
        return f"- {noun}: nothing current on record ({status.ended} ended before; ask if the past matters)"
    return f"- {noun}: the user is not sure" + (f" (said {when})" if when else "")


def pending_line(pending: PendingMentionView, with_date: bool = True) -> str:
    return f'- "{pending.text}"' + (f" (said {pending.received_at.date().isoformat()})" if with_date else "")


def discrepancy_line(d: Discrepancy) -> str:
    own = _DISCREPANCY_WORDS.get(d.self_reported, d.self_reported)
    documented = _DISCREPANCY_WORDS.get(d.documented, d.documented)
    return f"- {_SECTION_NOUNS[d.section]}: {d.name}: the user says {own}; the documents say {documented}"


def clarification_line(c: ClarificationView) -> str:
    if c.reason == "section_absent_conflicts_with_recorded_facts":
        what = "the user said there are none, but facts are on record"
    elif c.reason == "retracted_mention":
        what = "the user took back what they said before; confirm before relying on it"
    elif c.reason == "ambiguous_reference":
        what = "the user spoke of one of these without naming which; ask which one"
    elif c.reason == "owner_unknown":
        what = "the user told this result without saying whose it is (theirs or a relative's); ask"
    elif c.reason.startswith("implausible_change:"):
        what = f"{c.reason.split(':', 1)[1].replace('_', ' ')} changed implausibly"
    else:
        what = c.reason.replace("_", " ")
    parts = [f"- {_SECTION_NOUNS[c.section]}: {what}"]
    if c.current:
        parts.append(f"on record: {_value_words(c.section, c.current)}")
    if c.proposed and c.reason != "retracted_mention":  # {"retracted": True} says nothing more
        parts.append(f"newly said: {_value_words(c.section, c.proposed)}")
    return "; ".join(parts)


def gap_line(gap: Gap) -> str:
    return f"- {_SECTION_NOUNS[gap.section]}: never discussed; you may ask: {gap.suggested_question}"


def episode_line(episode: EpisodeView, with_date: bool = True) -> str:
    notes = [episode.at.date().isoformat()] if with_date else []
    if episode.earlier:
        notes.append(EARLIER)
    prefix = f"({'; '.join(notes)}) " if notes else ""
    return f"- {prefix}{episode.text[:300]}"


def _value_words(section: Section, values: Mapping[str, Any]) -> str:
    words: list[str] = []
    for key, value in values.items():
        if key == "facts":
            words.append(", ".join(str(v) for v in _as_list(value)))
        elif key == "said":  # the user's own words, quoted
            words.append(f'"{value}"')
        elif key == "status":
            words.append("none at all" if value == "confirmed_absent" else str(value).replace("_", " "))
        elif value is None:
            words.append(f"no {key.replace('_', ' ')}")
        else:
            words.extend(attribute_words(section, {key: value}))
    return ", ".join(words)


def _as_list(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list | tuple) else [value]
