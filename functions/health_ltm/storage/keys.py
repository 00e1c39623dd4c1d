"""Sort-key layout of the single table. Everything of a user shares one partition.

CTX#S#...  items the read path needs, keyed by section (a question reads its sections only):
  CTX#S#<rank>-<section>#F#<id>    a fact of that section; for an ended fact (stopped, resolved,
                                   deprecated, deleted: ``domain.models.is_ended``) a brief of it
                                   (kind "ended": key, status, sources; ~150 bytes), the whole
                                   fact at CTX#E#<rank>-<section>#F#<id>, read only by a history
                                   question and by whole loads. The brief keeps the fact's version:
                                   conditional writes stay on this one key;
  CTX#S#<rank>-<section>#D#<id>    a documented fact of that section;
  CTX#S#22-always#...              the small items every load reads: S#<section> section states,
                                   C#<id> clarifications, P#<fragment id> pending (read-your-writes)
                                   mentions, M#summary the profile summary.
  ``load_memory(user, sections)`` reads one key range (BETWEEN on the sort key) per contiguous run,
  in rank order, of the asked sections and the "always" block, which sits between chronic
  conditions and medications: a run through or next to that spot carries it for free. Ranks put
  sections asked together side by side (demographics, allergies, chronic conditions, medications,
  symptoms, ...), so a drug or symptom question is one Query. ``load_memory(user)`` reads the
  whole CTX# range (the write path, maintenance).
CUR#<rank>#F#<id> (and #D#<id> for a documented fact; the rank names the section)
         the same fact as a section read for its current state needs it (``CurrentFact``: the
         line a safety section shows, ~100 bytes, id and section in the key): a question whose
         classes want a section only for what is current (allergies, current medications and
         chronic conditions riding along with a drug question) reads these, not the whole facts.
         Written in the same transaction as the fact; outside CTX#, so whole loads skip them;
         never exported (derived).
EPI#     episode rows (vectors live in the vector index), FRAG# fragments,
H#       history events (H#<fact_id>#<event ulid>), K# (section, key) uniqueness guards,
ACT#     "active on day D" markers (the sparse GSI), SESS# chat session buffers,
RATE#chat#<minute>  the per-user chat rate counter (storage.rate_limit; expires after two minutes).

A fact is found by id alone (the API's /v1/facts/{id}) with one BatchGetItem of its possible keys,
one per section (docs/decision_log.md). Data written before issue 12 (CTX#F#<id>, CTX#D#<id>,
CTX#S#<section>, CTX#C#, CTX#P#, CTX#M#summary) is moved to this layout by ``storage.migrate`` when
the local stack restores a snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

from ..domain.sections import Section

CONTEXT_PREFIX = "CTX#"
SECTIONS_PREFIX = "CTX#S#"
_RANGE_END = "$"  # sorts right after "#": the upper bound of a key range, never a key itself

# Part of the stored layout: never renumber. A new section takes a free rank where it belongs (the
# gaps are there for that); a section left out of this table gets UNRANKED.
ALWAYS = "always"  # the block of small items, ranked like a section
SECTION_RANKS: dict[str, int] = {
    Section.DEMOGRAPHICS.value: 10,  # tiny (a few slots); dosing and diet questions need it
    Section.ALLERGIES.value: 15,
    Section.CHRONIC_CONDITIONS.value: 20,
    ALWAYS: 22,  # inside the safety run that rides along with most questions
    Section.MEDICATIONS.value: 25,
    Section.SYMPTOMS.value: 30,  # "ibuprofen for my headache": the safety run and symptoms
    Section.REPORTED_DIAGNOSES.value: 35,
    Section.INJURIES.value: 40,
    Section.SURGERIES.value: 45,
    Section.LIFESTYLE.value: 50,
    Section.FAMILY_HISTORY.value: 55,
    Section.VACCINATIONS.value: 60,
}
UNRANKED = 90


def user_pk(user_id: str) -> str:
    return f"USER#{user_id}"


def _value(section: str | Section) -> str:
    return section.value if isinstance(section, Section) else section


def section_tag(section: str | Section) -> str:
    name = _value(section)
    return f"{SECTION_RANKS.get(name, UNRANKED):02d}-{name}"


def section_items_prefix(section: str | Section) -> str:
    return f"{SECTIONS_PREFIX}{section_tag(section)}#"


def fact_sk(section: str | Section, fact_id: str) -> str:
    return f"{section_items_prefix(section)}F#{fact_id}"


ENDED_PREFIX = "CTX#E#"


def ended_sk(section: str | Section, fact_id: str) -> str:
    """Where the whole of an ended fact is kept (its brief stays at ``fact_sk``)."""
    return f"{ENDED_PREFIX}{section_tag(section)}#F#{fact_id}"


def documented_sk(section: str | Section, fact_id: str) -> str:
    return f"{section_items_prefix(section)}D#{fact_id}"


ALWAYS_PREFIX = section_items_prefix(ALWAYS)


def section_sk(section: str | Section) -> str:
    return f"{ALWAYS_PREFIX}S#{_value(section)}"


def clarification_sk(clarification_id: str) -> str:
    return f"{ALWAYS_PREFIX}C#{clarification_id}"


def pending_sk(fragment_id: str) -> str:
    return f"{ALWAYS_PREFIX}P#{fragment_id}"


SUMMARY_SK = f"{ALWAYS_PREFIX}M#summary"


def context_kind(sk: str) -> str | None:
    """What a CTX# sort key of this layout holds: fact, documented, section, clarification,
    pending or summary (None for anything else)."""
    if sk.startswith(ALWAYS_PREFIX):
        marker = sk[len(ALWAYS_PREFIX) : len(ALWAYS_PREFIX) + 2]
        return {"S#": "section", "C#": "clarification", "P#": "pending", "M#": "summary"}.get(marker)
    if sk.startswith(SECTIONS_PREFIX):
        _, sep, rest = sk[len(SECTIONS_PREFIX) :].partition("#")
        return {"F#": "fact", "D#": "documented"}.get(rest[:2]) if sep else None
    if sk.startswith(ENDED_PREFIX):
        _, sep, rest = sk[len(ENDED_PREFIX) :].partition("#")
        return "fact" if sep and rest.startswith("F#") else None
    return None


@lru_cache(maxsize=1)
def _order() -> tuple[str, ...]:
    return tuple(sorted([*(s.value for s in Section), ALWAYS], key=section_tag))


def _runs(wanted: set[str]) -> list[list[str]]:
    """The wanted names as contiguous runs in rank order."""
    runs: list[list[str]] = []
    previous = -2
    for position, name in enumerate(_order()):
        if name not in wanted:
            continue
        if position == previous + 1:
            runs[-1].append(name)
        else:
            runs.append([name])
        previous = position
    return runs


def read_ranges(sections: Iterable[str | Section]) -> list[tuple[str, str]]:
    """The inclusive sort-key ranges (BETWEEN lo AND hi) that hold the always-read items and the
    items of exactly these sections: one per contiguous run of them in rank order. Ordered by key."""
    runs = _runs({_value(s) for s in sections} | {ALWAYS})
    return [(section_items_prefix(run[0]), section_items_prefix(run[-1])[:-1] + _RANGE_END) for run in runs]


def ended_ranges(sections: Iterable[str | Section]) -> list[tuple[str, str]]:
    """The ranges of the whole ended facts of these sections, one per contiguous run (the ended
    block has no "always" items, so a run may pass over that rank)."""
    runs = _runs({_value(s) for s in sections} | {ALWAYS})
    wanted = {_value(s) for s in sections}
    runs = [run for run in runs if set(run) & wanted]
    return [
        (f"{ENDED_PREFIX}{section_tag(run[0])}#", f"{ENDED_PREFIX}{section_tag(run[-1])}{_RANGE_END}")
        for run in runs
    ]


CURRENT_PREFIX = "CUR#"


def _current_tag(section: str | Section) -> str:
    # The rank alone names a ranked section (every byte of this key is read by most questions).
    name = _value(section)
    return f"{SECTION_RANKS[name]:02d}" if name in SECTION_RANKS else section_tag(name)


_SECTION_OF_RANK = {f"{rank:02d}": name for name, rank in SECTION_RANKS.items() if name != ALWAYS}


def current_sk(section: str | Section, fact_id: str, documented: bool = False) -> str:
    """Where the current-state copy of a fact (``CurrentFact``) is kept: CUR#<rank>#F#<id>."""
    return f"{CURRENT_PREFIX}{_current_tag(section)}#{'D' if documented else 'F'}#{fact_id}"


def current_parts(sk: str) -> tuple[str, bool, str] | None:
    """(section, documented, fact id) of a CUR# sort key; None for any other key."""
    if not sk.startswith(CURRENT_PREFIX):
        return None
    tag, _, rest = sk[len(CURRENT_PREFIX) :].partition("#")
    marker, _, fact_id = rest.partition("#")
    section = _SECTION_OF_RANK.get(tag) or tag.partition("-")[2]
    if marker not in ("F", "D") or not fact_id or not section:
        return None
    return section, marker == "D", fact_id


def current_ranges(sections: Iterable[str | Section]) -> list[tuple[str, str]]:
    """The ranges of the current-state copies of these sections, one per contiguous run (the
    block has no "always" items, so a run may pass over that rank)."""
    wanted = {_value(s) for s in sections}
    if not wanted:
        return []
    runs = [run for run in _runs(wanted | {ALWAYS}) if set(run) & wanted]
    return [
        (f"{CURRENT_PREFIX}{_current_tag(run[0])}#", f"{CURRENT_PREFIX}{_current_tag(run[-1])}{_RANGE_END}")
        for run in runs
    ]


def max_read_ranges() -> int:
    """The most ranges a section-scoped load can need (every other section asked)."""
    return (len(Section) + 2) // 2


def history_prefix(fact_id: str) -> str:
    return f"H#{fact_id}#"


def history_sk(fact_id: str, event_id: str) -> str:
    return f"H#{fact_id}#{event_id}"


def key_guard_sk(section: str, key: str) -> str:
    # Hash keeps the sort key short and free of user text whatever the key holds.
    digest = hashlib.blake2b(f"{section}\x1f{key}".encode(), digest_size=16).hexdigest()
    return f"K#{section}#{digest}"


def fragment_sk(fragment_id: str) -> str:
    return f"FRAG#{fragment_id}"


def episode_sk(episode_id: str) -> str:
    return f"EPI#{episode_id}"


def active_sk(day: str) -> str:
    return f"ACT#{day}"


def session_sk(session_id: str) -> str:
    return f"SESS#{session_id}"


# Erasure tombstone (issue 15): outside the user's partition, so that "0 items for the user" holds;
# named by a hash, so it carries neither the user id nor any health data; it expires (TTL) after the
# longest time in-flight work can still arrive (the DLQ retention, 14 days, and a day more).
TOMBSTONE_SK = "TOMB"


def tombstone_pk(user_id: str) -> str:
    return "TOMB#" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()
