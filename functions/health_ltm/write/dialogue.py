"""A fragment is a dialogue: each user turn is read beside the assistant turn it answers.

"Any medicines?" / "Just a baby aspirin", "Аллергия есть?" / "Нет", "你抽烟吗？" / "不抽": the
user's words affirm, deny or name; the assistant's question supplies the subject. This module
pairs turns and reads the *shape* of an answer (yes / no / don't know / a list); what the
subject is and which facts follow is ``answers.py``. Pure, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..domain.models import Message, Role
from ..domain.text import CJK, fold_in_place
from .normalize import find_terms
from .rules.text import PSEUDO_NEGATION

_QUESTION_END = re.compile(r"[?？]\s*$")
# An assistant turn that asks even without a question mark ("Tell me about your allergies.").
_ASKING_OPENER = re.compile(
    r"^\s*(?:tell\s+me|describe|list|please\s+(?:tell|list|describe)|расскажите|перечислите|опишите"
    r"|назовите|уточните|请告诉|请说|请问|说说)",
    re.IGNORECASE,
)
# Chat often drops the mark: "抽烟吗", "什么手术 哪一年", "do you smoke", "есть ли аллергия". Only
# a sentence's own question form counts, not a word inside a statement ("我先问几个基本问题").
_ASKS_WITHOUT_MARK = re.compile(
    r"[吗呢嘛]\s*$"
    r"|(?<!没)什么|哪(?:年|一年|里|种|些|个|天|次)|几(?!个基本|个问题)|多少|多久|多大|多长|怎么(?!样都)|怎样|如何"
    r"|有没有|是不是|是否|有无|会不会|要不要"
    r"|^(?:(?:and|so|also|ok(?:ay)?|great|thanks)[,\s]+)?"
    r"(?:(?:do|does|did|are|is|was|were|have|has|had|can|could|will|would)\s+(?:you|your|anyone|any|there)\b"
    r"|(?:any|anything|anyone)\b"
    r"|(?:what|which)\b(?!\s+an?\b)"
    r"|how\s+(?:long|often|much|many|old|tall|is|are|was|were|did|do|does|about)\b"
    r"|(?:when|where|why)\s+(?:did|do|does|was|were|is|are|have|has|will)\b)"
    r"|\bли\b|\b\w+-(?:нибудь|либо)\b|\bправильно\s+(?:ли\s+)?(?:я\s+)?понима\w*"
    r"|^(?:а\s+)?(?:какие|какой|какая|какое|каких|каким|сколько|когда|как\s+(?:давно|часто|долго|вы|у\s+вас)"
    r"|что\s+(?:вы|у\s+вас|принимаете)|чем|у\s+(?:вас|тебя)\s+(?:есть|был|была|были|бывает|бывают))\b"
    # a clinician's summary put to the patient: "Okay, so chronic knee pain.", "So you take it daily."
    r"|^(?:(?:ok(?:ay)?|alright|all\s+right|right|got\s+it)[,.]?\s+)?so\s+(?!let'?s\b|we\b|i\b|i'?ll\b|i'?m\b|far\b)\w"
    r"|^(?:итак|то\s+есть|значит)[,\s]+(?!давайте)\w"
    # what the clinician sees in the chart, put to the patient: "Hm, you also have hypertension and
    # diabetes.", "I see you've had a hysterectomy", "Вижу, у вас гипертония"
    r"|^(?:(?:hm+|ok(?:ay)?|so|and|also|alright|right|now|well)[,.]?\s+)*(?:(?:as\s+per|according\s+to|looking\s+at)\s+"
    r"(?:your\s+)?(?:chart|records?|notes?|file)[,\s]+)?(?:i\s+see\s+(?:here\s+)?(?:in\s+your\s+(?:chart|reports?|records?"
    r"|notes?|file)\s+)?(?:that\s+)?|it\s+says\s+(?:here\s+)?(?:that\s+)?"
    # "It is also mentioned here that you have hyperlipidemia", "Your records say you had a …"
    r"|(?:it\s+)?(?:looks|seems)\s+like\s+|it(?:\s+is|'s)\s+(?:also\s+)?(?:mentioned|noted|written|documented)\s+(?:here\s+)?(?:in\s+\w+\s+)?(?:that\s+)?"
    r"|your\s+(?:chart|records?|notes?|file|history)\s+(?:also\s+)?(?:says?|shows?|mentions?|states?)\s+(?:that\s+)?)?"
    r"you(?:'ve|\s+have)?\s+(?:(?:also|still|recently|previously|already|once)\s+)*"
    r"(?:have|had|take|are\s+on|'re\s+on|been\s+on)\b"
    r"|^(?:вижу|смотрю)[,\s]+(?:что\s+)?у\s+вас\b"
    # a short turn of habits asked by the verb alone: "Курите, выпиваете", "Спортом занимаетесь"
    r"|^(?:а\s+|и\s+|ну\s+)?(?:\w+\s+){0,2}(?:курите|пь[её]те|выпиваете|употребляете|занимаетесь|принимаете"
    r"|болеете|страдаете|наблюдаетесь|лечитесь|пользуетесь|беременны|кормите)\b(?:[,\s]+\w+){0,3}\W*$",
    re.IGNORECASE,
)


# An intake form's short noun question: "Рост и вес", "Год рождения", "height and weight", "身高体重"
_FORM_FIELDS = re.compile(
    r"^\W*(?:(?:ваш|ваша|ваше|your|您的|你的)\s*)?"
    r"(?:рост|вес|возраст|год\s+рождения|дата\s+рождения|пол|height|weight|age|date\s+of\s+birth|year\s+of\s+birth|sex|gender"
    r"|身高|体重|年龄|性别|出生年份|哪年出生)"
    r"(?:\s*(?:и|and|,|和|、)?\s*(?:рост|вес|возраст|пол|год\s+рождения|дата\s+рождения|height|weight|age|sex"
    r"|year\s+of\s+birth|date\s+of\s+birth|身高|体重|年龄|性别|出生年份))?\W*$",
    re.IGNORECASE,
)


# "Если что-нибудь изменится, напишите", "If anything changes, let me know": a condition, no question
# A section heading asked as a form field: "Аллергия на лекарства или продукты", "Allergies",
# "Current medications", "Past surgeries", "过敏史", "家族史"; only the heading (and what it is to),
# so "Allergies noted, thank you" is no question.
_HEADING = (
    r"(?:аллерги[яи]|лекарства|препараты|операции|хронические\s+(?:заболевания|болезни)|вредные\s+привычки"
    r"|курение|алкоголь|прививки|наследственность|allerg(?:y|ies)|(?:current\s+)?medications?|meds"
    r"|(?:past\s+|previous\s+)?(?:surgeries|operations)|chronic\s+(?:conditions|illness(?:es)?)"
    r"|(?:past\s+)?medical\s+history|family\s+history|smoking|alcohol|vaccinations|immuni[sz]ations"
    r"|(?:药物)?过敏史?|(?:目前|现在|平时)?(?:在用的药|在吃的药|用药|吃的药)|手术史?|既往史|慢性病|家族史|吸烟|饮酒|疫苗接种)"
)
_SECTION_FIELDS = re.compile(
    rf"^\W*(?:(?:ваш\w*|your|any|您的|你的)\s*)?{_HEADING}(?:\s*(?:и|или|and|or|,|/|和|、)\s*{_HEADING})*"
    r"(?:\s+(?:на|к|to|from)\s+[\w\s,]{1,40}?)?\W*$",
    re.IGNORECASE,
)
_CONDITION_LEAD = re.compile(r"^\W*(?:если|if|whenever|如果|要是|万一)\b", re.IGNORECASE)


def _asks_unmarked(sentence: str) -> bool:
    stripped = sentence.strip().rstrip(".。 ")
    if _CONDITION_LEAD.match(stripped):
        return False
    return bool(
        _ASKS_WITHOUT_MARK.search(stripped) or _FORM_FIELDS.match(stripped) or _SECTION_FIELDS.match(stripped)
    )


def _asking_sentence(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence.strip()) or _asks_unmarked(sentence))


class AnswerShape(StrEnum):
    YES = "yes"
    NO = "no"
    UNSURE = "unsure"
    CONTENT = "content"  # names something ("just aspirin", "only on weekends"); read against the subject


# Whole-answer forms first: "not that I know of" is a no, "I don't think so" a no, "не знаю" unsure.
_UNSURE = re.compile(
    r"^(?:i\s+)?(?:(?:really\s+)?(?:don'?t|do\s+not)\s+(?:really\s+)?know(?!\s+of\s+any)|not\s+sure|unsure|no\s+idea|i'?m\s+not\s+sure"
    r"|can'?t\s+remember|i\s+don'?t\s+remember|not\s+that\s+i\s+remember|hard\s+to\s+say|maybe|possibly"
    r"|не\s+знаю|не\s+уверен\w*|не\s+помню|без\s+понятия|понятия\s+не\s+имею|затрудняюсь\s+\w+|может\s+быть"
    r"|хз|не\s+в\s+курсе|не\s+особо\s+в\s+курсе|точно\s+не\s+знаю|not\s+really\s+sure"
    r"|不知道|不清楚|不太清楚|不太知道|不确定|记不清|不记得|不太记得|说不好|说不清|不好说|搞不清)\b",
    re.IGNORECASE,
)
_NO = re.compile(
    r"^(?:no+|nope|nah|none|nothing|never|not\s+really|not\s+at\s+all|no\s+sir|no\s+ma'?am|negative|neither"
    r"|not\s+that\s+i\s+(?:know|am\s+aware)(?:\s+of)?|not\s+to\s+my\s+knowledge|i\s+don'?t\s+think\s+so"
    r"|i\s+don'?t\s+know\s+of\s+any\w*|none\s+that\s+i\s+know\s+of|nothing\s+like\s+that"
    r"|i\s+(?:don'?t|do\s+not)(?:\s+have(?:\s+any)?)?|i\s+haven'?t|i\s+have\s+not|i'?m\s+not|i\s+am\s+not"
    r"|нет+|неа|не-а|не\s+было|никаких|ничего|никогда|нету|не\s+имею|вроде\s+нет|нет\s+вроде|кажется\s+нет"
    r"|не\s+(?:курю|пью|принимаю|болею|болел\w*)"
    # "не, ничего такого", "у меня нет ничего", "у меня ничего такого нет"
    r"|не(?=\s*[,.!]|\s+ничего\b)|у\s+меня\s+(?:нет|ничего|никаких))(?=$|[\s,.!;:—–-]|\W)"
    # CJK: no word breaks
    r"|^(?:一个都没有|一样都没有|都没有|都没|都不|从来没有|从来不|从不|没有过|没有|不是|不会|不用|(?:基本上?|几乎)?不(?:吃|抽|喝)|没|无|不)",
    re.IGNORECASE,
)
_YES = re.compile(
    r"^(?:yes+|yeah|yep|yup|ya|sure|correct|right|that(?:'?s|\s+is)\s+(?:right|correct|true)|exactly|absolutely"
    r"|(?:that\s+)?sounds\s+(?:about\s+)?right|that'?s\s+the\s+one"
    r"|of\s+course"
    r"|you\s+got\s+it|you'?re\s+right|that'?s\s+it"
    r"|i\s+do|i\s+am|i\s+have|i\s+did|uh-?huh|mm-?hmm|definitely|indeed|affirmative|true"
    r"|да+|ага|угу|так\s+точно|верно|правильно|конечно|точно|именно|есть|бывает|было"
    # "对了，…" opens a new topic ("by the way"), it confirms nothing
    r")(?=$|[\s,.!;:—–-]|\W)|^(?:是的|是啊|对的|对啊|没错|正确|有的|嗯|是|对(?!了)|有|抽|喝|吃)",
    re.IGNORECASE,
)
# A negated amount is an amount: "not that often", "не так много".
_NOT_OFTEN = re.compile(
    r"\b(?:not|don'?t|do\s+not)\b[^.]{0,25}\b(?:that|very|so)\s+(?:often|much|many)\b|\bnot\s+(?:often|much)\b"
    r"|\bне\s+(?:так|очень|слишком)\s+(?:часто|много)\b"
    # "no more than 2 a day", "не больше двух": an amount, not a no
    r"|^\W*(?:no|not)\s+more\s+than\b|^\W*не\s+больше\b",
    re.IGNORECASE,
)


# "不对，说错了，78": the user corrects their own answer; no "no" to the question
_SELF_CORRECTION = re.compile(r"^\W*(?:不对|我?说错了)[\s,，。!！]*(?:\S*?\d)")


@dataclass(frozen=True)
class Turn:
    """One user message and the assistant question it answers (None: the user spoke first)."""

    index: int  # position of the user message in the fragment
    message: Message
    question: Message | None


# Where an assistant turn's sentences end; not after an abbreviation ("Any long-term conditions e.g.
# asthma, diabetes", "Hi Mr. Davis", "напр. астма").
_ABBREVIATED = "".join(
    f"(?<!{a})"
    for a in (
        r"e\.g\.",
        r"i\.e\.",
        r"\bvs\.",
        r"etc\.",
        r"\bdr\.",
        r"\bmr\.",
        r"\bmrs\.",
        r"\bms\.",
        r"напр\.",
        r"т\.е\.",
        r"т\.к\.",
        r"т\.д\.",
        r"т\.п\.",
        r"\bдр\.",
    )
)
_ASKED_SENTENCE_END = re.compile(rf"(?<=[.!?]){_ABBREVIATED}\s+|(?<=[。！？])\s*", re.IGNORECASE)
_STATED_SENTENCE_END = re.compile(rf"(?<=[.!]){_ABBREVIATED}\s+|(?<=[。！])\s*", re.IGNORECASE)


_CJK_SPACE = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff\d])")


def asks(message: Message | None) -> bool:
    """The assistant asked something the user's next message may answer."""
    if message is None or message.role is not Role.ASSISTANT:
        return False
    text = message.text.strip()
    if _QUESTION_END.search(text):
        return True
    sentences = [p for p in _ASKED_SENTENCE_END.split(text) if p.strip()]
    last = sentences[-1] if sentences else text
    if _ASKING_OPENER.search(last) or _asks_unmarked(last):
        return True
    # chat Chinese parts a turn with spaces: "你好 先了解下基本情况 年龄和性别", "过敏史呢 药物或者食物"
    parts = _CJK_SPACE.split(last) if CJK.search(last) else []
    return len(parts) > 1 and any(_asks_unmarked(p) for p in parts)


# "And you?", "А у вас самих?", "您自己呢？": a question with no topic of its own, asking the user
# what the previous question asked (about the family, or someone else).
_SELF_FOLLOW_UP = re.compile(
    r"(?:^|(?<=[.!?。！？\n])\s*)(?:(?:and|what|how)(?:\s+about)?\s+)?(?:you|yourself)(?:\s+yourself)?"
    r"(?:,?\s+(?:personally|then|too))?\s*[?？]"
    r"|(?:^|(?<=[.!?。！？\n])\s*)(?:(?:а|ну\s+а|ну)\s+)?(?:как\s+)?(?:(?:лично\s+)?у\s+вас|вы)"
    r"(?:\s+(?:сам(?:и|а|ого|ой|их)|лично))?(?:\s+как)?\s*[?？]"
    r"|(?:^|(?<=[.!?。！？\n])\s*)(?:那|那么)?(?:您|你)(?:自己|本人)?(?:呢|怎么样|的情况呢|有吗|呢有吗)[?？]",
    re.IGNORECASE,
)


def carried_topic(text: str) -> tuple[str, str] | None:
    """(earlier question, follow-up) when ``text`` ends with a topic-less "And you?" after a
    question that has the topic ("Any chronic illness in the family?\nAnd you yourself?")."""
    low = fold_in_place(text.rstrip())
    m = _SELF_FOLLOW_UP.search(low)
    if m is None or m.end() != len(low) or not low[: m.start()].strip():
        return None
    return text[: m.start()].strip(), text[m.start() : len(low)].strip()


def _self_follow_up(message: Message) -> bool:
    text = fold_in_place(message.text.strip())
    return message.role is Role.ASSISTANT and bool(_SELF_FOLLOW_UP.fullmatch(text))


def question_of(messages: Sequence[Message], index: int) -> Message | None:
    """The assistant question right before the user message at ``index`` (after earlier user
    turns of the same answer burst too: "Any allergies?" / "yes" / "penicillin").

    A topic-less "And you?" / "А у вас самих?" / "您自己呢？" comes back joined after the
    assistant question before it in the fragment, which supplies the topic (``carried_topic``)."""
    question = _question_of(messages, index)
    if question is None or not _self_follow_up(question):
        return question
    at = next(i for i in range(index - 1, -1, -1) if messages[i] is question)
    # the assistant's question before it that has words of its own ("And you?" twice: older still)
    earlier = next(
        (m for m in reversed(messages[:at]) if asks(m) and not _self_follow_up(m)),
        None,
    )
    if earlier is None:
        return question
    return question.model_copy(update={"text": f"{earlier.text.strip()}\n{question.text.strip()}"})


def _question_of(messages: Sequence[Message], index: int) -> Message | None:
    j = index - 1
    # Later messages of one answer burst answer it too, when what came before was short
    # ("Any allergies?" / "yes" / "penicillin"), or a list item when this one goes on with the
    # list ("бисопролол 5 мг утром" / "и аллопуринол 100"); a new long statement is no answer.
    text = messages[index].text
    longest = 6 if _GOES_ON.match(fold_in_place(text)) or _opens_with_a_name(text) else 3
    while (
        j >= 0
        and messages[j].role is Role.USER
        and index - j <= 3
        and len(messages[j].text.split()) <= longest
    ):
        if _answered_in_full(messages[j].text) and not _amends(messages[index].text):
            # "Any allergies?" / "no" / "I tried ibuprofen for the pain": the bare "no" answered
            # the question; the story after it is the user's own, not a list of allergies.
            return None
        j -= 1
    if j >= 0 and asks(messages[j]):
        return messages[j]
    # "Any medicines in the past?" / "Prescription or over the counter?" / "Either." / "None":
    # a short reply to the user's own clarifying question keeps the assistant's question open.
    if j >= 2 and len(messages[j].text.split()) <= 6 and asks_back(messages[j - 1]) and asks(messages[j - 2]):
        return messages[j - 2]
    return None


# A message that adds to the list of the one before: "и аллопуринол 100", "and metformin 500"
_GOES_ON = re.compile(
    r"^\W*(?:and|also|plus|и|ещё|еще|а\s+также|плюс|还有|以及|和)(?=\s|\W|[^\W\d_])",
    re.I,
)
_LIST_ITEM_KINDS = ("drug", "allergen", "condition", "vaccine", "surgery")


# "а, и витамин д 2000 ме", "oh and vitamin d": an interjection and a "and" before the next item
_ITEM_LEAD = re.compile(r"^\W*(?:(?:oh|ah|а|ой|ах)\W+)?(?:(?:and|и|also|plus|ещё|еще|还有)\s+)?", re.I)


def _opens_with_a_name(text: str) -> bool:
    """ "омез когда гастрит обостряется" / "суматриптан при приступах": the next item of a list (not
    "oh and my mom has diabetes": a story of its own)."""
    lead = _ITEM_LEAD.match(text)
    at = lead.end() if lead else 0
    return any(t.start == at for t in find_terms(_LIST_ITEM_KINDS, text))


def _answered_in_full(text: str) -> bool:
    """A bare "no" / "не знаю" / "没有": the whole answer, with nothing named after it."""
    shape = answer_shape(text)
    return shape in (AnswerShape.NO, AnswerShape.UNSURE) and not re.search(r"\w", rest_after_marker(text)[1])


# A later turn that takes a bare answer back or adds to it: "wait, penicillin", "а, нет, на пыль",
# "其实有". Short turns ("penicillin", "maybe dust") are read as the same answer anyway.
_AMENDS = re.compile(
    r"^\W*(?:wait|actually|oh|oops|sorry|hold\s+on|well|except|but|apart\s+from|other\s+than|only|just|although"
    r"|хотя|ой|а,|стоп|погоди\w*|подожди\w*|вообще-то|кроме|только|разве\s+что|но\b|ну\b|точнее|вернее"
    r"|等等|其实|不对|哦|除了|只有|就是|但是)",
    re.IGNORECASE,
)


def _amends(text: str) -> bool:
    short = len(text.strip()) <= 6 if CJK.search(text) else len(text.split()) <= 3
    return short or bool(_AMENDS.match(fold_in_place(text.strip())))


def asks_back(message: Message) -> bool:
    return message.role is Role.USER and bool(_QUESTION_END.search(message.text.strip()))


def turns(messages: Sequence[Message]) -> list[Turn]:
    return [Turn(i, m, question_of(messages, i)) for i, m in enumerate(messages) if m.role is Role.USER]


def episode_text(messages: Sequence[Message]) -> str:
    """What the user said, for the episode index; a short answer keeps its question beside it
    ("Any allergies? — no"), so the episode means something when it comes back."""
    parts = []
    shown: set[int] = set()  # questions already written: a second turn answering one does not repeat it
    for turn in turns(messages):
        text = turn.message.text.strip()
        if turn.question is not None and len(text.split()) <= 6 and id(turn.question) not in shown:
            shown.add(id(turn.question))
            text = f"{last_question(turn.question.text)} — {text}"
        parts.append(text)
    return " ".join(p for p in parts if p)


def last_question(text: str) -> str:
    """The asking sentence of an assistant turn ("Thanks. Any allergies?" -> "Any allergies?")."""
    parts = [p for p in _STATED_SENTENCE_END.split(text.strip()) if p.strip()]
    asking = [p for p in parts if _asking_sentence(p)]
    return (asking[-1] if asking else parts[-1] if parts else text).strip()


_INTERJECTION = re.compile(
    r"^(?:(?:oh|ah|uh|hm+|um+|er+m?|well|ой|ах|ну|хм+|哦|啊|呃)[,!.\s]+)+(?=\w)", re.IGNORECASE
)  # "oh no, never", "Oh, um, no nothing like that", "Hm I don't think so"


_HOW_LONG_ANSWER = re.compile(
    r"^\W*(?:not\s+(?:very\s+|that\s+|too\s+)?long|недолго|не\s+(?:очень\s+|так\s+)?давно|没多久|不久|没几天)\b",
    re.IGNORECASE,
)


def answer_shape(text: str) -> AnswerShape:
    """The form of an answer; CONTENT when it names something beyond yes/no."""
    low = _INTERJECTION.sub("", fold_in_place(text.strip()))  # "oh no, never", "ой нет, что вы"
    if _HOW_LONG_ANSWER.match(low):
        return AnswerShape.CONTENT  # "How long have you had it?" / "Not long, a day": a duration, no "no"
    if PSEUDO_NEGATION.match(low) or _NOT_OFTEN.search(low) or _SELF_CORRECTION.match(low):
        return AnswerShape.CONTENT  # "Nothing helps my back pain", "I don't drink that often"
    if _UNSURE.match(low):
        return AnswerShape.UNSURE
    if _NO.match(low):
        return AnswerShape.NO
    if _YES.match(low):
        return AnswerShape.YES
    return AnswerShape.CONTENT


def affirms(text: str) -> bool:
    """The user's words say yes (for a confirmed restatement)."""
    return answer_shape(text) is AnswerShape.YES


def leads_with_yes(text: str) -> bool:
    """The user's words open with a yes, whatever follows ("yep. oh, it was my legs as well")."""
    low = _INTERJECTION.sub("", fold_in_place(text.strip()))
    return bool(_YES.match(low)) and not _NO.match(low)


def rest_after_marker(text: str) -> tuple[int, str]:
    """ "Да, на пенициллин" -> (offset, "на пенициллин"): what follows a leading yes/no."""
    low = fold_in_place(text)
    for pattern in (_NO, _YES):
        m = pattern.match(low.strip())
        if m:
            lead = len(low) - len(low.lstrip())
            end = lead + m.end()
            while end < len(text) and (text[end] in " ,.!;:—–-" or text[end] in "，。！；："):
                end += 1
            return end, text[end:]
    return 0, text
