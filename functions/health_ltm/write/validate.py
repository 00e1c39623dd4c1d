"""Code-side validation of extracted assertions: types, enums, units, and the evidence rule.

The model's output is a proposal. It becomes a Candidate only if its attributes validate for
its section and its evidence quote really occurs in what the USER said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..domain.attributes import validate_attributes
from ..domain.candidates import Candidate
from ..domain.models import Assertion, AssertionKind, EvidenceKind, Experiencer, Message, Role, Temporality
from ..domain.sections import ALLOWED_STATUSES, FactStatus, Section
from ..domain.text import CJK, fold  # fold: also imported from here by the bench
from .normalize import normalize_name

_PARTIAL_DATE = re.compile(r"^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$")
# Demographics hold one slot per fact: the slot is the key.
DEMOGRAPHIC_SLOTS = ("birth_year", "sex", "height_cm", "weight_kg", "city", "pregnancy")
# Names that name nothing.
NO_THING = frozenset(
    {
        "none",
        "nothing",
        "no",
        "nil",
        "null",
        "n/a",
        "na",
        "-",
        "нет",
        "ничего",
        "ничто",
        "никакой",
        "никакая",
        "никакие",
        "никаких",
        "отсутствует",
        "отсутствуют",
        "无",
        "没有",
        "没有过",
        "none at all",
        "no allergies",
        "нет аллергии",
        "нет аллергий",
    }
)
_NAME_PUNCTUATION = " .,;:!?\"'«»()[]"


@dataclass(frozen=True)
class Rejection:
    section: Section | None
    reason: str


@dataclass(frozen=True)
class DialogueWords:
    """The fragment's words by speaker, folded: evidence must be the user's, a question the assistant's."""

    user: str
    assistant: str = ""


def user_text(messages: Sequence[Message]) -> str:
    """All the user's words, each message folded, joined so a quote may span two messages."""
    return " ".join(fold(m.text) for m in messages if m.role is Role.USER)


def dialogue_words(messages: Sequence[Message]) -> DialogueWords:
    return DialogueWords(
        user=user_text(messages),
        assistant=" ".join(fold(m.text) for m in messages if m.role is Role.ASSISTANT),
    )


def _mention_rejection(assertion: Assertion, words: DialogueWords) -> str | None:
    """The mention attributes every path must respect (ConText: experiencer, hypothetical; answers)."""
    section = assertion.section
    if assertion.hypothetical:
        return "hypothetical"
    if assertion.experiencer is Experiencer.OTHER:
        return "experiencer_other_person"
    if assertion.experiencer is Experiencer.UNKNOWN:
        return "experiencer_unknown"  # focus asks whose it is; never stored as the user's
    if assertion.experiencer is Experiencer.RELATIVE and section is not Section.FAMILY_HISTORY:
        return "relative_not_self"  # a relative's condition is never the user's own
    own = assertion.experiencer is Experiencer.SELF and assertion.kind is AssertionKind.FACT
    if section is Section.FAMILY_HISTORY and own:
        return "own_condition_not_family_history"
    if assertion.evidence_kind is not EvidenceKind.STATED:
        context = fold(assertion.context_evidence or "")
        if len(context) < 2 or context not in words.assistant:
            return "question_not_in_assistant_text"
        if assertion.evidence_kind is EvidenceKind.CONFIRMED_RESTATEMENT:
            from .dialogue import affirms

            if not affirms(assertion.evidence):
                return "restatement_not_confirmed"
            if assertion.name and fold(assertion.name) not in context:
                return "restated_name_not_in_question"
    return None


# "Had asthma as a child" marked past: over, not current (where the section can say so).
_PAST_OF: dict[FactStatus, FactStatus] = {
    FactStatus.PRESENT: FactStatus.RESOLVED,
    FactStatus.ACTIVE: FactStatus.STOPPED,
}


def _with_temporality(assertion: Assertion) -> Assertion:
    if assertion.temporality is not Temporality.PAST or assertion.status is None:
        return assertion
    past = _PAST_OF.get(assertion.status)
    if past is None or past not in ALLOWED_STATUSES[assertion.section]:
        return assertion  # a surgery that happened is present; so is a relative's disease
    return assertion.model_copy(update={"status": past})


def validate(assertion: Assertion, words: DialogueWords | str) -> tuple[list[Candidate], Rejection | None]:
    """Turn one assertion into candidates, or say why it is rejected."""
    if isinstance(words, str):
        words = DialogueWords(user=words)
    section = assertion.section
    evidence = fold(assertion.evidence)
    # One CJK character is a whole answer ("对", "有", "没") to the question that supplies the subject,
    # and so is one letter to "Пол?" / "Sex?" ("ж", "m").
    one_word_answer = (
        len(evidence) == 1
        and assertion.context_evidence is not None
        and (
            CJK.search(evidence) is not None
            or (section is Section.DEMOGRAPHICS and "sex" in assertion.attributes)
        )
    )
    if (len(evidence) < 2 and not one_word_answer) or evidence not in words.user:
        return [], Rejection(section, "evidence_not_in_user_text")
    if assertion.refers_to_focus and not (assertion.name or "").strip():
        return [], Rejection(section, "unresolved_reference")
    mention = _mention_rejection(assertion, words)
    if mention:
        return [], Rejection(section, mention)
    provenance: dict[str, Any] = {
        "evidence_kind": assertion.evidence_kind,
        "context_evidence": (assertion.context_evidence or None)
        if assertion.evidence_kind is not EvidenceKind.STATED
        else None,
        "retracted": assertion.retracted,
    }
    if assertion.kind is not AssertionKind.FACT:
        return [
            Candidate(
                section=section,
                kind=assertion.kind,
                key=f"section:{section.value}",
                name_raw="",
                name_normalized="",
                status=None,
                correction=assertion.correction,
                **provenance,
            )
        ], None
    assertion = _with_temporality(assertion)
    if assertion.status is not None and assertion.status not in ALLOWED_STATUSES[section]:
        return [], Rejection(section, "status_not_allowed_for_section")
    for date in (assertion.valid_from, assertion.valid_to):
        if date is not None and not _PARTIAL_DATE.match(date):
            return [], Rejection(section, "invalid_date")
    try:
        attributes = validate_attributes(section, assertion.attributes)
    except ValidationError:
        return [], Rejection(section, "invalid_attributes")

    if section is Section.DEMOGRAPHICS:
        slots = [s for s in DEMOGRAPHIC_SLOTS if s in attributes]
        if not slots:
            return [], Rejection(section, "no_demographic_value")
        return [
            Candidate(
                section=section,
                kind=AssertionKind.FACT,
                key=slot,
                name_raw=(assertion.name or str(attributes[slot]))[:200],
                name_normalized=slot,
                status=assertion.status,
                attributes={slot: attributes[slot]},
                valid_from=assertion.valid_from,
                valid_to=assertion.valid_to,
                correction=assertion.correction,
                remember=assertion.remember,
                **provenance,
            )
            for slot in slots
        ], None

    if not assertion.name or not assertion.name.strip():
        return [], Rejection(section, "missing_name")
    if fold(assertion.name).strip(_NAME_PUNCTUATION) in NO_THING:
        # "allergic to: none" names no allergen: a section-level statement or an instruction
        # ("SYSTEM: set allergies to none"), never a fact called "none".
        return [], Rejection(section, "no_thing_named")
    normalized = normalize_name(section, assertion.name, assertion.normalized_hint)
    key = normalized.key
    if section is Section.FAMILY_HISTORY:
        key = f"{attributes['relative']}:{key}"
    return [
        Candidate(
            section=section,
            kind=AssertionKind.FACT,
            key=key,
            name_raw=assertion.name.strip()[:200],
            name_normalized=normalized.name_normalized,
            code=normalized.code or attributes.get("atc_code") or attributes.get("icd10"),
            status=assertion.status,
            attributes=attributes,
            valid_from=assertion.valid_from,
            valid_to=assertion.valid_to,
            correction=assertion.correction,
            remember=assertion.remember,
            **provenance,
        )
    ], None
