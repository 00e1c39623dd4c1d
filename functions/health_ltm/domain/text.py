"""Text folding and CJK detection, defined once for the write and read paths.

Three folds, because their results are compared with or stored beside text folded the same way
(fact keys, evidence checks, embeddings): each keeps its exact behaviour.

- ``fold``: for comparing quotes (is this evidence in what the user said?): case-folded,
  ё = е, runs of whitespace as one space, stripped.
- ``fold_in_place``: for matching terms inside a text: lower case, ё = е, ’ = ', and always the
  same length as the text, so a match's offsets are offsets in the original.
- ``fold_case``: lower case and ё = е, nothing else (the read path's lexicon and the local
  embedder, whose vectors are stored: a change here would move them).
"""

from __future__ import annotations

import re

# CJK Unified Ideographs: Extension A, the basic block, and the compatibility block.
IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
KANA = "\u3040-\u30ff"  # hiragana and katakana
HANGUL = "\uac00-\ud7af"  # syllables
# Scripts written without spaces between words: a run of them is split into characters, not words.
UNSPACED = KANA + IDEOGRAPHS + HANGUL

CJK = re.compile(f"[{IDEOGRAPHS}]")  # Chinese text

_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """Case-, whitespace- and ё/е-insensitive form for comparing quotes."""
    return _SPACES.sub(" ", text.casefold().replace("ё", "е")).strip()


def fold_in_place(text: str) -> str:
    """Lower-case, ё->е, typographic apostrophe -> ASCII; always the same length as ``text``."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join((ch.lower() or ch)[:1] for ch in text)
    return low.replace("ё", "е").replace("’", "'")


def fold_case(text: str) -> str:
    """Lower-case and fold ё into е (Russian text writes them interchangeably)."""
    return text.lower().replace("ё", "е")
