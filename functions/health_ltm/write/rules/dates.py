"""Numbers said in words, and the dates and durations people use ("в прошлом году", "3 дня").

Every function takes the day the user spoke; nothing here reads a clock.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from .text import rx

_UNITS = (
    "ноль один два три четыре пять шесть семь восемь девять десять одиннадцать двенадцать тринадцать "
    "четырнадцать пятнадцать шестнадцать семнадцать восемнадцать девятнадцать",
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen",
)
_TENS = (
    "двадцать тридцать сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто",
    "twenty thirty forty fifty sixty seventy eighty ninety",
)
_CARDINALS = {
    **{word: n for text in _UNITS for n, word in enumerate(text.split())},
    **{word: 20 + 10 * n for text in _TENS for n, word in enumerate(text.split())},
    "одна": 1, "одно": 1, "одну": 1, "две": 2, "двух": 2, "трех": 3, "четырех": 4, "пяти": 5,
    "a": 1, "an": 1, "couple": 2, "few": 3,
}  # fmt: skip
_ORDINAL_STEMS = {
    "перв": 1,
    "втор": 2,
    "трет": 3,
    "четверт": 4,
    "пят": 5,
    "шест": 6,
    "седьм": 7,
    "восьм": 8,
    "девят": 9,
    "десят": 10,
}
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_ORDINAL_RU = (
    r"(?:перв|втор|трет|четверт|пят|шест|седьм|восьм|девят|десят)(?:ой|ый|ий|ая|ую|ое|ые|ьи|ья|ью|ье)"
)
_WORDS = "|".join(sorted((w for w in _CARDINALS if len(w) > 1), key=len, reverse=True))
# A number as people write it: digits, or words ("тридцать четыре", "thirty-four").
NUM = rf"(?:\d{{1,3}}(?:[.,]\d+)?|(?:{_WORDS})(?:[\s-](?:{_WORDS}))?)"
ORDINAL = (
    rf"(?:\d{{1,2}}-?(?:й|ой|ий|ый|th|nd|rd|st)?|{_ORDINAL_RU}|first|second|third|fourth|fifth|sixth|seventh)"
)

_MONTHS_RU = (
    "январ",
    "феврал",
    "март",
    "апрел",
    "ма",
    "июн",
    "июл",
    "август",
    "сентябр",
    "октябр",
    "ноябр",
    "декабр",
)
_MONTHS_EN = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_RU = (
    r"(?:января|январе|февраля|феврале|марта|марте|апреля|апреле|мая|мае|июня|июне|июля|июле|августа|августе"
    r"|сентября|сентябре|октября|октябре|ноября|ноябре|декабря|декабре)"
)
_MONTH_EN = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"


def parse_number(text: str) -> float | None:
    text = text.strip().lower().replace(",", ".")
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    m = re.fullmatch(r"(\d+)-?(?:й|ой|ий|ый|th|nd|rd|st)", text)
    if m:
        return float(m.group(1))
    total = 0
    for part in re.split(r"[\s-]+", text):
        if part in _CARDINALS:
            total += _CARDINALS[part]
        elif part in _ORDINALS_EN:
            total += _ORDINALS_EN[part]
        elif (stem := next((s for s in _ORDINAL_STEMS if part.startswith(s)), None)) and re.fullmatch(
            _ORDINAL_RU, part
        ):
            total += _ORDINAL_STEMS[stem]
        else:
            return None
    return float(total)


def _month(word: str) -> int:
    word = word.lower()
    for i, prefix in enumerate(_MONTHS_RU):
        if word.startswith(prefix) and (prefix != "ма" or word in ("мая", "мае", "май")):
            return i + 1
    for i, prefix in enumerate(_MONTHS_EN):
        if word.startswith(prefix):
            return i + 1
    raise ValueError(word)  # only called on words the month patterns matched


def _past_month(today: date, month: int) -> str:
    """'In October': this year if October has come, else last year (people report the past)."""
    year = today.year if month <= today.month else today.year - 1
    return f"{year:04d}-{month:02d}"


def _months_back(today: date, n: int) -> str:
    index = today.year * 12 + today.month - 1 - n
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th|-?(?:го|е))?"
_DATE_RULES: list[tuple[re.Pattern[str], str]] = [
    # a whole date: "2026-11-25", "25.11.2026", "11/25/2026", "25 ноября 2026", "November 25th, 2026"
    (rx(r"\b(?P<y>(?:19|20)\d\d)-(?P<mo>[01]?\d)-(?P<d>[0-3]?\d)\b"), "day"),
    (rx(r"\b(?P<d>[0-3]?\d)[./](?P<mo>[01]?\d)[./](?P<y>(?:19|20)\d\d)\b"), "day"),
    (rx(rf"\b{_DAY}\s+(?:of\s+)?(?P<m>{_MONTH_RU}|{_MONTH_EN})(?:,?\s+(?P<y>(?:19|20)\d\d))?\b"), "day"),
    (
        rx(
            rf"\b(?P<m>{_MONTH_EN})\s+{_DAY}\b(?!\s*(?:mg|kg|lbs?|years?|days?|weeks?|%))(?:,?\s+(?P<y>(?:19|20)\d\d))?"
        ),
        "day",
    ),
    (
        rx(rf"\b(?:в\s+|с\s+|in\s+|since\s+)?(?P<m>{_MONTH_RU}|{_MONTH_EN})\s+(?P<y>19\d\d|20\d\d)\b"),
        "month_year",
    ),
    (
        rx(
            r"\b(?:в|с|до|к|in|since|from|by|until|of)\s+(?P<y>19\d\d"
            r"|20\d\d)\b(?!\s*(?:мг|mg|мкг|ед|ме|iu|ml|мл))|\b(?P<y2>19\d\d|20\d\d)\s*(?:году|год|года|г\.)"
        ),
        "year",
    ),
    (rx(rf"\b(?:в|с|in|since|last|this)\s+(?P<m>{_MONTH_RU}|{_MONTH_EN})\b"), "month"),
    (rx(r"\bв\s+позапрошлом\s+году\b|\bthe\s+year\s+before\s+last\b"), "year-2"),
    (rx(r"\bв\s+прошлом\s+году\b|\blast\s+year\b|\bпрошлым\s+(?:летом|зимой|осенью|весной)\b"), "year-1"),
    (rx(r"\bв\s+этом\s+году\b|\bthis\s+year\b|\bэтим\s+(?:летом|зимой|осенью|весной)\b"), "year-0"),
    (rx(rf"\b(?P<n>{NUM})?\s*(?:год|года|лет|years?)\s+(?:назад|ago)\b"), "years_ago"),
    (rx(r"\bполгода\s+назад\b|\bhalf\s+a\s+year\s+ago\b|\bsix\s+months\s+ago\b"), "half_year_ago"),
    (rx(rf"\b(?P<n>{NUM})?\s*(?:месяц|месяца|месяцев|months?)\s+(?:назад|ago)\b"), "months_ago"),
    (rx(r"\bв\s+прошлом\s+месяце\b|\blast\s+month\b"), "months_ago"),
    (rx(rf"\b(?P<n>{NUM})?\s*(?:неделю|недели|недель|weeks?)\s+(?:назад|ago)\b"), "weeks_ago"),
    (rx(r"\bна\s+прошлой\s+неделе\b|\blast\s+week\b"), "weeks_ago"),
    (rx(rf"\b(?P<n>{NUM})\s*(?:день|дня|дней|days?)\s+(?:назад|ago)\b"), "days_ago"),
    (rx(r"\bпозавчера\b|\bthe\s+day\s+before\s+yesterday\b"), "day-2"),
    (rx(r"\bвчера\b|\byesterday\b"), "day-1"),
    (rx(r"\bсегодня\b|\btoday\b|\bthis\s+morning\b"), "day-0"),
]


def find_date(low: str, today: date | None) -> str | None:
    """The first date phrase in ``low`` as 'YYYY', 'YYYY-MM' or 'YYYY-MM-DD' (never in the future)."""
    if today is None:
        return None
    for pattern, kind in _DATE_RULES:
        m = pattern.search(low)
        if not m:
            continue
        groups = m.groupdict()
        n = int(parse_number(groups["n"]) or 1) if groups.get("n") else 1
        if kind == "day":
            day = _whole_date(groups, today)
            if day is None:
                continue
            return day
        if kind == "month_year":
            return f"{int(groups['y']):04d}-{_month(groups['m']):02d}"
        if kind == "year":
            year = int(groups["y"] or groups["y2"])
            if year > today.year:
                continue
            return f"{year:04d}"
        if kind == "month":
            return _past_month(today, _month(groups["m"]))
        if kind.startswith("year-"):
            return f"{today.year - int(kind[-1]):04d}"
        if kind == "years_ago":
            return f"{today.year - n:04d}"
        if kind == "half_year_ago":
            return _months_back(today, 6)
        if kind == "months_ago":
            return _months_back(today, n)
        days = {"weeks_ago": 7 * n, "days_ago": n}.get(kind)
        if days is None:
            days = int(kind[-1])
        return (today - timedelta(days=days)).isoformat()
    return None


def iso_day(year: int, month: int, day: int) -> str | None:
    """'YYYY-MM-DD', or None when no such day exists ("31.02")."""
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _whole_date(groups: dict[str, str | None], today: date) -> str | None:
    """The day a date phrase names; a day without a year is the last one that has come."""
    month_word, said_year = groups.get("m"), groups.get("y")
    day = int(groups.get("d") or 0)
    month = _month(month_word) if month_word else int(groups.get("mo") or 0)
    if month > 12 >= day and not month_word:
        day, month = month, day  # "11/25/2026": month first
    year = int(said_year) if said_year else today.year
    when = iso_day(year, month, day)
    if when is not None and when > today.isoformat() and not said_year:
        when = iso_day(year - 1, month, day)
    return when if when is not None and when <= today.isoformat() else None


_SINCE = rx(
    rf"\b(?:уже|already|for(?:\s+the\s+(?:past|last))?)\s+(?P<n>{NUM})?\s*(?P<u>год|года|лет|years?|месяц"
    rf"|месяца|месяцев|months?)\b|\b(?:с|since)\s+(?P<m>{_MONTH_RU}|{_MONTH_EN})\b"
)


def find_since(low: str, today: date | None) -> str | None:
    """Start of something ongoing: "с марта", "уже 3 года", "for 2 years", or any date phrase."""
    if today is None:
        return None
    m = _SINCE.search(low)
    if m and m.group("u"):
        n = int(parse_number(m.group("n")) or 1) if m.group("n") else 1
        if m.group("u").startswith(("мес", "month")):
            return _months_back(today, n)
        return f"{today.year - n:04d}"
    if m and m.group("m") and not re.search(r"(?:19|20)\d\d", low[m.end() : m.end() + 8]):
        return _past_month(today, _month(m.group("m")))
    return find_date(low, today)


_ONSET = [
    (rx(rf"\b(?P<n>{ORDINAL})\s+(?:день|сутки|day)\b"), 1),
    (
        rx(
            rf"\b(?:уже\s+|for\s+(?:the\s+(?:past|last)\s+)?|вот\s+уже\s+)?(?P<n>{NUM})\s+(?:день|дня|дней"
            rf"|суток|days?)\b"
        ),
        1,
    ),
    (rx(rf"\b(?P<n>{ORDINAL})\s+(?:неделю|week)\b"), 7),
    (rx(rf"\b(?:уже\s+|for\s+)?(?:(?P<n>{NUM})\s+)?(?:неделю|недели|недель|weeks?)\b"), 7),
    (rx(rf"\b(?:уже\s+|for\s+)?(?:(?P<n>{NUM})\s+)?(?:месяц|месяца|месяцев|months?)\b"), 30),
    (rx(r"\bпозавчера\b|\bс\s+позавчерашнего\b"), -2),
    (rx(r"\bсо?\s+вчера\w*|\bвчера\b|\bsince\s+yesterday\b|\byesterday\b|\bсо\s+вчерашнего\s+дня\b"), -1),
    (
        rx(
            r"\bс\s+утра\b|\bсегодня\b|\bс\s+сегодняшнего\b|\btoday\b|\bthis\s+morning\b"
            r"|\bsince\s+(?:this\s+)?morning\b"
        ),
        0,
    ),
]


def find_onset_days(low: str) -> int | None:
    """How many days ago a symptom began: "третий день" -> 3, "уже неделю" -> 7, "since yesterday" -> 1."""
    for pattern, unit in _ONSET:
        m = pattern.search(low)
        if not m:
            continue
        if unit <= 0:
            return -unit
        n = m.groupdict().get("n")
        value = parse_number(n) if n else 1
        if value is None:
            continue
        return int(value * unit)
    return None
