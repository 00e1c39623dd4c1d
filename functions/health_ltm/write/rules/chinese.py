"""Chinese: the main sections read from CJK sentences (medications, allergies, conditions,
symptoms, family history, surgeries, demographics, lifestyle, vaccinations).

Chinese has no spaces and no inflection, so every cue is a substring: negation is the character
right before the verb or the term ("没有高血压", "不咳嗽"), a question ends in 吗 or ？, and the
subject of a clause carries over the following clauses until another person is named ("我妈妈
有糖尿病，在吃二甲双胍" is the mother's drug); chat Chinese that writes a space for a comma is read
with its spaces as clause breaks (``spaced``). Table names (``find_terms``) match CJK aliases by
substring; the hint is the table's own name, so the key never depends on the words around it.
Only sentences with CJK characters are read here; the Russian/English rules handle the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ...domain.attributes import Relative
from ...domain.models import AssertionKind
from ...domain.sections import FactStatus, Section
from ...domain.text import CJK
from ..normalize import Term, find_terms, kinds_for, normalize_name, pain_site
from .dates import iso_day
from .text import Context, Draft, Sentence, drugs_denied_for_a_condition

SECTIONS = frozenset(
    {
        Section.MEDICATIONS,
        Section.ALLERGIES,
        Section.CHRONIC_CONDITIONS,
        Section.REPORTED_DIAGNOSES,
        Section.SYMPTOMS,
        Section.FAMILY_HISTORY,
        Section.SURGERIES,
        Section.DEMOGRAPHICS,
        Section.LIFESTYLE,
        Section.VACCINATIONS,
    }
)

_PUNCT = " \t，。！？；：、,.!?;:（）()「」“”\"'…"
_ZH_NUM = r"(?:\d{1,3}|[零〇一二两三四五六七八九十百]{1,5})"
_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))


def extract(s: Sentence, ctx: Context) -> list[Draft]:
    if not CJK.search(s.text):
        return []
    s = spaced(s)
    return [
        *_allergies(s),
        *_medications(s, ctx),
        *_conditions(s, ctx),
        *_symptoms(s, ctx),
        *_surgeries(s, ctx),
        *_demographics(s, ctx),
        *_lifestyle(s, ctx),
        *_vaccinations(s, ctx),
    ]


# Chat Chinese often writes a space where a comma would be ("开了泮托拉唑 早晚各一次 我在吃"): a space
# after a Chinese character (or an emoji) and before one is a clause break, as "，" is; a space
# beside a Latin letter or a digit ("氨氯地平 5mg", "血压150 医生说") is not. So is a question or
# exclamation mark inside the sentence (intake's NFKC makes "？" a "?" that no space follows).
# (Not after a negation: "没有 高血压" is still "no hypertension".)
_SPACE_BREAK = re.compile(r"(?<=[^\x00-\x7f])(?<![没不无未别])(?<!没有)(?:\s+|[?!]+\s*)(?=[\u4e00-\u9fff])")


def spaced(s: Sentence) -> Sentence:
    """The sentence with its spaces between Chinese words as clause breaks (same text and spans)."""
    extra = {b for m in _SPACE_BREAK.finditer(s.text) for b in m.span()}
    if not extra - set(s.breaks):
        return s
    return Sentence(s.text, s.low, tuple(sorted({*s.breaks, *extra})))


# --- shared helpers -----------------------------------------------------------------------------
def zh_number(text: str) -> int | None:
    """Digits or Chinese numerals up to the hundreds ("三十五", "一百零五", colloquial "一百二")."""
    if text.isdigit():
        return int(text)
    total, current = 0, None
    for ch in text:
        if ch in _DIGITS:
            current = _DIGITS[ch]
        elif ch in "十百":
            total += (1 if current is None else current) * (10 if ch == "十" else 100)
            current = None
        else:
            return None
    if current is not None:
        total += current * (10 if len(text) >= 2 and text[-2] == "百" else 1)  # "一百二" is 120
    return total


def _span(s: Sentence, a: int, b: int) -> tuple[int, int]:
    """The clause(s) around [a, b), without the punctuation at either end."""
    return _trimmed(s, *s.evidence(a, b))


def _list_start(s: Sentence, pos: int) -> int:
    """Start of the clause at ``pos``, extended back over enumerations ("青霉素、头孢和花生")."""
    start = s.clause(pos)[0]
    while start >= 2 and s.text[start - 1] == "、":
        start = s.clause(start - 2)[0]
    return start


def _terms(kinds: tuple[str, ...], s: Sentence, start: int = 0, end: int | None = None) -> list[Term]:
    end = len(s.text) if end is None else end
    return [Term(t.entry, start + t.start, start + t.end) for t in find_terms(kinds, s.text[start:end])]


def _hint(term: Term) -> str:
    """The table's own name in Chinese: the key then follows from the table, not from the wording."""
    return term.entry.name("zh")


# Who the clause is about. Relatives (blood only), other people, the user.
_RELATIVES = {
    Relative.MOTHER: "妈妈 母亲 老妈 我妈 妈咪",
    Relative.FATHER: "爸爸 父亲 老爸 我爸",
    Relative.GRANDMOTHER: "奶奶 外婆 姥姥 祖母 外祖母",
    Relative.GRANDFATHER: "爷爷 外公 姥爷 祖父 外祖父",
    Relative.BROTHER: "哥哥 弟弟 我哥 我弟",
    Relative.SISTER: "姐姐 妹妹 我姐 我妹",
    Relative.SON: "儿子",
    Relative.DAUGHTER: "女儿",
    Relative.AUNT: "阿姨 姑姑 姑妈 姨妈 小姨 大姨",
    Relative.UNCLE: "叔叔 舅舅 伯伯 伯父 大伯 叔父",
    Relative.OTHER: "父母 爸妈 兄弟姐妹 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹 孙子 孙女 外孙 外孙女 祖父母",
}
_RELATIVE_BY_WORD = {w: rel for rel, words in _RELATIVES.items() for w in words.split()}
# Spouses, in-laws, friends, children in general: not blood relatives, nothing for the user.
_OTHERS = (
    "朋友 好友 闺蜜 同事 同学 室友 邻居 老公 丈夫 老婆 妻子 爱人 媳妇 太太 "
    "男朋友 女朋友 男友 女友 对象 老板 领导 孩子 小孩 宝宝 婆婆 公公 岳母 岳父 "
    "丈母娘 儿媳 女婿 病人 患者 别人 有人 人家 网友 客户 他们 她们 "
    "我的猫 我家猫 我家的猫 我的狗 我家狗 我家的狗"
)
_FAMILY = "我们家里 我们家 我家里 我家 家里人 家里 家人 家族里 家族 亲戚"
# He or she; 他 inside a drug's name is no person: 阿托伐他汀, 非布司他, 他达拉非, 他克莫司, 他莫昔芬
ZH_HE_SHE = r"(?<![其吉司])[他她](?!汀|达拉非|克莫司|莫昔芬|巴唑)"
_PERSON = re.compile(
    "|".join(sorted({*_RELATIVE_BY_WORD, *_OTHERS.split(), *_FAMILY.split()}, key=len, reverse=True))
    + rf"|{ZH_HE_SHE}|我们|我|本人|自己"
)
_ZH_RELATIVE = re.compile("|".join(sorted(_RELATIVE_BY_WORD, key=len, reverse=True)))


def zh_relatives(text: str) -> list[Relative]:
    """Every blood relative named in Chinese text, in order."""
    return [_RELATIVE_BY_WORD[m.group(0)] for m in _ZH_RELATIVE.finditer(text)]


def zh_relative(text: str) -> Relative | None:
    """The first blood relative named in Chinese text ("我妈妈" -> mother)."""
    m = _ZH_RELATIVE.search(text)
    return _RELATIVE_BY_WORD[m.group(0)] if m else None


_BOTH = re.compile(r"我(?:和|跟|与|还有)$")
_CHILD = ("孩子", "宝宝", "小孩")


@dataclass(frozen=True)
class _Who:
    kind: str  # "self", "relative", "family", "other"
    relative: Relative | None = None
    self_too: bool = False  # "我和妈妈都有高血压"


_OWNER_AFTER = re.compile(r"[^，,。；;\s]{0,12}?是(?=[^，,。；;\s]{0,6}(?:在|一直|天天)?(?:吃|用|服|喝|打))")


def _who(s: Sentence, pos: int, focus: Relative | None = None) -> _Who:
    """The last person named before ``pos`` in the sentence (Chinese topic chains over commas).

    他/她 is the relative named before it in the sentence, else ``focus`` (the relative the
    previous sentence was about), else someone else."""
    after = _OWNER_AFTER.match(s.low, pos)
    if after is not None:  # "右美沙芬是我老公在吃": the one said after "是" takes it
        at = after.end()
        mine = re.compile(r"我的|我").match(s.low, at)
        owner = (_PERSON.match(s.low, mine.end()) if mine else None) or _PERSON.match(s.low, at)
        if owner is not None and owner.group(0) not in ("我", "我们", "本人", "自己"):
            word = owner.group(0)
            if word in _RELATIVE_BY_WORD:
                return _Who("relative", _RELATIVE_BY_WORD[word])
            return _Who("other")
    last = previous = None
    for m in _PERSON.finditer(s.low, 0, pos):
        if m.group(0) in _CHILD and s.low[max(0, m.start() - 1) : m.start()] in ("生", "怀", "带"):
            continue  # "我生孩子是剖腹产": the child is the object, the user the subject
        last, previous = m, last
    if last is None:
        return _Who("self")
    word = last.group(0)
    both = bool(_BOTH.search(s.low[max(0, last.start() - 3) : last.start()]))
    if word in _RELATIVE_BY_WORD:
        return _Who("relative", _RELATIVE_BY_WORD[word], both)
    if word in _FAMILY.split():
        return _Who("family", Relative.OTHER, both)
    if word in ("我", "我们", "本人", "自己"):
        # "我妈妈和我都有高血压": the relative named just before shares the statement.
        gap = s.low[previous.end() : last.start()] if previous is not None else ""
        if previous is not None and re.fullmatch(r"[妈爸哥姐弟妹]?[和跟与]", gap):
            relative = _RELATIVE_BY_WORD.get(previous.group(0))
            if relative is not None:
                return _Who("relative", relative, True)
        return _Who("self")
    if word in ("他", "她"):
        if previous is not None and previous.group(0) in _RELATIVE_BY_WORD:
            return _Who("relative", _RELATIVE_BY_WORD[previous.group(0)])
        if previous is None and focus is not None:
            return _Who("relative", focus)
    return _Who("other", None, both)


def relative_named(s: Sentence) -> Relative | None:
    """The blood relative a Chinese sentence last names, for the next sentence's 他/她."""
    last = None
    for m in _PERSON.finditer(s.low):
        last = m.group(0)
    return _RELATIVE_BY_WORD.get(last) if last else None


def about_the_user(s: Sentence, pos: int) -> bool:
    """Whether the words at ``pos`` of a Chinese sentence state a fact about the user (not a
    relative, not someone else, not a question or a condition): for rules that name no entity."""
    s = spaced(s)
    return _is_self(s, pos) and not _hypothetical(s, pos)


def _is_self(s: Sentence, pos: int) -> bool:
    who = _who(s, pos)
    return who.kind == "self" or who.self_too


# Questions, conditions, plans, worries: not a statement of fact.
_HYPOTHETICAL = re.compile(
    r"能不能|能否|可不可|可以吗|会不会|是不是|要不要|该不该|需不需要|有没有|是否|打算|准备|计划|想要|想(?!吐)"
    r"|行不行|好不好|成不成"
    r"|希望|担心|害怕|怀疑|可能|也许|或许|应该|怎么办|怎么样|为什么|哪些|哪种|咨询|请问"
    # question words, but not "什么都不过敏" / "没有什么慢性病" / "啥药都不吃" (any, none)
    r"|(?<!没)(?<!没有)(?<!不)什么(?![都也药病过基慢东])|(?<!没)(?<!没有)啥(?!(?:药|病|东西)?[都也])|(?<!不)怎么(?![也都])|如何|多少"
)
_CONDITIONAL = re.compile(r"如果|要是|万一|假如|假设|倘若|的话")
_HEDGES = frozenset({"可能", "也许", "或许"})
_CLINICIAN_SAID = re.compile(r"(?:医生|大夫|医院)(?:看了)?(?:说|讲|认为|判断)")
_QUESTION_END = re.compile(r"[吗呢嘛][\s？?。!！]*$")


# Chat Chinese often types a space where a comma would be: "这两天智齿发炎疼死了 能吃布洛芬吗"
_SPACED_PART = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


def _hypothetical(s: Sentence, pos: int) -> bool:
    start, end = s.clause(pos)
    # a statement said to its end ("…疼死了") and a question typed after a space ask apart
    for gap in _SPACED_PART.finditer(s.low, pos, end):
        if s.low[gap.start() - 1] in "了啦":
            end = gap.start()
            break
    clause = s.low[start:end]
    asked = [
        m
        for m in _HYPOTHETICAL.finditer(clause)
        # "医生说可能是支气管炎": a clinician's working diagnosis, hedged, is charted as said
        if not (m.group(0) in _HEDGES and _CLINICIAN_SAID.search(s.low, 0, start + m.start()))
    ]
    if asked or _QUESTION_END.search(clause) or s.text[end : end + 1] in ("?", "？"):
        return True
    cond = _CONDITIONAL.search(s.low)
    if cond and cond.start() < end:
        return True  # a condition covers its own clause and what follows it
    text = s.text.rstrip()
    return text.endswith(("？", "?")) and end >= len(text) - 1


# Negation right before a verb or a term; "不停地咳嗽" (non-stop), "无法入睡" (cannot) are not.
_NEG = re.compile(r"从来没有|从来没|从来不|从没|从不|并没有|并不|没有|没|不|无|未|否认|排除")
_PSEUDO_NEG = re.compile(
    r"不停|不断|不住|不仅|不但|不光|不只|不管|不得不|不舒服|不适|不好意思|不少|不一定|不规律|不按时|不定时"
    r"|无法|没法|没办法|没想到|不知道|不清楚|不确定|不记得|没事|不错|不久|无论|不然|要不|不太"
)


_CONTRAST = re.compile(r"但是?|可是|不过|却|就是|只是|而是|倒是")


hypothetical = _hypothetical  # the extractor asks it of an answer's drug


def _masked(text: str) -> str:
    return _PSEUDO_NEG.sub(lambda m: "_" * len(m.group(0)), text)


def _negated(s: Sentence, start: int, window: int = 4) -> bool:
    """A negation in the ``window`` characters before ``start``, in the same clause."""
    c_start = s.clause(start)[0]
    before = _masked(s.low[c_start : start + 2])[: start - c_start]
    turns = [m.end() for m in _CONTRAST.finditer(before)]
    if turns:  # "我爸不胖但有高血压": the negation is of what came before the "but"
        before = before[turns[-1] :]
    return bool(_NEG.search(before[-window:]) or _NEGATED_LIST.search(s.low, 0, start))


# "没有呕吐、黑便、发热和体重下降": every item of a list a negation opens is denied, not only the first
# (a comma ends the list: "没有发烧，咳嗽挺厉害" keeps the cough)
_LIST_ITEM = r"(?:(?![但可不过就只还倒也都有是很在])[\u4e00-\u9fff]){1,6}"
_NEGATED_LIST = re.compile(rf"(?:没有|没|无|否认)(?:{_LIST_ITEM}\s*(?:、|和|及|与|或|以及)\s*)+$")


# "高血压、糖尿病都没有": the negation follows the list.
# "水痘从来没得过", "麻疹我没出过", "哮喘一直没有患过": the verb of illness may follow the negation.
_NEG_AFTER = re.compile(
    r"(?:我|也|都|全都|全|均|从来|从|一直|根本|倒是)*(?:没有|没|无|不是|未)(?:得|患|出|生)?过?[了的啊呢]*"
    r"(?=$|[，。,.！!？?；;、])"
)


def _negated_after(s: Sentence, end: int, terms: list[Term]) -> int | None:
    """Where the negation after a list of terms ends, if there is one."""
    pos = end
    while True:
        m = re.match(r"[、，,和及与跟或还有以及\s]+", s.low[pos:])
        nxt = next((t for t in terms if t.start >= pos and t.start <= pos + (m.end() if m else 0)), None)
        if nxt is None:
            break
        pos = nxt.end
    m = _NEG_AFTER.match(s.low, pos)
    return m.end() if m else None


_UNSURE = re.compile(r"不知道|不清楚|不确定|不记得|记不清|说不清|不太清楚|不太确定|不了解")


def _year_of(text: str, today: date | None) -> str | None:
    """A date said in Chinese, as an ISO prefix: "2019年3月", "去年", "三年前", "上个月"."""
    m = re.search(r"((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", text)
    day = iso_day(*(int(g) for g in m.groups())) if m else None
    if day is not None and (today is None or day <= today.isoformat()):
        return day  # "2026年11月25日"
    m = re.search(r"((?:19|20)\d{2})\s*年(?:\s*(\d{1,2})\s*月)?", text)
    if m:
        return (
            f"{m.group(1)}-{int(m.group(2)):02d}" if m.group(2) and 1 <= int(m.group(2)) <= 12 else m.group(1)
        )
    if today is None:
        return None
    for word, delta in (("前年", 2), ("去年", 1), ("今年", 0)):
        if word in text:
            return str(today.year - delta)
    m = re.search(rf"({_ZH_NUM}|半)\s*年(?:以)?前", text)
    if m and m.group(1) != "半":
        n = zh_number(m.group(1))
        return str(today.year - n) if n is not None and n < 100 else None
    m = re.search(rf"({_ZH_NUM})\s*个月(?:以)?前|(上)个月", text)
    if m:
        n = 1 if m.group(2) else zh_number(m.group(1))
        if n is not None and n < 120:
            months = today.year * 12 + today.month - 1 - n
            return f"{months // 12}-{months % 12 + 1:02d}"
    return None


def _since(text: str, today: date | None) -> str | None:
    """How long a condition or a habit has lasted: "十年了", "有五年了" -> the year it began."""
    when = _year_of(text, today)
    if when:
        return when
    m = re.search(rf"({_ZH_NUM})\s*(?:多)?年(?:了|来|以来)", text)
    if m and today is not None:
        n = zh_number(m.group(1))
        return str(today.year - n) if n is not None and n < 100 else None
    return None


# --- allergies ----------------------------------------------------------------------------------
_ALLERGY_KINDS = kinds_for(Section.ALLERGIES)
_A_UNSURE = re.compile(
    r"(?:不知道|不清楚|不确定|不记得|说不清|不太清楚|不太确定|记不清|没测过|没查过)(?:自己|我)?"
    r"[^，。！？；]{0,8}?过敏"
)
_A_NONE = re.compile(
    r"(?:没有|没|无)(?:任何|什么|已知的?|药物|食物)*(?:过敏(?:史)?)(?!原|性)"
    r"|过敏史[:：\s]*(?:无|没有|阴性)|(?:什么|任何东西|任何药物?|啥)(?:都|也)(?:不|没有?)过敏"
    r"|(?:^|[，,。\s])(?:我)?(?:也)?(?:从来)?(?:不|没有?)过敏(?:[了的]*)(?=$|[，。,.！!？?；;])"
    r"|不是过敏体质|(?:没有?|不)对(?:任何|什么)(?:药物?|东西|食物)?(?:都|也)?过敏"
)
_A_TRIGGER = re.compile(r"过敏(?!性鼻炎|性皮炎|药)")
_A_SOURCE = re.compile(r"过敏原(?:是|为|有|[:：])?")
_A_FILLER = re.compile(
    # 我: the allergen said first ("青霉素我过敏"); a relative in between ("青霉素我妈过敏") is not filler
    r"^(?:[、，,和及与跟还有以及都也还会就很特别非常严重有点有些一点比较容易轻微的有过了后吃用打喝碰接触一时候之我]|"
    r"不|没有|没|并不|从不|已经|现在|后来|不再)*$"
)
_A_INDICATION = re.compile(r"治|抗|用于|针对|缓解|因为|由于")
_A_GENERIC = re.compile(r"^(?:药物?|东西|什么|任何|很多|一些|某些|好多|各种|这个|那个|这种|那种|食物)")
_A_RESOLVED = re.compile(
    r"后来(?:就)?好了|已经好了|长大(?:以)?后?(?:就)?(?:好了|不过敏)|现在(?:已经)?不过敏|已经不过敏"
)
_A_PAST = re.compile(r"以前|小时候|曾经|之前|过去|儿时")
_REACTIONS = [
    (re.compile(r"过敏性休克|休克"), "anaphylaxis", "severe"),
    (re.compile(r"呼吸困难|喘不上气|喘不过气|憋气|窒息"), "breathing difficulty", "severe"),
    (re.compile(r"喉咙肿|喉头水肿"), "angioedema", "severe"),
    (re.compile(r"荨麻疹|风团"), "hives", None),
    (re.compile(r"起疹子|出疹子|疹子|皮疹|红疹|起红点"), "rash", None),
    (re.compile(r"肿"), "swelling", None),
    (re.compile(r"痒"), "itching", None),
    (re.compile(r"打喷嚏|流鼻涕|鼻塞"), "sneezing, runny nose", None),
]
_A_SEVERITY = [(re.compile(r"严重|厉害|很重"), "severe"), (re.compile(r"轻微|有点|一点|稍微"), "mild")]


def _allergies(s: Sentence) -> list[Draft]:
    if "过敏" not in s.low:
        return []
    unsure = _A_UNSURE.search(s.low)
    if unsure:
        if _terms(_ALLERGY_KINDS, s, *s.clause(unsure.start())):
            return []  # "不知道对青霉素过不过敏": no status to record
        if _is_self(s, unsure.start()) and not _CONDITIONAL.search(s.low):
            return [Draft(Section.ALLERGIES, _span(s, *unsure.span()), kind=AssertionKind.SECTION_UNSURE)]
        return []
    drafts: list[Draft] = []
    seen: set[str] = set()
    for first, term, status, last in _allergen_mentions(s):
        at = term.start if isinstance(term, Term) else term[0]
        if not _is_self(s, at) or _hypothetical(s, at):
            continue
        name = s.text[term.start : term.end] if isinstance(term, Term) else term[2]
        entry = term.entry if isinstance(term, Term) else None
        hint = entry.name("zh") if entry else None
        key = normalize_name(Section.ALLERGIES, name, hint).key
        if key in seen:
            continue
        seen.add(key)
        attributes: dict = _reaction(s.low) if status is FactStatus.PRESENT else {}
        if entry is not None:
            attributes["allergen_type"] = "drug" if entry.kind == "drug" else entry.extra.get("type")
        drafts.append(
            Draft(
                Section.ALLERGIES,
                _span(s, first, last),
                name=name,
                hint=hint,
                status=status,
                attributes={k: v for k, v in attributes.items() if v},
            )
        )
    if not drafts:
        none = _A_NONE.search(s.low)
        if none and _is_self(s, none.start()) and not _hypothetical(s, none.start()):
            return [Draft(Section.ALLERGIES, _span(s, *none.span()), kind=AssertionKind.SECTION_ABSENT)]
    return drafts


def _allergen_mentions(s: Sentence) -> list[tuple[int, Term | tuple[int, int, str], FactStatus, int]]:
    """(evidence start, table term or (start, end, raw name), status, evidence end) per allergen."""
    found: list[tuple[int, Term | tuple[int, int, str], FactStatus, int]] = []
    for m in _A_SOURCE.finditer(s.low):  # "过敏原是尘螨和花粉"
        for t in _terms(_ALLERGY_KINDS, s, m.end(), s.list_end(m.end())):
            found.append((m.start(), t, FactStatus.PRESENT, t.end))
    for m in _A_TRIGGER.finditer(s.low):
        if s.low.startswith("过敏原", m.start()):
            continue
        start = _list_start(s, m.start())
        towards = s.low.rfind("对", start, m.start())
        start = towards if towards >= 0 else start  # "我的猫对花生过敏": the allergens follow 对
        terms = [
            t
            for t in _terms(_ALLERGY_KINDS, s, start, m.start())
            if not _A_INDICATION.search(s.low[t.end : m.start()])
        ]
        last = max((t.end for t in terms), default=None)
        objects: list[Term | tuple[int, int, str]] = list(terms)
        if not terms:
            unknown = _unknown_allergen(s, start, m.start())
            if unknown is None:
                continue
            objects, last = [unknown], unknown[1]
        assert last is not None
        between = s.low[last : m.start()]
        if not _A_FILLER.match(between):
            continue  # "吃了青霉素以后起疹子，医生说是过敏": too far to tell
        first = min(start, *(o.start if isinstance(o, Term) else o[0] for o in objects))
        status = _allergy_status(s, first, between, m.end())
        found += [(first, o, status, m.end()) for o in objects]
    return found


def _unknown_allergen(s: Sentence, start: int, trigger: int) -> tuple[int, int, str] | None:
    """An allergen the table does not know, right after 对 ("对芒果过敏")."""
    m = re.search(
        r"对([\u4e00-\u9fff]{1,6}?)(?:[都也还会就很特别非常严重有点有些比较]*|不|没有?)$",
        s.low[start:trigger],
    )
    if not m or _A_GENERIC.match(m.group(1)) or "过敏" in m.group(1):
        return None
    a = start + m.start(1)
    return a, a + len(m.group(1)), s.text[a : a + len(m.group(1))]


def _allergy_status(s: Sentence, first: int, between: str, trigger_end: int) -> FactStatus:
    negated = bool(re.search(r"不|没", between)) or _negated(s, first, window=3)
    changed = s.low[trigger_end : trigger_end + 2].startswith("了") or bool(
        re.search(r"已经|现在|后来|不再", between)
    )
    if _A_RESOLVED.search(s.low) or (negated and changed):
        return FactStatus.RESOLVED
    if negated:
        return FactStatus.ABSENT
    return FactStatus.PRESENT


def _reaction(low: str) -> dict:
    attributes: dict = {}
    reactions: list[str] = []
    for pattern, reaction, severity in _REACTIONS:
        if pattern.search(low) and reaction not in reactions:
            if reaction == "swelling" and "angioedema" in reactions:
                continue
            reactions.append(reaction)
            attributes.setdefault("severity", severity)
    if reactions:
        attributes["reaction"] = ", ".join(reactions)[:120]
    for pattern, severity in _A_SEVERITY:
        if pattern.search(low):
            attributes["severity"] = attributes.get("severity") or severity
            break
    return attributes


# --- medications --------------------------------------------------------------------------------
_STOPPED, _PRESCRIBED, _ACTIVE = FactStatus.STOPPED, FactStatus.PRESCRIBED, FactStatus.ACTIVE
# A switch of drug: "换成Y", "改用Y", "换了Y" (but "换了个牌子", "改了剂量" keep the same drug).
_SWITCH_WORDS = (
    r"换成|改成|改为|换为|改吃|换用|改用|改服|换到"
    r"|换了(?!(?:个|一个|一种|种|家)?(?:牌子|厂家|厂|包装|剂量|时间|医生|医院))"
)
_TAKE = r"(?:吃|服用?|用|打|喷|吸|喝|滴|涂|抹)"
_MED_CUES: list[tuple[re.Pattern[str], FactStatus | None]] = [
    (re.compile(rf"从来没(?:有)?{_TAKE}过|从没{_TAKE}过|没(?:有)?{_TAKE}过"), None),  # never took it
    (
        re.compile(
            rf"停(?:了|掉了?|用了?|服了?|药了?)|停药|不(?:再)?{_TAKE}了|已经不{_TAKE}|没(?:有)?再{_TAKE}"
            rf"|不再{_TAKE}|(?:以前|之前|曾经|过去)(?:一直|也)?{_TAKE}(?:过)?|{_TAKE}过|断(?:了|掉)|吃完了|用完了"
            r"|(?:尝)?试过|试了"  # "试过布洛芬，没用": tried, not being taken
            rf"|不吃|没(?:有)?(?:在)?吃|不服用|没(?:有)?服用|不(?:用|需要|必)再{_TAKE}"
            # "吃了四天就停了", "用了一周后不用了", "疗程结束了", "一个疗程吃完了": taken, then over
            rf"|{_TAKE}了[^，。,\s]{{0,6}}?(?:就|才|后|以后|之后|便)?(?:停|不{_TAKE})(?:了|掉了?)"
            r"|疗程(?:已经|都|也)?(?:结束|完成|做完|吃完|用完|满)了|(?:一个|整个)?疗程(?:已经)?(?:吃|用|打)完了"
        ),
        _STOPPED,
    ),
    (
        re.compile(
            r"(?:医生|大夫|医师)(?:给我|帮我|又|还|就)?(?:开了?|开的)|给我开|开了|开的|处方|医嘱|开药"
            r"|(?:医生|大夫|医师|医院)(?:又|还|就)?给了?我(?:用了?|配了?)?"
            rf"|(?:建议|推荐)我?{_TAKE}"
            rf"|(?:医生|大夫|医师)(?:让|叫|要|嘱咐)我{_TAKE}"
        ),
        _PRESCRIBED,
    ),
    (
        re.compile(
            rf"(?:正在|一直在|一直|还在|现在|目前|每天|天天|每日|每晚|每早|平时|经常|长期|坚持|按时|常年|开始|在|要)"
            rf"{_TAKE}|吃着|用着|服用|口服|注射|吸入|{_SWITCH_WORDS}|加(?:到|量|了)|减(?:到|量)"
            r"|增加到|调整到|调到|吃|喝(?![酒水茶])|(?<![作使费不])用(?!于|药)|打(?=[^，。]{0,4}胰岛素)"
            r"|(?<![舒衣克佩说制信])服(?![务装从气])"  # "服二甲双胍500mg" (not 舒服, 衣服)
        ),
        _ACTIVE,
    ),
]
_ADVICE = re.compile(r"(?:建议|推荐)我?(?:吃|服用?|用|试试)")
_DOCTOR = re.compile(r"医生|大夫|医师|医院")
_SWITCH = re.compile(_SWITCH_WORDS)
# The doctor only says or advises the switch ("医生说换成Y", "医生建议改成Y"): prescribed, not yet taken.
_DOCTOR_ADVISES = re.compile(r"(?:医生|大夫|医师)[^，。]{0,3}?(?:说|建议|让|叫|要|嘱咐|考虑)")
# ... or it is not begun yet: "换成Y了，还没开始吃", "下次换成Y", "明天开始换成Y"
_NOT_YET = re.compile(
    r"还没(?:有)?(?:开始)?(?:吃|用|服|换)|还没开始|下次|回头|(?:明天|后天|下周|下个月)(?:再|才|就)?开始"
)
# A prescribed drug the user then reports taking ("开了X 早晚各一次 我一直在吃", "开了X，吃了三天了"):
# taken now. Said before the next drug is named; "没在吃" is no report of taking.
_TAKING_NOW = re.compile(
    rf"(?<![没不])(?:一直|现在|已经|正|都|每天都)?在(?:吃|服用?|用)(?![饭菜东零])|(?<![没不])(?:吃|用)着"
    rf"|(?:已经)?(?:吃|服|用)了(?:{_ZH_NUM}|几|半|好几)(?:个)?(?:多)?(?:天|周|星期|礼拜|月|年)(?:多)?了"
    r"|已经(?:开始)?(?:吃|服用?|用)(?:上)?了|开始(?:吃|服用?|用)了"
)
# ... or one not begun: "要吃十天 药还没去拿", "还没开始服", "明天开始吃" (prescribed, not taken yet).
_NOT_TAKEN_YET = re.compile(
    r"还没(?:有)?(?:去)?(?:开始(?:吃|服|用)?|拿|买|取|吃|服|用|换)|(?:明天|后天|下周|回头|过两天)(?:再|才|就)?(?:开始)?(?:吃|用|服|去拿|去买)"
)
# A regimen named by its number of drugs ("四联疗法", "四联的抗菌药", "铋剂四联"): the table's regimen.
_REGIMEN = re.compile(r"(?:铋剂)?四联(?:的)?(?:杀菌|抗菌|根除|抗幽)?(?:疗法|药物?|方案|治疗|抗生素)|铋剂四联")
_MED_BLOCK = re.compile(r"不能|不可以|不要|别|不宜|禁止|不敢|忌")
_MED_NONE = re.compile(
    r"(?:不|没有?在?)(?:吃|服用|用)(?:任何|什么|啥)?(?:药|药物)|(?:什么|任何|啥)药(?:都|也)(?:不|没有?)(?:吃|服用|用)"
    r"|没有(?:长期|经常|固定|规律)?(?:服用|吃)的?(?:药|药物)|(?:药物|用药)史?[:：]?\s*(?:无|没有)"
)
_DOSE = re.compile(
    r"(?P<val>\d+(?:\.\d+)?|半|一|两|二|三|四|五|六|七|八|九|十)\s*"
    r"(?P<unit>毫克|mg|微克|mcg|μg|µg|ug|毫升|ml|国际单位|单位|iu|克|g(?![a-z])|片|粒|颗|滴|喷|揿|吸|袋|支|胶囊)"
    r"(?P<half>半)?"
)
_DOSE_UNITS = {
    "毫克": "mg", "mg": "mg", "微克": "mcg", "mcg": "mcg", "μg": "mcg", "µg": "mcg", "ug": "mcg",
    "毫升": "ml", "ml": "ml", "国际单位": "IU", "iu": "IU", "单位": "units", "克": "g", "g": "g",
    "片": "tablets", "粒": "tablets", "颗": "tablets", "胶囊": "tablets", "滴": "drops", "喷": "puffs",
    "揿": "puffs", "吸": "puffs",
}  # fmt: skip
_FREQUENCY = [
    (re.compile(r"(?:一天|每天|每日|一日|天)(?:两|二|2)次|早晚各|早晚(?:都)?吃|bid"), "twice daily"),
    (re.compile(r"(?:一天|每天|每日|一日)(?:三|3)次|tid|三餐"), "three times daily"),
    (re.compile(r"(?:一天|每天|每日|一日)(?:四|4)次"), "four times daily"),
    (re.compile(r"隔天|隔日|每两天|两天一次"), "every other day"),
    (re.compile(r"(?:每周|一周|每星期|每个星期)(?:一|1)次|每周(?!\d|[两二三四五六七])"), "weekly"),
    (
        re.compile(r"(?:一天|每天|每日|一日)(?:一|1)次|每天|天天|每日|每晚|每早|一天一片|一日一片|qd"),
        "once daily",
    ),
    (
        re.compile(
            r"需要(?:的)?时(?:候)?|必要时|有需要|不舒服(?:的)?时|[疼痛](?:的)?时(?:候)?|偶尔|有时(?:候)?|按需"
        ),
        "as needed",
    ),
]
_TIMES = [
    (re.compile(r"早上|早晨|清晨|早饭|早餐|每早|上午|晨起|早晚"), "morning"),
    (re.compile(r"中午|午饭|午餐"), "midday"),
    (re.compile(r"晚上|傍晚|晚饭|晚餐|每晚|早晚"), "evening"),
    (re.compile(r"睡前|睡觉前|临睡"), "bedtime"),
]
_PURPOSE = r"(?:治疗?|控制|针对|预防|缓解|用来|为了|防止?|止)(?:我的)?"
_INDICATIONS = [
    (re.compile(rf"降压|降血压|{_PURPOSE}(?:高)?血压"), "blood pressure"),
    (re.compile(rf"降糖|降血糖|{_PURPOSE}(?:血糖|糖尿病)"), "diabetes"),
    (re.compile(rf"降脂|降血脂|降胆固醇|{_PURPOSE}(?:血脂|胆固醇)"), "cholesterol"),
    (re.compile(rf"{_PURPOSE}(?:甲状腺|甲减|甲亢)"), "thyroid"),
    (re.compile(rf"{_PURPOSE}偏头痛"), "migraine"),
    (re.compile(rf"{_PURPOSE}头[疼痛]"), "headache"),
    (re.compile(r"退烧|退热"), "fever"),
    (re.compile(rf"护胃|{_PURPOSE}胃"), "stomach"),
    (re.compile(rf"抗过敏|{_PURPOSE}过敏"), "allergy"),
    (re.compile(rf"助眠|安眠|{_PURPOSE}(?:失眠|睡眠)"), "sleep"),
    (re.compile(rf"抗凝|抗血小板|{_PURPOSE}血栓"), "blood clots"),
    (re.compile(rf"{_PURPOSE}(?:心脏|冠心病)"), "heart"),
    (re.compile(rf"{_PURPOSE}哮喘"), "asthma"),
    (re.compile(rf"止咳|{_PURPOSE}咳嗽"), "cough"),
    (re.compile(rf"{_PURPOSE}感冒"), "cold or flu"),
    (re.compile(r"止痛|止疼"), "pain"),
]
_ROUTES = [
    (re.compile(r"打(?:针|胰岛素)|注射|针剂"), "injection"),
    (re.compile(r"眼药水|滴眼"), "ophthalmic"),
    (re.compile(r"鼻喷|喷鼻|滴鼻|洗鼻|鼻[^，。]{0,3}喷雾"), "nasal"),
    (re.compile(r"吸入|气雾剂|喷雾"), "inhalation"),
    (re.compile(r"药膏|软膏|涂|抹"), "topical"),
]


@dataclass
class _Cue:
    status: FactStatus | None
    start: int
    end: int


def _med_cues(s: Sentence) -> list[_Cue]:
    found = [
        _Cue(status, m.start(), m.end()) for pattern, status in _MED_CUES for m in pattern.finditer(s.low)
    ]
    # "不吃了" also contains "吃": the longer, more specific cue wins.
    kept = [
        c
        for c in found
        if not any(
            o is not c and o.start <= c.start and c.end <= o.end and (o.end - o.start) > (c.end - c.start)
            for o in found
        )
    ]
    return sorted(kept, key=lambda c: c.start)


_EXCEPT = re.compile(r"除了|除开|以外")

# A medicine named by its form ("止咳糖浆", "感冒冲剂", "生理盐水喷雾", "氧氟沙星滴眼液"): no table
# name, the words before the form (back to a verb, a list word or a measure) say which one.
_FORM_WORDS = (
    r"糖浆|口服液|合剂|混悬液|滴鼻液|滴鼻剂|鼻喷剂|喷鼻剂|喷雾剂|喷雾|气雾剂|滴眼液|眼药水|眼药膏|眼膏|滴耳液"
    r"|冲剂|颗粒|药膏|软膏|乳膏|凝胶|栓剂|贴剂|膏药|含片|润喉片"
)
_FORM = re.compile(_FORM_WORDS)
_FORM_LEAD = re.compile(
    r".*(?:开了?|给了?|配了?|拿了?|买了?|用了?|吃了?|喝了?|喷了?|滴了?|涂了?|抹了?|服用|在|和|跟|与|及|还有|以及"
    r"|或者?|[一两几]?[瓶盒支袋罐管]|点|些|种|是|的|了|说|我|也|还|又|就|每天|天天)"
)
# Not a medicine: "枫糖浆", "防晒喷雾", "保湿凝胶".
_NOT_MEDICINE = re.compile(
    r"枫|玉米|焦糖|咖啡|奶茶|防晒|保湿|补水|驱蚊|防蚊|定妆|护发|爽肤|发胶|香水|清新|洗发|沐浴"
)


@dataclass(frozen=True)
class _FormName:
    start: int
    end: int


def _form_named(s: Sentence, drugs: list[Term]) -> list[_FormName]:
    """Medicines named by their form; a table drug's own form ("布洛芬混悬液") is that drug."""
    found: list[_FormName] = []
    for m in _FORM.finditer(s.low):
        c_start = s.clause(m.start())[0]
        lead = _FORM_LEAD.match(s.low, c_start, m.start())
        start = lead.end() if lead else c_start
        while start < m.start() and not CJK.match(s.text[start]):
            start += 1
        start = max(start, m.start() - 6)
        if _NOT_MEDICINE.search(s.low, start, m.end()) or any(
            t.start < m.end() and start < t.end for t in drugs
        ):
            continue
        if found and found[-1].end > start:
            continue  # "眼药膏" read once
        found.append(_FormName(start, m.end()))
    return found


def _inside_medicine(s: Sentence, a: int, b: int) -> bool:
    """A condition or symptom name inside a medicine's name ("感冒冲剂", "鼻炎喷雾", "止咳糖浆")."""
    if not _FORM.search(s.low):
        return False
    return any(f.start <= a and b <= f.end for f in _form_named(s, _terms(("drug",), s)))


# "我在吃的二甲双胍能和布洛芬一起吃吗": a drug the user calls the one they take is taken, even in a question
_OWNED_DRUG = re.compile(r"我(?:现在|一直|平时|每天|长期)?(?:在)?(?:吃|用)的$")


def _medications(s: Sentence, ctx: Context) -> list[Draft]:
    table = [t for t in _terms(("drug",), s) if not _drug_is_allergen(s, t)]
    table = sorted([*table, *_regimens(s, table)], key=lambda t: t.start)
    drugs: list[Term | _FormName] = sorted([*table, *_form_named(s, table)], key=lambda t: t.start)
    cues = _med_cues(s)
    drafts: list[Draft] = []
    seen: set[tuple[str, FactStatus]] = set()
    for index, term in enumerate(drugs):
        a, b = term.start, term.end
        cue = _cue_for(s, cues, drugs, a, b)
        # a stop told in the next clause ends what the drug's own clause says was taken ("吃了布洛芬，
        # 现在不吃了"); the stop's clause says whether it happened ("可能是X引起的" hedges the cause)
        stop_next = None if cue and cue.status is not _ACTIVE else _stopped_next(s, cues, drugs, a)
        cue = stop_next or cue
        # "格列美脲一次一片 早饭前吃": the verb may come a clause or two after the name
        cue = cue or _cue_after(s, cues, drugs, a)
        first = min(a, cue.start) if cue else a
        said_at = stop_next.start if stop_next else a
        owned = bool(_OWNED_DRUG.search(s.low, max(0, a - 8), a))
        asked = _hypothetical(s, said_at) and not owned
        if not _is_self(s, a) or asked or _MED_BLOCK.search(s.low[s.clause(a)[0] : a]):
            continue
        status = _ACTIVE if owned else _med_status(s, cue, a, b)
        if _EXCEPT.search(s.low[max(0, a - 3) : a]) and _MED_NONE.search(s.low):
            status = _ACTIVE  # "除了维生素D，我什么药都不吃": the exception is taken
        if status is None:
            continue
        next_start = drugs[index + 1].start if index + 1 < len(drugs) else len(s.text)
        if status in (_PRESCRIBED, _ACTIVE):
            status = _taken_yet(s, status, b, next_start)
        name = s.text[a:b]
        hint = _hint(term) if isinstance(term, Term) else None
        normalized = normalize_name(Section.MEDICATIONS, name, hint)
        if (normalized.key, status) in seen:
            continue
        seen.add((normalized.key, status))
        prev_end = drugs[index - 1].end if index else 0
        attributes, last = _med_details(s, a, b, next_start, prev_end)
        if normalized.code:
            attributes["atc_code"] = normalized.code
        clause = s.low[slice(*s.clause(a))]
        drafts.append(
            Draft(
                Section.MEDICATIONS,
                _span(s, first, max(b, last)),
                name=name,
                hint=hint,
                status=status,
                attributes=attributes,
                valid_from=_since(clause, ctx.today)
                if status is _ACTIVE and re.search(r"从|开始|起|以来|年了", clause)
                else None,
                valid_to=_year_of(clause, ctx.today) if status is _STOPPED else None,
            )
        )
    drafts = _replaced(s, ctx, drafts)
    if not drafts:
        none = _MED_NONE.search(s.low)
        if none and _EXCEPT.search(s.low):
            none = None  # "除了维生素D以外什么都不吃" names one: not none at all
        if none and drugs_denied_for_a_condition(s.low, *none.span()):
            none = None
        if none and _is_self(s, none.start()) and not _hypothetical(s, none.start()):
            drafts.append(
                Draft(Section.MEDICATIONS, _span(s, *none.span()), kind=AssertionKind.SECTION_ABSENT)
            )
    return drafts


def _regimens(s: Sentence, table: list[Term]) -> list[Term]:
    """Regimens named by their number of drugs, as the table's regimen (no table name of their own)."""
    found: list[Term] = []
    for m in _REGIMEN.finditer(s.low):
        if any(t.start < m.end() and m.start() < t.end for t in table):
            continue
        entry = find_terms(("drug",), "四联疗法")
        if entry:
            found.append(Term(entry[0].entry, m.start(), m.end()))
    return found


def _taken_yet(s: Sentence, status: FactStatus, b: int, next_start: int) -> FactStatus:
    """What the words after the drug (up to the next drug) say of taking it: a prescribed drug the
    user says they take is taken now; one not picked up or begun yet is only prescribed."""
    window = _masked(s.low[b:next_start])
    not_yet = _NOT_TAKEN_YET.search(window)
    if (
        not_yet
        and re.match(r"(?:药|呢|了|啊|呀)*(?![\u4e00-\u9fff])", window[not_yet.end() :])
        and _is_self(s, b + not_yet.start())
    ):
        return _PRESCRIBED
    taking = _TAKING_NOW.search(window)
    if status is _PRESCRIBED and taking:
        at = b + taking.start()
        if _is_self(s, at) and not _hypothetical(s, at):
            return _ACTIVE
    return status


def _cue_after(s: Sentence, cues: list[_Cue], drugs: list, a: int) -> _Cue | None:
    """A cue in the next clause or two that name no drug and no allergy and ask nothing
    ("格列美脲一次一片 早饭前吃"; not "X皮试阳性 医生说我过敏 那能吃啥")."""
    named = [*drugs, *_terms(("drug",), s)]
    end = s.clause(a)[1]
    for _ in range(2):
        pos = end
        while pos < len(s.text) and s.text[pos] in _PUNCT:
            pos += 1
        if pos >= len(s.text) or pos == end:
            return None
        start, end = s.clause(pos)
        if (
            any(start <= t.start < end for t in named)
            or "过敏" in s.low[start:end]
            or _hypothetical(s, start)
        ):
            return None
        cue = next((c for c in cues if start <= c.start < end), None)
        if cue is not None:
            return cue
    return None


# An answer to a question about drugs that opens with "no longer" and then names only the drug
# switched to ("X还在吃吗？" / "没有了，医生给我换成瑞舒伐他汀了"): the drug it replaces is the one in
# focus (write/focus.py), stopped; the stop comes first, so the new drug is never its referent. (Not
# after another question: "最近怎么样？" / "没有了，换成Y了" says nothing of which drug Y replaced.)
_NO_LONGER = re.compile(
    r"^[\s，,]*(?:嗯|哦|唉)?[\s，,]*(?:早就?|已经|现在)?(?:没有了|没了|不吃了|不用了|停了|停掉了|没在吃了|没再吃了)"
)


def _replaced(s: Sentence, ctx: Context, drafts: list[Draft]) -> list[Draft]:
    lead = _NO_LONGER.match(s.low) if Section.MEDICATIONS in ctx.asked else None
    switch = _SWITCH.search(s.low, lead.end()) if lead else None
    if lead is None or switch is None or any(d.status is _STOPPED for d in drafts) or _NOT_YET.search(s.low):
        return drafts  # no switch, the old drug is named, or the switch is not begun
    if not _is_self(s, lead.start()) or _hypothetical(s, lead.start()):
        return drafts
    for index, draft in enumerate(drafts):
        at = s.text.find(draft.name, switch.end()) if draft.name else -1
        if draft.status not in (_ACTIVE, _PRESCRIBED) or at < 0:
            continue
        stop = Draft(
            Section.MEDICATIONS,
            _span(s, *lead.span()),
            status=_STOPPED,
            valid_to=_year_of(s.low[lead.end() : switch.start()], ctx.today),
            refers_to_focus=True,
        )
        return [*drafts[:index], stop, *drafts[index:]]
    return drafts


def _drug_is_allergen(s: Sentence, term: Term) -> bool:
    """In "吃阿莫西林过敏" the drug is named as an allergen, not as something taken."""
    end = s.clause(term.start)[1]
    after = re.match(r"([^，。]{0,6}?)过敏(?!药)", s.low[term.end : end])
    if after and not _A_INDICATION.search(after.group(1)):
        return True
    return "对" in s.low[max(s.clause(term.start)[0], term.start - 3) : term.start]


def _cue_for(s: Sentence, cues: list[_Cue], drugs: list, a: int, b: int) -> _Cue | None:
    start = _list_start(s, a)
    end = s.clause(a)[1]
    before = [c for c in cues if start <= c.start and c.end <= a]
    if before:
        return before[-1]
    after = [c for c in cues if b <= c.start < end]
    if after:
        return after[0]
    # "我在吃拜新同，立普妥", "我在吃两种药：拜新同、立普妥": the cue is a clause or two back,
    # past clauses that only name drugs.
    for _ in range(3):
        pos = start - 1
        while pos > 0 and s.text[pos] in _PUNCT:
            pos -= 1
        if pos <= 0:
            return None
        start, p_end = s.clause(pos)
        prev = [c for c in cues if start <= c.start < p_end]
        if prev:
            return prev[-1]
        if not any(start <= t.start < p_end for t in drugs):
            return None
    return None


# "医生说可能是阿司匹林引起的，后来停了，换成波立维": a bare stop opening the next clause ends
# the drug the clause before named (with no cue of its own).
_THEN = re.compile(
    r"(?:后来|然后|所以|于是|因此|就|我|已经|马上|立刻|自己|也|便|把它|把药|给|现在|目前|这几天|最近"
    # "我在吃布洛芬，上周停了": when it stopped
    r"|上周|上星期|上礼拜|上个月|昨天|前天|前几天|前阵子|今天|那天|\d+天前|几天前|一周前|两周前)*"
)


def _stopped_next(s: Sentence, cues: list[_Cue], drugs: list, a: int) -> _Cue | None:
    end = s.clause(a)[1]
    pos = end
    while pos < len(s.text) and s.text[pos] in _PUNCT:
        pos += 1
    if pos >= len(s.text) or pos == end:
        return None
    start, next_end = s.clause(pos)
    if any(start <= t.start < next_end for t in drugs):
        return None
    lead = _THEN.match(s.low, start)
    at = lead.end() if lead else start
    if _RESTARTED.search(s.low, at, next_end):
        return None  # "停了一周又开始吃了": taken again
    return next((c for c in cues if c.start == at and c.status is _STOPPED and c.end <= next_end), None)


_RESTARTED = re.compile(r"又开始|又吃|又在吃|重新吃|恢复")


_DOCTOR_SAID = re.compile(r"(?:医生|大夫|医师)(?:说|让|叫|要|建议|嘱咐)[^，。]{0,2}")


def _doctor_from(s: Sentence, clause_start: int) -> int:
    """Where to look for the doctor of a switch: its clause, or a bare "医生说，" just before."""
    pos = clause_start - 1
    while pos > 0 and s.text[pos] in _PUNCT:
        pos -= 1
    if pos <= 0:
        return clause_start
    start = s.clause(pos)[0]
    said = _DOCTOR_SAID.fullmatch(s.low, start, pos + 1)
    return start if said else clause_start


_DOSE_LEAD = re.compile(
    r"[\s，,：:]*(?:(?:一天|每天|每日|一日|每次|一次|早上|晚上|每晚|每早|饭前|饭后|餐前|餐后|睡前)[\s，,]*)?"
)


def _med_status(s: Sentence, cue: _Cue | None, a: int, b: int) -> FactStatus | None:
    if cue is None:
        # An answer such as "拜新同 30mg" names a current drug with its dose.
        lead = s.low[s.clause(a)[0] : a].strip(_PUNCT)
        # "有，非布司他，一天40毫克": the dose may follow in the next clause, after how often
        dose = _DOSE.match(s.low, _DOSE_LEAD.match(s.low, b).end())  # type: ignore[union-attr]
        return _ACTIVE if dose and lead in ("", "是", "有", "对", "嗯") else None
    if cue.status is None:
        return None
    text = s.low[cue.start : cue.end]
    if _ADVICE.search(s.low[max(0, cue.start - 4) : cue.end + 4]) and not _DOCTOR.search(s.low):
        return None  # a friend's advice is not a prescription
    clause_start = s.clause(a)[0]
    switch = _SWITCH.search(s.low, clause_start, s.clause(a)[1])
    if switch:
        # "从拜新同换成络活喜", "医生把X换成了Y": the old drug ends, the new one starts.
        if a < switch.start():
            return _STOPPED
        # A switch told as done is what the user takes now ("医生给我换成Y了", "医生把X换成了Y");
        # one the doctor of the switch's own clause only says or advises ("医生说，换成Y",
        # "医生建议改成Y") is prescribed. A doctor who only said what caused a complaint
        # ("医生说可能是阿司匹林引起的，后来停了，换成波立维") is not in the switch's clause.
        advised = _DOCTOR_ADVISES.search(s.low, _doctor_from(s, clause_start), switch.start())
        return _PRESCRIBED if advised or _NOT_YET.search(s.low) else _ACTIVE
    unclear = text.startswith(("不吃", "没")) and not text.endswith("了")
    if cue.status is _STOPPED and cue.start > b and unclear:
        return None  # "拜新同不吃..." without 了 is too unclear after the name
    return cue.status


_COUNT_UNITS = ("tablets", "capsules", "drops", "puffs")  # how many, not how strong


def zh_dose(text: str, strength_first: bool = False) -> tuple[float, str] | None:
    """The first dose written the Chinese way in ``text`` ("100毫克", "半片"): value and unit; with
    ``strength_first`` a strength wins over a count ("一天一片，5毫克": 5 mg)."""
    doses = [dose for m in _DOSE.finditer(text) if (dose := _dose_value(m))]
    if strength_first:
        doses.sort(key=lambda dose: dose[1] in _COUNT_UNITS)
    return doses[0] if doses else None


def _dose_value(m: re.Match[str]) -> tuple[float, str] | None:
    raw = m.group("val")
    value = float(raw) if raw[0].isdigit() else (0.5 if raw == "半" else float(zh_number(raw) or 0))
    if m.group("half"):
        value += 0.5
    unit = _DOSE_UNITS.get(m.group("unit"))
    return (value, unit) if unit and 0 < value < 100_000 else None


def _med_details(s: Sentence, a: int, b: int, next_start: int, prev_end: int) -> tuple[dict, int]:
    attributes: dict = {}
    clause_start = s.clause(a)[0]
    scope_end = min(next_start, len(s.text))
    last = b
    for window in ((b, scope_end), (max(prev_end, clause_start), a)):
        found: list[tuple[tuple[float, str], int]] = []
        for m in _DOSE.finditer(s.low, *window):
            if (
                re.match(r"[天日周次]", s.low[m.end() : m.end() + 1])
                or s.low[max(0, m.start() - 1) : m.start()] in "每"
            ):
                continue  # "一天两次" counts times, it is no dose
            dose = _dose_value(m)
            if dose:
                found.append((dose, m.end()))
        # "每天一片5mg": the strength is the dose, the count only how it is taken
        found.sort(key=lambda item: item[0][1] in _COUNT_UNITS)
        if found:
            (amount, unit), end = found[0]
            attributes.update(dose_value=amount, dose_unit=unit)
            last = max(last, end)
        if "dose_value" in attributes:
            break
    scope = s.low[clause_start:scope_end]
    for pattern, value in _FREQUENCY:
        said = pattern.search(scope)
        if said:
            attributes["frequency"] = value
            last = max(last, clause_start + said.end())
            break
    times = []
    for pattern, value in _TIMES:
        said = pattern.search(scope)
        if said:
            times.append(value)
            last = max(last, clause_start + said.end())
    if times:
        attributes["time_of_day"] = ", ".join(times)
    for pattern, value in _INDICATIONS:
        said = pattern.search(scope)
        if said:
            attributes["indication"] = value
            last = max(last, clause_start + said.end())
            break
    c_start, c_end = s.clause(a)
    # the drug's own part of its clause: "感冒冲剂和鼻炎喷雾" are not both sprays
    own = s.low[max(c_start, prev_end) : min(c_end, next_start)]
    route = next((v for pattern, v in _ROUTES if pattern.search(own)), None)
    if route:
        attributes["route"] = route
    return attributes, last


# --- conditions and family history --------------------------------------------------------------
_C_CUE = re.compile(
    r"我|有|患|得了|得过|确诊|诊断|查出|发现|说是|犯|病史|毛病|年了|多年|控制|排除"
    # "大夫说胃炎", "皮肤科说荨麻疹", "医院说是肺炎": the doctor's (or the clinic's) verdict
    r"|(?:医生|大夫|医师|专家|医院|[\u4e00-\u9fff]{1,3}科)(?:看了|检查后|看了说)?(?:说|讲|认为|判断)"
)
_C_SKIP_BEFORE = re.compile(r"(?:治疗?|控制|预防|针对|缓解|防止?|对付|降|筛查|检查|查了|测)(?:我的)?$")
_C_SKIP_AFTER = re.compile(r"^(?:的)?(?:药|手术|筛查|检查|疫苗)")
# Being treated for it, said of oneself ("我在治胃炎", "一直在治痛风"): a diagnosis, not a remedy's use.
_C_TREATED_SELF = re.compile(r"(?:我|一直|正在|还在)(?:在)?(?:治|看)(?:疗)?$")
_C_FAMILY_AFTER = re.compile(r"^(?:的)?(?:家族史|遗传史|家族遗传|遗传)")
_C_RESOLVED = re.compile(
    r"后来(?:就)?好了|已经好了|治好了|(?<![没不])好了(?!一点|一些|点|些|很多|不少|许多)|痊愈|康复|治愈|现在没有了|现在没了|已经没有了|不再"
)
_C_STILL = re.compile(r"还没好|没好|没有好|不见好|一直不好|好不了|还没有好")
_C_CHILDHOOD = re.compile(r"小时候|儿时|童年|小的时候")
_C_PAST = re.compile(r"以前|之前|曾经|过去|早年|年轻时|[得患有]过|岁(?:的时候|时|那年)")
_C_ABSENT = re.compile(
    r"(?:没有|没|无)(?:任何|什么)?(?:慢性|基础)(?:病|疾病)(?:史)?|(?:慢性|基础)(?:病|疾病)(?:史)?[:：\s]*(?:也|都)?(?:没有|无)"
    r"|身体(?:一直)?(?:很|挺|非常|比较)?健康[，,]?\s*没(?:有)?(?:什么)?(?:病|毛病)"
)
_C_UNSURE = re.compile(
    r"(?:不知道|不清楚|不确定)(?:自己)?(?:有没有|是否有|是不是有)(?:什么)?(?:慢性|基础)(?:病|疾病)"
)
_F_ABSENT = re.compile(
    r"家族史[:：\s]*(?:也|都)?(?:无|没有|阴性)|(?:没有|无)(?:任何|什么)?(?:家族(?:病)?史|遗传病(?:史)?)"
    r"|(?:家里|家族|家人|家里人|我们家)(?:里|人)?(?:都|也)?(?:没有?|无)(?:什么|任何)?(?:遗传病|家族病|大病|慢性病|病)"
    r"|家族史(?:方面)?(?:也|都)?(?:没有|无)|家里人都(?:很|挺)?健康"
)
_F_UNSURE = re.compile(
    r"(?:不知道|不清楚|不了解)[^，。]{0,6}?(?:家族史|家里|家人|父母|亲生父母|家族)|被(?:领养|收养)"
)
# A test said by its result right after the disease: 阴性 is none, 阳性 is the infection, 转阴 is over.
_TEST_RESULT = re.compile(
    r"(?:的)?(?:检查|检测|化验|呼气试验|抗体|筛查|测出来)?(?:结果)?(?:已经|现在|也|都|还)*(?:是|为|呈|显示)?"
    r"(?P<result>阴性|阳性|转阴)"
)
_AGE_AT = re.compile(rf"({_ZH_NUM})\s*(?:周)?岁")
# The clause after the condition says when it came: "我妈妈有糖尿病，五十岁得的", "…，她60岁查出来的".
_ONSET_AFTER = re.compile(
    rf"[，,；;]?\s*(?:她|他)?(?:是)?(?:在)?({_ZH_NUM})\s*(?:周)?岁(?:的时候|那年|左右)?(?:就)?"
    r"(?:得的|得上的|查出来的|查出的|发现的|确诊的|开始的|诊断的|得了|查出|确诊|发病)"
)


def _onset_after(s: Sentence, at: int) -> re.Match[str] | None:
    return _ONSET_AFTER.match(s.low, at)


# A level said to be a bit high ("血压有点高", "血糖偏高", "胆固醇一直比较高"): the condition of that
# level, the phrase its own cue; high blood sugar is hyperglycemia, not diabetes.
_HIGH_LEVEL = re.compile(
    r"(?P<what>血压|血糖|胆固醇|血脂)(?:有点儿?|有一点|有些|稍微|稍|略|一直|总是|也|都|还|本来就|比较|偏)*"
    r"(?:偏高|高)(?![兴度])"
)
_LEVEL_CONDITION = {"血压": "高血压", "血糖": "高血糖", "胆固醇": "高血脂", "血脂": "高血脂"}


def _with_high_levels(s: Sentence, terms: list[Term]) -> list[Term]:
    """The table's conditions, and each level said to be high in place of a name inside it."""
    for m in _HIGH_LEVEL.finditer(s.low):
        found = find_terms(("condition",), _LEVEL_CONDITION[m.group("what")])
        if not found:
            continue
        inside = [t for t in terms if m.start() <= t.start and t.end <= m.end()]
        if any(t.start < m.end() and m.start() < t.end for t in terms if t not in inside):
            continue
        terms = [t for t in terms if t not in inside] + [Term(found[0].entry, m.start(), m.end())]
    return sorted(terms, key=lambda t: t.start)


# A level that led to a diagnosis named with it ("体检血糖高，复查说是2型糖尿病"): the finding, not a
# condition of its own.
_FINDING_OF = {"hyperglycemia": frozenset({"diabetes", "type_1_diabetes", "type_2_diabetes", "prediabetes"})}


def _without_findings(s: Sentence, terms: list[Term]) -> list[Term]:
    """The terms, less a level said of the same person as the diagnosis it led to (not one the
    sentence denies or wonders about: "血糖高，但不是糖尿病", "血糖高，会不会是糖尿病")."""
    diagnosed = [
        t
        for t in terms
        if not _hypothetical(s, t.start)
        and not _negated(s, t.start, window=5)
        and _negated_after(s, t.end, terms) is None
    ]
    return [
        t
        for t in terms
        if not any(
            d.entry.key in _FINDING_OF.get(t.entry.key, ()) and _who(s, d.start) == _who(s, t.start)
            for d in diagnosed
        )
    ]


def _conditions(s: Sentence, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    seen: set[tuple[Section, str, str]] = set()
    terms = _without_findings(s, _with_high_levels(s, _terms(("condition",), s)))
    # A name inside a longer symptom's (麻疹 in 荨麻疹, hives): CJK has no word boundary to tell.
    # (looked up only where there is a condition name to check: this runs on every sentence)
    symptoms = _terms(("symptom",), s) if terms else []
    wider = [t for t in symptoms if any(t.end - t.start > c.end - c.start for c in terms)]
    for term in terms:
        a, b = term.start, term.end
        if any(w.start <= a and b <= w.end and w.end - w.start > b - a for w in wider):
            continue
        if _TITLE_AFTER.match(s.low, b):
            continue  # "桥本先生": a person's name, no disease
        same = next((t for t in symptoms if (t.start, t.end) == (a, b)), None)
        if same is not None and not _said_as_diagnosis(s, same, terms):
            continue  # "起了荨麻疹": the hives (a symptom); "医生说是荨麻疹": the diagnosis
        c_start, c_end = s.clause(a)
        skip_after = _C_SKIP_AFTER.match(s.low[b:c_end]) and not _TEST_RESULT.match(s.low, b)
        treated = _C_TREATED_SELF.search(s.low, max(c_start, a - 6), a)  # "我一直在治痛风": the user's own
        if (_C_SKIP_BEFORE.search(s.low[max(c_start, a - 4) : a]) and not treated) or skip_after:
            continue
        if _inside_medicine(s, a, b):
            continue  # "感冒冲剂", "鼻炎喷雾": the medicine's name, no diagnosis
        if _hypothetical(s, a) or _UNSURE.search(s.low[c_start:a]):
            continue
        for draft in _condition_drafts(s, term, terms, ctx):
            key = (
                draft.section,
                normalize_name(draft.section, draft.name, draft.hint).key,
                draft.attributes.get("relative", ""),
            )
            if key not in seen:
                seen.add(key)
                drafts.append(draft)
    drafts += _family_too(s, terms, drafts)
    drafts += _self_not(s, terms, drafts)
    if not terms:
        drafts += _episode_over(s)
    if not any(d.section is Section.CHRONIC_CONDITIONS for d in drafts):
        drafts += _section_level(s, _C_UNSURE, _C_ABSENT, Section.CHRONIC_CONDITIONS, {})
    if not any(d.section is Section.FAMILY_HISTORY for d in drafts):
        # FamilyHistoryAttributes requires a relative; "other" stands for the whole family here.
        drafts += _section_level(s, _F_UNSURE, _F_ABSENT, Section.FAMILY_HISTORY, {"relative": "other"})
    return drafts


# The whole episode over, its diagnosis not named again ("疹子都消了", "已经彻底好了", "病好了",
# "痊愈了"): the acute diagnosis and the symptoms in focus (write/focus.py: named earlier in the
# fragment, else the current ones) are resolved. A part getting better is not the whole
# ("好多了", "好一点了"), nor a forecast ("过几天就全好了").
_EPISODE_OVER = re.compile(
    r"(?:全|都|完全|彻底|全部)(?:都|已经)?(?:好|消|退)(?:了|掉了|干净了|光了)|病(?:已经|都)?好了|痊愈了|康复了|好利索了"
)


def _episode_over(s: Sentence) -> list[Draft]:
    m = _EPISODE_OVER.search(s.low)
    if (
        m is None
        or not about_the_user(s, m.start())
        or _S_FORECAST.search(s.low[slice(*s.clause(m.start()))])
    ):
        return []
    if _negated(s, m.start(), window=2) or _C_STILL.search(s.low, m.start()):
        return []
    # of the complaint as much as of its diagnosis: "头疼，还有点发烧" / "现在感觉怎么样？" / "都好了"
    return [
        Draft(section, _span(s, *m.span()), status=FactStatus.RESOLVED, refers_to_focus=True)
        for section in (Section.REPORTED_DIAGNOSES, Section.SYMPTOMS)
    ]


_TITLE_AFTER = re.compile(r"先生|女士|小姐|老师|同学|教授|经理")
_ALSO = re.compile(r"[也都](?P<neg>没|不是)?(?:有|是|得过|得了|患有|一样)")
_SELF_NOT = re.compile(r"我(?:自己|本人)?(?:倒是|倒|却)?(?:没有|没|不是|没得)")


def _self_not(s: Sentence, terms: list[Term], drafts: list[Draft]) -> list[Draft]:
    """ "我妈妈有糖尿病，我自己没有": the user denies, for themselves, the disease just named."""
    out: list[Draft] = []
    for m in _SELF_NOT.finditer(s.low):
        c_start, c_end = s.clause(m.start())
        earlier = [t for t in terms if t.end <= c_start]
        if not earlier or any(c_start <= t.start < c_end for t in terms):
            continue
        term = earlier[-1]
        name = s.text[term.start : term.end]
        if not any(d.section is Section.FAMILY_HISTORY and d.name == name for d in drafts):
            continue  # only after a relative's disease
        chronic = bool(term.entry.extra.get("chronic"))
        out.append(
            Draft(
                Section.CHRONIC_CONDITIONS if chronic else Section.REPORTED_DIAGNOSES,
                _span(s, m.start(), m.end()),
                name=s.text[term.start : term.end],
                hint=_hint(term),
                status=FactStatus.ABSENT,
            )
        )
    return out


def _family_too(s: Sentence, terms: list[Term], drafts: list[Draft]) -> list[Draft]:
    """In "我有高血压，我妈也有" or "家里有糖尿病史，我奶奶和我爸都有" the relatives' clause names no
    disease: it repeats the one said before (by the user or of the family)."""
    out: list[Draft] = []
    for m in _ALSO.finditer(s.low):
        c_start, c_end = s.clause(m.start())
        earlier = [t for t in terms if t.end <= c_start]
        if not earlier or any(c_start <= t.start < c_end for t in terms):
            continue
        term = earlier[-1]
        said = [d for d in drafts if d.name == s.text[term.start : term.end]]
        relatives = [
            _RELATIVE_BY_WORD[p.group(0)]
            for p in _PERSON.finditer(s.low, c_start, m.start())
            if p.group(0) in _RELATIVE_BY_WORD
        ]
        if not said or not relatives or _who(s, m.start()).kind != "relative":
            continue
        out += [
            Draft(
                Section.FAMILY_HISTORY,
                _span(s, term.start, m.end()),
                name=s.text[term.start : term.end],
                hint=_hint(term),
                status=FactStatus.ABSENT if m.group("neg") else FactStatus.PRESENT,
                attributes={"relative": relative.value},
            )
            for relative in dict.fromkeys(relatives)
        ]
    return out


def _section_level(s: Sentence, unsure, absent, section: Section, attributes: dict) -> list[Draft]:
    for pattern, kind in ((unsure, AssertionKind.SECTION_UNSURE), (absent, AssertionKind.SECTION_ABSENT)):
        m = pattern.search(s.low)
        if m and _who(s, m.start()).kind in ("self", "family") and not _CONDITIONAL.search(s.low):
            return [Draft(section, _span(s, *m.span()), kind=kind, attributes=dict(attributes))]
    return []


# A message that opens with the user's own chronic condition before asking ("二型糖尿病，早餐吃什么
# 好？", "医生你好，哮喘，能打流感疫苗吗"): who they are, said first. Not a question about the disease
# itself ("糖尿病，会遗传吗", "乙肝，传染吗") and not a bare name with nothing after it.
_C_GREETING = re.compile(r"(?:[\s，,。!！]*(?:你好|您好|医生|大夫|在吗|请问|hi|hello))*[\s，,。!！]*")
_C_ABOUT_THE_DISEASE = re.compile(r"是什么|什么病|遗传|传染|区别|能治好|能根治|严重吗|危险吗")


def _c_introduces_self(s: Sentence, term: Term) -> bool:
    c_end = s.clause(term.start)[1]
    if not term.entry.extra.get("chronic") or not _C_GREETING.fullmatch(s.low, 0, term.start):
        return False
    if s.low[term.end : c_end].strip(_PUNCT) or not s.low[c_end:].strip(_PUNCT):
        return False
    return not _C_ABOUT_THE_DISEASE.search(s.low, term.end)


def _condition_drafts(s: Sentence, term: Term, terms: list[Term], ctx: Context) -> list[Draft]:
    a, b = term.start, term.end
    c_start, c_end = s.clause(a)
    name, hint = s.text[a:b], _hint(term)
    negated_to = _negated_after(s, b, terms)
    result = _TEST_RESULT.match(s.low, b)  # "X阳性", "乙肝检查是阴性", "已经转阴了"
    if result:
        negated_to = result.end() if result.group("result") == "阴性" else negated_to
    negated = _negated(s, a, window=5) or negated_to is not None
    who = _who(s, a, ctx.relative_in_focus)
    out: list[Draft] = []
    if who.kind in ("relative", "family") or _C_FAMILY_AFTER.match(s.low[b:c_end]):
        relative = who.relative or Relative.OTHER
        attributes: dict = {"relative": relative.value}
        age = _AGE_AT.search(s.low, c_start, a) or _onset_after(s, c_end)
        if age and not negated:
            n = zh_number(age.group(1))
            if n is not None and n <= 120:
                attributes["age_at_onset"] = n
        first = a
        for m in _PERSON.finditer(s.low, c_start, a):
            first = min(first, m.start())
        out.append(
            Draft(
                Section.FAMILY_HISTORY,
                _span(s, first, b),
                name=name,
                hint=hint,
                status=FactStatus.ABSENT if negated else FactStatus.PRESENT,
                attributes=attributes,
            )
        )
        if not who.self_too:
            return out
    elif who.kind == "other":
        return []
    said = _C_CUE.search(s.low) or _HIGH_LEVEL.fullmatch(s.low, a, b) or result
    if not (said or _c_introduces_self(s, term)):
        return out
    chronic = bool(term.entry.extra.get("chronic"))
    section = Section.CHRONIC_CONDITIONS if chronic else Section.REPORTED_DIAGNOSES
    rest = s.low[b:]
    if negated:
        status = FactStatus.ABSENT
    elif (
        (result and result.group("result").startswith("转阴"))
        or (_C_RESOLVED.search(rest) and not _C_STILL.search(rest))
        or _C_CHILDHOOD.search(s.low[c_start:a])
        or (not chronic and _C_PAST.search(s.low[c_start:c_end]))
    ):
        status = FactStatus.RESOLVED
    else:
        status = FactStatus.PRESENT
    normalized = normalize_name(section, name, hint)
    attributes = {"icd10": normalized.code} if normalized.code else {}
    since = _since(s.low[c_start:c_end], ctx.today) if status is FactStatus.PRESENT else None
    if since and chronic:
        attributes["since"] = since
    out.append(
        Draft(
            section,
            _span(s, a, negated_to or b),
            name=name,
            hint=hint,
            status=status,
            attributes=attributes,
            valid_from=since,
        )
    )
    return out


# --- symptoms -----------------------------------------------------------------------------------
_SITE_PAIN = re.compile(
    r"(?P<site>头|胃|肚子|腹部|牙齿|牙|腰|后背|背|嗓子|喉咙|胸口|胸|关节|耳朵|脖子|肌肉|膝盖|肩膀|腿|眼睛)"
    r"(?P<mid>(?:还|也|又|有点儿?|有些|有一点|一直|老是|老|总是|经常|时不时|特别|非常|很|好|挺|不|没有?|都|就|开始|再"
    r"|现在|已经|最近|这几天|这两天|这阵子|近来)*)(?:疼|痛)"
)
_SITE_KEY = {
    "头": "headache", "胃": "abdominal_pain", "肚子": "abdominal_pain", "腹部": "abdominal_pain",
    "牙": "toothache", "牙齿": "toothache", "腰": "back_pain", "后背": "back_pain", "背": "back_pain",
    "嗓子": "sore_throat", "喉咙": "sore_throat", "胸": "chest_pain", "胸口": "chest_pain",
    "关节": "joint_pain", "耳朵": "ear_pain", "脖子": "neck_pain", "肌肉": "muscle_pain",
    "膝盖": "knee pain", "肩膀": "shoulder pain", "腿": "leg pain", "眼睛": "eye pain",
}  # fmt: skip
_S_SKIP_BEFORE = re.compile(r"(?:治疗?|止|退|缓解|预防|防止?|对付|针对|为了|用于|一)$")
_S_SKIP_AFTER = re.compile(r"^(?:的)?(?:药|时|的时候|的话)")
# "查出血糖高": 出血 (bleeding) across a word, 血 begins 血糖
_S_BLOOD_WORD = re.compile(r"(?<=血)(?:糖|压|脂|常规|检|象|型|管|小板|红蛋白|氧)")
_S_RESOLVED = re.compile(
    r"(?<![没不])好了(?!一点|一些|点|些|很多|不少|许多)|已经好了|退了|消失了|止住了|痊愈|康复|没事了|不见了|没了|(?<![没不])消(?:了|退了|下去了|掉了)"
)
# The end of a complaint told in a clause of its own after it: "头疼得厉害 休息了一晚上才好", "发烧三天
# 吃了退烧药就好了", "后来好了", "现在已经好了" (not a forecast: "过几天就好了", "多喝水就好了").
_S_ENDED_LATER = re.compile(
    r"^(?:后来|现在|已经|终于|早就|都|全|基本(?:上)?|慢慢)*(?:已经|都|也)?(?:好了|没事了|好利索了|消了|退了|不[疼痛肿痒]了)"
    r"|了[^,，。!?\s]{0,8}?(?:就|才)好(?:了)?(?![^,，。!?\s])|^[^,，。!?\s]{0,6}(?:才|就)好了"
)
# (nor a pattern that recurs: "饿了就胃疼 一吃东西就好了", "每次吃了药就好了")
_S_FORECAST = re.compile(
    r"过(?:几|两|一|[\d])?[天周]|会|应该|可能|就会|估计|的话|每次|一般|通常|经常|每回|一[^,，。!?\s]{1,4}就"
)
# Swelling by the body part ("脚踝老是肿", "腿不肿了", "眼皮肿"); not a tumour (肿瘤, 肿块).
_SITE_SWELL = re.compile(
    r"(?P<site>脚踝|脚脖子|脚|腿|小腿|脸|眼皮|眼睛|手|手指|膝盖|关节)"
    r"(?P<mid>(?:还|也|又|有点儿?|有些|一直|老是|老|总是|经常|特别|很|好|都|就|开始|不|没有?|已经|消)*)肿(?!瘤|块|物)"
)
# A sore part said to be well again ("膝盖好了", "腰已经没事了"): its pain is over; not "好了一点"
# (a bit better), nor "好了以后" (once it is).
_SITE_BETTER = re.compile(
    r"(?P<site>头|胃|肚子|腰|后背|嗓子|喉咙|膝盖|肩膀|牙齿|牙|关节|脖子)(?:已经|也|都|全|基本|早就|现在)*"
    r"(?:好了|没事了)(?!一点|一些|点|些|很多|不少|多|以后|之后|再|就)"
)
_S_BACK = re.compile(r"又|再次|重新")
_S_NONE_AFTER = re.compile(r"(?:也|都|倒|就)?(?:没有|没)(?:过|了)?\s*(?:$|[,，。;；!！?？])")
_INJURY_WORDS = re.compile(r"扭伤|崴|骨折|摔|撞|韧带|拉伤|挫伤")
_DIAGNOSED = re.compile(
    r"说是|诊断|确诊|查出|得了|患(?:有|了)?|(?:医生|大夫|医师|医院|[\u4e00-\u9fff]{1,3}科)(?:看了|检查后)?(?:说|讲|认为)"
)
# A symptom said only by its verb, as ended: "已经不拉了", "不吐了", "烧退了", "不咳了".
_S_VERB_ENDED = re.compile(
    r"(?:已经|也|都|就|终于|现在)?(?:不(?:再)?|没(?:有)?再)(?P<verb>拉|泻|吐|烧|咳)(?:肚子)?了"
    r"|(?P<verb2>烧)(?:已经|也)?退(?:下去)?了|退(?P<verb3>烧)了|(?:已|已经)退(?P<verb4>热|烧)|(?P<verb5>热)(?:已经|也)?退了"
)
_S_VERB_KEY = {"拉": "腹泻", "泻": "腹泻", "吐": "呕吐", "烧": "发烧", "热": "发烧", "咳": "咳嗽"}
# ... and as going on: "还在拉", "还是吐", "一直咳个不停", "咳了五天了", "吐了两次" (not "还在吐槽",
# "还拉伸", "止咳")
_S_VERB_STILL = re.compile(
    r"(?:还|仍然|仍|一直|还是)(?:在|会|要|老|总)?(?P<verb>拉|泻|吐|咳)(?=$|[了呢着啊，。！？,.!?\s]|个不停|得)"
    r"|(?<![止镇])(?P<verb2>咳)(?=了|得|个不停|起来)|(?P<verb3>吐)(?=了(?:[一两三几好\d]+次|一晚上|一夜)|得)"
)
_S_STILL = re.compile(r"还没好|没好|没有好|不见好|一直不好|好不了|还没退|没退|还在|还是")
_S_SEVERITY = [
    (re.compile(r"剧烈|严重|厉害|受不了|要命|特别|非常|死了"), "severe"),
    (re.compile(r"有点|有些|一点|轻微|稍微|微微"), "mild"),
]
_ONSET = re.compile(
    rf"({_ZH_NUM}|半)\s*(?:个)?(天|星期|礼拜|周|月)(?:了|前|以来|来|多了)|(?:最近|这)({_ZH_NUM})\s*(?:个)?(天|星期|礼拜|周|月)"
)


def _burning_at(s: Sentence, start: int, end: int) -> bool:
    """ "有点烧 有时候就是那种隐隐的疼": a pain told as burning, not a fever (烧 alone said of a pain)."""
    if s.low[start:end] != "有点烧" or re.search(r"我|身上|发", s.low[:start]):
        return False  # "我有点烧 头也疼": the user's fever
    # a pain's words, or where it is ("心口这块 有点烧", answering "哪里疼？")
    return bool(re.search(r"疼|痛|胀|烧灼|辣|心口|胸口|胃|肚|这块|那块|位置|部位|喉咙|嗓子", s.low))


def burning_said_of_a_pain(s: Sentence, draft: Draft) -> bool:
    """The other rules' reading of "有点烧" in a sentence that tells of a pain (see ``_burning_at``)."""
    if draft.section is not Section.SYMPTOMS or not draft.name:
        return False
    at = s.low.find(draft.name)
    return at >= 0 and _burning_at(s, at, at + len(draft.name))


def _symptoms(s: Sentence, ctx: Context) -> list[Draft]:
    if "过敏" in s.low:
        return []  # "对青霉素过敏，会起疹子": the rash is the reaction, an attribute of the allergy
    conditions = _terms(("condition",), s)
    table = [
        t
        for t in _terms(("symptom",), s)
        if not any(t.inside(c) for c in conditions)
        and not _said_as_diagnosis(s, t, conditions)
        and not _burning_at(s, t.start, t.end)
    ]
    mentions: list[tuple[int, int, str, str]] = [(t.start, t.end, _hint(t), "") for t in table]
    if not _INJURY_WORDS.search(s.low):  # "扭伤了 脚踝肿得很高" after a sprain: the injury's sign
        swelling = next((t.entry.name("zh") for t in find_terms(("symptom",), "水肿")), "肿胀")
        for m in _SITE_SWELL.finditer(s.low):
            if not any(t.start < m.end() and m.start() < t.end for t in table):
                mentions.append((m.start(), m.end(), swelling, m.group("mid")))
    for m in _SITE_PAIN.finditer(s.low):
        if any(t.start < m.end() and m.start() < t.end for t in table) or any(
            c.start <= m.start() < c.end for c in conditions
        ):
            continue
        key = _SITE_KEY[m.group("site")]
        hint = next((t.entry.name("zh") for t in find_terms(("symptom",), key.replace("_", " "))), key)
        mentions.append((m.start(), m.end(), hint, m.group("mid")))
    ended = set()
    for m in _SITE_BETTER.finditer(s.low):
        if any(a < m.end() and m.start() < b for a, b, _, _ in mentions):
            continue
        key = _SITE_KEY[m.group("site")]
        hint = next((t.entry.name("zh") for t in find_terms(("symptom",), key.replace("_", " "))), key)
        ended.add((m.start(), m.end()))
        mentions.append((m.start(), m.end(), hint, ""))
    for m in [*_S_VERB_ENDED.finditer(s.low), *_S_VERB_STILL.finditer(s.low)]:
        if any(t.start < m.end() and m.start() < t.end for t in table) or any(
            a < m.end() and m.start() < b for a, b, _, _ in mentions
        ):
            continue  # "已经不拉肚子了": the table's name is read, with its own status
        verb = next(v for k, v in m.groupdict().items() if k.startswith("verb") and v)
        if m.re is _S_VERB_ENDED:
            ended.add((m.start(), m.end()))
        mentions.append((m.start(), m.end(), _S_VERB_KEY[verb], ""))
    drafts: list[Draft] = []
    seen: dict[str, int] = {}  # key -> index in drafts
    mentions.sort()
    endings = _endings(s, mentions)
    for index, (a, b, hint, mid) in enumerate(mentions):
        c_start, c_end = s.clause(a)
        if not _is_self(s, a) or _hypothetical(s, a):
            continue
        if ctx.others_before and not re.search(r"我", s.low[c_start:c_end]):
            continue  # "你儿子发烧吗？" / "发烧 38度": his fever, the user unnamed
        if _S_SKIP_BEFORE.search(s.low[max(c_start, a - 2) : a]) or _S_SKIP_AFTER.match(s.low[b:c_end]):
            continue
        if _inside_medicine(s, a, b) or _S_BLOOD_WORD.match(s.low, b):
            continue  # "咳嗽糖浆": the medicine's name, no symptom; "查出血糖高": no bleeding
        name = s.text[a:b]
        normalized = normalize_name(Section.SYMPTOMS, name, hint)
        earlier = seen.get(normalized.key)
        back = bool(_S_BACK.search(s.low[max(c_start, a - 3) : a] + mid))  # "今天又头疼了"
        if earlier is not None and drafts[earlier].status is not FactStatus.PRESENT and not back:
            continue
        rest = s.low[b:c_end]
        # what follows the complaint, up to the next one: "还没好" there keeps it going
        upto = next((x for x, y, _, _ in mentions[index + 1 :] if x >= c_end), len(s.text))
        negated = _negated(s, a, window=3) or bool(re.search(r"不|没|消", _masked(mid)))
        negated = negated or bool(_S_NONE_AFTER.match(rest))  # "咳嗽没有", "发烧倒没有"
        changed = bool(re.match(r"[了啦]", rest)) or bool(
            re.search(r"已经|不再|再也", s.low[max(c_start, a - 4) : a] + mid)
        )
        if (a, b) in ended:
            status = FactStatus.RESOLVED
        elif _S_STILL.search(s.low[b:upto]):
            status = FactStatus.PRESENT
        elif (negated and changed) or _S_RESOLVED.search(rest):
            status = FactStatus.RESOLVED
        elif negated:
            status = FactStatus.ABSENT
        elif any(e >= c_end for e in endings):
            status = FactStatus.RESOLVED  # "头疼得厉害 休息了一晚上才好"
        else:
            status = FactStatus.PRESENT
        if earlier is not None:
            # the same complaint said again further on tells how it is now ("脚踝老是肿 ... 现在腿不肿了",
            # "头疼好了 今天又疼了")
            if status is FactStatus.PRESENT and back:
                drafts[earlier].status = status
                drafts[earlier].span = _span(s, drafts[earlier].span[0], b)
            elif status is FactStatus.RESOLVED and drafts[earlier].status is FactStatus.PRESENT:
                drafts[earlier].status = status
                drafts[earlier].span = _span(s, drafts[earlier].span[0], b)
                drafts[earlier].attributes.pop("severity", None)
            continue
        seen[normalized.key] = len(drafts)
        attributes: dict = {}
        valid_from = None
        if status is FactStatus.PRESENT:
            clause = s.low[c_start:c_end]
            severity = next((v for pattern, v in _S_SEVERITY if pattern.search(clause)), None)
            if severity:
                attributes["severity"] = severity
            onset = _onset_days(clause)
            if onset is not None:
                attributes["onset_days_ago"] = onset
                if ctx.today is not None:
                    valid_from = date.fromordinal(ctx.today.toordinal() - onset).isoformat()
        if normalized.key.endswith("_pain") and " " in hint:
            attributes["body_site"] = hint.split()[0]
        elif site := pain_site(normalized.key):  # a site pain the table names whole ("膝盖疼")
            attributes["body_site"] = site
        drafts.append(
            Draft(
                Section.SYMPTOMS,
                _span(s, a, b),
                name=name,
                hint=hint,
                status=status,
                attributes=attributes,
                valid_from=valid_from,
            )
        )
    return drafts


def _said_as_diagnosis(s: Sentence, term: Term, conditions: list[Term]) -> bool:
    """A name both a symptom and a diagnosis (荨麻疹, hives or urticaria) is the diagnosis when the
    clause says it was diagnosed ("医生说是荨麻疹", "确诊荨麻疹"), else the symptom ("起了荨麻疹")."""
    if not any((c.start, c.end) == (term.start, term.end) for c in conditions):
        return False
    c_start = s.clause(term.start)[0]
    return bool(_DIAGNOSED.search(s.low, c_start, term.start))


def _endings(s: Sentence, mentions: list[tuple[int, int, str, str]]) -> list[int]:
    """Starts of the clauses that name no complaint and tell one is over ("休息了一晚上才好",
    "后来好了"); they end the complaints of the clauses before them."""
    out = []
    for start, end in _clauses(s):
        a, b = _trimmed(s, start, end)
        if a >= b or any(start <= x < end for x, _, _, _ in mentions):
            continue
        clause = s.low[a:b]
        if _S_ENDED_LATER.search(clause) and not _S_FORECAST.search(clause) and about_the_user(s, a):
            out.append(a)
    return out


def _onset_days(clause: str) -> int | None:
    m = _ONSET.search(clause)
    if m:
        number, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        n = 0.5 if number == "半" else zh_number(number)
        if n is None:
            return None
        days = {"天": 1, "星期": 7, "礼拜": 7, "周": 7, "月": 30}[unit]
        return int(n * days) if n * days <= 36_500 else None
    for word, days in (("前天", 2), ("昨天", 1), ("昨晚", 1), ("今天", 0), ("今早", 0)):
        if word in clause:
            return days
    return None


# --- surgeries ----------------------------------------------------------------------------------
_SURGERY_CUE = re.compile(
    r"手术|做过|做了|切除|切了|切掉|割了|割掉|摘除|摘了|摘掉|开刀|动过刀|开过刀|剖腹产|剖宫产|置换|搭桥|支架|拔了|拔掉|拔过|取出"
)
_SURGERY_FUTURE = re.compile(r"要做|要去做|将要|下个月|下周|明天|明年|后天|安排了|约了|排队")
_SURGERY_NONE = re.compile(
    r"(?:没|没有|从没|从来没有?|未)(?:做过|动过|开过|有过)(?:任何|什么)?(?:手术|刀)|无手术史|手术史[:：\s]*(?:无|没有)"
    r"|没有(?:任何)?手术史"
)


def _surgeries(s: Sentence, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    for term in _terms(("surgery",), s):
        c_start, c_end = s.clause(term.start)
        cue = _SURGERY_CUE.search(s.low, c_start, c_end)
        if cue is None or not _is_self(s, min(cue.start(), term.start)) or _hypothetical(s, term.start):
            continue
        if _SURGERY_FUTURE.search(s.low[c_start:c_end]) or re.match(
            r"(?:出生|生的)", s.low[term.end : term.end + 2]
        ):
            continue  # planned, or the way the user was born
        first = min(cue.start(), term.start)
        status = FactStatus.ABSENT if _negated(s, first, window=4) else FactStatus.PRESENT
        attributes: dict = {}
        when = _year_of(s.low[c_start:c_end], ctx.today) if status is FactStatus.PRESENT else None
        if when:
            attributes["year"] = int(when[:4])
            if len(when) > 4:
                attributes["date"] = when
        drafts.append(
            Draft(
                Section.SURGERIES,
                _span(s, first, max(term.end, cue.end())),
                name=s.text[term.start : term.end],
                hint=_hint(term),
                status=status,
                attributes=attributes,
                valid_from=when,
            )
        )
    if not drafts:
        m = _SURGERY_NONE.search(s.low)
        if m and _is_self(s, m.start()) and not _hypothetical(s, m.start()):
            drafts.append(Draft(Section.SURGERIES, _span(s, *m.span()), kind=AssertionKind.SECTION_ABSENT))
    return drafts


# --- vaccinations -------------------------------------------------------------------------------
# "前年打了流感疫苗", "新冠疫苗打过三针", "接种了HPV疫苗": a vaccine given to the user. The
# table's bare disease name ("流感") is a vaccine only with 疫苗/苗 after it ("得了流感 打了针" is none).
_VACCINE_GIVEN = re.compile(
    r"打了|打过|打完|打好了|打的|接种|种了|种过|注射了|已经打|都打|打了?[一两二三四\d]针"
)
_VACCINE_WORD = re.compile(r"疫苗|苗|加强针")
_VACCINE_NOT_YET = re.compile(
    r"还没(?:有)?(?:去)?(?:打|接种)|没(?:有)?(?:打|接种)过?|未(?:打|接种)|从来没|从没"
)


# Had, not given: "得了流感", "感染过乙肝"
_HAD_DISEASE = re.compile(r"(?:得|患|感染|染上|查出)(?:了|过)?[^，。,]{0,2}$")


def _given_right_by(s: Sentence, term: Term, cue: re.Match[str]) -> bool:
    """The vaccine's disease said right by the word for giving it ("去医院打了破伤风", "乙肝小时候
    打过", "九价hpv三针都打完了"): a shot of it, without 疫苗 after the name."""
    if _HAD_DISEASE.search(s.low, max(0, term.start - 5), term.start):
        return False
    if 0 <= term.start - cue.end() <= 1:  # "打了破伤风", "接种了 hpv"
        return True
    between = s.low[term.end : cue.start()]
    return 0 <= cue.start() - term.end <= 5 and "天" not in between  # "乙肝小时候打过", "hpv三针都打完"


def _vaccinations(s: Sentence, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    seen: set[str] = set()
    for term in _terms(("vaccine",), s):
        c_start, c_end = s.clause(term.start)
        cue = _VACCINE_GIVEN.search(s.low, c_start, c_end)
        if cue is None or term.entry.key in seen:
            continue
        if not _VACCINE_WORD.search(s.low, term.start, c_end) and not _given_right_by(s, term, cue):
            continue  # "得了流感 打了三天针": a flu treated, no vaccine
        first = min(cue.start(), term.start)
        if (
            not _is_self(s, first)
            or _hypothetical(s, term.start)
            or _SURGERY_FUTURE.search(s.low, c_start, c_end)
        ):
            continue
        seen.add(term.entry.key)
        negated = bool(_VACCINE_NOT_YET.search(_masked(s.low[c_start:c_end])))
        when = None if negated else _year_of(s.low[c_start:c_end], ctx.today)
        drafts.append(
            Draft(
                Section.VACCINATIONS,
                _span(s, first, max(term.end, cue.end())),
                name=s.text[term.start : term.end],
                hint=_hint(term),
                status=FactStatus.ABSENT if negated else FactStatus.PRESENT,
                attributes={"date": when} if when else {},
                valid_from=when,
            )
        )
    return drafts


# --- demographics -------------------------------------------------------------------------------
_AGE = re.compile(
    rf"(?P<lead>我|本人|今年|现在|已经|都|刚|才|快)?(?:今年|现在|已经|刚满|满|都)?(?P<n>{_ZH_NUM})\s*(?:周)?岁"
    r"(?P<tail>了|啦)?(?!时|的时候|那年|以前|之前|开始|起|多|左右|的[^，。]?(?:孩子|女儿|儿子|人|时候))"
)
_BIRTH = re.compile(r"(?P<y>(?:19|20)\d{2})\s*年\s*(?:出生|生)|出生(?:于|在)?\s*(?P<y2>(?:19|20)\d{2})\s*年?")
_HEIGHT = [
    re.compile(
        r"身高(?:是|有|大概|大约|约)?[:：\s]*(?P<v>\d{3}(?:\.\d)?|\d\.\d{1,2})\s*(?P<u>厘米|公分|cm|米|m(?![a-z]))?"
    ),
    re.compile(r"(?P<v>\d{3}(?:\.\d)?)\s*(?P<u>厘米|公分|cm)"),
    re.compile(r"(?P<m>[一1])\s*米\s*(?P<d1>[\d一二三四五六七八九])(?P<d2>[\d一二三四五六七八九零])?"),
    re.compile(r"(?P<v>1\.\d{1,2})\s*(?P<u>米|m(?![a-z]))"),
]
_WEIGHT = re.compile(
    r"(?P<lead>体重|重)?(?:是|有|大概|大约|约|现在|目前)?[:：\s]*"
    r"(?P<v>\d{2,3}(?:\.\d)?|[一二两三四五六七八九十百]{2,5})\s*(?P<u>公斤|千克|kg|斤)"
)
_WEIGHT_CHANGE = re.compile(r"(?:减|瘦|胖|长|涨|增加|掉|重|少|多|降|轻)了?$")
_SEX = [
    re.compile(r"(?:我是|本人)(?:一[个名位])?(?P<sex>女|男)(?:的|生|性|士|人|孩子?)"),
    re.compile(r"性别[:：\s]*(?:是)?(?P<sex>女|男)"),
    re.compile(r"\d{1,3}\s*岁(?:的)?(?P<sex>女|男)(?:性|士|生)"),  # "55岁女性"
]
_SEX_ALONE = re.compile(r"(?:我是)?(?P<sex>女|男)(?:性|的)?")
_CITIES = (
    "北京 上海 广州 深圳 天津 重庆 成都 杭州 武汉 南京 西安 苏州 长沙 郑州 青岛 沈阳 大连 "
    "厦门 济南 哈尔滨 昆明 福州 合肥 长春 石家庄 南宁 贵阳 南昌 太原 兰州 乌鲁木齐 呼和浩特 "
    "海口 三亚 宁波 无锡 佛山 东莞 珠海 温州 香港 澳门 台北 高雄 拉萨 银川 西宁 烟台 洛阳 "
    "扬州 常州 徐州 绍兴 嘉兴 金华 泉州 中山 惠州 汕头 桂林 新加坡 吉隆坡 东京 纽约 伦敦 "
    "悉尼 温哥华 多伦多 洛杉矶 旧金山 莫斯科 巴黎 首尔"
)
_CITY = re.compile(
    r"(?:(?:我|本人|我们|我家)(?:现在|目前|一直|现)?(?:住在|住|生活在|定居在|定居|居住在|在)|(?:住在|生活在|定居在|居住在)"
    r"|(?:现在|目前)(?:住在|在)|搬到了?|搬去了?)"
    r"(?P<city>"
    + "|".join(sorted(_CITIES.split(), key=len, reverse=True))
    + r"|(?![大小])[\u4e00-\u9fff]{2,3}(?<![城超菜夜])(?=市))市?"
    r"(?!出差|旅游|旅行|玩|度假|出生|开会|看病|住院|的时候|读书的时候)"
)
# "我是重庆的", "我是上海人", "本人北京人": a known city the user says they are from (not "我是北京大学的").
_CITY_FROM = re.compile(
    r"(?:我是|本人是?|我们是|我家是)(?:土生土长的)?(?P<city>"
    + "|".join(sorted(_CITIES.split(), key=len, reverse=True))
    + r")(?:本地)?(?:的|人)(?![\u4e00-\u9fff]{0,2}(?:大学|学校|医院|公司|学生|员工|户口))"
)
_CITY_PAST = re.compile(r"(?:以前|之前|小时候|曾经|过去)$")
_PREGNANCY = [
    (re.compile(r"(?:没有|没|不是|并没有)(?:怀孕|孕妇)|未孕"), "not_pregnant"),
    (re.compile(r"哺乳|喂奶|母乳喂养|喂母乳"), "breastfeeding"),
    (
        re.compile(
            rf"怀孕(?:了|中)?(?:{_ZH_NUM}|半)?(?:个)?(?:多)?(?:周|月|星期)?|孕{_ZH_NUM}周|孕(?:早|中|晚)期|孕妇"
            r"|有身孕|怀上了|怀了(?:宝宝|孩子|二胎|老二)"
        ),
        "pregnant",
    ),
]
_PREGNANCY_SKIP = re.compile(r"备孕|怀孕(?:的时候|时|期间|以前|之前)|想怀孕|打算怀孕|计划怀孕|流产|生完|产后")


def _demographics(s: Sentence, ctx: Context) -> list[Draft]:
    if ctx.others_before and "我" not in s.low:
        return []  # "孩子几岁了？" / "三岁": the child's age
    found = (_age(s, ctx), _height(s), _weight(s), _sex(s), _pregnancy(s), _city(s))
    return [d for d in found if d is not None]


def _demo(s: Sentence, a: int, b: int, name: str, hint: str, attributes: dict) -> Draft | None:
    """The user's own value, stated as a fact; "我家住在北京" is the user's city too."""
    who = _who(s, a)
    if not (who.kind == "self" or (hint == "city" and who.kind == "family")) or _hypothetical(s, a):
        return None
    span = _span(s, a, b)
    if span[1] - span[0] < 2:
        span = _trimmed(s, 0, len(s.text))  # "女，35岁": a lone "女" quotes the whole profile
    return Draft(
        Section.DEMOGRAPHICS,
        span,
        name=name,
        hint=hint,
        status=FactStatus.PRESENT,
        attributes=attributes,
    )


def _age(s: Sentence, ctx: Context) -> Draft | None:
    m = _BIRTH.search(s.low)
    if m:
        year = int(m.group("y") or m.group("y2"))
        return _demo(s, m.start(), m.end(), s.text[m.start() : m.end()], "birth_year", {"birth_year": year})
    if ctx.today is None:
        return None  # an age means nothing without the day it was said
    for m in _AGE.finditer(s.low):
        c_start, c_end = s.clause(m.start())
        said = m.group("lead") or m.group("tail") or "我" in s.low[c_start : m.start()]
        alone = s.low[c_start:c_end].strip(_PUNCT) == s.low[m.start("n") : m.end()]  # "女，35岁"
        if not (said or alone) or _who(s, m.start()).kind != "self":
            continue
        age = zh_number(m.group("n"))
        if age is not None and 1 <= age <= 120:
            name = s.text[m.start("n") : m.end()]
            return _demo(s, m.start(), m.end(), name, "birth_year", {"birth_year": ctx.today.year - age})
    return None


def _height(s: Sentence) -> Draft | None:
    for pattern in _HEIGHT:
        m = pattern.search(s.low)
        if not m:
            continue
        groups = m.groupdict()
        if groups.get("m"):
            d1 = zh_number(m.group("d1")) or 0
            d2 = zh_number(m.group("d2")) if m.group("d2") else 0
            cm = 100.0 + d1 * 10 + (d2 or 0)
        else:
            value = float(m.group("v"))
            cm = value * 100 if value < 3 else value
        if 50 <= cm <= 250:
            return _demo(
                s, m.start(), m.end(), s.text[m.start() : m.end()], "height_cm", {"height_cm": round(cm, 1)}
            )
    return _height_beside_weight(s)


# "175，80公斤左右", "70kg，165": a bare number beside the weight is the height in centimetres.
_BARE_HEIGHT = re.compile(
    r"(?<![\d.])(?P<v>1[3-9]\d|2[0-2]\d)(?![\d.]|\s*(?:岁|斤|公斤|千克|kg|次|天|元|块|分|个|年|月|号|mm|ml|毫|克|g))"
)
_HEIGHT_GAP = re.compile(r"[\s，,、/]*(?:左右)?[\s，,、/]*")


def _height_beside_weight(s: Sentence) -> Draft | None:
    weight = _WEIGHT.search(s.low)
    if weight is None:
        return None
    for m in _BARE_HEIGHT.finditer(s.low):
        if m.start() < weight.end() and weight.start() < m.end():
            continue  # inside the weight ("体重150斤")
        before = m.end() <= weight.start()
        gap = s.low[m.end() : weight.start()] if before else s.low[weight.end() : m.start()]
        if not _HEIGHT_GAP.fullmatch(gap):
            continue
        name = s.text[m.start() : m.end()]
        return _demo(s, m.start(), m.end(), name, "height_cm", {"height_cm": float(m.group("v"))})
    return None


def _weight(s: Sentence) -> Draft | None:
    for m in _WEIGHT.finditer(s.low):
        if not m.group("lead") and _WEIGHT_CHANGE.search(s.low[max(0, m.start() - 3) : m.start()]):
            continue  # "瘦了5公斤" is a change, not the weight
        value = float(m.group("v")) if m.group("v")[0].isdigit() else float(zh_number(m.group("v")) or 0)
        if m.group("u") == "斤":
            value /= 2  # 1 斤 is half a kilogram
        if 20 <= value <= 350:
            return _demo(
                s,
                m.start(),
                m.end(),
                s.text[m.start("v") : m.end()],
                "weight_kg",
                {"weight_kg": round(value, 1)},
            )
    return None


def _sex(s: Sentence) -> Draft | None:
    values = {"女": "female", "男": "male"}
    for pattern in _SEX:
        m = pattern.search(s.low)
        if m:
            return _demo(
                s, m.start(), m.end(), s.text[m.start() : m.end()], "sex", {"sex": values[m.group("sex")]}
            )
    for start, end in _clauses(s):  # a profile written as "女，35岁，北京"
        a, b = _trimmed(s, start, end)
        m = _SEX_ALONE.fullmatch(s.low, a, b)
        if m:
            return _demo(s, a, b, s.text[a:b], "sex", {"sex": values[m.group("sex")]})
    return None


def _trimmed(s: Sentence, start: int, end: int) -> tuple[int, int]:
    while start < end and s.text[start] in _PUNCT:
        start += 1
    while end > start and s.text[end - 1] in _PUNCT:
        end -= 1
    return start, end


def _clauses(s: Sentence) -> list[tuple[int, int]]:
    out, pos = [], 0
    while pos < len(s.text):
        start, end = s.clause(pos)
        out.append((start, end))
        pos = max(end + 1, pos + 1)
    return out


def _city(s: Sentence) -> Draft | None:
    m = _CITY.search(s.low) or _CITY_FROM.search(s.low)
    if not m or _CITY_PAST.search(s.low[s.clause(m.start())[0] : m.start()]):
        return None
    city = s.text[m.start("city") : m.end("city")]
    return _demo(s, m.start(), m.end(), city, "city", {"city": city})


def _pregnancy(s: Sentence) -> Draft | None:
    if _PREGNANCY_SKIP.search(s.low):
        return None
    for pattern, value in _PREGNANCY:
        m = pattern.search(s.low)
        if m:
            return _demo(
                s, m.start(), m.end(), s.text[m.start() : m.end()], "pregnancy", {"pregnancy": value}
            )
    return None


# --- lifestyle ----------------------------------------------------------------------------------
_SMOKE = r"(?:抽|吸)烟"
_ZH_SPAN = rf"(?:(?:好|有)?(?:几|{_ZH_NUM}|半)(?:个)?(?:多)?(?:年|月|个月))"
_SMOKING = [
    # a quit that did not take is smoking still: "烟总是戒不了", "戒了几次烟都没戒掉", "戒烟戒不下来"
    (
        re.compile(
            r"烟[^,，。\s]{0,3}?戒不(?:掉|了|下来)|戒不(?:掉|了)烟|戒烟[^。]{0,8}?戒不(?:掉|了|下来)"
            r"|戒(?:了)?(?:好|很)?(?:几|多|两|三)次烟(?:都|也)?没(?:有)?戒(?:掉|成|下来)"
        ),
        FactStatus.PRESENT,
    ),
    (
        re.compile(
            rf"(?:已经|早就|早已|已)戒(?:了)?烟|戒了烟|戒烟(?:[^，。]{{0,6}})?了|烟(?:已经|早就)?戒了|不(?:再)?{_SMOKE}了"
            rf"|(?:以前|之前|曾经|过去)(?:也)?(?:抽|吸)(?:过)?烟|戒烟(?:{_ZH_NUM}|半)(?:个)?(?:多)?(?:年|月)"
            # "五年没抽了", "好几年没抽烟了", "已经不抽了": off for a while now
            rf"|{_ZH_SPAN}(?:都|也)?没(?:有)?再?(?:抽|吸)(?:过)?(?:烟)?了|{_ZH_SPAN}(?:都|也)?不(?:抽|吸)(?:烟)?了"
            r"|(?:已经|早就|早)不(?:再)?(?:抽|吸)了"
            # a quit under way: "这个月开始戒烟", "戒烟两周了", "一根烟都没再抽"
            rf"|开始戒烟|戒烟(?:已经)?(?:{_ZH_NUM}|几|半)(?:个)?(?:多)?(?:天|周|星期|礼拜)"
            r"|一(?:根|支)(?:烟)?(?:都|也)?没(?:有)?(?:再)?(?:抽|吸|碰)|一口烟(?:都|也)?没(?:有)?(?:抽|吸)"
        ),
        FactStatus.STOPPED,
    ),
    (
        re.compile(
            rf"(?:从来|从)?不{_SMOKE}|从来没(?:有)?(?:抽|吸)过烟|没(?:有)?(?:抽|吸)过烟|烟(?:也|都)?不(?:抽|吸)|烟酒不沾|不烟不酒"
        ),
        FactStatus.ABSENT,
    ),
    (
        re.compile(
            rf"{_SMOKE}|(?:抽|吸)[^，。不没]{{1,4}}?烟|烟民|烟瘾"
            # the object first: "酒戒了，烟还在抽", "烟一直没戒"
            r"|烟(?:还|也|却|倒是|一直|每天|天天|仍然|照样|还是)+在?(?:抽|吸)(?![不没])"
            r"|烟(?:还|也|却|倒是|一直)?没(?:有)?戒(?:掉|成)?"
        ),
        FactStatus.PRESENT,
    ),
]
_SMOKE_AMOUNT = re.compile(
    rf"(?P<half>半)包|(?P<packs>{_ZH_NUM})包|(?P<n>{_ZH_NUM})(?:根|支)(?:烟)?|(?P<vape>电子烟)"
)
_DRINK = r"(?:喝|饮)(?:点)?(?:啤|白|红|葡萄|黄)?酒"
_ALCOHOL = [
    (
        re.compile(
            rf"(?:已经|早就)?戒(?:了)?酒|酒(?:已经|早就)?戒了|不(?:再)?{_DRINK}了|不再{_DRINK}|(?:以前|之前|曾经)(?:也)?{_DRINK}"
            # "一年没喝了", "两年没喝酒了", "已经不喝了"
            rf"|{_ZH_SPAN}(?:都|也)?没(?:有)?再?(?:喝|碰)(?:过)?(?:酒)?了|{_ZH_SPAN}(?:都|也)?不喝(?:酒)?了"
            r"|(?:已经|早就|早)不(?:再)?喝了"
        ),
        FactStatus.STOPPED,
    ),
    (
        re.compile(
            rf"(?:从来|从|基本上?|几乎)?不{_DRINK}|滴酒不沾|烟酒不沾|不烟不酒|酒(?:也|都)?(?:基本上?|几乎)?不喝|从来不喝"
            r"|没(?:有)?喝过酒"
        ),
        FactStatus.ABSENT,
    ),
    (re.compile(rf"{_DRINK}|酗酒|酒量"), FactStatus.PRESENT),
]
_ALCOHOL_HOW = [
    (re.compile(r"周末"), "weekends"),
    (re.compile(r"每天|天天|每晚"), "daily"),
    (re.compile(r"偶尔|有时|很少|不怎么|应酬|聚会|节日"), "occasionally"),
    (re.compile(r"经常|常常|很多|大量|酗酒"), "regularly"),
]
_DIET = [
    (
        re.compile(r"(?:不再|不)(?:吃素|素食)了|(?:以前|之前|曾经)(?:吃素|素食)|开始吃肉了?"),
        FactStatus.STOPPED,
        "vegetarian",
    ),
    (re.compile(r"纯素|严格素食|全素|不吃任何动物(?:性)?(?:食品|产品)"), FactStatus.PRESENT, "vegan"),
    (re.compile(r"吃素|素食|不吃肉"), FactStatus.PRESENT, "vegetarian"),
    (re.compile(r"不吃猪肉"), FactStatus.PRESENT, "no pork"),
    (re.compile(r"清真"), FactStatus.PRESENT, "halal"),
    (re.compile(r"生酮"), FactStatus.PRESENT, "keto"),
    (re.compile(r"无麸质|不吃麸质"), FactStatus.PRESENT, "gluten-free"),
    (re.compile(r"轻断食|间歇性断食"), FactStatus.PRESENT, "intermittent fasting"),
]
_ACTIVITY = [
    (
        re.compile(r"(?:不怎么|不太|不常|几乎不|基本不|不|很少|从不|没有?|没怎么)(?:运动|锻炼|健身)"),
        FactStatus.ABSENT,
        "none",
    ),
    (re.compile(r"跑步|慢跑|夜跑|晨跑"), FactStatus.PRESENT, "running"),
    # ball games and other sports played as a habit ("每周打两次篮球", "周末踢足球")
    (re.compile(r"篮球"), FactStatus.PRESENT, "basketball"),
    (re.compile(r"足球|踢球"), FactStatus.PRESENT, "football"),
    (re.compile(r"羽毛球"), FactStatus.PRESENT, "badminton"),
    (re.compile(r"乒乓球"), FactStatus.PRESENT, "table tennis"),
    (re.compile(r"网球"), FactStatus.PRESENT, "tennis"),
    (re.compile(r"排球"), FactStatus.PRESENT, "volleyball"),
    (re.compile(r"骑行|骑自行车|骑车锻炼"), FactStatus.PRESENT, "cycling"),
    (re.compile(r"爬山|登山|徒步"), FactStatus.PRESENT, "hiking"),
    (re.compile(r"广场舞|跳舞|太极(?:拳)?"), FactStatus.PRESENT, "dancing or tai chi"),
    (re.compile(r"游泳"), FactStatus.PRESENT, "swimming"),
    (re.compile(r"瑜伽"), FactStatus.PRESENT, "yoga"),
    (re.compile(r"健身房|健身|撸铁|举铁"), FactStatus.PRESENT, "gym"),
    (re.compile(r"锻炼|运动"), FactStatus.PRESENT, "exercise"),
    # sitting all day: no exercise ("天天坐办公室", "久坐", "整天宅在家")
    (
        re.compile(
            r"久坐|(?:天天|每天|整天|成天|一天到晚|一整天)(?:都|就)?(?:坐|宅)(?:着|在)?(?:办公室|电脑前|家里?)?"
            r"|坐办公室|宅在家"
        ),
        FactStatus.ABSENT,
        "sedentary",
    ),
]
# "基本不动", "不怎么动", "很少动": no exercise, but only as an answer about it (a limb "不动" is no habit)
_NO_MOVING = re.compile(
    r"(?:基本(?:上)?|几乎|平时|平常)?(?:不怎么|很少|基本不|几乎不|不爱|懒得)动|基本(?:上)?不动"
)
_PER_WEEK = re.compile(
    r"(?:每周|一周|每星期|每个星期|一个星期)[^，。]{0,4}?(\d|[一两二三四五六七])(?:[到至~-]?(\d|[两二三四五六七]))?次"
)
# "看篮球比赛", "玩足球游戏": no sport played
_WATCHING = re.compile(r"(?:看|观看|追|玩)(?:了|过)?(?:场|会儿?)?$")


def _lifestyle(s: Sentence, ctx: Context) -> list[Draft]:
    return _smoking(s, ctx) + _vaping(s) + _alcohol(s) + _diet(s) + _activity(s, ctx) + _coffee(s) + _sleep(s)


# "每天两杯咖啡", "咖啡减到一天一杯" (less is still coffee), "不喝咖啡", "咖啡戒了".
_COFFEE_STOPPED = re.compile(
    r"戒(?:了|掉)?咖啡|咖啡(?:已经|早就)?戒(?:了|掉)|不(?:再)?喝咖啡了|咖啡(?:已经)?不喝了"
)
_COFFEE_ABSENT = re.compile(r"(?:从来|从)?不(?:怎么)?喝咖啡|咖啡(?:也|都|从来)?不喝|没(?:有)?喝过咖啡")
_COFFEE_CUPS_A_DAY = re.compile(rf"(?P<day>一天|每天|天天|一日|每日)[^，。]{{0,4}}?(?P<n>{_ZH_NUM}|半)杯")
_COFFEE_CUPS = re.compile(rf"(?P<day>)(?P<n>{_ZH_NUM}|半)杯")


def _coffee(s: Sentence) -> list[Draft]:
    m = re.search(r"咖啡", s.low)
    if not m:
        return []
    stopped = _COFFEE_STOPPED.search(s.low)
    if stopped:
        return _habit(s, stopped.start(), stopped.end(), "coffee", FactStatus.STOPPED, "former")
    absent = _COFFEE_ABSENT.search(s.low)
    if absent:
        return _habit(s, absent.start(), absent.end(), "coffee", FactStatus.ABSENT, "no")
    if not re.search(r"喝|杯", s.low):
        return []  # "咖啡因过敏", "少喝咖啡" as advice: no habit said
    value = "yes"
    cups = _COFFEE_CUPS_A_DAY.search(s.low) or _COFFEE_CUPS.search(s.low)
    if cups:
        n = zh_number(cups.group("n")) if cups.group("n") != "半" else None
        count = f"{n}" if n else "half a"
        value = f"{count} cup{'' if count in ('1', 'half a') else 's'}{' a day' if cups.group('day') else ''}"
    elif re.search(r"减少|少喝|减到|降到", s.low):
        value = "reduced"
    drafts = _habit(s, m.start(), m.end(), "coffee", FactStatus.PRESENT, value)
    for d in drafts:
        d.name = "coffee"
    return drafts


# How long the user sleeps: "每天只睡五六个小时", "一晚上睡不到6小时", "睡眠大概7小时".
ZH_SLEEP_HOURS = re.compile(
    r"睡(?:眠|觉)?(?:时间)?(?:了|也就|只有|只|就|大概|差不多|才|不到|不够|最多|都)*"
    rf"(?P<n>{_ZH_NUM}(?:[到至~-]?{_ZH_NUM})?|[一两二三四五六七八九十]{{2}})(?:个)?(?:多)?(?:小时|钟头)"
)


def _sleep(s: Sentence) -> list[Draft]:
    m = ZH_SLEEP_HOURS.search(s.low)
    if m is None:
        return []
    drafts = _habit(s, m.start(), m.end(), "sleep", FactStatus.PRESENT, f"{zh_sleep_hours(m)} hours")
    for d in drafts:
        d.name = "sleep"
    return drafts


def zh_sleep_hours(m: re.Match[str]) -> str:
    """ "五六" -> "5-6", "6" -> "6", "不到6" keeps the number said."""
    said = m.group("n")
    if said.isdigit():
        return said
    parts = [p for p in re.split(r"[到至~-]", said) if p]
    if len(parts) == 1 and len(said) == 2 and said not in ("十一", "十二") and not said.startswith("十"):
        parts = list(said)  # "五六": five or six
    numbers = [zh_number(p) for p in parts]
    return "-".join(str(n) for n in numbers if n is not None) or said


_VAPE = re.compile(r"电子烟|雾化烟")
_VAPE_STOPPED = re.compile(r"戒(?:了)?(?:掉)?电子烟|电子烟(?:已经|早就)?戒了|不(?:再)?(?:抽|吸|用)电子烟了")


def _vaping(s: Sentence) -> list[Draft]:
    """ "不抽烟，但是抽电子烟": vaping is its own habit (key vaping), never the smoking one."""
    m = _VAPE.search(s.low)
    if not m:
        return []
    stopped = _VAPE_STOPPED.search(s.low)
    if stopped:
        return _habit(s, stopped.start(), stopped.end(), "vaping", FactStatus.STOPPED, "former")
    if _negated(s, m.start(), window=3):
        return _habit(s, m.start(), m.end(), "vaping", FactStatus.ABSENT, "no")
    value = "all day" if re.search(r"一整天|整天|一天到晚|不离手|随时", s.low) else "yes"
    return _habit(s, m.start(), m.end(), "vaping", FactStatus.PRESENT, value)


def _habit(s: Sentence, a: int, b: int, hint: str, status: FactStatus, value: str, **dates) -> list[Draft]:
    """The user's own habit, stated as a fact ("吃头孢不能喝酒" is advice, not a habit)."""
    if not _is_self(s, a) or _hypothetical(s, a) or _MED_BLOCK.search(s.low[s.clause(a)[0] : a + 2]):
        return []
    return [
        Draft(
            Section.LIFESTYLE,
            _span(s, a, b),
            name=s.text[a:b],
            hint=hint,
            status=status,
            attributes={"value": value},
            **dates,
        )
    ]


def _smoking(s: Sentence, ctx: Context) -> list[Draft]:
    if "二手烟" in s.low:
        return []
    for pattern, status in _SMOKING:
        m = pattern.search(s.low)
        if not m:
            continue
        if "电子" in s.low[max(0, m.start() - 2) : m.end()]:
            return []  # "抽电子烟": the vaping habit, not smoking
        end, value = m.end(), "yes"
        if status is FactStatus.PRESENT:
            c_start = s.clause(m.start())[0]
            c_end = min(len(s.text), m.end() + 12)  # "我抽烟，一天一包": the amount may follow a comma
            amount = _SMOKE_AMOUNT.search(s.low, c_start, c_end)
            if amount:
                end = max(end, amount.end())
                value = _smoke_value(amount)
            elif re.search(r"偶尔|有时|不怎么|很少", s.low[c_start:c_end]):
                value = "occasionally"
            start = min(m.start(), amount.start() if amount else m.start())
            return _habit(s, start, end, "smoking", status, value)
        if status is FactStatus.STOPPED:
            if _QUIT_LATER.search(s.low, *s.clause(m.start())):
                return []  # "下周开始戒烟": a quit to come, not yet a stop
            when = _year_of(s.low, ctx.today)
            return _habit(s, m.start(), end, "smoking", status, "former smoker", valid_to=when)
        return _habit(s, m.start(), end, "smoking", status, "no")
    return []


_QUIT_LATER = re.compile(r"明天|后天|下周|下个月|明年|过几天|过两天|以后|将来|要开始|马上")


def _smoke_value(m: re.Match[str]) -> str:
    if m.group("vape"):
        return "e-cigarettes"
    if m.group("half"):
        return "half a pack a day"
    if m.group("packs"):
        n = zh_number(m.group("packs"))
        return "pack a day" if n == 1 else f"{n} packs a day"
    return f"{zh_number(m.group('n'))} cigarettes a day"


def _alcohol(s: Sentence) -> list[Draft]:
    for pattern, status in _ALCOHOL:
        m = pattern.search(s.low)
        if m:
            how = (
                next((v for p, v in _ALCOHOL_HOW if p.search(s.low)), None)
                if status is FactStatus.PRESENT
                else None
            )
            value = how or ("yes" if status is FactStatus.PRESENT else "no")
            return _habit(s, m.start(), m.end(), "alcohol", status, value)
    return []


def _diet(s: Sentence) -> list[Draft]:
    for pattern, status, value in _DIET:
        m = pattern.search(s.low)
        if m:
            if status is FactStatus.PRESENT and value == "vegetarian" and _negated(s, m.start(), window=1):
                status = FactStatus.ABSENT  # "我不吃素"
            return _habit(s, m.start(), m.end(), "diet", status, value)
    return []


def _activity(s: Sentence, ctx: Context) -> list[Draft]:
    if Section.LIFESTYLE in ctx.asked and not re.search(r"运动|锻炼|健身", s.low):
        m = _NO_MOVING.search(s.low)
        if m:  # "平时运动吗？" / "基本不动，天天坐办公室"
            return _habit(s, m.start(), m.end(), "physical_activity", FactStatus.ABSENT, "sedentary")
    for pattern, status, value in _ACTIVITY:
        m = pattern.search(s.low)
        if m and _WATCHING.search(s.low[max(0, m.start() - 4) : m.start()]):
            continue
        if m:
            per_week = _PER_WEEK.search(s.low)
            if per_week and status is FactStatus.PRESENT:
                times = "-".join(str(zh_number(n)) for n in per_week.groups() if n)
                value = f"{value}, {times} times a week"
            return _habit(s, m.start(), m.end(), "physical_activity", status, value)
    return []
