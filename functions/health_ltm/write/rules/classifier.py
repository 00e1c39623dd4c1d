"""RuleSectionClassifier: which sections a fragment touches, without a model.

The union of what the rule extractor finds and a keyword lexicon (recall over precision: a
section selected in vain costs one extractor pass, a section missed loses a fact).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from ...domain.models import Message, Role
from ...domain.sections import Section
from ...domain.text import fold_in_place
from ..normalize import find_terms
from .extractor import RuleExtractor
from .text import rx

_LEXICON: dict[Section, re.Pattern[str]] = {
    Section.MEDICATIONS: rx(
        r"\b(?:лекарств|препарат|таблет|капсул|принима|назнач|выписал|доз|мг\b|mg\b|medicat|medicine|meds\b"
        r"|pills?\b|prescri|dose|dosage|tablet)"
    ),
    Section.ALLERGIES: rx(r"аллерг|allerg|непереносим|intoleran|анафилак|anaphyla"),
    Section.SYMPTOMS: rx(
        r"\b(?:болит|болят|боль|температур|кашл|тошн|насморк|головокруж|слабост|symptom|pain|hurts?|fever"
        r"|cough|nause|dizz|sore)"
    ),
    Section.CHRONIC_CONDITIONS: rx(r"хронич|chronic"),
    Section.REPORTED_DIAGNOSES: rx(r"диагноз|diagnos"),
    Section.DEMOGRAPHICS: rx(
        r"\b(?:мне\s+\d|лет\b|года\b|рост\b|вешу|вес\b|живу|переехал|родил(?:ся|ась)|years?\s+old|weigh"
        r"|height|tall\b|i\s+live|moved\s+to|born\s+in|мужчина|женщина|male|female|беремен|pregnan|breastfe"
        r"|кормлю\s+грудью|怀孕|哺乳)"
    ),
    Section.LIFESTYLE: rx(
        r"кур(?:ю|ил|ение|ить)|алког|диет|спорт|вегетар|веган|smok|alcohol|diet|exercis|vegan|vegetar"
    ),
    Section.SURGERIES: rx(r"операц|удалил|прооперир|surgery|operation|operated"),
    Section.INJURIES: rx(r"перелом|слома|травм|вывих|сотрясен|fractur|broke|injur|sprain|concussion"),
    Section.VACCINATIONS: rx(r"прививк|привил|вакцин|vaccin|flu\s+shot|booster"),
    Section.FAMILY_HISTORY: rx(
        r"\b(?:мам|пап|отц|отец|мать|матер|бабушк|дедушк|родител|семь|наследств|mother|father|mom|dad|parents"
        r"|family|grandm|grandf)"
    ),
}
_FOR_CLASSIFYING = datetime(2000, 1, 1, tzinfo=UTC)  # any fixed day: sections do not depend on dates


class _FixedDay:
    def now(self) -> datetime:
        return _FOR_CLASSIFYING


class RuleSectionClassifier:
    def __init__(self, extractor: RuleExtractor | None = None) -> None:
        self._extractor = extractor or RuleExtractor(clock=_FixedDay())

    def classify(self, messages: Sequence[Message]) -> list[Section]:
        found = {a.section for a in self._extractor.extract(messages, list(Section))}
        for message in messages:
            if message.role is not Role.USER:
                continue
            low = fold_in_place(message.text)
            found.update(section for section, pattern in _LEXICON.items() if pattern.search(low))
            if find_terms(("drug",), message.text):
                found.add(Section.MEDICATIONS)
        return [s for s in Section if s in found]
