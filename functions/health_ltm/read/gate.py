"""The learned section gate: of the sections the class map chose, keep those an answer is likely
to need (issue 12, decision log 43).

The class map says which sections a *kind* of question needs; the words of one question often
say it needs fewer ("ice or heat?" after a sprain needs the injury, not the symptoms). The gate is
one logistic model per section over the classifier's own decision (its classes, the sections
they chose, how it decided) and the question's words (six-letter prefixes, CJK character pairs),
trained on the needs-labelled questions (``bench/eval/train_gate.py``, ``make train-gate``). The
words together weigh as much in a long story as in a short question (``feature_values``): summed
one by one, the dozens of words of a story outvoted the classifier's decision and left out what
the story itself said the answer needs.

- The gate never removes a safety section (medications, allergies, chronic conditions): it has
  no model for them. A chosen section it models stays when its probability is at least
  ``keep_at``. The gate only removes: a
  section no class chose is never added (someone else's care or a general question must not
  gain the user's facts from a word), and a question the classifier gave no section keeps none.
- A class's ``kept_by_gate`` sections are never removed: a drug question always carries the
  demographics (pregnancy, breastfeeding) it chose. The classifier's fallback (no class
  recognised) is not gated at all.
- The weights are data (``data/section_gate.json``), retrained whenever the labels or the class
  map change (a unit test holds the file to both).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..data import load as data_file
from ..domain.sections import Section
from ..domain.text import fold_case
from .lexicon import CJK_RE, words

GATE_FILE = "section_gate.json"
# What a drug or treatment answer must never lose; the gate has no model for them.
SAFETY_SECTIONS = frozenset({Section.MEDICATIONS, Section.ALLERGIES, Section.CHRONIC_CONDITIONS})
_PREFIX = 6  # letters of a word that name it (Russian inflection, English plurals)
_MOST_COUNTED = 4  # "4 or more classes" is one feature
_TEXT = ("w:", "b:")  # the question's words and CJK character pairs


def gate_features(
    query: str,
    classes: Sequence[str],
    sections: Iterable[Section],
    method: str,
    *,
    history: bool,
    has_recent: bool,
) -> frozenset[str]:
    """What the gate sees of a question: the classifier's decision and the question's words."""
    chosen = sorted({section.value for section in sections})
    features = {"bias", *(f"rule:{s}" for s in chosen), *(f"cls:{c}" for c in classes)}
    features |= {f"m:{part}" for part in method.split("+") if part}
    ordered = sorted(classes)
    features |= {f"pair:{a}+{b}" for i, a in enumerate(ordered) for b in ordered[i + 1 :]}
    features.add(f"ncls:{min(len(classes), _MOST_COUNTED)}")
    features.add(f"nsec:{min(len(chosen), 6)}")
    if history:
        features.add("hist")
    if has_recent:
        features.add("has_recent")
    if not chosen:
        features.add("empty")
    text = fold_case(query)
    features |= {f"w:{word[:_PREFIX]}" for word in words(text)}
    cjk = "".join(CJK_RE.findall(text))
    features |= {f"b:{cjk[i : i + 2]}" for i in range(len(cjk) - 1)}
    return frozenset(features)


def feature_values(features: Iterable[str], scaled: bool) -> dict[str, float]:
    """Each feature's value: 1 for the classifier's decision; a word's or character pair's
    ``1/sqrt(n)`` of the message's n such features when ``scaled``, so that a long story does not
    outvote the decision word by word."""
    features = list(features)
    if not scaled:
        return dict.fromkeys(features, 1.0)
    text = sum(1 for f in features if f.startswith(_TEXT))
    share = 1.0 / math.sqrt(text) if text else 1.0
    return {f: share if f.startswith(_TEXT) else 1.0 for f in features}


class TrainedOn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: str  # the labelled file, relative to the repository
    labels_sha256: str
    splits: tuple[str, ...]  # what it learned from
    held_apart: tuple[str, ...]  # what it never saw: the figures on these are the honest ones
    questions: int
    query_classes_version: str  # the class map whose decisions it learned on


class SectionGateData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: str
    doc: tuple[str, ...] = Field(default=(), alias="_doc")
    trained_on: TrainedOn
    training: dict[str, float | int]
    keep_at: float = Field(ge=0, lt=1)
    scaled_text: bool = False  # feature_values: the words' share of a message, not one each
    sections: tuple[Section, ...]  # the sections it models (may remove), the order of each weight row
    weights: dict[str, tuple[float, ...]]

    @model_validator(mode="after")
    def _consistent(self) -> SectionGateData:
        if set(self.sections) & SAFETY_SECTIONS or len(set(self.sections)) != len(self.sections):
            raise ValueError("the gate models each section once, and no safety section")
        if any(len(row) != len(self.sections) for row in self.weights.values()):
            raise ValueError("every feature needs one weight per section")
        return self


class SectionGate:
    """Keeps the chosen sections a question is likely to need; deterministic for one data file."""

    def __init__(self, data: SectionGateData) -> None:
        self.data = data
        self._index = {section: i for i, section in enumerate(data.sections)}

    def probabilities(self, features: Iterable[str]) -> dict[Section, float]:
        totals = [0.0] * len(self.data.sections)
        for feature, value in feature_values(features, self.data.scaled_text).items():
            row = self.data.weights.get(feature)
            if row is not None:
                totals = [total + value * weight for total, weight in zip(totals, row, strict=True)]
        return {section: _logistic(totals[i]) for section, i in self._index.items()}

    def apply(self, chosen: set[Section], features: Iterable[str], kept: set[Section]) -> set[Section]:
        """The sections to read: of ``chosen``, those it does not model, those of ``kept``, and the
        likely ones."""
        if not chosen:
            return set()
        probability = self.probabilities(features)
        return {
            section
            for section in chosen
            if section in kept or probability.get(section, 1.0) >= self.data.keep_at
        }


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@lru_cache(maxsize=1)
def shipped_gate() -> SectionGate | None:
    """The gate trained for this package's class map, or None when the package ships none."""
    try:
        raw = data_file(GATE_FILE)
    except FileNotFoundError:
        return None
    return SectionGate(SectionGateData.model_validate(raw))
