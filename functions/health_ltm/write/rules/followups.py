"""Follow-ups that name no drug: "бросил их месяц назад", "they switched me to the 20 mg one",
"врач снизил до половины таблетки", "oops, 25 not 50".

Each becomes a medication draft with ``refers_to_focus``: no name, the change only. Which fact
it refers to is decided by code with the stored memory in hand (``write/focus.py``): the drug
named earlier in the fragment or the session, or the only current one; a clarification when
more than one fits. Only called for a sentence in which no drug was found.
"""

from __future__ import annotations

import itertools
import re

from ...domain.models import Assertion, EvidenceKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK, fold_in_place
from ..dialogue import AnswerShape, answer_shape, last_question
from ..normalize import find_terms, normalize_name
from .chinese import about_the_user, zh_dose
from .dates import find_date, find_since
from .medication_details import BARE_VALUE, DOSE, _dose_match, dose_from_to
from .text import Context, Draft, Sentence, hypothetical, name_at, rx, third_party_before

_PRONOUN = (
    r"(?:it|them|those|these|that\s+one|those\s+ones|the\s+(?:pills?|meds|medications?|tablets?|drugs?)"
)
# a drug named by its device or course ("stopped the inhaler", "мазь бросила", "finished the course")
_PRONOUN += (
    r"|(?:the|my|that)\s+(?:inhaler|puffer|nebuli[sz]er|cream|ointment|patch(?:es)?|antibiotics?|course|taper)"
    r"|ингалятор\w*|мазь|мазью|крем|пластыр\w*|антибиотик\w*"
)
_PRONOUN += r"|их|его|ее|её|эти|это|таблетки|лекарство|лекарства|препарат|它|这个药|那个药|这药|那药)"
_PUT_AWAY = r"(?:(?:в|на)\s+(?:ящик|шкаф|шкафчик|аптечку|стол|тумбочку|полку)|подальше)"
# A course of a drug, not of massage or physio ("прошла курс массажа", "finished a course of PT")
_COURSE = r"курс\b(?!\s+(?:массаж|физио|лфк|реабилит|психотерап|лечебн\w*\s+физ|упражнен))"
_STOPPED = rx(
    rf"\b(?:stopped|quit|discontinued|ditched|dropped)\s+(?:taking\s+|using\s+)?{_PRONOUN}\b"
    rf"|\b(?:came|come|went|got)\s+off\s+{_PRONOUN}\b|\btook\s+me\s+off\s+{_PRONOUN}\b"
    rf"|\bno\s+longer\s+(?:take|taking|on)\s+{_PRONOUN}\b|\b(?:don'?t|do\s+not)\s+take\s+{_PRONOUN}\s+any\s?more\b"
    rf"|\b(?:бросил\w*|перестал\w*\s+(?:принимать|пить)|отменил\w*|прекратил\w*)\s+{_PRONOUN}\b"
    rf"|\b(?:перестал\w*|прекратил\w*)\s+{_PRONOUN}\s+(?:принимать|пить)\b"
    rf"|\b{_PRONOUN}\s+(?:(?:тоже|уже|я)\s+)?(?:отменили|отменил\w*|бросил\w*|допил[аи]?|закончил[аи]?\b|пропил[аи]?\b"
    r"|больше\s+не\s+(?:пью|принимаю|мажу|пользуюсь))\b"
    rf"|\bбольше\s+не\s+(?:пью|принимаю|мажу|пользуюсь)\s+{_PRONOUN}\b"
    # a course finished: "finished it", "done with the course", "допила курс", "курс закончила"
    rf"|\b(?:finished|completed|done\s+with|through\s+with)\s+(?:taking\s+|using\s+)?(?:all\s+(?:of\s+)?)?{_PRONOUN}"
    r"(?!\s+of\s+(?:physio|pt\b|therapy|rehab))"
    rf"|\b(?:допил\w*|пропил\w*|проколол\w*|закончил\w*|завершил\w*|прош[её]л|прошла)\s+(?:весь\s+|полный\s+)?{_COURSE}"
    rf"|\b{_COURSE}\s+(?:уже\s+)?(?:допил\w*|пропил\w*|закончил\w*|завершил\w*)"
    # the way it is used ended, the drug unsaid: "перестала мазать", "больше не капаю"
    r"|\b(?:бросил\w*|перестал\w*|прекратил\w*|закончил\w*)\s+(?:(?:его|её|ее|их)\s+)?(?:мазать|капать|закапывать"
    r"|пшикать|колоть|клеить|наносить)\b|\b(?:больше|уже)\s+не\s+(?:мажу|капаю|закапываю|пшикаю|клею)\b"
    r"|\b(?:мазать|капать|закапывать|пшикать|колоть|клеить|наносить)\s+(?:(?:его|её|ее|их|уже|тоже|я)\s+){0,2}"
    r"(?:бросил\w*|перестал\w*|прекратил\w*|закончил\w*)"
    # put away for good: "tossed the inhaler in the drawer", "убрала ингалятор в шкаф", "выкинула таблетки"
    rf"|\b(?:tossed|threw|put|shoved|stuck|chucked|binned)\s+{_PRONOUN}\s+(?:away|out|(?:back\s+)?in(?:to)?\s+(?:the|a|my)"
    r"\s+(?:drawer|cupboard|cabinet|closet|bin|trash|garbage))\b"
    rf"|\b(?:убрал\w*|засунул\w*|закинул\w*)\s+{_PRONOUN}\s+{_PUT_AWAY}"
    rf"|\b{_PRONOUN}\s+(?:(?:уже|тоже|я)\s+)?(?:убрал\w*|засунул\w*|закинул\w*)\s+{_PUT_AWAY}"
    r"|\b(?:выкинул\w*|выбросил\w*)\s+(?:(?:эти|эту|этот|все|остатки)\s+)?(?:таблетк\w*|лекарств\w*|ингалятор\w*|мазь|крем"
    r"|пластыр\w*|капли|антибиотик\w*)"
    r"|停了|不吃了|停药了|没再吃"
)
STOPPED_PRONOUN = _STOPPED  # for the resolver: the stop was said, not only implied by a switch
_DOSE_CHANGE = rx(
    r"\b(?:switched|changed|moved|put|bumped|upped|increased|raised|lowered|decreased|reduced|cut|dropped|titrated)"
    r"\s+(?:me|it|them|the\s+dose|my\s+dose|the\s+dosage|my\s+dosage)\b"
    r"|\b(?:now|these\s+days)\s+(?:i\s+)?(?:take|i'm\s+on|on|it'?s)\b"
    r"|\b(?:снизил\w*|понизил\w*|уменьшил\w*|увеличил\w*|повысил\w*|поднял\w*|сократил\w*|перевел\w*|перевели"
    r"|удвоил\w*)\b|\bтеперь\s+(?:пью|принимаю)\b|\bдозу\s+(?:снизили|увеличили|подняли|уменьшили)\b"
    r"|(?:加到|减到|改成|换成|现在吃|调到|增加到|减少到|调整到|加量|减量|剂量)"
)
_NOW_TAKING = rx(r"теперь\s+(?:пью|принимаю)\b|(?:now|these\s+days)\s+(?:i\s+)?(?:take|i'm\s+on|on)\b|现在吃")
_UP_DOWN = (
    r"(?:bumped|upped|increased|raised|lowered|decreased|reduced|doubled|halved|titrated|cut|bumping|upping)"
)
_RU_UP_DOWN = r"(?:снизил|понизил|уменьшил|увеличил|повысил|поднял|удвоил|сократил)\w*"
# A change of the dose itself, with or without the new value: the drug is being taken.
_DOSE_ITSELF = rx(
    rf"\b{_UP_DOWN}\s+(?:me|it|them|the\s+dose|my\s+dose|the\s+dosage|my\s+dosage)\b(?!\s+(?:out|off)\b)"
    r"|\b(?:dose|dosage)\s+(?:was\s+|has\s+been\s+|got\s+|is\s+)?(?:bumped|upped|increased|raised|lowered"
    r"|decreased|reduced|doubled|halved|cut|went\s+(?:up|down))\b"
    rf"|\b{_RU_UP_DOWN}\s+(?:мне\s+)?(?:дозу|дозировку|его|ее|её|их)\b|\b(?:дозу|дозировку)\s+(?:мне\s+)?{_RU_UP_DOWN}"
    r"|加量|减量|(?:加大|减少|增加|调整|降低)(?:了)?(?:药的)?剂量|剂量(?:加|减|调|增加|减少|降低|提高)"
)

_VALUE_CORRECTION = rx(
    r"(?P<new>\d+(?:[.,]\d+)?)\s*(?:mg|мг|mcg|мкг)?\s*,?\s*(?:not|а\s+не)\s+(?P<old>\d+(?:[.,]\d+)?)\b"
    r"|\bне\s+(?P<old2>\d+(?:[.,]\d+)?)\s*(?:мг)?\s*,?\s*а\s+(?P<new2>\d+(?:[.,]\d+)?)"
    r"|是(?P<new3>\d+)(?:毫克|mg)?[，,]?\s*不是(?P<old3>\d+)|不是(?P<old4>\d+)(?:毫克|mg)?[，,]?\s*是(?P<new4>\d+)"
    r"|\bi\s+mean[t]?\s+(?P<new5>\d+(?:[.,]\d+)?)"
    # "sorry I misspoke, 75 mg", "ой, точнее 75 мг", "我说错了，是850"
    r"|(?:\bmisspoke|\boops|\bmy\s+bad|\bcorrection|\bsorry|\bточнее|\bвернее|\bоговорил\w*|\bой)[\s,:—–-]*(?P<new6>\d+(?:[.,]\d+)?)\s*(?:mg|мг|mcg|мкг)\b"
    r"|(?:说错了|不对)[，,\s]*(?:说错了)?[，,\s]*(?:应该)?是?(?P<new7>\d+(?:\.\d+)?)\s*(?:毫克|mg|微克|(?=\s|[，。,]|$))"
)
# Numbers that are an age, a weight or a height, not a dose ("мне не 40, а 45 лет").
_NOT_A_DOSE = rx(
    r"\b(?:лет|года|год|years?|old|кг|kg|kilos?|lbs?|pounds|см|cm|рост\w*|вес\w*|weigh\w*|height|tall)\b|岁|公斤|斤"
)
# What the value was said to be before (for the resolver): "25 not 50" -> 50.
OLD_VALUE = re.compile(
    r"(?:not|а\s+не|不是)\s*(\d+(?:[.,]\d+)?)|\bне\s+(\d+(?:[.,]\d+)?)\s*(?:мг)?\s*,?\s*а\b"
)


# "it's 1000 now", "теперь 75": a plain number, not a time, an age or a count of days
_VALUE_BEFORE = rx(
    r"(?<![\w.,])(?P<val>\d+(?:[.,]\d+)?)(?!\d|[.,:]\d|\s*(?:%|лет|год|years?|kg|кг|lbs?|pounds|раз|times|am|pm"
    r"|час|hours?|o'clock|days?|дн|weeks?|недел|months?|месяц|岁|公斤|次|点|天))"
)


def corrected_dose(s: Sentence) -> tuple[tuple[int, int], dict] | None:
    """A dose put right in the sentence ("25 not 50", "sorry, I mean 20 mg", "不对 说错了 是75"):
    where it is said, and the right value (its unit when said; "是75" keeps the one said before)."""
    correction = _VALUE_CORRECTION.search(s.low)
    if correction is None or _NOT_A_DOSE.search(s.low):
        return None
    new = next(v for k, v in correction.groupdict().items() if k.startswith("new") and v)
    unit = (
        "mcg"
        if re.search(r"mcg|мкг|微克", s.low)
        else "mg"
        if re.search(r"mg|мг|毫克", s.low) or not CJK.search(s.text)
        else None
    )
    return correction.span(), {
        "dose_value": float(new.replace(",", ".")),
        **({"dose_unit": unit} if unit else {}),
    }


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    if third_party_before(s, 0) and not re.search(r"\b(?:me|мне|меня)\b", s.low):
        return []
    if CJK.search(s.text) and not about_the_user(s, max(len(s.text) - 1, 0)):
        return []  # "我妈妈停药了", "如果不舒服就停了": not the user's own change
    stopped = _STOPPED.search(s.low)
    if stopped and not hypothetical(s, stopped.start()):
        return [_stop(s, ctx, stopped)]
    corrected = corrected_dose(s)
    if corrected is not None:
        span, attributes = corrected
        return [Draft(Section.MEDICATIONS, s.evidence(*span), attributes=attributes, refers_to_focus=True)]
    change = _DOSE_CHANGE.search(s.low) or _DOSE_ITSELF.search(s.low)
    if change and not hypothetical(s, change.start()):
        both = dose_from_to(s.low, change.start(), len(s.text))
        if both is not None and not _NOT_A_DOSE.search(s.low):
            # "подняли дозу с 50 мкг до 75 мкг": the first value is the old one, the dose is the second
            now, now_unit, end = both
            said = {"dose_value": now, **({"dose_unit": now_unit.value} if now_unit is not None else {})}
            return [_changed(s, change.start(), end, said)]
        for m in DOSE.finditer(s.low, change.end()):
            dose = _dose_match(m, s.low)
            if dose:
                value, unit = dose
                return [_changed(s, change.start(), m.end(), {"dose_value": value, "dose_unit": unit.value})]
        zh = zh_dose(s.low[change.end() :]) if CJK.search(s.text) else None
        if zh:
            return [_changed(s, change.start(), len(s.text), {"dose_value": zh[0], "dose_unit": zh[1]})]
        itself = _DOSE_ITSELF.search(s.low)
        # "теперь пью 1,25", "now I take 20": the value right after the new taking
        taking_now = _NOW_TAKING.match(s.low, change.start())
        bare = BARE_VALUE.search(s.low, change.start()) if itself else None
        if taking_now and bare is None:
            gap = len(s.low[taking_now.end() :]) - len(s.low[taking_now.end() :].lstrip())
            bare = _VALUE_BEFORE.match(s.low, taking_now.end() + gap)
        if itself and bare is None:
            # "it's 1000 now, they upped it", "теперь 75, подняли": the new value said before the change
            bare = next(iter(reversed(list(_VALUE_BEFORE.finditer(s.low, 0, change.start())))), None)
        if bare and not _NOT_A_DOSE.search(s.low):
            value = float(bare.group("val").replace(",", "."))
            if 0 < value < 100_000:
                return [_changed(s, change.start(), bare.end(), {"dose_value": value})]
        if itself:
            return [_changed(s, *itself.span(), {})]  # "they upped the dose": taken, the value unsaid
    return []


def _stop(s: Sentence, ctx: Context, stopped: re.Match[str]) -> Draft:
    return Draft(
        Section.MEDICATIONS,
        s.evidence(*stopped.span()),
        status=FactStatus.STOPPED,
        valid_to=find_date(s.low, ctx.today),
        refers_to_focus=True,
    )


def stopped_before(s: Sentence, ctx: Context, end: int) -> list[Draft]:
    """A stop with a pronoun before the first drug the sentence names ("the cough got bad so I quit
    it, and the doctor switched me to valsartan"): "it" is the drug in focus, not the one after."""
    stopped = _STOPPED.search(s.low, 0, end)
    if stopped is None or find_terms(("drug",), s.text[: stopped.start()]):
        return []  # "took metformin but stopped it, now on X": "it" is the metformin
    if third_party_before(s, stopped.start()) or hypothetical(s, stopped.start()):
        return []
    if CJK.search(s.text) and not about_the_user(s, stopped.start()):
        return []
    return [_stop(s, ctx, stopped)]


def _changed(s: Sentence, start: int, end: int, attributes: dict) -> Draft:
    return Draft(
        Section.MEDICATIONS,
        s.evidence(start, end),
        status=FactStatus.ACTIVE,
        attributes=attributes,
        refers_to_focus=True,
    )


# A name said wrong and put right: "не эналаприл, а лизиноприл", "not enalapril, lisinopril",
# "lisinopril, not enalapril", "不是依那普利，是赖诺普利", "是赖诺普利，不是依那普利".
_WRONG_BEFORE = re.compile(r"(?:\bне\s+(?:на\s+)?|\bnot\s+(?:to\s+)?|不是)$")
_THEN_RIGHT = re.compile(r"^\s*[,，]?\s*(?:а\s+(?:на\s+)?|but\s+(?:to\s+)?|it'?s\s+|(?:而)?是|)$")
_THEN_WRONG = re.compile(r"^\s*[,，]?\s*(?:а\s+не\s+(?:на\s+)?|not\s+(?:to\s+)?|不是)$")


# "I said ibuprofen but I meant naproxen", "написала эналаприл, а имела в виду лизиноприл",
# "我说的是布洛芬，其实是萘普生": the name said first is the wrong one
_SAID_BEFORE = re.compile(r"(?:\bi\s+(?:said|wrote|typed)\s+|\b(?:сказал|написал)[аи]?\s+|我说(?:的是|成)?)$")
_MEANT_BETWEEN = re.compile(
    r"^\s*[,，]?\s*(?:(?:but|and)\s+)?(?:i\s+)?meant\s+(?:to\s+say\s+)?$"
    r"|^\s*[,，]?\s*(?:(?:но|а)\s+)?(?:я\s+)?имел[аи]?\s+в\s+виду\s+$|^\s*[,，]?\s*(?:其实是|应该是|我是说)$"
)
_PUT_RIGHT_HINT = re.compile(r"\bне\b|\bnot\b|不是|\bmeant\b|\bимел|其实是|应该是|我是说")  # one per pattern


def name_corrections(text: str) -> list[tuple[str, str, str]]:
    """(wrong key, right name, right normalised name) for each drug name put right in ``text``."""
    low = text.casefold()
    if not _PUT_RIGHT_HINT.search(low):
        return []  # most messages: no drug-table scan on the write path for nothing
    terms = sorted(find_terms(("drug",), text), key=lambda t: t.start)
    out: list[tuple[str, str, str]] = []
    for first, second in itertools.pairwise(terms):
        between = low[first.end : second.start]
        before = low[max(0, first.start - 12) : first.start]
        not_this = _THEN_RIGHT.match(between) and _WRONG_BEFORE.search(before)  # "не X, а Y"
        meant = _MEANT_BETWEEN.match(between) and _SAID_BEFORE.search(before)  # "I said X but I meant Y"
        if not_this or meant:
            wrong, right = first, second
        elif _THEN_WRONG.match(between):
            wrong, right = second, first
        else:
            continue
        name = text[right.start : right.end]
        wrong_key = normalize_name(Section.MEDICATIONS, text[wrong.start : wrong.end]).key
        right_norm = normalize_name(Section.MEDICATIONS, name)
        if wrong_key != right_norm.key:
            out.append((wrong_key, name, right_norm.name_normalized))
    return out


# "Have you started the losartan?" / "yep, since tuesday"; "Вы уже начали пить конкор?" / "да, с
# понедельника"; "开始吃了吗？" / "吃上了": a prescribed drug now taken. A "not yet" says nothing new.
_STARTED_QUESTION = rx(
    r"\b(?:have|did|has)\s+(?:you|u)\s+(?:already\s+|actually\s+|managed\s+to\s+|got\s+to\s+)?"
    r"(?:start|started|begin|begun|began)\b(?!\s+(?:to\s+)?(?:feel|notic|get|hav|see))"
    # "Started taking them yet?", "Started the antibiotics?": the same question, its subject dropped
    r"|^\W*(?:so\s+|and\s+|ok(?:ay)?[,\s]+)?(?:already\s+)?(?:started|begun)\s+(?:taking|using|on|the|your|them|it)\b"
    r"|\b(?:начал[аи]?|стал[аи]?)\s+(?:ли\s+)?(?:уже\s+)?(?:(?:его|её|ее|их)\s+)?(?:принимать|пить|колоть"
    r"|использовать|капать|мазать)\b|\bприступил[аи]?\s+к\s+(?:при[её]му|лечению|курсу)\b"
    # "Уже начали приём антибиотика?", "Начали курс?", "Курс уже начали?"
    r"|\b(?:начал[аи]?|начинали)\s+(?:ли\s+)?(?:уже\s+)?(?:при[её]м|курс|лечение)\b"
    r"|\b(?:при[её]м|курс|лечение)\s+(?:уже\s+)?(?:начал[аи]?|начат)\b"
    r"|开始(?:吃|服用?|用|打|喷)(?:药|它|这个药)?(?:了)?(?:吗|没|没有)|(?:吃|用)上(?:了)?(?:吗|没)"
    r"|开始(?:服药|用药)(?:了)?(?:吗|没)"
)
# A course asked about by its class ("Уже начали приём антибиотика?", "Started the painkillers?"):
# only the prescribed drugs of that class (by ATC code) started; the question names no drug.
_COURSE_CLASSES = [
    (rx(r"антибиот\w*|antibiotic"), ("J01",)),
    (rx(r"противовирус\w*|antivir"), ("J05",)),
    (rx(r"обезболива\w*|painkiller|pain\s+(?:med|pill|relie)"), ("N02", "M01")),
    (rx(r"антидепрессант\w*|antidepressant"), ("N06A",)),
    (rx(r"статин\w*|statin"), ("C10AA",)),
    (
        rx(r"от\s+давлени\w*|(?:blood\s+pressure|bp)\s+(?:med|pill|tablet)"),
        ("C02", "C03", "C07", "C08", "C09"),
    ),
    (rx(r"от\s+кашля|cough\s+(?:syrup|med)|сироп\w*|syrup"), ("R05",)),
]


def asks_started(question: str) -> bool:
    """The assistant's question asks whether the user has started a prescribed drug."""
    return bool(_STARTED_QUESTION.search(question.casefold().replace("ё", "е")))


def course_class(question: str) -> tuple[str, ...] | None:
    """The ATC prefixes of the class a started-question asks about, None when it names none."""
    low = question.casefold().replace("ё", "е")
    return next((codes for pattern, codes in _COURSE_CLASSES if pattern.search(low)), None)


_STARTED_ANSWER = rx(
    r"^\W*(?:(?:yes|yeah|yep|yup|sure|ok|okay)\b[\s,.!—–-]*)?(?:i\s+(?:have\s+|did\s+)?|i've\s+)?(?:just\s+)?"
    r"(?:started|began|begun)\b(?!\s+(?:to\s+)?(?:feel|notic|get|hav))"
    r"|^\W*(?:(?:да|ага|угу|конечно)\b[\s,.!—–-]*)?(?:я\s+)?(?:уже\s+)?(?:начал[аи]?|стал[аи]?|пью|принимаю"
    r"|приступил[аи]?)\b"
    # "выпила первую таблетку утром", "took my first dose today": the first dose is the start
    r"|\b(?:выпил[аи]?|принял[аи]?|сделал[аи]?)\s+(?:уже\s+)?(?:перв\w*|одн[уа])\b"
    r"|\bперв\w*\s+(?:таблетк\w*|капсул\w*|дозу|укол)?\s*(?:уже\s+)?(?:выпил[аи]?|принял[аи]?|сделал[аи]?)\b"
    r"|\b(?:took|had|taken)\s+(?:my|the)\s+first\b"
    r"|^\W*(?:(?:да|ага|угу|yes|yeah|yep)\b[\s,.!—–-]*)?(?:с|since|from)\s+(?:сегодня|вчера|утра|today"
    r"|yesterday|this\s+morning)\w*"
    r"|^(?:嗯|对|是的?)?[，,\s]*(?:我)?(?:已经|早就|前天|昨天|今天|上周|这周)?(?:就)?(?:开始(?:吃|服用?|用|打|喷)"
    r"|吃上|用上|在吃|吃了|服了|用了)"
)
_NOT_STARTED = rx(
    r"\bnot\s+yet\b|\bhaven'?t\b|\bdidn'?t\b|\bnope\b|\bno\b|\bнет\b|\bне\s+(?:начал|стал|успел|пью|принимаю"
    r"|выпил|принял|пил|начинал)|\bначну\b|\bwill\s+start\b"
    r"|\bещ[её]\s+нет\b|\bпока\s+нет\b|还没|没有|没吃|没开始|不吃|未"
)
_ENDED = rx(
    r"\b(?:stopped|quit|came\s+off|gave\s+up)\b|\b(?:бросил|перестал|отменил|прекратил)\w*|停|不吃了|不用了"
)


def started_answer(question_text: str, answer: str, ctx: Context, said: list[Draft]) -> list[Draft]:
    """A yes to "have you started X?": X (the drug the question names, else the one in focus) is
    taken now, since when the answer says; nothing when the answer's own words already gave it."""
    asked = last_question(question_text)
    low_q = asked.casefold().replace("ё", "е")
    if not _STARTED_QUESTION.search(low_q):
        return []
    low = answer.casefold().replace("ё", "е").strip()
    shape = answer_shape(answer)
    if shape is AnswerShape.NO or _NOT_STARTED.search(low) or _ENDED.search(low):
        return []  # "нет ещё, завтра в аптеку пойду": it stays prescribed
    if shape is not AnswerShape.YES and not _STARTED_ANSWER.search(low):
        return []
    if third_party_before(Sentence(answer, low, ()), len(answer)) or hypothetical(
        Sentence(answer, low, ()), 0
    ):
        return []
    terms = find_terms(("drug",), asked)
    keys = {t.entry.key for t in terms}
    if len(keys) > 1:
        return []  # "Have you started the losartan or the amlodipine?" / "yes": which is not said
    meds = [d for d in said if d.section is Section.MEDICATIONS and not d.retracted]
    cjk = bool(CJK.search(answer))
    since = None if cjk else find_since(low, ctx.today)
    dose = zh_dose(low) if cjk else None
    attributes = {"dose_value": dose[0], "dose_unit": dose[1]} if dose else {}
    span = (0, len(answer.rstrip()))
    if terms:
        term = terms[0]
        name = asked[term.start : term.end]
        normalized = normalize_name(Section.MEDICATIONS, name)
        if any(normalize_name(Section.MEDICATIONS, d.name or "", d.hint).key == normalized.key for d in meds):
            return []  # the answer rules read it already ("да" to "начали пить конкор?")
        if normalized.code:
            attributes["atc_code"] = normalized.code
        return [_answered(span, asked, attributes, FactStatus.ACTIVE, name, since)]
    if meds:
        return []
    return [_answered(span, asked, attributes, FactStatus.ACTIVE, None, since)]


def _answered(
    span: tuple[int, int],
    asked: str,
    attributes: dict,
    status: FactStatus | None,
    name: str | None,
    since: str | None = None,
) -> Draft:
    """A drug answer to the assistant's question: the drug it names, else the one in focus."""
    return Draft(
        Section.MEDICATIONS,
        span,
        name=name,
        hint=normalize_name(Section.MEDICATIONS, name).name_normalized if name else None,
        status=status,
        attributes=attributes,
        valid_from=since,
        refers_to_focus=name is None,
        evidence_kind=EvidenceKind.ANSWER_TO_QUESTION,
        context_evidence=asked,
    )


# What a stopped drug did to the user ("stopped it last week, made me too sleepy", "quit the
# lisinopril because of the cough", "бросил, от него тошнило", "停了，吃了就头晕"): the symptom
# is why the drug was stopped, not a complaint of the present, so it becomes the stop's reason.
_CAUSED_BY_DRUG = rx(
    r"\b(?:made|makes|making|gave|gives|giving|caused|causing|left)\s+(?:me|my)\b|\bbecause\b|\bdue\s+to\b"
    r"|\bside[\s-]?effects?\b|\bот\s+(?:него|неё|нее|них|этого|этих|таблет\w*|препарат\w*)\b"
    r"|\bиз-за\b|\bпотому\s+что\b|\bпобочк\w*|\bвызыва\w*|副作用|因为|吃了(?:就|会|以后|之后|后)|导致|引起"
    r"|\bupset(?:s|ting)?\s+my\b|\bcould(?:n'?t|\s+not)\s+(?:deal|cope|stand|tolerate|handle)\b|\bне\s+(?:мог\w*|смог\w*)\s+(?:терпеть|переносить)"
    r"|\bплохо\s+переносил\w*|受不了|不耐受|(?:肝|肾)功能"
)
# A cause that is a reason in itself, no symptom needed: "because of the side effects",
# "couldn't deal with it", "肝功能有点异常" (a finding)
_REASON_ITSELF = rx(
    r"side[\s-]?effects?|upset|побочк|副作用|could(?:n'?t|\s+not)|не\s+(?:мог|смог)|плохо\s+переносил|受不了|不耐受"
    r"|(?:肝|肾)功能|\bdue\s+to\b|\bbecause\b|\bиз-за\b|\bпотому\s+что\b|因为"
)
# "it made my ankles swell": what the drug did, in the user's words, though no symptom is named
_CAUSED_TO_ME = rx(r"(?:made|makes|making|gave|gives|giving|caused|causing|left)\s+(?:me|my)\b")
# The same cause said in the sentence after the stop: "I stopped it. It made me dizzy."
_CAUSED_BY_IT = rx(
    r"^\s*(?:it|they|that|which|the\s+\w+)\s+(?:made|makes|gave|gives|caused|was\s+making|kept\s+making)\s+(?:me|my)\b"
    r"|^\s*(?:от\s+(?:него|неё|нее|них)|он[ои]?\s+вызывал\w*)\b|^\s*吃了(?:就|会|以后|之后|后)"
)

# A clause of its own after the cause: "... because it wasn't working, but my knee hurts"
_OTHER_CLAUSE = rx(
    r"\b(?:but|however|now|still|anyway)\b|\b(?:но|а|однако|сейчас|теперь|до\s+сих\s+пор|вс[её]\s+ещ[её])\b"
    r"|但|可是|不过|现在|还是"
    # the stop told after its cause: "upset my stomach so I stopped taking it" ends at "so"
    r"|\bso\s+i\b|\bтак\s+что\b|\bпоэтому\b|所以"
)


def side_effects_of_stop(s: Sentence, found: list[Draft], previous: list[Draft]) -> list[Draft]:
    """``found`` without the symptoms a stopped drug caused; the stop carries them as its
    ``stop_reason`` (the user's words from the cue to the symptom)."""
    stops = [d for d in found if _is_stop(d)]
    cue = None
    if stops:
        first = min(d.span[0] for d in stops)
        cue = next((m for m in _CAUSED_BY_DRUG.finditer(s.low) if m.start() >= first), None)
        cue = cue or _CAUSED_BY_DRUG.search(s.low, 0, first)  # "it made me dizzy so I stopped"
    else:
        stops = [d for d in previous if _is_stop(d)]
        cue = _CAUSED_BY_IT.search(s.low) if stops else None
    if cue is None:
        return found
    effects = [
        d
        for d in found
        if d.section is Section.SYMPTOMS
        and d.status in (FactStatus.PRESENT, FactStatus.RESOLVED)
        and d.experiencer is None
        and _named_at(s, d) >= cue.end()
        and not _OTHER_CLAUSE.search(s.low, cue.end(), _named_at(s, d))
    ]
    if effects:
        end = max(_named_at(s, d) + len(d.name or "") for d in effects)
    else:  # a symptom no rule reads as the present ("из-за тошноты", "от него был сухой кашель")
        other = _OTHER_CLAUSE.search(s.low, cue.end())
        terms = find_terms(("symptom",), s.text[cue.end() : other.start() if other else len(s.text)])
        reason_said = _REASON_ITSELF.match(s.low, cue.start()) or _CAUSED_TO_ME.match(s.low, cue.start())
        if not terms and reason_said and stops[0].span[0] < cue.start():
            end = (
                other.start() if other else len(s.text)
            )  # the reason in the user's words, to its clause's end
        elif not terms:
            return found
        else:
            end = cue.end() + terms[-1].end
    reason = s.text[cue.start() : end]
    reason = reason.strip(" ,.;:—-")[:120]
    for stop in stops:
        stop.attributes.setdefault("stop_reason", reason)
    return [d for d in found if d not in effects]


def _named_at(s: Sentence, draft: Draft) -> int:
    """Where the symptom's own word stands (its evidence may be the whole clause, cue and all)."""
    at = name_at(draft, s.low, draft.span[0])
    return at if at >= 0 else draft.span[0]


def _is_stop(draft: Draft) -> bool:
    return (
        draft.section is Section.MEDICATIONS
        and draft.status is FactStatus.STOPPED
        and not draft.hypothetical
        and not draft.retracted
    )


# "What dose?", "How much do you take?", "Какая дозировка?", "Сколько мг?", "多少毫克？", "吃多少？"
_DOSE_QUESTION = rx(
    r"\b(?:what|which)\s+(?:dose|dosage|strength)|\bhow\s+(?:much|many\s+(?:mg|milligrams?|mcg|units?|pills?|tablets?))"
    r"|\b(?:the\s+)?(?:dose|dosage|strength)\s*\?"
    r"|\bкак(?:ая|ую|ой)\s+(?:доз\w*|дозировк\w*)|\b(?:доз\w*|дозировк\w*)\s*(?:какая|какую)?\s*\?"
    r"|\b(?:по\s+)?сколько\s+(?:мг|миллиграмм\w*|мкг|единиц|таблет\w*|принимаете|пьете|пьёте)"
    r"|多少毫克|多少mg|多大剂量|什么剂量|剂量|吃多少|一次(?:吃)?多少|用量"
)
_TWO_NUMBERS = rx(r"\d\S*\s*(?:,|;|/|&|\band\b|\bи\b|和|、|，)\s*\d")
_UNIT_ASKED = rx(r"\b(?:mg|milligrams?|мг|миллиграмм\w*)\b|毫克")


def _dose_said(answer: str, bare: bool) -> dict | None:
    """The dose and schedule a message gives with no drug named, as attributes; ``bare``: a number
    alone is a dose too. None when it is not the user's (a question, someone else) or when two
    doses leave unsaid which is whose."""
    from .medication_details import bare_dose, details  # a cycle at import time otherwise

    low = answer.casefold().replace("ё", "е")
    sentence = Sentence(answer, low, ())
    if hypothetical(sentence, 0) or third_party_before(sentence, len(answer)):
        return None
    if CJK.search(answer):
        if not about_the_user(sentence, max(len(answer) - 1, 0)):
            return None  # "我妈妈也吃 500mg": her dose
        dose = zh_dose(low, strength_first=True)
        return {"dose_value": dose[0], "dose_unit": dose[1]} if dose else {}
    if len([m for m in DOSE.finditer(low) if _dose_match(m, low)]) > 1 or _TWO_NUMBERS.search(low):
        return None  # "10 and 500": which is whose is not said
    attributes, _ = details(sentence, 0, 0, len(answer), 0)
    attributes = {
        k: v for k, v in attributes.items() if k in ("dose_value", "dose_unit", "frequency", "time_of_day")
    }
    found = bare_dose(f" {low}", 0) if bare and "dose_value" not in attributes else None
    if found is not None:  # "What dose?" / "850, два раза в день": a number alone is the dose
        attributes["dose_value"] = found[0]
    return attributes


# What may come before a dose said alone: "75mcg every morning", "and 20 mg", "just 10 mg", "по 5 мг"
_DOSE_LEAD = rx(
    r"\W*(?:(?:and|also|just|only|take|taking|i\s+take|it'?s|its|about|around|like|the|dose|is|at|on|now"
    r"|и|ещё|еще|по|пью|принимаю|это|доза|примерно|около|теперь|сейчас|утром|вечером|every|each|daily)\W+)*"
)


def dose_after_the_drug(answer: str, said: list[Draft], drug: Assertion | None) -> list[Draft]:
    """A dose with its unit said in the message after the one that named a single ``drug``, and
    naming none itself ("just levothyroxin" / "75mcg every morning", "就优甲乐" / "每天早上空腹一片
    50微克的"): that drug's dose, by its name (the drug in focus may be an allergen said since)."""
    if drug is None or not drug.name or any(d.section is Section.MEDICATIONS for d in said):
        return []
    digit = re.search(r"\d", answer)
    if (
        digit is not None
        and not CJK.search(answer)
        and not _DOSE_LEAD.fullmatch(fold_in_place(answer[: digit.start()]))
    ):
        return []  # "и ещё добавил эналаприл 5 мг": another drug's dose, one the table does not know
    attributes = _dose_said(answer, bare=False)
    if not attributes or "dose_value" not in attributes or "dose_unit" not in attributes:
        return []
    return [
        Draft(
            Section.MEDICATIONS,
            (0, len(answer.rstrip())),
            name=drug.name,
            hint=drug.normalized_hint,
            status=drug.status,
            attributes=attributes,
        )
    ]


def dose_answer(question_text: str, answer: str, said: list[Draft]) -> list[Draft]:
    """An answer to "What dose?" that gives a dose ("10 mg", "850, два раза в день", "5毫克"): the
    dose and schedule of the drug the question names, else of the one in focus. Nothing when the
    answer names its own drug (the drug rules read it) or gives more than one dose."""
    asked = last_question(question_text)
    if not _DOSE_QUESTION.search(asked.casefold()):
        return []
    if any(d.section is Section.MEDICATIONS and (d.name or "").strip() for d in said):
        return []
    attributes = _dose_said(answer, bare=True)
    if attributes is None or "dose_value" not in attributes:
        return []
    if "dose_unit" not in attributes and _UNIT_ASKED.search(asked.casefold()):
        attributes["dose_unit"] = "mg"  # "Сколько мг?" / "850": the unit is the question's
    terms = find_terms(("drug",), asked)
    span = (0, len(answer.rstrip()))
    if len({t.entry.key for t in terms}) == 1:
        return [_answered(span, asked, attributes, FactStatus.ACTIVE, asked[terms[0].start : terms[0].end])]
    if terms:
        return []
    return [_answered(span, asked, attributes, None, None)]


# --- a clinician's orders ---------------------------------------------------------------------
# What a clinician says they prescribe or stop, in a transcript where the assistant is the doctor:
# "i'm going to start you on omeprazole", "I'll prescribe amoxicillin", "назначу вам омепразол",
# "先给您开氨溴索"; "stop the ibuprofen completely", "отмените ибупрофен", "布洛芬先停掉".
_PRESCRIBES = rx(
    r"\b(?:i'?m\s+going(?:\s+to)?|i\s+am\s+going(?:\s+to)?|i'?ll|i\s+will|let'?s|let\s+me|we'?ll|we\s+will"
    r"|i'?d(?:\s+also)?\s+like\s+to|i\s+would(?:\s+also)?\s+like\s+to|i\s+want\s+to)\s+(?:also\s+)?"
    r"(?:start\s+you\s+on|put\s+you\s+on|prescribe(?:\s+you)?|give\s+you|get\s+you\s+(?:on|started\s+on)"
    r"|(?:send\s+(?:in\s+)?|write\s+(?:you\s+)?(?:up\s+)?)(?:a\s+)?(?:prescription|script|rx)\s+for|add)\s+"
    r"|\bi'?m\s+(?:prescribing(?:\s+you)?|starting\s+you\s+on|putting\s+you\s+on|adding)\s+"
    r"|\bi(?:'?ve|\s+have)\s+(?:also\s+)?(?:prescribed(?:\s+you)?|started\s+you\s+on|put\s+you\s+on)\s+"
    r"|\b(?:назнач(?:у|им|аю)|выпиш(?:у|ем)|пропишу|начн[её]м|добавим|добавлю)\s+(?:вам\s+|тебе\s+)?"
    r"|(?:给(?:您|你)(?:再)?开(?:个|点|了|一个|一些)?|(?:我|先)(?:再)?开(?:个|点|一个|一些))"
)
_STOPS = rx(
    r"\b(?:i'?d\s+like\s+you\s+to|i\s+want\s+you\s+to|please|you\s+should|you\s+need\s+to|let'?s)\s+"
    r"(?:stop|discontinue|quit|come\s+off)\s+(?:taking\s+)?(?:the\s+|your\s+)?"
    r"|\b(?:отмени(?:те|м)|прекратите|перестаньте\s+(?:пить|принимать)|не\s+принимайте)\s+"
)
_ZH_STOPS = re.compile(
    r"(?P<drug>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:先|就|可以)?(?:停掉|停了吧|先停|停用|别再(?:用|吃)了?|不要再(?:用|吃)了?)"
)
_ORDER_END = re.compile(r"[.!?;。！？；]")
_TAKES_UP = rx(
    r"^\W*(?:ok(?:ay)?|sure|sounds\s+good|great|thanks?|thank\s+you|alright|all\s+right|will\s+do|got\s+it|perfect"
    r"|brilliant|yes|yeah|yep|fine|хорошо|ладно|понятно|спасибо|договорились|ок|да|好的?|好嘞|行|嗯|谢谢|明白|知道了)\b"
    r"|^\W*(?:好的?|好嘞|行|嗯|谢谢|明白|知道了)"
)
_REFUSES = rx(
    r"\b(?:don'?t\s+want|rather\s+not|not\s+taking|won'?t\s+take|не\s+хочу|не\s+буду|instead|вместо)\b"
    r"|\ballergic\b|\bаллерги|过敏|不想|(?<!要)不要|不吃|换(?:个|一个|别的)"
)
# "Do you have any questions for me?" / "No, I think you answered them all": a no to that refuses nothing
_ASKS_FOR_QUESTIONS = rx(r"\bany\s+(?:other\s+|more\s+)?questions\b|\bвопросы\b|有(?:什么|没有)?问题")


def takes_up(answer: str, asked: str = "") -> bool:
    """The user's reply takes up what the clinician said ("okay. how long do i take it for?", "好嘞",
    or a question about it: "What does the number three stand for?"): anything but a refusal, an
    allergy or a plain no (unless the no answers "any questions?")."""
    low = fold_in_place(answer)
    if _REFUSES.search(low):
        return False
    if _TAKES_UP.search(low):
        return True
    return answer_shape(answer) is not AnswerShape.NO or bool(
        _ASKS_FOR_QUESTIONS.search(fold_in_place(asked))
    )


def orders(asked: str) -> list[tuple[str, FactStatus]]:
    """The clinician's orders in ``asked``, each as the user's own statement to read, with the status
    it gives the drug: prescribed ("the doctor prescribed me omeprazole, 20 mg once a day") or
    stopped ("I stopped the ibuprofen")."""
    low = fold_in_place(asked)
    out: list[tuple[str, FactStatus]] = []
    for m in _PRESCRIBES.finditer(low):
        end = _ORDER_END.search(asked, m.end())
        clause = asked[m.end() : end.start() if end else len(asked)].strip()
        if not clause:
            continue
        if CJK.search(clause):
            out.append((f"医生给我开了{clause}", FactStatus.PRESCRIBED))
        elif re.search(r"[а-яё]", clause, re.IGNORECASE):
            out.append((f"врач назначил мне {clause}", FactStatus.PRESCRIBED))
        else:
            out.append((f"the doctor prescribed me {clause}", FactStatus.PRESCRIBED))
    for m in _STOPS.finditer(low):
        end = _ORDER_END.search(asked, m.end())
        clause = asked[m.end() : end.start() if end else len(asked)].strip()
        if clause:
            ru = re.search(r"[а-яё]", clause, re.IGNORECASE)
            out.append(((f"я бросил {clause}" if ru else f"I stopped the {clause}"), FactStatus.STOPPED))
    for m in _ZH_STOPS.finditer(asked):
        out.append((f"我停了{m.group('drug')}", FactStatus.STOPPED))
    return out
