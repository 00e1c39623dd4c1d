"""Lifestyle: diet, smoking, alcohol, physical activity, coffee, sleep (key = the habit, value = how)."""

from __future__ import annotations

import re

from ...domain.sections import FactStatus, Section
from ..normalize import find_terms
from .dates import find_date, find_since, parse_number
from .text import Context, Draft, Sentence, hypothetical, negated, reported_speech, rx, third_party_before

SECTIONS = frozenset({Section.LIFESTYLE})
_NO = r"(?:не\s+ем|не\s+употребляю|не\s+пью|исключил\w*|избегаю|отказал(?:ся|ась)\s+от|без)"
_NO_EN = r"(?:(?:don't|do\s+not|dont)\s+(?:eat|drink|consume)|avoid|no)"
# (pattern, value, negation-sensitive): "я не вегетарианец" negates; "не ем мясо" *is* the diet.
_DIET = [
    (rx(r"\bвегетариан\w*|\bvegetarian\b"), "vegetarian", True),
    (rx(r"\bвеган\w*|\bvegan\b"), "vegan", True),
    (rx(r"\bпескетариан\w*|\bpesc[ae]tarian\b"), "pescatarian", True),
    (
        rx(
            rf"\b{_NO}\s+(?:никаких\s+)?(?:животн\w*\s+продукт\w*|продукт\w*\s+животного)"
            rf"|\b{_NO_EN}\s+(?:any\s+)?animal\s+products\b"
        ),
        "vegan",
        False,
    ),
    (rx(rf"\b{_NO}\s+(?:никакого\s+|никакое\s+)?мяс\w*|\b{_NO_EN}\s+(?:any\s+)?meat\b"), "vegetarian", False),
    (
        rx(rf"\b{_NO}\s+глютен\w*|\bбезглютенов\w*|\bgluten[\s-]?free\b|\b{_NO_EN}\s+gluten\b"),
        "gluten-free",
        False,
    ),
    (
        rx(
            rf"\b{_NO}\s+(?:молочн\w*|лактоз\w*|молок\w*)|\bбезлактозн\w*|\b(?:dairy|lactose)[\s-]?free\b"
            rf"|\b{_NO_EN}\s+(?:dairy|milk|lactose)\b"
        ),
        "dairy-free",
        False,
    ),
    # "кето", "кетодиета", "кетогенная"; never a drug (кетонал, кеторол, кетоконазол)
    (rx(r"\bкето(?:-?диет\w*|генн\w*)?\b|\bketo(?:genic)?\b"), "keto", True),
    (rx(rf"\b{_NO}\s+свинин\w*|\b{_NO_EN}\s+pork\b"), "no pork", False),
    (rx(r"\bхалял\w*|\bhalal\b"), "halal", True),
    (rx(r"\bкошерн\w*|\bkosher\b"), "kosher", True),
    (rx(r"\bинтервальн\w*\s+голодан\w*|\bintermittent\s+fasting\b"), "intermittent fasting", True),
]
_DIET_STOPPED = rx(
    r"\b(?:больше|уже)\s+не\s+(?:вегетариан|веган)\w*|\bперестал\w*\s+быть\b|\bснова\s+ем\s+мясо\b"
    r"|\bначал\w*\s+есть\s+мясо|\bбывш\w*\s+(?:вегетариан|веган)\w*"
    r"|\bno\s+longer\s+(?:a\s+)?(?:vegetarian|vegan)\b|\b(?:quit|stopped)\s+being\b"
    r"|\bstarted\s+eating\s+meat\b|\beat(?:ing)?\s+meat\s+again\b"
)
# "for five years", "лет пять", "since 2019": how long a habit has been off (or went on).
_SPAN_RU = (
    r"(?:\S+\s+(?:лет|год|года|месяц\w*)|(?:лет|год\w*|месяц\w*)\s+\S+|давно|полгода|полтора\s+года"
    r"|с\s+(?:\d{4}|тех\s+пор|прошл\w+))"
)
_SPAN_EN = (
    r"(?:(?:the\s+(?:last|past)\s+)?(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few"
    r"|a\s+couple(?:\s+of)?|several|many|\w+teen|twenty)\s+(?:years?|months?|weeks?)|years|ages"
    r"|a\s+(?:long\s+)?while|since\s+\S+)"
)
_SMOKING = [
    (
        rx(
            r"\b(?:бросил[аи]?|завязал[аи]?)\s+(?:пить\s+и\s+)?(?:курить|с\s+курением)\b|\b(?:больше|уже)\s+не\s+курю\b"
            rf"|\bне\s+курю\s+(?:уже\s+)?{_SPAN_RU}|\b(?:уже\s+)?{_SPAN_RU}\s+(?:уже\s+)?(?:как\s+)?не\s+курю\b"
            r"|\bбывш\w*\s+курильщи\w*"
            r"|\b(?:quit|stopped|gave\s+up)\s+(?:drinking\s+and\s+)?smoking\b|\bno\s+longer\s+smoke\b"
            r"|\b(?:don't|do\s+not)\s+smoke\s+any\s?more\b|\bex-?smoker\b|\bformer\s+smoker\b"
            # "haven't smoked in 5 years", "haven't had a cigarette since 2019", "smoke-free for a year"
            rf"|\b(?:haven'?t|have\s+not|hasn'?t)\s+(?:smoked|had\s+a\s+(?:cigarette|smoke)|touched\s+a\s+cigarette)"
            rf"(?:\s+(?:at\s+all|once))?\s+(?:(?:in|for)\s+{_SPAN_EN}|since\b)"
            rf"|\b(?:smoke|cigarette|nicotine|tobacco)[\s-]free\s+(?:for|since)\b"
            rf"|\b(?:don'?t|do\s+not)\s+smoke\b[\s,—-]*(?:(?:haven'?t|have\s+not)(?:\s+smoked)?\s+)?(?:in|for)\s+{_SPAN_EN}"
            # "I used to smoke but quit", "раньше курил, бросил"
            r"|\bused\s+to\s+smoke\b|\b(?:раньше|когда-то|прежде)\s+курил\w*|\bкурил[аи]?\s+раньше\b"
            r"|\bsmoked\s+(?:for\s+)?(?:\S+\s+){0,3}?(?:but|and)\s+(?:i\s+)?(?:quit|stopped|gave\s+up)\b"
        ),
        FactStatus.STOPPED,
    ),
    (
        rx(
            r"\bне\s+курю\b|\bникогда\s+не\s+курил\w*|\bнекурящ\w*|\bне\s+курильщи\w*"
            r"|\b(?:don't|do\s+not|dont)\s+smoke\b|\bnever\s+smoked\b|\bnon-?smoker\b|\bnot\s+a\s+smoker\b"
        ),
        FactStatus.ABSENT,
    ),
    (
        rx(
            r"\bкурю\b|\bпокуриваю\b|\bкурильщи\w*|\bкурящ\w*|\bi\s+smoke\b|\bi'?m\s+a\s+smoker\b"
            r"|\bi\s+am\s+a\s+smoker\b|\bi'?m\s+smoking\b"
            # "quit drinking, still smoke though": the contrast keeps the user as the subject
            r"|\bstill\s+smoke\b(?!\s+(?:in|from|detector|alarm))|\bstill\s+smoking\b"
        ),
        FactStatus.PRESENT,
    ),
]
# The past habit told with its length or amount ("курил лет 15, пачку в день", "I smoked a pack a day
# for 20 years"): over, unless the sentence brings it to the present ("still", "до сих пор").
_SMOKED_PAST = rx(
    r"\b(?:я\s+)?курил[аи]?\b(?=[^.]*?(?:\b\d+\s*(?:лет|год)|\bлет\s+\S+|пачк|сигарет|\d+\s+в\s+день))"
    r"|\b(?:i\s+)?smoked\b(?=[^.]*?(?:\bfor\s+\S+\s+years?\b|\bpacks?\b|cigarettes|\bpacks?\s+a\s+day|\d+\s+a\s+day))"
)
_STILL_NOW = rx(
    r"\bдо\s+сих\s+пор\b|\bвс[её]\s+ещ[её]\b|\bпо-прежнему\b|\bсейчас\b|\bи\s+сейчас\b|\bкурю\b"
    r"|\bstill\b|\bnow\b|\bcurrently\b|\bthese\s+days\b|\bsmoke\b"
)
_YEARS = rx(
    r"(?:\b(?:for\s+)?(?:about\s+|around\s+)?(?P<en>\d+|[a-z]+)\s+years?\b)"
    r"|(?:\bлет\s+(?P<ru_after>\d+|[а-я]+)\b)|(?:\b(?P<ru>\d+|[а-я]+)\s+(?:лет|год|года)\b)"
)
_AGO = rx(r"\s+(?:назад|тому\s+назад|ago)\b")  # "три года назад": when it ended, not how long it went on
# Vaping is its own habit ("I don't smoke but I vape"): never the smoking key.
_VAPING = [
    (
        rx(
            r"\b(?:бросил[аи]?|перестал[аи]?)\s+(?:вейпить|парить|(?:курить\s+)?(?:вейп|электронк)\w*)"
            r"|\b(?:больше|уже)\s+не\s+(?:парю|вейплю|вейпю)\b"
            r"|\b(?:quit|stopped|gave\s+up)\s+(?:vaping|the\s+vape|e-?cig\w*)\b|\bno\s+longer\s+vape\b"
            r"|\b(?:don't|do\s+not)\s+vape\s+any\s?more\b|\bused\s+to\s+vape\b"
        ),
        FactStatus.STOPPED,
    ),
    (
        rx(
            r"\bне\s+(?:парю|вейплю|вейпю)\b|\bникогда\s+не\s+(?:парил|вейпил)\w*"
            r"|\b(?:don't|do\s+not|dont)\s+vape\b|\bnever\s+vaped\b|\bnot\s+(?:vaping|a\s+vaper)\b"
        ),
        FactStatus.ABSENT,
    ),
    (
        rx(
            r"\bвейп\w*|\bпарю\b|\bвейплю\b|\bэлектронн\w*\s+сигарет\w*|\bэлектронк\w*|\bайкос\w*"
            r"|\bi\s+vape\b|\bvap(?:e|es|ing|er)\b|\be-?cig(?:arette)?s?\b|\bjuul\w*"
        ),
        FactStatus.PRESENT,
    ),
]
_VAPE_HOW = [
    (rx(r"all\s+day|constantly|non-?stop|chain|весь\s+день|целый\s+день|постоянно|не\s+выпуская"), "all day"),
    (
        rx(
            r"каждый\s+(?:день|вечер)|ежедневно|every\s+(?:day|night)|daily|nightly|most\s+(?:nights|days|evenings)"
        ),
        "daily",
    ),
    (rx(r"редко|rarely|occasionally|иногда|sometimes|socially|по\s+выходным|on\s+weekends"), "occasionally"),
]
_COUNT_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|ten|twelve|fifteen|twenty|a\s+few|a\s+couple(?:\s+of)?"
    r"|одну|две|три|четыре|пять|шесть|семь|восемь|десять|двенадцать|пятнадцать|двадцать|пару)"
)
_SMOKE_AMOUNT = rx(
    r"(?:по\s+)?(?P<half>пол\s*)?пачк\w*(?:\s+(?:в|за)\s+(?:день|сутки))?"
    r"|(?P<n>\d+|[а-я]+)\s+сигарет\w*(?:\s+в\s+(?:день|сутки))?"
    r"|(?P<half_en>half\s+)?an?\s+pack\s+(?:a|per)\s+day|(?P<packs>\w+)\s+packs\s+(?:a|per)\s+day"
    r"|(?P<cn>\d+|[a-z]+)\s+cigarettes\s+(?:a|per)\s+day"
    rf"|(?:штук\w*\s+)?(?P<bare>\d+|{_COUNT_WORDS})\s+(?:штук\w*\s+|cigs?\s+|smokes\s+)?(?:в|a|per)\s+(?:день|сутки|day)"
)
_DRINKS = (
    r"(?:\d+(?:\s*[-–]\s*\d+)?|a\s+few|a\s+couple(?:\s+of)?|two|three|four|five|six|seven|eight|ten"
    r"|пар[уы]|дв[ае]|тр[иеё]\w*|четыр\w*|пят\w*|шест\w*)"
)
_ALCOHOL = [
    (
        rx(
            r"\b(?:бросил[аи]?|завязал[аи]?)\s+(?:курить\s+и\s+)?пить\b(?!\s+\w*(?:таблет|лекарств|[а-я]+ин\b))"
            r"|\b(?:бросил[аи]?|завязал[аи]?)\s+(?:с\s+)?(?:выпивк\w*|алкогол\w*|спиртн\w*)"
            r"|\bотказал(?:ся|ась)\s+от\s+(?:алкогол\w*|спиртного)\b"
            r"|\bбольше\s+не\s+пью\s*(?:$|[,.;!])"
            # "не пью уже год", "третий год не пью", "haven't had a drink in two years", "sober for 4 years"
            rf"|\bне\s+пью\s+(?:алкоголь\s+|спиртное\s+)?(?:уже\s+)?{_SPAN_RU}"
            rf"|\b(?:уже\s+)?{_SPAN_RU}\s+(?:уже\s+)?(?:как\s+)?не\s+пью\b"
            r"|\b(?:haven'?t|have\s+not|hasn'?t)\s+(?:had\s+(?:a\s+(?:drink|sip|drop)|any\s+alcohol|a\s+beer)"
            rf"|touched\s+(?:alcohol|a\s+drop|a\s+drink|booze)|drunk(?:\s+alcohol)?)\s+(?:in|for)\s+{_SPAN_EN}"
            r"|\b(?:haven'?t|have\s+not)\s+(?:had\s+a\s+drink|drunk)\s+since\b"
            rf"|\bsober\s+(?:for|since)\b|\b{_SPAN_EN}\s+sober\b"
            r"|\b(?:quit|stopped|gave\s+up)\s+(?:smoking\s+and\s+)?(?:drinking|alcohol|the\s+booze|booze)\b"
            r"|\bno\s+longer\s+drink\b"
        ),
        FactStatus.STOPPED,
    ),
    (
        rx(
            r"\bне\s+(?:пью|употребляю)\s+(?:алкогол\w*|спиртно\w*|вообще)\b"
            r"|\bалкоголь\s+не\s+(?:пью|употребляю)\b"
            r"|\b(?:don't|do\s+not|dont)\s+drink(?:\s+alcohol)?\b(?!\s+(?:coffee|tea|milk|water|soda|juice))"
            r"|\bteetotal\w*|\bnever\s+drink\b|\bnon-?drinker\b"
            # "I don't smoke or drink", "не курю и не пью": the denial covers both
            r"|\b(?:don't|do\s+not|dont|never)\s+smoke\s+(?:or|nor|and)\s+drink\b(?!\s+(?:coffee|tea|milk|water|soda|juice))"
            r"|\bне\s+курю\s+и\s+не\s+пью\b(?!\s+(?:кофе|чай|молоко|воду|сок))"
        ),
        FactStatus.ABSENT,
    ),
    (
        rx(
            r"\b(?:пью|пь[её]м|выпиваю|выпиваем|употребляю)\s+(?:\w+\s+)?(?:алкогол\w*|спиртно\w*|пиво|вино|водку"
            r"|коньяк|виски|крепкое)\b|\bвыпиваю\b|\bвыпиваем\b|\bбуха(?:ю|ем)\b"
            r"|\b(?:i|we)\s+drink\s+(?:\w+\s+)?(?:alcohol|beer|wine|vodka|whiskey|socially"
            r"|occasionally|regularly|a\s+lot|heavily|every\s+day|daily|on\s+weekends)\b"
            r"(?!\s+(?:of\s+)?(?:coffee|tea|milk|water|soda|juice|fluids))|\bsocial\s+drinker\b"
            r"|\bstill\s+drink(?:ing)?\b(?!\s+(?:coffee|tea|milk|water|soda|juice|fluids))"
            # an amount of drinks: "we drink like 5-6 drinks fri and sat", "пью по 2-3 бокала вина"
            rf"|\b(?:i|we)\s+(?:\w+\s+)?(?:drink|have|down)\s+(?:like\s+|about\s+|around\s+|maybe\s+|up\s+to\s+)?"
            rf"{_DRINKS}\s+(?:drinks|beers|glasses|shots|pints|cans|bottles)\b"
            rf"|\b(?:пью|пь[её]м|выпиваю|выпиваем)\s+(?:где-то\s+|примерно\s+|около\s+)?(?:по\s+)?{_DRINKS}\s+"
            r"(?:бокал\w*|бутыл\w*|банк\w*|рюм\w*|стакан\w*|кружк\w*)"
            # "I have a glass of wine most nights", "I usually have a couple of beers on fridays"
            r"|\b(?:i|we)\s+(?:\w+\s+)?(?:have|enjoy|grab)\s+(?:a|an|one|two|a\s+couple\s+of|a\s+few|\d+)\s+"
            r"(?:(?:glass(?:es)?|bottles?|cans?|pints?)\s+of\s+(?:wine|beer|red|white|whiske?y|vodka|champagne|cider)"
            r"|beers?|pints?|cocktails?|drinks?(?!\s+of\s+(?:water|juice|milk)))\b"
        ),
        FactStatus.PRESENT,
    ),
]
_ALCOHOL_HOW = [
    (
        rx(r"по\s+выходным|on\s+weekends|\bweekends?\b|\bfri(?:day)?s?\b|\bsat(?:urday)?s?\b|пятниц|суббот"),
        "weekends",
    ),
    (
        rx(
            r"каждый\s+(?:день|вечер)|ежедневно|every\s+(?:day|night)|daily|nightly|most\s+(?:nights|days|evenings)"
        ),
        "daily",
    ),
    (rx(r"редко|rarely|occasionally|иногда|sometimes|socially|по\s+праздникам"), "occasionally"),
    (rx(r"много|часто|a\s+lot|heavily|regularly"), "regularly"),
]
_ACTIVITY = [
    (
        rx(
            r"\bне\s+занимаюсь\s+спорт\w*|\bспортом\s+не\s+занимаюсь"
            r"|\b(?:don't|do\s+not)\s+(?:exercise|work\s+out)\b|\bsedentary\b|\bмалоподвижн\w*"
        ),
        FactStatus.ABSENT,
        "none",
    ),
    # "run 3x a week" (the subject left out, as in an answer): the verb opens the clause
    (
        rx(
            r"\bбегаю\b|\bбегом\b|\bi\s+(?:run|jog)\b|\bjogging\b"
            r"|^\W*(?:(?:yes|yeah|yep)\W+)?(?:run|jog)\b(?!\s+(?:to|out|into|errands|late|over|the|a|an|my)\b)"
        ),
        FactStatus.PRESENT,
        "running",
    ),
    (
        rx(r"\bплаваю\b|\bбассейн|\bплавани\w*|\bi\s+swim\b|^\W*(?:(?:yes|yeah|yep)\W+)?swim\b"),
        FactStatus.PRESENT,
        "swimming",
    ),
    (rx(r"\bйог\w*|\byoga\b"), FactStatus.PRESENT, "yoga"),
    (
        rx(r"\bв\s+(?:спорт)?зал\b|\bтренаж\w*|\bgym\b|\bwork\s+out\b|\blift\s+weights\b"),
        FactStatus.PRESENT,
        "gym",
    ),
    (
        rx(r"\bзанимаюсь\s+(?:спорт\w*|фитнес\w*)|\bтренируюсь\b|\bi\s+exercise\b"),
        FactStatus.PRESENT,
        "exercise",
    ),
]
_PER_WEEK = rx(
    r"(?P<n>\d|два|две|три|четыре|пять|two|three|four|five)\s+раза?\s+в\s+неделю"
    r"|(?P<en>\w+)\s*(?:times|x)\s+a\s+week"
)
# Coffee (key coffee; no table entry, like vaping): "two cups a day", "cut down to one cup",
# "не пью кофе", "бросила кофе". Cutting down is less of it, never stopping.
_CUPS = (
    r"(?:\d+(?:\s*[-–]\s*\d+)?|one|two|three|four|five|six|a\s+couple(?:\s+of)?|a\s+few|half\s+a|an?"
    r"|одн\w*|дв[еау]\w*|тр[иеё]\w*|четыр\w*|пят\w*|пар[уы]|пол)"
)
COFFEE_AMOUNT = rx(
    rf"\b{_CUPS}\s+(?:cups?|mugs?|shots?|espressos?|чаш\w*|кружк\w*|чашечк\w*)(?:\s+(?:of\s+)?coffee|\s+кофе)?"
    r"(?:\s+(?:a|per|each|every|в|за)\s+(?:day|morning|день|сутки|утро))?"
)
HABIT_REDUCED = rx(
    r"\bcut\s+(?:down|back)\b|\bcutting\s+(?:down|back)\b|\breduced\b|\bless\s+(?:coffee|now)\b|\bfewer\b"
    r"|\bdown\s+to\b|\bсократил\w*|\bуменьшил\w*|\bсниз\w*\s+до\b|\bменьше\b|减少|少(?:喝|抽)|减到|降到"
)
_COFFEE_WORD = r"(?:coffee|caffeine|espresso|кофе)"
_COFFEE = [
    (
        rx(
            rf"\b(?:quit|stopped|gave\s+up|cut\s+out)\s+(?:drinking\s+)?{_COFFEE_WORD}\b"
            rf"|\bno\s+longer\s+drink\s+{_COFFEE_WORD}|\b(?:don't|do\s+not)\s+drink\s+{_COFFEE_WORD}\s+any\s?more"
            r"|\b(?:бросил\w*|перестал\w*)\s+(?:пить\s+)?кофе|\bотказал\w*\s+от\s+кофе|\bбольше\s+не\s+пью\s+кофе"
        ),
        FactStatus.STOPPED,
    ),
    (
        rx(
            rf"\b(?:don't|do\s+not|dont|never)\s+drink\s+{_COFFEE_WORD}|\bне\s+пью\s+кофе|\bкофе\s+(?:вообще\s+)?не\s+пью"
            r"|\bno\s+coffee\b"
        ),
        FactStatus.ABSENT,
    ),
    (
        rx(
            rf"\b(?:drink|drinking)\s+(?:\w+\s+){{0,4}}?{_COFFEE_WORD}\b|\b{_COFFEE_WORD}\s+(?:every|each|daily|a\s+day)\b"
            r"|\bпью\s+(?:\w+\s+){0,3}?кофе|\bкофе\s+(?:\w+\s+)?пью\b|\bкофеман\w*"
            rf"|\b{_CUPS}\s+(?:cups?|mugs?|чаш\w*|кружк\w*|чашечк\w*)\s+(?:of\s+)?{_COFFEE_WORD}"
            rf"|\b(?:cut\s+(?:down|back)|cutting\s+(?:down|back))\s+on\s+{_COFFEE_WORD}"
            r"|\b(?:сократил\w*|уменьшил\w*)\s+(?:\w+\s+)?кофе"
        ),
        FactStatus.PRESENT,
    ),
]


def coffee_value(low: str) -> str | None:
    """How much coffee ("one cup a day", "две чашки"), "reduced" for a cut-down told without an
    amount; None when neither is said."""
    amount = COFFEE_AMOUNT.search(low)
    if amount:
        return low[amount.start() : amount.end()]
    return "reduced" if HABIT_REDUCED.search(low) else None


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    drafts = (
        _diet(s) + _smoking(s, ctx) + _vaping(s) + _alcohol(s, ctx) + _activity(s) + _coffee(s) + _sleep(s)
    )
    return [
        d
        for d in drafts
        if not (third_party_before(s, d.span[1] - 1) and not _said_in_first_person(s, d))
        and not hypothetical(s, d.span[0])
    ]


# The habit said with a verb of the user's own ("жена ругается, что курю много", "my wife says I
# smoke too much", "my roommate says chill, but we drink like 5 drinks"): someone else speaks, the
# habit is the user's; unless it is their quoted words ("мама говорит: «я курю»").
_FIRST_PERSON_HABIT = rx(
    r"(?:курю|покуриваю|выпиваю|выпиваем|пью|пь[её]м|бухаю|бухаем|парю|вейплю|i\s+\w+|we\s+\w+|i'm\s+\w+)\b"
)


def _said_in_first_person(s: Sentence, draft: Draft) -> bool:
    at = s.text.find(draft.name or "", draft.span[0]) if draft.name else -1
    if at < 0 or reported_speech(s, at):
        return False
    return bool(_FIRST_PERSON_HABIT.match(s.low, at))


def _draft(s: Sentence, start: int, end: int, hint: str, status: FactStatus, value: str, **dates) -> Draft:
    name_start = start
    terms = find_terms(("lifestyle",), s.text[start:end])
    if terms and terms[0].entry.key != hint:
        # "quit smoking and drinking" is the alcohol here: the name starts at its own habit word
        own = next((t for t in terms if t.entry.key == hint), None)
        last_word = max(s.text.rfind(" ", start, end) + 1, start)
        name_start = start + own.start if own else last_word  # "бросил курить и пить" -> "пить"
    return Draft(
        Section.LIFESTYLE,
        s.evidence(start, end),
        name=s.text[name_start:end],
        hint=hint,
        status=status,
        attributes={"value": value},
        **dates,
    )


def _diet(s: Sentence) -> list[Draft]:
    drafts, seen = [], set()
    stopped = _DIET_STOPPED.search(s.low)
    if stopped and not re.search(
        r"вегетариан|веган|vegetarian|vegan", s.low[stopped.start() : stopped.end()]
    ):
        seen.add("vegetarian")  # "снова ем мясо" stops being vegetarian
        drafts.append(_draft(s, *stopped.span(), "diet", FactStatus.STOPPED, "vegetarian"))
    for pattern, value, negatable in _DIET:
        m = pattern.search(s.low)
        if not m or value in seen:
            continue
        seen.add(value)
        if stopped and stopped.start() <= m.start() < stopped.end() + 3:
            status = FactStatus.STOPPED
        elif negatable and negated(s, m.start(), m.end(), window=2):
            status = FactStatus.ABSENT
        else:
            status = FactStatus.PRESENT
        drafts.append(_draft(s, *m.span(), "diet", status, value))
    return drafts


def _smoking(s: Sentence, ctx: Context) -> list[Draft]:
    past = _SMOKED_PAST.search(s.low)
    if past and (_STILL.search(s.low) or _smokes_now(s)):
        past = None  # "курил 15 лет и до сих пор курю": the habit goes on
    for pattern, status in _SMOKING:
        m = pattern.search(s.low)
        if not m:
            continue
        if status is not FactStatus.STOPPED and past is not None:
            m, status = past, FactStatus.STOPPED  # "не курю, а курил лет 15": a former smoker
        if status is FactStatus.PRESENT and _VAPE_AFTER.match(s.low, m.end()):
            return []  # "курю вейп", "smoking e-cigarettes": the vaping habit, read by _vaping
        end, value = m.end(), "yes" if status is FactStatus.PRESENT else "no"
        if status is FactStatus.PRESENT:
            amount = _smoke_amount(s, m.end())
            if amount:
                end, value = amount.end(), _smoke_value(amount)
        if status is FactStatus.STOPPED:
            value = _history(s, past or m)
        dates = {}
        if status is FactStatus.STOPPED and past is None:  # "курил 20 лет": how long, not when it ended
            dates = {"valid_to": find_date(s.low, ctx.today)}
        if status is FactStatus.PRESENT:
            dates = {"valid_from": find_since(s.low[slice(*s.clause(m.start()))], ctx.today)}
        return [_draft(s, m.start(), end, "smoking", status, value, **dates)]
    if past is not None:  # "I smoked a pack a day for 20 years": told as over
        return [_draft(s, past.start(), past.end(), "smoking", FactStatus.STOPPED, _history(s, past))]
    return []


# "до сих пор", "still"; "I smoked two cigarettes today": a recent smoke, not a habit that is over
_STILL = rx(
    r"\bдо\s+сих\s+пор\b|\bвс[её]\s+ещ[её]\b|\bпо-прежнему\b|\bstill\b|\bсегодня\b|\bвчера\b|\bутром\b"
    r"|\btoday\b|\byesterday\b|\bthis\s+(?:morning|week)\b|\blast\s+(?:night|week)\b"
)
_VAPE_AFTER = rx(r"\s+(?:вейп\w*|электронн\w*|электронк\w*|айкос\w*|e-?cig\w*|vapes?\b|juul\w*)")


def _smokes_now(s: Sentence) -> bool:
    """A present-tense smoking word that no negation precedes ("сейчас курю меньше")."""
    present = _SMOKING[-1][0]
    return any(not negated(s, m.start(), m.end(), window=2) for m in present.finditer(s.low))


def _history(s: Sentence, past: re.Match[str] | None) -> str:
    """The past habit's amount and length, as said ("former smoker, pack a day, 15 years")."""
    parts = ["former smoker"]
    if past is None:
        return parts[0]
    amount = _SMOKE_AMOUNT.search(s.low, past.end())
    if amount:
        parts.append(_smoke_value(amount))
    years = _YEARS.search(s.low, past.end()) or _YEARS.search(s.low[: past.start()])
    if years and not _AGO.match(s.low, years.end()):
        n = years.group("en") or years.group("ru_after") or years.group("ru")
        number = parse_number(n)
        if number:
            parts.append(f"{int(number)} years")
    return ", ".join(parts)


def _vaping(s: Sentence) -> list[Draft]:
    for pattern, status in _VAPING:
        m = pattern.search(s.low)
        if not m:
            continue
        if status is FactStatus.PRESENT and negated(s, m.start(), m.end(), window=2):
            status = FactStatus.ABSENT  # "не курю вейп", "no vape"
        value = {FactStatus.STOPPED: "former", FactStatus.ABSENT: "no"}.get(status, "yes")
        if status is FactStatus.PRESENT:
            value = next((v for p, v in _VAPE_HOW if p.search(s.low)), value)
        draft = _draft(s, m.start(), m.end(), "vaping", status, value)
        if find_terms(("lifestyle",), draft.name or ""):
            draft.name = "vaping"  # "электронные сигареты": the table's "сигареты" would make it smoking
        return [draft]
    return []


# Words that may stand between "курю" and its amount in the next clause ("still smoke though, maybe
# five a day", "курю, где-то полпачки в день"); anything else there (a person, another habit) is not it.
_AMOUNT_GAP = rx(
    r"[\s,;:—–-]*(?:(?:though|still|maybe|about|around|like|probably|roughly|say|only|just|где-то|примерно"
    r"|около|наверное|наверно|только|по|до\s+сих\s+пор|вс[её]\s+ещ[её]|по-прежнему)\b[\s,;:—–-]*)*"
)


def _smoke_amount(s: Sentence, after: int) -> re.Match[str] | None:
    """The amount right after the smoking words: in their clause, or at the head of the next one."""
    clause_end = s.clause(max(0, after - 1))[1]
    amount = _SMOKE_AMOUNT.search(s.low, after, min(len(s.low), max(clause_end, after + 40)))
    if amount is None or amount.start() - after > 20:
        return None
    if amount.start() > clause_end and not _AMOUNT_GAP.fullmatch(s.low, after, amount.start()):
        return None
    return amount


def _smoke_value(m: re.Match[str]) -> str:
    if m.group("half") or m.group("half_en"):
        return "half a pack a day"
    if m.group("packs"):
        return f"{m.group('packs')} packs a day"
    count = m.group("n") or m.group("cn") or m.group("bare")
    if count:
        if re.match(r"a\s+couple|пару", count):
            return "2 cigarettes a day"
        number = None if count.startswith("a ") else parse_number(count)  # "a few" stays words
        return f"{int(number) if number else count} cigarettes a day"
    return "pack a day"


def _alcohol(s: Sentence, ctx: Context) -> list[Draft]:
    for pattern, status in _ALCOHOL:
        m = pattern.search(s.low)
        if m and find_terms(("drug",), s.text[m.end() : s.clause(m.start())[1]]):
            return []  # "бросил пить эналаприл": the drug stopped, not the drinking
        if m:
            if status is FactStatus.ABSENT and _AMOUNT_AFTER.match(s.low, m.end()):
                # "I don't drink that often / much": an amount, not abstinence
                return [_draft(s, *m.span(), "alcohol", FactStatus.PRESENT, "occasionally")]
            how = next((v for p, v in _ALCOHOL_HOW if p.search(s.low)), None)
            value = how or ("yes" if status is FactStatus.PRESENT else "no")
            dates = {}
            if status is FactStatus.STOPPED:  # "quit drinking two years ago": its own clause's date
                dates = {"valid_to": find_date(s.low[slice(*s.clause(m.start()))], ctx.today)}
            return [_draft(s, m.start(), m.end(), "alcohol", status, value, **dates)]
    return []


_AMOUNT_AFTER = rx(
    r"\s*(?:\w+\s+){0,2}?(?:that|very|so|too)\s+(?:often|much)\b|\s+(?:much|often|a\s+lot)\b"
    r"|\s+так\s+(?:часто|много)"
)


def _activity(s: Sentence) -> list[Draft]:
    for pattern, status, value in _ACTIVITY:
        m = pattern.search(s.low)
        if m:
            per_week = _PER_WEEK.search(s.low)
            if per_week and status is FactStatus.PRESENT:
                value = f"{value}, {(per_week.group('n') or per_week.group('en'))} times a week"
            return [_draft(s, *m.span(), "physical_activity", status, value)]
    return []


def _coffee(s: Sentence) -> list[Draft]:
    for pattern, status in _COFFEE:
        m = pattern.search(s.low)
        if not m:
            continue
        if status is FactStatus.PRESENT and negated(s, m.start(), m.end(), window=2):
            status = FactStatus.ABSENT  # "I can't drink coffee"
        value = {FactStatus.STOPPED: "former", FactStatus.ABSENT: "no"}.get(status)
        if status is FactStatus.PRESENT:
            clause = s.low[slice(*s.clause(m.start()))]
            amount = COFFEE_AMOUNT.search(clause) or COFFEE_AMOUNT.search(s.low)
            value = amount.group(0) if amount else coffee_value(s.low) or "yes"
        draft = _draft(s, m.start(), m.end(), "coffee", status, value or "yes")
        draft.name = "coffee"
        return [draft]
    return []


# Sleep (key sleep, no table entry, like coffee): how long the user sleeps, a line of the social
# history ("I only sleep 5 hours a night", "сплю по 5-6 часов", "get maybe 4 hrs of sleep"). Sleeping
# badly is the insomnia symptom (symptoms.py), not this habit.
_HOURS = r"(?P<hours>\d{1,2}(?:[.,]5)?(?:\s*(?:-|–|to|or|или)\s*\d{1,2})?)"
SLEEP_HOURS = rx(
    r"\b(?:sleep(?:ing)?|get(?:ting)?|сплю|спала?|высыпаю)\s+(?:(?:about|around|like|maybe|only|just|barely|roughly"
    r"|under|less\s+than|по|около|примерно|всего|только|часа|часов|максимум|не\s+больше)\s+){0,3}"
    + _HOURS
    + r"\s*(?:hours?|hrs?|h\b|час\w*|ч\b)"
)
_HOURS_FIRST = rx(
    r"^\W*(?:(?:like|about|around|maybe|roughly|only|just|barely|approx\w*|около|примерно|где-?то|всего|только)\s+)?"
    + _HOURS
    + r"\s*(?:hours?|hrs?|h\b|час\w*|ч\b)"
)  # an answer: "5-6 hours"
_HOURS_OF_SLEEP = rx(r"\b" + _HOURS + r"\s*(?:hours?|hrs?|час\w*)\s+(?:of\s+sleep|сна|a\s+night\s+sleep)")


def sleep_value(low: str) -> str | None:
    """ "5-6 hours" from an answer or a statement of how long the user sleeps; None when unsaid."""
    m = SLEEP_HOURS.search(low) or _HOURS_OF_SLEEP.search(low) or _HOURS_FIRST.search(low)
    if m is None:
        return None
    hours = re.sub(r"\s*(?:-|–|to|или|or)\s*", "-", m.group("hours")).replace(",", ".")
    return f"{hours} hours"


def _sleep(s: Sentence) -> list[Draft]:
    m = SLEEP_HOURS.search(s.low) or _HOURS_OF_SLEEP.search(s.low)
    if m is None or negated(s, m.start(), m.end(), window=2):
        return []
    draft = _draft(s, m.start(), m.end(), "sleep", FactStatus.PRESENT, sleep_value(s.low) or "")
    draft.name = "sleep"
    return [draft]
