"""Names -> canonical keys: a curated synonym table first, then a light stemmer.

One canonical key per entity, whatever the language: the English INN / English clinical term,
lower-case ASCII with '_' between words and '+' between the parts of a fixed combination
(``enalapril``, ``acetylsalicylic_acid``, ``amoxicillin+clavulanic_acid``, ``type_2_diabetes``).
So "Энап", "энапа", "Enap", "悦宁定" and "эналаприл" all meet at ``enalapril``, while
``name_normalized`` stays human and in the user's script ("эналаприл", "enalapril", "依那普利").
Names the table does not know fall back to the model's hint (or the raw name), lower-cased and
stemmed, so that inflected forms still meet ("кагоцелом" and "кагоцел" share a key).
The table is read lazily once per process (``data/synonyms.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from ..domain.sections import Section


@dataclass(frozen=True)
class Normalized:
    name_normalized: str
    key: str
    code: str | None = None


@dataclass(frozen=True)
class Entry:
    kind: str
    key: str
    names: dict[str, str]
    code: str | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def name(self, lang: str) -> str:
        return self.names.get(lang) or self.names.get("en") or self.key


@dataclass(frozen=True)
class Term:
    """A table entity found in a text; start/end index the text as given (folding keeps length)."""

    entry: Entry
    start: int
    end: int


# Which table kinds each section looks in, in priority order.
KINDS_BY_SECTION: dict[Section, tuple[str, ...]] = {
    Section.MEDICATIONS: ("drug",),
    Section.ALLERGIES: ("allergen", "drug"),
    Section.CHRONIC_CONDITIONS: ("condition",),
    Section.REPORTED_DIAGNOSES: ("condition",),
    Section.FAMILY_HISTORY: ("condition",),
    Section.SYMPTOMS: ("symptom",),
    Section.SURGERIES: ("surgery",),
    Section.INJURIES: ("injury",),
    Section.VACCINATIONS: ("vaccine",),
    Section.LIFESTYLE: ("lifestyle",),
    Section.DEMOGRAPHICS: ("slot",),
}
# Kinds whose facts carry a value, not an entity: the key names the slot, the name stays as said.
_VALUE_KINDS = frozenset({"lifestyle", "slot"})
_ALL_KINDS = ("drug", "allergen", "condition", "symptom", "surgery", "injury", "vaccine")

_TOKEN = re.compile(r"[0-9a-zа-я]+(?:['-][0-9a-zа-я]+)*")
_CJK = re.compile(r"[\u3400-\u9fff]")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def word_set(text: str) -> frozenset[str]:
    """A readable way to write a word list in code."""
    return frozenset(text.split())


_RU_ENDINGS = sorted(
    word_set(
        "иями ями ами ией ого его ому ему ыми ими ая яя ое ее ые ие ый ий ой ей ом ем ам ям ах ях ов ев "
        "ию ия ии ую юю ых их ым им ью а я о е ы и у ю ь й"
    ),
    key=len,
    reverse=True,
)
# Ordinals in disease names ("диабет второго типа" = "диабет 2 типа").
_NUMBER_WORDS = {
    **dict.fromkeys(word_set("первый первого первая первой one"), "1"),
    **dict.fromkeys(word_set("второй второго вторая two"), "2"),
    **dict.fromkeys(word_set("третий третьего третья"), "3"),
}
# Dose and dosage-form words say nothing about which drug it is ("Энап 5 мг", "таблетки Конкор").
_DRUG_NOISE = word_set(
    "мг mg мкг mcg г g мл ml ед units iu ме таблетки таблетка таблеток таблетку tablet tablets "
    "pill pills капсулы капсула capsule capsules капли drops спрей spray укол уколы уколов"
)
_PAIN_WORDS = word_set(
    "боль боли болью болит болят болела болело болел болели ноет ноют ломит pain pains hurts hurt "
    "ache aches aching sore"
)


def fold(text: str) -> str:
    """Lower-case, ё->е, typographic apostrophe -> ASCII; always the same length as ``text``."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join((ch.lower() or ch)[:1] for ch in text)
    return low.replace("ё", "е").replace("’", "'")


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A deliberately small suffix stripper: enough for inflected drug and disease names to meet."""
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    word = word.replace("-", "").replace("'", "")
    digits = re.match(r"\d+", word)
    if digits:
        return digits.group(0)  # "2-го" -> "2", "5мг" -> "5"
    if _CYRILLIC.search(word):
        for ending in _RU_ENDINGS:
            if word.endswith(ending) and len(word) - len(ending) >= 3:
                return word[: -len(ending)]
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if (len(word) > 4 and word.endswith("es") and word[-3] in "sxz") or word.endswith(("ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_DRUG_NOISE_STEMS = frozenset(stem(w) for w in _DRUG_NOISE)
_PAIN_STEMS = frozenset(stem(w) for w in _PAIN_WORDS)


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((m.start(), m.end(), stem(m.group(0))) for m in _TOKEN.finditer(fold(text)))


def _phrase_key(text: str) -> str:
    return " ".join(t for _, _, t in _tokens(text))


_EXTRA_FIELDS = ("type", "chronic", "ru_gen", "ru_loc", "symptom", "aliases")


@dataclass
class _Index:
    phrases: dict[str, Entry] = field(default_factory=dict)
    cjk: list[tuple[str, Entry]] = field(default_factory=list)
    max_words: int = 1


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Entry]]:
    raw = json.loads(resources.files("health_ltm.data").joinpath("synonyms.json").read_text("utf-8"))
    table: dict[str, list[Entry]] = {}
    for kind, items in raw.items():
        if not isinstance(items, list) or kind.startswith("_"):
            continue
        table[kind] = [
            Entry(
                kind=kind,
                key=item["key"],
                names={lang: item[lang] for lang in ("ru", "en", "zh") if item.get(lang)},
                code=item.get("code"),
                extra={k: v for k, v in item.items() if k in _EXTRA_FIELDS},
            )
            for item in items
        ]
    return table


@lru_cache(maxsize=32)
def _index(kinds: tuple[str, ...]) -> _Index:
    index = _Index()
    for kind in kinds:
        for entry in _table().get(kind, []):
            for alias in (*entry.names.values(), *entry.extra.get("aliases", ())):
                if _CJK.search(alias):
                    index.cjk.append((fold(alias), entry))
                    continue
                phrase = _phrase_key(alias)
                if phrase:
                    index.phrases.setdefault(phrase, entry)  # the first kind listed wins
                    index.max_words = max(index.max_words, phrase.count(" ") + 1)
    index.cjk.sort(key=lambda item: -len(item[0]))
    return index


def kinds_for(section: Section | str) -> tuple[str, ...]:
    return KINDS_BY_SECTION[Section(section)]


@lru_cache(maxsize=4096)
def find_terms(kinds: tuple[str, ...], text: str) -> tuple[Term, ...]:
    """Every table entity in ``text``, longest match first, left to right, no overlaps."""
    index = _index(kinds)
    found: list[Term] = []
    tokens = _tokens(text)
    i = 0
    while i < len(tokens):
        for width in range(min(index.max_words, len(tokens) - i), 0, -1):
            entry = index.phrases.get(" ".join(t for _, _, t in tokens[i : i + width]))
            if entry is not None:
                found.append(Term(entry, tokens[i][0], tokens[i + width - 1][1]))
                i += width
                break
        else:
            i += 1
    if index.cjk and _CJK.search(text):
        low, taken = fold(text), list[tuple[int, int]]()
        for alias, entry in index.cjk:
            start = low.find(alias)
            if start >= 0 and not any(s < start + len(alias) and start < e for s, e in taken):
                taken.append((start, start + len(alias)))
                found.append(Term(entry, start, start + len(alias)))
    return tuple(sorted(found, key=lambda t: t.start))


def lookup(section: Section | str, text: str) -> Entry | None:
    terms = find_terms(kinds_for(section), text)
    return terms[0].entry if terms else None


@lru_cache(maxsize=2048)
def is_known_term(text: str) -> bool:
    """True when the whole text is one entity the table knows ("пенициллин", "Энап", "астма")."""
    content = [t for t in _tokens(text) if t[2] not in _DRUG_NOISE_STEMS and not t[2].isdigit()]
    if not content and not _CJK.search(text):
        return False
    terms = find_terms(_ALL_KINDS, text)
    covered = {i for t in terms for i, tok in enumerate(content) if t.start <= tok[0] and tok[1] <= t.end}
    return bool(terms) and len(covered) == len(content)


def _script(text: str) -> str:
    if _CJK.search(text):
        return "zh"
    return "ru" if _CYRILLIC.search(text) else "en"


def _compose(section: Section, text: str | None) -> Normalized | None:
    """Injuries and pains by body site: "сломал руку" -> arm_fracture, "болит колено" -> knee_pain."""
    if not text or section not in (Section.INJURIES, Section.SYMPTOMS):
        return None
    sites = find_terms(("body_site",), text)
    if not sites:
        return None
    site, lang = sites[0].entry, _script(text)
    if section is Section.SYMPTOMS:
        if not any(t[2] in _PAIN_STEMS for t in _tokens(text)):
            return None
        ready = next((e for e in _table()["symptom"] if e.key == site.extra.get("symptom")), None)
        if ready is not None:  # "голова ... болит" is a headache, not a "head pain"
            return Normalized(ready.name(lang), ready.key, ready.code)
        human = f"боль в {site.extra.get('ru_loc')}" if lang == "ru" else f"{site.name('en')} pain"
        return Normalized(human, f"{site.key}_pain")
    kinds = find_terms(("injury_type",), text)
    if not kinds:
        return None
    kind = kinds[0].entry
    if lang == "ru":
        human = f"{kind.name('ru')} {site.extra.get('ru_gen')}"
    else:
        human = f"{site.name('en')} {kind.name('en')}"
    return Normalized(human, f"{site.key}_{kind.key}")


def _plain_words(section: Section, text: str) -> list[str]:
    words = [m.group(0) for m in _TOKEN.finditer(fold(text))]
    if section is Section.MEDICATIONS:
        words = [w for w in words if w not in _DRUG_NOISE and not w[:1].isdigit()]
    return words


@lru_cache(maxsize=4096)
def _normalize(section: Section, raw: str, hint: str | None) -> Normalized:
    lang = _script(raw or hint or "")
    for text in (raw, hint):
        entry = lookup(section, text) if text else None
        if entry is not None:
            if entry.kind in _VALUE_KINDS:
                return Normalized(" ".join(fold(raw or hint or "").split()), entry.key, entry.code)
            return Normalized(entry.name(lang), entry.key, entry.code)
    composed = _compose(section, raw) or _compose(section, hint)
    if composed is not None:
        return composed
    base = (hint or raw or "").strip()
    words = _plain_words(section, base) or [w for w in fold(base).split() if w]
    key = "_".join(stem(w) for w in words) or "unknown"
    return Normalized(" ".join(words) or fold(base), key[:120])


def normalize_name(section: Section | str, raw: str | None, hint: str | None = None) -> Normalized:
    """Table first (raw, then the model's hint), then body-site composition, then stemmed fallback."""
    return _normalize(Section(section), (raw or "").strip(), (hint or "").strip() or None)
