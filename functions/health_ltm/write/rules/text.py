"""Sentences, clauses and the markers every rule needs (negation, questions, other people...).

Rules match on ``Sentence.low`` (folded, same length as the original), so every span they find
slices the user's own text: evidence is always an exact substring of what the user wrote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ...domain.attributes import Relative
from ...domain.models import AssertionKind, EvidenceKind, Experiencer, Temporality
from ...domain.sections import FactStatus, Section
from ...domain.text import fold_in_place
from ..normalize import find_terms, kinds_for, normalize_name

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？；])\s*|\n+")  # CJK needs no space
# Where a sentence stops inside one message (an answer is read as a whole message): a Latin stop
# before a space or the end, so "2.5 mg" is one sentence; a CJK stop anywhere.
SENTENCE_STOP = re.compile(r"[.!?;]+(?=\s|$)|[。！？；]")
# Hard clause boundaries: punctuation and contrast conjunctions ("аллергий нет, а на пенициллин...").
_CLAUSE_BREAK = re.compile(
    r"(?<!\d),|,(?!\d)|[;:()—–，；：、（）]|\s-\s|\s(?:а|но|однако|хотя|but|however|although|though|whereas)\s"
    r"|\s(?:and|и)\s(?=(?:i|i'm|im|i've|ive|я|мне|меня)\b)"  # "... nausea and I want to get it checked"
    # "my sister has asthma and my mother has diabetes": each relative's own clause
    r"|\s(?:and|и)\s(?=(?:my|his|her|our|у|мой|моя|мои|моей|моего|моих)\s)"
)
# Words that put what follows in the present ("раньше пил X, сейчас только Y").
NOW_WORDS = r"(?:сейчас|теперь|now|currently|these\s+days|nowadays)"
NOW_WORDS_ZH = r"(?:现在|目前)"
_LIST_BREAK = re.compile(
    r"[.;:!?()—–。；：！？（）]|\s-\s"
    r"|\s(?:а|но|однако|хотя|потому|поэтому|так как|что|который|которая|которые|когда|если"
    r"|but|however|although|though|because|so|which|that|when|if|since)\s"
    # "allergic to penicillin and I take aspirin", "аллергия на пенициллин, и я пью аспирин": a new
    # subject with its verb ends the list
    r"|[\s,]+(?:and|и)\s+(?:i|i'm|im|i've|ive|я)\s+(?!(?:also\s+|too\s+)?(?:am\s+)?allerg|тоже\b)"
    # "раньше пил эналаприл, сейчас только амлодипин": the present ends a past list
    rf"|[\s,]*\b{NOW_WORDS}\b|{NOW_WORDS_ZH}"
)
# A lead that puts a drug named with no verb in the present: "сейчас только амлодипин".
NOW_LEAD = re.compile(
    rf"(?:(?:а|и|and|but|но)\s+)?{NOW_WORDS}"
    r"(?:\s+(?:только|лишь|just|only|on))?(?:\s+(?:i\s+take|принимаю|пью))?"
)
_EDGE = " \t,;:—–-("


@dataclass(frozen=True)
class Sentence:
    text: str
    low: str
    breaks: tuple[int, ...]  # clause boundary positions

    def clause(self, pos: int) -> tuple[int, int]:
        start, end = 0, len(self.text)
        for b in self.breaks:
            if b <= pos:
                start = b
            else:
                end = b
                break
        return start, end

    def list_end(self, pos: int) -> int:
        """Where an enumeration starting at ``pos`` must stop (commas and "и" do not stop it)."""
        m = _LIST_BREAK.search(self.low, pos)
        return m.start() if m else len(self.text)

    def evidence(self, start: int, end: int) -> tuple[int, int]:
        """The clause(s) around [start, end): what a reviewer needs to see the statement."""
        return self.clause(start)[0], self.clause(max(start, end - 1))[1]


def split_sentences(text: str) -> list[Sentence]:
    out, pos = [], 0
    for m in [*_SENTENCE_END.finditer(text), None]:
        end = m.start() if m else len(text)
        piece = text[pos:end]
        if piece.strip():
            low = fold_in_place(piece)
            breaks = tuple(sorted({b for m2 in _CLAUSE_BREAK.finditer(low) for b in (m2.start(), m2.end())}))
            out.append(Sentence(piece, low, breaks))
        pos = m.end() if m else len(text)
    return out


@dataclass
class Draft:
    """What a rule found, before the extractor turns it into a validated Assertion."""

    section: Section
    span: tuple[int, int]  # evidence span in the sentence
    kind: AssertionKind = AssertionKind.FACT
    name: str | None = None
    hint: str | None = None
    status: FactStatus | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    valid_from: str | None = None
    valid_to: str | None = None
    # Mention attributes (see domain.models.Assertion); family_history drafts are a relative's.
    experiencer: Experiencer | None = None
    hypothetical: bool = False
    retracted: bool = False
    temporality: Temporality | None = None
    refers_to_focus: bool = False
    evidence_kind: EvidenceKind = EvidenceKind.STATED
    context_evidence: str | None = None

    def identity(self) -> tuple[Section, str]:
        """(section, normalised key): what the draft is about, as the store keys it."""
        return self.section, normalize_name(self.section, self.name, self.hint).key


@dataclass(frozen=True)
class Context:
    today: date | None  # the day the user said it; None: no clock, relative dates are skipped
    # The relative the previous sentence was about: "My sister ... . She has epilepsy."
    relative_in_focus: Relative | None = None
    # Sections the assistant's question asked about ("Any allergies?" / "penicillin, I get hives").
    asked: frozenset[Section] = frozenset()
    # Someone else was spoken of earlier in this message ("my son was sick. fever, cough."): a bare
    # list of complaints after that need not be the user's.
    others_before: bool = False
    # An earlier sentence of this message told that results came, not whose ("пришла гистология.")
    news_before: bool = False


def name_at(draft: Draft, low: str, start: int = 0, end: int | None = None) -> int:
    """Where the draft's own name is said in low[start:end], or -1 (its evidence span may be wider)."""
    return low.find(fold_in_place(draft.name), start, end) if draft.name else -1


def edge_trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE + ".!?":
        end -= 1
    return start, end


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# --- markers ------------------------------------------------------------------------------------
INSTRUCTION = rx(
    r"\b(?:ignore|disregard)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|your)\b"
    r"|\bforget\s+(?:everything|all|what)\b|\b(?:delete|erase|remove|wipe)\s+(?:my|all|everything|the)\b"
    r"|\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bact\s+as\b|\bpretend\b|(?<!не\s)\bзабудь(?:те)?\b"
    r"|\b(?:удали|удалите|сотри|сотрите|очисти|очистите|игнорируй|игнорируйте)\b|\bне\s+обращай\s+внимания\b"
    r"|\bсбрось\b|\bты\s+теперь\b"
    # Role prefixes and third-person talk about "the user": people do not speak of themselves so.
    r"|^\W*(?:system|assistant|developer|инструкция|система)\s*[:>\]]|\[/?(?:system|inst)\]|<\|"
    r"|\bthe\s+user\s+(?:has|is|takes|does|doesn't|said)\b|\bпользовател(?:ь|я|ю)\b"
    r"|\b(?:set|update|overwrite|clear)\s+(?:my\s+|the\s+)?(?:allergies|medications|memory|profile)\b"
)
CORRECTION = rx(
    r"\bя\s+ошиб(?:ся|лась)\b|\bошиб(?:ся|лась|лись)\b|\bна\s+самом\s+деле\b|\bточнее\b|\bвернее\b"
    r"|\bпоправ(?:ка|лю|люсь)\b|\bисправ(?:лю|ляю|ление)\b|\bоговорил(?:ся|ась)\b|\bon\s+second\s+thought\b"
    r"|\bactually\b|\bi\s+meant\b|\bcorrection\b|\bi\s+was\s+wrong\b|\bmy\s+(?:mistake|bad)\b"
    r"|\bi\s+misspoke\b|\bscratch\s+that\b|\bsorry,?\s+i\s+mean\b|\boops\b|\bупс\b|\bwait,?\s+no\b"
    r"|\b\d+(?:[.,]\d+)?\s*(?:mg|мг|mcg|мкг)?\s*,?\s*(?:not|а\s+не)\s+\d+\b|\bне\s+\d+\s*(?:мг)?\s*,?\s*а\s+\d+"
    r"|\b(?:i'?m|i\s+am)\s+not\s+\d+\s*,?\s*(?:i'?m|i\s+am)\s+\d+"
    r"|说错了|更正|应该是|不是\d+(?:毫克|mg)?[，,]?\s*是\d+|是\d+(?:毫克|mg)?[，,]?\s*不是\d+"
)
# The user takes a mention back: what precedes it in the sentence (or the previous sentence) is void.
RETRACTION = rx(
    r"\bscratch\s+that\b|\bstrike\s+that\b|\bi\s+take\s+(?:that|it)\s+back\b|\bnever\s*mind\b"
    r"|\bforget\s+(?:i\s+said\s+)?(?:that|what\s+i\s+(?:just\s+)?said)\b|\bignore\s+what\s+i\s+(?:just\s+)?said\b"
    r"|\bthat'?s\s+not\s+(?:true|right)\b|\bno,?\s+wait\b"
    r"|\bберу\s+(?:свои\s+)?слова\s+(?:обратно|назад)\b|\bотбой\b|\bя\s+неправильно\s+сказал\w*"
    r"|\bзабудь(?:те)?,?\s+(?:что\s+я\s+(?:сказал\w*|говорил\w*)|это)\b|\bэто\s+неправда\b"
    r"|\bхотя\s+нет\b|\b(?:я\s+)?(?:путаю|перепутал\w*|спутал\w*)\b|\bнет,?\s+не\s+так\b"
    r"|\bой,?\s+нет\b|\bнет,?\s+не\s+то\b|\boh,?\s+no,?\s+(?:wait|sorry)\b"
    r"|我说错了|说错了|收回|不算|当我没说|搞错了"
)
REMEMBER = rx(
    r"\bзапомни(?:те)?\b|\bне\s+забудь(?:те)?\b|\bучти(?:те)?\b|\bимей(?:те)?\s+в\s+виду\b"
    r"|(?:^|[.!?]\s*)(?:please\s+)?remember\b(?!\s+(?:if|whether|when))|\bplease\s+remember\b"
    r"|\bkeep\s+in\s+mind\b|\bnote\s+that\b|记住|别忘了|记一下"
)
HYPOTHETICAL = rx(
    r"\b(?:можно|стоит|нужно|надо|нельзя)\s+ли\b|\bесли\b|\bхочу\b|\bхотел(?:а|и)?\s+бы\b|\bпланирую\b"
    r"|\bсобираюсь\b|\bбуду\b|\bнужно\b|\bнадо\b|\bпосоветуйте\b|\bподскажите\b|\bможно\b|\bчто\s+делать\b"
    r"|\b(?:can|could|should|may|shall|must)\s+i\b|\bis\s+it\s+(?:ok|okay|safe|fine|bad)\b"
    # "I do have asthma if that counts", "if I remember correctly": an aside, no condition on the fact
    r"|\bif\b(?!\s+(?:that|it|this)(?:'s|\s+is)?\s+(?:counts?|matters?|helps?|relevant|important|useful|any\s+help)"
    r"|\s+(?:you\s+)?(?:need|want|must|have)\s+to\s+know|\s+i\s+(?:remember|recall)\s+(?:correctly|right)"
    r"|\s+i\s+remember\b|\s+memory\s+serves)"
    r"|\bwant\s+to\b|\bgoing\s+to\b|\bplan(?:ning)?\s+to\b|\bwill\b|\bwould\b|\bneed\s+to\b"
    r"|\bthinking\s+(?:about|of)\b|\bhow\s+(?:do|does|should|much|often)\b|\bwhat\s+(?:if|about)\b"
    r"|\bneeds?\s+(?:a|an)\b|\bscheduled\s+for\b|\bwaiting\s+for\b|\bпредстоит\b|\bнужн[аоы]\b"
    # an attempt is not the deed: "trying to quit smoking" is still smoking
    r"|\b(?:trying|tried|try)\s+to\s+(?:quit|stop|give\s+up)\b|\bпыта\w*\s+(?:бросить|завязать|перестать)\b"
)
# ConText's "possible": the user's own guess at a diagnosis ("I might have asthma", "возможно, у
# меня гастрит", "我可能有哮喘") is not a condition to remember as present. Used for conditions and
# diagnoses only: an uncertain allergy or drug is still kept (safety).
UNCERTAIN = rx(
    # "maybe once a month", "может быть раз в неделю": a guess at how often, not at the diagnosis
    r"\b(?:might|may|could)\s+(?:have|be|have\s+got)\b"
    r"|\b(?:maybe|perhaps|possibly|probably)\b(?!\s+(?:once|twice|three\s+times|\d+\s*(?:x|times)|every|a\s+few\s+times))"
    r"|\b(?:i\s+)?(?:suspect|wonder\s+if|not\s+sure)\b|\bfriend\s+(?:says|thinks)\b"
    r"|\bвозможно\b|\bможет\s+быть\b(?!\s+(?:раз|дважды|пару\s+раз|\d+\s+раз))|\bнаверное\b|\bнаверно\b"
    r"|\bподозреваю\b|\bне\s+уверен\w*"
    r"|可能|也许|好像|是不是|怀疑"
)
# A take-back followed at once by the right name and nothing else: "на пенициллин, ой нет, не то, на
# цефтриаксон", "penicillin, oh no sorry, to ceftriaxone", "penicillin, scratch that, amoxicillin",
# "эналаприл, хотя нет, лозартан", "青霉素，说错了，是头孢". Anything more ("no wait, I was on warfarin,
# they switched me") is a story the rules read as it is.
TAKEN_BACK_FOR = rx(
    r"(?:\bой,?\s+нет\b|\bнет,?\s+не\s+то\b|\bхотя\s+нет\b|\boh,?\s+no,?\s+(?:wait|sorry)\b|\bno,?\s+wait\b"
    r"|\bwait,?\s+no\b|\bscratch\s+that\b|说错了|搞错了)"
    r"(?:[\s,.:;—–-]*(?:не\s+то|i\s+mean|sorry|it\s+was|it'?s|это|是))*[\s,.:;—–-]*(?:на\s+|to\s+)?"
)


NEGATION = rx(
    r"\b(?:не|нет|ни|никогда|никаких|никакой|no|not|never|none|n't|don't|dont|doesn't|didn't)\b|n't\b"
)
# Results said to have come, no one's named: "results came back", "пришла гистология", "结果出来了".
RESULTS_CAME = rx(
    r"\b(?:results?|biopsy|scan|pathology|histology|tests?|labs?|ct|mri)\s+(?:came\s+(?:back|in)|(?:are|is)\s+(?:in|back))\b"
    r"|\bgot\s+the\s+results\b"
    r"|\b(?:пришл[аио]?|пришёл|пришел|готов[аы]?)\s+(?:результат\w*|гистологи\w*|анализ\w*|биопси\w*|заключени\w*)"
    r"|\b(?:результат\w*|гистологи\w*|анализ\w*|биопси\w*|заключени\w*)\s+(?:пришл\w*|пришёл|пришел|готов\w*)"
    r"|(?:结果|报告|病理|活检结果|穿刺结果|检查结果)(?:都|终于)?出来了"
)
FIRST_PERSON = rx(r"\b(?:я|мне|меня|мной|мой|моя|мое|мои|моих|i|i'm|im|i've|i'd|me|my)\b")

_RELATIVES_RU = {
    Relative.MOTHER: "мама мамы маме маму мамой мать матери мамочка мамочки маминой материнской",
    Relative.FATHER: "папа папы папе папу папой отец отца отцу отцом папиной отцовской",
    Relative.GRANDMOTHER: "бабушка бабушки бабушке бабушку бабушкой бабуля бабули",
    Relative.GRANDFATHER: "дедушка дедушки дедушке дедушку дедушкой дед деда деду дедом",
    Relative.BROTHER: "брат брата брату братом братья братьев",
    Relative.SISTER: "сестра сестры сестре сестру сестрой",
    Relative.SON: "сын сына сыну сыном",
    Relative.DAUGHTER: "дочь дочери дочка дочки дочке дочку",
    Relative.AUNT: "тетя тети тете тетю тетей",
    Relative.UNCLE: "дядя дяди дяде дядю дядей",
    Relative.OTHER: "родители родителей родственники родственников двоюродный двоюродная",
}
_RELATIVES_EN = {
    Relative.MOTHER: "mother mom mum mommy mama",
    Relative.FATHER: "father dad daddy papa",
    Relative.GRANDMOTHER: "grandmother grandma granny nana",
    Relative.GRANDFATHER: "grandfather grandpa granddad grandad",
    Relative.BROTHER: "brother brothers",
    Relative.SISTER: "sister sisters",
    Relative.SON: "son",
    Relative.DAUGHTER: "daughter",
    Relative.AUNT: "aunt auntie",
    Relative.UNCLE: "uncle",
    Relative.OTHER: "parents grandparents cousin cousins siblings relatives",
}
RELATIVE_BY_WORD = {
    w: rel for table in (_RELATIVES_RU, _RELATIVES_EN) for rel, ws in table.items() for w in ws.split()
}
# A partner's relative is no blood relative: "my wife's brother", "husbands mom", "брат жены", "мама мужа"
_IN_LAW_BEFORE = "".join(
    f"(?<!{w}'s )(?<!{w}s )"
    for w in ("wife", "husband", "partner", "boyfriend", "girlfriend", "spouse", "fiance", "fiancee")
)
_IN_LAW_AFTER = r"(?!\s+(?:жены|мужа|супруга|супруги|партн[её]ра|парня|девушки|невесты|жениха)\b)"
RELATIVE = rx(
    _IN_LAW_BEFORE
    + r"\b(?:"
    + "|".join(sorted(RELATIVE_BY_WORD, key=len, reverse=True))
    + r")\b"
    + _IN_LAW_AFTER
)
FAMILY_WIDE = rx(
    r"\bв\s+(?:моей\s+|нашей\s+)?семье\b|\bу\s+родственник\w*|\bнаследственн\w*|\bпо\s+наследству\b"
    r"|\bruns\s+in\s+(?:my|our|the)\s+family\b|\bfamily\s+history\s+of\b|\bin\s+(?:my|the|our)\s+family\b"
    r"|\b(?:my|our)\s+family\s+(?:has|have|had|members?)\b|\bfamily\s+members?\b|\brelatives\b"
    r"|\bmy\s+(?:\w+'s\s+)?side\s+of\s+the\s+family\b|\bродственник\w*"
)
_OTHERS = (
    "муж мужа мужу жена жены жене друг друга другу подруга подруги подруге коллега коллеги сосед соседа "
    "соседка ребенок ребенка ребенку дети детей кот кота кошка кошки собака собаки пес пса husband wife "
    "friend partner boyfriend girlfriend colleague coworker co-worker neighbor neighbour roommate flatmate "
    "housemate classmate boss patient patients someone somebody kid kids "
    "child children baby dog cat"
)
# "my 4 year old son", "my little sister", "моего пятилетнего сына": who, with the age or size said
_AGED = (
    r"(?:(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]*(?:years?|yrs?|months?)"
    r"[\s-]*old\s+|\d{1,2}\s*(?:yo|y/o)\s+|(?:little|baby|older|younger|eldest|oldest|youngest|big|teenage|infant)\s+"
    r"|\w+летн\w+\s+|маленьк\w+\s+|младш\w+\s+|старш\w+\s+)?"
)
_PERSON = r"(?:" + "|".join(sorted({*RELATIVE_BY_WORD, *_OTHERS.split()}, key=len, reverse=True)) + r")"
THIRD_PARTY = rx(
    r"\bу\s+(?:моего\s+|моей\s+|моих\s+|нашего\s+|нашей\s+|наших\s+)?" + _AGED + _PERSON + r"\b"
    r"|\b(?:мой|моя|мои|моего|моей|наш|наша|наши|my|our|his|her|their)\s+" + _AGED + _PERSON + r"(?:'?s)?\b"
    # "my 4 year old has a cough", "my 2yo": a child named by the age alone
    r"|\b(?:my|our)\s+\d{1,2}[\s-]*(?:years?[\s-]*old|yrs?[\s-]*old|y/?o|mo(?:nths?)?[\s-]*old)\b"
    r"|^\s*(?:the\s+|a\s+|an\s+|our\s+|это\s+|вот\s+|а\s+)?" + _PERSON + r"\b"  # "это муж у меня гипертоник"
    # "у меня муж гипертоник", "у нас бабушка с диабетом": "I have a husband who…", not the user's
    r"|\bу\s+(?:меня|нас)\s+(?:(?:ещё|еще|вот|же)\s+)?" + _PERSON + r"\b"
    # general statements: "many patients are allergic to latex", "у многих аллергия на пыльцу"
    r"|\b(?:many|most|some|lots\s+of|a\s+lot\s+of|all|other)\s+(?:people|patients|women|men|kids|children|folks)\b"
    r"|\b(?:многие|большинство|некоторые)\b(?:\s+(?:люди|пациенты|дети))?|\bу\s+многих\b|\bлюди\b"
)
# A retraction too: what the user said of themselves was someone else's ("Actually no — that was my
# brother", "перепутала — это у дочки", "不对，过敏的是我女儿，不是我"). A cue of correction or a
# "not me" is required: "..., my brother too" takes nothing back.
_ZH_SOMEONE = (
    r"(?:我|我的)(?:女儿|儿子|孩子|妈妈|妈|母亲|爸爸|爸|父亲|哥哥|弟弟|姐姐|妹妹"
    r"|老婆|老公|妻子|丈夫|爱人|奶奶|爷爷|外婆|外公|姥姥|姥爷)"
)
_OF = r"(?:моей\s+|моего\s+|моих\s+)?"
# ... and the person ends the statement: "it's my brother who got me tested" takes nothing back.
_ENDS_EN = (
    r"(?:'s)?(?=\s*(?:[.,;:!?—–-]|$)|\s+who(?:'s|\s+is|\s+was|\s+has)?\s+(?:allergic|the\s+one)"
    r"|\s+(?:is|was)\s+the\s+one)"
)
_ENDS_RU = r"(?=\s*(?:[.,;:!?—–-]|$)|\s+(?:аллерги\w*|был[аио]?|есть)\b)"
_SOMEONE_ELSES = (
    r"\b(?:no|nope|actually|wait|sorry|oops|my\s+mistake|my\s+bad|mixed\s+(?:it\s+|that\s+|us\s+|them\s+)?up)\b[\s,.!—–-]+"
    rf"(?:\w+[\s,.!—–-]+){{0,2}}?(?:that|it|this)(?:'?s|\s+is|\s+was)\s+(?:actually\s+)?(?:my|our)\s+{_PERSON}\b"
    rf"{_ENDS_EN}"
    rf"|\b(?:it'?s|it\s+(?:is|was)|that'?s|that\s+(?:is|was))\s+(?:my|our)\s+{_PERSON}\b[^.!?]{{0,60}}?,?\s+not\s+me\b"
    rf"|\b(?:my|our)\s+{_PERSON}\s+(?:is|was)\s+the\s+one\b[^.!?]{{0,60}}?,?\s+not\s+me\b"
    # "the sulfa allergy was my brother('s), not me"
    rf"|\b(?:is|was|are|were)\s+(?:actually\s+)?(?:my|our)\s+{_PERSON}(?:'s)?[^.!?]{{0,30}}?,?\s+not\s+(?:me|mine)\b"
    r"|\b(?:нет|ой|точнее|вернее|на\s+самом\s+деле|ошиблась|ошибся|перепутала|перепутал)\b[\s,.!—–-]+"
    rf"(?:\w+[\s,.!—–-]+){{0,2}}?это\s+(?:не\s+у\s+меня,?\s+а\s+)?у\s+{_OF}{_PERSON}\b{_ENDS_RU}"
    rf"|\bне\s+у\s+меня\s*,?\s*а\s+у\s+{_OF}{_PERSON}\b|\bу\s+{_OF}{_PERSON}\b[^.!?]{{0,60}}?,?\s+а\s+не\s+у\s+меня\b"
    rf"|(?:不对|搞错|弄错|记错|说错)[^。！？]{{0,8}}?是{_ZH_SOMEONE}"
    rf"|是{_ZH_SOMEONE}(?:过敏|对[^。！？]{{1,8}}过敏)?[，,]?\s*(?:而)?不是我"
)
RETRACTION = rx(RETRACTION.pattern + "|" + _SOMEONE_ELSES)


# "He had many strokes", "Она болеет диабетом"; but "She prescribed me metformin" is about the user.
PRONOUN_SUBJECT = _PRONOUN_SUBJECT = rx(
    r"^\s*(?:(?:and|but|и|а|но)\s+)?(?:he|she|hes|shes|он|она|они|у\s+(?:него|неё|нее|них)|his|her)\b"
    # "муж кашляет, ему вчера бронхит поставили": the diagnosis given to him
    r"|^\s*(?:(?:и|а|но)\s+)?(?:ему|ей)\b"
)


_POSSESSIVE_OTHER = rx(r"\b(?:his|her|their|его|её|ее|их)\s+\w+")

# Direct speech of someone else: "Моя сестра говорит: «у меня нет аллергий»", "My friend told me:
# "I have no allergies"". Inside it, "I"/"у меня" is that person, not the user. (Indirect speech,
# "Мама говорит, что у меня аллергия", keeps the user's own first person, so it is not matched.)
_SPEECH_VERB = (
    r"(?:говор\w*|сказал\w*|пишет|написал\w*|попросил\w*|просит|спрашива\w*|спросил\w*|ответил\w*"
    r"|отвечает|says|said|told|tells|asked|asks|wrote|writes|replied|replies)"
)
_REPORTED = rx(
    r"(?:" + THIRD_PARTY.pattern + r"|\b(?:he|she|they|он|она|они)\b)"
    r"[^:«“„\"]{0,60}?\b" + _SPEECH_VERB + r"\b[^:«“„\".!?]{0,30}?(?P<open>:\s*[«“„\"]?|[«“„\"])"
)


def reported_speech(s: Sentence, pos: int) -> bool:
    """``pos`` lies in words quoted from someone else (until their closing quote)."""
    for m in _REPORTED.finditer(s.low):
        if m.end() > pos:
            break
        quote = m.group("open").strip(": ")
        between = s.low[m.end() : pos]
        if not quote or not re.search(r"[»”\"]" if quote != "„" else r"[“\"]", between):
            return True
    return False


def third_party_before(s: Sentence, pos: int) -> bool:
    """Someone other than the user is the subject of the clause before ``pos``."""
    if reported_speech(s, pos):
        return True
    start, end = s.clause(pos)
    if THIRD_PARTY.search(s.low[start:pos]):
        return True
    if FIRST_PERSON.search(s.low[start:end]):
        return False
    # "He had a fever", "They did his bypass surgery": someone else's, when the user is not in it.
    if _CLINICIAN_SPEAKS.match(s.low, start, pos) and _CLINICIAN.search(s.low, 0, start):
        return False  # "сходила к врачу, она сказала это аллергия на амоксиклав": the doctor's verdict
    return bool(_PRONOUN_SUBJECT.match(s.low[start:pos]) or _POSSESSIVE_OTHER.search(s.low[start:pos]))


# The clinician named earlier in the sentence speaks of the user: "saw my GP, she said it's asthma"
_CLINICIAN = rx(
    r"\b(?:doctor|doc|gp|dr|nurse|physician|cardiologist|dermatologist|[a-z]+ologist|врач\w*|доктор\w*|терапевт\w*"
    r"|педиатр\w*|лор\w*|[а-я]+олог\w*|гинеколог\w*)\b"
)
_CLINICIAN_SPEAKS = rx(
    r"\s*(?:(?:and|but|и|а|но)\s+)?(?:he|she|они|он|она)\s+(?:\w+\s+)?" + _SPEECH_VERB + r"\b"
)


def hypothetical(s: Sentence, pos: int) -> bool:
    """A question, plan or condition, not a statement of fact (in the clause: "I am having
    nausea and I just want to get it checked" is two clauses, see _CLAUSE_BREAK)."""
    start, end = s.clause(pos)
    if HYPOTHETICAL.search(s.low[start:end]):
        return True
    return s.text.rstrip().endswith("?") and end >= len(s.text.rstrip()) - 1


UNCERTAIN_LEAD = rx(
    r"\W*(?:возможно|может\s+быть|наверное|наверно|кажется|maybe|perhaps|probably|possibly|i\s+guess)\W*"
)


def uncertain(s: Sentence, pos: int) -> bool:
    """The clause around ``pos`` guesses rather than states ("I might have asthma")."""
    start, end = s.clause(pos)
    # "Возможно, у меня гастрит": a lead word alone in the clause before still reaches this one
    return bool(UNCERTAIN.search(s.low[start:end]) or UNCERTAIN_LEAD.fullmatch(s.low[:start]))


# Pseudo-triggers (ConText): they hold a negation word but affirm ("не могу перестать кашлять",
# "nothing helps my back pain", "I never thought I'd end up with asthma", "the cough won't go away").
PSEUDO_NEGATION = rx(
    r"\b(?:can'?t|cannot|could\s*n'?t|couldn't|won'?t|doesn'?t|didn'?t|isn'?t|not)\s+(?:seem\s+to\s+)?(?:stop|quit"
    r"|go\s+away|get\s+rid\s+of|shake|get\s+better|improv\w*|help\w*|work\w*|sleep|breathe|settle|ease)\b"
    r"|\bnothing\s+(?:seems\s+to\s+)?(?:helps?|works?|stops?|eases?|relieves?)\b|\bno\s+(?:relief|improvement|change|better)\b"
    r"|\bnever\s+(?:thought|imagined|expected|knew|guessed)\b"
    r"|\bnever\s+(?:felt|had|experienced|seen)\b(?=[^.]{0,40}\blike\s+(?:this|that)\b)"
    r"|\bникогда\s+(?:не\s+)?(?:было|чувствовал\w*|испытывал\w*)\s+так\w*|\bnot\s+only\b|\bnot\s+just\b|\bno\s+doubt\b"
    r"|\bno\s+matter\b|\bnot\s+sure\s+why\b|\bnot\s+getting\s+(?:any\s+)?better\b"
    r"|\bне\s+могу\s+(?:перестать|остановить\w*|избавиться|уснуть|заснуть|спать|дышать|отделаться)\b"
    r"|\bне\s+(?:перестает|перестаёт|прекращается|проходит|проходят|прошл[аио]|прошел|отпускает|уходит|утихает"
    r"|помогает|помогают|помог\w*|становится\s+лучше|лучше)\b|\bничего\s+не\s+помога\w*|\bникак\s+не\b"
    r"|\bне\s+только\b|\bне\s+думал\w*,?\s+что\b|\bбез\s+(?:улучшени\w*|толку)\b"
)


_TIME_ANCHOR = rx(r"since|after|before|until|till|when|после|до|с\s+тех|пока|когда")
_ZH_NOT_BEFORE = re.compile(r"(?:不|没有?|无|未)(?:怎么|太|再|常|咋|有)?$")
_ZH_NOT_AFTER = re.compile(r"\s*(?:也|都|倒)?(?:没有|没|不)(?:了|过)?\s*(?:$|[,，。;；!！])")


def negated(s: Sentence, start: int, end: int, window: int = 4) -> bool:
    """A negation in the same clause: up to ``window`` words before the span, or "нет" right after.

    A negation word inside a pseudo-trigger ("can't stop coughing") does not negate."""
    c_start, c_end = s.clause(start)
    pseudo = [m.span() for m in PSEUDO_NEGATION.finditer(s.low, c_start, c_end)]
    words = []
    for m in re.finditer(r"\S+", s.low[c_start:start]):
        a = c_start + m.start()
        if not any(p0 <= a < p1 for p0, p1 in pseudo):
            words.append(m.group(0))
    before = words[-window:]
    denials = [i for i, w in enumerate(before) if NEGATION.fullmatch(w.strip(",.")) or w.endswith("n't")]
    # "not since my stroke", "не курю после инфаркта": a time anchor between ends the denial's reach
    if denials and not any(_TIME_ANCHOR.fullmatch(w.strip(",.")) for w in before[denials[-1] + 1 :]):
        return True
    if _ZH_NOT_BEFORE.search(s.low, c_start, start) or _ZH_NOT_AFTER.match(s.low, end, c_end):
        return True  # "不发烧", "没咳过血", "头疼没有": Chinese has no spaces to split words at
    after = s.low[end:c_end]
    if any(end <= p0 for p0, _ in pseudo):
        return False  # "кашель не проходит"
    no = re.match(r"\s*(?:у\s+меня\s+)?(?:\w+\s+){0,2}?(?:нет|не\s+было)\b", after)
    # "температура и нет аппетита": that "нет" is the next complaint's own ("нет аппетита", "нет сил")
    return no is not None and not _LACKING.match(after, no.end())


# What a "нет" lacks when a complaint of its own follows it: "нет аппетита", "нет сил", "нет сна".
_LACKING = rx(
    r"\s+(?:\w+\s+)?(?:аппетита|сил|сна|месячных|стула|энергии|желания|настроения|голоса|вкуса|запаха|"
    r"слуха|аппетиту|мочи|эрекции|либидо)\b"
)


def personal(s: Sentence, pos: int) -> bool:
    start, end = s.clause(pos)
    return bool(FIRST_PERSON.search(s.low[start:end]))


# "…but I'm not on any meds for it", "но таблеток от него не пью", "有点高血压，但没吃药": no drug
# for that condition, which says nothing of the user's other drugs (no whole-section absence).
_FOR_IT_AFTER = re.compile(
    r"^\s*(?:for\s+(?:it|that|this|them|those|my\s+\w+|the\s+\w+)|от\s+(?:него|нее|неё|этого|них|\w+)"
    r"|для\s+(?:этого|него)|по\s+этому\s+поводу)"
)


_BUT_BEFORE = re.compile(r"(?:\bbut|\bно|\bоднако|但是?|可是|不过)[\s,，]*(?:\w+\s+){0,3}$")


def drugs_denied_for_a_condition(low: str, start: int, end: int) -> bool:
    """The drugs denied at ``low[start:end]`` are those for a condition named right before them
    ("high blood pressure but no meds") or after ("…for it")."""
    if _FOR_IT_AFTER.match(low[end:]):
        return True
    before = low[max(0, start - 40) : start]
    conditions = find_terms(kinds_for(Section.CHRONIC_CONDITIONS), before) if before.strip() else ()
    return bool(conditions) and bool(_BUT_BEFORE.search(before[conditions[-1].end :]))
