"""Names -> canonical keys: a curated synonym table first, then a light stemmer.

One canonical key per entity, whatever the language: the English INN / English clinical term,
lower-case ASCII with '_' between words and '+' between the parts of a fixed combination
(``enalapril``, ``acetylsalicylic_acid``, ``amoxicillin+clavulanic_acid``, ``type_2_diabetes``).
So "Энап", "энапа", "Enap", "悦宁定" and "эналаприл" all meet at ``enalapril``, while
``name_normalized`` stays human and in the user's script ("эналаприл", "enalapril", "依那普利").
Names the table does not know fall back, for drugs, allergens and conditions, to a spelling
variant of a table name ("amoxicilin", "ибупрофин" -> the table's entity; see ``FUZZY_KINDS``),
then to the model's hint (or the raw name), lower-cased and stemmed, so that inflected forms
still meet ("кагоцелом" and "кагоцел" share a key). ``closest_existing_key`` finds the stored
fact a new name is a spelling variant of.
The table is read lazily once per process (``data/synonyms.json``); so is ``rapidfuzz``, which
only a fuzzy look-up needs (about 20 ms of imports, not paid by the api function's cold start).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..data import load as data_file
from ..domain.sections import Section
from ..domain.text import CJK, fold_in_place


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

    def inside(self, longer: Term) -> bool:
        """Wholly within a longer name found in the same text ("ulcer" in "mouth ulcer")."""
        return (
            longer.start <= self.start
            and self.end <= longer.end
            and longer.end - longer.start > self.end - self.start
        )


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
# A demographic slot carries a value, not an entity: the key names the slot, the name stays as said
# (a habit is named by the habit, its amount kept in its value: decision log 35).
_SLOT_KIND = "slot"
_ALL_KINDS = ("drug", "allergen", "condition", "symptom", "surgery", "injury", "vaccine")
_DRUG_FORM = ("drug_form",)  # medicines named by their form only (see _normalize)

# Spelling variants are looked for only among these kinds: misspelt drug, allergen and disease
# names are common and matter for safety, and their names are long and distinctive. A word is a
# variant of a table name when both are at least _FUZZY_MIN_LEN letters of one script, start with
# the same letter, and are at most one edit apart (a transposition is one edit), or two edits
# from ten letters on (see _edit_limit); a word the table knows in any kind, or a common word
# that happens to lie near a name, is never "corrected"; two entities equally near: no match.
FUZZY_KINDS = frozenset({"drug", "allergen", "condition"})
_FUZZY_MIN_LEN = 6
_FUZZY_WORD = re.compile(r"[a-z]+|[а-я]+")

_TOKEN = re.compile(r"[0-9a-zа-я]+(?:['-][0-9a-zа-я]+)*")
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
    return tuple((m.start(), m.end(), stem(m.group(0))) for m in _TOKEN.finditer(fold_in_place(text)))


# Words that qualify how or how often: "сердце иногда колотится" still says the alias "сердце
# колотится". A second pass over the words no name took skips them inside a phrase of the text
# (some aliases hold one: "часто мочусь", "always thirsty", matched as they are first).
_QUALIFIERS = frozenset(
    stem(w)
    for w in word_set(
        "иногда часто сильно очень постоянно периодически опять снова немного немножко слегка прям прямо "
        "реально жутко ужасно дико всегда временами регулярно "
        "sometimes often really very always constantly occasionally badly kinda so"
    )
)


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
    raw = data_file("synonyms.json")
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
                if CJK.search(alias):
                    index.cjk.append((fold_in_place(alias), entry))
                    continue
                phrase = _phrase_key(alias)
                if phrase:
                    index.phrases.setdefault(phrase, entry)  # the first kind listed wins
                    index.max_words = max(index.max_words, phrase.count(" ") + 1)
    index.cjk.sort(key=lambda item: -len(item[0]))
    return index


@lru_cache(maxsize=1)
def _body_sites() -> frozenset[str]:
    return frozenset(e.key for e in _table().get("body_site", []))


def pain_site(key: str) -> str | None:
    """The body site a pain symptom's key names ("knee_pain" -> "knee"), when the table has it."""
    site = key.removesuffix("_pain")
    return site if site != key and site in _body_sites() else None


def kinds_for(section: Section | str) -> tuple[str, ...]:
    return KINDS_BY_SECTION[Section(section)]


@lru_cache(maxsize=4096)
def find_terms(kinds: tuple[str, ...], text: str, fuzzy: bool = False) -> tuple[Term, ...]:
    """Every table entity in ``text``, longest match first, left to right, no overlaps.

    With ``fuzzy``, a word no exact match covers may also be a spelling variant of a one-word
    name of a ``FUZZY_KINDS`` kind ("I stopped the amoxicilin"); the caller opts in."""
    index = _index(kinds)
    found: list[Term] = []
    tokens = _tokens(text)
    loose: list[tuple[int, int, str]] = []  # words no exact match took
    i = 0
    while i < len(tokens):
        for width in range(min(index.max_words, len(tokens) - i), 0, -1):
            entry = index.phrases.get(" ".join(t for _, _, t in tokens[i : i + width]))
            if entry is not None:
                found.append(Term(entry, tokens[i][0], tokens[i + width - 1][1]))
                i += width
                break
        else:
            loose.append(tokens[i])
            i += 1
    loose = _qualified_phrases(index, loose, found)
    if fuzzy and FUZZY_KINDS.intersection(kinds):
        for start, end, word in loose:
            near = _variant_of(kinds, word)
            if near is not None:
                found.append(Term(near, start, end))
    if index.cjk and CJK.search(text):
        low, taken = fold_in_place(text), list[tuple[int, int]]()
        for alias, entry in index.cjk:
            start = low.find(alias)
            if start >= 0 and not any(s < start + len(alias) and start < e for s, e in taken):
                taken.append((start, start + len(alias)))
                found.append(Term(entry, start, start + len(alias)))
    return tuple(sorted(found, key=lambda t: t.start))


def _qualified_phrases(
    index: _Index, loose: list[tuple[int, int, str]], found: list[Term]
) -> list[tuple[int, int, str]]:
    """Phrases of two words or more among ``loose`` once the qualifiers between them are skipped;
    appended to ``found``; the loose words none of them took are returned."""
    core = [t for t in loose if t[2] not in _QUALIFIERS]
    if len(core) < 2 or len(core) == len(loose):
        return loose
    taken: set[int] = set()
    i = 0
    while i < len(core) - 1:
        for width in range(min(index.max_words, len(core) - i), 1, -1):
            entry = index.phrases.get(" ".join(t for _, _, t in core[i : i + width]))
            if entry is not None and core[i + width - 1][0] - core[i][1] < 40:
                found.append(Term(entry, core[i][0], core[i + width - 1][1]))
                taken.update(t[0] for t in core[i : i + width])
                i += width
                break
        else:
            i += 1
    return [t for t in loose if t[0] not in taken]


# --- spelling variants ----------------------------------------------------------------------------
# Frequent words that lie within the cutoff of a one-word table name: they are the word, not a
# typo ("strike" is not "stroke", "паркет" is not "Париет", "lanolin" is not "Lanoxin"). Found by
# scanning the 100,000 most frequent English and Russian words (wordfreq) against the table;
# stems, as _tokens gives them. Re-run the scan after adding short names to the table.
_COMMON_NEAR_NAMES = word_set(
    "ability alcoholic alessi allegri allegro alsace altera althea amaral ambient androgen ankara "
    "annuity antare ariane armond articulate artistic aspiring augmenting bafana banara bandai "
    "bandana benzyl betaine breach brenna buffering bunton cambio cambria cancel candia candid "
    "candide canker canner canter capote capsicum carita cashed cashel celica cellulite centum "
    "chloride chocolatier circadian cirrus clarinet clarity clegane clementine concert concertina "
    "concerto concord concour concur condor connor contract contrasted cortex cortez creator "
    "creston crustacea cumbia depressing depressive digression dioxin enclose endometrium essential "
    "essentially estaing estrogen farmiga father feathery florent gaiter gallus guardia halima "
    "hearin horned horner horney hydrazine infectivity innovate invertible iodide iovine lactase "
    "lactone lanolin lenora lifton linton lipton liston litton lyrical malignant mangle melamine "
    "metadata micromax micron milena miramax mitigate mollusca morena morphing musser naturopathy "
    "nephropathy nicked nickle nicotine nootropic ocelli oestrogen oranje ouster overnight "
    "oversight pancreatic penicillium peptic perfumed perfumer person pollan polled polley precise "
    "preservation principe principled pullen pyridine raglan reflex reynaud roland ronnie rosella "
    "salman salmond salomon saloon salton saxena scrimp seaford sentra shingled single singular "
    "spondylitis sprinted sprinter strike strobe strode stroked strome strove sulfate sulfide "
    "sulphate sulphide sunburst sunbury tanaka taoist testis thrash thresh thrust tustin unicom "
    "unison valeria valyrian visite акватор арамис аризон артист барнетт вестис виктор гектор "
    "гермес гипотез главком гордилс динамит долгот зеленск знаков карлин карпин картин кондор "
    "коннор консервац консервн контор контракт коронац корсак кофеин красил крестов легальн мелочн "
    "милочк молотк молочник морщин назрел наклонен наркомат некроз норман отправлен отправлени "
    "отправленн паритет паркет пастыр перекус перепис персон перстен плавитс племен плетен плоскост "
    "подогр прозаик прокатн пропан проспал проспат простил простын разнообразн рефлекс сдалис "
    "системн скепсис соловк спаркс спирит стабилен стимулятор сульфат трахал форман цветет цеткин "
    "эрмитаж"
)


def _edit_limit(a: str, b: str) -> int:
    """How many edits still make ``a`` a spelling of ``b``: none under six letters, one up to
    nine, two from ten (at most a fifth of the longer word)."""
    if min(len(a), len(b)) < _FUZZY_MIN_LEN:
        return 0
    return 1 if max(len(a), len(b)) < 10 else 2


def _variant_distance(a: str, b: str) -> int | None:
    """Edits between two words if one is a plausible misspelling of the other, else None."""
    if a == b:
        return 0
    if a[:1] != b[:1] or not (_FUZZY_WORD.fullmatch(a) and _FUZZY_WORD.fullmatch(b)):
        return None
    if _script(a) != _script(b):
        return None
    limit = _edit_limit(a, b)
    if limit == 0 or abs(len(a) - len(b)) > limit:
        return None
    distance = _osa_distance()(a, b, limit)
    return distance if distance <= limit else None


@lru_cache(maxsize=1)
def _osa_distance() -> Callable[[str, str, int], int]:
    """Edit distance with adjacent transpositions (OSA), from rapidfuzz, imported on first use.

    Without rapidfuzz (a dependency layer built without it) the same distance comes from the
    small pure-Python version below: slower, never a crash of the write path."""
    try:
        from rapidfuzz.distance import OSA
    except ImportError:  # pragma: no cover - rapidfuzz is a declared dependency
        return osa_distance
    return lambda a, b, limit: OSA.distance(a, b, score_cutoff=limit)


def osa_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance, or ``limit + 1`` once it is known to exceed ``limit``."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return min(previous[-1], limit + 1)


@lru_cache(maxsize=1)
def _known_words() -> frozenset[str]:
    """Every one-word name of any kind in the table: a word the table knows is never a typo."""
    words = {p for p in _index(tuple(_table())).phrases if " " not in p}
    return frozenset(words | _COMMON_NEAR_NAMES)


@lru_cache(maxsize=32)
def _fuzzy_names(kinds: tuple[str, ...]) -> dict[tuple[str, str], dict[str, Entry]]:
    """One-word names of the fuzzy kinds, by (script, first letter); the first kind listed wins."""
    names: dict[tuple[str, str], dict[str, Entry]] = {}
    for phrase, entry in _index(kinds).phrases.items():
        if entry.kind in FUZZY_KINDS and len(phrase) >= _FUZZY_MIN_LEN and _FUZZY_WORD.fullmatch(phrase):
            names.setdefault((_script(phrase), phrase[0]), {}).setdefault(phrase, entry)
    return names


@lru_cache(maxsize=8192)
def _variant_of(kinds: tuple[str, ...], word: str) -> Entry | None:
    """The one table entity whose one-word name ``word`` (a stem) is a misspelling of, if any."""
    if len(word) < _FUZZY_MIN_LEN or not _FUZZY_WORD.fullmatch(word) or word in _known_words():
        return None
    best: Entry | None = None
    best_distance, tie = _FUZZY_MIN_LEN, False
    for phrase, entry in _fuzzy_names(kinds).get((_script(word), word[0]), {}).items():
        distance = _variant_distance(word, phrase)
        if distance is None or distance > best_distance:
            continue
        if distance < best_distance:
            best, best_distance, tie = entry, distance, False
        elif best is not None and entry.key != best.key:
            tie = True
    return None if tie else best


def _fuzzy_lookup(section: Section, text: str | None) -> Entry | None:
    kinds = kinds_for(section)
    if not text or not FUZZY_KINDS.intersection(kinds):
        return None
    terms = find_terms(kinds, text, fuzzy=True)
    return terms[0].entry if terms else None


def _content_words(section: Section, text: str) -> list[str]:
    """Stemmed words that name the thing: dose and form words (and numbers) say nothing for drugs."""
    words = [t for _, _, t in _tokens(text)]
    if section is Section.MEDICATIONS:
        words = [w for w in words if w not in _DRUG_NOISE_STEMS and not w[:1].isdigit()]
    return words


def _split_key(key: str) -> tuple[str, list[str]]:
    """Family-history keys keep their relative apart: "mother:type_2_diabetes" -> ("mother", [...])."""
    prefix, _, rest = key.rpartition(":")
    return prefix, [w for w in re.split(r"[_+\s]+", fold_in_place(rest)) if w]


def _words_distance(a: list[str], b: list[str]) -> int | None:
    """Total edits if ``a`` is word for word a spelling of ``b`` (and not the same), else None."""
    if not a or len(a) != len(b):
        return None
    total = 0
    for x, y in zip(a, b, strict=True):
        distance = _variant_distance(x, y)
        if distance is None:
            return None
        total += distance
    return total or None


@lru_cache(maxsize=8)
def _table_keys(kinds: tuple[str, ...]) -> frozenset[str]:
    return frozenset(e.key for kind in kinds for e in _table().get(kind, []))


def closest_existing_key(
    section: Section | str, key: str, name: str, existing: Sequence[tuple[str, str]]
) -> str | None:
    """The stored key that the new candidate (``key``, ``name``) is a spelling variant of.

    ``existing`` holds the (key, name_normalized) of the user's stored facts in ``section``.
    Keys are compared word by word, then names (in the user's script, dose words left out for
    drugs), with the cutoffs of the table's fuzzy look-up. Two different table entities are
    never variants of each other, a key already stored needs no redirect (None), and two stored
    keys equally near give None: merging the wrong drug is worse than a duplicate."""
    section = Section(section)
    kinds = kinds_for(section)
    if not FUZZY_KINDS.intersection(kinds) or not key:
        return None
    if any(stored == key for stored, _ in existing):
        return None
    table_keys = _table_keys(kinds)
    prefix, words = _split_key(key)
    new_words = _content_words(section, name) if name else []
    best: dict[str, int] = {}
    for stored, stored_name in existing:
        stored_prefix, stored_words = _split_key(stored)
        if not stored or stored_prefix != prefix:
            continue
        if stored.rpartition(":")[2] in table_keys and key.rpartition(":")[2] in table_keys:
            continue  # two entities the table tells apart
        distances = [
            d
            for d in (
                _words_distance(words, stored_words),
                _words_distance(new_words, _content_words(section, stored_name or "")),
            )
            if d is not None
        ]
        if distances:
            best[stored] = min(distances)
    if not best:
        return None
    nearest = min(best.values())
    winners = [stored for stored, d in best.items() if d == nearest]
    return winners[0] if len(winners) == 1 else None


def lookup(section: Section | str, text: str) -> Entry | None:
    terms = find_terms(kinds_for(section), text)
    return terms[0].entry if terms else None


@lru_cache(maxsize=2048)
def is_known_term(text: str) -> bool:
    """True when the whole text is one entity the table knows ("пенициллин", "Энап", "астма")."""
    content = [t for t in _tokens(text) if t[2] not in _DRUG_NOISE_STEMS and not t[2].isdigit()]
    if not content and not CJK.search(text):
        return False
    terms = find_terms(_ALL_KINDS, text)
    covered = {i for t in terms for i, tok in enumerate(content) if t.start <= tok[0] and tok[1] <= t.end}
    return bool(terms) and len(covered) == len(content)


def _script(text: str) -> str:
    if CJK.search(text):
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
    words = [m.group(0) for m in _TOKEN.finditer(fold_in_place(text))]
    if section is Section.MEDICATIONS:
        words = [w for w in words if w not in _DRUG_NOISE and not w[:1].isdigit()]
    return words


@lru_cache(maxsize=4096)
def _normalize(section: Section, raw: str, hint: str | None) -> Normalized:
    lang = _script(raw or hint or "")
    for text in (raw, hint):
        entry = lookup(section, text) if text else None
        if entry is not None:
            if entry.kind == _SLOT_KIND:
                return Normalized(" ".join(fold_in_place(raw or hint or "").split()), entry.key, entry.code)
            return Normalized(entry.name(lang), entry.key, entry.code)
    near = _fuzzy_lookup(section, raw) or _fuzzy_lookup(section, hint)
    if near is not None:  # "amoxicilin", "метфармин": a spelling of a name the table knows
        return Normalized(near.name(lang), near.key, near.code)
    # A drug named only by its form ("сироп от кашля", "nasal spray", "眼药水") meets its other
    # languages under one key; a product named beside or instead of it ("氧氟沙星滴眼液", the
    # model's "Доктор Мом") is more specific and keeps its own name.
    form = find_terms(_DRUG_FORM, raw) if section is Section.MEDICATIONS and raw else ()
    if form and (form[0].start, form[0].end) == (0, len(raw)) and (not hint or find_terms(_DRUG_FORM, hint)):
        return Normalized(form[0].entry.name(lang), form[0].entry.key, form[0].entry.code)
    composed = _compose(section, raw) or _compose(section, hint)
    if composed is not None:
        return composed
    base = (hint or raw or "").strip()
    words = _plain_words(section, base) or [w for w in fold_in_place(base).split() if w]
    key = "_".join(stem(w) for w in words) or "unknown"
    return Normalized(" ".join(words) or fold_in_place(base), key[:120])


def normalize_name(section: Section | str, raw: str | None, hint: str | None = None) -> Normalized:
    """Table first (raw, then the model's hint), then a spelling variant of a table name (drugs,
    allergens, conditions), then body-site composition, then the stemmed fallback."""
    return _normalize(Section(section), (raw or "").strip(), (hint or "").strip() or None)
