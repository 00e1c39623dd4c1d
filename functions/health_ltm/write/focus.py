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
from datetime import datetime, timedelta

from ..domain.models import (
    Assertion,
    Clarification,
    Episode,
    EvidenceKind,
    Experiencer,
    Fact,
    Message,
    Role,
    UserMemory,
)
from ..domain.sections import FactStatus, Section
from ..domain.text import fold_in_place
from ..domain.transitions import is_current
from .normalize import find_terms, kinds_for, normalize_name
from .rules.conditions import relative_awaiting_results
from .rules.followups import OLD_VALUE, STOPPED_PRONOUN, asks_started, course_class
from .rules.medications import switched_to
from .rules.symptoms import WHOLE

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
    status: FactStatus | None = None  # as said earlier in this fragment, else as stored


def resolve(
    assertions: Sequence[Assertion],
    messages: Sequence[Message],
    memory: UserMemory,
    session_id: str | None,
    now: datetime,
    new_id: Callable[[], str],
    fragment_id: str | None = None,
    earlier: Callable[[], Sequence[Episode]] | None = None,
) -> Resolution:
    """``earlier``: the user's last conversations (episodes), read only when a result was told
    without whose it is."""
    out = Resolution()

    def ask(assertion: Assertion, reason: str, current: dict, proposed: dict) -> None:
        out.clarifications.append(
            Clarification(
                id=new_id(),
                section=assertion.section,
                fact_id=None,
                reason=reason,
                current=current,
                proposed=proposed,
                created_at=now,
                fragment_id=fragment_id,
            )
        )

    for position, assertion in enumerate(assertions):
        if assertion.experiencer is Experiencer.UNKNOWN:
            whose = _whose(assertion, memory, earlier, now, fragment_id)
            if whose is not None:
                out.assertions.extend(whose)
            else:
                ask(assertion, "owner_unknown", {}, {"said": assertion.evidence})
            continue
        if not assertion.refers_to_focus or (assertion.name or "").strip():
            out.assertions.append(assertion)
            continue
        referents = _candidates(assertion, assertions[:position], messages, memory, session_id)
        course = _started_course(assertion)
        started = None
        if course is not None:
            every = _candidates(assertion, assertions[:position], messages, memory, session_id, every=True)
            started = _prescribed(every, course)
            referents = started if started is not None else referents
        targets = _switch_targets(assertion)
        if targets:
            # "switched me to lexapro": the drug replaced is one of the same use, not lexapro itself
            every = _candidates(assertion, assertions[:position], messages, memory, session_id, every=True)
            same = [r for r in referents if _replaced_by(r, targets)]
            referents = same or [r for r in every if _replaced_by(r, targets)]
            if not referents and not STOPPED_PRONOUN.search(fold_in_place(assertion.evidence)):
                continue  # only implied by the switch, and nothing it could have replaced: no stop
        form = _form(assertion)
        if form is not None:
            # "stopped the inhaler", "мазать перестала": only a drug of that form, of any level
            current = _candidates(assertion, [], [], memory, None, every=True)
            referents = [r for r in referents if _of_form(r, form)] or [
                r for r in current if _of_form(r, form)
            ]
        elif len(referents) > 1 and _taken_now(assertion):
            # "пью его уже неделю", "been taking it": of several, the one prescribed and not yet taken
            referents = [r for r in referents if r.status is FactStatus.PRESCRIBED] or referents
        site = assertion.attributes.get("body_site") if assertion.section is Section.INJURIES else None
        if site:
            # "the wrist is fine now": only an injury at that site; with none, nothing is said of any
            referents = [r for r in referents if r.attributes.get("body_site") == site or site in r.key]
            if not referents:
                continue
        old = _old_value(assertion.evidence)
        if old is not None:
            # "850 not 500": only the drug whose dose was 500, stored or said a moment ago
            referents = [r for r in referents if _same_number(r.attributes.get("dose_value"), old)]
        if not referents:
            out.assertions.append(assertion)  # validation rejects it as unresolved_reference
            continue
        # a yes to "Начали принимать?" starts the whole course: every drug prescribed for it
        plural = (
            started is not None
            or bool(_PLURAL.search(fold_in_place(assertion.evidence)))
            or _over_for_all(assertion, referents, now)
        )
        if len(referents) > 1 and not plural:
            # what the user said, for the assistant to ask which one they meant
            ask(
                assertion,
                "ambiguous_reference",
                {"facts": [r.hint for r in referents]},
                {"said": assertion.evidence},
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


_NEWS_WINDOW = timedelta(days=60)  # how far back the conversation that announced the tests may be


def _whose(
    assertion: Assertion,
    memory: UserMemory,
    earlier: Callable[[], Sequence[Episode]] | None,
    now: datetime,
    fragment_id: str | None,
) -> list[Assertion] | None:
    """A diagnosis told as results, no one named: the user's when it is on their record already,
    nothing new when a relative's record holds it, the relative's when one of the last
    conversations told of that one relative being tested ("у папы ... направили на биопсию");
    else None: the assistant is to ask whose results they were (never the user's by default)."""
    key = normalize_name(assertion.section, assertion.name).key
    for fact in memory.facts:
        if fact.is_deleted or not is_current(fact):
            continue
        if fact.section in (Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES) and fact.key == key:
            return [assertion.model_copy(update={"experiencer": Experiencer.SELF})]
        if fact.section is Section.FAMILY_HISTORY and fact.key.endswith(f":{key}"):
            return []
    for episode in earlier() if earlier is not None else ():
        if episode.fragment_id == fragment_id or now - episode.at > _NEWS_WINDOW:
            continue
        relative = relative_awaiting_results(episode.text)
        if relative is not None:
            update = {
                "section": Section.FAMILY_HISTORY,
                "experiencer": Experiencer.RELATIVE,
                "attributes": {"relative": relative.value},
            }
            return [assertion.model_copy(update=update)]
    return None


# "всё прошло", "all gone, feeling fine", "都好了": the whole complaint is over, every part of it
_WHOLE_ZH = re.compile(r"都|全好")  # beside the Russian and English words of symptoms.WHOLE
_RECENT_COMPLAINT = timedelta(days=14)


def _over_for_all(assertion: Assertion, referents: list[_Referent], now: datetime) -> bool:
    """A recovery said of the whole complaint ends each of its recent parts (headache and fever);
    a complaint last spoken of weeks ago (a back pain from spring) may not be part of it: asked."""
    said = fold_in_place(assertion.evidence)
    if assertion.status is not FactStatus.RESOLVED or not (WHOLE.search(said) or _WHOLE_ZH.search(said)):
        return False
    return all(r.fact is None or now - r.fact.last_confirmed_at <= _RECENT_COMPLAINT for r in referents)


def _allergens(earlier: Sequence[Assertion], memory: UserMemory) -> set[str]:
    """Drug keys the user is allergic to, said in this fragment or on record: never the drug in focus."""
    said = {
        normalize_name(Section.MEDICATIONS, a.name, None).key
        for a in earlier
        if a.section is Section.ALLERGIES
        and a.name
        and a.status in (None, FactStatus.PRESENT)
        and not a.retracted
    }
    stored = {
        f.key
        for f in memory.facts
        if f.section is Section.ALLERGIES and is_current(f) and f.status is FactStatus.PRESENT
    }
    return said | stored


def _candidates(
    assertion: Assertion,
    earlier: Sequence[Assertion],
    messages: Sequence[Message],
    memory: UserMemory,
    session_id: str | None,
    every: bool = False,
) -> list[_Referent]:
    section = assertion.section
    current = [f for f in memory.facts if f.section is section and is_current(f)]
    by_key = {f.key: f for f in current}
    evidence = fold_in_place(assertion.evidence)
    allergens = _allergens(earlier, memory) if section is Section.MEDICATIONS else set()
    # 1. Named earlier in this fragment: by the user (already extracted) or in the assistant's words.
    named: dict[str, _Referent] = {}
    for previous in earlier:
        if previous.section is section and previous.name and not previous.refers_to_focus:
            normalized = normalize_name(section, previous.name, previous.normalized_hint)
            stored = by_key.get(normalized.key)
            attributes = {**(stored.attributes if stored else {}), **previous.attributes}
            named[normalized.key] = _Referent(
                normalized.key,
                previous.name,
                normalized.name_normalized,
                stored,
                attributes=attributes,
                status=previous.status or (stored.status if stored else None),
            )
    for message in messages:
        if message.role is Role.USER and fold_in_place(message.text).find(evidence) >= 0:
            break
        said = message.text if message.role is Role.ASSISTANT else None
        found = [
            (term.start, term.entry.key, message.text[term.start : term.end])
            for term in find_terms(kinds_for(section), message.text)
        ]
        # a stored drug no table lists ("Are you still taking the cyclobenzaprine?") is named too
        found += [
            (at, fact.key, fact.name_raw or fact.name_normalized)
            for at, fact in _stored_named(message, current)
        ]
        for _, key, name in sorted(found):
            if key in allergens:
                continue  # "I take lisinopril. I'm allergic to amoxicillin" / "10 mg": not the allergen's
            stored = by_key.get(key)
            named[key] = named.get(key) or _Referent(
                key,
                name,
                normalize_name(section, name).name_normalized,
                stored,
                said,
                dict(stored.attributes) if stored else {},
                stored.status if stored else None,
            )
    if named:
        referents = list(named.values())
        # The last named wins for a singular pronoun; a plural takes every one named.
        return referents if every or _PLURAL.search(evidence) else referents[-1:]
    # 2. Current facts mentioned in this session, 3. every current fact of the section.
    in_session = [f for f in current if session_id and session_id in f.session_ids]
    return [
        _Referent(
            f.key,
            f.name_raw or f.name_normalized,
            f.name_normalized,
            f,
            attributes=dict(f.attributes),
            status=f.status,
        )
        for f in in_session or current
    ]


def _stored_named(message: Message, current: Sequence[Fact]) -> list[tuple[int, Fact]]:
    """Current facts whose own name stands in the message as a whole word, with where."""
    text = fold_in_place(message.text)
    found = []
    for fact in current:
        for name in {fold_in_place(n) for n in (fact.name_raw, fact.name_normalized) if n and len(n) >= 4}:
            m = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
            if m:
                found.append((m.start(), fact))
                break
    return found


# Drugs of one use, by ATC group: a switch replaces one of them with another ("эналаприл ->
# лозартан", "sertraline -> Lexapro", "ибупрофен -> парацетамол"); otherwise the same 3-letter group.
_USE_GROUPS = (
    ("C02", "C03", "C07", "C08", "C09"),  # blood pressure
    ("M01", "N02"),  # pain
    ("N05B", "N05C", "N06A"),  # anxiety, sleep, depression
    ("R03", "R06", "R01"),  # asthma, allergy
)


def _switch_targets(assertion: Assertion) -> dict[str, str | None]:
    """For a stop of the drug in focus said with a switch ("...поменял на лозартан"): the keys (and
    ATC codes) of the drugs switched to; empty for every other follow-up."""
    if not (assertion.refers_to_focus and assertion.status is FactStatus.STOPPED):
        return {}
    if assertion.section is not Section.MEDICATIONS:
        return {}
    return {t.entry.key: t.entry.code for t in switched_to(assertion.evidence)}


def _replaced_by(referent: _Referent, targets: dict[str, str | None]) -> bool:
    code = _atc(referent)
    return referent.key not in targets and any(_same_use(code, new) for new in targets.values())


def _same_use(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    if a[:3] == b[:3]:
        return True
    return any(a.startswith(group) and b.startswith(group) for group in _USE_GROUPS)


def _started_course(assertion: Assertion) -> tuple[str, ...] | None:
    """For a yes to "have you started (the antibiotic)?" that named no drug: the ATC prefixes of
    the class asked about, () for any drug; None for every other follow-up."""
    asked = assertion.context_evidence
    if (
        assertion.section is not Section.MEDICATIONS
        or assertion.status is not FactStatus.ACTIVE
        or assertion.evidence_kind is not EvidenceKind.ANSWER_TO_QUESTION
        or not asked
        or not asks_started(asked)
    ):
        return None
    return course_class(asked) or ()


def _prescribed(referents: list[_Referent], course: tuple[str, ...]) -> list[_Referent] | None:
    """The referents a started course means: those prescribed and not yet taken (of the class
    asked about, by ATC code; a drug of unknown code may be of it). None when none was
    prescribed: the ordinary focus decides (the drug named last, or a clarification)."""
    prescribed = [r for r in referents if r.status is FactStatus.PRESCRIBED]
    if not prescribed:
        return None
    if not course:
        return prescribed
    return [r for r in prescribed if (code := _atc(r)) is None or code.startswith(course)]


def _atc(referent: _Referent) -> str | None:
    code = referent.attributes.get("atc_code")
    if isinstance(code, str) and code:
        return code
    return normalize_name(Section.MEDICATIONS, referent.name, referent.hint).code


# A drug referred to by its form ("the inhaler", "мазь", "перестала мазать"): the ATC groups and
# the route (as stored from what was said) that fit it. A drug of unknown code and route may be it.
_FORMS = (
    (
        re.compile(r"\binhaler|\bpuffer|\bnebuli[sz]er|ингалятор|небулайзер|\bpuffs?\b|пшика"),
        ("R03",),
        "inhalation",
    ),
    (re.compile(r"\bcream|\bointment|\bgel\b|\bмаз[ьаи]|\bмазью|\bмазать|\bкрем|\bгель"), ("D",), "topical"),
    (re.compile(r"\bpatch|пластыр|\bклеить"), ("N07BA", "N02AB", "C01DA", "G03"), None),
    (re.compile(r"\bantibiotic|антибиотик"), ("J01",), None),
)


def _form(assertion: Assertion) -> tuple[tuple[str, ...], str | None] | None:
    if assertion.section is not Section.MEDICATIONS:
        return None
    evidence = fold_in_place(assertion.evidence)
    return next(((codes, route) for pattern, codes, route in _FORMS if pattern.search(evidence)), None)


def _of_form(referent: _Referent, form: tuple[tuple[str, ...], str | None]) -> bool:
    codes, route = form
    said = referent.attributes.get("route")
    code = _atc(referent)
    if said is None and code is None:
        return True
    return (route is not None and said == route) or (code is not None and code.startswith(codes))


def _taken_now(assertion: Assertion) -> bool:
    """Taken, nothing changed ("пью его уже неделю", "been taking it"): no dose, no switch."""
    return (
        assertion.section is Section.MEDICATIONS
        and assertion.status is FactStatus.ACTIVE
        and not assertion.attributes
        and assertion.evidence_kind is not EvidenceKind.ANSWER_TO_QUESTION
    )


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
