"""One-off events: surgeries ("удалили аппендикс"), injuries ("сломал руку"), vaccinations."""

from __future__ import annotations

import re

from ...domain.models import AssertionKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK
from ..normalize import find_terms, normalize_name
from .chinese import _NEG as ZH_NEGATION
from .chinese import _masked as zh_masked
from .chinese import _year_of as zh_year_of
from .chinese import about_the_user as zh_about_the_user
from .dates import find_date, parse_number
from .text import Context, Draft, Sentence, hypothetical, negated, rx, third_party_before

SECTIONS = frozenset({Section.SURGERIES, Section.INJURIES, Section.VACCINATIONS})

_SURGERY_CUE = rx(
    r"\b(?:удалили|удалял[аи]?|удален\w*|вырезали|прооперир\w*|оперировал\w*|операци\w*|шунтирован\w*"
    r"|стентирован\w*|поставили\s+стент\w*|кесарев\w*|эндопротезир\w*|\w+эктоми\w*|surgery|surgeries"
    r"|operation|operated|\bop\b|removed|taken\s+out|out\b|\w+ectomy|c[\s-]?section|caesarean|cesarean|bypass"
    r"|stent\w*|replacement|replaced|заменили|поменяли"
    # "had my knee scoped", "a knee scope in 2015": the surgeons' word for an arthroscopy
    r"|scoped?\b|артроскоп\w*)"
)
_SURGERY_ABSENT = rx(
    r"\bопераци\w*\s+(?:у\s+меня\s+)?(?:никогда\s+)?(?:не\s+было|нет)\b"
    r"|\b(?:не\s+было|нет)\s+(?:у\s+меня\s+)?(?:никаких\s+)?операций\b|\bникаких\s+операций\b"
    r"|\bменя\s+(?:никогда\s+)?не\s+оперировали\b|\bне\s+оперировал(?:ся|ась)\b"
    r"|\b(?:never|haven't|have\s+not|hasn't)\s+(?:had|been)\s+(?:any\s+)?(?:surgery|surgeries|operations?)\b"
    r"|\b(?:never|haven't|have\s+not)\s+been\s+operated\s+on\b"
    r"|\bno\s+(?:previous\s+|prior\s+|past\s+)?(?:surgeries|surgery|operations)\b"
    r"|\bno\s+(?:previous\s+|prior\s+|past\s+)?surgical\s+history\b"
)
# A procedure the table does not name: "-ectomy", "-plasty", "... reconstruction", "... biopsy".
_PROCEDURE = rx(
    r"\b(?:[a-z]+\s+){0,2}?(?:[a-z]+(?:ectomy|ectomies|otomy|ostomy|plasty|pexy|scopy)"
    r"|(?:[a-z]+\s+)?(?:reconstruction|repair|replacement|transplant|biopsy|stripping|fusion|implant))\b"
    r"|\b[а-я]+(?:эктоми|томи|пласти|скопи)\w*"
)
_PROCEDURE_LEAD = rx(
    r"^(?:(?:a|an|the|my|some|had|have|did|two|three|several|bilateral|total|partial"
    # "…, and a colonoscopy", "had it to repair a hernia": glue, not the name
    r"|and|or|also|then|it|to|for|of|in|on|with|that|this|which)\s+)+"
)
_HAD_PROCEDURE = rx(
    r"\b(?:i\s+(?:had|have\s+had|'ve\s+had|underwent|got)|i'?ve\s+had|they\s+(?:did|performed|removed|took)"
    r"|had\s+(?:an?|my|the)|мне\s+(?:сделали|делали|провели)|перенес\w*|делали)\b"
)
_VACCINE_CUE = rx(
    r"\bприв(?:ивк\w*|ился|илась|ились|ит\w*|ивал\w*|ивали|иться)\b|\bвакцин\w*|\bревакцин\w*|\bvaccin\w*"
    r"|\bshots?\b|\bjabs?\b|\bbooster\b|\bimmuni[sz]\w*|\binoculat\w*"
    # "did the full hep b course, all 3 doses", "гепатит б в детстве ставили" (a vaccine is "put")
    r"|\b(?:course|series)\b|\bdoses\b|\b(?:по)?став(?:или|ила|ил|ят)\b"
)
# "диагноз гепатит ставили": a diagnosis is "put" too
_DIAGNOSIS_PUT = rx(r"\bдиагноз\w*")
_DOSE_NUMBER = rx(
    r"\b(?P<n>перв\w*|втор\w*|трет\w*|1|2|3|first|second|third)(?:-?(?:ю|й|ую))?"
    r"\s+(?:дозу|доза|компонент|прививку|dose|shot|jab)\b"
)
# Surgeries said by the organ the table does not name on its own ("удалили желчный") or as a
# surgery "on" a body part ("surgery on my knee"): the hint is a name the table knows.
_ORGAN_SURGERY = [
    (rx(r"\bжелчн(?:ый|ого|ым)\b(?:\s+пузыр\w*)?"), "желчный пузырь"),
]
_SURGERY_ON = rx(
    r"\b(?:surgery|operation|op)\s+on\s+(?:my|the|his|her)\s+(?P<en>[a-z]+)"
    r"|\b(?:knee|hip|back|spine|heart|eye|nose)\s+(?:op|operation)\b"
)
_HEALED = rx(
    r"\bзажил\w*|\bсрос\w*|\bhealed\b|\brecovered\b"
    r"|长好|愈合|痊愈|康复|(?:早就|已经|早)(?:都)?好了|恢复(?:得很好|好了|了)"
)
# Chinese injuries said with a verb ("去年摔断了左腿"): the words that make one not the user's fact.
_ZH_NEAR_MISS = re.compile(r"差点|差一点|险些|幸亏没|幸好没|好在没|以为|怕")
_ZH_NOT_NEGATION = re.compile(r"不小心|一不留神")  # "不小心扭伤了脚踝": "accidentally", not a no


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    torn = _torn_structures(s, ctx)
    return _surgeries(s, ctx) + torn + _injuries(s, ctx, [d.span for d in torn]) + _vaccinations(s, ctx)


# A table surgery said by the procedure itself (not by a bare organ such as "колено").
_NAMES_A_PROCEDURE = rx(
    r"ectom|otom|plast|scop|reconstruct|repair|replace|surg|section|эктоми|томи|пластик|скопи|операц|резекц"
    r"|шов|手术|切除|重建|缝合|修复|置换"
)
# Structures torn by name ("порвал мениск", "tore my ACL", "半月板撕裂"), or by a pronoun for the
# structure just named ("ACL reconstruction in 2017, tore it playing soccer", "операция на мениске,
# порвал его на футболе", "做过半月板手术，踢球的时候撕裂的"): the injury behind the surgery.
_STRUCTURES = [
    (rx(r"\bacl\b|\bпкс\b|крестообразн\w*(?:\s+связк\w*)?|\bcruciate\s+ligament|交叉韧带"), "ACL tear"),
    (rx(r"\bmenisc\w*|\bмениск\w*|半月板"), "meniscus tear"),
]
_TEAR = rx(
    r"\b(?:tore|torn|tear|tearing|ripped|ruptured|blew\s+out|blown\s+out|busted)\b"
    r"|\b(?:порвал\w*|разорвал\w*|надорвал\w*|порван\w*|разрыв\w*|надрыв\w*)"
    r"|撕裂|撕了|撕断|扯断|拉断|断了|断裂"
)
# What the tear verb's object is when it names no structure: a pronoun, or nothing at all
_TEAR_PRONOUN = rx(r"\s*(?:it|them|that|one|его|её|ее|их|его\s+же)?(?=\s|[,.;:!?]|$)")


def _torn_structures(s: Sentence, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    seen: set[str] = set()
    cjk = bool(CJK.search(s.text))
    for tear in _TEAR.finditer(s.low):
        start, end = s.clause(tear.start())
        here = [(m, hint) for pattern, hint in _STRUCTURES for m in pattern.finditer(s.low, start, end)]
        if here:
            m, hint = min(here, key=lambda x: abs(x[0].start() - tear.start()))
            a, b = min(m.start(), tear.start()), max(m.end(), tear.end())
            name = s.text[a:b]
        else:
            # "tore it", "порвал его", "...的时候撕裂的": the structure named in a clause before
            if not cjk and not _TEAR_PRONOUN.match(s.low, tear.end()):
                continue
            if find_terms(("body_site",), s.text[start:end]):
                continue  # "tore a ligament in my ankle": another structure
            before = [(m, hint) for pattern, hint in _STRUCTURES for m in pattern.finditer(s.low, 0, start)]
            if not before:
                continue
            m, hint = max(before, key=lambda x: x[0].start())
            a, b = tear.start(), tear.end()
            name = hint
        if b - a > 50 or (_zh_not_the_users(s, tear.start(), tear.end()) if cjk else _not_the_users(s, a, b)):
            continue
        normalized = normalize_name(Section.INJURIES, name, hint)
        if normalized.key in seen:
            continue
        seen.add(normalized.key)
        healing = s.low[tear.start() :] if cjk else s.low[start:end]
        status = FactStatus.RESOLVED if _HEALED.search(healing) else FactStatus.PRESENT
        first = min(m.start(), a)
        drafts.append(
            Draft(
                Section.INJURIES,
                s.evidence(first, b),
                name=name,
                hint=normalized.name_normalized,
                status=status,
                attributes={"body_site": "knee"},
            )
        )
    return drafts


# A bare year said with the event ("gallbladder 2019", "желчный 2019", "appendix, 2015"): only a
# plausible past year, not a dose or a count
_BARE_YEAR = rx(
    r"(?<![\d.,:/-])(?P<year>19[4-9]\d|20\d\d)(?![\d.,:/-]|\s*(?:mg|мг|mcg|мкг|ml|мл|г\b|g\b|units|ед|年))"
)


def _dated(low: str, ctx: Context) -> tuple[dict, str | None]:
    when = find_date(low, ctx.today)
    if when is None:
        bare = _BARE_YEAR.search(low)
        if bare is None or (ctx.today is not None and int(bare.group("year")) > ctx.today.year):
            return {}, None
        when = bare.group("year")
    attributes: dict = {"year": int(when[:4])}
    if len(when) > 4:
        attributes["date"] = when
    return attributes, when


def _event(
    section: Section,
    s: Sentence,
    a: int,
    b: int,
    first: int,
    status: FactStatus,
    extra: dict,
    ctx: Context,
    hint: str | None = None,
):
    name = s.text[a:b]
    normalized = normalize_name(section, name, hint)
    (start, end), lead = _own_parts(s, a, b)
    attributes, when = _dated(s.low[start:end], ctx) if status is not FactStatus.ABSENT else ({}, None)
    if not attributes and lead is not None and status is not FactStatus.ABSENT:
        attributes, when = _dated(s.low[slice(*lead)], ctx)
    if not attributes and section is Section.INJURIES and status is not FactStatus.ABSENT:
        when = zh_year_of(s.low[start:end], ctx.today) if CJK.search(s.text) else None  # "去年摔断了腿"
        attributes = {"year": int(when[:4]), **({"date": when} if len(when) > 4 else {})} if when else {}
    if section is Section.VACCINATIONS:
        attributes = {"date": when} if when else {}
    return Draft(
        section,
        s.evidence(min(first, a), b),
        name=name,
        hint=normalized.name_normalized,
        status=status,
        attributes={**attributes, **extra},
        valid_from=when,
    )


_EVENT_KINDS = ("surgery", "injury", "injury_type", "vaccine")
_JOINER = rx(r",|;|\band\b|\bplus\b|\bи\b|\bа\s+также\b|、|，|和|还有|以及")


def _own_parts(s: Sentence, a: int, b: int) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """The part of the clause that dates the event at a..b, and the lead before the clause's first
    item: "had my tonsils out as a kid and a c-section in 2019" dates only the c-section; "in 2019
    I had X and Y" dates both (by the lead). Items part at the last joiner between them."""
    start, end = s.clause(a)
    others = [
        (start + t.start, start + t.end)
        for t in find_terms(_EVENT_KINDS, s.text[start:end])
        if not (a <= start + t.start < b)
    ]
    if not others:
        return (start, end), None
    lo, hi = start, end
    before = [e for _, e in others if e <= a]
    after = [x for x, _ in others if x >= b]
    if before:
        joins = [m.end() for m in _JOINER.finditer(s.low, max(before), a)]
        lo = joins[-1] if joins else max(before)
    if after:
        joins = [m.start() for m in _JOINER.finditer(s.low, b, min(after))]
        hi = joins[-1] if joins else min(after)
    first = min([a, *(x for x, _ in others)])
    return (lo, hi), ((start, first) if first > start else None)


# A surgery still to come: "I might need back surgery", "scheduled for a knee replacement", "нужна
# операция на колене", "предстоит удаление желчного", "需要做手术"
_PLANNED = rx(
    r"\b(?:need|needs|might\s+need|may\s+need|will\s+(?:need|have)|going\s+to\s+have|gonna\s+have|planning"
    r"|planned|scheduled|recommend\w*|suggest\w*|waiting\s+for|booked\s+(?:in\s+)?for|considering"
    r"|нужн\w*|надо|предстоит|планиру\w*|будут\s+делать|предлагают|рекомендуют|ждём|ждем|жду)\b"
    r"|需要|要做|准备做|打算做|建议做|安排了?做|等着做"
)


def _surgeries(s: Sentence, ctx: Context) -> list[Draft]:
    drafts = []
    for term in find_terms(("surgery",), s.text):
        start, end = s.clause(term.start)
        # "I had a tubal ligation", "мне сделали мастэктомию": having had it is the cue too
        cue = _SURGERY_CUE.search(s.low, start, end) or _HAD_PROCEDURE.search(s.low, start, term.start)
        # "ACL reconstruction in 2017" answering "Any surgeries?": the question is the cue
        first = cue.start() if cue else term.start
        named = _NAMES_A_PROCEDURE.search(s.low, term.start, term.end)
        if cue is None and not (Section.SURGERIES in ctx.asked and named):
            continue
        if third_party_before(s, min(first, term.start)) or hypothetical(s, term.start):
            continue
        if _PLANNED.search(s.low, start, term.start):
            continue  # "I might need back surgery", "врач говорит, нужна операция": not done
        status = FactStatus.ABSENT if negated(s, min(first, term.start), term.end) else FactStatus.PRESENT
        drafts.append(_event(Section.SURGERIES, s, term.start, term.end, first, status, {}, ctx))
    taken = [(t.start, t.end) for t in find_terms(("surgery",), s.text)]
    for a, b, hint in _surgery_phrases(s):
        if any(x < b and a < y for x, y in taken):
            continue
        start, end = s.clause(a)
        cue = _SURGERY_CUE.search(s.low, start, end)
        if cue is None or third_party_before(s, min(cue.start(), a)) or hypothetical(s, a):
            continue
        if _PLANNED.search(s.low, start, a):
            continue
        status = FactStatus.ABSENT if negated(s, min(cue.start(), a), b) else FactStatus.PRESENT
        drafts.append(_event(Section.SURGERIES, s, a, b, cue.start(), status, {}, ctx, hint=hint))
    drafts += _procedures(
        s, ctx, [(t.start, t.end) for t in find_terms(("surgery",), s.text)] + [d.span for d in drafts]
    )
    if not drafts:
        m = _SURGERY_ABSENT.search(s.low)
        if m and not third_party_before(s, m.start()):
            drafts.append(Draft(Section.SURGERIES, s.evidence(*m.span()), kind=AssertionKind.SECTION_ABSENT))
    return drafts


def _procedures(s: Sentence, ctx: Context, taken: list[tuple[int, int]]) -> list[Draft]:
    """ "I had a tonsillectomy and an ACL reconstruction": procedures by their form, when the user
    says they had them (or answers the assistant's question about surgeries)."""
    drafts = []
    for m in _PROCEDURE.finditer(s.low):
        lead = _PROCEDURE_LEAD.match(m.group(0))
        a, b = m.start() + (lead.end() if lead else 0), m.end()
        if b - a < 5 or any(x < b and a < y for x, y in taken):
            continue
        start, _ = s.clause(a)
        said_had = _HAD_PROCEDURE.search(s.low, max(0, start - 40), a) or Section.SURGERIES in ctx.asked
        if not said_had or third_party_before(s, a) or hypothetical(s, a) or negated(s, a, b):
            continue
        taken.append((a, b))
        drafts.append(_event(Section.SURGERIES, s, a, b, a, FactStatus.PRESENT, {}, ctx))
    return drafts


# A joint replaced, said by the verb ("they replaced my right knee in 2023", "мне заменили левый
# тазобедренный сустав"): that joint's replacement.
_REPLACED_JOINT = rx(
    r"\breplaced\s+(?:my|the|both)\s+(?:(?:left|right)\s+)?(?P<en>knee|hip|shoulder|ankle|elbow)s?\b"
    r"|\b(?:заменили|поменяли)\s+(?:мне\s+)?(?:(?:левый|правый|оба)\s+)?"
    r"(?P<ru>коленн\w*|тазобедренн\w*|плечев\w*|голеностопн\w*|локтев\w*)\s+сустав\w*"
)


def _replaced_joint(m: re.Match[str]) -> str:
    if m.group("en"):
        return f"{m.group('en')} replacement"
    return f"замена {m.group('ru')[:-2]}ого сустава"


def _surgery_phrases(s: Sentence) -> list[tuple[int, int, str]]:
    """(start, end, hint) of surgeries the table knows only under another name."""
    found = [(m.start(), m.end(), hint) for pattern, hint in _ORGAN_SURGERY for m in pattern.finditer(s.low)]
    found += [(m.start(), m.end(), _replaced_joint(m)) for m in _REPLACED_JOINT.finditer(s.low)]
    for m in _SURGERY_ON.finditer(s.low):
        organ = m.group("en") or m.group(0).split()[0]
        hint = f"{organ} surgery"
        if find_terms(("surgery",), hint):
            found.append((m.start(), m.end(), hint))
    for m in _ORGAN_OPERATED.finditer(s.low):
        # "colon surgery in 1990", "three surgeries for my sinus": a surgery the table has no name for,
        # charted by its organ
        organ = m.group("org") or m.group("org2")
        hint = f"{organ.rstrip('es') if organ.endswith('uses') else organ} surgery"
        if not find_terms(("surgery",), s.text[m.start() : m.end()]) and not any(
            a <= m.start() < b for a, b, _ in found
        ):
            found.append((m.start(), m.end(), hint))
    return sorted(found)


_ORGANS = (
    r"colon|bowel|sinus|sinuses|back|spine|spinal|neck|shoulder|elbow|wrist|hand|finger|hip|knee|ankle|foot"
    r"|toe|heart|lung|liver|kidney|bladder|stomach|thyroid|breast|eye|ear|nose|jaw|brain|prostate|uterus|ovary"
    r"|ovarian|bunion|cataract"
)
_ORGAN_OPERATED = rx(
    rf"\b(?P<org>{_ORGANS})\s+(?:surgery|surgeries|operation|operations|op)\b"
    rf"|\b(?:surgery|surgeries|operation|operations)\s+(?:for|on)\s+(?:my|the|his|her)\s+(?P<org2>{_ORGANS})\b"
)


_BURNS_AS_A_VERB = rx(r"burn(?:s|ing)?\s+(?:when|to|on|during|after|if|while|like|a\s+lot|so)\b")


def _injuries(s: Sentence, ctx: Context, taken: list[tuple[int, int]] | None = None) -> list[Draft]:
    drafts, seen = [], set()
    mentions: list[tuple[int, int, str | None]] = [
        (t.start, t.end, None) for t in find_terms(("injury",), s.text)
    ]
    # a site listed after the first: its name, its part of the sentence, the lead before the list
    listed: dict[int, tuple[str, tuple[int, int], tuple[int, int]]] = {}
    for kind in find_terms(("injury_type",), s.text):
        start, end = s.clause(kind.start)
        sites = find_terms(("body_site",), s.text[start:end])
        if sites:
            nearest = min(sites, key=lambda t: abs(start + t.start - kind.start))
            a, b = min(kind.start, start + nearest.start), max(kind.end, start + nearest.end)
            mentions.append((a, b, nearest.entry.key))
            chain = _listed_sites(s, start + nearest.end)
            if chain:
                parts = _parts(s, [(a, b), *((x, y) for x, y, _ in chain)], start)
                lead = (start, a)  # "我2018年摔断了胳膊和腿", "in 2019 I broke my wrist and my ankle": all
                listed[a] = ("", parts[0], lead)
                for (x, y, listed_site), part in zip(chain, parts[1:], strict=True):
                    mentions.append((x, y, listed_site))
                    listed[x] = (f"{s.text[kind.start : kind.end]} {s.text[x:y]}", part, lead)
    cjk = bool(CJK.search(s.text))
    for a, b, site in sorted(mentions, key=lambda m: (m[0], m[1])):  # a site may be None
        if any(x < b and a < y for x, y in taken or ()):
            continue  # a torn structure read above ("порвал связки колена": the ACL)
        if b - a > 50 or (_zh_not_the_users(s, a, b) if cjk else _not_the_users(s, a, b)):
            continue
        if _BURNS_AS_A_VERB.match(s.low, a):
            continue  # "it really burns when i wee": a burning pain, no burn
        normalized = normalize_name(Section.INJURIES, s.text[a:b])
        if normalized.key in seen:
            continue
        seen.add(normalized.key)
        # Chinese tells the healing in the clause after ("胳膊骨折过，早就长好了")
        healing = s.low[a:] if cjk else s.low[slice(*s.clause(a))]
        # "broke my wrist in january, cast came off last week": over, in a clause after
        over = _HEALED.search(healing) or _CAST_OFF.search(s.low, b)
        status = FactStatus.RESOLVED if over else FactStatus.PRESENT
        draft = _event(Section.INJURIES, s, a, b, a, status, {"body_site": site} if site else {}, ctx)
        if a in listed:  # "broke my arm in 2010 and my ankle last year": each site dated by its own part
            name, part, lead = listed[a]
            if name:
                draft.name, draft.hint = name, normalize_name(Section.INJURIES, name).name_normalized
            dated, when = _dated_part(s, part, ctx)
            if not dated:
                dated, when = _dated_part(s, lead, ctx)
            draft.attributes = {
                **{k: v for k, v in draft.attributes.items() if k not in ("year", "date")},
                **dated,
            }
            draft.valid_from = when
        drafts.append(draft)
    if not mentions:
        drafts += _healed_since(s)
    return drafts


# A site listed after the injury's own: "and my ankle", ", и ногу", "和腿"; then no verb of its own
# ("broke my wrist and my knee hurts" breaks no knee)
_SITE_JOIN = rx(
    r"^\s*(?:,|;|，|、)?\s*(?:and|plus|и|а\s+также|和|还有|跟)?\s*(?:also\s+|ещё\s+|еще\s+|тоже\s+)?"
    r"(?:(?:my|the|his|her|left|right|other|мою|мой|моё|мое|левую|правую|левый|правый|левое|правое|другую|左|右|另一[只条个边]?)\s*)*$"
)
_OWN_PREDICATE = rx(
    r"^\s*(?:is|was|are|were|still|hurts?|aches?|feels?|gets?|got|has|had|keeps|swell\w*|болит|болела|болел|болят|ноет|ныла"
    r"|опух\w*|в\s+порядке|норм\w*|fine|ok|okay|疼|痛|好了|没事|肿)\b"
)


def _dated_part(s: Sentence, part: tuple[int, int], ctx: Context) -> tuple[dict, str | None]:
    return event_date(s.low[slice(*part)], ctx)


def event_date(low: str, ctx: Context) -> tuple[dict, str | None]:
    """The year (and date) an event's own words give, in any of the three languages ("2015年")."""
    dated, when = _dated(low, ctx)
    if not dated and CJK.search(low):
        when = zh_year_of(low, ctx.today)
        dated = {"year": int(when[:4]), **({"date": when} if len(when) > 4 else {})} if when else {}
    return dated, when


def _listed_sites(s: Sentence, after: int) -> list[tuple[int, int, str]]:
    """Body sites listed after the injury's own under its one verb ("broke my arm in 2010 and my
    ankle last year", "сломала руку и ногу", "摔断了胳膊和腿"): each joined to the one before (a
    date may sit between), no other injury or verb between, none with a predicate of its own."""
    chain: list[tuple[int, int, str]] = []
    last = after
    for t in sorted(find_terms(("body_site",), s.text), key=lambda t: t.start):
        if t.start < last:
            continue
        between = s.text[last : t.start]
        if find_terms(("injury", "injury_type"), between) or len(between) > 40:
            break
        joined = _JOINER.search(s.low, last, t.start)
        if joined is None or not _SITE_JOIN.match(s.low[joined.start() : t.start]):
            break
        if _OWN_PREDICATE.match(s.low[t.end :]):
            break
        chain.append((t.start, t.end, t.entry.key))
        last = t.end
    return chain


def _parts(s: Sentence, items: list[tuple[int, int]], start: int) -> list[tuple[int, int]]:
    """Each listed item's part: from the last joiner before it to the last joiner before the next."""
    parts: list[tuple[int, int]] = []
    for index, (a, b) in enumerate(items):
        nxt = items[index + 1][0] if index + 1 < len(items) else s.clause(max(a, b - 1))[1]
        joins = [m.start() for m in _JOINER.finditer(s.low, b, nxt)]
        lo = parts[-1][1] if parts else start
        parts.append((lo, joins[-1] if joins and index + 1 < len(items) else max(nxt, b)))
    return parts


# An injury on record said to be over without its name: the cast or the stitches off ("cast came
# off last week", "гипс сняли", "拆了石膏"), or the injured part fine again ("the wrist is fine
# now", "рука уже не болит", "脚踝好了"). write/focus.py picks the injury (at that site, when one
# is said); with none on record it stores nothing.
_CAST = r"(?:cast|splint|brace|boot|stitches|sutures|гипс\w*|лонгет\w*|швы|шины?|石膏|夹板|支具|线)"
_CAST_OFF = rx(
    rf"\b{_CAST}\s+(?:is\s+|are\s+|was\s+|were\s+|came\s+|come\s+|got\s+|finally\s+|just\s+)*(?:off|out|removed)\b"
    rf"|\b(?:got|had|took)\s+(?:the\s+|my\s+)?{_CAST}\s+(?:off|out|removed)\b"
    rf"|\bсняли\s+{_CAST}|{_CAST}\s+(?:уже\s+|наконец\s+|вчера\s+|сегодня\s+)*сняли\b"
    rf"|拆(?:了)?{_CAST}|{_CAST}(?:已经|终于)?拆(?:了|掉)"
)
# read with match() right after the site's name
SITE_FINE = rx(
    r"\W*(?:(?:is|'s|feels|feel|seems|are|now|much)\s+)*(?:(?:totally|completely|fully|all|pretty\s+much|back\s+to)\s+)?"
    r"(?:fine|ok|okay|good|normal|healed|better\s+now)\b"
    r"|\W*(?:(?:is|'s|are)\s+)?(?:not|no\s+longer)\s+(?:hurting|sore|painful)\b|\W*(?:doesn'?t|does\s+not)\s+hurt\s+any\s?more"
    r"|\W*(?:(?:уже|совсем|больше|вообще)\s+)*(?:не\s+болит|зажил\w*|срослась|сросся|в\s+порядке|нормально)"
    r"|\W*(?:已经|早就|完全|都)?(?:好了|不疼了|不痛了|长好了|恢复了)"
)


def _healed_since(s: Sentence) -> list[Draft]:
    if third_party_before(s, 0) or hypothetical(s, 0):
        return []
    cast = _CAST_OFF.search(s.low)
    sites = [t for t in find_terms(("body_site",), s.text) if SITE_FINE.match(s.low, t.end)]
    if sites and not _not_the_users(s, sites[0].start, sites[0].end):
        a, attributes = sites[0].start, {"body_site": sites[0].entry.key}
    elif cast and not negated(s, cast.start(), cast.end()):
        a, attributes = cast.start(), {}
    else:
        return []
    end = s.clause(a)[1]
    draft = Draft(Section.INJURIES, s.evidence(a, end), status=FactStatus.RESOLVED, refers_to_focus=True)
    draft.attributes = attributes
    return [draft]


def _not_the_users(s: Sentence, a: int, b: int) -> bool:
    return third_party_before(s, a) or hypothetical(s, a) or negated(s, a, b)


def _zh_not_the_users(s: Sentence, a: int, b: int) -> bool:
    """A relative's or someone else's, a question or a condition, a near miss ("差点摔断了腿"), or
    denied anywhere in the clause up to the injury ("腿没有骨折", "没摔断过")."""
    if not zh_about_the_user(s, a):
        return True
    start = s.clause(a)[0]
    before = s.low[start:b]
    if _ZH_NEAR_MISS.search(before):
        return True
    masked = zh_masked(_ZH_NOT_NEGATION.sub(lambda m: "_" * len(m.group(0)), before))
    return bool(ZH_NEGATION.search(masked))


# Someone else brought the user to it: "my daughter made me get both shots", "жена уговорила меня
# сделать прививку", "my GP talked me into the flu jab": the vaccine is the user's.
_MADE_ME = rx(
    r"\b(?:made|had|got|convinced|talked|persuaded|pushed|forced|dragged|took|drove|booked)\s+me\b"
    r"|\b(?:заставил\w*|уговорил\w*|отвел\w*|отвёл\w*|отвезл\w*|отвез\w*|записал\w*|повел\w*|повёл\w*)\s+меня\b"
)


def _vaccinations(s: Sentence, ctx: Context) -> list[Draft]:
    drafts, seen = [], set()
    for term in find_terms(("vaccine",), s.text):
        start, end = s.clause(term.start)
        cue = _VACCINE_CUE.search(s.low, start, end)
        first = min(cue.start(), term.start) if cue else term.start
        brought = _MADE_ME.search(s.low, start, first)
        if cue is None or hypothetical(s, term.start) or _DIAGNOSIS_PUT.search(s.low, start, end):
            continue
        if third_party_before(s, first) and brought is None:
            continue
        if term.entry.key in seen:
            continue
        seen.add(term.entry.key)
        first = min(cue.start(), term.start)
        status = (
            FactStatus.ABSENT if negated(s, first, max(cue.end(), term.end), window=3) else FactStatus.PRESENT
        )
        extra = {}
        dose = _DOSE_NUMBER.search(s.low, start, end)
        if dose and status is FactStatus.PRESENT:
            n = parse_number(dose.group("n")) or _ordinal(dose.group("n"))
            if n:
                extra["dose_number"] = int(n)
        a, b = (
            (first, max(cue.end(), term.end))
            if max(cue.end(), term.end) - first <= 40
            else (term.start, term.end)
        )
        drafts.append(_event(Section.VACCINATIONS, s, a, b, first, status, extra, ctx))
    return drafts


def _ordinal(word: str) -> int | None:
    for prefix, n in (("перв", 1), ("втор", 2), ("трет", 3)):
        if re.match(prefix, word):
            return n
    return None
