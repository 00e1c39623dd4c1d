"""Quality filter (seed 001): noise never reaches a model, and neither does the reply to noise.

A user message is dropped when it is only numbers or punctuation, one word, fewer than six
letters, or keyboard mash; the assistant's reply to a dropped message goes with it. A short
reply right after the assistant's question is an answer ("no", "34", "只有阿司匹林"), never
noise: only keyboard mash and bare punctuation are dropped there. Chinese and Japanese text is
text: ideographs are letters, and a run of them is never keyboard mash. Before
filtering, a short burst of consecutive user messages that only make sense together ("мне" /
"30" / "лет") is glued into one; gluing is conservative so a run of garbage stays garbage: mash
and punctuation break a run, fillers ("ок", "да") break it, a run longer than six messages is not
glued, and the glued text must pass the filter and have an anchor (a number, a first-person
word, a health word or a drug name). Pure and fast: no I/O beyond the lazily loaded synonym table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..domain.models import Message, Role
from ..domain.text import IDEOGRAPHS, KANA, fold_in_place
from .dialogue import question_of
from .normalize import find_terms, is_known_term, word_set
from .rules.followups import orders

MIN_LETTERS = 6
MAX_GLUE = 6
MAX_PIECE_WORDS = 3

_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "йцукенгшщзхъ", "фывапролджэ", "ячсмитьбю")
_ADJACENT = frozenset(
    pair for row in _ROWS for i in range(len(row) - 1) for pair in (row[i : i + 2], row[i + 1] + row[i])
)
_ROW_WORDS_OK = frozenset({"про", "лор"})  # real words that happen to sit on one keyboard row
_VOWELS = frozenset("aeiouyаеиоуыэюя")
_REPEATED = re.compile(r"^(.{1,2})\1{2,}.?$")
_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxzбвгджзйклмнпрстфхцчшщ]{6,}")
_IDEOGRAPH = re.compile(f"[{KANA}{IDEOGRAPHS}]")
# An ideograph carries a word's worth of meaning: count it as a word's letters.
_IDEOGRAPH_LETTERS = 3
# A bare number answers only a question that asks for one ("How old are you?" / "34").
_ASKS_NUMBER = re.compile(
    r"how\s+(?:old|much|many|tall|often|long)|what\s+(?:is|'s)\s+your\s+(?:age|weight|height)|\bage\b"
    r"|weigh|height|сколько|какой\s+(?:у\s+вас\s+)?(?:рост|вес|возраст)|возраст|лет\s+вам|вес|рост"
    r"|\byear\b|\bborn\b|\bdob\b|рождени|родил|出生|哪年"
    r"|多大|几岁|多少|多高|多重|体重|身高|年龄"
    # a dose: "What dose?" / "10", "Какая дозировка?" / "75", "剂量？" / "5"
    r"|\bdos(?:e|es|age)\b|\bstrength\b|\bmg\b|доз|мг\b|剂量|毫克|用量"
)
# What an answer may be dropped for: nothing but mash or punctuation.
_NOISE_EVEN_AS_ANSWER = frozenset({"keyboard_mash", "punctuation_only"})
_FILLERS = word_set(
    "ок окей ok okay да нет не ну хм ага угу ладно понятно ясно хорошо спасибо спс пасиб привет пока ааа эээ "
    "ээ мм ммм хз норм yes no yeah yep nope hmm hm lol лол ха хах thanks thx hi hello hey bye sure fine cool"
)
_ANCHORS = word_set("я мне меня мной мой моя мое мои нас i i'm im me my mine we our am")
_HEALTH_STEMS = (
    "аллерг",
    "лекарств",
    "таблет",
    "препарат",
    "принима",
    "пью",
    "боль",
    "болит",
    "болят",
    "болел",
    "диагноз",
    "прививк",
    "операц",
    "курю",
    "курил",
    "давлен",
    "температур",
    "назнач",
    "allerg",
    "pill",
    "medic",
    "take",
    "taking",
    "hurt",
    "pain",
    "diagnos",
    "vaccin",
    "surgery",
    "smok",
    "dose",
)


@dataclass(frozen=True)
class Dropped:
    index: int  # position in the original fragment
    message: Message
    reason: str


@dataclass(frozen=True)
class FilterResult:
    kept: tuple[Message, ...]
    dropped: tuple[Dropped, ...]
    glued: tuple[tuple[int, ...], ...] = ()  # original indexes merged into one kept message

    @property
    def all_filtered(self) -> bool:
        """No user words survived: nothing to classify or extract."""
        return not any(m.role is Role.USER for m in self.kept)

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(sorted({d.reason for d in self.dropped}))


def _row_run(word: str) -> bool:
    if len(word) < 3 or word in _ROW_WORDS_OK:
        return False
    if any(word in row or word in row[::-1] for row in _ROWS):
        return True
    pairs = [word[i : i + 2] for i in range(len(word) - 1)]
    return len(word) >= 4 and sum(p in _ADJACENT for p in pairs) / len(pairs) >= 0.75


def _is_mash_word(word: str) -> bool:
    if _IDEOGRAPH.search(word):
        return False  # no keyboard rows, no vowels: the tests below do not apply
    if _REPEATED.match(word) and len(word) >= 3:
        return True
    if len(word) >= 4 and not (set(word) & _VOWELS):
        return True
    return bool(_row_run(word) or _CONSONANT_RUN.search(word))


def reject_reason(text: str) -> str | None:
    """Why one user message is noise, or None when it may carry information."""
    low = fold_in_place(text.strip())
    ideographs = len(_IDEOGRAPH.findall(low))
    letters = sum(ch.isalpha() for ch in low) + ideographs * (_IDEOGRAPH_LETTERS - 1)
    digits = sum(ch.isdigit() for ch in low)
    if not letters:
        return "numbers_only" if digits else "punctuation_only"
    words = _WORD.findall(low)
    mash_letters = sum(len(w) for w in words if _is_mash_word(w.replace("-", "").replace("'", "")))
    if mash_letters and mash_letters * 2 >= letters:
        return "keyboard_mash"
    if len(words) == 1 and not digits and ideographs < 2:
        return "one_word"
    if letters < MIN_LETTERS:
        # "мне 30", "I'm 34", "вешу 80": a number with a word is a statement in a health chat.
        content = [w for w in words if w not in _FILLERS]
        if digits and content and letters + digits >= 4 and letters >= 2:
            return None
        return "too_few_letters"
    return None


def _is_filler(text: str) -> bool:
    words = _WORD.findall(fold_in_place(text))
    return bool(words) and all(w in _FILLERS for w in words) and not any(ch.isdigit() for ch in text)


_CHATTER = word_set("me too oh ah um uh mhm mm-hmm wow great good nice alright right got it i see")


def _chatter(text: str) -> bool:
    """A short turn of conversational words ("Hm.", "Okay.", "Me too.", "ок"), not noise."""
    words = _WORD.findall(fold_in_place(text))
    return bool(words) and all(w in _FILLERS or w in _CHATTER for w in words)


def _gluable(message: Message, reason: str | None) -> bool:
    text = message.text.strip()
    if message.role is not Role.USER or not text or _is_filler(text):
        return False
    if reason in ("keyboard_mash", "punctuation_only"):
        return False
    return len(text.split()) <= MAX_PIECE_WORDS


def _anchored(text: str) -> bool:
    """A glued burst must look like a statement about the user's health, not a list of words."""
    low = fold_in_place(text)
    words = _WORD.findall(low)
    if any(ch.isdigit() for ch in low) or set(words) & _ANCHORS:
        return True
    return any(w.startswith(_HEALTH_STEMS) for w in words) or bool(find_terms(("drug",), text))


def _orders_given(message: Message | None) -> bool:
    return message is not None and message.role is Role.ASSISTANT and bool(orders(message.text))


def _asks(message: Message | None) -> bool:
    return message is not None and message.role is Role.ASSISTANT and message.text.rstrip().endswith("?")


def filter_messages(
    messages: Sequence[Message], known_term: Callable[[str], bool] | None = None
) -> FilterResult:
    """Keep what may carry information; glue short bursts; drop noise and the replies to it.

    ``known_term`` spares a one-word answer to the assistant's question when it is a known
    medical term ("пенициллин" after "what are you allergic to?"); defaults to the synonym table.
    """
    known = known_term or is_known_term
    reasons: list[str | None] = []
    for index, m in enumerate(messages):
        reason = reject_reason(m.text) if m.role is Role.USER else None
        previous = messages[index - 1] if index else None
        if reason in ("one_word", "too_few_letters") and _asks(previous) and known(m.text):
            reason = None
        question = question_of(messages, index) if reason and reason not in _NOISE_EVEN_AS_ANSWER else None
        if question is not None and (
            reason != "numbers_only" or _ASKS_NUMBER.search(fold_in_place(question.text))
        ):
            reason = None  # an answer to the assistant's question: read it with the question
        if reason in ("one_word", "too_few_letters") and _orders_given(previous):
            reason = None  # "Назначу вам омепразол…" / "хорошо": the clinician's order taken up
        reasons.append(reason)

    glued_at: dict[int, tuple[Message, tuple[int, ...]]] = {}
    consumed: set[int] = set()
    i = 0
    while i < len(messages):
        j = i
        while j < len(messages) and _gluable(messages[j], reasons[j]):
            j += 1
        run = tuple(range(i, j))
        if 2 <= len(run) <= MAX_GLUE and any(reasons[k] for k in run):
            text = " ".join(messages[k].text.strip() for k in run)
            if reject_reason(text) is None and _anchored(text):
                glued_at[i] = (Message(role=Role.USER, text=text, at=messages[run[-1]].at), run)
                consumed.update(run)
        i = max(j, i + 1)

    kept: list[Message] = []
    dropped: list[Dropped] = []
    last_user_dropped = False
    for index, message in enumerate(messages):
        if index in glued_at:
            kept.append(glued_at[index][0])
            last_user_dropped = False
        if index in consumed:
            continue
        reason = reasons[index]
        if message.role is Role.USER:
            # "Hm." / "Do you smoke?" / "No, never.": after a filler the assistant's turn still
            # counts (its question is what the next answer answers); after noise it goes too
            last_user_dropped = reason is not None and not _chatter(message.text)
            if reason is not None:
                dropped.append(Dropped(index, message, reason))
            else:
                kept.append(message)
        elif last_user_dropped:
            dropped.append(Dropped(index, message, "reply_to_filtered"))
        else:
            kept.append(message)
    return FilterResult(tuple(kept), tuple(dropped), tuple(run for _, run in glued_at.values()))
