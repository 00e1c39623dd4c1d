"""Medications: a drug mention plus the nearest status cue in its clause ("пью", "назначил", ...).

Drugs are found by the synonym table (any inflection, any word order); an unknown word right
after a cue counts only if it looks like a brand (capitalised, with a dose, or an INN suffix).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...domain.models import AssertionKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK
from ..normalize import Normalized, Term, find_terms, normalize_name, word_set
from ..validate import NO_THING
from . import followups
from .chinese import about_the_user as zh_about_the_user
from .dates import find_date, find_since
from .medication_details import BARE_VALUE, details, dose_from_to, dose_near
from .objects import _FUNCTION_WORDS
from .text import (
    NOW_LEAD,
    THIRD_PARTY,
    Context,
    Draft,
    Sentence,
    drugs_denied_for_a_condition,
    hypothetical,
    rx,
    third_party_before,
)

SECTIONS = frozenset({Section.MEDICATIONS})
_DRUG = ("drug",)
# Drugs named by their form and use ("сироп от кашля", "капли в нос", "nasal spray", "eye drops"): a
# kind of their own in the table, so that such a generic name never overrides the model's hint for
# a specific product in normalisation; stored under the entry's name, which holds no form word.
_FORM = ("drug_form",)
_OTHER_KINDS = ("allergen", "lifestyle", "condition", "symptom")

_STOPPED, _PRESCRIBED, _ACTIVE = FactStatus.STOPPED, FactStatus.PRESCRIBED, FactStatus.ACTIVE
_CHANGE_RU = r"(?:увеличил|уменьшил|снизил|повысил|поднял|изменил|поменял|скорректировал|удвоил|понизил)\w*"
_CHANGE_EN = r"(?:increased|raised|upped|lowered|decreased|reduced|changed|adjusted|doubled|halved)"
# a cream is put on, drops dripped, a patch stuck on: "перестала мазать", "начала капать"
_TAKE_RU = r"(?:принимать|пить|колоть|использовать|мазать|капать|закапывать|пшикать|клеить|наносить)"
# Devices a drug comes in that the user keeps at hand ("rescue inhaler", "ингалятор", "EpiPen")
_DEVICE_EN = r"(?:(?:rescue\s+|emergency\s+)?(?:inhalers?|puffers?|nebulizer)|epi-?pens?|auto-?injector)"
_DEVICE_RU = r"(?:ингалятор\w*|небулайзер\w*|баллончик\w*|шприц-ручк\w*|автоинъектор\w*)"
_CHANGED = rx(rf"{_CHANGE_RU}|\b{_CHANGE_EN}\b|\bbumped\b")


def _patterns(status: FactStatus, *patterns: str) -> list[tuple[re.Pattern[str], FactStatus]]:
    return [(rx(p), status) for p in patterns]


# All cues are matched; where one lies inside a longer one ("не принимаю" in "больше не
# принимаю"), the longer wins. Past tense ("принимал", "took") reads as stopped.
_CUES = [
    *_patterns(
        _STOPPED,
        r"\b(?:больше|уже)\s+не\s+(?:принимаю|пью|колю|использую|пользуюсь|мажу|капаю|закапываю|пшикаю|клею)\b",
        rf"\b(?:перестала?|бросила?|прекратила?|закончила?)\s+(?:{_TAKE_RU}|прием|курс)\b",
        r"\bотменил[аи]?\b|\bсняли\s+с\b|\bне\s+(?:принимаю|пью|колю|мажу|капаю)\b|\b(?:принимала?|пила?|колола?)\b",
        # "аторвастатин бросил месяц назад", "допил амоксиклав": the drug named first, then the end
        r"\b(?:бросила?|перестала?|прекратила?|допила?|пропила?\s+курс)\b(?!\s+(?:курить|пить\s+алкоголь))",
        r"\b(?:stopped|quit|discontinued|ceased)\b(?:\s+(?:taking|using))?",
        r"\bno\s+longer\s+(?:take|taking|on|use)\b|\b(?:don't|do\s+not|dont)\s+take\b|\bnot\s+taking\b",
        r"\b(?:came|come|went|got)\s+off\b|\btook\s+me\s+off\b|\b(?:i'm|i\s+am|im)\s+off\b",
        r"\bfinished\s+(?:my|the)\s+(?:course|prescription)\s+of\b",
        r"\b(?:finished|completed)\s+(?:taking|using)\b",
        r"\bused\s+to\s+take\b|\b(?:took|was\s+taking|was\s+on)\b",
        # a drug tried ("tried ibuprofen 200, didn't help", "пробовала нурофен", "выпила но-шпу")
        # was taken, and is not being taken now
        r"\b(?:tried|попробовала?|пробовала?|выпила?)\b",
    ),
    *_patterns(
        _PRESCRIBED,
        r"\b(?:назначила?|назначили|выписала?|выписали|прописала?|прописали)\b|\bназначен\w*",
        r"\bprescribed\b|\b(?:prescription|script|rx)\s+for\b|\bрецепт\s+на\b",
        r"\b(?:рекомендовала?|рекомендовали|посоветовала?|посоветовали|recommended|advised)\b",
    ),
    *_patterns(
        _ACTIVE,
        # "врач добавил эналаприл 5 мг", "doc added jardiance 10mg": added to what the user takes
        r"\b(?:добавила?|добавили|подключила?|подключили)\b",
        r"\badded\b",
        r"\b(?:пью|принимаю|колю|использую|пользуюсь|капаю|закапываю|пшикаю|ингалирую|мажу)\b|\bсижу\s+на\b"
        # "я на эналаприле 10 мг": the Russian "I'm on X", the drug in the prepositional case ("я на
        # аспирин не реагирую", "я на пенициллин аллергик" are not; "я на диете" names no drug)
        r"|\bя\s+(?:(?:сейчас|уже|всё\s+ещё|все\s+еще|пока|давно|постоянно)\s+){0,2}на\b(?=\s+[\w-]+[еи]\b)",
        rf"\b(?:начала?|стала?)\s+(?:снова\s+)?{_TAKE_RU}\b|\bпродолжаю\s+(?:принимать|пить)\b",
        r"\bвернул(?:ся|ась)\s+к\b|\bтеперь\s+на\b",
        r"\b(?:take|takes|use|inject)\b|\btaking\b|\b(?:now|currently)\s+on\b"
        # "no, just high cholesterol, on rosuvastatin 10": a bare "on" opening a clause
        r"|(?:^|[,;:—–]\s*|\band\s+)(?:just\s+|only\s+|also\s+)?on\b(?=\s+(?:my\s+|the\s+)?[^\W\d_])"
        # "diabetic for 10 years on insulin", "two years on metformin now"
        r"|\b(?:years?|months?|weeks?)\s+(?:now\s+)?on\b(?=\s+(?:my\s+|the\s+)?[^\W\d_])"
        # "asthmatic since childhood on Symbicort": the user described by the disease, then the drug
        r"|\b(?:diabetic|asthmatic|hypertensive|epileptic|an(?:a)?emic|hypothyroid)\b[^,.;]{0,40}?\bon\b(?=\s+[^\W\d_])",
        # "still on my lisinopril", "по-прежнему на эналаприле"
        r"\bstill\s+(?:on|taking|using)\b|\b(?:по-прежнему|до\s+сих\s+пор)\s+на\b(?=\s+[\w-]+[еи]\b)",
        r"\b(?:i\s+am|i'm|im)\s+(?:currently\s+|still\s+|now\s+)?(?:taking|on|using)\b",
        # "Doc started me on X", "the GP put me on X", "посадили на X": the treatment is under way
        r"\b(?:put|started|restarted|kept)\s+me\s+(?:back\s+)?on\b|\bпосадил[аи]?\s+(?:меня\s+)?на\b"
        r"|\b(?:i\s+was|i've\s+been|i\s+have\s+been|i\s+got|got)\s+(?:put|started|restarted)\s+(?:back\s+)?on\b",
        # "i do have an inhaler, albuterol", "у меня есть ингалятор с сальбутамолом": a device
        # the user keeps is a drug in use (as needed, often), even after a "no" to "any medications?"
        r"\b(?:i\s+(?:do\s+|also\s+|still\s+|always\s+)?(?:have|carry|keep)|i've\s+got|i\s+have\s+got)"
        rf"\s+(?:an?\s+|my\s+|some\s+)?(?:[\w-]+\s+)?{_DEVICE_EN}\b(?:\s*(?:with|of|for|:|—|-))?"
        rf"|\bу\s+меня\s+(?:(?:есть|всегда|ещё|еще|тоже|с\s+собой)\s+){{0,3}}{_DEVICE_RU}"
        rf"(?:\s+(?:с|со)\b)?|\b(?:ношу|держу)\s+(?:с\s+собой\s+|при\s+себе\s+)?{_DEVICE_RU}(?:\s+(?:с|со)\b)?",
        r"\b(?:have|'ve|i've)\s+been\s+(?:taking|on|using)\b"
        r"|\b(?:started|began|start)\s+(?:taking|on|using)\b"
        # "started sertraline 50 last month": the drug right after the verb
        r"|(?:^|\bi\s+|\bi've\s+|[,;]\s*)(?:just\s+|recently\s+)?(?:started|began)\b(?=\s+[^\W\d_])(?!\s+(?:\w+ing|to|a|an|the|at|in|on|with|after|when|my|having|feeling)\b)"
        # "I started metformin 500 mg", "I've restarted it": the drug itself is the object
        r"|\b(?:i\s+|i've\s+|i\s+have\s+|just\s+)(?:re)?(?:started|began)\b(?!\s+(?:to\s+)?(?:feel|get|have|notice|taking|on|using))",
        # a switch: the old drug is stopped, the new one taken (see _status)
        r"\b(?:переш(?:ел|ла)|перевели|перевела?|заменил\w*|поменял\w*|сменил\w*|replaced"
        r"|switched|swapped)\b(?!\s+(?:мне\s+)?(?:дозу|дозировку|dose|dosage))"
        # "changed me to X", "moved me over to X": "changed" alone is too common a word ("changed my diet")
        r"|\b(?:changed|moved)\s+(?:me|it|them)\s+(?:over\s+)?(?:to|onto)\b",
        # a dose change says the drug is being taken; the new dose is the current value
        rf"\b{_CHANGE_RU}\s+(?:мне\s+)?(?:дозу|дозировку)\b|\b(?:дозу"
        rf"|дозировку)\s+(?:[\w-]+\s+){{0,3}}?{_CHANGE_RU}",
        rf"\b{_CHANGE_EN}\s+(?:my\s+|the\s+|his\s+|her\s+)?(?:[\w-]+\s+)?(?:dose|dosage)\b",
        rf"\b(?:dose|dosage)\s+(?:of\s+[\w-]+\s+)?(?:was\s+|has\s+been\s+|got\s+|is\s+)?{_CHANGE_EN}\b",
        # "they bumped my sertraline up to 100", "upped the Zoloft to 150 mg", "bumped my synthroid up
        # from 88 to 100 mcg"; "поднял мне эутирокс с 50 до 75": the drug is taken, at the new dose
        rf"\b(?:bumped|{_CHANGE_EN})\s+(?:my\s+|the\s+|his\s+|her\s+)?(?:[\w-]+\s+){{1,2}}?(?:up|down|back)?"
        r"\s*(?=(?:from\s+\d[\d.,]*\s*(?:[^\W\d]+\s+)?)?(?:to\s+)?\d)",
        rf"\b{_CHANGE_RU}\s+(?:мне\s+)?(?:[\w-]+\s+){{1,2}}?(?=(?:со?\s+\d[\d.,]*\s*(?:[^\W\d]+\s+)?)?до\s+\d)",
        # the drug said first: "а конкор снизил до 2,5", "the lisinopril they upped to 20"
        rf"\b{_CHANGE_RU}\s+(?:мне\s+)?(?=(?:со?\s+\d[\d.,]*\s*(?:[^\W\d]+\s+)?)?до\s+\d)",
    ),
]
# Cues that only tell the status of a drug the table knows (never a new name after them): a patch
# stuck on, a gum chewed ("клею никоретте пластырь", "chewing nicorette gum"); the user's own list
# ("таблетки мои: конкор ...", "мои лекарства — ...", "my meds: ...", "remembered my pills, ...").
_TABLE_ONLY_CUES = _patterns(
    _ACTIVE,
    r"\b(?:клею|наклеиваю|жую|рассасываю)\b|\b(?:wearing|chewing|wear|chew)\b",
    r"\b(?:(?:мои|свои)\s+(?:таблетки|лекарства|препараты)|(?:таблетки|лекарства|препараты)\s+мои)\s*[:,—–-]"
    r"|\b(?:my|current)\s+(?:meds|medications?|medicines?|pills|tablets)\s*(?:[:,—–-]|\s(?:are|include)\b)",
)
# A course finished, said of the drug right after it ("finished the prednisone taper", "done with
# the Z-Pak", "completed my amoxicillin", "закончила курс амоксиклава" is a _CUES one): only that
# drug, and only one the table knows ("finished the Witcher" names no drug).
_DIRECT_STOP = rx(
    r"\b(?:finished|completed|done\s+with|through\s+with|wrapped\s+up)\s+(?:off\s+)?"
    r"(?:(?:my|the|all\s+(?:of\s+)?(?:my|the)|that|this|last\s+of\s+(?:my|the)|rest\s+of\s+(?:my|the))\s+)?"
    r"(?:(?:last|final)\s+(?:dose|pill|tablet)s?\s+of\s+(?:my\s+|the\s+)?)?"
)
# ... or said after it: "z pack done", "the prednisone is finished", "amoxicillin course completed";
# "антибиотик допила", "адвантан закончила мазать" (the _CUES stop verbs read that one).
_DONE_AFTER = rx(
    r"\s*(?:(?:course|pack|taper|prescription|round)\s+)?(?:(?:is|are|was|now|all|totally|finally|officially)\s+){0,2}"
    r"(?:done|finished|completed)\b(?!\s+for\s+(?:the\s+day|today|tonight|this|now))"
    r"|\s*(?:(?:course|pack|taper|prescription)\s+)?(?:is|was)\s+(?:all\s+)?over\b"
    r"|\s*(?:(?:уже|тоже|я|наконец|благополучно)\s+){0,2}(?:допил[аи]?|закончил[аи]?|завершил[аи]?|пропил[аи]?)\b"
    r"(?!\s+(?:работ|ремонт|учеб|школ|институт|универ|проект|дела))"
)
_NOT_BEFORE = rx(r"(?:\bnot|n't|\bне|\bещ[её]\s+не|\byet\s+to)\s+(?:(?:yet|fully|quite|уже)\s+)?$")
# "the GP gave me sumatriptan", "врач дал мне ...": a prescription, when a doctor (or a hospital)
# gives; only a drug named after the cue ("the doctor said amoxicillin gave me a rash" is no cue).
_GIVEN = rx(
    r"\b(?:gave|given|handed|sent)\s+me\b(?:\s+home\s+with\b)?(?:\s+(?:a|an|some)\s+(?:prescription|script"
    r"|course|pack|box|bottle)\s+(?:for|of)\b)?|\b(?:wrote|written)\s+me\s+(?:a\s+|an\s+)?(?:prescription|script"
    r"|rx)\s+for\b|\b(?:дала?|дали|выдала?|выдали)\s+(?:мне\s+)?(?:(?:курс|рецепт)\s+(?:на\s+)?)?"
)
_ADVICE = rx(r"рекомендова|посоветова|recommended|advised")
_DOCTOR = rx(
    r"\b(?:врач\w*|доктор\w*|терапевт\w*|кардиолог\w*|эндокринолог\w*|невролог\w*|гинеколог\w*|уролог\w*"
    r"|педиатр\w*|специалист\w*|психиатр\w*|дерматолог\w*|стоматолог\w*|в\s+больнице|в\s+поликлинике"
    r"|в\s+травмпункте|скорая|doctors?|docs?|dr|physicians?|gps?|cardiologist|endocrinologist|neurologist"
    r"|specialist|psychiatrist|dermatologist|dentist|rheumatologist|gastroenterologist|gyn\w*|ob-?gyn|nurse"
    r"|pharmacist|hospital|the\s+er|emergency\s+room|a&e|clinic|urgent\s+care|walk-in)\b"
)
_THEY = rx(r"\W*(?:and\s+|then\s+|so\s+)?they\b")
_SWITCH_TO = rx(r"\b(?:на|to|onto|with|for)\s+$")
_SWITCH = rx(
    r"\b(?:переш(?:ел|ла)|перевели|перевела?|заменил\w*|поменял\w*|сменил\w*|switched|changed"
    r"|replaced|swapped|moved\s+me)\b(?!\s+(?:мне\s+)?(?:дозу|дозировку|dose|dosage))"
)
# Between a switch and the drug it replaces: its direct object ("заменил эналаприл", "replaced my
# lisinopril") or what it is from ("перешёл с эналаприла", "switched my BP pill from lisinopril").
_SWITCH_FROM = rx(
    r"\s*(?:(?:мне|меня|me|my|the|his|her|him)\s+){0,2}|\s*(?:[\w-]+\s+){0,3}?(?:from|off|с|со)\s+"
)
# A switch only offered or talked about ("предложил перейти на X", "wants to switch me to X",
# "mentioned switching to X"): the new drug is at most prescribed, not yet taken.
_SWITCH_OFFERED = rx(
    r"\b(?:предлага\w*|предложил\w*|советует|советовал\w*|рекомендует|рекомендовал\w*|хочет|хотят"
    r"|думает|обсуждали|обсудили|говорил\w*\s+про|suggest\w*|recommend\w*|advis\w*|offer\w*|mention\w*"
    r"|wants?\s+(?:me\s+)?to|talk(?:ed|ing)\s+about|discuss\w*|consider\w*|might|may|maybe)\b"
)
# "но я ещё не начала", "haven't picked it up yet": the new drug waits, prescribed
_NOT_YET = rx(
    r"\b(?:ещ[её]|пока)\s+не\s+(?:начал\w*|стал\w*|пил\w*|принимал\w*|купил\w*|выкупил\w*)\b|\bначну\b"
    r"|\bnot\s+(?:yet\s+)?(?:started|taken|begun)\b|\bhaven'?t\s+(?:started|taken|begun|picked)\b|\bnot\s+yet\b"
    r"|\bwill\s+start\b|\bstart\s+(?:it\s+|them\s+)?(?:tomorrow|next|on\s+monday)\b"
)
# "X вместо Y", "put me on X instead of Y": the drug named after the marker is the replaced one.
_INSTEAD_OF = rx(r"\b(?:вместо|instead\s+of|in\s+place\s+of)\s+$")
_INSTEAD = rx(r"\bвместо\b|\binstead\b|\bin\s+place\s+of\b")
# "put me on X instead", "выписал X вместо него": the replaced drug is left unnamed (the one in focus)
_INSTEAD_BARE = rx(r"\binstead\b(?!\s+of\b)|\bвместо\s+(?:него|нее|неё|них|этого|старого|прежнего)\b")
_SECTION_ABSENT = rx(
    r"\b(?:не\s+принимаю|не\s+пью)\s+(?:никаких\s+|постоянно\s+|регулярно\s+)*(?:лекарств|препарат|таблет)"
    r"|\bникаких\s+(?:лекарств|препаратов|таблеток)\b|\bничего\s+(?:постоянно\s+)?не\s+(?:принимаю|пью)\b"
    r"|\b(?:лекарств\w*|препарат\w*)\s+(?:никаких\s+|постоянно\s+)?не\s+принимаю\b"
    r"|\b(?:don't|do\s+not|dont)\s+take\s+any\s+(?:medications?|medicines?|meds|pills|drugs)\b"
    r"|\bnot\s+(?:on|taking)\s+any\s+(?:medications?|medicines?|meds|pills|drugs)\b"
    r"|\bno\s+(?:regular\s+)?(?:medications?|meds)\b"
)
_SKIP_BEFORE_NAME = rx(
    r"^(?:\s*(?:мне|ему|me|my|the|a|an|also|тоже|еще|уже|снова|again|currently|regularly|постоянно|регулярно"
    r"|по|его|теперь|now|still)\b)+"
)
_NAME_TOKEN = re.compile(
    r"\s*([^\W\d_][\w-]*)(?:\s+(форте|лонг|мв|ретард|xr|er|sr|cr|xl|плюс|plus|кардио|солютаб)\b)?"
)
_INN_SUFFIX = re.compile(
    r"(?:прил|сартан|статин|олол|дипин|мицин|циллин|празол|профен|фенак|оксацин|азол|тидин|ксабан|глиптин"
    r"|флозин|глутид|парин|зепам|ксетин|низолон|метазон|pril|sartan|statin|olol|dipine|mycin|cillin|prazole"
    r"|profen|fenac|oxacin|azole|tidine|xaban|gliptin|flozin|glutide|parin|azepam|oxetine|olone)$"
)
_NOT_A_DRUG = word_set(
    "вода воду чай кофе сок молоко кефир пиво вино водку алкоголь таблетки таблетку таблетка лекарство "
    "лекарства лекарств препарат препараты средство что это все курс душ ванну решение меры участие внимание "
    "it them that this these those some any care time place part medication medications medicine medicines "
    "meds pills pill drugs drug tablets something nothing anything everything water coffee tea juice milk "
    "alcohol beer wine break breath walk shower bath vacation holiday leave diet keto board call notes "
    "action steps from down back"
    " january february march april may june july august september october november december monday tuesday"
    " wednesday thursday friday saturday sunday"
)


@dataclass
class _Cue:
    status: FactStatus
    start: int
    end: int
    advice: bool = False
    given: bool = False  # "gave me": a doctor's, and only for what follows
    table_only: bool = False  # no unknown word after it is a drug name (_TABLE_ONLY_CUES)
    direct: bool = False  # only for the drug right after it (_DIRECT_STOP)


# "anything except X", "ничего, кроме X", "除了X": what follows is the exception to a "none"
EXCEPT = re.compile(
    r"\b(?:except(?:\s+for)?|other\s+than|apart\s+from|besides|aside\s+from|кроме|помимо|за\s+исключением)\b"
    r"|除了"
)
_ITEM_NOT = re.compile(r"(?:\band|\bbut|,|\bи|\bно|\bа)\s+(?:not|не)\s+$")
# "can I take ibuprofen with my lisinopril?", "можно нурофен с моим лозартаном?": a drug the user
# calls their own is one they take, even inside a question about another one
_OWNED = rx(
    r"(?:\bmy|\bмо(?:й|им|его|ему|ей|ю|ем|и|их|ими)|\bсво(?:й|им|его|ему|ей|ю|ем|и|их|ими))"
    r"\s+(?:usual\s+|daily\s+|regular\s+|morning\s+|evening\s+|обычн\w+\s+|ежедневн\w+\s+|утренн\w+\s+)?$"
)
# "can I take my ibuprofen?": the drug the question asks to take is still only asked about
_ASKED_TO_TAKE = rx(r"\b(?:take|use|have|принять|принимать|пить|выпить)\s+(?:my|мо\w+|сво\w+)\s+(?:\w+\s+)?$")


# The drug said before, ended later in the sentence with no other drug between
_STOPPED_IT_AFTER = rx(
    r"(?:\b(?:but|and|then|so)|[,;])\s+(?:i\s+)?(?:stopped|quit|discontinued|came\s+off)\s+(?:taking\s+)?(?:it|them)\b"
    r"|(?:\b(?:но|и|потом)|[,;])\s+(?:я\s+)?(?:бросила?|перестала?\s+(?:пить|принимать)|отменила?)\s+(?:его|её|ее|их)\b"
)


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    if CJK.search(s.text):
        return taken_as_told(s, ctx)  # the rest of Chinese is read by rules/chinese.py
    cues = _cues(s)
    drugs = _drugs(s, cues)
    drafts: list[Draft] = []
    seen: dict[tuple[str, FactStatus], Draft] = {}
    for index, (a, b) in enumerate(drugs):
        cue = _cue_for(s, cues, a)
        owned = bool(_OWNED.search(s.low, max(0, a - 30), a)) and not _ASKED_TO_TAKE.search(
            s.low, max(0, a - 40), a
        )
        if third_party_before(s, min(a, cue.start if cue else a)) or (hypothetical(s, a) and not owned):
            continue
        if index and _ITEM_NOT.search(s.low[drugs[index - 1][1] : a]):
            continue  # "metformin and not insulin", "метформин, но не инсулин": the item's own "not"
        status = _status(s, cue, a, b)
        if owned and (status is None or hypothetical(s, a)):
            status = _ACTIVE  # the question's verb ("should I stop…?") is asked, not done
        if status in (None, _PRESCRIBED) and _taken_after(s, cues, drugs, index, cue):
            status = _ACTIVE  # "выписал лозап 50 утром, пью", "they said ibuprofen 600, i take it"
        if status is None:
            continue
        next_start = drugs[index + 1][0] if index + 1 < len(drugs) else len(s.text)
        if status in (_ACTIVE, _PRESCRIBED) and _STOPPED_IT_AFTER.search(s.low, b, next_start):
            status = _STOPPED  # "the doctor put me on metformin but I stopped it because of …"
        name = s.text[a:b]
        hint, normalized = _normalized(s, a, b)
        attributes, last = details(s, a, b, next_start, drugs[index - 1][1] if index else 0)
        if (normalized.key, status) in seen:
            # "витамин Д, аквадетрим 2000 в день": one drug named twice; what the second name adds
            earlier = seen[(normalized.key, status)]
            if attributes.keys() - earlier.attributes.keys():
                earlier.attributes = {**attributes, **earlier.attributes}
                earlier.span = (earlier.span[0], max(earlier.span[1], s.evidence(a, max(b, last))[1]))
            continue
        changed = cue is not None and bool(_CHANGED.search(s.low, cue.start, cue.end))
        new_dose = dose_from_to(s.low, b, s.clause(a)[1]) if status is _ACTIVE and changed else None
        if new_dose is not None:
            # "from 88 to 100 mcg": the value said first is the old dose, the one after "to" is now
            value, unit, end = new_dose
            if unit is not None:
                attributes["dose_unit"] = unit.value
            elif attributes.get("dose_value") != value:
                attributes.pop("dose_unit", None)  # the unit found went with the old value
            attributes["dose_value"] = value
            last = max(last, end)
        if status is _ACTIVE and changed and "dose_value" not in attributes:
            # "подняли дозу сертралина до 100": the new value, its unit unsaid
            bare = BARE_VALUE.search(s.low, b, s.clause(a)[1])
            if bare and 0 < float(bare.group("val").replace(",", ".")) < 100_000:
                attributes["dose_value"] = float(bare.group("val").replace(",", "."))
                last = max(last, bare.end())
        if normalized.code:
            attributes["atc_code"] = normalized.code
        clause_low = s.low[slice(*s.clause(a))]
        start = min(a, cue.start) if cue else a
        draft = Draft(
            Section.MEDICATIONS,
            s.evidence(start, max(b, last)),
            name=name,
            hint=hint,
            status=status,
            attributes=attributes,
            valid_from=find_since(clause_low, ctx.today) if status is not _STOPPED else None,
            valid_to=find_date(clause_low, ctx.today) if status is _STOPPED else None,
        )
        seen[(normalized.key, status)] = draft
        drafts.append(draft)
    drafts = _switched_from(s, ctx, cues, drafts)
    if not drafts and not drugs:
        drafts = taken_as_told(s, ctx)
    if not drafts:
        absent = _SECTION_ABSENT.search(s.low)
        if absent and (EXCEPT.search(s.low) or drugs_denied_for_a_condition(s.low, *absent.span())):
            absent = None  # "ничего не принимаю, кроме витаминов", "…but no meds for it": not none at all
        if absent and not third_party_before(s, absent.start()) and not hypothetical(s, absent.start()):
            drafts.append(
                Draft(Section.MEDICATIONS, s.evidence(*absent.span()), kind=AssertionKind.SECTION_ABSENT)
            )
    return drafts


def _switch_target(s: Sentence, cue: _Cue | None, a: int) -> bool:
    """The drug at ``a`` is what the user was switched to ("поменял на X", "switched me to X",
    "put me on X instead")."""
    clause_start, clause_end = s.clause(a)
    if _SWITCH.search(s.low, clause_start, a) and _SWITCH_TO.search(s.low[max(clause_start, a - 7) : a]):
        return True
    return bool(cue and cue.status is not _STOPPED and _INSTEAD_BARE.search(s.low, a, clause_end))


def switched_to(text: str) -> list[Term]:
    """The drugs ``text`` says the user was switched to ("кардиолог поменял на лозартан")."""
    low = text.casefold().replace("ё", "е")
    terms = find_terms(_DRUG, text)
    return [
        t
        for i, t in enumerate(terms)
        if (
            _SWITCH_TO.search(low[max(0, t.start - 7) : t.start])
            and _SWITCH.search(low, max(0, t.start - 60), t.start)
        )
        or _INSTEAD_BARE.search(low, t.end, terms[i + 1].start if i + 1 < len(terms) else len(low))
    ]


def _switched_from(s: Sentence, ctx: Context, cues: list[_Cue], drafts: list[Draft]) -> list[Draft]:
    """A switch that names only the new drug ("How's the sertraline?" / "doc switched me to
    lexapro"): the drug it replaces is the one in focus, stopped. The resolver (write/focus.py)
    takes only a drug of the same use as the new one (by ATC group), never the new one itself."""
    if any(d.status is _STOPPED for d in drafts) or any(c.status is _STOPPED for c in cues):
        return drafts  # the old drug is named, or a stop is said ("бросила его")
    if _NOT_YET.search(s.low):
        return drafts  # "поменял на X, но я ещё не начала": the old drug is still taken
    for index, draft in enumerate(drafts):
        a = draft.span[0] + s.text[draft.span[0] : draft.span[1]].find(draft.name or "")
        if draft.status not in (_ACTIVE, _PRESCRIBED) or not draft.name or a < draft.span[0]:
            continue
        if not _switch_target(s, _cue_for(s, cues, a), a) or followups.stopped_before(s, ctx, a):
            continue
        stop = Draft(
            Section.MEDICATIONS,
            draft.span,
            status=_STOPPED,
            valid_to=find_date(s.low[slice(*s.clause(a))], ctx.today),
            refers_to_focus=True,
        )
        return [*drafts[:index], stop, *drafts[index:]]
    return drafts


# A drug taken, said with no name: the answer to "Did you take it?", "药吃了吗？" after a drug was
# prescribed ("took it for a week", "попил три дня", "吃了两天，已经不拉了"). The drug is the one
# in focus (write/focus.py); a finished course ("finished the course", "допил", "吃完了") ended.
_EN_OBJECT = (
    r"(?:it|them|those|these|the\s+(?:pills?|tablets?|meds|medicines?|medications?|antibiotics?|capsules?"
    r"|drops))"
)
_EN_TAKEN = rx(
    r"^\W*(?:(?:yes|yeah|yep|yup|sure|i\s+did|did|ok|okay)\b[\s,.!—–-]*)?(?:i\s+|i've\s+|i\s+have\s+)?"
    r"(?:(?:already|just|also|now)\s+)?"
    r"(?P<verb>took|taken|been\s+(?:taking|using)|used|finished|completed|(?:re)?started(?:\s+(?:taking|using))?"
    rf"|began(?:\s+(?:taking|using))?|(?:am|'m)\s+(?:taking|using))\s+(?:all\s+(?:of\s+)?)?{_EN_OBJECT}"
    r"(?=\s*(?:$|[,.;!?—–-]|(?:for|as|every|each|twice|once|daily|until|till|and|but|like|exactly|all"
    r"|religiously|regularly|properly|already|yesterday|today|since)\b))"
)
_RU_TIME = (
    r"(?:\d+|один|одну|два|две|три|четыре|пять|шесть|семь|десять|пару|несколько|целую|всю|весь|неделю)"
    r"(?:\s+(?:дн\w*|день|недел\w*|раз\w*|суток|месяц\w*))?"
)
_RU_TAKEN = rx(
    r"^\W*(?:(?:да|ага|угу|конечно)\b[\s,.!—–-]*)?(?:я\s+)?(?:(?:его|её|ее|их)\s+)?"
    # "я его уже неделю принимаю", "уже третий день пью"
    rf"(?:(?:уже|сейчас|исправно|регулярно|каждый\s+день|(?:втор|трет|четверт|пят)\w+\s+(?:день|недел\w*)|{_RU_TIME})\s+){{0,3}}"
    r"(?P<verb>(?:начал[аи]?|стал[аи]?)\s+(?:(?:его|её|ее|их)\s+)?(?:пить|принимать|колоть|мазать|капать|использовать)"
    r"|пил[аи]?|попил[аи]?|выпил[аи]?|пропил[аи]?|допил[аи]?|принимал[аи]?|попринимал[аи]?|пью"
    r"|принимаю|колол[аи]?|прокол(?:ол)?[аи]?|закончил[аи]?\s+курс|пропил[аи]?\s+курс)"
    r"(?:\s+(?:его|её|ее|их))?"
    rf"(?=\s*(?:$|[,.;!?—–-]|{_RU_TIME}\b|(?:как|по|все|весь|курс|уже|до|и|а|но|вчера|сегодня|исправно"
    r"|регулярно)\b))"
)
_ZH_TAKEN = re.compile(
    r"^(?:嗯|对|是的?|有)?[，,\s]*(?:药)?(?:已经|都|也|按时|一直|每天)?(?P<verb>吃了|吃过了|吃完了|在吃|吃着|服了|用了|喝了)"
    r"(?:药)?(?=$|[，。,.!！；]|(?:\d+|[一两二三四五六七八九十几半]+|好几)(?:个)?(?:天|周|星期|礼拜|月|次|回|顿)|快)"
)
_COURSE_DONE = rx(r"finished|completed|допил|курс|закончил|吃完")


def taken_as_told(s: Sentence, ctx: Context) -> list[Draft]:
    """A drug said to be taken with no name of its own; nothing when a follow-up rule reads it."""
    cjk = bool(CJK.search(s.text))
    m = (_ZH_TAKEN if cjk else _RU_TAKEN).match(s.low) or (None if cjk else _EN_TAKEN.match(s.low))
    if m is None or find_terms(_DRUG, s.text) or followups.extract(s, ctx):
        return []
    verb = m.start("verb")
    if not zh_about_the_user(s, verb) if cjk else third_party_before(s, verb) or hypothetical(s, verb):
        return []
    done = bool(_COURSE_DONE.search(m.group("verb")))
    return [
        Draft(
            Section.MEDICATIONS,
            s.evidence(m.start("verb"), m.end()),
            status=_STOPPED if done else _ACTIVE,
            refers_to_focus=True,
        )
    ]


def _cues(s: Sentence) -> list[_Cue]:
    found = [
        _Cue(status, m.start(), m.end(), bool(_ADVICE.match(m.group(0))))
        for pattern, status in _CUES
        for m in pattern.finditer(s.low)
    ]
    found += [_Cue(_PRESCRIBED, m.start(), m.end(), given=True) for m in _GIVEN.finditer(s.low)]
    found += [
        _Cue(status, m.start(), m.end(), table_only=True)
        for pattern, status in _TABLE_ONLY_CUES
        for m in pattern.finditer(s.low)
    ]
    found += [
        _Cue(_STOPPED, m.start(), m.end(), table_only=True, direct=True)
        for m in _DIRECT_STOP.finditer(s.low)
        if not _NOT_BEFORE.search(s.low, 0, m.start())
    ]
    # "больше не принимаю" also contains "принимаю": the longer, more specific cue wins.
    kept = [
        c
        for c in found
        if not any(
            o is not c and o.start <= c.start and c.end <= o.end and (o.end - o.start) > (c.end - c.start)
            for o in found
        )
    ]
    return sorted(kept, key=lambda c: c.start)


def _drugs(s: Sentence, cues: list[_Cue]) -> list[tuple[int, int]]:
    # fuzzy: a misspelt drug ("I stopped the amoxicilin") is still that drug (normalize.FUZZY_KINDS)
    terms = find_terms(_DRUG, s.text, fuzzy=True)
    known = [(t.start, t.end) for t in terms]
    # "инсулин Лантус": a class name right before its own brand is one drug, the specific one.
    spans = [
        (t.start, t.end)
        for t, after in zip(terms, [*terms[1:], None][: len(terms)], strict=True)
        if not (
            after
            and not s.text[t.end : after.start].strip()
            and after.entry.key.startswith(t.entry.key + "_")
        )
    ]
    forms = find_terms(_FORM, s.text)
    spans += [
        (f.start, f.end)
        for f in forms
        if not any(t.start < f.end and f.start < t.end for t in terms)
        and not _form_of_a_neighbour(s, f, terms)
    ]
    for cue in cues:
        if cue.table_only:
            continue
        rest = s.low[cue.end :]
        skip = _SKIP_BEFORE_NAME.match(rest)
        offset = cue.end + (skip.end() if skip else 0)
        m = _NAME_TOKEN.match(s.low, offset)
        if not m or any(a <= m.start(1) < b for a, b in known):
            continue
        word, a, b = m.group(1), m.start(1), m.end(2) if m.group(2) else m.end(1)
        if _looks_like_drug(s, word, a, b):
            spans.append((a, b))
    return sorted(set(spans))


_FORM_GAP = re.compile(r"[\s()«»\"'-]*")


def _form_of_a_neighbour(s: Sentence, form: Term, terms: tuple[Term, ...]) -> bool:
    """A drug named by its form ("сироп от кашля", "nasal spray") said right next to a drug's own
    name ("Flonase nasal spray", "Отривин (капли в нос)") is that drug's form, not a second drug."""
    return any(
        _FORM_GAP.fullmatch(s.text, t.end, form.start) or _FORM_GAP.fullmatch(s.text, form.end, t.start)
        for t in terms
    )


def _normalized(s: Sentence, a: int, b: int) -> tuple[str, Normalized]:
    """The hint and normalised name of the drug at [a, b); a form-named one takes its entry's name
    in the script of what was said ("капли в нос" -> "средство для носа") and the entry's ATC group."""
    name = s.text[a:b]
    form = next((f.entry for f in find_terms(_FORM, s.text) if (f.start, f.end) == (a, b)), None)
    if form is None:
        normalized = normalize_name(Section.MEDICATIONS, name)
        return normalized.name_normalized, normalized
    hint = form.name("ru" if re.search(r"[а-яё]", name.lower()) else "en")
    normalized = normalize_name(Section.MEDICATIONS, name, hint)
    return hint, Normalized(normalized.name_normalized, normalized.key, normalized.code or form.code)


def _looks_like_drug(s: Sentence, word: str, a: int, b: int) -> bool:
    if len(word) < 3 or word in _NOT_A_DRUG or word in _FUNCTION_WORDS or word in NO_THING:
        return False  # "Перестала Нет", "Никаких": a capitalised no-word is no drug
    if find_terms(_OTHER_KINDS, s.text[a:b]):
        return False
    if word.startswith(("витамин", "vitamin")):
        return True
    capitalised = s.text[a].isupper() and a > 0
    return capitalised or bool(dose_near(s.low, b)) or bool(_INN_SUFFIX.search(word))


# The user says they take the drug just named, after a prescription or with no verb at all
# ("терапевт выписал лозап 50 утром, пью", "назначила аквадетрим 2000 в день, начала пить", "they
# said ibuprofen 600 as needed, i take it every other day", "prescribed Lexapro, been taking it
# since May"): the verb has no object of its own, or a pronoun.
_TAKEN_AFTER = rx(
    r"(?:^|[,;:—–(]|\b(?:и|но|а|вот)\b)\s*"
    r"(?:(?:я|уже|сейчас|теперь|исправно|регулярно|его|её|ее|их|вот)\s+){0,3}"
    rf"(?:пью|принимаю|колю|мажу|капаю|пользуюсь|клею|(?:начала?|стала?)\s+(?:(?:его|её|ее|их)\s+)?{_TAKE_RU})\b"
    r"|\b(?:который|которую|которые|которым)\s+(?:я\s+)?(?:(?:уже|теперь|сейчас|и)\s+)?(?:пью|принимаю|мажу|капаю|колю"
    r"|пользуюсь)\b"
    r"|(?:^|[,;:—–(]|\b(?:and|but|so)\b)\s*(?:(?:i|i've|i\s+have|i'm|im|i\s+am)\s+)?(?:(?:already|now|also|still"
    r"|just|actually)\s+)?(?:been\s+(?:taking|using|on)|(?:started|began)\s+(?:taking|using)|(?<=i\s)(?:take|use|started|began)"
    r"|(?<=i'm\s)taking|(?<=im\s)taking|(?<=am\s)taking)\s+(?:it|them)\b"
    r"|\bwhich\s+(?:i\s+|i've\s+|i'm\s+)(?:(?:now|still|already|also)\s+)?(?:take|use|been\s+taking|taking)\b"
)


def _taken_after(
    s: Sentence, cues: list[_Cue], drugs: list[tuple[int, int]], index: int, cue: _Cue | None
) -> bool:
    """A "пью" / "i take it" after the drug at ``index`` (and the drugs of its own list, of the same
    cue), with no other drug in between: the user takes it."""
    end = len(s.text)
    for x, _ in drugs[index + 1 :]:
        if _cue_for(s, cues, x) is not cue:
            end = x
            break
    m = _TAKEN_AFTER.search(s.low, drugs[index][1], end)
    if (
        m is None
        or _NOT_YET.search(s.low)
        or hypothetical(s, m.end() - 1)
        or third_party_before(s, m.end() - 1)
    ):
        return False
    # the verb's own object is a drug of its clause ("выписал лозап, пью ещё аспирин")
    return not (end < len(s.text) and end < s.clause(m.end() - 1)[1])


# "...the doctor said bronchitis. Gave me a Z-Pak": the giver is the one the story was about
_SUBJECTLESS = rx(r"\W*(?:(?:and|then|also|so|и|потом|ещё|еще|также)\s+)?")
# A drug said with its dose and schedule and no verb, in a story or a list ("конкор 5 утром", "а от
# сахара глюкофаж 1000 утром и вечером", "lisinopril 10 in the am"): a regimen the user is on. Not
# what someone said to do ("сказал пить конкор утром") nor what was ("раньше ...").
_SCHEDULE = rx(
    r"\bпо\s+утрам\b|\bутром\b|\bс\s+утра\b|\bпо\s+вечерам\b|\bвечером\b|\bна\s+ночь\b|\bперед\s+сном\b"
    r"|\bнатощак\b|\b(?:\d|один|два|две|три|1|2|3)\s*раз(?:а)?\s+в\s+(?:день|сутки|неделю)\b|\bежедневно\b"
    r"|\bкаждый\s+день\b|\bв\s+день\b|\bin\s+the\s+(?:am|pm|mornings?|evenings?)\b|\bevery\s+(?:morning|evening"
    r"|night|day)\b|\bat\s+(?:night|bedtime)\b|\bbefore\s+bed\b|\b(?:once|twice)\s+(?:a|per)\s+day\b"
    r"|\b(?:once|twice)\s+daily\b|\bdaily\b|\ba\s+day\b|\bqd\b|\bbid\b"
)
_REGIMEN_AFTER = rx(
    r"\s*(?:по\s+)?(?:\d+(?:[.,]\d+)?|пол|половин\w*|одн[уа]|half|one)\s*(?:[^\W\d]+\.?\s*)?(?:,\s*)?"
    rf"(?:{_SCHEDULE.pattern})"
)
# "сальбутамол по необходимости", "ventolin as needed": a reliever kept at hand is a drug taken too
_AS_NEEDED_AFTER = rx(
    r"\s*(?:(?:\d+(?:[.,]\d+)?)\s*(?:[^\W\d]+\.?\s*)?)?,?\s*(?:as\s+needed|when\s+(?:needed|i\s+need\s+(?:it|them))"
    r"|\bprn\b|по\s+(?:необходимости|потребности)|при\s+необходимости)\b"
)
_NOT_A_REGIMEN = rx(
    r"\b(?:сказал\w*|велел\w*|советова\w*|посоветова\w*|рекомендова\w*|раньше|когда-то|было\s+время|said|told"
    r"|suggest\w*|recommend\w*|advis\w*|used\s+to|before(?!\s+(?:bed|sleep|meals?|breakfast|food))|previously|ago"
    r"|mention\w*|might|may|could|maybe|perhaps|possibly|упомина\w*|упомянул\w*|говорил\w*|может|возможно|назад)\b"
)


def _regimen(s: Sentence, a: int, b: int) -> bool:
    """The drug at [a, b) is followed by its dose and a time to take it, with no verb: a regimen."""
    end = s.clause(a)[1]
    if _NOT_A_REGIMEN.search(s.low, 0, a) or _NOT_A_REGIMEN.search(s.low, b, end):
        return False
    if THIRD_PARTY.search(s.low, 0, a):
        return False  # "мама: метформин 500 два раза в день" is hers
    return bool(_REGIMEN_AFTER.match(s.low, b, end) or _AS_NEEDED_AFTER.match(s.low, b, end))


def _cue_for(s: Sentence, cues: list[_Cue], pos: int) -> _Cue | None:
    direct = [c for c in cues if c.direct and c.end == pos]
    if direct:
        return direct[0]  # "finished the prednisone": the drug right after it, whatever came before
    cues = [c for c in cues if not c.direct]
    around = [c for c in cues if c.start <= pos < c.end]  # "increased my metformin dose"
    if around:
        return around[0]
    before = [c for c in cues if c.end <= pos and s.list_end(c.end) >= pos]
    start, end = s.clause(pos)
    after = [c for c in cues if pos < c.start and c.start < end and c.start >= start]
    if before and before[-1].end <= start and after:
        # "эналаприл бросила, лозартан пью дальше": the drug's own clause has its own verb
        return after[0]
    if before:
        return before[-1]
    return after[0] if after else None


def _status(s: Sentence, cue: _Cue | None, a: int, b: int) -> FactStatus | None:
    if _DONE_AFTER.match(s.low, b) and not (cue and cue.direct):
        return _STOPPED  # "z pack done", "the prednisone is finished"
    if cue is None:
        # An answer such as "Энап 5 мг по утрам" names a current drug with its dose.
        lead = s.low[s.clause(a)[0] : a].strip(" ,:-")
        if NOW_LEAD.fullmatch(lead):
            return _ACTIVE  # "..., сейчас только амлодипин", "now just metformin"
        if dose_near(s.low, b) and lead in ("", "да", "yes", "ага", "sure"):
            return _ACTIVE
        return _ACTIVE if _regimen(s, a, b) else None
    if cue.advice and not _DOCTOR.search(s.low):
        return None  # a friend's advice is not a prescription
    if cue.given and (
        cue.start > a
        or not (
            _DOCTOR.search(s.low)
            or _THEY.match(s.low, s.clause(a)[0])
            or _SUBJECTLESS.fullmatch(s.low, 0, cue.start)
        )
    ):
        return None  # "amoxicillin gave me a rash", "a friend gave me some": no prescription
    if cue.status is _STOPPED and EXCEPT.search(s.low, cue.end, a):
        return _ACTIVE  # "I don't take anything except vitamin D": the exception is taken
    clause_start, clause_end = s.clause(a)
    if _INSTEAD_OF.search(s.low[max(clause_start, a - 14) : a]):
        # "назначил лозартан вместо эналаприла": the one a doctor replaced ends; "I take paracetamol
        # instead of ibuprofen" need not mean ibuprofen was ever taken
        return _STOPPED if cue.status is _PRESCRIBED or _DOCTOR.search(s.low) else None
    switch = _SWITCH.search(s.low, clause_start, a)
    if switch and not _SWITCH_TO.search(s.low[max(clause_start, a - 7) : a]):
        # "перешёл с эналаприла на лозартан", "врач заменил X на Y": the old drug ends; only the
        # switch's own object ("I changed my diet and take metformin" switched no drug)
        return _STOPPED if _SWITCH_FROM.fullmatch(s.low, switch.end(), a) else cue.status
    if switch:
        # A doctor's switch is the treatment now, as "started me on" is: the new drug is taken
        # (a clinician charts it active and the old one stopped). Only an offered switch waits.
        offered = _SWITCH_OFFERED.search(s.low, clause_start, switch.start())
        return _PRESCRIBED if offered or _NOT_YET.search(s.low) else _ACTIVE
    if (
        cue.status is _PRESCRIBED
        and not cue.advice
        and _INSTEAD.search(s.low, cue.end, clause_end)
        and not _NOT_YET.search(s.low)
    ):
        return _ACTIVE  # "выписал лозартан вместо эналаприла": the replacement is the current drug
    return cue.status
