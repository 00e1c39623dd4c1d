"""Allergies: present / absent per allergen, and the section-level "none" and "don't know"."""

from __future__ import annotations

from ...domain.models import AssertionKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK
from ..normalize import find_terms, kinds_for, normalize_name
from .chinese import _reaction as zh_reaction
from .objects import enumeration
from .text import (
    RELATIVE,
    SENTENCE_STOP,
    THIRD_PARTY,
    UNCERTAIN,
    UNCERTAIN_LEAD,
    Context,
    Draft,
    Sentence,
    hypothetical,
    negated,
    rx,
    third_party_before,
)

SECTIONS = frozenset({Section.ALLERGIES})
_KINDS = kinds_for(Section.ALLERGIES)
_MENTION = rx(r"аллерг|allerg|непереносим|intoleran|nkda|реакци|reaction|react(?:ed|s)?\s")

_DONT_KNOW_RU = (
    r"(?:не\s+знаю|не\s+уверен\w*|не\s+помню|без\s+понятия|понятия\s+не\s+имею"
    r"|затрудняюсь\s+\w+|не\s+в\s+курсе)"
)
_DONT_KNOW_EN = (
    r"(?:not\s+sure|unsure|don't\s+know|do\s+not\s+know|dont\s+know|no\s+idea|not\s+certain|can't\s+remember)"
)
_UNSURE = rx(
    # "не знаю, есть ли у меня аллергия", "не уверена насчёт аллергии"
    rf"{_DONT_KNOW_RU}[\s,]+(?:[\w-]+[\s,]+){{0,4}}?(?:ли|про|насчет|о|об|на\s+что)\b"
    r"[\s,]+(?:[\w-]+[\s,]+){0,4}?аллерг"
    r"|\b(?:насчет|про|что\s+касается)\s+аллерги\w*[\s,]+(?:[\w-]+[\s,]+){0,2}?не\s+(?:знаю|уверен\w*|помню)"
    r"|\bесть\s+ли\s+(?:у\s+меня\s+)?аллерги\w*[\s,—-]+(?:я\s+)?не\s+(?:знаю|уверен\w*)"
    # "not sure whether I have allergies", "I don't know if I'm allergic to anything"
    rf"|{_DONT_KNOW_EN}[\s,]+(?:\S+\s+){{0,3}}?(?:whether|if|about|of)\b(?:\s+\S+){{0,4}}?\s+allerg"
    r"|\bnever\s+been\s+tested\s+for\s+allerg"
)
_NONE = r"(?!\s+(?:на|к|to)\s+(?!что|anything))"  # "нет аллергии" but not "нет аллергии на X"
_SECTION_ABSENT = rx(
    r"\bаллерги[йи]\s+(?:у\s+меня\s+)?(?:никаких\s+|вообще\s+|совсем\s+)?(?:нет|нету|не\s+было|не\s+имею)\b"
    rf"|\b(?:нет|нету|не\s+имею|не\s+было)\s+(?:у\s+меня\s+)?(?:никак\w+\s+|вообще\s+)?аллерги[йиюя]\b{_NONE}"
    rf"|\bникаких\s+аллерги[йи]\b{_NONE}"
    r"|\bни\s+на\s+что\s+(?:у\s+меня\s+)?(?:нет\s+)?аллерги\w*|\bаллерги\w*\s+(?:у\s+меня\s+)?ни\s+на\s+что"
    rf"|\bне\s+(?:страдаю\s+аллерги\w*|аллергик\w*)\b{_NONE}"
    r"|\b(?:don't|do\s+not|dont)\s+have\s+(?:any\s+)?(?:known\s+)?allergies\b"
    rf"|\bno\s+(?:known\s+)?(?:drug\s+|food\s+)?allerg(?:ies|y)\b{_NONE}"
    r"|\bnot\s+allergic\s+to\s+any(?:thing|\s+(?:drugs|medications?|medicines?))\b|\bnot\s+allergic\b(?!\s+to)"
    r"|\bnkda\b|\bнет\s+аллергии\s+на\s+(?:какие-либо\s+|никакие\s+)?(?:лекарства|препараты)\b"
    r"|\b(?:allergies|аллергии)\s*[:-]\s*(?:none|no|nil|нет|нету)\b"
)
_EXCEPT = rx(
    r"\s*,?\s*\b(?:except|apart\s+from|other\s+than|besides|save\s+for|but\s+(?:for\s+)?|кроме|за\s+исключением"
    r"|помимо|разве\s+что)\b(?:\s+(?:как|for|to|на|of))*\s+"
)
# "аллергия на X", "allergic to X": the object list follows.
# "аллергия только на пенициллин", "allergic only to penicillin": a word of how many before the object
_ONLY = r"(?:(?:только|лишь|разве\s+что|ещё|еще|тоже|также|only|just|also)\s+)?"
_TRIGGER = rx(
    rf"\bаллерги\w*\s+(?:реакци\w*\s+)?(?:у\s+меня\s+)?{_ONLY}(?:на|к)\s+|\bаллергик\w*\s+{_ONLY}на\s+"
    rf"|\b(?:allergic|allergy|allergies)\s+(?:reactions?\s+)?{_ONLY}to\s+"
)
# Intolerance counts only for what the table knows ("не переношу жару" is no allergy).
_WEAK_TRIGGER = rx(
    r"\bнепереносимост\w*\s+(?:к\s+)?|\bне\s+переношу\s+"
    r"|\bintoleran(?:t|ce)\s+(?:to\s+)?|\b(?:hyper)?sensitive\s+to\s+"
)
# "на пенициллин (у меня) аллергия / аллергии нет": the object comes first.
_OBJECT_BEFORE = rx(
    r"\bна\s+(?P<obj>[^,.;!?]{2,40}?)\s+(?:у\s+меня\s+)?"
    r"(?:(?:тоже|также|еще|сильная|жуткая|страшная|есть|была|нет)\s+)*аллерги\w*"
)
# "на цефазолин была реакция", "после цефтриаксона была аллергия": for what the table knows.
_REACTION_BEFORE = rx(
    r"\bна\s+(?P<obj>[^,.;!?]{2,40}?)\s+(?:у\s+меня\s+)?(?:(?:тоже|также|еще|была|была\s+\w+|есть|сильная)\s+)*"
    r"реакци\w*"
    r"|\bпосле\s+(?P<after>[^,.;!?]{2,40}?)\s+(?:у\s+меня\s+)?(?:была|было|началась|случилась|появилась)\s+"
    r"(?:\w+\s+)?(?:аллерги|реакци|сып|крапивниц|отек)\w*"
)
# "had a bad reaction to cefazolin", "reacted to X", "была реакция на X": an allergy when the table
# knows X ("a reaction to the news" is none); "had no reaction to X" is no trigger.
_REACTION_TRIGGER = rx(
    r"\b(?:had|have|has|get|gets|got|getting|having|developed)\s+(?:an?\s+)?(?:(?!no\b|not\b)[\w-]+\s+){0,2}?"
    r"reactions?\s+to\s+|\breact(?:ed|s)?\s+(?:badly\s+|poorly\s+|strongly\s+)?to\s+"
    r"|\bреакци\w*\s+(?:у\s+меня\s+)?(?:была\s+|есть\s+)?на\s+|\bотреагировал\w*\s+на\s+"
)
# What follows an allergen in a list but is no allergen: the reaction ("на амоксициллин, сыпь") or a
# person ("allergic to penicillin, my brother too").
_NOT_ALLERGEN = rx(
    r"^(?:(?:сып|высып|крапивниц|отек|зуд|hives|rash|swell|itch|anaphyla|анафилак|tight|tingl|scratch|wheez"
    r"|puff|опух|чеш|перш|сдавлив|сжима)\w*"
    r"|husband|wife|partner|friend|kids?|child(?:ren)?|муж\w*|жен[аы]|друг\w*|подруг\w*|дет\w*|ребен\w*)$"
)
# "My wife is allergic to penicillin, not me", "у мамы аллергия на пенициллин, а у меня нет".
_NOT_ME = rx(
    r"\bnot\s+(?:me|mine|myself)\b|\bа\s+не\s+(?:у\s+)?(?:меня|я)\b|\bне\s+у\s+меня\b"
    r"|\bа\s+у\s+меня\s+(?:(?:ее|её|такой|этой)\s+)?(?:нет|не\s+было)\b"
)
# "аллергия на пенициллин не у меня, а у мужа": the allergen is someone else's, the user's "no".
_NOT_MINE_AFTER = rx(
    r"\s*,?\s*(?:это\s+)?(?:не\s+у\s+меня|not\s+(?:me|mine))\s*[,—–-]?\s*(?:а\s+|but\s+|it'?s\s+)?"
)
# "у меня на него всё нормально", "I'm fine with it": the allergen taken back a moment ago is
# explicitly not the user's (read only against a retracted mention: see ``resolve_references``).
_FINE_WITH_IT = rx(
    r"\bу\s+меня\s+(?:на\s+(?:него|нее|неё|них)|к\s+(?:нему|ней|ним))\s+(?:вс[её]\s+)?(?:нормально|в\s+порядке|ок"
    r"|ничего\s+нет|нет\s+(?:никакой\s+)?(?:аллергии|реакции)|(?:аллергии|реакции)\s+нет)"
    r"|\b(?:на\s+(?:него|нее|неё|них)|к\s+(?:нему|ней|ним))\s+у\s+меня\s+(?:вс[её]\s+)?(?:нормально|в\s+порядке"
    r"|ничего\s+нет|нет\s+(?:никакой\s+)?(?:аллергии|реакции)|(?:аллергии|реакции)\s+нет)"
    r"|\b(?:я|мне)\s+(?:его|ее|её|их)\s+(?:нормально|хорошо)\s+переношу\b"
    r"|\b(?:i'?m|i\s+am)\s+(?:fine|ok|okay|good)\s+with\s+(?:it|them|that\s+one)\b"
    r"|\b(?:i'?m|i\s+am)\s+not\s+allergic\s+to\s+(?:it|them|that\s+one)\b"
    r"|\bi\s+(?:tolerate|handle|take)\s+(?:it|them)\s+(?:just\s+)?(?:fine|well|ok|okay)\b"
)
# "peanut allergy"; not "cetirizine for allergies" (the drug taken for it: an indication)
_ADJUNCT = rx(
    r"\b(?P<obj>[a-z][a-z'-]*(?:\s+[a-z][a-z'-]*)?)(?<!\bfor)(?<!\bfrom)(?<!\bagainst)(?<!\bmy)"
    r"\s+allerg(?:y|ies)\b"
)
# "..., а ещё на X" continues the list; "..., но не на X" turns it negative.
_CONTINUE = rx(
    r"\s*,?\s*(?P<conj>а|и|но|but|and)\s+(?P<mine>(?:у\s+меня|я|i'?m|i\s+am|mine|me)\s*[—–-]?\s*)?(?P<neg>не\s+|not\s+)?"
    r"(?:есть\s+)?(?:ещё|еще|также|тоже|also|even)?\s*(?:на|to)\s+"
)
# "..., never tested", "не проверялась", "没测过", "вроде на морепродукты": the allergy is a guess
_GUESSED = rx(
    r"\bnever\s+(?:been\s+|had\s+(?:it\s+|that\s+)?)?(?:tested|checked|confirmed|a\s+test|any\s+tests)"
    r"|\bnot\s+(?:been\s+)?(?:tested|confirmed)|\bi\s+think\b|\bi\s+guess\b"
    r"|\bне\s+(?:проверял\w*|подтвержд\w*|сдавал\w*)|\bвроде\b(?!\s+(?:бы\s+)?нет)|\bкажется\b"
    r"|没(?:有)?(?:测|查|检查|确诊)过?|不确定|应该是"
)


def guessed(s: Sentence, pos: int) -> bool:
    """The allergy said at ``pos`` is the user's guess ("might be allergic to shellfish, never
    tested"): it is kept, since a suspected allergy is a reason for caution, and said as a guess."""
    # only its own sentence: "penicillin, gives me hives. might be allergic to shellfish too"
    # guesses the shellfish, not the penicillin (an answer comes here as one whole message)
    start = max((m.end() for m in SENTENCE_STOP.finditer(s.low, 0, pos)), default=0)
    end = next((m.start() for m in SENTENCE_STOP.finditer(s.low, pos)), len(s.low))
    clause_start, clause_end = s.clause(pos)
    clause = s.low[max(start, clause_start) : min(end, clause_end)]
    lead = s.low[start : max(start, clause_start)]
    return bool(
        UNCERTAIN.search(clause) or UNCERTAIN_LEAD.fullmatch(lead) or _GUESSED.search(s.low, start, end)
    )


_RESOLVED = rx(
    r"\bперерос\w*|\bпрошл[аио]\b|\bпрошел\b|\b(?:уже|больше)\s+нет\s+аллерги"
    r"|\boutgr[eo]w\w*|\bgrew\s+out\b|\bno\s+longer\s+allergic\b|\bused\s+to\s+be\s+allergic\b"
)
_REACTIONS = [
    (rx(r"анафилак\w*|anaphyla\w*"), "anaphylaxis", "severe"),
    (rx(r"отек\w*\s+квинке|angioedema"), "angioedema", "severe"),
    (
        rx(r"удушь\w*|задыха\w*|difficulty\s+breathing|can't\s+breathe|throat\s+(?:swell|clos)\w*"),
        "breathing difficulty",
        "severe",
    ),
    (rx(r"отек\w*\s+горл\w*|горл\w*\s+отек\w*"), "breathing difficulty", "severe"),
    # "my throat gets all itchy and tight", "сжимает горло": the airway closing, however it is said
    (
        rx(
            r"throat\s+(?:[\w-]+\s+){0,4}?(?:tight\w*|clos\w*)|tight\w*\s+(?:in\s+(?:my|the)\s+)?throat"
            r"|горл\w*\s+(?:[\w-]+\s+){0,3}?(?:сжима|сдавлива|перехватыва)\w*|(?:сжима|сдавлива|перехватыва)\w*\s+горл"
        ),
        "throat tightness",
        "severe",
    ),
    (rx(r"крапивниц\w*|hives"), "hives", None),
    (rx(r"сып\w*|высыпа\w*|rash\w*"), "rash", None),
    (rx(r"отек\w*|отека\w*|swell\w*"), "swelling", None),
    (rx(r"зуд\w*|чеш\w*|itch\w*"), "itching", None),
    (rx(r"чиха\w*|насморк\w*|sneez\w*|runny\s+nose"), "sneezing, runny nose", None),
]
_SEVERITY = [
    (rx(r"\b(?:сильн\w*|тяжел\w*|серьезн\w*|жутк\w*|страшн\w*|severe\w*|serious\w*)\b"), "severe"),
    (rx(r"\b(?:умеренн\w*|moderate\w*)\b"), "moderate"),
    (rx(r"\b(?:легк\w*|небольш\w*|слаб\w*|mild\w*|slight\w*)\b"), "mild"),
]


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    fine = _FINE_WITH_IT.search(s.low)
    if fine and not third_party_before(s, fine.start()) and not hypothetical(s, fine.start()):
        reference = Draft(
            Section.ALLERGIES, s.evidence(*fine.span()), status=FactStatus.ABSENT, refers_to_focus=True
        )
        return [reference, *(d for d in _extract(s) if d.span[1] <= fine.start())]
    drafts = [d for d in _extract(s) if not _remedy_carried(s, d)]
    return drafts or _drug_reacted_to(s)


# A drug the user reacted to, told as what happened ("they gave me trimethoprim and i came out in a
# rash", "amoxicillin gave me hives", "после амоксиклава всю обсыпало", "吃了阿莫西林起了一身疹子"): an
# allergy with its reaction, as a clinician charts it; the rash was the drug's, not a complaint now.
DRUG_REACTION = rx(
    r"\b(?:came|come|comes|broke|break|breaks)\s+(?:out|up)\s+in\b"
    r"|\b(?:gives?|gave|giving)\s+me\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:rash|hives|welts|swelling|anaphyla\w*)"
    r"|\b(?:got|get|developed|had)\s+(?:an?\s+|this\s+|these\s+|the\s+)?(?:[\w-]+\s+){0,2}?(?:rash|hives|welts|anaphyla\w*)\b"
    r"|\b(?:обсыпал\w*|высыпал\w*|вылезл\w*\s+(?:сыпь|крапивниц\w*)|появил\w*\s+(?:сыпь|крапивниц\w*)"
    r"|был[аио]?\s+(?:сильн\w+\s+)?(?:сыпь|крапивниц\w*|отек|отёк)|пошл[аи]\s+(?:сыпь|пятн\w*))"
    r"|起了?(?:一身|满身|全身)?(?:的)?(?:红)?(?:疹子|疹|荨麻疹|风团)|(?:出|长)了?(?:一身|满身|全身)?(?:的)?(?:红)?疹"
)


def _drug_reacted_to(s: Sentence) -> list[Draft]:
    reaction = DRUG_REACTION.search(s.low)
    if reaction is None or negated(s, reaction.start(), reaction.end()) or hypothetical(s, reaction.start()):
        return []
    drugs = [  # a drug, or a drug class the allergen table holds ("头孢", "sulfa")
        t
        for t in find_terms(("drug", "allergen"), s.text)
        if t.end <= reaction.start() and (t.entry.kind == "drug" or t.entry.extra.get("type") == "drug")
    ]
    if (
        not drugs
        or third_party_before(s, drugs[-1].start)
        or RELATIVE.search(s.low)
        or THIRD_PARTY.search(s.low)
    ):
        return []
    drug = drugs[-1]
    if reaction.start() - drug.end > 60:
        return []
    how = zh_reaction if CJK.search(s.text) else _reaction
    return [
        Draft(
            Section.ALLERGIES,
            s.evidence(drug.start, reaction.end()),
            name=s.text[drug.start : drug.end],
            hint=normalize_name(Section.ALLERGIES, s.text[drug.start : drug.end]).name_normalized,
            status=FactStatus.PRESENT,
            attributes={**how(s.low[reaction.start() :]), "allergen_type": "drug"},
        )
    ]


# "allergic to bees, carry an epipen", "на орехи, ношу с собой эпипен": the drug against the
# reaction, never an allergen. ``REMEDY_TAKEN`` adds the verbs of taking, for an answer about the
# allergy ("peanuts, take Zyrtec for it"); beside a statement they may name an allergen ("can't
# take aspirin either").
_CARRY = (
    r"\bcarry|\bcarries|\bkeep|\bhave\s+to\s+(?:use|take)|ношу|держу|с\s+собой|пользуюсь|随身带|随身携带|备着"
)
_REMEDY_TAIL = r"\s*(?:an?\s+|the\s+|my\s+|с\s+собой\s+|при\s+себе\s+)?$"
REMEDY_CARRIED = rx(rf"(?:{_CARRY}){_REMEDY_TAIL}")
REMEDY_TAKEN = rx(rf"(?:{_CARRY}|\buse|\btake|\bon|принимаю|пью|спасаюсь|吃|用){_REMEDY_TAIL}")


def _remedy_carried(s: Sentence, draft: Draft) -> bool:
    if draft.section is not Section.ALLERGIES or not draft.name or draft.status is FactStatus.ABSENT:
        return False
    at = s.low.find(draft.name.casefold())
    return at > 0 and bool(REMEDY_CARRIED.search(s.low, max(0, at - 30), at))


def resolve_references(found: list[Draft], earlier: list[Draft]) -> list[Draft]:
    """ "... это у дочки. У меня на него всё нормально": a pronoun of ``_FINE_WITH_IT`` names the
    allergen last taken back in this message (``earlier`` and this sentence's retracted drafts);
    with none, it is dropped (never guessed among the user's stored allergies)."""
    if not any(d.refers_to_focus and d.section is Section.ALLERGIES and not d.name for d in found):
        return found
    void = [d for d in [*earlier, *found] if d.section is Section.ALLERGIES and d.retracted and d.name]
    out = []
    for d in found:
        if d.refers_to_focus and d.section is Section.ALLERGIES and not d.name:
            if not void:
                continue
            d.name, d.hint, d.refers_to_focus = void[-1].name, void[-1].hint, False
            d.attributes = {k: v for k, v in void[-1].attributes.items() if k == "allergen_type"}
        out.append(d)
    return out


def _extract(s: Sentence) -> list[Draft]:
    if not _MENTION.search(s.low):
        return []
    unsure = _UNSURE.search(s.low)
    if unsure:
        if _object_follows(s, unsure.end()):
            return []  # "not sure whether I'm allergic to penicillin": no status to record
        return [Draft(Section.ALLERGIES, s.evidence(*unsure.span()), kind=AssertionKind.SECTION_UNSURE)]
    absent = _SECTION_ABSENT.search(s.low)
    exception = _EXCEPT.search(s.low, absent.end()) if absent else None
    if exception:
        # "No allergies except penicillin": a scope terminator; what follows IS an allergy.
        return [
            Draft(
                Section.ALLERGIES,
                s.evidence(absent.start(), b),  # type: ignore[union-attr]
                name=s.text[a:b],
                hint=normalize_name(Section.ALLERGIES, s.text[a:b]).name_normalized,
                status=FactStatus.PRESENT,
            )
            for a, b, _ in enumeration(s, exception.end(), _KINDS)
        ]
    drafts = _entities(s)
    if not drafts and absent is not None and not third_party_before(s, absent.start()):
        if hypothetical(s, absent.start()):
            return drafts
        return [Draft(Section.ALLERGIES, s.evidence(*absent.span()), kind=AssertionKind.SECTION_ABSENT)]
    return drafts


def _object_follows(s: Sentence, pos: int) -> bool:
    m = _TRIGGER.search(s.low, max(0, pos - 12))
    if not m:
        return False
    items = enumeration(s, m.end(), _KINDS)
    return bool(items)


def _entities(s: Sentence) -> list[Draft]:
    # (trigger start, item start, item end, table term or None, status forced by "но не на ...")
    found: list[tuple[int, int, int, object, FactStatus | None]] = []
    for m in _TRIGGER.finditer(s.low):
        items = enumeration(s, m.end(), _KINDS)
        found += [(m.start(), a, b, t, None) for a, b, t in items]
        more = _CONTINUE.match(s.low, items[-1][1]) if items else None
        if more:  # "на арахис, а ещё на кошек", "на пенициллин, но не на цефалоспорины"
            # "нет аллергии на орехи, но есть на мёд", "not to peanuts, but to shellfish": a contrast
            # without its own "не" is an allergy, whatever the clause before it said
            contrast = more.group("conj") in ("но", "but", "а")
            forced = FactStatus.ABSENT if more.group("neg") else (FactStatus.PRESENT if contrast else None)
            # "У коллеги аллергия на латекс, а у меня — на пыль": the continuation is the user's own.
            trigger = more.start("mine") if more.group("mine") else m.start()
            found += [(trigger, a, b, t, forced) for a, b, t in enumeration(s, more.end(), _KINDS)]
    for pattern in (_WEAK_TRIGGER, _REACTION_TRIGGER):
        for m in pattern.finditer(s.low):
            found += [(m.start(), a, b, t, None) for a, b, t in enumeration(s, m.end(), _KINDS, False) if t]
    for m in _REACTION_BEFORE.finditer(s.low):
        obj = "obj" if m.group("obj") else "after"
        found += [
            (m.start(), a, b, t, None)
            for a, b, t in enumeration(s, m.start(obj), _KINDS, False)
            if t and b <= m.end(obj)
        ]
    for m in _OBJECT_BEFORE.finditer(s.low):
        found += [
            (m.start(), a, b, t, None) for a, b, t in enumeration(s, m.start("obj"), _KINDS) if b <= m.end()
        ]
    for m in _ADJUNCT.finditer(s.low):
        terms = find_terms(_KINDS, s.text[m.start("obj") : m.end("obj")])
        if terms:
            t = terms[-1]
            found.append((m.start(), m.start("obj") + t.start, m.start("obj") + t.end, t, None))

    found = [f for f in found if f[3] is not None or not _NOT_ALLERGEN.match(s.low[f[1] : f[2]])]
    found = [f for f in found if f[3] is not None or not RELATIVE.fullmatch(s.low[f[1] : f[2]])]
    drafts, seen = [], set()
    for trigger, a, b, term, forced in sorted(found, key=lambda f: f[1]):
        first = min(trigger, a)
        if hypothetical(s, first):
            continue
        if third_party_before(s, first):
            # "It's my wife who's allergic to penicillin, not me": the user's own "no"
            not_me = _NOT_ME.search(s.low)
            other = THIRD_PARTY.search(s.low)
            if not (not_me and other and other.start() < not_me.start()):
                continue
            forced = FactStatus.ABSENT
        name = s.text[a:b]
        normalized = normalize_name(Section.ALLERGIES, name)
        if normalized.key in seen:
            continue
        seen.add(normalized.key)
        if forced is not None:
            status = forced
        elif _RESOLVED.search(s.low):
            status = FactStatus.RESOLVED
        elif negated(s, first, b):
            status = FactStatus.ABSENT
        elif a > first and negated(s, a, b, window=3) and not UNCERTAIN.search(s.low[first:a]):
            status = FactStatus.ABSENT  # "allergic to sulfa drugs, not to penicillin": the item's own "not"
        else:
            status = FactStatus.PRESENT
        not_mine = _NOT_MINE_AFTER.match(s.low, b)
        if status is FactStatus.PRESENT and not_mine and THIRD_PARTY.match(s.low, not_mine.end()):
            status = FactStatus.ABSENT
        attributes = _reaction(s.low) if status is FactStatus.PRESENT else {}
        entry = getattr(term, "entry", None)
        if entry is not None:
            attributes["allergen_type"] = "drug" if entry.kind == "drug" else entry.extra.get("type")
        drafts.append(
            Draft(
                Section.ALLERGIES,
                s.evidence(first, b),
                name=name,
                hint=normalized.name_normalized,
                status=status,
                attributes={k: v for k, v in attributes.items() if v},
            )
        )
    return drafts


def _reaction(tail: str) -> dict:
    attributes: dict = {}
    reactions = []
    for pattern, reaction, severity in _REACTIONS:
        if pattern.search(tail) and reaction not in reactions:
            reactions.append(reaction)
            attributes.setdefault("severity", severity)
    if reactions:
        attributes["reaction"] = ", ".join(reactions)[:120]
    for pattern, severity in _SEVERITY:
        if pattern.search(tail):
            attributes["severity"] = attributes.get("severity") or severity
            break
    return attributes
