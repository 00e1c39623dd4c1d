"""Table rows <-> domain models. Rows keep a few top-level attributes for conditions and
filters; the model itself is one JSON string (fast to parse, no Decimal juggling)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from ..domain.models import (
    AppliedEvent,
    Clarification,
    CurrentFact,
    EndedFact,
    Episode,
    Fact,
    Fragment,
    HistoryEvent,
    PendingMention,
    RejectedEvent,
    SectionState,
    UserMemory,
)
from ..domain.sections import Section
from ..schema import TTL_ATTRIBUTE
from . import keys


def fragment_item(pk: str, fragment: Fragment, expires_at: int) -> dict:
    return {
        "PK": {"S": pk},
        "SK": {"S": f"FRAG#{fragment.id}"},
        "kind": {"S": "fragment"},
        "status": {"S": fragment.status.value},
        "version": {"N": "0"},
        "data": {"S": fragment.model_dump_json(exclude={"applied", "rejected", "status", "version"})},
        TTL_ATTRIBUTE: {"N": str(expires_at)},
    }


def applied_entries(item: dict, name: str) -> list[Any]:
    model = AppliedEvent if name == "applied" else RejectedEvent
    return [model.model_validate_json(v["S"]) for v in item.get(name, {}).get("L", [])]


def fact_data(fact: Fact) -> str:
    """A fact's stored JSON: fields at their defaults are left out (null document fields, "user",
    "stated", a count of 1, ...), which the model fills back in when it parses. About 30% fewer
    bytes per fact item than the full dump, so every read of a section pays less (issue 12)."""
    return fact.model_dump_json(exclude_defaults=True)


def ended_data(fact: Fact) -> str:
    """An ended fact's brief (``EndedFact``), the item its section's range holds for it."""
    return EndedFact.of(fact).model_dump_json(exclude_defaults=True)


CURRENT_DATA = "d"  # a short attribute name: this item is read by most questions


def current_item(pk: str, fact: Fact, documented: bool = False) -> dict:
    """The fact's current-state copy (``CurrentFact``): key and data only, no conditions on it
    (it is written beside the fact, whose condition guards both)."""
    return {
        "PK": {"S": pk},
        "SK": {"S": keys.current_sk(fact.section, fact.id, documented)},
        CURRENT_DATA: {"S": CurrentFact.of(fact).dump()},
    }


def parse_current_item(item: dict, memory: UserMemory) -> None:
    """One CUR# row into the memory (``CurrentFact.view``; ``add_current``)."""
    parts = keys.current_parts(item["SK"]["S"])
    if parts is not None:
        section, documented, fact_id = parts
        current = CurrentFact.model_validate_json(item[CURRENT_DATA]["S"])
        add_current(memory, current.view(Section(section), fact_id, documented), documented)


def add_current(memory: UserMemory, view: Fact | EndedFact | None, documented: bool) -> None:
    """A current-state view into the memory: a current fact as its line, an ended one as its brief
    (both repositories load these the same way)."""
    if view is None:
        return
    if isinstance(view, EndedFact):
        memory.ended.append(view)
    elif documented:
        memory.documented.append(view)
    else:
        memory.facts.append(view)


def parse_context_item(item: dict, memory: UserMemory, wanted: set[str] | None, briefs: bool = False) -> None:
    """Add one CTX# row to the memory; facts of unwanted sections are skipped before parsing.
    ``briefs``: keep ended facts' briefs (their whole facts are not being read)."""
    kind = item["kind"]["S"]
    section = item.get("section", {}).get("S")
    if kind == "fact":
        if wanted is None or section in wanted:
            memory.facts.append(Fact.model_validate_json(item["data"]["S"]))
    elif kind == "ended":
        if briefs and (wanted is None or section in wanted):
            memory.ended.append(EndedFact.model_validate_json(item["data"]["S"]))
    elif kind == "documented":
        if wanted is None or section in wanted:
            memory.documented.append(Fact.model_validate_json(item["data"]["S"]))
    elif kind == "section":
        state = SectionState.model_validate_json(item["data"]["S"])
        memory.sections[state.section] = state
    elif kind == "clarification":
        memory.clarifications.append(Clarification.model_validate_json(item["data"]["S"]))
    elif kind == "pending":
        memory.pending.append(PendingMention.model_validate_json(item["data"]["S"]))
    elif kind == "summary":
        summary = json.loads(item["data"]["S"])
        memory.summary = summary.get("text")
        memory.summary_fingerprint = summary.get("fingerprint")


def attribute_size(value: dict) -> int:
    """DynamoDB's size of one attribute value, in bytes (the rules capacity units are billed on)."""
    ((kind, v),) = value.items()
    if kind == "S":
        return len(v) if v.isascii() else len(v.encode("utf-8"))
    if kind == "N":
        number = v.lstrip("-")
        if "." in number:
            number = number.rstrip("0")  # "1.50" is stored as 1.5
        digits = len(number.replace(".", "").lstrip("0")) or 1
        return (digits + 1) // 2 + 1
    if kind == "B":
        return len(v)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(s.encode("utf-8")) for s in v)
    if kind == "BS":
        return sum(len(b) for b in v)
    if kind == "NS":
        return sum(attribute_size({"N": n}) for n in v)
    if kind == "L":
        return 3 + sum(1 + attribute_size(x) for x in v)
    if kind == "M":
        return 3 + sum(1 + len(k.encode("utf-8")) + attribute_size(x) for k, x in v.items())
    return len(str(v))


def item_size(item: dict) -> int:
    """Bytes of an item as DynamoDB counts them: attribute names plus values."""
    return sum(
        (len(name) if name.isascii() else len(name.encode("utf-8"))) + attribute_size(value)
        for name, value in item.items()
    )


def export_items(items: Iterable[dict]) -> dict:
    """Everything held about a user, as plain JSON."""
    out: dict[str, Any] = {
        "facts": [],
        "documented": [],
        "history": [],
        "sections": [],
        "clarifications": [],
        "pending": [],
        "fragments": [],
        "episodes": [],
        "summary": None,
    }
    for item in items:
        kind = item.get("kind", {}).get("S")
        data = item.get("data", {}).get("S")
        if kind == "fact":
            out["facts"].append(Fact.model_validate_json(data).model_dump(mode="json"))
        elif kind == "documented":
            out["documented"].append(Fact.model_validate_json(data).model_dump(mode="json"))
        elif kind == "history":
            out["history"].append(HistoryEvent.model_validate_json(data).model_dump(mode="json"))
        elif kind == "section":
            out["sections"].append(SectionState.model_validate_json(data).model_dump(mode="json"))
        elif kind == "clarification":
            out["clarifications"].append(Clarification.model_validate_json(data).model_dump(mode="json"))
        elif kind == "pending":
            out["pending"].append(PendingMention.model_validate_json(data).model_dump(mode="json"))
        elif kind == "fragment":
            fragment = json.loads(data)
            fragment["status"] = item["status"]["S"]
            fragment["applied"] = [json.loads(v["S"]) for v in item.get("applied", {}).get("L", [])]
            fragment["rejected"] = [json.loads(v["S"]) for v in item.get("rejected", {}).get("L", [])]
            out["fragments"].append(fragment)
        elif kind == "episode":
            out["episodes"].append(episode_from_item(item).model_dump(mode="json"))
        elif kind == "summary":
            out["summary"] = json.loads(data)
    return out


# Retrieval statistics sit beside the episode's JSON as top-level attributes, so a flush can
# ADD/SET them with one UpdateItem without reading the row.
RETRIEVALS = "retrievals"
LAST_RETRIEVED = "last_retrieved"  # epoch milliseconds: comparable in a condition


def to_millis(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def from_millis(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def episode_from_item(item: dict) -> Episode:
    episode = Episode.model_validate_json(item["data"]["S"])
    if RETRIEVALS in item:
        episode.retrieval_count = int(item[RETRIEVALS]["N"])
    if LAST_RETRIEVED in item:
        episode.last_retrieved_at = from_millis(int(item[LAST_RETRIEVED]["N"]))
    return episode
