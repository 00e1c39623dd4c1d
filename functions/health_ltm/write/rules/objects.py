"""Objects of a statement: "аллергия на арахис, пенициллин и пыльцу" -> three spans.

An enumeration is read from a trigger to the next hard boundary, split on commas and "и/and",
and each item is kept only if the synonym table knows it or it is a short plausible noun phrase.
"""

from __future__ import annotations

import re

from ..normalize import Term, find_terms, word_set
from .text import Sentence

_SPLIT = re.compile(r",|\s+(?:и|или|and|or|as\s+well\s+as|plus)\s+|\s*[/&+]\s*")
_LEAD = re.compile(
    r"^(?:(?:на|к|to|у\s+меня|меня|мне|еще|ещё|также|тоже|даже|очень|сильно|все|всех|любые|любых|некоторые"
    r"|некоторых|многие|многих|разные|разных|определенные|какие-то|some|certain|all|any|most|many|the|a|an|my"
    r"|also|even|really|very|severely|mildly)\s+)+"
)
_TRAIL = re.compile(
    r"(?:\s+(?:тоже|также|еще|уже|too|also|as\s+well|нет|есть|у\s+меня|аллерги\w*|allerg\w*|сильная|сильно"
    r"|badly|severely))+$"
)
# Words that never make up an unknown allergen or drug name: they mean the phrase is a clause.
_FUNCTION_WORDS = word_set(
    "я мне меня мой моя не нет это что как так уже был была было были есть ем пью ел ела у в с от по за для "
    "при когда если он она они мы вы его ее их i me my not no is am are was were be been have has had do "
    "does did eat eating take taking it this that them so then when if because what something anything "
    "nothing ничего что-то что-нибудь всё все него нее них чего "
    # a hedge or a test said after the list ("shellfish, never tested") is no item of it
    "never ever tested test tests checked sure think guess probably maybe perhaps possibly might "
    "никогда проверялась проверялся проверяли проверяла проверял знаю думаю наверное вроде кажется"
)
_VAGUE = word_set(
    "что-то что-нибудь ничего anything nothing something everything всё все всего это it drugs medications "
    "medication medicines medicine лекарства лекарство препараты food foods еду продукты"
)


def enumeration(
    s: Sentence, start: int, kinds: tuple[str, ...], first_unknown_ok: bool = True
) -> list[tuple[int, int, Term | None]]:
    """Items of the list that begins at ``start``; each with its table term when known."""
    end = s.list_end(start)
    items: list[tuple[int, int, Term | None]] = []
    cursor = start
    for piece in [*_SPLIT.finditer(s.low[start:end]), None]:
        piece_end = start + piece.start() if piece else end
        item = _clean(s, cursor, piece_end)
        cursor = start + piece.end() if piece else end
        if item is None:
            if items:
                break
            continue
        a, b = item
        terms = find_terms(kinds, s.text[a:b])
        if terms:
            items.append((a + terms[0].start, a + terms[0].end, terms[0]))
        elif _plausible(s.low[a:b]) and (len(s.low[a:b].split()) <= 2 if items else first_unknown_ok):
            items.append((a, b, None))
        else:
            break
    return items


def _clean(s: Sentence, a: int, b: int) -> tuple[int, int] | None:
    text = s.low[a:b]
    lead = _LEAD.match(text.strip())
    offset = len(text) - len(text.lstrip()) + (lead.end() if lead else 0)
    a += offset
    trail = _TRAIL.search(s.low[a:b].rstrip())
    b = a + (trail.start() if trail else len(s.low[a:b].rstrip()))
    while a < b and not s.low[a].isalnum():
        a += 1
    while b > a and not s.low[b - 1].isalnum():
        b -= 1
    return (a, b) if b > a else None


def _plausible(text: str) -> bool:
    words = text.split()
    if not 1 <= len(words) <= 3 or text in _VAGUE:
        return False
    if any(w in _FUNCTION_WORDS or w in _VAGUE for w in words):
        return False
    return all(re.fullmatch(r"[^\W\d_]+(?:[-'][^\W\d_]+)*", w) for w in words) and len(text) >= 3
