"""Items of the layout before issue 12 moved to the section-keyed one (``storage.keys``).

Before, facts were CTX#F#<id> and documented facts CTX#D#<id> (so every read took the whole
profile), section states CTX#S#<section>, clarifications CTX#C#, pending mentions CTX#P#, the
summary CTX#M#summary. Only the sort key changes; every attribute is kept. Idempotent: an item
already in the current layout, or outside CTX#, comes back as it is.

Ended facts (stopped, resolved, deprecated, deleted) written whole into their section's range are
split into a brief there and the whole fact under CTX#E# (``split_ended``).

Facts written before their current-state copies existed get one (``CUR#``, ``add_current``).

Used where old data can still exist: the local stack's ``.ltm/`` snapshots, migrated when they
are restored (``ltm_local.persistence``); the next snapshot is written in the new layout.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..domain.models import Fact, was_ended
from . import keys
from .codec import CURRENT_DATA, current_item, ended_data

_OLD = {"CTX#F#": "fact", "CTX#D#": "documented", "CTX#C#": "clarification", "CTX#P#": "pending"}


def current_sort_key(sk: str, kind: str | None, section: str | None) -> str:
    """The sort key an item with this (old or current) sort key has in the current layout."""
    for prefix, old_kind in _OLD.items():
        if sk.startswith(prefix) and kind in (old_kind, None):
            rest = sk[len(prefix) :]
            if old_kind == "fact" and section:
                return keys.fact_sk(section, rest)
            if old_kind == "documented" and section:
                return keys.documented_sk(section, rest)
            if old_kind == "clarification":
                return keys.clarification_sk(rest)
            if old_kind == "pending":
                return keys.pending_sk(rest)
    if sk == "CTX#M#summary":
        return keys.SUMMARY_SK
    rest = sk[len(keys.SECTIONS_PREFIX) :]
    if sk.startswith(keys.SECTIONS_PREFIX) and kind == "section" and "#" not in rest:
        return keys.section_sk(rest)  # CTX#S#<section>: a section state
    return sk


def migrate_item(item: dict) -> dict:
    """A DynamoDB item (low-level shape) with its sort key in the current layout."""
    sk = item.get("SK", {}).get("S")
    if sk is None or not sk.startswith(keys.CONTEXT_PREFIX):
        return item
    new = current_sort_key(sk, item.get("kind", {}).get("S"), item.get("section", {}).get("S"))
    return item if new == sk else {**item, "SK": {"S": new}}


def split_ended(item: dict) -> list[dict]:
    """A whole ended fact still in its section's range (written before ended facts were kept
    apart): its brief there, the fact in the ended block. Anything else comes back as it is."""
    sk = item.get("SK", {}).get("S", "")
    if item.get("kind", {}).get("S") != "fact" or not sk.startswith(keys.SECTIONS_PREFIX):
        return [item]
    data = json.loads(item.get("data", {}).get("S") or "{}")
    shape = {
        "status": data.get("status"),
        "stage": data.get("stage"),
        "deleted": bool(data.get("deleted_at")),
    }
    if not was_ended(shape):  # the same test as is_ended, on the stored JSON
        return [item]
    fact = Fact.model_validate(data)
    whole = {**item, "SK": {"S": keys.ended_sk(fact.section, fact.id)}}
    return [{**item, "kind": {"S": "ended"}, "data": {"S": ended_data(fact)}}, whole]


def add_current(items: list[dict]) -> list[dict]:
    """The current-state copies (``CUR#``) the items' facts lack, made from their whole facts (a
    current fact's item in its section, an ended one's in the ended block, a documented one)."""
    present = {i["SK"]["S"] for i in items if i.get("SK", {}).get("S", "").startswith(keys.CURRENT_PREFIX)}
    made = []
    for item in items:
        sk, kind = item.get("SK", {}).get("S", ""), item.get("kind", {}).get("S")
        whole = (kind == "fact" and sk.startswith((keys.SECTIONS_PREFIX, keys.ENDED_PREFIX))) or (
            kind == "documented" and sk.startswith(keys.SECTIONS_PREFIX)
        )
        if not whole:
            continue
        fact = Fact.model_validate_json(item["data"]["S"])
        copy = current_item(item["PK"]["S"], fact, documented=kind == "documented")
        if copy["SK"]["S"] not in present:
            present.add(copy["SK"]["S"])
            made.append(copy)
    return made


def migrate_items(items: Iterable[dict]) -> tuple[list[dict], int]:
    """The items in the current layout, and how many of them moved or were made."""
    out, moved = [], 0
    for item in items:
        migrated = migrate_item(item)
        parts = split_ended(migrated)
        moved += migrated is not item or len(parts) > 1
        out.extend(parts)
    # copies written in an earlier layout of their own (CUR#<rank>-<section>#..., "data") are made again
    kept = [i for i in out if not _is_current(i) or _in_todays_layout(i)]
    made = add_current(kept)
    return kept + made, moved + len(made) + (len(out) - len(kept))


def _is_current(item: dict) -> bool:
    return item.get("SK", {}).get("S", "").startswith(keys.CURRENT_PREFIX)


def _in_todays_layout(item: dict) -> bool:
    sk = item["SK"]["S"]
    parts = keys.current_parts(sk)
    return parts is not None and keys.current_sk(parts[0], parts[2], parts[1]) == sk and CURRENT_DATA in item
