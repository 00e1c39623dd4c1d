"""Symptoms: table mentions ("болит голова", "кашель") and pains by body site ("болит колено")."""

from __future__ import annotations

import re
from datetime import timedelta

from ...domain.sections import FactStatus, Section
from ..normalize import find_terms, normalize_name, pain_site
from .dates import find_onset_days
from .text import (
    FIRST_PERSON,
    PSEUDO_NEGATION,
    THIRD_PARTY,
    Context,
    Draft,
    Sentence,
    hypothetical,
    negated,
    personal,
    rx,
    third_party_before,
)

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
# Impersonal aches and itches ("поясница ноет", "пучит", "руки обсыпало, чешется"): the speaker's,
# where no one else was spoken of.
_IMPERSONAL = rx(
    r"\b(?:ноет|ноют|ломит|пучит|чешется|чешутся|зудит|обсыпало|высыпало)\b"
    # "the headache is back again", "headaches are back", "the rash flared up": the speaker's, come back
    r"|\b(?:is|are|'s|came|come|comes|coming)\s+back\b|\bkeeps?\s+coming\s+back\b|\breturned\b"
    r"|\bflar(?:ed|ing)\s+up\b|\bacting\s+up\b"
)
# "had a splitting headache on the plane", "got a rash from the sunscreen", "woke up with a sore
# throat": a clause that opens with the verb of having, no subject said (the speaker's)
_HAD_UNSAID = rx(
    r"\W*(?:(?:and|but|then|so|also|just|still)\s+)*(?:had|got|getting|having|been\s+having|been\s+getting"
    r"|woke\s+up\s+with|came\s+down\s+with|developed|ended\s+up\s+with)\s+(?:[\w'-]+\s+){0,3}?"
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
    # "no more nausea", "температуры больше нет / давно нет", "the rash cleared up", "сыпь сошла"
    r"|\bno\s+more\b|\b(?:больше|давно|уже)\s+нет\b|\bнет\s+больше\b|\bcleared(?:\s+up)?\b|\bsubsided\b"
    r"|\bdisappeared\b|\bсошл[аио]\b|\bсош[её]л\b|\bисчезл[аио]\b|\bисчез\b|\bпрекратил(?:ся|ась|ось|ись)\b"
)
# A recovery said of the whole complaint ("all cleared up", "totally fine now", "всё прошло", "лор
# сказал всё чисто"): in its own clause, nothing named. Shared with conditions (acute diagnoses).
_OVER = (
    # (a bare "gone" may be the inhaler asked about: "all gone", "completely gone" is the complaint)
    r"(?:прош(?:ло|ла|ли|[её]л)|зажил[оаи]?|сошл[оаи]|сош[её]л|исчезл[оаи]|cleared(?:\s+up)?"
    r"|(?:all|completely|totally|pretty\s+much|entirely)\s+gone|went\s+away"
    r"|healed(?:\s+up)?|resolved|disappeared|(?:totally|completely|fully|all|100%|полностью|совсем|абсолютно)\s+"
    r"(?:fine|better|well|recovered|healed|clear|good|normal|здоров\w*|прошло|нормально|в\s+порядке)"
    r"|(?:всё|все)\s+чисто|all\s+clear|back\s+to\s+normal|выздоровел\w*|recovered|поправил(?:ся|ась))"
)
_OVER_LEAD = (
    r"(?:(?:ok|okay|well|so|yes|yeah|yep|yay|да|ну|ой|вот|и|а|and|but|now|finally|сейчас|теперь|уже|наконец|вроде"
    r"|it'?s|it\s+(?:has|is)|it|they'?re|they\s+(?:have|are)|i'?m|i\s+am|i'?ve|i\s+have|всё|все|everything'?s"
    r"|everything(?:\s+(?:is|has))?|all|слава\s+богу|thank\s+god|thankfully)\s+"
    # a doctor's word on it: "лор сказал всё чисто", "the doctor said it's all cleared up"
    r"|[\w-]+\s+(?:сказал\w*|said|says)\s+(?:что\s+|that\s+)?)*"
)
_RECOVERED_CLAUSE = rx(
    rf"\W*{_OVER_LEAD}{_OVER}(?:\s+(?:now|up|completely|totally|thankfully|сейчас|уже|совсем|полностью"
    r"|слава\s+богу))*\W*"
)
# A recovery in the sentence ("totally fine now, no cough, no wheezing"): a "no" there is an end.
_RECOVERY = rx(
    r"\b(?:totally|completely|fully|all|100%|полностью|совсем|абсолютно)\s+(?:fine|better|well|recovered|healed"
    r"|clear|good|normal|здоров\w*|прошло|нормально)\b|\ball\s+(?:cleared\s+up|clear|gone|healed)\b"
    r"|\b(?:всё|все)\s+(?:прошло|чисто|зажило)\b|\bвыздоровел\w*|\brecovered\b|\bback\s+to\s+normal\b"
)
# The end told in a later clause with no subject of its own: "a pounding headache, figured it was
# the altitude, went away once we got lower", "голова болела весь день, к вечеру прошла".
_GONE_LATER = rx(
    r"[\s,;:—–-]*(?:(?:and|but|then|which|it|that|they|those|и|а|но|потом|затем|к\s+\w+|она|он|оно|они)\s+)*"
    r"(?:(?:finally|eventually|soon|quickly|just|already|completely|totally|наконец|быстро|уже|сама|сам|само|сами"
    r"|совсем|полностью)\s+)*(?:went\s+away|go(?:ne)?\s+away|cleared\s+up|disappeared|subsided"
    # "made me nauseous the first week but that settled", "it wore off", "потом успокоилось"
    r"|settled(?:\s+down)?|eased(?:\s+off|\s+up)?|wore\s+off|passed|calmed\s+down"
    r"|успокоил(?:ся|ась|ось|ись)|улеглось|утихл[аио]|утих"
    # a Russian past verb may be the speaker's own ("прошла обследование", "ушла домой"): the end is a
    # bare verb, or one with when or how it ended
    r"|(?:прош(?:ла|[её]л|ло|ли)|ушл[аио]|уш[её]л|исчезл[аио]|исчез|сошл[аио]|сош[её]л|отпустил[аио]?"
    r"|прекратил(?:ся|ась|ось|ись))(?=\s*$|\s+(?:сама|сам|сами|само|быстро|к\s+\w+|через\s+\w+|после\s+\w+"
    r"|за\s+\w+|утром|вечером|ночью|дн[её]м|уже|совсем|полностью|наконец|бесследно)\b))"
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
    (rx(r"\bтошнит\b|\bподташнивает\b|\bтошнил[оа]\b|\bподташнивал[оа]\b|\bnauseous\b"), "тошнота", "nausea"),
    (rx(r"\bчиха(?:ть|ю)\b|\bрасчихал\w*"), "чихание", "sneezing"),
    (rx(r"\bзнобит\b|\bshivering\b"), "озноб", "chills"),
    (
        rx(
            r"\bне\s+могу\s+(?:уснуть|заснуть|спать)\b|\bcan'?t\s+sleep\b|\bcannot\s+sleep\b"
            # "не сплю нормально уже месяц", "плохо сплю", "I'm barely sleeping", "can't fall asleep"
            r"|\bне\s+сплю\s+(?:нормально|ночами|по\s+ночам|совсем|толком|уже|несколько|который|вторую|третью"
            r"|неделю|месяц\w*)\b|\b(?:совсем|толком|почти|нормально|ночами|по\s+ночам)\s+не\s+сплю\b"
            r"|\bплохо\s+сплю\b|\bсплю\s+(?:плохо|урывками)\b|\bне\s+высыпаюсь\b|\b(?:barely|hardly)\s+sleep(?:ing)?\b"
            r"|\bnot\s+(?:been\s+)?sleeping\s+(?:well|much|at\s+night|properly)\b"
            r"|\bcan'?t\s+(?:fall|stay)\s+asleep\b|\btrouble\s+(?:falling|staying)\s+asleep\b"
        ),
        "бессонница",
        "insomnia",
    ),
    (
        # "голова больше не кружится", "голова иногда кружится"
        rx(
            r"\bкружится\s+голова\b|\bголова\s+(?:(?:больше|уже)\s+не\s+|(?:опять|снова|сильно|иногда|часто)\s+)?кружится\b"
        ),
        "головокружение",
        "dizziness",
    ),
]


_REACTION_KEYS = frozenset({"rash", "itching", "swelling", "shortness_of_breath"})


# A verbless denial in the user's own message ("no fever now", "нет температуры", "температуры уже
# нет") is the user's: whose else would be named.
_BARE_NO_BEFORE = rx(r"\W*(?:no|нет|没有|没)?\s*")
_NO_LONGER = rx(r"\b(?:now|anymore|any\s+more|these\s+days|сейчас|теперь|уже|больше)\b|了")
_BARE_NO_AFTER = rx(
    r"(?:\s*(?:now|today|anymore|any\s+more|these\s+days|at\s+all|сейчас|сегодня|теперь|уже|больше|совсем))*"
    r"\s*(?P<no>нет|了)?\W*"
)


def _bare_denial(before: str, after: str) -> bool:
    lead = _BARE_NO_BEFORE.fullmatch(before)
    tail = _BARE_NO_AFTER.fullmatch(after)
    if lead is None or tail is None:
        return False
    said_no = before.strip(" ,.!").strip() != ""
    return said_no != bool(tail.group("no"))  # one "no", before or after: "no fever", "температуры нет"


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    if _ALLERGY_CONTEXT.search(s.low):
        return []
    # A condition wins over a symptom phrase inside it ("anxiety" in "anxiety disorder").
    conditions = find_terms(("condition",), s.text)
    mentions = [
        (t.start, t.end) for t in find_terms(("symptom",), s.text) if not any(t.inside(c) for c in conditions)
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
    recovery = _RECOVERY.search(s.low)
    if recovery is not None and (
        third_party_before(s, recovery.start()) or hypothetical(s, recovery.start())
    ):
        recovery = None
    for a, b in sorted(mentions):
        # "таблетки от головной боли" names what a drug is for;
        # "nothing works for my headache" is the user's own complaint
        for_it = _INDICATION_BEFORE.search(s.low[:a]) and not PSEUDO_NEGATION.search(s.low)
        if third_party_before(s, a) or hypothetical(s, a) or for_it:
            continue
        start, end = s.clause(a)
        clause = s.low[start:end]
        onset = find_onset_days(clause)
        said_as_verb = (a, b) in verbs  # "не могу перестать кашлять": the verb's person is the user
        # "What brings you in?" / "knee pain"; but "my 4 year old son has a cough, no fever": his
        answering = Section.SYMPTOMS in ctx.asked and _no_one_else(s, a, ctx)
        said_by_user = (
            personal(s, a)
            or _SELF_WORDING.search(clause)
            or (said_as_verb and not ctx.others_before)
            or answering
            or (bool(_UNSAID_I.fullmatch(s.low, start, a)) and not ctx.others_before)
            # weaker cues, only where no one else has been spoken of ("my son came home, arms all red")
            or (
                _no_one_else(s, a, ctx)
                and (
                    bool(_IMPERSONAL.search(clause))
                    or bool(_HAD_UNSAID.fullmatch(s.low, start, a))
                    or ((a, b) not in site_pains and _body_said(s, start, a))
                    or _listed_after_self(s, start, end, mentions, self_said=bool(drafts))
                    or _only_complaints(s, mentions, ctx)
                )
            )
        )
        # "понос прошёл", "the diarrhea stopped": an impersonal end of a symptom is the speaker's
        said_by_user = said_by_user or bool(_RESOLVED.search(clause)) or recovery is not None
        bare_no = _bare_denial(s.low[start:a], s.low[b:end]) and _no_one_else(s, a, ctx)
        said_by_user = said_by_user or bare_no
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
        elif _RESOLVED.search(clause) and not PSEUDO_NEGATION.search(clause):
            # but "nothing helps my back pain anymore": the help is over, not the pain
            status = FactStatus.RESOLVED
        elif bare_no:  # "no fever now", "температуры уже нет": it was there and is over; "no fever": none
            status = (
                FactStatus.RESOLVED if recovery or _NO_LONGER.search(s.low, b, end) else FactStatus.ABSENT
            )
        elif negated(s, a, b) or ((a, b) in site_pains and _INNER_NEGATION.search(s.low, a, b)):
            # "живот не болит", "my knee doesn't hurt": the site before the no; but "totally fine now,
            # no cough, no wheezing" tells that they are over
            status = FactStatus.RESOLVED if recovery is not None else FactStatus.ABSENT
        elif _gone_later(s, end, mentions):
            status = FactStatus.RESOLVED
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
        elif named_site := pain_site(normalized.key):  # a site pain the table names whole
            attributes["body_site"] = named_site
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
    if not mentions:
        drafts += recovered(s, Section.SYMPTOMS, ctx)
    return drafts


# "всё", "all", "totally": the whole complaint, however the question was put
WHOLE = rx(r"\b(?:всё|все|all|everything|totally|completely|fully|полностью|совсем|чисто)\b")


def recovered(s: Sentence, section: Section, ctx: Context | None = None) -> list[Draft]:
    """ "всё прошло", "all cleared up!", "totally fine now": a recovery that names nothing, for the
    complaint in focus (write/focus.py picks it: the one named before in this fragment or by the
    question, else the one current); a drafted end with no name, never a guess. After a question
    about a drug ("Still have the inhaler?" / "it's gone") it must say the whole thing is over."""
    about_drugs = ctx is not None and Section.MEDICATIONS in ctx.asked
    for start, end in _clauses(s):
        if not _RECOVERED_CLAUSE.fullmatch(s.low, start, end):
            continue
        if about_drugs and not WHOLE.search(s.low, start, end):
            continue
        if third_party_before(s, start) or hypothetical(s, start) or negated(s, start, end):
            continue
        a, b = start, end
        while a < b and not s.low[a].isalnum():
            a += 1
        return [Draft(section, s.evidence(a, b), status=FactStatus.RESOLVED, refers_to_focus=True)]
    return []


def _clauses(s: Sentence) -> list[tuple[int, int]]:
    out, pos = [], 0
    while pos < len(s.low):
        start, end = s.clause(pos)
        if s.low[start:end].strip(" ,;:—–-()"):
            out.append((start, end))
        pos = max(end, pos + 1)
    return out


def _no_one_else(s: Sentence, pos: int, ctx: Context) -> bool:
    """No other person is named before ``pos`` in the sentence, nor in focus from before."""
    return ctx.relative_in_focus is None and not ctx.others_before and not THIRD_PARTY.search(s.low, 0, pos)


# A body part told of with no one else's possessive ("both arms blistered up and itchy", "руки и
# живот обсыпало"): in the user's own message, the user's body (a named symptom; a pain by its site
# needs a word of the user's: "от него живот болел" may be a reaction told of the past).
_OTHERS_POSSESSIVE = rx(r"\b(?:his|her|their|its|его|её|ее|их)\b")


def _body_said(s: Sentence, start: int, at: int) -> bool:
    """A body part opens the clause before the symptom at ``at`` (not "a common side effect")."""
    if _OTHERS_POSSESSIVE.search(s.low, start, at):
        return False
    return bool(find_terms(("body_site",), s.text[start:at]))


_LIST_GLUE = rx(
    r"[\s,;]*(?:(?:and|or|plus|also|too|then|и|или|а\s+также|плюс|ещё|еще|тоже|потом|sometimes|иногда)\b[\s,;]*)*"
)


def _listed_after_self(
    s: Sentence, start: int, end: int, mentions: list[tuple[int, int]], self_said: bool = False
) -> bool:
    """ "my stomach is NOT happy, nausea and the runs": a clause that is only symptoms, in a sentence
    about the speaker's own self (a first person, or a complaint of the user's before it: "не могу
    перестать чихать, и нос заложен намертво"; no one else)."""
    if start == 0 or not (self_said or FIRST_PERSON.search(s.low, 0, start)) or THIRD_PARTY.search(s.low):
        return False
    cursor = start
    for a, b in sorted(m for m in mentions if start <= m[0] < end):
        if not _LIST_GLUE.fullmatch(s.low, cursor, a):
            return False
        cursor = b
    return cursor > start and bool(_LIST_WORDS.fullmatch(s.low, cursor, len(s.low[:end].rstrip(" .!?…"))))


# How bad or how much, said between the complaints of a bare list ("bad cough and a slight fever").
_LIST_WORDS = rx(
    r"[\s,;.!…]*(?:(?:and|or|plus|also|too|a|an|some|bad|really|very|terrible|awful|slight|mild|little|bit|of"
    r"|и|или|плюс|ещё|еще|тоже|сильный|сильная|сильное|сильные|небольшой|небольшая|лёгкий|легкий|лёгкая|легкая"
    r"|жуткий|жуткая|ужасный|ужасная|страшный|немного|чуть|слегка|очень|совсем|вообще|прям"
    # "just some knee pain issues"
    r"|just|only|issues?|problems?|trouble"
    # how bad, said after it: "нос заложен намертво", "кашель сильно", "headache pretty bad"
    r"|сильно|намертво|жутко|ужасно|капитально|конкретно|постоянно|badly|pretty|so|constantly"
    # when: "just a little tired now", "кашель сегодня"
    r"|now|today|tonight|lately|still|these\s+days|right\s+now|сейчас|сегодня|пока|всё\s+ещё|все\s+еще)\b[\s,;.!…]*)*"
)


def _only_complaints(s: Sentence, mentions: list[tuple[int, int]], ctx: Context) -> bool:
    """ "cough and runny nose", "кашель и насморк": a message's sentence that is nothing but
    complaints is the user's, unless someone else was spoken of in the message before."""
    if ctx.others_before or "?" in s.low or THIRD_PARTY.search(s.low):
        return False
    cursor = 0
    for a, b in sorted(mentions):
        if a < cursor:
            continue
        if not _LIST_WORDS.fullmatch(s.low, cursor, a):
            return False
        cursor = b
    return cursor > 0 and bool(_LIST_WORDS.fullmatch(s.low, cursor, len(s.low)))


def _gone_later(s: Sentence, after: int, mentions: list[tuple[int, int]]) -> bool:
    """A later clause of the sentence, before any other symptom, opens with the symptom's end."""
    for start, end in _clauses(s):
        if start < after:
            continue
        if any(start <= a < end for a, _ in mentions):
            return False
        if _GONE_LATER.match(s.low, start, end):
            return True
    return False


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


# "the pain is back again": "back" says it returned, it is no site
_COME_BACK = rx(r"\b(?:is|are|'s|was|were|came|come|comes|coming|it's)\s+back$")


def _site_pains(s: Sentence, known: list[tuple[int, int]]) -> dict[tuple[int, int], str | None]:
    """A pain word and a body site in one clause, where the table had no ready phrase; a colloquial
    or misspelt pain word ("живот крутит", "knee's killing me") comes with the plain phrase for it."""
    found: dict[tuple[int, int], str | None] = {}
    for pain in _PAIN.finditer(s.low):
        if any(a <= pain.start() < b for a, b in known):
            continue
        start, end = s.clause(pain.start())
        sites = [
            t
            for t in find_terms(("body_site",), s.text[start:end])
            if not _COME_BACK.search(s.low, max(0, start + t.start - 12), start + t.end)
        ]
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
