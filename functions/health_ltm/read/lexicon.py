"""A small multilingual term matcher for short questions: stems, phrases and CJK substrings.

Term syntax (the same as in ``data/query_classes.json``): lower case, ё = е. Space-separated
parts match words in order, with at most one other word between them. A part of 4+ characters
matches any word it begins (a stem: "головн" matches "головной", "головная"), a shorter part
only the whole word; a trailing ``*`` forces a prefix match, a trailing ``$`` a whole word. A
whole Latin word of six letters or more meets its plural too ("ulcers", "allergies").
A one-word term with a leading ``*`` matches any word that contains it (an INN stem: "*профен"
matches "ибупрофена", "*sartan" matches "valsartan"); such a part needs 4+ characters.
A term with CJK characters matches as a substring of the text (CJK has no spaces); longer CJK
terms are matched first and a matched span is not matched again.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ..domain.text import UNSPACED, fold_case

_WORD_RE = re.compile(rf"[^\W_{UNSPACED}]+")
CJK_RE = re.compile(rf"[{UNSPACED}]")
_STEM_MIN = 4
_CONSUMED = "\x00"


def words(text: str) -> list[str]:
    """Normalised non-CJK words of a text."""
    return _WORD_RE.findall(fold_case(text))


@dataclass(frozen=True, slots=True)
class _Part:
    text: str
    prefix: bool

    def matches(self, word: str) -> bool:
        if self.prefix:
            return word.startswith(self.text)
        return word == self.text or self.text in singulars(word)


def singulars(word: str) -> tuple[str, ...]:
    """What a Latin word of six letters or more may be the plural of ("migraines", "ulcers",
    "allergies"); a shorter one's "-s" is as often a verb's ("it burns", "it hurts")."""
    if len(word) < 6 or not word.isascii() or not word.endswith("s") or word.endswith("ss"):
        return ()
    if word.endswith("ies"):
        return (word[:-3] + "y",)
    if word.endswith("es"):
        return word[:-1], word[:-2]
    return (word[:-1],)


def _compile_parts(term: str) -> tuple[_Part, ...]:
    parts: list[_Part] = []
    for piece in term.split():
        marker = piece[-1] if piece[-1] in "*$" else ""
        subwords = _WORD_RE.findall(piece.rstrip("*$"))  # "но-шпа" -> "но", "шпа"
        for i, sub in enumerate(subwords):
            own = marker if i == len(subwords) - 1 else ""
            prefix = own == "*" or (own != "$" and len(sub) >= _STEM_MIN)
            parts.append(_Part(sub, prefix))
    if not parts:
        raise ValueError(f"lexicon term has no word: {term!r}")
    return tuple(parts)


class Lexicon:
    """Maps a text to a summed weight per label over the distinct terms found in it."""

    def __init__(self, entries: Iterable[tuple[str, str, float]]) -> None:
        """``entries``: (term, label, weight); one term may carry several labels."""
        labels: dict[str, dict[str, float]] = defaultdict(dict)
        for term, label, weight in entries:
            key = " ".join(fold_case(term).split())
            labels[key][label] = max(weight, labels[key].get(label, 0.0))
        self._labels: list[dict[str, float]] = []
        self._parts: list[tuple[_Part, ...]] = []
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._prefix: dict[str, list[int]] = defaultdict(list)
        self._infix: list[tuple[str, int]] = []  # (stem, term): a word containing the stem
        cjk: list[tuple[str, int]] = []
        for key, term_labels in labels.items():
            term_id = len(self._labels)
            self._labels.append(term_labels)
            if CJK_RE.search(key):
                self._parts.append(())
                cjk.append((key.replace(" ", ""), term_id))
                continue
            if key.startswith("*") and " " not in key:
                stem = key.strip("*")
                if len(stem) < _STEM_MIN or _WORD_RE.fullmatch(stem) is None:
                    raise ValueError(f"an infix term is one word of {_STEM_MIN}+ characters: {term!r}")
                self._parts.append(())
                self._infix.append((stem, term_id))
                continue
            parts = _compile_parts(key)
            self._parts.append(parts)
            (self._prefix if parts[0].prefix else self._exact)[parts[0].text].append(term_id)
        self._prefix_lengths = sorted({len(text) for text in self._prefix})
        self._cjk = sorted(cjk, key=lambda item: -len(item[0]))

    def __len__(self) -> int:
        return len(self._labels)

    def match(self, text: str) -> dict[str, float]:
        norm = fold_case(text)
        found = self._match_words(_WORD_RE.findall(norm))
        if self._cjk and CJK_RE.search(norm):
            found |= self._match_cjk(norm)
        scores: dict[str, float] = defaultdict(float)
        for term_id in found:
            for label, weight in self._labels[term_id].items():
                scores[label] += weight
        return dict(scores)

    def _match_words(self, tokens: list[str]) -> set[int]:
        found: set[int] = set()
        for i, token in enumerate(tokens):
            candidates = list(self._exact.get(token, ()))
            for singular in singulars(token):
                candidates.extend(self._exact.get(singular, ()))
            for length in self._prefix_lengths:
                if length > len(token):
                    break
                candidates.extend(self._prefix.get(token[:length], ()))
            for term_id in candidates:
                if term_id not in found and self._rest_matches(self._parts[term_id], tokens, i):
                    found.add(term_id)
            for stem, term_id in self._infix:
                if stem in token:
                    found.add(term_id)
        return found

    @staticmethod
    def _rest_matches(parts: tuple[_Part, ...], tokens: list[str], start: int) -> bool:
        position = start
        for part in parts[1:]:
            for j in (position + 1, position + 2):  # the next word, or one word later
                if j < len(tokens) and part.matches(tokens[j]):
                    position = j
                    break
            else:
                return False
        return True

    def _match_cjk(self, norm: str) -> set[int]:
        found: set[int] = set()
        for substring, term_id in self._cjk:
            if substring in norm:
                found.add(term_id)
                norm = norm.replace(substring, _CONSUMED)
        return found
