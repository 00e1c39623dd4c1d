"""Demographics: age (as a birth year), sex, height, weight, city, pregnancy."""

from __future__ import annotations

import re
from datetime import timedelta

from ...domain.models import EvidenceKind
from ...domain.sections import FactStatus, Section
from ..normalize import word_set
from .cities import city_nominative
from .dates import NUM, parse_number
from .objects import _FUNCTION_WORDS as FUNCTION_WORDS
from .text import Context, Draft, Sentence, hypothetical, rx, third_party_before

SECTIONS = frozenset({Section.DEMOGRAPHICS})

_NOT_AGE_UNIT = (
    r"(?!\s*(?:%|кг|мг|mg|kg|см|cm|раз|минут|час|дн|недел|месяц|мес|weeks?|days?|months?|minutes?|hours?"
    r"|times|lbs?|pounds|ft|feet|'|\"|таблет|штук|лет\s+назад|года\s+назад))"
)
_END_RU = r"(?=\s*$|\s*[,.;!?)]|\s+(?:и|а|но|уже|скоро|год|года|лет)\b)"  # "мне 30" but not "мне 30 таблеток"
_END_EN = r"(?=\s*$|\s*[,.;!?)]|\s+(?:and|but|years?|yrs?|y/?o|now|already)\b)"
_AGE = [
    # a corrected age: "мне не 40, а 45 лет", "I'm not 40, I'm 45", "I'm 45, not 40"
    rx(rf"\bмне\s+не\s+{NUM}\s*(?:год|года|лет)?\s*,?\s*а\s+(?P<age>(?P<n>{NUM})(?:\s+(?:год|года|лет)\b)?)"),
    rx(rf"\b(?:i'm|i\s+am|im)\s+not\s+{NUM}\s*,?\s*(?:i'm|i\s+am|im)\s+(?P<age>(?P<n>{NUM}))\b"),
    rx(rf"\b(?:i'm|i\s+am|im)\s+(?P<age>(?P<n>{NUM}))\s*,?\s*not\s+{NUM}\b"),
    rx(
        r"\bмне\s+(?:уже\s+|только\s+|почти\s+|скоро\s+|исполнилось\s+|всего\s+|ровно\s+)?"
        rf"(?P<age>(?P<n>{NUM})(?:\s+(?:год|года|лет)\b)?){_NOT_AGE_UNIT}{_END_RU}"
    ),
    rx(rf"\b(?:мой\s+)?возраст\s*[:—-]?\s*(?P<age>(?P<n>{NUM})(?:\s+(?:год|года|лет)\b)?)"),
    rx(rf"\bя\s+(?:женщина|мужчина|девушка|парень)\s*,?\s*(?P<age>(?P<n>{NUM})\s+(?:год|года|лет)\b)"),
    rx(
        r"\b(?:i'm|i\s+am|im)\s+(?:now\s+|already\s+|almost\s+|just\s+|actually\s+|really\s+)?"
        rf"(?P<age>(?P<n>{NUM})(?:\s*(?:years?|yrs?)(?:\s+old)?|\s*y/?o\b)?){_NOT_AGE_UNIT}{_END_EN}"
    ),
    rx(rf"\b(?:i\s+(?:just\s+)?turned|my\s+age\s+is|age\s*:)\s*(?P<age>(?P<n>{NUM}))\b"),
    # "I'm a 47-year-old man", "47-year-old female here", "34F, on sertraline", "47 yo male"
    rx(rf"\b(?:i'm|i\s+am|im)\s+an?\s+(?P<age>(?P<n>{NUM})[\s-]*(?:years?|yrs?)[\s-]*old)\b"),
    rx(rf"^\W*(?P<age>(?P<n>{NUM})[\s-]*(?:years?|yrs?)[\s-]*old)\b"),
    rx(r"^\W*(?P<age>(?P<n>\d{2}))\s*(?:yo|y/o)?\s*(?=[mf]\b|(?:fe)?male\b)"),
    rx(rf"^\s*(?P<age>(?P<n>{NUM})\s+(?:years?\s+old|лет|года)\b){_NOT_AGE_UNIT}(?!\s+назад)"),
    # "我今年32": this year's age with no 岁 (the Chinese rules read "32岁"); not "我爸今年61", "今年32周"
    rx(
        r"(?:^|(?<=[\s，,;；。]))(?:我|本人)今年(?:已经|都|才|刚|也)?(?P<age>(?P<n>\d{1,3}))(?:了|啦)?(?=\s*$|\s*[，。,.;；！!？?])"
    ),
]
_BIRTH_YEAR = rx(
    r"\b(?:родил(?:ся|ась)\s+в|born\s+in|год\s+рождения\s*[:—-]?|year\s+of\s+birth\s*[:—-]?)\s*(?P<y>(?:19|20)\d\d)"
    r"|\b(?P<y2>(?:19|20)\d\d)\s+(?:года?|г\.?)\s+рождения\b"
)
_AGED_SELF = r"\b(?:i'?m|i\s+am|мне)\s+\d{1,3}(?:\s+(?:years?\s+old|лет|года?))?\s*,\s*"
_SEX = [
    (
        rx(
            r"\bя\s+(?:—\s+)?(?:женщина|девушка|девочка|женского\s+пола)\b|\bпол\s*[:—-]?\s*(?:женский|ж)\b"
            r"|\b(?:i'm|i\s+am|im)\s+(?:a\s+)?(?:female|woman|girl|lady)\b"
            r"|\b\d{1,3}[\s-]*(?:(?:years?|yrs?)[\s-]*old|yo|y/o)[\s-]*(?:female|woman|girl|lady|f)\b|^\W*\d{2}\s*f\b"
            r"|\b(?:sex|gender)\s*[:—-]?\s*(?:female|f)\b"
            # "Мне 52 года, женщина.", "I'm 52, female", "женщина, 52 года"
            rf"|{_AGED_SELF}(?:a\s+)?(?:female|woman|женщина)\b|^\W*(?:female|woman|женщина)\s*,\s*\d{{1,3}}\b"
        ),
        "female",
    ),
    (
        rx(
            r"\bя\s+(?:—\s+)?(?:мужчина|парень|мальчик|мужского\s+пола)\b|\bпол\s*[:—-]?\s*(?:мужской|м)\b"
            r"|\b(?:i'm|i\s+am|im)\s+(?:a\s+)?(?:male|man|guy|boy)\b|\b(?:sex|gender)\s*[:—-]?\s*(?:male|m)\b"
            r"|\b\d{1,3}[\s-]*(?:(?:years?|yrs?)[\s-]*old|yo|y/o)[\s-]*(?:male|man|guy|boy|m)\b|^\W*\d{2}\s*m\b"
            rf"|{_AGED_SELF}(?:a\s+)?(?:male|man|мужчина)\b|^\W*(?:male|man|мужчина)\s*,\s*\d{{1,3}}\b"
        ),
        "male",
    ),
]
_HEIGHT = rx(
    r"\b(?:(?:мой\s+)?рост(?:ом)?|height|i'm|i\s+am)\s*(?:у\s+меня\s+)?(?:is\s+)?[:—-]?\s*"
    r"(?:около\s+|примерно\s+|about\s+)?"
    r"(?P<v>\d(?:[.,]\d{1,2})|\d{3}|\d'\s*\d{1,2}\"?|\d\s*(?:ft|feet|foot)\s*\d{0,2}\s*(?:in|inches)?)"
    r"\s*(?P<u>см|cm|сантиметр\w*|м\b|метр\w*|m\b)?(?:\s+tall)?"
)
_WEIGHT = rx(
    r"\b(?:вешу|мой\s+вес|вес|weigh|weight\s+is|my\s+weight|похудел[аи]?\s+до|поправил(?:ся|ась)\s+до)"
    r"\s*(?:у\s+меня\s+)?(?:[:—-]\s*)?(?:около\s+|примерно\s+|about\s+|around\s+)?"
    r"(?P<v>\d{2,3}(?:[.,]\d)?)\s*(?P<u>кг|кило\w*|kg|kilos?|lbs?|pounds)?"
)
# "I'm 34, 170 cm and about 65 kg": a measure with its unit in a sentence about oneself, no verb
_BARE_HEIGHT = rx(r"(?<![\w.,])(?P<v>1\d{2}|2[0-4]\d)\s*(?P<u>cm|см|厘米)(?!\w)")
_BARE_WEIGHT = rx(r"(?<![\w.,])(?P<v>\d{2,3}(?:[.,]\d)?)\s*(?P<u>kg|кг|kilos?|кило(?:грамм\w*)?|公斤)(?!\w)")
# a sentence about oneself: a first person, or the weight itself its subject with no one else
# ("вес за зиму набрал, сейчас 92 кило", "weight's up, 92 kg now")
_ABOUT_ME = rx(r"\b(?:i'm|i\s+am|im|me|my|я|мне|мой|моя)\b|我|^\W*(?:вес|weight)\b")
# a change, not what one weighs: "lost 5 kg", "похудела на 10 кг", "瘦了10公斤"
_CHANGE_BEFORE = rx(
    r"(?:lost|gained|gain|lose|put\s+on|dropped|down|up|minus|plus|more|less|похуд\w*|набрал\w*|сбросил\w*"
    r"|поправил\w*|скинул\w*|на$|瘦了|胖了|减了|长了|重了)\s*(?:about\s+|около\s+|на\s+)?$"
)
_CITY_WORDS = r"(?P<city>[\w-]+(?:\s+[\w-]+){0,2})"
_LIVE_RU = r"\b(?:живу|проживаю|нахожусь|обитаю)\s+(?:сейчас\s+|теперь\s+)?в\s+(?:городе\s+|г\.\s*)?"
_MOVED_RU = r"\b(?:переехал[аи]?|перебрал(?:ся|ась|ись))\s+(?:из\s+[\w-]+\s+)?(?:сюда\s+)?в\s+(?:город\s+)?"
_LIVE_EN = r"\b(?:i\s+live|i'm\s+living|i\s+am\s+living|i'm\s+based|i\s+am\s+based|we\s+live)\s+in\s+"
_MOVED_EN = (
    r"\b(?:moved|relocated)\s+(?:(?:down|up|over|out|back|all\s+the\s+way)\s+)?(?:from\s+[\w-]+(?:\s+[\w-]+)?\s+)?"
    r"(?:(?:down|up|over|out|back)\s+)?to\s+"
)
# The grammatical case tells how to restore the nominative ("в Москве" -> Москва, "в Казань" -> Казань).
_CITY = [
    (rx(_LIVE_RU + _CITY_WORDS), "loc"),
    (rx(_MOVED_RU + _CITY_WORDS), "acc"),
    (rx(_LIVE_EN + _CITY_WORDS), "en"),
    (rx(_MOVED_EN + _CITY_WORDS), "en"),
]


# Pregnancy (safety-critical for drug questions). Only the user's own state in the present: "my
# wife is pregnant" is someone else's (third_party_before), "can I take X if I'm pregnant?" and
# "планирую беременность" are not statements, "когда я была беременна" is the past, and "we're
# expecting" alone does not say who carries the baby, so it needs the user's own "I'm 20 weeks".


def _weeks(group: str) -> str:
    return rf"(?P<{group}>{NUM})"


_PREGNANCY = [
    (
        rx(
            r"\b(?:я\s+)?(?:уже\s+|больше\s+)?не\s+беременна\b|\bбеременности\s+(?:у\s+меня\s+)?нет\b"
            r"|\b(?:i'm|i\s+am|im)\s+(?:definitely\s+|still\s+)?(?:not|no\s+longer)\s+pregnant\b"
            r"|\b(?:i'm|i\s+am|im)\s+not\s+expecting\b"
        ),
        "not_pregnant",
    ),
    (
        rx(
            r"\bкормлю\s+(?:(?:ее|её|его|их|ребенка|малыша|малышку|дочку|дочь|сына|младшую|младшего|ещё|еще|пока|до\s+сих"
            r"\s+пор)\s+)*грудью\b|\bгрудью\s+(?:(?:ещё|еще|пока|до\s+сих\s+пор|всё\s+ещё)\s+)?кормлю\b"
            r"|\bкормящая\s+мама\b"
            r"|\bя\s+кормящая\b|\bна\s+грудном\s+вскармливании\b|\bгрудное\s+вскармливание\b"
            r"|\b(?:i'm|i\s+am|im)\s+(?:currently\s+|still\s+|now\s+)?(?:breast-?\s?feeding|nursing)\b"
            r"|\bi\s+(?:still\s+|currently\s+)?(?:breast-?\s?feed|nurse\s+(?:my\s+|the\s+)?(?:baby|son|daughter|little\s+one))\b"
            r"|\bi'?m\s+(?:still\s+)?(?:breast-?\s?feeding|nursing)\s+(?:my|the|her|him)\b"
        ),
        "breastfeeding",
    ),
    (
        rx(
            rf"\b(?:я\s+)?(?:сейчас\s+)?беременна\b(?:\s*,?\s*(?:срок\s+)?{_weeks('w1')}\s+недел\w*)?"
            rf"|\b(?:у\s+меня\s+)?беременность\s+(?:срок\w*\s+)?{_weeks('w2')}\s+недел\w*"
            rf"|\b(?:у\s+меня\s+)?{_weeks('w3')}\s+недел\w*\s+беременности\b"
            r"|\b(?:я\s+)?на\s+(?P<w4>\d{1,2})(?:-?й)?\s+неделе\s+беременности\b"
            r"|\b(?:я\s+)?жду\s+(?:ребенка|малыша|двойню)\b"
            rf"|\b(?:i'm|i\s+am|im)\s+(?:now\s+|currently\s+|about\s+)?(?:{_weeks('w5')}\s*(?:weeks?|wks?)\s+)?"
            r"pregnant\b"
            # "30 wks pregnant today!!": the subject left out
            rf"|^\W*(?:now\s+|about\s+)?{_weeks('w7')}\s*(?:weeks?|wks?)\s+pregnant\b"
            r"|\b(?:i'm|i\s+am|im)\s+expecting(?:\s+(?:a\s+baby|twins))?\b"
            r"(?!\s+(?:a|an|the|to|some|that|it|him|her|them|you|my|his|their|news|results?|calls?)\b)"
            rf"|\b(?:i'm|i\s+am|im)\s+{_weeks('w6')}\s+weeks\s+(?:along|into\s+(?:my|the)\s+pregnancy)\b"
        ),
        "pregnant",
    ),
]
_PAST_PREGNANCY = rx(r"\bбыл[аи]?\s+беременн|\bwas\s+pregnant\b|\bво\s+время\s+беременности\b")


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    found = (_age(s, ctx), _sex(s), _height(s), _weight(s), _city(s), _pregnancy(s, ctx))
    drafts = [d for d in found if d is not None]
    return [d for d in drafts if not third_party_before(s, d.span[1] - 1) and not hypothetical(s, d.span[0])]


def _draft(s: Sentence, m: re.Match[str], group: str, hint: str, attributes: dict) -> Draft:
    end = m.end("u") if "u" in m.groupdict() and m.group("u") else m.end(group)
    return Draft(
        Section.DEMOGRAPHICS,
        s.evidence(m.start(), m.end()),
        name=s.text[m.start(group) : end].strip(),
        hint=hint,
        status=FactStatus.PRESENT,
        attributes=attributes,
    )


def _age(s: Sentence, ctx: Context) -> Draft | None:
    m = _BIRTH_YEAR.search(s.low)
    if m:
        group = "y" if m.group("y") else "y2"
        return _draft(s, m, group, "birth_year", {"birth_year": int(m.group(group))})
    if ctx.today is None:
        return None  # an age means nothing without the day it was said
    for pattern in _AGE:
        m = pattern.search(s.low)
        if m:
            age = parse_number(m.group("n"))
            if age is not None and age == int(age) and 1 <= age <= 120:
                return _draft(s, m, "age", "birth_year", {"birth_year": ctx.today.year - int(age)})
    return None


def _sex(s: Sentence) -> Draft | None:
    for pattern, value in _SEX:
        m = pattern.search(s.low)
        if m:
            return Draft(
                Section.DEMOGRAPHICS,
                s.evidence(*m.span()),
                name=s.text[m.start() : m.end()],
                hint="sex",
                status=FactStatus.PRESENT,
                attributes={"sex": value},
            )
    return None


# "sorry, 72 kg not 70", "не 70, а 72 кг", "是72公斤，不是70": a measure said again, corrected
_CORRECTED_MEASURE = rx(
    r"\d\s*\w*\s*,?\s*(?:not|а\s+не|不是)\s*\d|(?:\bnot|\bне|不是)\s*\d+\s*\w*\s*[,，]?\s*(?:but|а|是)\s*\d"
)
# the value a correction takes back ("not 70 kg"): not the measure
_TAKEN_BACK = rx(r"(?:\bnot|\bне|不是)\s*$")


def _bare(s: Sentence, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """A measure with its unit and no verb, in a sentence about the user, not a change."""
    if not (_ABOUT_ME.search(s.low) or _CORRECTED_MEASURE.search(s.low)):
        return None
    for m in pattern.finditer(s.low):
        before = s.low[max(0, m.start() - 24) : m.start()]
        if not _CHANGE_BEFORE.search(before) and not _TAKEN_BACK.search(before):
            return m
    return None


def _height(s: Sentence) -> Draft | None:
    m = _HEIGHT.search(s.low) or _bare(s, _BARE_HEIGHT)
    if not m:
        return None
    raw, unit = m.group("v"), m.group("u") or ""
    feet = re.match(r"(\d)\s*(?:'|ft|feet|foot)\s*(\d{0,2})", raw)
    if feet:
        cm = int(feet.group(1)) * 30.48 + int(feet.group(2) or 0) * 2.54
    else:
        value = float(raw.replace(",", "."))
        cm = value * 100 if value < 3 else value
    said_height = m.group(0).lstrip().startswith(("рост", "мой", "height"))
    if not (feet or unit or said_height) or not 50 <= cm <= 250:
        return None  # "I'm 34" is an age, not a height
    return _draft(s, m, "v", "height_cm", {"height_cm": round(cm, 1)})


def _weight(s: Sentence) -> Draft | None:
    m = _WEIGHT.search(s.low) or _bare(s, _BARE_WEIGHT)
    if not m:
        return None
    value = float(m.group("v").replace(",", "."))
    if (m.group("u") or "").startswith(("lb", "pound")):
        value = round(value * 0.4536, 1)
    meant = _MEANT_NUMBER.search(s.low, m.end())
    if meant is not None:  # "my weight is 82 kg, sorry I mean 78": the value put right
        value = float(meant.group("v").replace(",", "."))
    return _draft(s, m, "v", "weight_kg", {"weight_kg": value}) if 20 <= value <= 350 else None


# A number put right after the one said: "sorry I mean 78", "ой, точнее 78", "不对 是78"
_MEANT_NUMBER = rx(
    r"(?:\bsorry,?\s+i\s+mean[t]?|\bi\s+mean[t]?|\bactually|\bточнее|\bвернее|\bой,?\s+нет|不对|说错了|我是说)"
    r"[\s,:—–-]*(?:是)?(?P<v>\d{2,3}(?:[.,]\d)?)(?!\d)"
)


# One who writes all in lower case names the city so too ("moved down to tampa, sun every day"): a
# single word after "moved to", the clause ending there (or a time after it), and no common word.
_LOWER_CITY = rx(
    r"(?P<w>[a-z][a-z-]{2,})(?=\s*(?:$|[,.;!?)]|\s+(?:and|in|last|this|with|for|when|after|since|a\s+year"
    r"|two|three|few|back|recently)\b))"
)
_NOT_A_CITY = word_set(
    "nights days evenings mornings weekends remote part-time full-time school college work home town "
    "retirement assisted living care rehab it them there here him her us you better worse night day shift"
)


def _lower_case_city(s: Sentence, at: int) -> str | None:
    if re.search(r"[A-ZА-ЯЁ]", s.text):
        return None
    m = _LOWER_CITY.match(s.low, at)
    if m is None or m.group("w") in _NOT_A_CITY or m.group("w") in FUNCTION_WORDS:
        return None
    return city_nominative(m.group("w").capitalize(), "en")


def _city(s: Sentence) -> Draft | None:
    for pattern, case in _CITY:
        m = pattern.search(s.low)
        if not m:
            continue
        city = city_nominative(s.text[m.start("city") : m.end("city")], case)
        if city is None and case == "en":
            city = _lower_case_city(s, m.start("city"))
        if city:
            return Draft(
                Section.DEMOGRAPHICS,
                s.evidence(*m.span()),
                name=city,
                hint="city",
                status=FactStatus.PRESENT,
                attributes={"city": city},
            )
    return None


def _pregnancy(s: Sentence, ctx: Context) -> Draft | None:
    for pattern, value in _PREGNANCY:
        m = pattern.search(s.low)
        if m is None:
            continue
        if third_party_before(s, m.start()) or hypothetical(s, m.start()):
            return None  # the evidence span is the whole clause: check from the words themselves
        if _PAST_PREGNANCY.search(s.low[slice(*s.clause(m.start()))]):
            return None
        valid_from = None
        weeks_said = next((v for k, v in m.groupdict().items() if k.startswith("w") and v), None)
        weeks = parse_number(weeks_said) if weeks_said else None
        if weeks_said and (weeks is None or not 1 <= weeks <= 42):
            continue  # "I'm some weeks pregnant": no number we can use
        if value == "pregnant" and weeks and ctx.today is not None:
            valid_from = (ctx.today - timedelta(weeks=int(weeks))).isoformat()
        return Draft(
            Section.DEMOGRAPHICS,
            s.evidence(*m.span()),
            name=s.text[m.start() : m.end()].strip(),
            hint="pregnancy",
            status=FactStatus.PRESENT,
            attributes={"pregnancy": value},
            valid_from=valid_from,
        )
    return None


# "Are you male or female?", "Ваш пол?", "性别？": the question asks the sex
_SEX_QUESTION = rx(
    r"\bmale\s+or\s+female\b|\bfemale\s+or\s+male\b|\b(?:sex|gender)\b|\bпол\b|\bпола\b|性别|男的还是女的|男还是女"
)
_SEX_ANSWER = [
    (
        rx(
            r"^\W*(?:female|woman|lady|f|a\s+woman|женский|женщина|ж|жен|女|女的|女性)\b|^\W*(?:女|女的|女性)"
        ),
        "female",
    ),
    (rx(r"^\W*(?:male|man|guy|m|a\s+man|мужской|мужчина|м|муж|男|男的|男性)\b|^\W*(?:男|男的|男性)"), "male"),
]


# "I'm an African American woman": the sex after who the user says they are (not "a trans woman":
# gender identity is not the sex a dose is checked against, and no guess is made)
_I_AM = re.compile(
    r"\W*(?:i'?m|i\s+am|я)\s+(?:an?\s+)?(?:(?!trans)[a-z-]+\s+){0,3}?(?=(?:woman|female|man|male|lady|guy)\b)"
)
_AGE_FIRST = re.compile(r"\s*\d{1,3}\s*(?:岁|лет|года?|years?(?:\s+old)?|yo|y/o)?\s*[,，、/]?\s*")


def sex_answer(question_text: str, answer: str) -> list[Draft]:
    """An answer to "Are you male or female(, and how old are you)?" that opens with the sex
    ("female, 41", "женский, 41", "女，41"): the sex (the age is read by the age rules)."""
    if not _SEX_QUESTION.search(question_text.casefold()):
        return []
    low = answer.casefold().replace("ё", "е")
    lead = _AGE_FIRST.match(low) or _I_AM.match(low)  # "38 女", "41, female", "I'm an African American woman"
    at = lead.end() if lead else 0
    for pattern, value in _SEX_ANSWER:
        m = pattern.match(low[at:])
        if m:
            start, end = at + m.start(), at + m.end()
            return [
                Draft(
                    Section.DEMOGRAPHICS,
                    (start, end),
                    name=answer[start:end].strip(),
                    hint="sex",
                    status=FactStatus.PRESENT,
                    attributes={"sex": value},
                    evidence_kind=EvidenceKind.ANSWER_TO_QUESTION,
                    context_evidence=question_text,
                )
            ]
    return []
