"""Symptoms: table mentions ("болит голова", "кашель") and pains by body site ("болит колено")."""

from __future__ import annotations

import re
from datetime import timedelta

from ...domain.sections import FactStatus, Section
from ..normalize import find_terms, normalize_name
from .dates import find_onset_days
from .text import Context, Draft, Sentence, hypothetical, negated, personal, rx, third_party_before

SECTIONS = frozenset({Section.SYMPTOMS})

# Colloquial and misspelt pain words ("живот крутит", "knee's killing me", "when my back acts up",
# "голова балит"): the site's pain, said in words the table and the name composer do not know.
_COLLOQUIAL_PAIN = (
    r"\b(?:балит|балят|балела|балело|крутит|крутило|скручивает|скрутило|колет|кололо|режет|резало"
    r"|стреляет|прихватило|прихватывает|разламывается|раскалывается"
    r"|killing\s+me|acts?\s+up|acting\s+up|act(?:ed)?\s+up|playing\s+up|flares?\s+up|flaring\s+up|throbbing"
    r"|throbs|(?:is|are|been|keeps|kept)\s+bothering\s+me|giving\s+me\s+(?:trouble|grief|hell))\b"
)
_PAIN = rx(
    r"\b(?:боль|боли|болит|болят|болела|болело|болел|болели|ноет|ноют|ломит|pain|hurts?|aches?|aching|sore)\b"
    r"|" + r"(?P<colloquial>" + _COLLOQUIAL_PAIN + ")"
)
# Impersonal or first-person wording makes it the user's own symptom even without "я".
_SELF_WORDING = rx(
    r"\b(?:болит|болят|болела|болело|балит|балят|крутит|скручивает|колет|режет|тошнит|подташнивает|знобит"
    r"|кружится|кашляю|чихаю|температурю|задыхаюсь"
    r"|беспокоит|беспокоят|мучает|мучают|появил\w*|началась?|начался|началось"
    # "кашель сухой замучил", "the cough is driving me nuts": suffering said of the symptom itself
    r"|замучил\w*|измучил\w*|достал[аио]?|одолел[аио]?|задолбал\w*|driving\s+me\s+(?:crazy|nuts|mad)"
    r"|keeps?\s+me\s+up|won'?t\s+(?:go\s+away|quit|let\s+up))\b"
    # a pseudo-negation with no subject is the speaker's: "can't stop sneezing", "не могу перестать чихать"
    r"|\b(?:can'?t|cannot|can\s+not)\s+stop\b|\bне\s+могу\s+(?:перестать|остановиться)\b|\bне\s+перестаю\b"
)
_INDICATION_BEFORE = rx(r"\b(?:от|для|при|против|for|against)\s+(?:my\s+|the\s+|этой\s+|сильной\s+)?$")
# "still tired all the time", "постоянно слабость": the clause opens with the symptom after an
# adverb of how long or how much, no subject of its own: the speaker's ("I'm" left unsaid).
_UNSAID_I = rx(
    r"\W*(?:(?:still|always|constantly|so|really|very|super|kinda|kind\s+of|pretty|feeling|feel|getting|again"
    r"|всё\s+ещё|все\s+еще|до\s+сих\s+пор|постоянно|опять|снова|всё\s+время|все\s+время|вечно)\s+)+"
)
# What kind of cough ("кашель с мокротой", "сухой кашель", "a dry hacking cough"): charted with it.
_KIND_BEFORE = rx(r"(?:(?:сухой|влажный|мокрый|лающий|dry|wet|hacking|chesty|productive|barking)\s+)+$")
_KIND_AFTER = rx(
    r"(?:\s*,?\s*(?:(?:у\s+меня\s+)?(?:с\s+мокротой|сухой|влажный|мокрый|лающий)|with\s+(?:phlegm|mucus|sputum)"
    r"|(?:dry|wet|productive)(?=\s*(?:$|[,.;!?]))))+"
)
_HAS_KINDS = frozenset({"cough"})
_RESOLVED = rx(
    r"\bпрош(?:ла|ел|ло|ли)\b|\bбольше\s+не\b|\bуже\s+не\b|\bспала\b|\bнормализовал\w*|\bgone\b"
    r"|\bwent\s+away\b|\bresolved\b|\bno\s+longer\b|\bstopped\b|\bnot\s+anymore\b|\bany\s?more\b|\bused\s+to\b"
)
_SEVERITY = [
    (
        rx(
            r"\b(?:сильн\w*|очень\s+сильно|ужасн\w*|невыносим\w*|жутк\w*|адск\w*|severe|terrible|awful"
            r"|excruciating|really\s+bad|unbearable)\b"
        ),
        "severe",
    ),
    (rx(r"\b(?:умеренн\w*|moderate\w*)\b"), "moderate"),
    (rx(r"\b(?:немного|слегка|чуть|небольш\w*|легк\w*|mild\w*|slight\w*|a\s+bit|a\s+little)\b"), "mild"),
]


_ALLERGY_CONTEXT = rx(r"аллерг|allerg")  # "allergic to X, I get hives" describes a reaction
# Symptoms said as a verb ("не могу перестать кашлять", "меня тошнит"): the table holds nouns.
_VERB_SYMPTOMS = [
    (rx(r"\bкашля\w*|\bпокашлива\w*|\bcoughing\b"), "кашель", "cough"),
    (rx(r"\bтошнит\b|\bподташнивает\b|\bnauseous\b"), "тошнота", "nausea"),
    (rx(r"\bчиха(?:ть|ю)\b|\bрасчихал\w*"), "чихание", "sneezing"),
    (rx(r"\bзнобит\b|\bshivering\b"), "озноб", "chills"),
    (
        rx(r"\bне\s+могу\s+(?:уснуть|заснуть|спать)\b|\bcan'?t\s+sleep\b|\bcannot\s+sleep\b"),
        "бессонница",
        "insomnia",
    ),
    (rx(r"\bкружится\s+голова\b|\bголова\s+кружится\b"), "головокружение", "dizziness"),
]


_REACTION_KEYS = frozenset({"rash", "itching", "swelling", "shortness_of_breath"})


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    if _ALLERGY_CONTEXT.search(s.low):
        return []
    # A condition wins over a symptom phrase inside it ("anxiety" in "anxiety disorder").
    conditions = find_terms(("condition",), s.text)
    mentions = [
        (t.start, t.end)
        for t in find_terms(("symptom",), s.text)
        if not any(
            c.start <= t.start and t.end <= c.end and c.end - c.start > t.end - t.start for c in conditions
        )
    ]
    site_pains = _site_pains(s, mentions)
    mentions += list(site_pains)
    verbs = {span: said for span, said in site_pains.items() if said}
    for pattern, ru, en in _VERB_SYMPTOMS:
        for m in pattern.finditer(s.low):
            if not any(a <= m.start() < b for a, b in mentions):
                mentions.append((m.start(), m.end()))
                verbs[(m.start(), m.end())] = ru if re.search(r"[а-я]", m.group(0)) else en
    drafts: list[Draft] = []
    seen: set[str] = set()
    for a, b in sorted(mentions):
        if third_party_before(s, a) or hypothetical(s, a) or _INDICATION_BEFORE.search(s.low[:a]):
            continue
        start, end = s.clause(a)
        clause = s.low[start:end]
        onset = find_onset_days(clause)
        said_as_verb = (a, b) in verbs  # "не могу перестать кашлять": the verb's person is the user
        answering = Section.SYMPTOMS in ctx.asked  # "What brings you in?" / "knee pain"
        said_by_user = (
            personal(s, a)
            or _SELF_WORDING.search(clause)
            or said_as_verb
            or answering
            or bool(_UNSAID_I.fullmatch(s.low, start, a))
        )
        # "понос прошёл", "the diarrhea stopped": an impersonal end of a symptom is the speaker's
        said_by_user = said_by_user or bool(_RESOLVED.search(clause))
        if not (said_by_user or onset is not None):
            continue
        name = s.text[a:b]
        normalized = normalize_name(Section.SYMPTOMS, verbs.get((a, b), name))
        if normalized.key in _HAS_KINDS:
            kind_before = _KIND_BEFORE.search(s.low, start, a)
            kind_after = _KIND_AFTER.match(s.low, b, end)
            if kind_before or kind_after:  # the table's name stays the hint: still the same key
                a, b = kind_before.start() if kind_before else a, kind_after.end() if kind_after else b
                name = s.text[a:b].strip(" ,")
                normalized = normalize_name(Section.SYMPTOMS, name, normalized.name_normalized)
        if normalized.key in seen or (Section.ALLERGIES in ctx.asked and normalized.key in _REACTION_KEYS):
            continue  # the reaction of an allergy the user is describing, not a symptom now
        seen.add(normalized.key)
        reading = _degrees(s.low, b, end) if normalized.key == "fever" else None
        if reading is not None and reading < 37.0:
            status = FactStatus.ABSENT  # "температура 36.6": a normal reading, no fever
        elif _RESOLVED.search(clause):
            status = FactStatus.RESOLVED
        elif negated(s, a, b) or ((a, b) in site_pains and _INNER_NEGATION.search(s.low, a, b)):
            status = FactStatus.ABSENT  # "живот не болит", "my knee doesn't hurt": the site before the no
        else:
            status = FactStatus.PRESENT
        attributes: dict = {}
        if status is FactStatus.PRESENT:
            severity = next((v for pattern, v in _SEVERITY if pattern.search(clause)), None)
            if severity:
                attributes["severity"] = severity
            if onset is not None:
                attributes["onset_days_ago"] = onset
        site = find_terms(("body_site",), name)
        if site and normalized.key.endswith("_pain"):
            attributes["body_site"] = site[0].entry.key
        valid_from = None
        if onset is not None and ctx.today is not None and status is FactStatus.PRESENT:
            valid_from = (ctx.today - timedelta(days=onset)).isoformat()
        drafts.append(
            Draft(
                Section.SYMPTOMS,
                s.evidence(a, b),
                name=name,
                hint=normalized.name_normalized,
                status=status,
                attributes=attributes,
                valid_from=valid_from,
            )
        )
    return drafts


_INNER_NEGATION = rx(r"\b(?:не|нет|not|no)\b|n't\b")
_DEGREES = rx(r"\A\D{0,12}?(?<![\d.,])(?P<t>\d{2,3}(?:[.,]\d{1,2})?)(?![\d.,]*\s*(?:mg|мг|%))")


def _degrees(low: str, after: int, clause_end: int) -> float | None:
    """The reading right after a temperature word ("темпиратура 37.5", "fever of 101"), in Celsius."""
    m = _DEGREES.search(low[after:clause_end])
    if m is None:
        return None
    value = float(m.group("t").replace(",", "."))
    if 34.0 <= value <= 43.0:
        return value
    if 93.0 <= value <= 110.0:  # Fahrenheit
        return round((value - 32) * 5 / 9, 1)
    return None


def _site_pains(s: Sentence, known: list[tuple[int, int]]) -> dict[tuple[int, int], str | None]:
    """A pain word and a body site in one clause, where the table had no ready phrase; a colloquial
    or misspelt pain word ("живот крутит", "knee's killing me") comes with the plain phrase for it."""
    found: dict[tuple[int, int], str | None] = {}
    for pain in _PAIN.finditer(s.low):
        if any(a <= pain.start() < b for a, b in known):
            continue
        start, end = s.clause(pain.start())
        sites = [t for t in find_terms(("body_site",), s.text[start:end])]
        if not sites:
            continue
        site = min(sites, key=lambda t: abs(start + t.start - pain.start()))
        a, b = min(pain.start(), start + site.start), max(pain.end(), start + site.end)
        if b - a <= 40:
            plain = None
            if pain.group("colloquial"):
                word = s.text[start + site.start : start + site.end]
                plain = f"{word} болит" if re.search(r"[а-яё]", word.lower()) else f"{word} pain"
            found[(a, b)] = plain
    return found
