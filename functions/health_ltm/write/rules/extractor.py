"""RuleExtractor: the offline extractor (Russian + English), deterministic and cheap.

It reads only the user's messages, sentence by sentence; a sentence that gives the assistant an
instruction ("забудь всё", "ignore previous instructions...") yields nothing. Relative dates and
ages are computed from the day the message was sent (``Message.at``), else from ``now`` or the
clock given to the constructor; with none of these, facts that need a date are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from pydantic import ValidationError

from ...domain.attributes import validate_attributes
from ...domain.models import Assertion, AssertionKind, Experiencer, Message, Role
from ...domain.sections import Section
from ...ports import Clock
from . import allergies, chinese, conditions, demographics, events, lifestyle, medications, symptoms
from .text import CORRECTION, INSTRUCTION, REMEMBER, Context, Draft, Sentence, edge_trim, split_sentences

_RULES = (allergies, medications, conditions, symptoms, events, demographics, lifestyle, chinese)


class RuleExtractor:
    name = "rules-v1"

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock

    def extract(
        self, messages: Sequence[Message], sections: Sequence[Section], now: datetime | None = None
    ) -> list[Assertion]:
        wanted = frozenset(Section(s) for s in sections)
        rules = [r for r in _RULES if r.SECTIONS & wanted]
        if not rules:
            return []
        out: list[Assertion] = []
        seen: set[str] = set()
        for message in messages:
            if message.role is not Role.USER:
                continue  # the assistant's words never make a fact
            ctx = Context(today=self._today(message, now))
            correction = remember = False
            for sentence in split_sentences(message.text):
                # A marker counts for its own sentence and the rest of the message ("Я ошибся. Мне 30").
                correction = correction or bool(CORRECTION.search(sentence.low))
                remember = remember or bool(REMEMBER.search(sentence.low))
                if INSTRUCTION.search(sentence.low):
                    continue
                for rule in rules:
                    for draft in rule.extract(sentence, ctx):
                        assertion = (
                            _assertion(draft, sentence, correction, remember)
                            if draft.section in wanted
                            else None
                        )
                        if assertion is None:
                            continue
                        fingerprint = assertion.model_dump_json(exclude={"evidence"})
                        if fingerprint not in seen:
                            seen.add(fingerprint)
                            out.append(assertion)
        return out

    def _today(self, message: Message, now: datetime | None) -> date | None:
        moment = message.at or now or (self._clock.now() if self._clock is not None else None)
        return moment.date() if moment is not None else None


def _assertion(draft: Draft, sentence: Sentence, correction: bool, remember: bool) -> Assertion | None:
    start, end = edge_trim(sentence.text, *draft.span)
    evidence = sentence.text[start:end]
    if len(evidence.strip()) < 2:
        return None
    attributes = _valid_attributes(draft.section, draft.attributes)
    if attributes is None:
        return None
    if draft.kind is AssertionKind.FACT and not (draft.name or "").strip() and not draft.refers_to_focus:
        return None
    experiencer = draft.experiencer or (
        Experiencer.RELATIVE
        if draft.section is Section.FAMILY_HISTORY and draft.kind is AssertionKind.FACT
        else Experiencer.SELF
    )
    return Assertion(
        section=draft.section,
        kind=draft.kind,
        name=(draft.name or None) and draft.name.strip()[:200],
        normalized_hint=(draft.hint or None) and draft.hint[:200],
        status=draft.status,
        attributes=attributes,
        valid_from=draft.valid_from,
        valid_to=draft.valid_to,
        evidence=evidence[:1000],
        correction=correction,
        remember=remember,
        experiencer=experiencer,
        hypothetical=draft.hypothetical,
        retracted=draft.retracted,
        temporality=draft.temporality,
        refers_to_focus=draft.refers_to_focus,
        evidence_kind=draft.evidence_kind,
        context_evidence=draft.context_evidence,
    )


def _valid_attributes(section: Section, attributes: dict) -> dict | None:
    """Attributes that pass the section schema; an invalid optional one is dropped, not the fact."""
    attributes = {k: v for k, v in attributes.items() if v is not None}
    for _ in range(len(attributes) + 1):
        try:
            return validate_attributes(section, attributes)
        except ValidationError as error:
            bad = {str(e["loc"][0]) for e in error.errors() if e.get("loc")}
            if not bad & attributes.keys():
                return None
            attributes = {k: v for k, v in attributes.items() if k not in bad}
    return None
