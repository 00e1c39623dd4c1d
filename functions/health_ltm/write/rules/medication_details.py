"""Dose, frequency, time of day, indication and route around one drug mention."""

from __future__ import annotations

import re

from ...domain.attributes import DoseUnit
from .text import Sentence, rx

DOSE = rx(
    r"(?<![\w.,])(?P<val>\d+(?:[.,]\d+)?|пол|половин\w*|half|одн[уа]|один|две|два|три|one|two"
    r"|three)\s*(?P<unit>мг|mg|миллиграмм\w*|мкг|mcg|µg|микрограмм\w*|мл|ml|миллилитр\w*|ед\b\.?|единиц\w*"
    r"|units?\b|iu\b|ме\b|капл\w*|drops?\b|таблет\w*|tablets?\b|pills?\b|капсул\w*|capsules?\b|пшик\w*"
    r"|вдох\w*|puffs?\b|г\b|гр\b|грамм\w*|g\b|%)"
)
# The new value said bare ("up to 100", "до 100", "加到100"): the unit is the one
# stored, or unsaid.
BARE_VALUE = rx(
    r"(?:\bto|\bдо|到)\s*(?P<val>\d+(?:[.,]\d+)?)(?!\d|[.,:]\d|\s*(?:%|лет|год|years?|kg|кг|lbs?|pounds|раз"
    r"|times|am|pm|час|hours?|o'clock|days?|дн|weeks?|недел|months?|месяц|岁|公斤|次|点|天))"
)
_UNIT_WORD = (
    r"(?:мг|mg|миллиграмм\w*|мкг|mcg|µg|микрограмм\w*|мл|ml|ед\b\.?|единиц\w*|units?\b|iu\b|ме\b"
    r"|таблет\w*|tablets?\b|pills?\b|капсул\w*|г\b|g\b)"
)
# A change said with both values ("bumped my synthroid up from 88 to 100 mcg", "подняли дозу с 50
# до 75 мкг"): the value after "to" / "до" is the dose now; the unit said with either one.
FROM_TO = rx(
    rf"(?:\bfrom|\bсо?)\s+(?P<old>\d+(?:[.,]\d+)?)\s*(?P<old_unit>{_UNIT_WORD})?\s*(?:(?:up|down|all\s+the\s+way)\s+)?"
    rf"(?:\bto|\bдо|->|→)\s*(?P<val>\d+(?:[.,]\d+)?)(?![\d.,]*\s*(?:%|лет|год|years?|kg|кг|lbs?|раз|times))"
    rf"\s*(?P<unit>{_UNIT_WORD})?"
)
_UNITS = [
    (("мкг", "mcg", "µg", "микрограмм"), DoseUnit.MCG),
    (("мг", "mg", "миллиграмм"), DoseUnit.MG),
    (("мл", "ml", "миллилитр"), DoseUnit.ML),
    (("ед", "единиц", "unit"), DoseUnit.UNITS),
    (("iu", "ме"), DoseUnit.IU),
    (("капл", "drop"), DoseUnit.DROPS),
    (("таблет", "tablet", "pill", "капсул", "capsul"), DoseUnit.TABLETS),
    (("пшик", "вдох", "puff"), DoseUnit.PUFFS),
    (("г", "гр", "грамм", "g"), DoseUnit.G),
    (("%",), DoseUnit.PERCENT),
]
_WORD_VALUES = {
    "пол": 0.5,
    "half": 0.5,
    "одну": 1,
    "одна": 1,
    "один": 1,
    "one": 1,
    "две": 2,
    "два": 2,
    "two": 2,
    "три": 3,
    "three": 3,
}
_ON_DEMAND = (
    r"\bпо\s+(?:необходимости|требованию)\b|\bпри\s+необходимости\b|\bas\s+needed\b|\bwhen\s+needed\b"
    # "only when i need it", "когда нужно", "если прихватит": used on demand
    r"|\b(?:only\s+)?(?:when|if|whenever)\s+(?:i\s+)?(?:really\s+)?need(?:ed)?\s+(?:it|them|one|to)(?=\s*(?:$|[,.;!?)]))"
    r"|\b(?:когда|если)\s+(?:очень\s+)?(?:нужно|надо|прихватит|прижмет|прижмёт)\b|\bпо\s+надобности\b"
)
# Said after the drug as a clause of its own ("albuterol, only when i need it"): the clause and
# list scopes end at "when", so the last drug of the sentence takes it from there.
_ON_DEMAND_AFTER = rx(_ON_DEMAND)
_FREQUENCY = [
    (
        rx(
            r"\b(?:2|два|две)\s+раза\s+в\s+(?:день|сутки)\b|\bдважды\s+в\s+(?:день|сутки)\b"
            r"|\btwice\s+(?:a|per)\s+day\b|\btwice\s+daily\b|\bbid\b"
        ),
        "twice daily",
    ),
    (
        rx(
            r"\b(?:3|три)\s+раза\s+в\s+(?:день|сутки)\b|\bтрижды\s+в\s+день\b"
            r"|\bthree\s+times\s+(?:a|per)\s+day\b|\btid\b"
        ),
        "three times daily",
    ),
    (
        rx(r"\b(?:4|четыре)\s+раза\s+в\s+(?:день|сутки)\b|\bfour\s+times\s+(?:a|per)\s+day\b"),
        "four times daily",
    ),
    (rx(r"\bчерез\s+день\b|\bevery\s+other\s+day\b"), "every other day"),
    (rx(r"\bраз\s+в\s+неделю\b|\bеженедельно\b|\bonce\s+a\s+week\b|\bweekly\b"), "weekly"),
    (
        rx(
            r"\b(?:1\s+|один\s+)?раз\s+в\s+(?:день|сутки)\b|\bежедневно\b|\bкаждый\s+день\b"
            r"|\bonce\s+(?:a|per)\s+day\b|\bonce\s+daily\b|\bdaily\b|\bevery\s+day\b"
        ),
        "once daily",
    ),
    (
        rx(_ON_DEMAND + r"|\bprn\b|\bиногда\b|\bsometimes\b|\boccasionally\b"),
        "as needed",
    ),
]
_TIME = [
    (
        rx(
            r"\bпо\s+утрам\b|\bутром\b|\bс\s+утра\b|\bin\s+the\s+mornings?\b|\bevery\s+morning\b|\bmornings\b"
            r"|\b(?:in\s+the|every)\s+am\b"
        ),
        "morning",
    ),
    (rx(r"\bв\s+обед\b|\bднем\b|\bat\s+(?:noon|lunch(?:time)?)\b|\bmidday\b"), "midday"),
    (
        rx(
            r"\bпо\s+вечерам\b|\bвечером\b|\bin\s+the\s+evenings?\b|\bevery\s+evening\b|\b(?:in\s+the|every)\s+pm\b"
        ),
        "evening",
    ),
    (rx(r"\bна\s+ночь\b|\bперед\s+сном\b|\bat\s+(?:night|bedtime)\b|\bbefore\s+bed\b"), "bedtime"),
]
_INDICATION_PHRASE = rx(
    r"\b(?:от|для|при|против)\s+(?P<ru>(?:[а-я-]+\s+){0,2}[а-я-]+)"
    r"|\bfor\s+(?:my\s+|the\s+)?(?P<en>(?:[a-z-]+\s+){0,2}[a-z-]+)"
)
_INDICATIONS = [
    (rx(r"давлен|гипертон|гипертенз|blood\s+pressure|\bbp\b|hypertension"), "blood pressure"),
    (rx(r"мигрен|migraine"), "migraine"),
    (rx(r"голов|headache"), "headache"),
    (rx(r"сердц|сердечн|heart"), "heart"),
    (rx(r"изжог|рефлюкс|heartburn|reflux"), "heartburn"),
    (rx(r"желуд|живот|гастрит|stomach|gastritis"), "stomach"),
    (rx(r"аллерг|allerg"), "allergy"),
    (rx(r"диабет|сахар|diabet|sugar"), "diabetes"),
    (rx(r"холестерин|cholesterol"), "cholesterol"),
    (rx(r"щитовид|thyroid"), "thyroid"),
    (rx(r"тревог|нерв|anxiety|nerves"), "anxiety"),
    (rx(r"депресс|depress"), "depression"),
    (rx(r"\bсна\b|\bсон\b|бессонниц|sleep|insomnia"), "sleep"),
    (rx(r"температур|\bжар|fever"), "fever"),
    (rx(r"простуд|орви|грипп|\bcolds?\b|\bflu\b"), "cold or flu"),
    (rx(r"кашл|cough"), "cough"),
    (rx(r"сустав|артрит|артроз|joint|arthrit"), "joint pain"),
    (rx(r"спин|поясниц|\bback\b"), "back pain"),
    (rx(r"разжижен|тромб|сгуст|clot|blood\s+thin"), "blood clots"),
    (rx(r"астм|asthma"), "asthma"),
    (rx(r"профилакт|prevent"), "prevention"),
    (rx(r"\bбол|\bpain"), "pain"),
]
ROUTES = [
    (rx(r"\bколю\b|\bколол|уколы?\b|инъекц|\binject|\bshots?\b"), "injection"),
    (rx(r"в\s+глаз|глазн\w*\s+капл|eye\s+drops?"), "ophthalmic"),
    (rx(r"в\s+нос\b|назальн|\bnasal\b|nose\s+spray"), "nasal"),
    (rx(r"ингалят|ингаля|пшика|\binhal|\bpuffs?\b"), "inhalation"),
    (rx(r"\bмажу\b|\bмазь|\bгель\b|\bкрем\b|\bcream\b|ointment|\bgel\b"), "topical"),
    (rx(r"\bсвеч|suppositor"), "rectal"),
]


def _unit(word: str) -> DoseUnit | None:
    for prefixes, unit in _UNITS:
        if any(word == p or (len(p) > 2 and word.startswith(p)) for p in prefixes):
            return unit
    return None


def _dose_match(m: re.Match[str], low: str) -> tuple[float, DoseUnit] | None:
    raw, unit = m.group("val"), _unit(m.group("unit").rstrip("."))
    if unit is None:
        return None
    if unit is DoseUnit.G and re.fullmatch(r"(?:19|20)\d\d", raw):
        return None  # "с 2019 г." is a year
    value = _WORD_VALUES.get(raw[:3] if raw.startswith("половин") else raw)
    value = (
        value if value is not None else (0.5 if raw.startswith("половин") else float(raw.replace(",", ".")))
    )
    return (value, unit) if 0 < value < 100_000 else None


def dose_from_to(low: str, start: int, end: int) -> tuple[float, DoseUnit | None, int] | None:
    """The new value of a "from X to Y" change said in ``low[start:end]``, its unit (else None) and
    where it ends."""
    m = FROM_TO.search(low, start, end)
    if m is None:
        return None
    value = float(m.group("val").replace(",", "."))
    said = m.group("unit") or m.group("old_unit")
    unit = _unit(said.rstrip(".")) if said else None
    return (value, unit, m.end()) if 0 < value < 100_000 else None


def dose_near(low: str, pos: int, limit: int = 14) -> re.Match[str] | None:
    """A dose starting within a few characters after ``pos`` ("Энап 5 мг", "Lipitor 20mg")."""
    m = DOSE.search(low, pos, min(len(low), pos + limit + 12))
    return m if m and m.start() - pos <= limit and _dose_match(m, low) else None


# What separates two drugs of a list ("эналаприл 5 мг и аторвастатин", "metformin, lisinopril").
_JOIN = rx(r"(?<!\d),|,(?!\d)|;|\s(?:и|а\s+также|плюс|and|plus|as\s+well\s+as|&)(?=\s)")  # not "2,5 мг"
_BARE_GAP = rx(r"\s*(?:,|;|и|а\s+также|плюс|and|plus|as\s+well\s+as|&)?\s*(?:,\s*)?(?:и|and)?\s*")


def _split(low: str, start: int, end: int) -> int:
    """Where the words between two drugs stop being the first drug's: after the last joiner
    ("2 раза в день и | аторвастатин"); without one, all of them are the first drug's."""
    joins = list(_JOIN.finditer(low, start, end))
    return joins[-1].end() if joins else end


def _scoped(scope: str) -> dict:
    """Frequency, time of day, indication and route said in ``scope``; "_indication_end" is where
    the indication phrase ends (relative to ``scope``)."""
    attributes: dict = {}
    for pattern, value in _FREQUENCY:
        if pattern.search(scope):
            attributes["frequency"] = value
            break
    times = [value for pattern, value in _TIME if pattern.search(scope)]
    if times:
        attributes["time_of_day"] = ", ".join(times)
    for m in _INDICATION_PHRASE.finditer(scope):
        phrase = m.group("ru") or m.group("en")
        indication = next((v for pattern, v in _INDICATIONS if pattern.search(phrase)), None)
        if indication:
            attributes["indication"] = indication
            attributes["_indication_end"] = m.end()
            break
    route = next((v for pattern, v in ROUTES if pattern.search(scope)), None)
    if route:
        attributes["route"] = route
    return attributes


_COMMA_GAP = rx(r"\s*[,:—–-]\s*")
_SHORT_TAIL_COMMA = rx(r"(?:\s+[^\W\d_][\w'-]*){1,4}\s*[,—–-]\s*")


# A number right after the name with no unit ("пью конкор 5", "sertraline 50 every morning"):
# the dose as said, unit unknown. Not a count, a duration, a frequency or part of a name
# ("омега 3": values under 5 need a decimal, "бисопролол 2,5").
_BARE_DOSE = rx(
    r"\s+(?P<n>\d+(?:[.,]\d+)?)(?=$|\s|[,.;!?)])(?!\s*(?:раз|р/д|р\.|x\b|х\b|times|таб|tab|pill|капс|caps|шт|дн|day"
    r"|недел|week|месяц|month|год|лет|year|час|hour|мин|min|%|мл|ml|мг|mg|мкг|mcg|г\b|g\b|ед|iu|units?|капел|drops"
    r"|штук|piece|кг|kg|см|cm|лет|годик))"
)


def bare_dose(low: str, end: int) -> tuple[float, int] | None:
    """A unit-less dose said right after a drug name ending at ``end``, and where it ends."""
    m = _BARE_DOSE.match(low, end)
    if not m:
        return None
    text = m.group("n").replace(",", ".")
    value = float(text)
    if (value < 5 and "." not in text) or value <= 0 or value > 5000:
        return None
    return value, m.end()


def details(s: Sentence, a: int, b: int, next_start: int, prev_end: int) -> tuple[dict, int]:
    """Attributes for the drug at [a, b): dose after it (else just before it), and the frequency,
    time of day, indication and route said for it. Returns them and the last position used.

    In a list, what stands between two drugs belongs to the one before it, up to the last joiner
    ("Пью эналаприл 2 раза в день и аторвастатин": only enalapril is twice daily); what leads
    or closes a bare list ("Утром пью эналаприл и аторвастатин", "metformin and lisinopril twice
    a day") is said of every drug in it."""
    clause_start, clause_end = s.clause(a)
    list_end = s.list_end(b)
    has_next = b < next_start <= list_end
    has_prev = clause_start < prev_end <= a
    window_end = next_start if has_next else list_end
    own_start = _split(s.low, prev_end, a) if has_prev else min(clause_start, a)
    own_end = _split(s.low, b, next_start) if has_next else max(window_end, clause_end)
    attributes: dict = {}
    last = b
    for window in ((b, own_end), (own_start, a)):
        found = next(((m, d) for m in DOSE.finditer(s.low, *window) if (d := _dose_match(m, s.low))), None)
        if found:
            m, (amount, unit) = found
            attributes.update(dose_value=amount, dose_unit=unit.value)
            last = max(last, m.end())
            break
    if "dose_value" not in attributes:
        # "Uloric, 40 mg a day": the dose set off by a comma right after the name is still its own
        near = dose_near(s.low, b, limit=3)
        dose = _dose_match(near, s.low) if near and _COMMA_GAP.fullmatch(s.low, b, near.start()) else None
        if near and dose:
            attributes.update(dose_value=dose[0], dose_unit=dose[1].value)
            last = max(last, near.end())
    if "dose_value" not in attributes:
        # "put me on sertraline last month, 50mg": a few words (a time) and a comma, then the dose
        comma = _SHORT_TAIL_COMMA.match(s.low, b)
        near = dose_near(s.low, comma.end(), limit=1) if comma else None
        dose = _dose_match(near, s.low) if near and near.start() < next_start else None
        if near and dose:
            attributes.update(dose_value=dose[0], dose_unit=dose[1].value)
            last = max(last, near.end())
    if "dose_value" not in attributes and (bare := bare_dose(s.low, b)):
        attributes["dose_value"] = bare[0]
        last = max(last, bare[1])
    said = _scoped(s.low[own_start:own_end])
    if "_indication_end" in said:
        last = max(last, own_start + said.pop("_indication_end"))
    bare_before = has_prev and bool(_BARE_GAP.fullmatch(s.low, prev_end, a))
    bare_after = has_next and bool(_BARE_GAP.fullmatch(s.low, b, next_start))
    shared = _shared(s, a, b, clause_start, max(window_end, clause_end)) if bare_before or bare_after else {}
    shared.pop("_indication_end", None)
    late = _ON_DEMAND_AFTER.search(s.low, own_end) if next_start >= len(s.text) else None
    if late and len(s.low[own_end : late.start()].split()) > 2:
        late = None  # ", пользуюсь когда нужно" is about the drug; a later clause is about something else
    if late and "frequency" not in said and "frequency" not in shared:
        said["frequency"] = "as needed"
        last = max(last, late.end())
    return {**attributes, **shared, **said}, last


def _shared(s: Sentence, a: int, b: int, clause_start: int, end: int) -> dict:
    """What the lead or the tail of a bare list ("A и B", "A, B and C") says of all its drugs."""
    from ..normalize import find_terms  # the api's cold start imports this module, not the table

    # a drug named by its form ("капли в нос", rules/medications.py) is an item of the list too
    named = (*find_terms(("drug",), s.text, fuzzy=True), *find_terms(("drug_form",), s.text))
    spans = sorted({(t.start, t.end) for t in named} | {(a, b)})
    chain = [(a, b)]
    index = spans.index((a, b))
    for step in (-1, 1):  # walk the bare list both ways
        i = index
        while 0 <= i + step < len(spans):
            x, y = sorted((spans[i], spans[i + step]))
            if x[1] > y[0] or not _BARE_GAP.fullmatch(s.low, x[1], y[0]) or y[0] < clause_start:
                break
            i += step
            chain.append(spans[i])
    chain.sort()
    # the lead is the words before the clause's first drug, and only a run starting there shares it
    first = chain[0][0]
    leads = first > clause_start and not any(clause_start <= t < first for t, _ in spans)
    lead = _scoped(s.low[clause_start:first]) if leads else {}
    tail_end = min(end, next(iter(t for t, _ in spans if t > chain[-1][1]), end))
    tail = _scoped(s.low[chain[-1][1] : tail_end]) if len(chain) > 1 else {}
    return {**lead, **tail}
