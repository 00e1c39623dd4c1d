"""Which fact a follow-up means: "I stopped it", "they switched me to the 20 mg one", "25 not 50".

An assertion with ``refers_to_focus`` names nothing; code picks the fact in focus, in this
order: the facts of its section named earlier in this fragment (by the user or in the
assistant's question), then the current facts of that section mentioned in this session, then
every current fact of the section. The first level with candidates decides: one fits -> that
fact; a plural pronoun ("их", "them") -> all of them; several fit a singular -> a
clarification instead of a guess. A dose correction ("25 not 50") only fits the fact whose dose
was the old value. Pure: the caller supplies the memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..domain.models import Assertion, Clarification, EvidenceKind, Fact, Message, Role, UserMemory
from ..domain.text import fold_in_place
from ..domain.transitions import is_current
from .normalize import find_terms, kinds_for, normalize_name
from .rules.followups import OLD_VALUE

_PLURAL = re.compile(
    r"\b(?:them|those|these|all\s+of\s+them|both|их|они|эти|все\s+эти|обa|оба|обе)\b|它们|这些|都"
)


@dataclass
class Resolution:
    assertions: list[Assertion] = field(default_factory=list)
    keys: dict[int, str] = field(default_factory=dict)  # index in ``assertions`` -> the fact's key
    clarifications: list[Clarification] = field(default_factory=list)


@dataclass(frozen=True)
class _Referent:
    key: str
    name: str
    hint: str
    fact: Fact | None = None
    said_by_assistant: str | None = None  # the assistant turn that named it, when only it did
    attributes: dict = field(default_factory=dict)  # as stored, or as said earlier in this fragment


def resolve(
    assertions: Sequence[Assertion],
    messages: Sequence[Message],
    memory: UserMemory,
    session_id: str | None,
    now: datetime,
    new_id: Callable[[], str],
    fragment_id: str | None = None,
) -> Resolution:
    out = Resolution()
    for position, assertion in enumerate(assertions):
        if not assertion.refers_to_focus or (assertion.name or "").strip():
            out.assertions.append(assertion)
            continue
        referents = _candidates(assertion, assertions[:position], messages, memory, session_id)
        old = _old_value(assertion.evidence)
        if old is not None:
            # "850 not 500": only the drug whose dose was 500, stored or said a moment ago
            referents = [r for r in referents if _same_number(r.attributes.get("dose_value"), old)]
        if not referents:
            out.assertions.append(assertion)  # validation rejects it as unresolved_reference
            continue
        plural = bool(_PLURAL.search(fold_in_place(assertion.evidence)))
        if len(referents) > 1 and not plural:
            out.clarifications.append(
                Clarification(
                    id=new_id(),
                    section=assertion.section,
                    fact_id=None,
                    reason="ambiguous_reference",
                    current={"facts": [r.hint for r in referents]},
                    # what the user said, for the assistant to ask which one they meant
                    proposed={"said": assertion.evidence},
                    created_at=now,
                    fragment_id=fragment_id,
                )
            )
            continue
        for referent in referents:
            update: dict = {"name": referent.name, "normalized_hint": referent.hint, "refers_to_focus": False}
            if referent.fact is None and referent.said_by_assistant:
                # "How's the metformin?" / "I stopped it": the question supplies the subject.
                update |= {
                    "evidence_kind": EvidenceKind.ANSWER_TO_QUESTION,
                    "context_evidence": referent.said_by_assistant,
                }
            if referent.fact is not None:
                out.keys[len(out.assertions)] = referent.key
            out.assertions.append(assertion.model_copy(update=update))
    return out


def _candidates(
    assertion: Assertion,
    earlier: Sequence[Assertion],
    messages: Sequence[Message],
    memory: UserMemory,
    session_id: str | None,
) -> list[_Referent]:
    section = assertion.section
    current = [f for f in memory.facts if f.section is section and is_current(f)]
    by_key = {f.key: f for f in current}
    evidence = fold_in_place(assertion.evidence)
    # 1. Named earlier in this fragment: by the user (already extracted) or in the assistant's words.
    named: dict[str, _Referent] = {}
    for previous in earlier:
        if previous.section is section and previous.name and not previous.refers_to_focus:
            normalized = normalize_name(section, previous.name, previous.normalized_hint)
            stored = by_key.get(normalized.key)
            attributes = {**(stored.attributes if stored else {}), **previous.attributes}
            named[normalized.key] = _Referent(
                normalized.key, previous.name, normalized.name_normalized, stored, attributes=attributes
            )
    for message in messages:
        if message.role is Role.USER and fold_in_place(message.text).find(evidence) >= 0:
            break
        for term in find_terms(kinds_for(section), message.text):
            key = term.entry.key
            said = message.text if message.role is Role.ASSISTANT else None
            name = message.text[term.start : term.end]
            stored = by_key.get(key)
            named[key] = named.get(key) or _Referent(
                key,
                name,
                normalize_name(section, name).name_normalized,
                stored,
                said,
                dict(stored.attributes) if stored else {},
            )
    if named:
        referents = list(named.values())
        # The last named wins for a singular pronoun; a plural takes every one named.
        return referents if _PLURAL.search(evidence) else referents[-1:]
    # 2. Current facts mentioned in this session, 3. every current fact of the section.
    in_session = [f for f in current if session_id and session_id in f.session_ids]
    return [
        _Referent(f.key, f.name_raw or f.name_normalized, f.name_normalized, f, attributes=dict(f.attributes))
        for f in in_session or current
    ]


def _old_value(evidence: str) -> float | None:
    m = OLD_VALUE.search(fold_in_place(evidence))
    if not m:
        return None
    raw = m.group(1) or m.group(2)
    return float(raw.replace(",", ".")) if raw else None


def _same_number(value: object, expected: float) -> bool:
    try:
        return abs(float(value) - expected) < 1e-9  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
