"""Facts -> compact, labelled prompt lines. Provenance is always visible to the model."""

from __future__ import annotations

from typing import Any

from ..domain.models import Fact
from ..domain.sections import FactStatus, Section

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

_STATUS_WORDS: dict[FactStatus, str] = {
    FactStatus.PRESCRIBED: "prescribed, not started",
    FactStatus.ACTIVE: "taking now",
    FactStatus.STOPPED: "stopped",
    FactStatus.PRESENT: "present",
    FactStatus.ABSENT: "NOT present (user said no)",
    FactStatus.RESOLVED: "resolved",
}


def fact_view(fact: Fact) -> dict[str, Any]:
    """The fields of a fact that a context response carries."""
    view: dict[str, Any] = {
        "id": fact.id,
        "name": fact.name_normalized or fact.name_raw,
        "name_raw": fact.name_raw,
        "status": fact.status.value,
        "attributes": fact.attributes,
        "last_confirmed_at": fact.last_confirmed_at.date().isoformat(),
    }
    if fact.valid_from:
        view["valid_from"] = fact.valid_from
    if fact.valid_to:
        view["valid_to"] = fact.valid_to
    if fact.document_id:
        view["source_type"] = fact.source_type
        view["document_date"] = fact.document_date
    return view


def fact_line(fact: Fact) -> str:
    name = fact.name_normalized or fact.name_raw
    if fact.section is Section.DEMOGRAPHICS:
        value = next(iter(fact.attributes.values()), fact.name_raw)
        return f"- {name}: {value}"
    if fact.section is Section.LIFESTYLE and fact.attributes.get("value"):
        name = f"{name}: {fact.attributes['value']}"
    details: list[str] = []
    if fact.name_raw and fact.name_raw.casefold() != name.casefold() and fact.section is Section.MEDICATIONS:
        details.append(f"as said: {fact.name_raw}")
    attributes = {k: v for k, v in fact.attributes.items() if k not in ("value",)}
    if "dose_value" in attributes:
        details.append(f"{attributes.pop('dose_value'):g} {attributes.pop('dose_unit', '')}".strip())
    if "relative" in attributes:
        name = f"{attributes.pop('relative')}: {name}"
    details.extend(f"{k.replace('_', ' ')} {v}" for k, v in attributes.items())
    if fact.valid_from:
        details.append(f"since {fact.valid_from}")
    if fact.valid_to:
        details.append(f"until {fact.valid_to}")
    status = _STATUS_WORDS.get(fact.status, fact.status.value)
    extra = f"; {', '.join(details)}" if details else ""
    source = (
        f" [{fact.source_type or 'document'} {fact.document_date or ''}]".rstrip() if fact.document_id else ""
    )
    return f"- {name} ({status}{extra}){source}"
