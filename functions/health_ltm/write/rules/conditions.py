"""Chronic conditions, reported diagnoses and family history: one table mention, three readings.

"У меня гипертония" is the user's chronic condition, "мне поставили бронхит" a reported
diagnosis, "у мамы диабет 2 типа" family history; negation makes the entity absent.
"""

from __future__ import annotations

import re

from ...domain.attributes import Relative
from ...domain.models import AssertionKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK, fold_in_place
from ..normalize import Entry, Term, find_terms, lookup, normalize_name
from .chinese import zh_relatives
from .dates import find_since
from .symptoms import recovered
from .text import (
    FAMILY_WIDE,
    FIRST_PERSON,
    NEGATION,
    PRONOUN_SUBJECT,
    PSEUDO_NEGATION,
    RELATIVE,
    RELATIVE_BY_WORD,
    RESULTS_CAME,
    THIRD_PARTY,
    Context,
    Draft,
    Sentence,
    hypothetical,
    negated,
    rx,
    split_sentences,
    third_party_before,
    uncertain,
)

SECTIONS = frozenset({Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES, Section.FAMILY_HISTORY})
_KINDS = ("condition",)

_CUE = rx(
    r"\bу\s+меня\b|\bменя\b|\bмне\b|\bя\b|\bесть\b|\bстрадаю\b|\bболею\b|\bболел[аи]?\b|\bпереболел\w*"
    r"|\bперенес\w*|\bдиагност\w*|\bдиагноз\w*|\bпоставили\b|\bобнаружили\b|\bнашли\b|\bвыявили\b|\bi\b"
    r"|\bi'm\b|\bim\b|\bi've\b|\bmy\b|\bme\b|\bdiagnosed\b|\bsuffer\w*|\bhad\b|\bhave\b|\bgot\b"
    r"|\bлечусь\b|\bнаблюдаюсь\b|\bна\s+учете\b|\bв\s+анамнезе\b|\bhistory\s+of\b"
    # "в прошлом году был ковид": the speaker's, said without a person (a relative's is read apart)
    r"|\bбыл[аио]?\b"
)
# "давление 140 на 90", "cholesterol is 6.2": a reading, not a diagnosis.
# "давление 140", "sugar was 7.5", "pressure at 140/90": a reading; "a heart attack at 50" is an age
# (but "гипертония 1 степени", "diabetes type 2", "asthma grade 2" name a grade, not a reading)
_READING_AFTER = rx(
    r"^\s*(?:[:=]\s*|(?:был[аои]?|is|was|of|около|на\s+уровне|уровень|level)\s+)?\d"
    r"(?![\d.,]*\s*(?:-?(?:й|ой|ий|го|ей|я|ая|st|nd|rd|th)\b)?\s*(?:степен|стади|ст\b|тип|type|stage|grade"
    r"|degree|класс|class|фк\b|функциональн))"
    r"|^\s*at\s+\d+(?:[.,/]\d|\s*(?:mmol|mg|%|mm\b))"
)
_VACCINE_CONTEXT = rx(r"прививк|привил|привит|вакцин|vaccin|\bshots?\b|\bjabs?\b|booster")
_INDICATION_BEFORE = rx(r"\b(?:от|для|при|против|for|against)\s+(?:my\s+|the\s+)?$")
# Being treated for a disease, said of oneself: a diagnosis, not what a drug is for.
_TREATED_FOR = rx(
    r"(?:\b(?:i'?m|i\s+am|i'?ve\s+been|i\s+have\s+been|i\s+was|i\s+get|i\s+got)\s+(?:being\s+|now\s+)?"
    r"(?:treated|seen|followed|monitored|following\s+up|here|in)|\bлечусь|\bлечилась|\bлечился|\bнаблюдаюсь"
    r"|\bстою\s+на\s+учете|\bfollow(?:ing)?[\s-]+up)"
    r"\s+(?:\w+\s+){0,3}?(?:for|от|с|по\s+поводу)\s+(?:my\s+|the\s+)?$"
    # "мама умерла от инсульта", "дед скончался от рака", "died from cancer": what they died of
    r"|\b(?:умер|умерла|умерли|скончал(?:ся|ась|ись)|погиб(?:ла|ли)?|died|passed\s+away)\s+(?:\w+\s+){0,2}?(?:от|from|of)\s+$"
)
_RESOLVED = rx(
    r"\bвылечил\w*|\bпрошл[аио]\b|\bпрошел\b|\bв\s+ремисси\w*|\bпереболел\w*|\bв\s+детстве\b|\bcured\b"
    r"|\bwent\s+away\b|\bresolved\b|\bno\s+longer\s+have\b|\bused\s+to\s+have\b|\bas\s+a\s+(?:child|kid)\b"
    r"|\bin\s+remission\b|\brecovered\b"
)
# No drug taken for it: "I don't take anything for the gout", "ничего не принимаю от давления", "糖尿病没吃药"
_NOT_TAKEN_FOR = rx(
    r"\b(?:don'?t|do\s+not|not|never|no\s+longer)\s+(?:\w+\s+){0,2}?(?:take|taking|on|use|using|treat\w*)\b"
    r"|\bnothing\s+for\b|\bничего\s+не\s+(?:принимаю|пью)|\bне\s+(?:принимаю|пью|лечу)\w*"
)
STILL_HAVE = rx(
    r"\bstill\s+(?:have|has|got|get)\b|\bдо\s+сих\s+пор\b|\bи\s+сейчас\b|\bвс[её]\s+ещ[её]\b|还有|现在还"
)
_PAST_ILLNESS = rx(r"\bболел[аи]?\b|\bhad\b|\bwas\s+(?:sick|ill)\s+with\b|\bбыл[аио]?\b")
# The denial after the name: "Ветрянкой ни разу не болела", "корью никогда не болел", "краснухи у
# меня не было", "measles I never had" (but "болею не первый год" is no denial: "не" must lead the verb).
_DENIAL_VERB = (
    r"(?:(?:никогда|ни\s+разу|вообще|так\s+и|еще|ещё|тоже|слава\s+богу|никто|ни\s+у\s+кого)\s+)*"
    r"не\s+(?:бол(?:ел\w*|ею|еет|еют|ела)|был[аои]?"
    r"|переболел\w*|перенос\w*|перенес\w*|страда\w*|диагностир\w*|ставил\w*|находил\w*|нашли|обнаруж\w*"
    r"|выявл\w*|выявил\w*)\b"
    # "measles I never had", but not "asthma and never had an attack": nothing else may be had
    r"|(?:i\s+|i've\s+|i\s+have\s+)?(?:never|haven't|have\s+not|didn't|did\s+not)\s+(?:ever\s+)?"
    r"(?:had|got|gotten|caught|been\s+diagnosed)\b"
    r"(?=\s*(?:$|[.!?,;]|(?:it|that|them|before|either|ever|myself|as\s+a\s+(?:kid|child))\b))"
    r"|нету\b"  # "гипертонии нету" (the "нет" after the name is read by ``negated``)
)
# Up to two words between the name and the denial, none a verb of having or a conjunction ("Астмой
# болею и никогда не был в больнице" denies nothing).
_FILLER = r"(?:(?!(?:и|а|но|and|but|болею|болел\w*|болеет|страдаю|есть|have|has|had)\b)[\w-]+\s+)"
_DENIED_AFTER = rx(r"^\s*[-—–:]?\s*(?:у\s+меня\s+)?" + _FILLER + r"{0,2}?(?:" + _DENIAL_VERB + r")")
# A bare "no" after the name, the clause ending there: "asthma no, diabetes yes", "астма - нет",
# "diabetes: none" (but not "астма - нет приступов", "asthma no longer bothers me")
_NO_AFTER = rx(
    r"^\s*[-—–:]?\s*(?:(?:у\s+меня\s+)?(?:тоже\s+|вроде\s+|уже\s+)?(?:нет+|нету|не\s+было)|no|nope|none|never"
    r"|nah|negative)(?=\s*(?:$|[-—–,.;!?)…]))"
)
# The doctor named the diagnosis with no verb of being: "кардиолог сказал стенокардия", "врач
# сказал гастрит", "GP says it's asthma", "I saw my GP, she thinks it's migraine".
_DOCTOR = rx(
    r"\b(?:врач\w*|доктор\w*|докторш\w*|[а-я]*терапевт\w*|хирург\w*|[а-я]+олог\w*|фельдшер\w*|лор(?:а|у|ом|е)?|[а-я]*иатр\w*"
    r"|[a-z]+iatrists?"
    r"|травмпункт\w*|doctors?|doc|dr|gps?|physician\w*|consultant\w*|specialist\w*|[a-z]+ologists?|surgeons?|nurse"
    # the place that saw the user speaks for its doctor: "urgent care said contact dermatitis"
    r"|practitioner|ent|pediatrician|urgent\s+care|walk-?in(?:\s+clinic)?|the\s+clinic|the\s+er)\b"
)
_SAID = rx(
    r"\b(?:сказал\w*|говорит|говорят|говорил\w*|считает|решил\w*|заключил\w*|поставил\w*|диагностировал\w*"
    r"|said|says|told\s+me|thinks"
    r"|reckons|believes|confirmed|concluded|called\s+it)\b"
)
_SAID_ONCE = rx(r"сказал[аи]?|said|told\s+me|diagnosed|confirmed")
# What may stand between the verb and the name: "сказал, что это гастрит", "said it's asthma".
_SAID_GAP = rx(
    r"[\s,:\-—–]*(?:(?:что|это|у\s+меня|мне|типа|мол|просто|начальная|начинающаяся|легкая|лёгкая"
    r"|that|it'?s|its|it\s+is|it\s+was|is|was|i\s+have|i'?ve\s+got|i'?m|i\s+am|just|a|an|the|mild|early"
    # a clinician's hedge: "said its probably bronchitis", "сказал, скорее всего бронхит"
    r"|probably|likely|possibly|most\s+likely|скорее\s+всего|вероятно|возможно|похоже\s+на|наверное)[\s,]+)*"
)
# "hoping to rule out diabetes", "проверить на диабет": a question, not a diagnosis
_RULED_OUT_BEFORE = rx(
    r"(?:\brule\s+out|\bruled\s+out|\bисключ\w*|\b(?:test|tested|testing|screen|screened|screening|check"
    r"|checked|checking)\s+(?:me\s+)?for|\bпровер\w*\s+(?:меня\s+)?на|\bобследова\w*\s+на)\s+(?:the\s+)?$"
)
# After a doctor's verdict the name ends the statement ("said it's asthma", "сказал гастрит, выписал
# ..."), not "said diabetes runs in families".
_VERDICT_END = rx(
    r"\s*(?:$|[.!]|(?:and|и|plus|again|too|тоже|also|type|типа|\d|в\s+\w+\s+форме|stage|стади\w*)(?!\w)"
    # and its cause: "contact dermatitis from poison ivy", "дерматит из-за порошка"
    r"|(?:from|due\s+to|caused\s+by|because\s+of|из-за|после)\s)"
)
_RULE_OUT = rx(
    r"исключ\w*|провер\w*|обследова\w*|сдать|анализ\w*|rule\s+out|ruled\s+out|check\w*|test\w*|screen\w*"
    r"|exclud\w*|not\s+sure|unsure|неясно|непонятно"
)
# Said the colloquial way, a level "a bit high" ("my blood pressure's a bit high", "давление
# повышенное", "холестерин высокий"): the condition of that level, the phrase its own cue. A high
# blood sugar is hyperglycemia, not diabetes.
_LEVEL_OF = (
    r"(?P<what>blood\s+pressure|\bbp|blood\s+sugar|\bsugar|\bglucose|\bcholesterol|\bдавлени\w*|\bсахар\w*"
    r"|\bхолестерин\w*)"
)
_HIGH_LEVEL = rx(
    rf"{_LEVEL_OF}(?:'s|\s+is|\s+has\s+been|\s+runs|\s+tends\s+to\s+be|\s+у\s+меня|\s+бывает)?"
    r"(?:\s+(?:a\s+(?:little\s+)?bit|a\s+little|a\s+tad|slightly|kind\s+of|kinda|somewhat|quite|pretty|always"
    r"|usually|still|on\s+the|немного|слегка|чуть(?:-чуть)?|всегда|постоянно|тоже|по-прежнему|до\s+сих\s+пор))*"
    r"\s+(?:high(?:\s+side)?|elevated|raised|повышен\w*|высок\w*|завышен\w*|выше\s+нормы)\b"
    rf"|\b(?:high|elevated|raised|повышен\w*|высок\w*)\s+(?:уровень\s+)?{_LEVEL_OF.replace('what', 'what2')}"
)
# "my blood pressure isn't high", "давление в норме": a level said to be fine is no condition
_LEVEL_NAME = rx(r"blood\s+pressure|\bbp\b|cholesterol|давлени|холестерин|^сахар")
_LEVEL_FINE_AFTER = rx(
    r"^(?:'s|\s+is|\s+has\s+been|\s+was|\s+у\s+меня|\s+всегда|\s+always)*\s*(?:(?:is\s+not|isn't|'s\s+not|wasn't"
    r"|not|never|не)\s+(?:\w+\s+)?(?:high|elevated|raised|a\s+problem|повышен\w*|высок\w*)|(?:normal|fine|ok"
    r"|okay|good|perfect|in\s+range|under\s+control|нормальн\w*|в\s+норме|норма|хорош\w*|low|низк\w*"
    r"|понижен\w*)\b)"
)
_LEVEL_CONDITION = (
    (rx(r"pressure|bp|давлен"), "hypertension"),
    (rx(r"sugar|glucose|сахар"), "high blood sugar"),
    (rx(r"cholesterol|холестерин"), "high cholesterol"),
)
_CHRONIC = r"хронич\w*\s+(?:заболеван\w*|болезн\w*|диагноз\w*)"
_SECTION_ABSENT = rx(
    rf"\b(?:нет|не\s+имею|не\s+было)\s+(?:у\s+меня\s+)?(?:никаких\s+)?{_CHRONIC}"
    rf"|\b{_CHRONIC}\s+(?:у\s+меня\s+)?(?:нет|не\s+было)\b"
    r"|\bникаких\s+хронич\w*|\bхроники\s+нет\b|\bничем\s+(?:хроническим\s+)?не\s+болею\b"
    r"|\bno\s+chronic\s+(?:conditions?|diseases?|illness\w*|problems?|health\s+problems?)\b"
    r"|\b(?:don't|do\s+not|dont)\s+have\s+any\s+chronic\b"
    r"|\bno\s+(?:known\s+)?(?:medical|health)\s+(?:conditions?|problems?)\b"
)
_SECTION_UNSURE = rx(
    r"(?:не\s+знаю|не\s+уверен\w*|не\s+помню)[\s,]+(?:[\w-]+[\s,]+){0,5}?хронич\w*"
    r"|(?:not\s+sure|don't\s+know|do\s+not\s+know|unsure)\s+(?:\S+\s+){0,5}?chronic\b"
)
_FAMILY_ABSENT = rx(
    # "в семье ни у кого ничем серьёзным не болели" (but not "... не болели диабетом": that is an entity)
    r"\bв\s+(?:моей\s+|нашей\s+)?семье\s+(?:ни\s+у\s+кого\s+)?(?:ничем\s+)?(?:серьезным\s+)?(?:ничего\s+)?"
    r"не\s+(?:болел\w*|было)\b(?!\s+\w*(?:диабет|рак|инсульт|инфаркт|гиперто))"
    r"|\bнаследственн\w*\s+(?:заболеваний\s+|болезней\s+)?(?:нет|не\s+было)\b"
    r"|\bнаследственность\s+(?:не\s+отягощен\w*|хорошая|чистая)\b|\bсемейный\s+анамнез\s+не\s+отягощен\w*"
    r"|\bno\s+(?:significant\s+)?family\s+history\b(?!\s+of)|\bnothing\s+runs\s+in\s+(?:my|the|our)\s+family\b"
)
_FAMILY_UNSURE = rx(
    r"(?:не\s+знаю|не\s+уверен\w*|не\s+помню)[\s,]+(?:[\w-]+[\s,]+){0,4}?"
    r"(?:наследственност\w*|родственник\w*|родител\w*|семь[еия]\b|семейн\w*)"
    r"|\b(?:don't|do\s+not|dont)\s+know\s+(?:\S+\s+){0,3}?family\b"
    r"|\bi\s+was\s+adopted\b|\bменя\s+(?:усыновили|удочерили)\b"
)


# The user and a relative said to share it: "my sister and I both have asthma", "mum and me",
# "у нас с мамой гипотиреоз", "мы с папой оба гипертоники", "и у меня, и у мамы"
_SHARED = rx(
    r"\b(?:my\s+)?(?P<a>[a-z]+)\s+and\s+(?:i|me|myself)\b|\b(?:i|me)\s+and\s+my\s+(?P<b>[a-z]+)\b"
    r"|\bboth\s+(?:me\s+and\s+)?my\s+(?P<c>[a-z]+)\s+and\s+(?:i|me)\b"
    r"|\bу\s+нас\s+с\s+(?P<d>[а-я]+)\b|\bмы\s+с\s+(?P<e>[а-я]+)\b"
    r"|\bи\s+у\s+меня,?\s+и\s+у\s+(?P<f>[а-я]+)\b|\bи\s+у\s+(?P<g>[а-я]+),?\s+и\s+у\s+меня\b"
)


_SOMEONE_BETWEEN = rx(
    r"\b(?:she|he|her|his|they|their|она|он|они|у\s+не[её]|у\s+него|у\s+них|её|ее|его|их)\b|[.!?;]"
)
_PARTNER = rx(
    r"husband|wife|partner|boyfriend|girlfriend|муж\w*|жен\w*|парн\w*|девушк\w*|подруг\w*|друг\w*|friend"
)


def _shared_with(s: Sentence, pos: int) -> tuple[Relative | None, int] | None:
    """Who shares the condition at ``pos`` with the user (a relative, or None for a partner or a
    friend: no family history), and where that is said."""
    found = None
    for m in _SHARED.finditer(s.low, 0, pos):
        word = next(w for w in m.groups() if w)
        relative = RELATIVE_BY_WORD.get(word)
        between = s.low[m.end() : pos]
        if len(between) > 30 or _SOMEONE_BETWEEN.search(between):
            continue  # "мы с мамой ходили к врачу, у неё диабет": the mother's alone
        if relative is not None or _PARTNER.fullmatch(word):
            found = (relative, m.start())
    return found


# A clinician's working diagnosis, hedged ("urgent care said its probably bronchitis", "врач сказал,
# что скорее всего бронхит", "医生说可能是支气管炎"): charted as said, unlike the user's own guess.
_CLINICIAN_SAID = rx(
    r"\b(?:doctor|doc|gp|dr|urgent\s+care|er|a&e|nurse|physician|clinic|\w+ologist|врач\w*|доктор\w*|терапевт\w*"
    r"|\w+олог\w*|педиатр\w*|фельдшер\w*)\b[^.!?]{0,30}?\b(?:said|says|thinks|told\s+me|сказал\w*|говорит|считает"
    r"|думает|предполагает)\b|(?:医生|大夫)(?:说|讲|认为|怀疑)"
)


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    seen: set[tuple[Section, str, str]] = set()
    for term in _terms(s):
        if _READING_AFTER.match(s.low[term.end :]):
            continue
        if _LEVEL_NAME.search(s.low, term.start, term.end) and _LEVEL_FINE_AFTER.match(s.low[term.end :]):
            continue  # "my blood pressure is normal", "давление не повышенное": no condition said
        indication = bool(_INDICATION_BEFORE.search(s.low[: term.start]))
        if indication and _TREATED_FOR.search(s.low[: term.start]):
            indication = False  # "I'm being treated for gout", "лечусь от гастрита": the user's own
        if indication and not PSEUDO_NEGATION.search(s.low) and not _taken_for(s, term):
            continue  # "таблетки от давления"; but "от мигрени мне ничего не помогает" is a migraine
        if _RULED_OUT_BEFORE.search(s.low[slice(s.clause(term.start)[0], term.start)]):
            continue
        if hypothetical(s, term.start) or _VACCINE_CONTEXT.search(s.low[slice(*s.clause(term.start))]):
            continue
        if (
            uncertain(s, term.start)
            and _relative(s, term.start) is None
            and not _CLINICIAN_SAID.search(s.low)
        ):
            continue  # "I might have asthma": a guess; "urgent care said its probably bronchitis" is not
        shared = _shared_with(s, term.start)
        if shared is not None and not indication:
            # both theirs: the user's own, and the relative's family history
            made = [
                _personal(s, term, ctx, shared=True),
                _family(s, term, ctx, relative=shared[0], said_at=shared[1]) if shared[0] else None,
            ]
        else:
            made = [_family(s, term, ctx) or _personal(s, term, ctx, indication)]
        for draft in made:
            if draft is None:
                continue
            key = (
                draft.section,
                normalize_name(draft.section, draft.name).key,
                draft.attributes.get("relative", ""),
            )
            if key not in seen:
                seen.add(key)
                drafts.append(draft)
    if not find_terms(_KINDS, s.text):
        drafts += recovered(s, Section.REPORTED_DIAGNOSES, ctx)  # "всё прошло": the acute illness in focus
    if not any(d.section is Section.CHRONIC_CONDITIONS for d in drafts):
        drafts += _section_level(s, _SECTION_UNSURE, _SECTION_ABSENT, Section.CHRONIC_CONDITIONS, {})
    if not any(d.section is Section.FAMILY_HISTORY for d in drafts):
        # FamilyHistoryAttributes requires a relative; "other" stands for the whole family here.
        drafts += _section_level(
            s, _FAMILY_UNSURE, _FAMILY_ABSENT, Section.FAMILY_HISTORY, {"relative": "other"}
        )
    return drafts


# The adjective after the name: "бронхит хронический", "гастрит у меня хронический", "bronchitis, chronic"
_CHRONIC_AFTER = rx(r"[\s,(]*(?:(?:у\s+меня|тоже|уже)\s+)?(?P<adj>хронич\w*|chronic)\b")


def chronic_form(text: str, term: Term) -> Term:
    """The chronic entry of a name the adjective follows ("бронхит хронический": chronic bronchitis),
    spanning both; else ``term``."""
    m = _CHRONIC_AFTER.match(fold_in_place(text), term.end)
    if m is None or term.entry.extra.get("chronic"):
        return term
    found = find_terms(_KINDS, f"{m.group('adj')} {text[term.start : term.end]}")
    if len(found) != 1 or not found[0].entry.extra.get("chronic") or found[0].entry.key == term.entry.key:
        return term
    return Term(found[0].entry, term.start, m.end())


def mention(text: str, term: Term) -> str:
    """The name as said, or the table's own when what was said reads as another entry
    ("бронхит хронический" is chronic bronchitis, not bronchitis)."""
    said = text[term.start : term.end]
    entry = lookup(Section.CHRONIC_CONDITIONS, said)
    if entry is None or entry.key == term.entry.key:
        return said
    return term.entry.name("zh" if CJK.search(said) else "ru" if re.search("[а-яё]", said, re.I) else "en")


_ANSWER_NO = rx(r"[\s,.!;:—–-]")
_ZH_DENIED_AFTER = rx(r"(?:也|倒|都|从来)?(?:没有|没|无)(?:过|得过)?(?=$|[\W，。；！、]|但|不过|可是)")


def denied_in_answer(text: str, start: int, end: int, marker_end: int = 0) -> bool:
    """An answer denies the condition at ``start:end`` in its own clause: "астмы нет", "no asthma",
    "diabetes - never had it", "哮喘没有"; a yes/no marker set off by punctuation ("no, asthma")
    is the answer's, not the name's."""
    if marker_end and _ANSWER_NO.search(text[:marker_end].strip()):
        text = " " * marker_end + text[marker_end:]
    pos = 0
    for sentence in split_sentences(text):
        at = text.find(sentence.text, pos)
        pos = at + len(sentence.text)
        if at <= start < pos:
            local = start - at
            if _EXCEPT_BEFORE.search(sentence.low[:local]):
                return False  # "none except asthma", "no not really except gout": the exception is had
            term = Term(_NO_ENTRY, local, end - at)
            if negated(sentence, local, end - at, window=3) or denied_after(sentence, term):
                return True
            return bool(CJK.search(sentence.text)) and bool(_ZH_DENIED_AFTER.match(sentence.low, end - at))
    return False


_NO_ENTRY = Entry("condition", "", {})
# An exception right before the name: "... except gout", "кроме подагры", "除了痛风"
_EXCEPT_BEFORE = rx(
    r"(?:\b(?:except(?:\s+for)?|apart\s+from|other\s+than|besides|but|кроме|за\s+исключением|помимо)|除了)"
    r"\s*(?:(?:my|the|a|an|for|мо\w+)\s+)?(?:(?!(?:no|not|never|нет|не|без|没|不)\b)\S+\s+)?$"
)


def _terms(s: Sentence) -> list[Term]:
    """Table conditions ("diabetis", "гипертензея": fuzzy), and a level said to be high; the
    phrase takes the place of a table name inside it ("давление" in "давление повышенное")."""
    terms = [chronic_form(s.text, t) for t in find_terms(_KINDS, s.text, fuzzy=True)]
    # A symptom's longer name takes its condition word ("mouth ulcer" is no peptic ulcer)
    symptoms = find_terms(("symptom",), s.text)
    terms = [t for t in terms if not any(t.inside(x) for x in symptoms) and not _skin_ulcer(s, t)]
    for m in _HIGH_LEVEL.finditer(s.low):
        what = m.group("what") or m.group("what2")
        hint = next((h for pattern, h in _LEVEL_CONDITION if pattern.search(what or "")), None)
        entry = lookup(Section.CHRONIC_CONDITIONS, hint) if hint else None
        if entry is None:
            continue
        inside = [t for t in terms if m.start() <= t.start and t.end <= m.end()]
        if any(t.start < m.end() and m.start() < t.end for t in terms if t not in inside):
            continue  # overlaps a longer table name ("high blood pressure readings")
        terms = [t for t in terms if t not in inside] + [Term(entry, m.start(), m.end())]
    return sorted(terms, key=lambda t: t.start)


_BARE_ULCER = frozenset({"ulcer", "ulcers", "язва", "язвы"})
_LIMB_SITES = frozenset(
    {"arm", "leg", "wrist", "ankle", "finger", "toe", "hip", "foot", "hand", "elbow", "knee", "heel"}
)


def _skin_ulcer(s: Sentence, term: Term) -> bool:
    """ "This ulcer in my ankle is just not healing": a bare "ulcer" on a limb is the skin's, no
    peptic ulcer."""
    if term.entry.key != "peptic_ulcer" or s.low[term.start : term.end] not in _BARE_ULCER:
        return False
    start, end = s.clause(term.start)
    return any(t.entry.key in _LIMB_SITES for t in find_terms(("body_site",), s.text[start:end]))


def high_level(s: Sentence, term: Term) -> bool:
    """The term is a level said to be high, which says the user has it ("холестерин высокий")."""
    return bool(_HIGH_LEVEL.fullmatch(s.low, term.start, term.end))


def _section_level(s: Sentence, unsure, absent, section: Section, attributes: dict) -> list[Draft]:
    for pattern, kind in ((unsure, AssertionKind.SECTION_UNSURE), (absent, AssertionKind.SECTION_ABSENT)):
        m = pattern.search(s.low)
        if m and not third_party_before(s, m.start()):
            return [Draft(section, s.evidence(*m.span()), kind=kind, attributes=dict(attributes))]
    return []


# A side of the family ("dads side has heart disease", "по папиной линии диабет", "со стороны
# мамы"): relatives of that side, not the parent; a named relative of the side still wins
# ("my maternal grandmother").
_SIDE_OF_FAMILY = rx(
    r"\b(?:(?:my|on\s+(?:my\s+)?|from\s+(?:my\s+)?)?(?:dad|father|mom|mum|mother)(?:'?s)?\s+side\b)"
    r"|\b(?:paternal|maternal)(?:\s+side)?\b"
    r"|\bпо\s+(?:линии\s+(?:отца|папы|мамы|матери)|(?:папиной|отцовской|маминой|материнской)\s+линии)\b"
    r"|\bсо\s+стороны\s+(?:отца|папы|мамы|матери)\b"
)
# A parent's parent said as a chain ("moms dad", "my father's mother", "мамин папа", "отец мамы").
_PARENTS_PARENT = rx(
    r"\b(?:mom|mum|mother|dad|father)(?:'?s)\s+(?P<en>mom|mum|mother|dad|father)\b"
    r"|\b(?:мамин|папин|отцов|материн)\w*\s+(?P<ru>пап[аеуыо]\w*|отц\w*|отец|мам[аеуыо]\w*|матер\w*|мать)"
    r"|\b(?P<ru2>пап[аеуыо]\w*|отц\w*|отец|мам[аеуыо]\w*|матер\w*|мать)\s+(?:мамы|папы|отца|матери)\b"
)
_MALE_PARENT = rx(r"dad|father|пап|отц|отец")
_PARENTS_SIBLING = rx(
    r"\b(?:mom|mum|mother|dad|father)(?:'?s)\s+(?P<en>sister|brother)\b"
    r"|\b(?:мамин|папин|отцов|материн)\w*\s+(?P<ru>брат\w*|сестр\w*)"
    r"|\b(?P<ru2>брат\w*|сестр\w*)\s+(?:мамы|папы|отца|матери)\b"
)
_BROTHER = rx(r"brother|брат")


def family_relative(low: str, start: int, end: int) -> Relative | None:
    """The relative named in ``low[start:end]``: a parent's parent ("moms dad": the grandfather), a
    relative named outright, or a side of the family (``Relative.OTHER``)."""
    chain = _PARENTS_PARENT.search(low, start, end)
    if chain is not None:
        second = chain.group("en") or chain.group("ru") or chain.group("ru2")
        return Relative.GRANDFATHER if _MALE_PARENT.match(second) else Relative.GRANDMOTHER
    sibling = _PARENTS_SIBLING.search(low, start, end)
    if sibling is not None:  # "my dad's sister", "мамин брат", "сестра отца": an aunt or an uncle
        word = sibling.group("en") or sibling.group("ru") or sibling.group("ru2")
        return Relative.UNCLE if _BROTHER.match(word) else Relative.AUNT
    side = _SIDE_OF_FAMILY.search(low, start, end)
    for m in RELATIVE.finditer(low, start, end):
        if side is None or not side.start() <= m.start() < side.end():
            return RELATIVE_BY_WORD[m.group(0)]
    return Relative.OTHER if side is not None else None


# A relative written as a label before the condition: "dad - high blood pressure", "папа: диабет".
_LABEL_WORD = r"[^\s,;.，；。:：—–-]+"
_RELATIVE_LABEL = re.compile(
    rf"(?:^|[,;.，；。])\s*(?P<who>{_LABEL_WORD}(?:\s+{_LABEL_WORD})?)\s*(?:\s-|–|—|:|：)\s*$"
)


def _relative(s: Sentence, pos: int) -> Relative | None:
    start, end = s.clause(pos)
    relative = family_relative(s.low, start, end)
    if relative is not None:
        return relative
    if FAMILY_WIDE.search(s.low[start:end]):
        return Relative.OTHER
    label = _RELATIVE_LABEL.search(s.low, 0, start)
    if label is not None:
        return family_relative(s.low, label.start("who"), label.end("who"))
    return None


# A relative's age when the disease came: "stroke at 70", "at age 52", "when she was 45", "инфаркт
# в 60", "в 50 лет нашли", "с 40 лет". Not a year ("in 2019"), a clock time ("at 7 am") or a dose.
_AGE_AT_ONSET = rx(
    r"(?:\bat\s+(?:the\s+)?(?:age\s+(?:of\s+)?)?|\baged\s+|\b(?:when|since)\s+(?:he|she)\s+was\s+"
    r"|\b(?:he|she)\s+was\s+(?=\d{1,3}\s+(?:when|years?\s+old))|\bв\s+(?:возрасте\s+)?|\bс\s+)"
    r"(?P<age>\d{1,3})(?!\d|[:.,]\d|\s*(?:am|pm|mg|kg|%|мг|кг|час|раз|утра|вечера|лет\s+назад|years?\s+ago"
    r"|days?|weeks?|months?|hours?|дн|недел|месяц))"
    r"(?P<unit>\s*(?:лет|года|год|years?(?:\s+old)?|yo)\b)?"
)
# The clause after the condition tells when it came, of the same person: "my mother has diabetes,
# she got it at 55", "dad had a stroke, he was 62 when it happened", "у мамы диабет, заболела в 50".
_ONSET_NEXT = rx(
    r"\s*(?:(?:and|but|и|а|но)\s+)?(?:(?:he|she)\s+(?:got|had|developed|was|found|started)\b"
    r"|(?:got|developed|diagnosed|found\s+out)\b|(?:у\s+(?:него|неё|нее)\s+)?(?:(?:он[аио]?|его|её|ее)\s+)?"
    r"(?:заболел|диагностировали|поставили|нашли|выявили|обнаружили|началось|начался|началась|появил|с\s+\d))"
)


def _age_at_onset(s: Sentence, term) -> int | None:
    """The age in the condition's clause, said with a unit or right after the condition; else in
    the next clause when that one says the disease came ("…, she got it at 55")."""
    start, end = s.clause(term.start)
    age = _age_in(s, start, end, term.end)
    if age is None and end < len(s.low):
        n_start, n_end = s.clause(end)
        if not s.low[n_start:n_end].strip(" ,;:—–-"):  # the comma between is a clause of its own
            n_start, n_end = n_end, s.clause(n_end)[1]
        if _ONSET_NEXT.match(s.low, n_start, n_end):
            age = _age_in(s, n_start, n_end, n_start)
    return age


def _age_in(s: Sentence, start: int, end: int, after: int) -> int | None:
    for m in _AGE_AT_ONSET.finditer(s.low, start, end):
        age = int(m.group("age"))
        bare = m.group("unit") is None
        # a bare number ("в 60", "at 70") only after the condition: "в 2 ночи" before it is a time
        if 0 < age <= 110 and not (bare and (m.start() < after or age < 10 or m.group(0).startswith("с"))):
            return age
    return None


_LAST_PRONOUN = rx(r"(?:^|\b(?:and|but|и|а|но)\s+)(?:he|she|hes|shes|он|она)\s+(?!\w+\s+(?:me|мне|меня)\b)")
_FIRST_PERSON_AFTER = rx(r"\b(?:i|i'm|me|my|я|у\s+меня|мне|мой|моя)\b")


def _pronoun_subject_before(s: Sentence, start: int, pos: int) -> int | None:
    """Where a he/she subject opens the part of the clause that holds ``pos`` ("... and she has
    asthma"), with no first person after it; None when there is none."""
    if PRONOUN_SUBJECT.match(s.low[start:pos]):
        return start
    last = None
    for m in _LAST_PRONOUN.finditer(s.low, start, pos):
        last = m
    if last is None or _FIRST_PERSON_AFTER.search(s.low, last.end(), pos):
        return None
    return last.start()


def _family(
    s: Sentence, term, ctx: Context, relative: Relative | None = None, said_at: int | None = None
) -> Draft | None:
    relative = relative or _relative(s, term.start)
    start, _ = s.clause(term.start)
    pronoun = None if relative is not None else _pronoun_subject_before(s, start, term.start)
    if pronoun is not None:
        # "I live with my sister, she has asthma", "my sister and I went to the clinic and she has
        # asthma": the relative named before the pronoun.
        earlier = list(RELATIVE.finditer(s.low, 0, pronoun))
        if earlier:
            relative = RELATIVE_BY_WORD[earlier[-1].group(0)]
    if relative is None and ctx.relative_in_focus is not None:
        # "My sister was diagnosed last year. She has epilepsy.": the pronoun is the relative.
        start, _ = s.clause(term.start)
        if PRONOUN_SUBJECT.match(s.low[start : term.start]) or PRONOUN_SUBJECT.match(s.low):
            relative = ctx.relative_in_focus
        elif _news_said_bare(s, term):
            # "dad's biopsy came back. colon cancer, stage 2.", "у мамы взяли биопсию. Рак груди.":
            # the verdict named alone right after the relative's tests is theirs
            relative = ctx.relative_in_focus
    if relative is None:
        return None
    name = mention(s.text, term)
    denied = negated(s, term.start, term.end, window=6) or denied_after(s, term)
    status = FactStatus.ABSENT if denied else FactStatus.PRESENT
    m = RELATIVE.search(s.low, *s.clause(term.start))
    first = min(term.start, m.start()) if m else term.start
    if said_at is not None:
        first = min(first, said_at)
    attributes: dict[str, object] = {"relative": relative.value}
    age = None if denied else _age_at_onset(s, term)
    if age is not None:
        attributes["age_at_onset"] = age
    return Draft(
        Section.FAMILY_HISTORY,
        s.evidence(first, max(term.end, m.end() if m else term.end)),
        name=name,
        hint=normalize_name(Section.FAMILY_HISTORY, name).name_normalized,
        status=status,
        attributes=attributes,
    )


_NEWS_TRAIL = rx(
    r"(?:[\s,]*(?:(?:stage|grade|type|стади\w*|степен\w*|тип\w*)\s*[\w-]+|[\w-]+\s+(?:stage|стади\w*)))?[\s.!…]*"
)


def _news_said_bare(s: Sentence, term) -> bool:
    """The clause is only the name (a stage at most), opening the sentence, no first person before."""
    start, end = s.clause(term.start)
    if FIRST_PERSON.search(s.low, 0, term.end) or s.low[:start].strip(" ,;:—–-"):
        return False
    lead = _VERDICT_LEAD.match(s.low, start, term.start)
    return lead is not None and lead.end() == term.start and bool(_NEWS_TRAIL.fullmatch(s.low, term.end, end))


def denied_after(s: Sentence, term) -> bool:
    """The user denies the disease with a verb after its name ("Корью никогда не болела")."""
    after = s.low[term.end : s.clause(term.start)[1]]
    dash = _DASH.match(s.low, term.end)
    if not after.strip() and dash is not None and dash.end() < len(s.low):
        after = s.low[term.end : s.clause(dash.end())[1]]  # "астма - нет": the dash ends the clause
    return bool(_DENIED_AFTER.match(after) or _NO_AFTER.match(after))


_DASH = rx(r"\s*[-—–:]\s*")


def _doctor_said(s: Sentence, term) -> bool:
    """A doctor's verdict that names the disease with no verb of being ("врач сказал гастрит")."""
    start, _ = s.clause(term.start)
    if _SAID_GAP.fullmatch(s.low[start : term.start]):
        # "сказал, что это гастрит": the verb is in the clause before "что"
        while start > 0:
            previous = s.clause(start - 1)[0]
            piece, start = s.low[previous:start], previous
            if piece.strip(" ,;:-—–"):
                break
    before = s.low[start : term.start]
    said = next(reversed(list(_SAID.finditer(before))), None)  # the verb nearest the name
    if said is None or not _SAID_GAP.fullmatch(before[said.end() :]) or _RULE_OUT.search(before):
        return False
    if not _VERDICT_END.match(s.low, term.end, s.clause(term.start)[1]):
        return False
    head = before[: said.start()]
    if (
        RELATIVE.search(s.low, 0, term.start)
        or THIRD_PARTY.search(s.low[: term.start])
        or THIRD_PARTY.search(head)
    ):
        return False  # "Мама сказала, что у неё гастрит", "my friend says it's asthma"
    if _DOCTOR.search(s.low[: term.start]):
        return True
    # a verdict with no subject of its own ("сходил к кардиологу, сказал стенокардия"); but
    # "говорят, диабет от сахара" is hearsay
    return not head.strip(" ,;:-—–") and bool(_SAID_ONCE.fullmatch(said.group(0)))


# A clause that is only the name and its denial or its adjective: "no diabetes", "астмы нет",
# "а гастрит хронический", "asthma, no".
_BARE_BEFORE = rx(r"[\s,;:—–-]*(?:(?:and|but|а|но|и|ну|зато)\s+)?(?:(?:no|нет|никакой|никакого|никаких)\s+)?")
_BARE_AFTER = rx(
    r"[\s,;:—–-]*(?:(?:у\s+меня\s+)?(?:тоже\s+|вроде\s+|уже\s+)?(?:нет|нету|не\s+было)|no|none|either|though"
    r"|хронич\w*|chronic)?(?:\s+(?:either|though|тоже|вроде|уже|у\s+меня))*[\s,;:—–.!…-]*"
)


def _said_bare(s: Sentence, term) -> bool:
    """The clause names the condition with nothing else: a denial ("no diabetes", "диабета нет")
    or the adjective after the name ("бронхит хронический"); a bare name is no statement."""
    start, end = s.clause(term.start)
    before, after = s.low[start : term.start], s.low[term.end : end]
    if not (_BARE_BEFORE.fullmatch(before) and _BARE_AFTER.fullmatch(after)):
        return False
    tail = re.search(r"(?:хронич\w*|chronic)$", s.low[term.start : term.end])  # "бронхит хронический"
    said = f"{before} {after} {tail.group(0) if tail else ''}"
    return bool(re.search(r"\b(?:no|нет|нету|никак\w*|не\s+было|none|хронич\w*|chronic)\b", said))


# A list the user's having opens ("I have: lisinopril 10 mg, metformin and type 2 diabetes", "I've
# got asthma, eczema, and migraines", "у меня: астма и гастрит"): each item after a comma is theirs.
_LIST_CUE = rx(
    r"\b(?:i\s+(?:have|had|'ve\s+got|was\s+diagnosed\s+with)|i've\s+(?:got|had)|i'm\s+on|diagnosed\s+with"
    r"|у\s+меня(?:\s+есть)?|мне\s+(?:поставили|диагностировали)|диагноз\w*)\b"
    # the user's own record read out ("my chart shows: ...", "в моей выписке: ...")
    r"|\bmy\s+(?:chart|records?|file|notes|history|summary|problem\s+list)\b|\bмо(?:ей|ем|ём|я|и)\s+(?:карт|выписк|истори)"
)
_LIST_ITEM = rx(r"[\s,]*(?:(?:and|or|plus|also|и|или|а\s+также|плюс|ещё|еще)\s+)*")
_LIST_KINDS = ("condition", "drug", "allergen", "symptom", "surgery")


def _bare_items(s: Sentence, start: int, end: int) -> bool:
    """The clause is only names joined by "and" ("экзема и диабет 2 типа", "and type 2 diabetes")."""
    rest, cursor = [], start
    for t in find_terms(_LIST_KINDS, s.text[start:end]):
        rest.append(s.low[cursor : start + t.start])
        cursor = start + t.end
    rest.append(s.low[cursor:end].rstrip(" .!…"))
    return cursor > start and all(_LIST_ITEM.fullmatch(piece) for piece in rest)


def _listed_after_cue(s: Sentence, term) -> bool:
    """The condition is a bare item of a list that a first-person cue of having opened in an
    earlier clause of the sentence, every clause between being an item too."""
    start, end = s.clause(term.start)
    if not _bare_items(s, start, end):
        return False
    while start > 0:
        before_start, before_end = s.clause(start - 1)
        piece = s.low[before_start:before_end]
        start = before_start
        if not piece.strip():
            continue
        if piece.strip() not in (",", ":", "、", "，", "："):
            if RELATIVE.search(piece) or THIRD_PARTY.search(piece) or PRONOUN_SUBJECT.match(piece):
                return False  # "my mom has diabetes, asthma": not the user's list
            cue = _LIST_CUE.search(piece)
            if cue is not None:
                return not NEGATION.search(piece, cue.start())  # "I have no asthma, eczema": denied
            if not find_terms(_LIST_KINDS, s.text[before_start:before_end]) and not _UNNAMED_ITEM.fullmatch(
                piece
            ):
                return False  # a clause that is no list item ends the list
    return False


# A list item the table has no name for ("…, problems with my G I tract, asthma"): a short noun
# phrase, no verb, keeps the list going
_UNNAMED_ITEM = rx(
    r"\W*(?:and\s+|or\s+)?(?!(?:\w+\s+){0,5}?(?:is|are|was|were|am|have|has|had|take|took|but|because|when|if|not|no"
    r"|never|don'?t|didn'?t)\b)(?:[^\W\d_]+[\s'-]*){1,6}\W*"
)


# A drug the user takes, its indication after it: "lisinopril 10 in the am for blood pressure",
# "пью эутирокс от гипотиреоза", "metformin for my diabetes" (a clinician charts the condition);
# not someone else's ("my mom takes it for her diabetes"), not a question or a plan, not "stopped".
_TAKES = rx(
    r"\b(?:пью|принимаю|колю|мажу|выписали|назначили|пропил\w*|take|taking|took|i'?m\s+on|using|use)\b"
    r"|\b(?:my|мои|свои)\s+(?:pills?|meds|medications?|tablets?|таблетк\w*|лекарств\w*)"
)
_NOT_TAKEN = rx(r"\b(?:stopped|quit|used\s+to|бросил\w*|перестал\w*|раньше)\b")


def _taken_for(s: Sentence, term) -> bool:
    start = s.clause(term.start)[0]
    drugs = [t for t in find_terms(("drug",), s.text[: term.start]) if t.end <= term.start]
    if not drugs and not _TAKES.search(s.low, start, term.start):
        return False
    head = s.low[: term.start]
    if _NOT_TAKEN.search(head) or RELATIVE.search(head) or THIRD_PARTY.search(head):
        return False
    return not negated(s, term.start, term.end)


# "эутирокс 50 мкг натощак, гипотиреоз после вторых родов", "metformin twice a day, type 2
# diabetes since 2019": the clause opens with the condition right after a clause naming the drug.
_CLAUSE_LEAD = rx(r"[\s,;:—–-]*(?:(?:and|и|а|also|ещё|еще|это|it'?s|for|от|для|при)\s+)?")


def _after_drug(s: Sentence, term) -> bool:
    start, _ = s.clause(term.start)
    if start == 0 or not _CLAUSE_LEAD.fullmatch(s.low, start, term.start):
        return False
    if RELATIVE.search(s.low) or THIRD_PARTY.search(s.low) or hypothetical(s, term.start):
        return False
    before_start, before_end = s.clause(start - 1)
    while before_start > 0 and not s.low[before_start:before_end].strip(" ,;:—–-"):
        before_start, before_end = s.clause(before_start - 1)
    return bool(find_terms(("drug",), s.text[before_start:before_end]))


# A visit to a doctor ("went to urgent care last night", "был у врача", "сходила к терапевту"):
# a diagnosis named right after it with no verb ("... . strep throat.", "..., ангина") is its verdict.
_VISIT = rx(
    r"\b(?:went|been|gone|go|got\s+seen|was\s+seen|saw|seen|visited|(?:got|came|just)\s+back\s+from|ended\s+up)\b"
    r"(?:\s+[\w']+){0,3}?\s+(?:urgent\s+care|(?:the\s+)?er|a&e|emergency(?:\s+room)?|hospital|clinic|walk-?in"
    r"|doctors?|doc|gp|dr|physician|[a-z]+ologist|pediatrician|paediatrician|dentist|nurse\s+practitioner)\b"
    r"|\b(?:был[аи]?|сходил[аи]?|ходил[аи]?|съездил[аи]?|попал[аи]?|обратил(?:ся|ась)|вернул(?:ся|ась))"
    r"(?:\s+[\w-]+){0,2}?\s+(?:к|в|на|у|из|от)\s+(?:[\w-]+\s+)?(?:врач\w*|доктор\w*|терапевт\w*|[а-я]+олог\w*"
    r"|травмпункт\w*|поликлиник\w*|больниц\w*|приемн\w*|скор\w*|педиатр\w*|неотложк\w*|клиник\w*)"
)
# What may open or close a verdict said on its own: "turns out ...", "диагноз — ...", "... again"
_VERDICT_LEAD = rx(
    r"[\s,:—–-]*(?:(?:so|turns\s+out|apparently|diagnosis|dx|it'?s|it\s+was|оказалось|диагноз|в\s+итоге|итог"
    r"|короче|опять|again|и)[\s,:—–-]+)*"
)
_VERDICT_TRAIL = rx(r"(?:[\s,]+(?:again|apparently|lol|ugh|опять|снова|короче))*[\s.!…]*")


def verdict_said_bare(text: str) -> bool:
    """``text`` names diagnoses and nothing else ("strep throat", "Ангина.", "turns out the flu")."""
    low = fold_in_place(text)
    terms = find_terms(_KINDS, text)
    if not terms:
        return False
    lead = _VERDICT_LEAD.match(low)
    cursor = lead.end() if lead else 0
    for t in terms:
        if t.start < cursor or not _LIST_ITEM.fullmatch(low, cursor, t.start):
            return False
        cursor = t.end
    return bool(_VERDICT_TRAIL.fullmatch(low, cursor))


def visit_before(s: Sentence, pos: int) -> bool:
    """A visit of the user's own is told before ``pos`` ("took my son to urgent care" is not)."""
    return _VISIT.search(s.low, 0, pos) is not None and not (
        THIRD_PARTY.search(s.low) or RELATIVE.search(s.low) or PRONOUN_SUBJECT.match(s.low)
    )


def _after_visit(s: Sentence, term) -> bool:
    """ "went to urgent care last night, strep throat": the clause is only the name, after a visit."""
    start, end = s.clause(term.start)
    return start > 0 and visit_before(s, start) and verdict_said_bare(s.text[start:end].strip(" ,;:—–-"))


# What a relative is being tested for, said of them: the results to come are theirs.
_TESTED = rx(
    r"биопси|гистолог|\bкт\b|\bмрт\b|анализ|обследован|флюорограф|пункци|пятно|опухол|новообразован"
    r"|biopsy|\bscans?\b|\bct\b|\bmri\b|\btests?\b|results|polyp|\blump\b|\bmass\b|shadow"
    r"|穿刺|活检|病理|ct|核磁|检查|化验|阴影|肿块|结节"
)


def relative_awaiting_results(text: str) -> Relative | None:
    """The one relative a conversation said was being tested ("у папы нашли пятно в лёгком,
    направили на биопсию", "my mom had a biopsy on a lump", "我爸拍了CT说肺上有个阴影"); None when
    no one, or more than one, or the user too ("I had a biopsy as well")."""
    found: set[Relative] = set()
    for s in split_sentences(text):
        if not _TESTED.search(s.low):
            continue
        if FIRST_PERSON.search(s.low) and _SELF_TESTED.search(s.low):
            return None
        for m in RELATIVE.finditer(s.low):
            found.add(RELATIVE_BY_WORD[m.group(0)])
        found |= set(zh_relatives(s.low))
    return next(iter(found)) if len(found) == 1 else None


_SELF_TESTED = rx(
    r"\bмне\s+(?:сделали|взяли|назначили)|\bi\s+(?:had|got|have)\s+(?:a|my|an)\b|我(?:也)?(?:做了|拍了|去做)"
)


def _after_results(s: Sentence, term, ctx: Context) -> bool:
    """The verdict that results brought ("my biopsy came back, it's lymphoma", "пришла гистология.
    рак лёгкого, аденокарцинома"): whose it is, the extractor decides (``_whose_result_unsaid``)."""
    start, _ = s.clause(term.start)
    if not (RESULTS_CAME.search(s.low, 0, term.start) or (ctx.news_before and not s.low[:start].strip())):
        return False
    if RELATIVE.search(s.low, 0, term.start) or THIRD_PARTY.search(s.low, 0, term.start):
        return False  # "dad's tests came back: it's cancer": the family rule's, or no one's here
    return bool(_VERDICT_LEAD.fullmatch(s.low, start, term.start) or _ITS.fullmatch(s.low, start, term.start))


_ITS = rx(r"[\s,:—–-]*(?:это|это\s+был[аио]?|it\s+is|they\s+said|сказали)[\s,:—–-]+")


# A message that opens with the user's own chronic condition, said as who they are before asking:
# "type 2 diabetic here", "гипертоник со стажем, можно ли мне в баню?", "hypothyroid, on
# levothyroxine 50. can i drink coffee?", "asthmatic since childhood". A question about the
# disease itself ("диабет 2 типа — это наследственное?", "asthma, is it contagious?") introduces
# no one, and a bare name with nothing after it says nothing either.
_DESCRIPTOR_LEAD = rx(
    r"\W*(?:(?:hi|hey|hello|hiya|ok|okay|so|well|здравствуйте|привет|добрый\s+(?:день|вечер)|ну|так)\W+)*"
)
_DESCRIPTOR_TRAIL = rx(
    r"(?P<said>\s+(?:here|тут|здесь)\b|\s+(?:since|for|со|с|уже|already|х?\s*\d)\b.*)?[\s.!…]*"
)
_ABOUT_THE_DISEASE = rx(
    r"что\s+это|что\s+такое|лечится|излечим|заразн|наследу|наследствен|переда[её]тся|опасн\w*\s+ли|чем\s+отлича"
    r"|what\s+(?:is|are|causes)\b|\bis\s+it\s+(?:contagious|hereditary|genetic|curable|serious|dangerous|common)"
    r"|how\s+do\s+(?:you|people)\s+get|contagious|hereditary|difference|\bvs\.?\b"
)


def _someone_else_in_view(ctx: Context) -> bool:
    """A relative in focus or someone else spoken of: a self-statement without "I" is not read."""
    return ctx.relative_in_focus is not None or ctx.others_before


def _introduces_self(s: Sentence, term, ctx: Context) -> bool:
    end = s.clause(term.start)[1]
    if not term.entry.extra.get("chronic") or _someone_else_in_view(ctx):
        return False
    if CJK.search(s.text):
        return False  # chinese.py reads its own (_c_introduces_self)
    if not _DESCRIPTOR_LEAD.fullmatch(s.low, 0, term.start):
        return False
    trail = _DESCRIPTOR_TRAIL.fullmatch(s.low, term.end, end)
    if trail is None or (end >= len(s.low.rstrip(" .!…")) and not trail.group("said")):
        return False
    return not (
        RELATIVE.search(s.low) or THIRD_PARTY.search(s.low) or _ABOUT_THE_DISEASE.search(s.low, term.end)
    )


# "I am 45 years old female, diabetic for 10 years on insulin", "45F, asthmatic", "Мне 52 года,
# гипертоник": the user's description of themselves, one comma-parted item after another
_SELF_DESCRIPTION = rx(
    r"^\W*(?:(?:hi|hello|hey|dear\s+doctor|doctor|здравствуйте|добрый\s+день)\b[^,.!]*[,.!]\s*)?"
    r"(?:i\s+am|i'?m|im|мне\s+\d{1,3}|я\b|\d{1,3}\s*(?:f|m|yo|y/o)\b)[^.;!?]*,\s*$"
)
_ITEM_OPENS = rx(r"\W*(?:and\s+|also\s+|и\s+|а\s+)?(?:a\s+|an\s+)?$")


# The user named by the disease, the sentence saying nothing else ("Гипертоник лет десять.",
# "Диабетик со стажем", "Asthmatic since childhood."): a person noun is a statement, a bare disease
# name is not (_said_bare)
_IDENTITY = rx(
    r"(?:гипертоник|гипертоничка|диабетик|диабетичка|астматик|астматичка|сердечник|сердечница|язвенник"
    r"|язвенница|эпилептик|diabetic|asthmatic|epileptic|hypertensive)$"
)
_IDENTITY_LEAD = rx(
    r"\W*(?:я\s+|сам\s+|сама\s+|вообще\s+|вообще-то\s+|давно\s+|уже\s+|i'?m\s+|im\s+|i\s+am\s+)*(?:an?\s+)?"
)
_IDENTITY_TRAIL = rx(
    r"(?:[\s,]+(?:уже\s+|давно\s+)?(?:лет\s+\w+|\w+\s+лет|\d+\s+(?:лет|год\w*)|с\s+\d{4}\w*|со\s+стажем|с\s+детства"
    r"|(?:for\s+)?(?:\d+|a\s+few|many|several|ten|five|twenty)\s+years|since\s+(?:\d{4}|childhood|i\s+was\s+\w+)"
    r"|type\s+(?:1|2|one|two)|(?:1|2)\s+типа|второго\s+типа|первого\s+типа))*[\s.!…]*"
)


def _identity_said(s: Sentence, term, ctx: Context) -> bool:
    start, end = s.clause(term.start)
    if _someone_else_in_view(ctx) or "?" in s.text or not _IDENTITY.search(s.low[term.start : term.end]):
        return False
    return bool(
        _IDENTITY_LEAD.fullmatch(s.low, start, term.start) and _IDENTITY_TRAIL.fullmatch(s.low, term.end, end)
    )


def _listed_in_self_description(s: Sentence, term, ctx: Context) -> bool:
    start = s.clause(term.start)[0]
    if _someone_else_in_view(ctx) or CJK.search(s.text):
        return False
    if not _SELF_DESCRIPTION.match(s.low[:start]) or not _ITEM_OPENS.fullmatch(s.low, start, term.start):
        return False
    return not (RELATIVE.search(s.low) or THIRD_PARTY.search(s.low))


def _personal(
    s: Sentence, term, ctx: Context, indication: bool = False, shared: bool = False
) -> Draft | None:
    """``shared``: the user said to have it with someone ("у нас с мамой"): it is the user's."""
    start, end = s.clause(term.start)
    doctor_said = _doctor_said(s, term)
    # "Бронхит прошёл": an impersonal end of an illness is the user's own.
    if (third_party_before(s, term.start) and not doctor_said and not shared) or not (
        shared
        or _CUE.search(s.low[start:end])
        or _RESOLVED.search(s.low[start:end])
        or doctor_said
        or high_level(s, term)
        or _said_bare(s, term)
        or _listed_after_cue(s, term)
        or _after_visit(s, term)
        or indication  # "lisinopril in the morning for blood pressure": what the drug is taken for
        or _after_drug(s, term)
        or _after_results(s, term, ctx)
        or _introduces_self(s, term, ctx)
        or _listed_in_self_description(s, term, ctx)
        or _identity_said(s, term, ctx)
    ):
        return None
    chronic = bool(term.entry.extra.get("chronic"))
    section = Section.CHRONIC_CONDITIONS if chronic else Section.REPORTED_DIAGNOSES
    if indication and _NOT_TAKEN_FOR.search(s.low, start, term.start):
        status = FactStatus.PRESENT  # "I don't take anything for the gout": untreated, not denied
    elif negated(s, term.start, term.end, window=5) or denied_after(s, term):
        status = FactStatus.ABSENT
    elif (
        _RESOLVED.search(s.low[start:end]) or (not chronic and _PAST_ILLNESS.search(s.low[start:end]))
    ) and not (
        STILL_HAVE.search(s.low, term.end)  # "asthma as a kid, still have it"
    ):
        status = FactStatus.RESOLVED
    else:
        status = FactStatus.PRESENT
    name = mention(s.text, term)
    normalized = normalize_name(section, name, term.entry.name("en"))
    attributes: dict = {"icd10": normalized.code} if normalized.code else {}
    since = find_since(s.low[start:end], ctx.today) if status is FactStatus.PRESENT else None
    if since and chronic:
        attributes["since"] = since
    return Draft(
        section,
        s.evidence(term.start, term.end),
        name=name,
        hint=normalized.name_normalized,
        status=status,
        attributes=attributes,
        valid_from=since,
    )
