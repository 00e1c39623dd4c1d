"""An offline embedder: hashed word unigrams + character n-grams, no model, no network.

Multilingual by construction: Cyrillic and Latin words give a word feature plus their
character 3-5-grams (so inflections such as "головной"/"головная" stay close), CJK text gives
character unigrams and bigrams (it has no spaces to split words on). Features are hashed with
a stable hash (crc32, not Python's salted ``hash``) into a fixed-size vector with signed hashing,
weighted by sublinear term frequency and L2-normalised, so vectors are identical across
processes and machines and can be stored in a vector index.

Word features weigh more than the n-grams of a word (n-grams only smooth over inflection and
typos), and stop words are damped: that keeps the vectors useful for episode retrieval and not
only for short-question classification.

Pure code, so the read path's query classifier and the local vector index both use it;
``adapters/local_embedder.py`` offers it as the local ``Embedder``.
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from .text import UNSPACED, fold_case

# A run of CJK characters, or a word of letters/digits (anything but CJK, punctuation, "_").
_TOKEN_RE = re.compile(rf"([{UNSPACED}]+)|([^\W_{UNSPACED}]+)")

WORD_WEIGHT = 1.0
STOP_WORD_WEIGHT = 0.3
# Total L2 mass of one word's character n-grams, relative to its word feature (each n-gram
# alone still weighs less than the word). Tuned on LoCoMo turn retrieval, R@10 at 512 dims:
# mass 0.6 -> 0.40, 2.0 -> 0.44; without stop-word damping 0.29.
NGRAM_MASS = 2.0
CJK_CHAR_WEIGHT = 0.5
NGRAM_SIZES = (3, 4, 5)

# Function words that carry little meaning: damped, and they give no n-grams.
# (A word list reads and reviews better as text than as a list literal.)
STOP_WORDS: frozenset[str] = frozenset(
    """
    a an the and or but if of to in on at by for with from as is are was were be been being am
    i me my we our you your he him his she her it its they them their this that these those
    do does did have has had not no so too very just than then there here what which who whom
    how when where why can could would should will shall may might must about into over up
    out off again also any some all each both more most other such only own same s t don
    и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
    ее её мне было вот от меня еще ещё нет о из ему теперь когда даже ну вдруг ли если уже или
    ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где
    есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж
    тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы нее
    были куда зачем всех никогда можно при наконец два об другой хоть после над больше тот
    через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед
    иногда лучше чуть том нельзя такой им более всегда конечно всю между это мои меня
    какие какая какое какую каких каким сколько нужно нужна нужен нужны мое моей моем моего мою
    моих моим сейчас очень раньше ранее
    """.split()  # noqa: SIM905
)


def _bucket(key: str, dimensions: int) -> tuple[int, float]:
    h = zlib.crc32(key.encode("utf-8"))
    return h % dimensions, (1.0 if h & 0x80000000 else -1.0)


@lru_cache(maxsize=65536)
def _word_features(word: str, dimensions: int) -> tuple[tuple[int, float], ...]:
    """Hashed (index, signed weight) features of one normalised word (cached: words repeat)."""
    index, sign = _bucket("w:" + word, dimensions)
    if word in STOP_WORDS:
        return ((index, sign * STOP_WORD_WEIGHT),)
    out = [(index, sign * WORD_WEIGHT)]
    if not word.isdigit():
        padded = f"<{word}>"
        grams = [padded[i : i + n] for n in NGRAM_SIZES for i in range(len(padded) - n + 1)]
        gram_weight = NGRAM_MASS / math.sqrt(len(grams)) if grams else 0.0
        for gram in grams:
            index, sign = _bucket(gram, dimensions)
            out.append((index, sign * gram_weight))
    return tuple(out)


@lru_cache(maxsize=65536)
def _cjk_features(run: str, dimensions: int) -> tuple[tuple[int, float], ...]:
    """Character unigrams and bigrams of a CJK run: bigrams stand in for words."""
    out = []
    for char in run:
        index, sign = _bucket("c:" + char, dimensions)
        out.append((index, sign * CJK_CHAR_WEIGHT))
    for i in range(len(run) - 1):
        index, sign = _bucket("w:" + run[i : i + 2], dimensions)
        out.append((index, sign * WORD_WEIGHT))
    return tuple(out)


def lexical_terms(text: str) -> list[str]:
    """Terms for lexical (BM25) matching: normalised words; a CJK run gives its character
    bigrams (a lone character stands for itself), as CJK text has no spaces between words."""
    terms: list[str] = []
    for m in _TOKEN_RE.finditer(fold_case(text)):
        run = m.group(0)
        if m.lastindex == 1 and len(run) > 1:
            terms.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    return terms


class HashingEmbedder:
    """Implements the ``Embedder`` port locally; deterministic across processes."""

    name = "hash-ngram-v1"

    def __init__(self, dimensions: int = 512) -> None:
        if dimensions < 16:
            raise ValueError("dimensions must be at least 16")
        self.dimensions = dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._dense(self.embed_sparse(text)) for text in texts]

    def embed_sparse(self, text: str) -> dict[int, float]:
        """The same vector as ``embed`` gives, as {index: value} of its non-zero entries."""
        vector: dict[int, float] = {}
        # lastindex tells the alternative that matched: 1 is a CJK run, 2 a word.
        counts = Counter((m.lastindex == 1, m.group(0)) for m in _TOKEN_RE.finditer(fold_case(text)))
        dims = self.dimensions
        for (is_cjk, token), tf in counts.items():
            scale = 1.0 + math.log(tf)  # sublinear: a repeated word is not n times as telling
            features = _cjk_features(token, dims) if is_cjk else _word_features(token, dims)
            for index, value in features:
                vector[index] = vector.get(index, 0.0) + value * scale
        norm = math.sqrt(sum(v * v for v in vector.values()))
        if norm == 0.0:
            return {}
        return {index: value / norm for index, value in vector.items() if value != 0.0}

    def _dense(self, sparse: dict[int, float]) -> list[float]:
        dense = [0.0] * self.dimensions
        for index, value in sparse.items():
            dense[index] = value
        return dense


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two dense vectors; 0.0 when either is all zeros."""
    if len(a) != len(b):
        raise ValueError("vectors differ in length")
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norm if norm else 0.0


def sparse_dot(a: dict[int, float], b: dict[int, float]) -> float:
    """Dot product of two sparse vectors (the cosine when both are L2-normalised)."""
    if len(a) > len(b):
        a, b = b, a
    return sum(value * b.get(index, 0.0) for index, value in a.items())
