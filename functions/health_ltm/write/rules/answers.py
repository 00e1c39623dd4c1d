"""Answers read against their question: "Any allergies?" / "No" -> allergies confirmed absent.

The assistant's question supplies the subject (a section, or the entities it names: "Any fever
or chills?"); the user's words affirm, deny, say "don't know" or name things ("Just a baby
aspirin", "Only on weekends"). Only the user's words are evidence; the question is kept as
``context_evidence`` and the assertion is marked ``answer_to_question`` (or
``confirmed_restatement`` when the assistant summarised and the user said "yes, that's right").
The assistant's words alone never make a fact: a YES adds only what the question names, and a
NO to a question about something *new* or *other* ("Any new medications?") says nothing about
the whole section.

Used by the rule extractor for each user turn that follows an assistant question, and for a
user turn that opens with its own topic ("из лекарств — только витамин D и магний").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from itertools import pairwise

from ...domain.attributes import Relative
from ...domain.models import AssertionKind, EvidenceKind, Experiencer
from ...domain.sections import SECTIONS_WITH_STATUS, FactStatus, Section
from ...domain.text import CJK, fold_in_place
from ..dialogue import AnswerShape, answer_shape, carried_topic, last_question, rest_after_marker
from ..normalize import Term, find_terms, kinds_for, normalize_name, word_set
from .allergies import REMEDY_TAKEN
from .allergies import _reaction as allergy_reaction
from .chinese import ZH_HE_SHE, zh_dose, zh_number, zh_relative, zh_relatives, zh_sleep_hours
from .chinese import _city as zh_city
from .chinese import _med_details as zh_med_details
from .chinese import _reaction as zh_reaction
from .chinese import _who as zh_who
from .cities import city_nominative
from .conditions import (
    STILL_HAVE,
    chronic_form,
    denied_in_answer,
    family_relative,
    mention,
    verdict_said_bare,
    visit_before,
)
from .dates import find_date, parse_number
from .demographics import _city as demographics_city
from .events import SITE_FINE, event_date
from .lifestyle import HABIT_REDUCED, coffee_value, sleep_value
from .medication_details import DOSE, ROUTES, _dose_match, details
from .medications import EXCEPT
from .objects import _FUNCTION_WORDS as FUNCTION_WORDS
from .objects import _VAGUE as VAGUE
from .text import (
    NEGATION,
    NOW_WORDS,
    NOW_WORDS_ZH,
    RELATIVE,
    RELATIVE_BY_WORD,
    SENTENCE_STOP,
    TAKEN_BACK_FOR,
    THIRD_PARTY,
    Context,
    Draft,
    Sentence,
    hypothetical,
    rx,
    split_sentences,
    third_party_before,
)

_YEAR_OF_BIRTH = "year_of_birth"  # the demographic slot of a question that asks for the year itself
_TOPICS: list[tuple[Section, str | None, re.Pattern[str]]] = [
    (
        Section.ALLERGIES,
        None,
        rx(
            r"allerg|аллерг|непереносим|intoleran|reaction\w*\s+to\s+(?:any\s+)?(?:med|drug|antibiotic)|过敏"
            # "Ever reacted poorly to any medications?"
            r"|\breact(?:ed|s)?\s+(?:\w+\s+)?to\s+(?:any\s+)?(?:med|drug|antibiotic)"
            # "На лекарства реакций не было?", "реакции на препараты?"
            r"|реакци\w*\s+(?:\w+\s+)?на\s+(?:\w+\s+)?(?:лекарств|препарат|антибиотик)"
            r"|\bна\s+(?:\w+\s+)?(?:лекарств|препарат|антибиотик)\w*\s+(?:\w+\s+){0,2}?реакци"
            # "Какие-то лекарства вызывали реакцию?", "Any bad reactions to antibiotics?", "有药物不良反应吗"
            r"|\b(?:вызывал\w*|вызвал\w*|давал\w*|дал\w*)\s+(?:\w+\s+)?реакци|\breactions?\s+(?:to|from)\b"
            r"|\breact(?:ed)?\s+badly\b|不良反应|药物反应"
        ),
    ),
    (
        Section.MEDICATIONS,
        None,
        rx(
            r"\bmedication|\bmedicine|\bmeds\b|\bpills?\b|\bdrugs?\b(?!\s+use)|prescri|supplement|vitamin"
            r"|\b(?:take|taking)\s+(?:any|anything)|\b(?:use|take|using|taking)\s+for\s+(?:it|that|this|them)\b"
            r"|\bчем\s+(?:лечите|лечитесь|снимаете)|\bчто\s+(?:принимаете|пьете|пьёте)\b|лекарств|препарат|таблет|принимаете|пьёте\s+что|пьете\s+что"
            r"|какие-то\s+средства|吃药|用药|服用|什么药|药物|在吃|用的药|吃的药"
            r"|的药(?:呢|吗)|药呢"  # "血脂的药呢？"
            # "Anything else you take?", "Which inhaler?", "还用什么喷剂？"
            r"|\banything\s+else\s+(?:that\s+)?(?:you\s+|do\s+you\s+)?(?:take|use)\b|\bwhat\s+else\s+do\s+you\s+(?:take|use)\b"
            r"|\binhalers?\b|\bingalers?\b|ингалятор|吸入剂|喷剂|喷雾剂"
            # "What do you take?", "What are you on?"
            r"|\bwhat\s+(?:do|did|are|else\s+do)\s+you\s+(?:take|taking|use|using|on)\b(?!\s+(?:it|that|this|them)\s+for)|\bare\s+you\s+on\s+anything\b"
        ),
    ),
    (
        Section.CHRONIC_CONDITIONS,
        None,
        rx(
            r"chronic|medical\s+(?:conditions?|problems?|history|issues?|illness\w*)|health\s+(?:problems?"
            r"|conditions?|issues?)|past\s+medical|(?:any|other)\s+(?:diseases?|illness\w*|conditions?)"
            r"|хронич|заболевани|болезн|болеете\s+чем|чем\s+(?:вы\s+)?болеете|慢性病|病史|什么病|基础病|健康问题|身体问题"
            # "Any long-term conditions?", "ongoing health issues?", "有长期的病吗？"
            r"|(?:long[-\s]?(?:term|standing|lasting)|lifelong)\s+(?:medical\s+|health\s+)?"
            r"(?:conditions?|problems?|issues?|illness\w*|diseases?|diagnos\w*)"
            # but "ongoing problems with the knee?" is about the knee
            r"|ongoing\s+(?:(?:medical|health)\s+(?:conditions?|problems?|issues?)|conditions?|illness\w*|diseases?)"
            r"|\bdiagnosed\s+with\s+anything\b|长期(?:的)?(?:病|疾病|健康问题|毛病)|慢性(?:的)?(?:疾病|毛病)"
        ),
    ),
    (
        Section.FAMILY_HISTORY,
        None,
        rx(
            r"\bfamily\b|relatives|\bparents\b|runs?\s+in|семь|родствен|родител|наследствен|家族|家里人|家人"
            r"|父母|遗传|家里有人|家里谁|亲属"
        ),
    ),
    # "any history of surgical procedures?", "any procedures done?"
    (
        Section.SURGERIES,
        None,
        rx(
            r"surger|surgical|operation|operated|\bprocedures?\s+(?:done|in\s+the\s+past)"
            r"|\bany\s+(?:other\s+)?procedures\b|операц|оперир|手术"
        ),
    ),
    (
        Section.VACCINATIONS,
        None,
        rx(r"vaccin|immuni[sz]|\bshots?\b|\bjabs?\b|прививк|привит|привива|вакцин|疫苗"),
    ),
    (
        Section.LIFESTYLE,
        "smoking",
        rx(r"\bsmok|tobacco|cigar|vape|\bкур(?:ите|ишь|ение|ил|ят)|курени|сигарет|抽烟|吸烟|烟"),
    ),
    (
        Section.LIFESTYLE,
        "alcohol",
        rx(
            r"\bdrink(?:s|ing)?\b(?!\s+(?:water|coffee|tea|milk|juice|fluids))|alcohol|beer|wine|liquor"
            r"|алкогол|спиртн|выпиваете|пьете\s+(?:ли\s+)?(?:алкоголь|вино|пиво)|喝酒|饮酒|酒"
        ),
    ),
    (Section.LIFESTYLE, "physical_activity", rx(r"exercis|work\s+out|sports?\b|спорт|физическ|运动|锻炼")),
    (Section.LIFESTYLE, "coffee", rx(r"coffee|caffeine|espresso|кофе|咖啡")),
    # "How many hours do you sleep?": only an answer that says the hours is kept (``_sleep_answer``)
    (Section.LIFESTYLE, "sleep", rx(r"\bsleep|\bспите\b|\bспишь\b|\bсон\b|\bсна\b|睡")),
    (
        Section.DEMOGRAPHICS,
        "birth_year",
        rx(r"how\s+old|your\s+age|^\W*age\b|сколько\s+вам\s+(?:полных\s+)?лет|возраст|多大|几岁|年龄"),
    ),
    # "Ваш год рождения?", "What year were you born?": the answer is a year, "94й" or "88" as well
    # as "1994", never an age
    (
        Section.DEMOGRAPHICS,
        _YEAR_OF_BIRTH,
        rx(
            r"\byear\s+(?:were\s+you|you\s+were)\s+born|\bwhen\s+were\s+you\s+born|\bborn\s+in\s+what\s+year"
            r"|\b(?:birth\s*year|year\s+of\s+(?:your\s+)?birth|date\s+of\s+birth|dob)\b"
            r"|\bгод\w*\s+рождени|\bдат\w*\s+рождени|\bкакого\s+(?:вы\s+)?года\b|\bв\s+каком\s+году\s+(?:вы\s+)?родил"
            r"|\bкогда\s+(?:вы\s+)?родил|哪年出生|出生年"
        ),
    ),
    (Section.DEMOGRAPHICS, "pregnancy", rx(r"pregnan|expecting|беремен|怀孕|哺乳|breastfe|кормите\s+грудью")),
    # "Рост и вес?", "How tall are you?", "身高体重多少？": the numbers of the answer
    (Section.DEMOGRAPHICS, "height_cm", rx(r"\bheight\b|\bhow\s+tall\b|\bрост\b|身高|多高")),
    (
        Section.DEMOGRAPHICS,
        "weight_kg",
        rx(r"\bweigh(?:t|s)?\b|\bhow\s+heavy\b|\bвес\b|\bвесите\b|\bсколько\s+весите|体重|多重"),
    ),
    # "What city do you live in?", "В каком городе вы живёте?", "您现在在哪个城市？": the answer names it
    (
        Section.DEMOGRAPHICS,
        "city",
        rx(
            r"\b(?:which|what)\s+(?:city|town)\b|\bwhere\s+(?:do\s+you\s+live|are\s+you\s+(?:based|from|living))"
            r"|\bв\s+каком\s+городе\b|\bгде\s+(?:вы\s+)?(?:живете|живёте|проживаете)\b|\bиз\s+какого\s+города\b"
            r"|哪个城市|哪座城市|什么城市|住在哪|在哪(?:里|儿)?(?:生活|住|工作)"
        ),
    ),
    # "Where is your pain located?", "Где болит?", "哪里疼？": the answer's body site is where it hurts
    (
        Section.SYMPTOMS,
        "pain_site",
        rx(
            r"\bwhere(?:'s|\s+is|\s+does|\s+do|\s+exactly)\s+(?:\w+\s+){0,2}?(?:pain|hurt|ache)\w*|\bwhere\s+does\s+it\s+hurt"
            r"|\bгде\s+(?:именно\s+|у\s+вас\s+)?(?:болит|боль)|\bчто\s+(?:именно\s+)?болит"
            r"|哪里疼|哪儿疼|哪里痛|哪儿痛|(?:什么|哪个)(?:部位|位置)(?:疼|痛)"
        ),
    ),
    (
        Section.SYMPTOMS,
        None,
        rx(
            r"symptom|what\s+brings\s+you|bothering\s+you|беспоко(?:ит|ят)|жалоб|症状|哪里不舒服"
            # "How are you feeling?", "Как вы себя чувствуете?": the answer is how the user is now
            r"|\bhow\s+(?:are|have)\s+you\s+(?:been\s+)?feeling\b(?!\s+about)|\bhow\s+do\s+you\s+feel\b(?!\s+about)"
            r"|\bкак\s+(?:вы\s+)?(?:себя\s+)?(?:сейчас\s+)?чувствуете\b|\bкак\s+(?:ваше\s+)?самочувстви"
        ),
    ),
]
# "Have you tried anything for it?", "Пробовали что-нибудь?", "试过什么办法吗？": what was taken for
# the complaint; a no says nothing about the whole section.
_TRIED = rx(
    r"\btr(?:y|ied|ying)\s+(?:any|anything|something|some|what)\b|\bwhat\s+(?:have|did)\s+you\s+(?:tried|try)\b"
    r"|\bwhat\s+(?:helps|have\s+you\s+(?:done|used|taken))\b|\b(?:done|used|taken)\s+anything\s+for\b"
    r"|\bпробовал\w*\b|\bпопробовал\w*\b|\bчем\s*-?\s*(?:нибудь|то)?\s*(?:лечил\w*|снимал\w*|мазал\w*)"
    r"|\bчто\s*-?\s*(?:нибудь|то)?\s*(?:принимал\w*|пил\w*|делал\w*)\b|\bчто\s+помогает\b"
    r"|试过|用过什么|吃过什么|吃了什么|用了什么|怎么处理|处理过"
)
# Remedies that are no drug: "ibuprofen, ice, rest", "нурофен, покой".
_NOT_A_DRUG = word_set(
    "ice icing rest resting heat heating pad pads massage massages stretching stretches stretch physio "
    "physiotherapy yoga sleep sleeping water compress compresses brace bandage tape exercise exercises "
    "walking cold warm hot bath baths shower elevation elevating nothing helps help helped works "
    "лед лёд льдом покой отдых тепло грелка грелку массаж компресс компрессы растирание зарядка упражнения "
    "бандаж ортез сон ванна ванну душ помогает помогло помог "
    # a form, not a name: "нурофен, мазь", "some cream"
    "ointment cream creams lotion spray drops painkillers мазь мази мазью крем кремом гель гелем спрей капли "
    "обезболивающее обезболивающие таблетки таблетку "
    # what the pills are for, not their name: "давление повышенное, пью таблетки"
    "давление давления давлением сахар сахара холестерин холестерина pressure sugar cholesterol"
)
# "Any NEW medications?", "any OTHER conditions?": a no says nothing about the whole section.
_PARTIAL = rx(
    r"\b(?<!old\sor\s)(?:new|recent(?:ly)?|other|else|changes?|additional|more|lately|today|currently\s+new)\b"
    r"|\b(?:новы[ехй]|нов\w+|друг\w+|ещё|еще|кроме|недавно|сейчас\s+новы)\b|其他|别的|新的|最近|还有"
    r"|\bbefore\s+(?:this|that|the|it)\b|\bprior\s+to\b|\bдо\s+(?:этого|этой|того)\b|之前"
    r"|[\u4e00-\u9fff]{2,4}的药(?:呢|吗)"  # "血压的药呢？" / "没吃": no drug for that, not none at all
)
_BEFORE = rx(r"\bbefore\s+(?:this|that|the|it)\b|\bprior\s+to\b|\bдо\s+(?:этого|этой|того)\b|之前")
# "pins and needles as a result of this back pain?": the back pain is presupposed, not asked about.
_PRESUPPOSED = rx(r"(?:\b(?:this|that|these|those|the|your)\s+|\bэт(?:от|а|у|ой|им)\s+|\bваш\w*\s+|这个)$")
# The assistant summarises and asks for a yes: "So you take ...?", "..., right?", "Верно?".
_RESTATEMENT = rx(
    r"^\s*(?:so|okay,?\s+so|just\s+to\s+confirm|to\s+confirm|let\s+me\s+confirm|you\s+said|you\s+mentioned"
    r"|итак|значит|правильно\s+ли\s+я\s+понял\w*|вы\s+сказали|то\s+есть|所以|也就是说|您是说|你是说)\b"
    r"|,?\s*правильно\s+(?:ли\s+)?(?:я\s+)?понима\w*\s*[?？]?\s*$"
    r"|(?:,\s*|\s)(?:right|correct|is\s+that\s+right|is\s+that\s+correct|верно|правильно|да)\s*[?？]\s*$"
    r"|(?:对吗|是吗|对吧)\s*[?？]?\s*$"
)
_OR_ANYTHING_ELSE = rx(
    r"\b(?:or|и|или)\s+(?:anything|something|any\s+others?|что-(?:то|нибудь|либо))\s+(?:else|ещё|еще|другое)\b"
    r"|或者?其他|等等"
)
_ABOUT_OTHERS = rx(
    r"\b(?:any\s?one|any\s?body|some\s?one|some\s?body|household|people\s+around\s+you"
    r"|your\s+(?:husband|wife|partner|kids?|children|son|daughter|friends?|roommates?|parents|mother|father|mom|dad))\b"
    r"|\bкто-(?:нибудь|то|либо)\b|\bкто\s+из\b|\bваш\w*\s+(?:муж|жена|дети|ребен\w*)\b|家里有人|有人|你家人"
    r"|(?:你|您)(?:的|家)?(?:儿子|女儿|孩子|宝宝|小孩)|(?<![生怀带])宝宝"
)
# "Has she been vomiting?", "Is his cough productive?": a question about someone else.
# 他 inside a drug name (阿托伐他汀) is not "he"
_THIRD_PERSON = rx(
    rf"\b(?:he|she|hes|shes|his|her|him|hers)\b|\b(?:он|она|его|её|ее|него|неё|нее|ему|ей)\b|{ZH_HE_SHE}"
)
# Who the assistant's questions are about across turns: a consultation about a child ("宝宝多大了？"
# / "五个月" / "咳嗽几天了？" / "三天了，有痰") goes on asking about the child with no one named.
_ASKS_OF_A_CHILD = rx(
    r"宝宝|孩子|小孩|宝贝|小朋友|患儿|儿子|女儿|孙子|孙女"
    r"|\byour\s+(?:little\s+)?(?:baby|child|kid|son|daughter|toddler|little\s+one)\b|\bthe\s+baby\b"
    r"|\b(?:ваш\w*\s+)?(?:ребен\w*|ребён\w*|малыш\w*)|\bваш\w*\s+(?:сын\w*|доч\w*)"
)
# he or she, but not "его"/"её", which is as often the drug ("А назначили его из-за чего?")
_ASKED_OF_HIM = rx(rf"\b(?:he|she|hes|shes|him|his|her|он|она)\b|{ZH_HE_SHE}")
_ASKS_THE_USER = rx(
    r"\b(?:you|yourself|вы|вас|вам|i|me|я|мне|меня)\b|(?:你|您)(?!好|的?(?:儿子|女儿|孩子|宝宝|爸|妈|家))|我"
)


def asked_of(question_text: str, subjects: list[Subject], before: str | None) -> str | None:
    """Whom the assistant's question asks about: "child" (a child: "宝宝多大了？", "How old is your
    son?", or no one named in a question after such a one), "other" (someone else: "How is your
    husband?", "Has she had a fever?"), "self" (the user named), or None (no one named).
    ``subjects``: the question's (read_question); ``before``: whom the previous question asked of."""
    low = fold_in_place(question_text)
    family = any(s.section is Section.FAMILY_HISTORY and s.terms for s in subjects)
    if _ASKS_OF_A_CHILD.search(low):
        return "child"
    if _ASKS_THE_USER.search(low):
        return "self"  # "Для чего вы его принимаете?": the user, "его" the drug
    if _ASKED_OF_HIM.search(low) or ((_ABOUT_OTHERS.search(low) or THIRD_PARTY.search(low)) and not family):
        return "other"  # but "Does your mom have diabetes?" asks the family history, not about her care
    # a consultation about a child goes on about the child; a passing "How's your husband?" does not
    return before if before == "child" else None


_EXAMPLES = rx(
    r"\(|\bsuch\s+as\b|\blike\b|\be\.?g\.?|\bнапример\b|\bтаки[ех]\s+как\b|比如|例如|像|这类|之类|这样的|这种|等"
    # "any of these chronic conditions: …", "有没有以下慢性病：…", "什么…这些": a list of the section's
    r"|\bany\s+of\s+(?:these|the\s+following)\b|\bthe\s+following\b|\bиз\s+(?:этого|следующ\w*)|\bследующ\w*|以下|这些"
    r"|\s[—–]\s"  # "Хронические заболевания — щитовидка, давление, диабет?"
)
_QUESTION_MARK = re.compile(r"[?？]")
_STILL = rx(r"\bstill\b|\bдо\s+сих\s+пор\b|\bвсё\s+ещё\b|\bвсе\s+еще\b|\bпо-прежнему\b|还在|仍然")
# A topic the user opens with ("из лекарств —", "as for medications,", "药的话，").
_TOPIC_OPENER = rx(
    r"^\s*(?:из\s+лекарств|по\s+лекарствам|что\s+касается\s+(?:лекарств|аллерги\w*|операци\w*)|из\s+аллерги\w*"
    r"|as\s+for\s+(?:medications?|meds|allergies|surgeries)|medication-wise|meds-wise|药的话|过敏的话)\s*[-—–:,]?\s*"
)
_ITEM_SPLIT = re.compile(r",|;|\s+(?:и|или|а\s+также|and|or|plus|as\s+well\s+as)\s+|\s*[/&+、，和及]\s*")
_ITEM_LEAD = rx(
    r"^(?:(?:just|only|only\s+a|a|an|the|my|some|also|and|plus|и|а\s+также|плюс|baby|low-?dose|daily|just\s+a"
    r"|только|лишь|разве\s+что"
    r"|ещё|еще|также|тоже|иногда|sometimes|occasionally|usually|mostly|mainly|daily|every\s+day"
    r"|i\s+take|i'm\s+on|i\s+am\s+on|i\s+use|принимаю|пью|на|to|from|只有|只|就|还有|吃"
    # "пила цитрамон", "took some advil", "tried tylenol": a verb before the name
    r"|пил[аи]?|выпил[аи]?|попил[аи]?|принимал[аи]?|пробовал[аи]?|мазал[аи]?|мажу|took|tried|used|had"
    r"|i\s+(?:took|tried|used|had)|i've\s+(?:tried|taken|used|been\s+taking)|been\s+taking|taking|using)\s+)+"
)
_NOT_A_NAME = word_set(
    "yes no yeah nope just only that's thats it its it's that all thanks thank you sure okay ok well um uh "
    "hmm maybe type тип "
    "да нет ну вроде только всё все это так спасибо кажется наверное may be pretty much nothing else "
    "anything night morning evening day daily week weekends weekend sometimes occasionally usually know "
    "утром вечером днем днём ночью утро вечер ночь сном обед обеда завтрака ужина bedtime "
    "think remember aware any none sure idea thing things stuff anymore really they them their there here "
    "this that these those one two three four five six seven eight nine ten some many much more most also "
    "again still then when what which who how why where because about after before since while with "
    "он она они оно это эти тот та там тут здесь потом сейчас пока тоже ещё еще раз два три "
    # words that amend an answer ("wait, actually penicillin", "ой, точнее пыль")
    "wait actually oops sorry correction rather except хотя точнее вернее стоп погоди подожди вообще-то "
    "кроме "
    # a take-back is no name ("scratch that" stored an allergy to "scratch")
    "scratch strike forget ignore nevermind забудь забудьте отбой "
    # what a drug did ("Лазолван пила неделю, толку никакого, бросила"): no drug's name
    "толку толк толка смысла пользы эффекта результата "
    # when it is taken ("витамин д 2000 ме, зимой"): no drug's name
    "зимой летом весной осенью зима лето winter summer spring autumn fall иногда изредка редко часто "
    "выходным выходные праздникам "
    # how much or what kind, no drug's name ("Over the counter medications", "Lots of it", "A little,
    # yeah", "some Russian medicine")
    "over little lots lot russian chinese herbal natural regular usual normal mild severe slight "
    # what a no is said with ("None whatsoever.", "No, thankfully.", "нет, слава богу"): no name
    "whatsoever thankfully luckily fortunately hopefully honestly seriously definitely absolutely certainly "
    "sir maam ma'am doc doctor god слава богу счастью абсолютно совершенно доктор"
)
_ALCOHOL_HOW = [
    (
        rx(r"weekend|fridays?\b|saturdays?\b|по\s+выходным|на\s+выходных|по\s+пятницам|по\s+субботам|周末"),
        "weekends",
    ),
    (
        rx(
            r"every\s+(?:day|night)|daily|nightly|most\s+(?:nights|days|evenings)|каждый\s+(?:день|вечер)|ежедневно|每天|每晚"
        ),
        "daily",
    ),
    (
        rx(
            r"social|occasional|rarely|once\s+in\s+a\s+while|every\s+once|sometimes|a\s+little|a\s+bit"
            r"|not\s+(?:that\s+|very\s+)?often|(?:one|two|a\s+few|\d+)\s+(?:drinks?\s+)?(?:a|per)\s+(?:week|month)"
            r"|редко|иногда|по\s+праздникам|немного|нечасто|не\s+(?:так\s+)?часто|偶尔"
            r"|(?:一|每)(?:周|星期|礼拜|个月|月)(?:[一两二三几]{1,2})次"  # "一周一两次": once or twice a week
        ),
        "occasionally",
    ),
    (rx(r"a\s+lot|heav|много|часто|经常"), "regularly"),
    (
        rx(
            r"glass|bottle|beer|wine|pints?\b|\bshots?\b|\bdrinks?\b|бокал|пив|вин|рюмк|杯|啤酒|红酒|白酒|葡萄酒"
        ),
        "yes",
    ),
]
_SMOKE_HOW = rx(
    r"(?:half\s+)?an?\s+pack|\d+\s*(?:packs?|cigarettes?)|pack\s+a\s+day|(?:пол)?пачк\w*|\d+\s+сигарет\w*"
    r"|\b(?:[а-я]+|one|two|three|four|five|six|seven|eight|ten|a\s+few|a\s+couple(?:\s+of)?)\s+(?:сигарет\w*|cigarettes?|cigs?)"
    r"(?:\s+(?:в|a|per)\s+(?:день|сутки|day))?"
    r"|一天一包|半包|\d+\s*根"
    # "Do you smoke?" / "no more than 2 a day"
    r"|\b\d+(?:-\d+)?\s+(?:a|per)\s+day\b|\b\d+(?:-\d+)?\s+в\s+день\b"
)
_QUIT = rx(
    r"\bquit|stopped|used\s+to|gave\s+up|former|бросил\w*|раньше|завязал\w*|戒了|以前"
    # "not anymore", "not since my stroke", "уже нет", "больше не курю", "不抽了"
    r"|\bnot\s+(?:any\s*more|since)\b|\bno\s+longer\b|\bno\s+more\b(?!\s+than)|\bуже\s+нет\b|\bбольше\s+не\b|\bуже\s+не\b"
    r"|不再|已经不|不(?:抽|喝)了"
)
# A drug named in an answer is stopped only where a trigger reaches it (ConText-style direction):
# "used to"/"раньше"/"以前" act forward, on the names after them; "stopped it"/"бросил его" act
# backward, on the name before them; "stopped"/"бросил" with no pronoun acts forward ("stopped
# taking X"), or backward when no name follows ("atorvastatin, stopped last year").
_QUIT_FORWARD = rx(r"used\s+to|former(?:ly)?|previously|раньше|прежде|когда-то|以前|之前|曾经|过去")
_QUIT_VERB = rx(
    r"\b(?:quit|stopped|gave\s+up|came\s+off)|(?:бросил|перестал|завязал|отменил)\w*|停了|戒了|不吃了|停药"
)
_BACK_REFERENCE = rx(r"\s*(?:taking\s+)?(?:it|them|that|его|её|ее|их|это|它|了)\b")
_LIST_GLUE = rx(r"[\s,;、，/+&-]*(?:and|or|и|или|а\s+также|плюс|和|还有|以及)?[\s,;、，/+&-]*")
_NOW = rx(rf"\b{NOW_WORDS}\b|{NOW_WORDS_ZH}")


def _stopped_in_answer(low: str, spans: list[tuple[int, int]], index: int, previous: bool | None) -> bool:
    """Whether the ``index``-th name of an answer (``spans``, in order) is a drug the user no
    longer takes. ``previous``: the verdict on the name before, inherited across a bare list."""
    a, b = spans[index]
    start = spans[index - 1][1] if index else 0
    pre = low[start:a]
    sentence = SENTENCE_STOP.search(pre)
    while sentence:  # only this sentence's words before the name
        pre = pre[sentence.end() :]
        sentence = SENTENCE_STOP.search(pre)
    forward = list(_QUIT_FORWARD.finditer(pre))
    if forward and not _NOW.search(pre, forward[-1].end()):  # "used to take A, now only B"
        return True
    for verb in _QUIT_VERB.finditer(pre):
        if not _BACK_REFERENCE.match(pre, verb.end()):  # "stopped it, B": "it" is the name before
            return True
    end = spans[index + 1][0] if index + 1 < len(spans) else len(low)
    post = low[b:end]
    sentence_end = SENTENCE_STOP.search(post)
    post = post[: sentence_end.start()] if sentence_end else post
    last = index + 1 >= len(spans)
    for verb in _QUIT_VERB.finditer(post):
        if _BACK_REFERENCE.match(post, verb.end()) or last:
            return True
    return bool(index and previous and _LIST_GLUE.fullmatch(pre))  # "I used to take A, B and C"


@dataclass(frozen=True)
class Subject:
    section: Section
    slot: str | None = None  # lifestyle habit or demographic slot the question asks about
    terms: tuple[Term, ...] = ()  # entities the question names ("any fever or chills?")
    relative: Relative | None = None  # "Does your mother have ...?"
    whole_section: bool = True  # the question asks about the section itself, not only the named terms


@dataclass
class Question:
    text: str  # the asking sentence, verbatim from the assistant's turn
    subjects: list[Subject] = field(default_factory=list)
    partial: bool = False  # asks about something new/other: a no is not about the whole section
    restatement: bool = False
    topic_text: str = ""  # the sentence the subjects were read from, when not ``text`` ("And you?")
    # "How is your cough?": asks how a symptom on record is doing; only "gone" answers it (a "no
    # better" must not deny the cough)
    asks_how: bool = False

    @property
    def topic(self) -> str:
        """The asking sentence that names the subject; the terms' positions are in it."""
        return self.topic_text or self.text


def read_question(text: str) -> Question:
    carried = carried_topic(text)
    if carried is None:
        question = _read_question(text)
        return question if question.subjects else _elliptic(text, question)
    # "Any chronic illness in the family?" / ... / "And you yourself?": the earlier question's
    # topic, asked about the user.
    earlier, follow_up = carried
    question = _read_question(earlier, about_the_user=True)
    question.topic_text, question.text, question.restatement = question.text, follow_up, False
    return question


_ASKED_APART = re.compile(r"(?<=[?？])\s*|(?<=[吗呢])\s+(?=[\u4e00-\u9fff])")  # "抽烟喝酒吗 家族里有人…吗"


def _questions_apart(asked: str) -> list[str]:
    """The questions of a turn that asks two or more, each its own, that do not ask about the family."""
    parts = [p for p in _ASKED_APART.split(asked) if p.strip()]
    if len(parts) < 2:
        return []
    family = _TOPIC_OF[(Section.FAMILY_HISTORY, None)]
    own, after_family = [], False
    for part in parts:
        low = fold_in_place(part)
        if family.search(low) or RELATIVE.search(low):
            after_family = True
        elif not (after_family and (_GOES_ON_ASKING.match(low) or _bare_examples(part))):
            own.append(
                part
            )  # but "У родственников диабет был? А инфаркты?", "… family history? Migraines or cancer?"
    return own


# Names alone, asked after the family question ("Migraines or cancer?"): its examples, not the user's
_EXAMPLE_GLUE = rx(r"[\W_]*(?:(?:or|and|any|like|или|и|ли|或者|或|还是|和|等)[\W_]+)*")


def _bare_examples(part: str) -> bool:
    terms = find_terms(("condition", "symptom"), part)
    if not terms:
        return False
    cursor = 0
    for term in sorted(terms, key=lambda t: t.start):
        if term.start < cursor:
            continue
        if not _EXAMPLE_GLUE.fullmatch(fold_in_place(part[cursor : term.start])):
            return False
        cursor = term.end
    return bool(_EXAMPLE_GLUE.fullmatch(fold_in_place(part[cursor:])))


_GOES_ON_ASKING = rx(r"\W*(?:а|и|или|and|or|what\s+about|how\s+about|那|还有)\b|\W*(?:那|还有)")


# A short topic-less question ("Есть ли на что-то?", "Any?", "有吗？") after the turn's own topic
# sentence ("Начнём с аллергий.", "Now, allergies.", "先说过敏。"): the question is about that topic.
_ELLIPTIC = rx(
    r"^\W*(?:а\s+|and\s+|so\s+|ну\s+)?(?:есть\s+ли|есть|были\s+ли|бывает|any|anything|have\s+you\s+got\s+any"
    r"|do\s+you\s+have\s+any|is\s+there|有没有|有吗|有)(?:\s*(?:у\s+вас|на\s+что-?\w*|что-?\w*|какие-?\w*"
    r"|что\s+(?:нибудь|либо)|at\s+all|of\s+them|something|anything|什么|吗|呢))*\W*$"
)


_ALCOHOL_WORD = rx(r"alcohol|beer|wine|liquor|booze|алкогол|спиртн|пиво|вино|酒")


def _elliptic(text: str, question: Question) -> Question:
    asked = question.text
    low = fold_in_place(asked)
    if not _ELLIPTIC.match(low) or len(asked.split()) > 6:
        return question
    before = text[: text.rfind(asked)] if asked in text else ""
    intro = [p for p in re.split(r"(?<=[.!])\s+|(?<=[。！])\s*", before.strip()) if p.strip()]
    if not intro:
        return question
    topical = _read_question(intro[-1])
    if not topical.subjects or topical.partial:
        return question
    question.subjects, question.topic_text = topical.subjects, topical.text
    return question


# A question put in the negative, to be confirmed: "So you're not on any medications?", "You don't
# smoke, right?", "Вы не курите?", "您不抽烟吧？": a yes to it is a no
_NEGATED_QUESTION = rx(
    r"\b(?:you'?re|you\s+are)\s+not\b|\byou\s+(?:don'?t|do\s+not|haven'?t|have\s+not|never)\b"
    r"|\b(?:вы|ты)\s+не\b|^\W*(?:а\s+)?не\s+(?:курите|пь[её]те|принимаете|болеете)\b|(?:您|你)(?:不|没)"
    # "No past medical history?", "No allergies, right?", "Аллергии нет?"
    r"|^\W*no\s+(?:\w+\s+){0,3}?(?:history|allerg\w*|medications?|meds|surger\w*|problems|conditions)\b"
    r"|^\W*(?:аллергии|лекарств|операций|хронических\s+заболеваний)\s+нет\b"
    # "没有发热，对吗？", "所以没有呕吐、黑便，是吧": a summary of what is not, tagged for a yes
    r"|^\W*(?:那|所以|也就是说)?(?:也|都)?(?:没有|没|无)(?!有没)[^？?]*(?:对吗|是吗|对吧|是吧|吧)\W*$"
)


_TAKEN_FOR = rx(r"\b(?:take|taking|on|using|use)\b[^?.]{0,30}?\bfor\s+")


def _drugs_for_a_named_condition(asked: str, low: str) -> bool:
    """ "Do you take anything for blood pressure?": a drug asked for the condition named right after "for"."""
    lead = _TAKEN_FOR.search(low)
    return lead is not None and any(t.start == lead.end() for t in find_terms(("condition",), asked))


def _treated_premise(question: Question, answer: str) -> list[Draft]:
    """ "Do you take anything for diabetes?" / "yes, metformin": a drug named for the condition
    the question takes for granted says the user has it (a "no" says nothing about it)."""
    low = fold_in_place(question.text)
    lead = _DRUGS_FOR_A_CONDITION.search(low) or _TAKEN_FOR.search(low)
    if lead is None:
        return []
    terms = tuple(t for t in find_terms(("condition",), question.text) if t.start >= lead.start())
    if not terms:
        return []
    subject = Subject(Section.CHRONIC_CONDITIONS, terms=terms, whole_section=False)
    return _terms_with_status(subject, answer, negative=False, question_text=question.text)


# What the user takes for an allergy: "What are you taking for allergies?", "Что принимаете от
# аллергии?", "过敏的时候吃什么药？"
_REMEDY_FOR_ALLERGY = rx(
    r"\b(?:tak(?:e|ing)|us(?:e|ing)|on)\s+(?:\w+\s+){0,3}?for\s+(?:your\s+|the\s+|my\s+)?allerg"
    r"|\b(?:принимаете|пь[её]те|лечите|лечитесь|используете|спасаетесь)\s+(?:\w+\s+){0,2}?от\s+аллерги"
    r"|过敏(?:的时候|时|了)?(?:一般)?(?:吃|用)(?:什么|啥|哪种)?药|(?:吃|用)(?:什么|啥)药.{0,4}过敏"
)
# A turn that asks allergies and medications as two things (not "allergies to medicines")
_ASKS_BOTH = rx(
    r"(?:allerg\w*|аллерги\w*|过敏)[^?？]{0,20}?(?:[?？]\s*|\b(?:or|and|или|и)\s+|[,，、]\s*|还有|和)"
    r"(?:any\s+|what\s+|current\s+|regular\s+|какие\s+|ваши\s+)?(?:medications?|medicines?|meds|pills|"
    r"лекарства\s+принимаете|препараты\s+принимаете|принимаете|(?:在|还|平时|现在)?(?:吃什么药|吃的药|用药|吃药))"
)


# A question to the user that names a relative only as a circumstance ("Have you had any miscarriages
# prior to having your daughter?", "Did you have problems during your pregnancy with your son?")
_ASKS_YOU = rx(r"\b(?:have|did|do|were|are|had)\s+you\b")
_RELATIVE_AS_CIRCUMSTANCE = rx(
    r"\b(?:prior\s+to|before|after|since|during|while|with|having|when\s+you\s+had|pregnan\w*\s+with)"
    r"\s+(?:having\s+|carrying\s+|delivering\s+)?(?:your|the)\s+\w+$"
)


def _read_question(text: str, about_the_user: bool = False) -> Question:
    asked = last_question(text)
    low = fold_in_place(asked)
    # "allergies to medicines, foods or anything else?" lists examples; "any other problems?" narrows.
    narrowing = _OR_ANYTHING_ELSE.sub(" ", low)
    question = Question(
        asked, partial=bool(_PARTIAL.search(narrowing)), restatement=bool(_RESTATEMENT.search(low))
    )
    relative_match = None if about_the_user else RELATIVE.search(low)
    if (
        relative_match
        and _ASKS_YOU.search(low)
        and _RELATIVE_AS_CIRCUMSTANCE.search(low, 0, relative_match.end())
    ):
        relative_match = None  # "Any miscarriages prior to having your daughter?": the user's own
    relative = RELATIVE_BY_WORD.get(relative_match.group(0)) if relative_match else None
    if relative is None and not about_the_user and CJK.search(asked):
        relative = zh_relative(asked)  # "您母亲确诊的时候大概多大年纪": her age, not the user's
    seen: set[tuple[Section, str | None]] = set()
    for section, slot, pattern in _TOPICS:
        if pattern.search(low) and (section, slot) not in seen:
            seen.add((section, slot))
            if about_the_user and section is Section.FAMILY_HISTORY:
                continue  # "... in your family?" / "And you?": the user's own
            question.subjects.append(Subject(section, slot))
    if _TRIED.search(low) and (Section.MEDICATIONS, None) not in seen and not question.subjects:
        seen.add((Section.MEDICATIONS, None))
        question.subjects.append(Subject(Section.MEDICATIONS))
        question.partial = True  # "tried anything for it?" / "no": not "no medications at all"
    if about_the_user and not question.subjects and (Section.FAMILY_HISTORY, None) in seen:
        # "What runs in your family?" / "And you?": the user's own conditions
        question.subjects.append(Subject(Section.CHRONIC_CONDITIONS))
    family_question = any(s.section is Section.FAMILY_HISTORY for s in question.subjects)
    if family_question:
        # "What is your family medical history?", "does alcoholism run in your family?": the
        # family's conditions, never the user's own (nor a habit of the user's).
        question.subjects = [
            s
            for s in question.subjects
            if s.section not in (Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES, Section.LIFESTYLE)
        ]

    if (Section.DEMOGRAPHICS, _YEAR_OF_BIRTH) in seen:
        # "Ваш возраст, год рождения?": the year answers it, "88" is no age of 88
        question.subjects = [s for s in question.subjects if s.slot != "birth_year"]
    if (Section.LIFESTYLE, "coffee") in seen and not _ALCOHOL_WORD.search(low):
        # "How much coffee do you drink?": the drink is the coffee, no alcohol
        question.subjects = [s for s in question.subjects if s.slot != "alcohol"]
    if _REMEDY_FOR_ALLERGY.search(low):
        # "What are you taking for allergies?" / "Claritin.": the remedy is a drug taken, never an
        # allergen; the allergies themselves are the question's premise
        question.subjects = [s for s in question.subjects if s.section is not Section.ALLERGIES]
        if not any(s.section is Section.MEDICATIONS for s in question.subjects):
            question.subjects.append(Subject(Section.MEDICATIONS))
        question.partial = True
    elif any(s.section is Section.ALLERGIES for s in question.subjects) and not _ASKS_BOTH.search(low):
        # "Allergies to medicines?": the drugs are allergens, the question is not about medications;
        # but "Any allergies or medications?", "Any allergies? Any medications?" ask both.
        question.subjects = [s for s in question.subjects if s.section is not Section.MEDICATIONS]
    if relative is not None and not any(s.section is Section.FAMILY_HISTORY for s in question.subjects):
        question.subjects.append(Subject(Section.FAMILY_HISTORY, relative=relative))
    if relative is not None:  # "How old was your mother when…", "您母亲…多大年纪": not the user's age
        question.subjects = [s for s in question.subjects if s.section is not Section.DEMOGRAPHICS]
    family = any(s.section is Section.FAMILY_HISTORY for s in question.subjects)
    # Entities the question names, each under the section it belongs to.
    for kind, section in (
        ("drug", Section.MEDICATIONS),
        ("allergen", Section.ALLERGIES),
        ("condition", Section.CHRONIC_CONDITIONS),
        ("symptom", Section.SYMPTOMS),
        ("surgery", Section.SURGERIES),
        ("vaccine", Section.VACCINATIONS),
    ):
        # "your back", "the surgery": presupposed, not asked about; but "still taking your
        # sertraline?" asks whether it goes on
        still_drug = kind == "drug" and bool(_STILL.search(low))
        # "your flu shot this year?" asks whether it was given: a vaccine is never presupposed
        # "Is the tiredness better?", "Кашель уже прошёл?": whether what is presupposed has ended
        asks_anyway = (
            still_drug
            or kind == "vaccine"
            or (kind == "symptom" and bool(_ASKS_IF_GONE.search(low) or _ASKS_IF_BETTER.search(low)))
        )
        how_asked = kind == "symptom" and not asks_anyway and _asked_how(low, find_terms((kind,), asked))
        asks_anyway = asks_anyway or how_asked
        terms = tuple(
            t for t in find_terms((kind,), asked) if asks_anyway or not _PRESUPPOSED.search(low[: t.start])
        )
        if kind == "condition" and any(s.section is Section.VACCINATIONS for s in question.subjects):
            vaccines = find_terms(("vaccine",), asked)  # "прививку от гриппа": the vaccine's name here
            terms = tuple(t for t in terms if not any(v.start <= t.start < v.end for v in vaccines))
        if not terms:
            continue
        question.asks_how = question.asks_how or how_asked
        topic_needed = kind in ("allergen", "vaccine", "surgery")
        # "Oh, so cardiac catheterization, correct?": the operation named back to the user is asked about
        named_back = question.restatement and kind in ("surgery", "vaccine")
        if topic_needed and not named_back and not any(s.section is section for s in question.subjects):
            continue  # "What is wrong with your back, honey?", "Any history of tuberculosis?"
        if kind == "drug" and any(s.section is Section.ALLERGIES for s in question.subjects):
            section = Section.ALLERGIES  # "Are you allergic to penicillin?"
        if kind == "condition" and family:
            section = Section.FAMILY_HISTORY
        existing = next((s for s in question.subjects if s.section is section and s.slot is None), None)
        named = Subject(
            section,
            None,
            tuple(terms),
            relative if section is Section.FAMILY_HISTORY else None,
            # "serious illnesses (diabetes, heart disease, cancer)?": examples of the section
            # "Хронические заболевания есть? Астма, бронхит?", "以前有什么病吗？高血压、糖尿病这些": the
            # section asked first, its examples after it
            whole_section=existing is not None
            and bool(_EXAMPLES.search(low) or _QUESTION_MARK.search(low, 0, min(t.start for t in terms))),
        )
        if existing is not None:
            question.subjects[question.subjects.index(existing)] = named
        else:
            question.subjects.append(named)
    if _ABOUT_THE_DRUG_IN_FOCUS.search(low) and not any(
        s.section is Section.MEDICATIONS and s.terms for s in question.subjects
    ):
        # "Are you still taking it?": the drug the conversation is about (write/focus.py finds it)
        question.subjects = [s for s in question.subjects if s.section is not Section.MEDICATIONS]
        question.subjects.append(Subject(Section.MEDICATIONS, _IN_FOCUS, whole_section=False))
    if not about_the_user and (_ABOUT_OTHERS.search(low) or _THIRD_PERSON.search(low)):
        # "Is anyone in the household a smoker?", "Has he had a fever?": not the user; family
        # history keeps its own reading.
        question.subjects = [s for s in question.subjects if s.section is Section.FAMILY_HISTORY]
    names_one_drug = [s.section for s in question.subjects] == [Section.MEDICATIONS] or (
        not question.subjects and len(find_terms(("drug",), low)) == 1
    )
    asks_indication = _ASKS_INDICATION.search(low) or (names_one_drug and _ASKS_INDICATION_OF.search(low))
    if asks_indication and not _SOMEONE_TAKES.search(low) and not question.subjects[1:]:
        # "What's that for?" / "type 2 diabetes": the condition the drug treats is the user's; a no
        # or "don't know" says nothing about the section.
        question.subjects = [s for s in question.subjects if s.slot != _IN_FOCUS]  # not "do you take it?"
        question.subjects.append(Subject(Section.CHRONIC_CONDITIONS, _INDICATION, whole_section=False))
        question.partial = True
    elif (_DRUGS_FOR_A_CONDITION.search(low) or _drugs_for_a_named_condition(asked, low)) and any(
        s.section is Section.MEDICATIONS for s in question.subjects
    ):
        # "Вы что-нибудь принимаете от давления?" / "нет пока": no drug for it yet; the condition is
        # the question's premise, not denied, and the user's other drugs are not asked about
        question.subjects = [s for s in question.subjects if s.section is Section.MEDICATIONS]
        question.partial = True
    if family_question:
        # "Курите? И у родственников были астма?", "抽烟喝酒吗 家族里有人得过心脏病吗": two things asked;
        # the one without the family is the user's own
        for own in _questions_apart(asked):
            at = asked.find(own)
            # "Any heart disease in the family? Do you have diabetes yourself?": the diabetes is the user's
            question.subjects = [
                replace(x, terms=tuple(t for t in x.terms if not at <= t.start < at + len(own)))
                if x.section is Section.FAMILY_HISTORY
                else x
                for x in question.subjects
            ]
            for subject in _read_question(own, about_the_user).subjects:
                # the terms' places are in ``own``: the names are read from the whole turn
                subject = replace(
                    subject,
                    terms=tuple(replace(t, start=t.start + at, end=t.end + at) for t in subject.terms),
                )
                if (subject.section, subject.slot) not in {(x.section, x.slot) for x in question.subjects}:
                    question.subjects.insert(0, subject)
    return question


_DRUGS_FOR_A_CONDITION = rx(
    r"\b(?:take|taking|on|using|use|prescribed|given)\b[^?.]{0,30}\bfor\s+(?:your|the|that|this|it)\b"
    r"|\b(?:принимаете|пь[её]те|принимали|назначили|выписали)\b[^?.]{0,30}\b(?:от|для)\s+(?:давлени|сахар|щитовид"
    r"|диабет|астм|холестерин|сердц|него|нее|неё|этого)"
    r"|(?:吃|用|服)(?:什么|啥|过)?(?:药)?(?:来)?(?:治|控制|降)"
)


# "What's that for?", "Для чего он?", "是治什么的？": the condition a drug is taken for
_INDICATION = "indication"
_ASKS_INDICATION = rx(
    r"\bwhat(?:'?s|\s+is|\s+are|\s+was|\s+were)?\s+(?:that|it|this|they|those|these)(?:\s+one)?\s+(?:for|treating)\b"
    r"|\bwhat\s+(?:do|did|are|were)\s+you\s+(?:take|taking|use|using|on)\s+(?:it|that|this|them|those)\s+for\b"
    r"|\bwhat\s+(?:was|were|is|are)\s+(?:it|that|they|those)\s+prescribed\s+for\b|^\W*(?:and\s+)?what\s+for\W*$"
    r"|\bwhat\s+(?:does|do)\s+(?:it|that|they)\s+treat\b|\bwhat\s+(?:condition|problem)\s+(?:is|are)\s+(?:it|that)\s+for\b"
    # "А назначили его из-за чего?", "why were you put on it?"
    r"|\b(?:назначили|выписали|прописали|принимаете|пь[её]те)\s+(?:вам\s+)?(?:его|её|ее|их|это)\s+(?:из-за|от|для)\s+чего\b"
    r"|\bиз-за\s+чего\s+(?:вам\s+)?(?:его|её|ее|их|назнач|выписа|пропис)"
    r"|\bwhy\s+(?:were|are)\s+you\s+(?:put\s+on|taking|on|prescribed)\s+(?:it|that|this|them)\b"
    r"|\b(?:для|от)\s+чего\s+(?:(?:вы\s+)?(?:его|её|ее|их|это|он[аио]?|они)\b|(?:вы\s+)?(?:принима|пь[её]т|назнач"
    r"|выписа|нуж[енаы]))|^\W*(?:а\s+)?(?:это\s+)?(?:для|от)\s+чего(?:\s+это)?\W*$"
    r"|\bпо\s+какому\s+поводу\s+(?:вы\s+)?(?:его|её|ее|их|принима|пь[её]т|назнач)|\bчто\s+(?:им|ими|этим)\s+лечите"
    # a bare "По какому поводу?" after the drugs: what they are taken for
    r"|^\W*(?:а\s+)?(?:это\s+)?по\s+какому\s+поводу(?:\s+это)?\W*$"
    r"|治什么|治疗什么|(?:为|因为)什么(?:病)?(?:吃|用|开)的|(?:吃|用)(?:它|这个药|这药)?(?:是)?为了什么|用来治|什么用的"
    # "Is that for your thyroid?" / "yes, hypothyroidism", "是因为甲状腺的问题吗" / "嗯 甲减"
    r"|\b(?:is|was|are)\s+(?:it|that|this|they|those)\s+for\s+(?:your|the|a)\b|是因为.{0,8}(?:问题|毛病)"
)
# ... of a drug the question names: "По какому поводу эутирокс?", "What do you take the metformin for?"
_ASKS_INDICATION_OF = rx(
    r"\bпо\s+какому\s+поводу\b|\b(?:для|от)\s+чего\s+(?:вам|вы)\b"
    r"|\bwhat\s+(?:do|did|are|were)\s+you\s+(?:take|taking|use|using|on)\s+(?:the\s+|your\s+)?[\w-]+\s+for\b"
    r"|\bwhat(?:\s+is|'s|\s+was)\s+(?:the\s+|your\s+)?[\w-]+\s+for\b"
)
_SOMEONE_TAKES = rx(r"\b(?:она|he|she|his|her|him)\b|\b(?:принимает|пьет|пьёт)\b|他|她")


def extract(
    question_text: str,
    answer: str,
    ctx: Context,
    already: frozenset[tuple[Section, str]],
    topic_from_user: bool = False,
    carried: bool = False,
) -> list[Draft]:
    """Drafts for what ``answer`` says about ``question_text``'s subject.

    ``already``: (section, key) of what the ordinary rules found in this answer; the answer's own
    statement wins ("No, but I'm allergic to cats" is read by the allergy rules, not as a "no"),
    and what they did not find is still read ("Lisinopril 10 mg and metformin 500 mg")."""
    verdicts = [d for d in _visit_verdicts(answer) if d.identity() not in already]
    if topic_from_user and not _TOPIC_OPENER.match(fold_in_place(question_text)):
        return verdicts  # the user's visit is the topic: only its verdict is read
    question = read_question(question_text)
    apart = _answered_apart(question, answer)
    if apart:
        # "抽烟喝酒吗 家族里有人得过心脏病吗" / "不抽 酒一周一两次 家里的不太清楚": each part answers
        # its own subject; the leading "no" is not the answer to all of them
        out: list[Draft] = []
        for sub_question, part, at in apart:
            read = _read_answer(sub_question, part, ctx, already, carried, [], topic_from_user)
            read += _unsure_about_one(sub_question, part, {d.section for d in read}, fewest=1)
            for draft in read:
                if draft.identity() not in {d.identity() for d in out}:
                    draft.span = (draft.span[0] + at, draft.span[1] + at)
                    out.append(draft)
        return out + [d for d in verdicts if d.identity() not in {x.identity() for x in out}]
    return _read_answer(question, answer, ctx, already, carried, verdicts, topic_from_user)


# Where an answer to two things asked parts: a sentence, or a chat-Chinese space or comma
_ANSWER_PART = re.compile(
    r"[^.!?;。！？；，\s](?:[^.!?;。！？；，\s]|\s(?![\u4e00-\u9fff]))*[.!?;。！？；，]*"
)


def _answered_apart(question: Question, answer: str) -> list[tuple[Question, str, int]]:
    """The parts of a yes/no-led answer to a turn that asked two or more things, each with the
    subjects it names (a part that names none goes with the part before it, the first with the
    first subject); empty when the answer does not part that way."""
    topics = {(s.section, s.slot) for s in question.subjects}
    if len(topics) < 2 or answer_shape(answer) not in (AnswerShape.NO, AnswerShape.YES, AnswerShape.UNSURE):
        return []
    pieces = [
        (m.start(), m.end())
        for m in re.finditer(
            r"[^.!?;。！？；，\s](?:[^.!?;。！？；，\s]|\s(?![\u4e00-\u9fff]))*[.!?;。！？；，]*", answer
        )
    ]
    if len(pieces) < 2:
        return []
    groups: list[tuple[list[Subject], int, int]] = []
    for a, b in pieces:
        low = fold_in_place(answer[a:b])
        named = [s for s in question.subjects if _part_names(s, low, answer[a:b])]
        if not named:
            named = groups[-1][0] if groups else question.subjects[:1]
        if groups and [id(x) for x in groups[-1][0]] == [id(x) for x in named]:
            groups[-1] = (named, groups[-1][1], b)
        else:
            groups.append((named, a, b))
    if len(groups) < 2:
        return []
    return [(replace(question, subjects=named), answer[a:b], a) for named, a, b in groups]


def _part_names(subject: Subject, low: str, text: str) -> bool:
    topic = _TOPIC_OF.get((subject.section, subject.slot))
    if topic is not None and topic.search(low):
        return True
    if subject.slot in _HABIT_WORDS and _HABIT_WORDS[subject.slot].search(low):  # "不抽", "酒一周一两次"
        return True
    if subject.section is Section.FAMILY_HISTORY:
        return bool(_KIN_WORDS.search(low) or RELATIVE.search(low) or zh_relative(text))
    if subject.section is Section.MEDICATIONS and _TAKES.search(low) and find_terms(("drug",), text):
        return not _says_allergic(low)  # "None on allergies. I take metformin 500": the drug taken
    return False  # a name alone does not say which ("no. just aspirin": an allergy or a drug?)


_TAKES = rx(r"\b(?:i\s+take|i'?m\s+on|taking|i\s+use|пью|принимаю|сижу\s+на)\b|在吃|吃着")


def _read_answer(
    question: Question,
    answer: str,
    ctx: Context,
    already: frozenset[tuple[Section, str]],
    carried: bool,
    verdicts: list[Draft],
    topic_from_user: bool = False,
) -> list[Draft]:
    if not question.subjects:
        return _injury_fine(question, answer) + verdicts
    if question.asks_how:
        gone = [d for d in _gone(question, answer) if d.identity() not in already]
        return gone + [d for d in verdicts if d.identity() not in {g.identity() for g in gone}]
    shape = answer_shape(answer)
    if shape is AnswerShape.YES and _NEGATED_QUESTION.search(fold_in_place(question.text)):
        shape = AnswerShape.NO  # "you're not on any medications?" / "You got it.": none
    colloquial = _colloquial_no(question, answer)
    if colloquial is not None:
        shape = colloquial[0]  # "да не, здоров как бык", "да нет, всё в порядке": a no
    if shape is AnswerShape.CONTENT and _describes_only(question, answer):
        shape = AnswerShape.YES  # "Кашель есть?" / "Небольшой, сухой.", "Any cough?" / "mild, dry"
    if shape is AnswerShape.NO and EXCEPT.search(fold_in_place(answer)):
        shape = AnswerShape.CONTENT  # "nothing except the pill": what it names, not a none
    offset, rest = colloquial[1:] if colloquial is not None else rest_after_marker(answer)
    if shape in (AnswerShape.YES, AnswerShape.NO) and offset and CJK.search(answer[:offset]):
        kinds = tuple(k for s in question.subjects for k in _LISTED_KINDS.get(s.section, ()))
        if any(t.start < offset for t in find_terms(kinds, answer)):
            # "对乙酰氨基酚，不管用": 对 begins the drug's name, no yes
            shape, offset, rest = AnswerShape.CONTENT, 0, answer
    own_no = _OWN_NO.match(fold_in_place(answer)) if shape is AnswerShape.CONTENT else None
    if own_no is not None:
        # "у меня нет, а у папы был инфаркт", "我没有，我爸有高血压": a no for the user
        shape, offset = AnswerShape.NO, own_no.end()
        rest = answer[offset:]
    if shape is AnswerShape.NO and _HEALTHY_ONLY.fullmatch(fold_in_place(rest)):
        offset, rest = len(answer), ""  # "nah, healthy as a horse": nothing named after the no
    if shape in (AnswerShape.YES, AnswerShape.NO) and asks_if_normal(question.text):
        if not _names_something(_NORMAL_WORDS.sub(" ", rest)):
            # "Давление у вас в норме?" / "да, норм": a yes is no hypertension, and a bare no says
            # neither high nor low
            return verdicts
        if shape is AnswerShape.YES:
            shape = AnswerShape.CONTENT  # "да, норм. это муж у меня гипертоник": only what the rest names
    drafts: list[Draft] = []
    quit_habit = shape is AnswerShape.NO and _asks_habit(question) and bool(_QUIT.search(fold_in_place(rest)))
    if shape in (AnswerShape.YES, AnswerShape.NO) and (_names_something(rest) or quit_habit):
        drafts = _content(question, answer, offset, ctx, negative=shape is AnswerShape.NO)
        drafts = [
            d for d in drafts if not said_not_an_allergy(d, answer)
        ]  # "none. X bungs me up, not an allergy"
        named = [s for s in question.subjects if s.terms]
        if shape is AnswerShape.YES and drafts and named:
            # "是因为甲减吗" / "嗯 桥本", "Do you have asthma?" / "yes, and eczema": the yes keeps what
            # was asked as well as what the answer adds
            keys = {(*d.identity(), d.attributes.get("relative")) for d in drafts}
            drafts += [
                d
                for d in _affirmed(replace(question, subjects=named), answer, ctx)
                if (*d.identity(), d.attributes.get("relative")) not in keys
            ]
    elif shape is AnswerShape.UNSURE and _names_something(rest) and _about_allergies(question):
        # "Any allergies?" / "possibly shellfish, never been tested": a suspected allergy is kept
        # (marked a guess where the assertion is made), not lost to a section "unsure"
        drafts = _content(question, answer, offset, ctx)
    if drafts:
        pass  # "No, just vitamins", "Да, на пенициллин": what the answer names
    elif carried and shape is not AnswerShape.CONTENT:
        return []  # a yes or no to a follow-up ("And you get infections too?") is about its own words
    elif shape is AnswerShape.CONTENT:
        drafts = (
            _content(question, answer, 0, ctx)
            or _relatives_answer(question, answer)
            or _vaccine_done(question, answer, ctx)
            or _gone(question, answer)
        )
    elif shape is AnswerShape.NO:
        drafts = _denied(question, answer) + _relative_has_it(question, answer)
    elif shape is AnswerShape.UNSURE:
        drafts = _unsure(question, answer)
    elif shape is AnswerShape.YES:
        drafts = _gone(question, answer, affirmed=True) or _affirmed(question, answer, ctx)
    drafts += _unsure_about_one(question, answer, {d.section for d in drafts})
    if shape is not AnswerShape.NO and any(d.section is Section.MEDICATIONS for d in drafts):
        drafts += _treated_premise(question, answer)
    kind = (
        EvidenceKind.CONFIRMED_RESTATEMENT
        if question.restatement and shape is AnswerShape.YES
        else EvidenceKind.ANSWER_TO_QUESTION
    )
    said_sections = {section for section, _ in already}
    allergens = {key for section, key in already if section is Section.ALLERGIES}
    out = []
    for draft in drafts:
        if draft.kind is not AssertionKind.FACT and draft.section in said_sections:
            continue
        key = draft.identity()[1]
        if (draft.section, key) in already:
            continue
        if draft.section is Section.MEDICATIONS and key in allergens:
            continue  # "Amlodipine. I'm allergic to penicillin": an allergen, never a drug taken
        if not topic_from_user:
            draft.evidence_kind = kind
            draft.context_evidence = question.text
            own_word = draft.name and fold_in_place(draft.name) in fold_in_place(answer)
            if kind is EvidenceKind.CONFIRMED_RESTATEMENT and own_word:
                # "…от давления, правильно понимаю" / "да, гипертония": the user's own word, an answer
                draft.evidence_kind = EvidenceKind.ANSWER_TO_QUESTION
        out.append(draft)
    taken = {d.identity() for d in out}
    return out + [d for d in verdicts if d.identity() not in taken]


_DONT_KNOW = rx(
    r"\bне\s+знаю\b|\bхз\b|\bне\s+в\s+курсе\b|\bпонятия\s+не\s+имею\b|\bno\s+idea\b|\bnot\s+sure\b"
    r"|\b(?:don'?t|do\s+not)\s+know\b|\bdunno\b|不知道|不清楚|不太清楚"
)
_KIN_WORDS = rx(r"\bродн\w*|\bрод(?:е|у|а)\b|家里|亲戚")  # "про родню не знаю", "家里的不太清楚": the family


def _unsure_about_one(question: Question, answer: str, said: set[Section], fewest: int = 2) -> list[Draft]:
    """A turn that asks two things answered "про родню не знаю, ... стент ставили в 2022", "no idea
    about my family, ...": the clause that does not know names its topic; that section is unsure.
    ``fewest``: 1 for a part of an answer already given its subject."""
    if len(question.subjects) < fewest:
        return []
    drafts = []
    for sentence in split_sentences(answer):
        for clause in re.split(r"[,;，；]", sentence.low):
            if not _DONT_KNOW.search(clause):
                continue
            for subject in question.subjects:
                topic = _TOPIC_OF.get((subject.section, None))
                named = topic is not None and topic.search(clause)
                if subject.section is Section.FAMILY_HISTORY:
                    named = named or _KIN_WORDS.search(clause) or RELATIVE.search(clause)
                if named and subject.section in SECTIONS_WITH_STATUS and subject.section not in said:
                    drafts.append(_section_draft(subject.section, answer, AssertionKind.SECTION_UNSURE))
                    said = said | {subject.section}
    return drafts


_SECOND_PERSON = [
    (re.compile(r"\byou'?re\b", re.IGNORECASE), "I'm"),
    (re.compile(r"\byou\s+are\b", re.IGNORECASE), "I am"),
    (re.compile(r"\byou'?ve\b", re.IGNORECASE), "I've"),
    (re.compile(r"\byou\s+were\b", re.IGNORECASE), "I was"),
    (re.compile(r"\byourself\b", re.IGNORECASE), "myself"),
    (re.compile(r"\byour\b", re.IGNORECASE), "my"),
    (re.compile(r"\byou\b", re.IGNORECASE), "I"),
    (re.compile(r"\bу\s+вас\b", re.IGNORECASE), "у меня"),
    (re.compile(r"\bваш[аеи]?\b", re.IGNORECASE), "мой"),
    (re.compile(r"\bвы\b", re.IGNORECASE), "я"),
    # a Russian recap says the verb without "вы": "Принимаете Джес.", "Курите пачку в день."
    (re.compile(r"\bпринимаете\b", re.IGNORECASE), "принимаю"),
    (re.compile(r"\bпь[её]те\b", re.IGNORECASE), "пью"),
    (re.compile(r"\bкурите\b", re.IGNORECASE), "курю"),
    (re.compile(r"\bколете\b", re.IGNORECASE), "колю"),
    (re.compile(r"\bиспользуете\b", re.IGNORECASE), "использую"),
    (re.compile(r"您|你(?!们)"), "我"),
]
_ASKS_YES_NO = rx(
    r"^\s*(?:do|does|did|are|is|was|were|have|has|had|can|could|will|would|should|any|anyone|anybody|anything|how"
    r"|what|when|where|why"
    r"|which|who|есть\s+ли|были\s+ли|бывает\s+ли|принимаете\s+ли|курите\s+ли|как|какие|какой|когда|где|что)\b"
)
_TAG = rx(
    r"[,\s]*(?:right|correct|is\s+that\s+(?:right|correct)|верно|правильно(?:\s+(?:ли\s+)?(?:я\s+)?понима\w*)?|да"
    r"|对吗|是吗|对吧)?\s*[?？.]*\s*$"
)


_BARE_TAG = rx(
    r"^\s*(?:is\s+(?:this|that)\s+(?:right|correct|accurate)|(?:right|correct|true)|am\s+i\s+right"
    r"|(?:does|do)\s+(?:that|this)\s+(?:sound|seem)\s+(?:right|correct|about\s+right)|have\s+i\s+got\s+(?:that|it)\s+right"
    r"|did\s+i\s+(?:get|miss)\s+anything|anything\s+i\s+(?:missed|got\s+wrong)"
    r"|верно|правильно|так|это\s+так|всё\s+так|все\s+так|я\s+правильно\s+понял[аи]?|ничего\s+не\s+упустил[аи]?"
    r"|对吗|是吗|对吧|是这样吗|没错吧)\s*[?？]\s*$"
)


def summary_sentence(question_text: str) -> str:
    """The sentence a yes confirms: the asking one, or the one before a bare "Is that right?"; a
    recap ("so just to recap: …", "Итак: …", "我总结一下：…") is confirmed whole, every sentence of it."""
    asked = last_question(question_text)
    if _BARE_TAG.match(fold_in_place(asked)):
        before = question_text.strip()[: question_text.strip().rfind(asked)].strip()
        recap = _RECAP.search(before)
        if recap and before[recap.end() :].strip():
            return before[recap.end() :].strip()
        if before:
            return last_question(before)
    return asked


def recaps(question_text: str) -> bool:
    """The assistant's turn recaps what the user said and asks whether it is right."""
    asked = last_question(question_text)
    return bool(_BARE_TAG.match(fold_in_place(asked)) and _RECAP.search(question_text))


_RECAP = rx(
    r"\b(?:(?:just\s+)?to\s+recap|recap(?:ping)?|to\s+sum(?:mari[sz]e|\s+up)|let\s+me\s+(?:summari[sz]e|sum\s+up|recap)"
    r"|(?:so\s+)?in\s+summary|summing\s+up|итак|подытож\w*|резюмиру\w*|суммирую)\b[\s,:—–-]*"
    r"|(?:我)?(?:总结|确认|归纳)一下[\s，,：:]*"
)


# A question that presupposes the user's condition: "How's your asthma since…?", "Как ваш
# гастрит, беспокоит?", "你的高血压最近控制得怎么样？". Any answer but a denial keeps it current.
_HOW_IS_YOUR = (
    rx(
        r"^\s*(?:and\s+|so\s+)?how(?:'s|\s+is|\s+are|\s+has|\s+have)\s+(?:your|the)\s+"
        r"(?P<x>[^?,.;]+?)(?:\s+(?:been|doing|going|coming\s+along|treating\s+you|since|today|lately|these\s+days"
        r"|now|after|with)\b[^?]*|\s*,[^?]*)?\s*\?"
    ),
    rx(
        r"^\s*(?:а\s+|ну\s+)?как\s+(?:ваш|ваша|ваше|ваши|твой|твоя|твое|твоё|твои)\s+(?P<x>[^?,.;]+?)"
        r"(?:\s*,[^?]*|\s+(?:сейчас|поживает|беспокоит|дела|после|с\s+тех)\b[^?]*)?\s*\?"
    ),
    rx(
        r"^\s*(?:那)?(?:你|您)的(?P<x>[^？?，,。]+?)(?:最近|现在)?(?:控制得|恢复得|好些|好点)?(?:怎么样|如何|好些了吗|好点了吗)"
    ),
    # "When were you diagnosed with diabetes?", "Когда у вас нашли диабет?", "甲减是什么时候查出来的？"
    rx(
        r"\bwhen\s+(?:were\s+you|was\s+it|did\s+you\s+get)\s+diagnosed\s+with\s+(?:your\s+)?(?P<x>[^?,.;]+?)\s*\?"
        r"|\bwhen\s+was\s+your\s+(?P<x2>[^?,.;]+?)\s+(?:diagnosed|found|picked\s+up)\b"
    ),
    rx(
        r"\bкогда\s+(?:у\s+вас\s+)?(?:нашли|обнаружили|выявили|диагностировали|поставили)\s+(?:диагноз\s+)?(?P<x>[^?,.;]+?)\s*\?"
    ),
    rx(r"^\s*(?:(?:你|您)的)?(?P<x>[^？?，,。]+?)是?(?:什么时候|哪年|几年前)(?:查出来|确诊|发现|诊断)"),
    # "How long have you had this rash?", "Как давно кашель?", "咳嗽多久了？": how long it has gone on
    rx(
        r"\bhow\s+long\s+have\s+you\s+(?:had|been\s+having|been\s+experiencing|been\s+dealing\s+with|suffered"
        r"\s+from|been\s+suffering\s+from)\s+(?:the\s+|this\s+|that\s+|your\s+|these\s+|those\s+)?"
        r"(?P<x>[^?,.;]+?)(?:\s+for)?\s*\?"
    ),
    rx(r"\bкак\s+давно\s+(?:у\s+вас\s+)?(?P<x>[^?,.;]+?)\s*\?"),
    rx(r"^\s*(?:那)?(?P<x>[^？?，,。\s]+?)(?:有)?(?:多久|多长时间|几天)了"),
)
# the patterns above come in English, Russian, Chinese order
_PRESUPPOSED_STATEMENT = ("I have {x}.", "У меня {x}.", "我有{x}。")
# "What asthma? I don't have it": the answer denies what the question took for granted.
_NOT_MINE = rx(
    r"\b(?:don'?t|do\s+not|never)\s+(?:have|had|got)\b|\bwhat\s+\w+\s*\?|\bnot\s+mine\b|\bwrong\s+person\b"
    r"|\bу\s+меня\s+(?:его\s+|ее\s+|её\s+|их\s+)?нет\b|\bнет\s+у\s+меня\b|\bникогда\s+не\b|\bкакой\s+ещё\b|\bкакой\s+еще\b"
    r"|没有|没得|不是我|哪来的"
    # or that it is over ("gone, thankfully"): not a current fact to carry over
    r"|\bgone\b|\bwent\s+away\b|\bno\s+more\b|\bcleared\s+up\b|\bresolved\b|\bпрош(?:ла|ло|ли|[её]л)\b"
    r"|\bбольше\s+нет\b|\bуже\s+нет\b|好了|没了|消失"
)


def presupposed(question_text: str, answer: str | None = None) -> str | None:
    """A presupposing question as the user's own statement ("How's your asthma?" -> "I have
    asthma."), to read when the answer does not deny it; None for any other question, or when
    ``answer`` says the user has no such thing."""
    asked = summary_sentence(question_text)
    if answer is not None and _NOT_MINE.search(fold_in_place(answer)):
        return None
    for i, pattern in enumerate(_HOW_IS_YOUR):
        m = pattern.search(fold_in_place(asked))
        if m:
            group = "x" if m.group("x") is not None else "x2"
            return _PRESUPPOSED_STATEMENT[i % 3].format(x=asked[m.start(group) : m.end(group)].strip())
    return None


def restated(question_text: str) -> str | None:
    """The assistant's summary in the user's first person, when it is one ("So you take X,
    right?" -> "So I take X"); None for a plain question ("Do you smoke?")."""
    asked = summary_sentence(question_text)
    low = fold_in_place(asked)
    if not _RESTATEMENT.search(low) and _ASKS_YES_NO.search(low):
        return None
    if not re.search(r"\b(?:you|your|вы|вас|ваш)\b|您|你(?!们)", low) and not _RECAP.search(question_text):
        return None  # a recap needs no "you": "Итак: аллергия на бисептол. Принимаете Джес. Всё так?"
    text = _TAG.sub("", asked)
    for pattern, replacement in _SECOND_PERSON:
        text = pattern.sub(replacement, text)
    if CJK.search(text) and "我" not in text and _RECAP.search(question_text):
        # "总结一下：55岁女性，咳嗽十天。2型糖尿病八九年，服二甲双胍…": a Chinese recap says no one;
        # each of its sentences is the user's ("我…")
        text = "".join(
            f"我{part}" if part.strip("。；; ") else part for part in re.split(r"(?<=[。；;])", text)
        )
    return text if text.strip() else None


_FOLLOW_UP = rx(
    r"\b(?:names?|which|what\s+(?:kind|type|dose|else)|how\s+(?:often|much|many)|anything\s+else|any\s+others?"
    r"|the\s+names?|them|those|it)\b|\b(?:какие|какой|какое|как\s+часто|сколько|что\s+ещё|что\s+еще|названи\w*)\b"
    r"|哪些|哪个|什么|多少|还有"
)


# "А от ковида?", "What about heart disease?", "And shellfish?", "心脏病呢？": one more thing asked
# under the previous question's frame (a vaccine, the family, an allergy)
_ONE_MORE = rx(
    r"^\W*(?:(?:а|ну\s+а|и|а\s+ещё|а\s+еще)(?:\s+(?:что|как)\s+насч[её]т)?|(?:что|как)\s+насч[её]т|and|and\s+what\s+about"
    r"|what\s+about|how\s+about|and\s+how\s+about|or|那)\b"
    r"|呢\W*$"
)


_FOR_ANOTHER = rx(r"^\W*(?:and|or|а|и|那)?\s*(?:for|от|для)\s+\w+")


def one_more_under(frame_text: str, question_text: str) -> str | None:
    """The question to read an answer against when ``question_text`` asks one more thing under an
    earlier question's frame: that question with its own named things cut out, then this one ("Does
    anyone in your family have diabetes?" / "no" / "What about heart disease?" / "yes, my dad": the
    father's heart disease, not the user's). None when it is a question of its own ("And do you
    smoke?": its topic is not the frame's)."""
    asked = last_question(question_text)
    low = fold_in_place(asked)
    if len(asked.split()) > 6:
        return None
    own = _read_question(asked)
    named = [(t.start, t.end) for subject in own.subjects for t in subject.terms]
    bare_name = bool(named) and not re.sub(r"[\W_]+", "", "".join(low[:a] + low[b:] for a, b in named[:1]))
    if not (_ONE_MORE.search(low) or bare_name):  # "Naprosyn?" after "Any drug allergies?": the same frame
        return None
    for_another = bool(_FOR_ANOTHER.match(low))  # "And for cholesterol?": what the frame asked, for this
    if not for_another and (not own.subjects or not all(subject.terms for subject in own.subjects)):
        return None
    frame = _read_question(last_question(frame_text))
    if not frame.subjects:
        return None
    cut = frame.text
    spans = {(t.start, t.end) for subject in frame.subjects for t in subject.terms}
    for start, end in sorted(spans, reverse=True):
        cut = cut[:start] + cut[end:]
    combined = f"{cut} {asked}"
    carried = _read_question(combined)
    sections = {subject.section for subject in frame.subjects}
    if not carried.subjects or not {subject.section for subject in carried.subjects} <= sections:
        return None
    return combined


def follows_up(question_text: str) -> bool:
    """A short question that leans on the previous one ("Do you know their names?", "Which one?")."""
    asked = last_question(question_text)
    low = fold_in_place(asked)
    if _ABOUT_YOURSELF.search(low):
        return False  # "那您自己目前有什么健康问题吗": a question about the user, not the one before
    return len(asked.split()) <= 8 and bool(_FOLLOW_UP.search(low))


_ABOUT_YOURSELF = rx(
    r"\byourself\b|\bвы\s+сам[иа]?\b|\bу\s+вас\s+самой\b|\bу\s+вас\s+самого\b|您自己|你自己|您本人|你本人"
)


def user_topic(text: str) -> tuple[str, int] | None:
    """A message that names its own topic first: (the topic as a question, where the answer starts);
    a visit to a doctor told before a bare diagnosis is one too ("went to urgent care. strep throat.")."""
    m = _TOPIC_OPENER.match(fold_in_place(text))
    if m:
        return text[: m.end()], m.end()
    verdicts = _visit_verdicts(text)
    return (text[: verdicts[0].span[0]], verdicts[0].span[0]) if verdicts else None


def _positioned(text: str) -> list[tuple[Sentence, int]]:
    """The sentences of ``text`` with where each starts."""
    out, offset = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence.text, offset)
        if start < 0:
            break
        offset = start + len(sentence.text)
        out.append((sentence, start))
    return out


def _visit_verdicts(text: str) -> list[Draft]:
    """ "ugh went to urgent care last night. strep throat.", "была у врача. Ангина.": the sentence
    after the user's own visit that is only a diagnosis is the doctor's verdict, the user's
    diagnosis (the evidence spans the visit and the name)."""
    drafts: list[Draft] = []
    sentences = _positioned(text)
    for (visit, visit_start), (said, said_start) in pairwise(sentences):
        if CJK.search(said.text) or not visit_before(visit, len(visit.low)):
            continue
        if not verdict_said_bare(said.text):
            continue
        for term in find_terms(("condition",), said.text):
            name = mention(said.text, term)
            chronic = bool(term.entry.extra.get("chronic"))
            section = Section.CHRONIC_CONDITIONS if chronic else Section.REPORTED_DIAGNOSES
            normalized = normalize_name(section, name, term.entry.name("en"))
            drafts.append(
                Draft(
                    section,
                    (visit_start, said_start + term.end),
                    name=name,
                    hint=normalized.name_normalized,
                    status=FactStatus.PRESENT,
                    attributes={"icd10": normalized.code} if normalized.code else {},
                )
            )
    return drafts


# ---------------------------------------------------------------------------------- readings
def _whole(answer: str) -> tuple[int, int]:
    start = len(answer) - len(answer.lstrip())
    end = len(answer.rstrip(" .!?。！？"))
    return start, max(end, start + 1)


def _draft(section: Section, answer: str, **fields) -> Draft:
    return Draft(section, _whole(answer), **fields)


_CONTRAST = rx(r"\b(?:but|though|although|however|но|однако|хотя|а\s+вот)\b|但是|但|不过|可是")
_NEITHER = rx(r"\b(?:neither|nor|not|doesn't|don't|didn't|никто|ни\s+у|тоже\s+нет|не)\b|也没|也不|都没")
# "No, but my mother does", "нет, но у мамы есть", "没有，但我妈妈有": the relative has what was asked
_RELATIVE_HAS = rx(
    r"\b(?:does|do|has|have|had|did)\b|\b(?:есть|был[аои]?|болеет|болел[аи]?|тоже)\b|有|得过|得了"
)
_TOPIC_OF = {(section, slot): pattern for section, slot, pattern in _TOPICS}


_IN_FOCUS = "in_focus"
_ABOUT_THE_DRUG_IN_FOCUS = rx(
    r"\b(?:taking|take|on|using|use)\s+(?:it|them|that|those|these)\b"
    r"|\b(?:принимаете|пьете|пьёте|принимаешь|пьешь|пьёшь)\s+(?:его|их|это|ее|её)\b"
    r"|(?:还在|还|仍在)(?:吃|服用)(?:它|这个药|这药)?吗"
)


def _answer_dose(answer: str) -> dict:
    """A dose the answer gives ("yes, but now 100 mg", "是的，现在吃100毫克"), as attributes."""
    low = fold_in_place(answer)
    found = next((d for m in DOSE.finditer(low) if (d := _dose_match(m, low))), None)
    if found is not None:
        return {"dose_value": found[0], "dose_unit": found[1].value}
    zh = zh_dose(answer) if CJK.search(answer) else None
    return {"dose_value": zh[0], "dose_unit": zh[1]} if zh else {}


_BARE_NUMBER = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)(?![\w.,]*\d)")
_TIME_AFTER = rx(
    r"\s*(?:days?|weeks?|months?|years?|hours?|times?|дн|день|дня|недел|месяц|год|лет|раз|час"
    r"|天|周|个月|月|年|次|小时)"
)


def _new_dose(question_text: str, answer: str) -> dict:
    """The dose a "no" gives instead of the one asked about ("no, 20 mg now"; "no, 20 now" to a
    question that said "10 mg": the question's unit), as attributes; {} when it gives none."""
    low = fold_in_place(answer)
    if _QUIT_VERB.search(low) or _QUIT_FORWARD.search(low):
        return {}  # "no, I stopped 2 weeks ago": it ended, whatever the numbers
    dose = _answer_dose(answer)
    if dose:
        return dose
    asked = _answer_dose(question_text)
    number = _BARE_NUMBER.search(answer)
    if not asked or number is None or _TIME_AFTER.match(low, number.end()):
        return {}
    return {"dose_value": float(number.group(1).replace(",", ".")), "dose_unit": asked["dose_unit"]}


def _in_focus(answer: str, status: FactStatus) -> Draft:
    """A yes or no about the drug in focus: its status, and a dose the answer gives."""
    attributes = _answer_dose(answer) if status is FactStatus.ACTIVE else {}
    draft = _draft(Section.MEDICATIONS, answer, status=status, attributes=attributes)
    draft.refers_to_focus = True
    return draft


# A Russian "no" opened by the particle "да" ("да не, здоров как бык", "да нет, всё в порядке"): not a yes.
_DA_NO = rx(r"^\s*(?:да|ну|ой)\s*,?\s*(?=(?:нет+|не|неа)(?:$|[\s,.!;:—–-]))")
_BARE_NE = rx(r"(?:нет+|не|неа)[\s,.!;:—–-]*")
# An answer that only says the user is healthy: a no to "anything chronic?", "any symptoms?".
_HEALTHY_ONLY = rx(
    r"\W*(?:(?:(?:i'?m|i\s+am|i'?ve\s+been|всё|все|у\s+меня|я|我)\s*)?(?:perfectly|totally|completely|pretty|very"
    r"|quite|абсолютно|совершенно|полностью|вполне|вообще|很|挺|非常|特别|一直)?\s*(?:healthy(?:\s+as\s+an?\s+"
    r"(?:horse|ox))?|fit\s+as\s+a\s+fiddle|fine|all\s+good|в\s+порядке|хорошо|нормально|здоров(?:а|ый|ая)?"
    r"(?:\s+как\s+(?:бык|конь|лошадь))?|ничем\s+не\s+болею|身体(?:很|挺|非常|特别|一直)?(?:好|健康|棒)(?:着呢|得很|的很)?|健康)"
    r"(?:\s*,?\s*(?:thank\s+god|thankfully|слава\s+богу|тьфу[\s-]+тьфу(?:[\s-]+тьфу)?))?[\W呢啊的]*)?"
)
# A no for the user alone, before a clause about someone else: "у меня нет, а у папы ...", "not me,
# but my dad ...", "我没有，我爸有高血压", "我自己倒没有".
_OWN_NO = rx(
    r"\s*(?:(?:у\s+меня|я|лично\s+у\s+меня|у\s+меня\s+сам\w*|у\s+самого|у\s+самой|сам[аи]?)"
    r"(?:\s*[-—–]\s*|\s+(?:то|лично|самого|самой|вроде|вот|лично\s+у\s+меня))*\s*"
    r"(?:нет+|не\s+было|ничего(?:\s+такого)?|нету|никаких|не\s+болею|не\s+болел\w*|ничем\s+не\s+болею)"
    r"|not\s+me|me\s+no|me,?\s+(?:no|nothing|none)|myself,?\s+(?:no|nothing|none)|i\s+myself\s+(?:don'?t|haven'?t)"
    r"|我(?:自己|本人)?(?:倒是?|是|还)?(?:从来)?(?:没有|没|不)(?:什么|过)?"
    r")(?=\s*(?:$|[,.!;:—–\-，。！；：]|(?:а|но|but|though|while|whereas)\b))[\s,.!;:—–\-，。！；：]*"
)
_HEALTHY_SECTIONS = frozenset({Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES, Section.SYMPTOMS})
# A hedged no the yes/no reader has no word for: "dont think so", "не думаю", "вроде бы нет",
# "probably not". A clinician charts it as a no; "не думаю, что это аллергия" is no answer.
_HEDGED_NO = rx(
    r"^\W*(?:(?:i\s+)?(?:don'?t|do\s+not)\s+(?:think|believe)\s+so|(?:i\s+)?doubt\s+it|probably\s+not"
    r"|(?:i\s+)?(?:don'?t|do\s+not)\s+(?:think|believe)\s+(?:i\s+(?:have|do)|there\s+(?:are|is))(?:\s+any)?"
    r"|not\s+that\s+i'?m\s+aware\s+of|не\s+думаю,?\s+что\s+(?:у\s+меня\s+)?(?:что-то\s+)?(?:есть|был[аио]?)"
    r"|не\s+думаю|вряд\s+ли|думаю,?\s+(?:что\s+)?нет|наверное,?\s+нет"
    r"|скорее\s+(?:всего\s+)?нет|вроде\s+(?:бы\s+)?(?:нет|не\s+было|ничего)|кажется,?\s+(?:нет|не\s+было))"
    r"(?=\s*$|\s*[,.!;:—–-](?!\s*(?:что|that)\b))"
)


def _colloquial_no(question: Question, answer: str) -> tuple[AnswerShape, int, str] | None:
    """(shape, offset, rest) of a no the yes/no reader does not see: "да не, ..." (or "да не знаю":
    unsure), and a bare "здоров как бык" / "身体很好" to a question about conditions or symptoms."""
    low = fold_in_place(answer)
    da = _DA_NO.match(low)
    if da is not None:
        shape = answer_shape(answer[da.end() :])
        if shape is AnswerShape.UNSURE:
            return shape, 0, answer
        offset, _ = rest_after_marker(answer[da.end() :])
        if offset == 0:  # a bare "не," that the yes/no reader has no word for
            offset = _BARE_NE.match(low, da.end()).end() - da.end()  # type: ignore[union-attr]
        return AnswerShape.NO, da.end() + offset, answer[da.end() + offset :]
    hedged = _HEDGED_NO.match(low) if answer_shape(answer) is not AnswerShape.NO else None
    if hedged is not None:
        end = hedged.end()
        while end < len(answer) and answer[end] in " ,.!;:—–-":
            end += 1
        return AnswerShape.NO, end, answer[end:]
    healthy = {s.section for s in question.subjects} <= _HEALTHY_SECTIONS and _HEALTHY_ONLY.fullmatch(low)
    if healthy and low.strip(" .!,") and answer_shape(answer) is AnswerShape.CONTENT:
        return AnswerShape.NO, len(answer), ""
    return None


def _denied(question: Question, answer: str) -> list[Draft]:
    drafts: list[Draft] = []
    subjects = question.subjects
    contrast = _CONTRAST.search(fold_in_place(answer))
    if contrast and len(subjects) > 1:
        # "I don't smoke, but I drink a little": the no is about what comes before the "but".
        denied_part = fold_in_place(answer)[: contrast.start()]
        subjects = [
            s
            for s in subjects
            if (pattern := _TOPIC_OF.get((s.section, s.slot))) is not None and pattern.search(denied_part)
        ]
    dose = _new_dose(question.topic, answer)
    topic = fold_in_place(question.topic)
    if _ASKS_IF_GONE.search(topic) or _ASKS_IF_BETTER.search(topic):
        # "Головная боль прошла?" / "нет", "Is it better?" / "no, worse": it goes on
        for subject in [s for s in subjects if s.section is Section.SYMPTOMS and s.terms]:
            drafts += _terms_with_status(subject, answer, negative=False, question_text=question.topic)
        subjects = [s for s in subjects if s.section is not Section.SYMPTOMS]
    for subject in subjects:
        if subject.section is Section.MEDICATIONS and dose and (subject.slot == _IN_FOCUS or subject.terms):
            # "Is that still 10 mg of lisinopril?" / "no, 20 now": the no is about the dose
            corrected = (
                [_in_focus(answer, FactStatus.ACTIVE)]
                if subject.slot == _IN_FOCUS
                else _terms_with_status(subject, answer, negative=False, question_text=question.topic)
            )
            for draft in corrected:
                draft.attributes = {**draft.attributes, **dose}
            drafts += corrected
            continue
        if subject.slot == _IN_FOCUS:
            if _STILL.search(question.topic):  # "Are you still taking it?" / "no": it ended
                drafts.append(_in_focus(answer, FactStatus.STOPPED))
            continue
        if subject.terms and _BEFORE.search(fold_in_place(question.topic)):
            continue  # "back pain before this injury?" / "no": nothing about the back pain now
        # "Any chronic conditions, like asthma or diabetes?" / "no": the examples only illustrate the
        # section, the no empties it; each example is not charted as a disease the user denied
        emptied = (
            subject.whole_section
            and not question.partial
            and len(question.subjects) <= 2
            and subject.section in SECTIONS_WITH_STATUS
        )
        if subject.terms and not emptied:
            drafts += _terms_with_status(
                subject,
                answer,
                negative=True,
                still=bool(_STILL.search(question.topic)),
                question_text=question.topic,  # the name as the question said it
            )
            if not subject.whole_section:
                continue
        slot = _slot_answer(subject, answer, yes=False)
        if slot is not None:
            drafts.append(slot)
        elif question.partial or len(question.subjects) > 2:
            continue  # "any new medications?": nothing about the whole section
        elif subject.section in SECTIONS_WITH_STATUS:
            drafts.append(_section_draft(subject.section, answer, AssertionKind.SECTION_ABSENT))
    return drafts


def _relative_has_it(question: Question, answer: str) -> list[Draft]:
    """A "no" about the user that names a relative who has the disease asked about: that
    relative's family history ("No, but my mother does")."""
    own = _OWN_NO.match(fold_in_place(answer))  # "not me, but my mother does"
    rest = answer[own.end() :] if own else rest_after_marker(answer)[1]  # what follows the "no"
    low = fold_in_place(rest)
    if _answer_relative(rest) is None or not _RELATIVE_HAS.search(low) or _NEITHER.search(low):
        return []
    drafts: list[Draft] = []
    for subject in question.subjects:
        if subject.section in (Section.CHRONIC_CONDITIONS, Section.REPORTED_DIAGNOSES) and subject.terms:
            family = Subject(Section.FAMILY_HISTORY, terms=subject.terms, whole_section=False)
            drafts += _terms_with_status(family, rest, negative=False, question_text=question.topic)
    for draft in drafts:
        draft.span = _whole(answer)  # the evidence is the whole answer, not what follows the no
    return drafts


def _section_draft(section: Section, answer: str, kind: AssertionKind) -> Draft:
    # FamilyHistoryAttributes requires a relative; "other" stands for the whole family here.
    attributes = {"relative": "other"} if section is Section.FAMILY_HISTORY else {}
    return _draft(section, answer, kind=kind, attributes=attributes)


_BREASTFEEDING = rx(r"breast-?\s?fe|nursing|кормлю|кормящ|грудн\w*\s+вскармлив|грудью|哺乳|喂奶|母乳")


_YES_NO_HABITS = ("smoking", "alcohol", "coffee", "physical_activity")


def _slot_answer(subject: Subject, answer: str, yes: bool) -> Draft | None:
    """A yes or no to "Do you smoke?", "Do you drink?", "Are you pregnant?"."""
    if subject.slot == "pregnancy":
        value = "pregnant" if yes else "not_pregnant"
        if yes and _BREASTFEEDING.search(fold_in_place(answer)):
            value = "breastfeeding"  # "Pregnant or breastfeeding?" / "breastfeeding, my baby is 4 months"
        return _draft(
            Section.DEMOGRAPHICS,
            answer,
            name=answer.strip()[:60],
            hint="pregnancy",
            status=FactStatus.PRESENT,
            attributes={"pregnancy": value},
        )
    if subject.section is Section.LIFESTYLE and subject.slot in _YES_NO_HABITS:
        return _draft(
            Section.LIFESTYLE,
            answer,
            name=subject.slot,
            hint=subject.slot,
            status=FactStatus.PRESENT if yes else FactStatus.ABSENT,
            attributes={"value": "yes" if yes else "no"},
        )
    return None


# "no idea tbh, im adopted": the family's history is unknown to the user, whatever was asked of it
_ADOPTED = rx(r"\badopted\b|при[её]мн\w*|усынов\w*|удочер\w*|领养|收养|抱养")


def _unsure(question: Question, answer: str) -> list[Draft]:
    drafts = []
    for subject in question.subjects:
        # "Была аллергия, например на пыльцу?" / "не знаю, никогда не проверялась": the example
        # illustrates the section, the answer is unsure of all of it
        whole = not subject.terms or subject.whole_section
        if subject.section is Section.FAMILY_HISTORY and subject.relative in (None, Relative.OTHER):
            # "Does anyone in your family have heart disease, diabetes or cancer?" / "no idea":
            # a screening of the family, not of one condition
            whole = whole or len(subject.terms) >= 2 or bool(_ADOPTED.search(fold_in_place(answer)))
        if subject.section in SECTIONS_WITH_STATUS and whole and not question.partial:
            drafts.append(_section_draft(subject.section, answer, AssertionKind.SECTION_UNSURE))
    return drafts


# Things asked together, not as a choice: "Are you still taking Metoprolol and Premarin?" / "Yeah."
_ALL_OF = rx(r"^(?!.*\b(?:or|или|либо)\b|.*[或还]是).*(?:\band\b|\bи\b|和|以及)")


def _affirmed(question: Question, answer: str, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    for subject in question.subjects:
        if subject.slot == _IN_FOCUS:
            drafts.append(_in_focus(answer, FactStatus.ACTIVE))  # "Still taking it?" / "yes"
            continue
        if len(subject.terms) > 1 and not _ALL_OF.search(fold_in_place(question.text)):
            continue  # "Any fever, nausea or vomiting?" / "Yes": which of them is not said
        if subject.terms:
            named = _terms_with_status(subject, answer, negative=False, question_text=question.topic)
            if subject.section is Section.VACCINATIONS:
                when = find_date(fold_in_place(answer), ctx.today)  # "yep, last week"
                for draft in named:
                    draft.attributes = {**draft.attributes, **({"date": when} if when else {})}
            drafts += named
        elif (slot := _slot_answer(subject, answer, yes=True)) is not None:
            drafts.append(slot)
    return drafts


# "打了三针", "got it in May", "сделала в мае": a vaccine question answered with it being done
_DONE = rx(
    r"^\s*(?:打了|打过|打完|打好了|都打了|已经打|got\s+(?:it|them|both|all)|had\s+(?:it|them|both|all)"
    r"|сделал\w*|привил\w*|ставил\w*)"
)


# "Кашель сейчас есть?" / "почти прошел", "Still getting headaches?" / "mostly gone now": the one
# symptom asked about has ended (or as good as: a clinician charts it resolved).
_GONE = rx(
    r"^\W*(?:(?:почти|уже|практически|совсем|вроде|почти\s+что|наконец(?:-то)?|almost|mostly|pretty\s+much"
    r"|basically|nearly|finally|all|it'?s|it\s+has|it|they'?re|they\s+have|they)\s+)*(?:прош(?:ел|ла|ло|ли)|gone"
    r"|went\s+away|cleared(?:\s+up)?|resolved|больше\s+нет|уже\s+нет)(?:\s+(?:now|уже|сейчас|thankfully"
    r"|finally|at\s+last|completely|for\s+good|наконец(?:-то)?|полностью|совсем|слава\s+богу))*\W*$"
    # "咳嗽怎么样了？" / "好了", "已经不咳了"
    r"|^\W*(?:已经|基本|都|全|完全)?(?:好了|没了|消失了|不(?:咳|疼|痛|痒|烧|晕|拉|吐)了)\W*$"
)


# "Кашель уже прошёл?", "Is the cough gone?", "头痛没了吗？": a yes ends it
_ASKS_IF_GONE = rx(
    r"\b(?:gone|went\s+away|cleared(?:\s+up)?|resolved|stopped|over)\b"
    r"|\bпрош(?:[её]л|ла|ло|ли)\b|\bотпустил\w*|好了|消失|没了"
)
# "How is your cough?", "How's the rash doing?", "Как ваш кашель?", "咳嗽怎么样了？" (but "How about
# fever?" asks whether there is one)
_ASKS_HOW = rx(
    r"\bhow(?:'s|\s+is|\s+are|\s+has|\s+have|\s+was)\b"
    r"|\bкак\s+(?:ваш|ваша|ваше|ваши|твой|твоя|твоё|твое|твои|там|сейчас|себя\s+чувствует|поживает|дела\s+с)"
    r"|\bчто\s+с\b|怎么样|如何了|咋样"
)


def _asked_how(low: str, terms: tuple[Term, ...] | list[Term]) -> bool:
    """ "How is your cough?": the "how" leads the one symptom named, in the same question (not
    "How is your urine? Any diarrhea?")."""
    if len(terms) != 1:
        return False
    before = low[max(0, terms[0].start - 30) : terms[0].start]
    hows = list(_ASKS_HOW.finditer(before))
    return bool(hows) and not re.search(r"[?？.!]", before[hows[-1].end() :])


# "Is the tiredness better?", "Полегчало?", "头痛好些了吗？": better is not gone, much better is
_ASKS_IF_BETTER = rx(r"\b(?:better|improv\w*|settled|eased)\b|\bлучше\b|\bполегчал\w*|好些|好点|好转|缓解")
_MUCH_BETTER = rx(
    r"^\W*(?:(?:yeah|yes|yep|да|ага|уже|почти)[\s,]+)*(?:(?:much|loads|lots|way|a\s+lot|far|so\s+much|heaps"
    r"|totally|completely|намного|гораздо|значительно|совсем|полностью)\s+(?:better|лучше)|好多了|完全好了|基本(?:不疼|好)了)"
)
# "a bit better", "чуть лучше", "好一点了": still there
_PARTLY = rx(
    r"\b(?:a\s+(?:bit|little)|slightly|somewhat|kind\s+of|sort\s+of|немного|чуть|слегка|немножко)\b|一点|稍微|有点"
)


def _gone(question: Question, answer: str, affirmed: bool = False) -> list[Draft]:
    """The symptom the question names, resolved, when the answer only says it is gone (or, to a
    question whether it is gone, says yes; to one whether it is better, much better)."""
    subjects = [s for s in question.subjects if s.section is Section.SYMPTOMS and len(s.terms) == 1]
    low, topic = fold_in_place(answer), fold_in_place(question.topic)
    said_gone = not _PARTLY.search(low) and bool(
        _GONE.match(low)
        or (_ASKS_IF_GONE.search(topic) and affirmed)
        or ((_ASKS_IF_GONE.search(topic) or _ASKS_IF_BETTER.search(topic)) and _MUCH_BETTER.match(low))
    )
    if len(subjects) != 1 or not said_gone:
        return []
    drafts = _terms_with_status(subjects[0], answer, negative=False, question_text=question.topic)
    for draft in drafts:
        draft.status = FactStatus.RESOLVED
    return drafts


_FINE_LEAD = rx(
    r"^(?:\s*(?:yeah|yes|yep|oh|well|honestly|да|ну|it'?s|it\s+is|its|it|он[ао]?|всё|все|уже)\b[\s,]*)+"
)


def words_of(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def _injury_fine(question: Question, answer: str) -> list[Draft]:
    """ "How's the ankle?" / "fine now", "Как рука?" / "уже не болит": the injury at that site is
    over (write/focus.py finds it; with none on record nothing is stored)."""
    low = fold_in_place(answer)
    if not (
        _ASKS_HOW.search(fold_in_place(question.text))
        or re.search(r"^\s*как\b", fold_in_place(question.text))
    ):
        return []
    sites = find_terms(("body_site",), question.text)
    low = _FINE_LEAD.sub("", low)
    fine = SITE_FINE.match(low)
    if len(sites) != 1 or _PARTLY.search(low) or fine is None or _CONTRAST.search(low, fine.end()):
        return []
    if len(words_of(low[fine.end() :])) > 3:
        return []  # "fine now but the other one started hurting": more than it being fine
    draft = _draft(Section.INJURIES, answer, status=FactStatus.RESOLVED, refers_to_focus=True)
    draft.attributes = {"body_site": sites[0].entry.key}
    return [draft]


def _vaccine_done(question: Question, answer: str, ctx: Context) -> list[Draft]:
    if not _DONE.search(fold_in_place(answer)):
        return []
    subjects = [s for s in question.subjects if s.section is Section.VACCINATIONS and s.terms]
    return _affirmed(replace(question, subjects=subjects), answer, ctx) if subjects else []


def _terms_with_status(
    subject: Subject, answer: str, negative: bool, still: bool = False, question_text: str = ""
) -> list[Draft]:
    drafts: list[Draft] = []
    for term in subject.terms:
        section = subject.section
        if section is Section.CHRONIC_CONDITIONS and not term.entry.extra.get("chronic"):
            section = Section.REPORTED_DIAGNOSES
        if section is Section.MEDICATIONS:
            if negative and not still:
                continue  # "do you take X?" / "no": nothing to remember unless it was "still"
            status = FactStatus.STOPPED if negative else FactStatus.ACTIVE
        else:
            status = FactStatus.ABSENT if negative else FactStatus.PRESENT
        name = term.entry.name("en") if not question_text else question_text[term.start : term.end]
        attributes: dict = {}
        if section is Section.ALLERGIES and not negative:
            attributes = answer_reaction(answer)  # "Allergic to penicillin?" / "yes, I get hives"
        relatives: list[Relative] = []
        if section is Section.FAMILY_HISTORY:
            # "Does anyone in your family have diabetes?" / "yes, my mother": the relative answered;
            # "我爸有 我妈也有", "my dad does, and my mum too": each of them
            relatives = (_answer_relatives(answer) if not negative else []) or [
                _answer_relative(answer) or subject.relative or Relative.OTHER
            ]
        elif section is Section.MEDICATIONS and question_text and not negative:
            sentence = split_sentences(question_text)
            if sentence:
                s = sentence[-1]
                at = s.text.find(question_text[term.start : term.end])
                if at >= 0:
                    attributes, _ = details(s, at, at + term.end - term.start, len(s.text), 0)
            attributes = {**attributes, **_answer_dose(answer)}  # "yes, but now 100 mg"
        for said in [{**attributes, "relative": r.value} for r in relatives] or [attributes]:
            drafts.append(
                _draft(
                    section,
                    answer,
                    name=name,
                    hint=normalize_name(section, name).name_normalized,
                    status=status,
                    attributes=said,
                )
            )
    return drafts


def _own_sentences(text: str, found: list[tuple[int, int, Term | None]], index: int) -> tuple[int, int]:
    """From the start of item ``index``'s sentence to the start of the first later sentence that
    names another item (or the end): what the answer says about that item alone."""
    breaks = [m.end() for m in SENTENCE_STOP.finditer(text)]

    def sentence_of(pos: int) -> int:
        return sum(1 for b in breaks if b <= pos)

    own = sentence_of(found[index][0])
    start = breaks[own - 1] if own else 0
    later = [sentence_of(a) for a, _, _ in found[index + 1 :] if sentence_of(a) > own]
    end = breaks[later[0] - 1] if later else len(text)
    return start, end


def answer_reaction(answer: str) -> dict:
    """The reaction (and severity) an allergy answer gives: "yes, I get hives", "吃了会起疹子"."""
    low = fold_in_place(answer)
    found = allergy_reaction(low)
    return found or (zh_reaction(low) if CJK.search(answer) else {})


def is_reaction(text: str) -> bool:
    """Words that name an allergic reaction ("a rash", "起疹子"): in an allergy answer, no symptom."""
    return bool(_REACTION_WORDS.search(fold_in_place(text)))


def _answer_relative(answer: str) -> Relative | None:
    match = RELATIVE.search(fold_in_place(answer))
    if match:
        return RELATIVE_BY_WORD.get(match.group(0))
    return zh_relative(answer) if CJK.search(answer) else None


# Where one relative's part of an answer ends: "my dad does, and my mum too", "我爸有 我妈也有"
_RELATIVE_PART = re.compile(r"[,;，；。.]|\s(?:and|but|и|а|но)\s|(?<=[有是])\s+", re.IGNORECASE)


def _answer_relatives(answer: str) -> list[Relative]:
    """Every blood relative the answer says has it, in order; none in a part that says no ("my dad
    does, my mum doesn't")."""
    out: list[Relative] = []
    for part in _RELATIVE_PART.split(fold_in_place(answer)):
        if not part.strip() or NEGATION.search(part) or re.search(r"没有|没|不", part):
            continue
        found = [
            RELATIVE_BY_WORD[m.group(0)] for m in RELATIVE.finditer(part) if m.group(0) in RELATIVE_BY_WORD
        ]
        found += zh_relatives(part) if CJK.search(part) else []
        out += [r for r in found if r not in out]
    return out


def _relatives_answer(question: Question, answer: str) -> list[Draft]:
    """A family question that names its conditions, answered with who has them ("my mother, type
    2", "у мамы", "我妈妈"): each named condition is that relative's."""
    if _answer_relative(answer) is None or _DONT_KNOW.search(fold_in_place(answer)):
        return []  # "家里的不太清楚 爷爷奶奶走得早": who died early, not who has it
    drafts: list[Draft] = []
    for subject in question.subjects:
        if subject.section is Section.FAMILY_HISTORY and subject.terms:
            if len(subject.terms) > 1:
                # "heart disease, stroke, diabetes or cancer?" / "my dad": which of them is not said
                named = {t.entry.key for t in find_terms(("condition",), answer)}
                subject = replace(subject, terms=tuple(t for t in subject.terms if t.entry.key in named))
                if not subject.terms:
                    continue
            drafts += _terms_with_status(subject, answer, negative=False, question_text=question.topic)
    return drafts


# How a complaint is, said alone: the answer takes the complaint asked about for granted
_DESCRIPTORS = rx(
    r"^\W*(?:(?:небольш\w*|сух\w*|влажн\w*|сильн\w*|слаб\w*|л[её]гк\w*|немного|чуть-чуть|чуть|иногда|часто"
    r"|постоянн\w*|по\s+утрам|по\s+ночам|ночью|утром|вечером|с\s+мокротой|mild|slight|little|a\s+bit|a\s+little"
    r"|bad|pretty\s+bad|severe|dry|wet|productive|constant|sometimes|on\s+and\s+off|at\s+night|in\s+the\s+mornings?"
    r"|mostly|kind\s+of|sort\s+of|some|a|very|quite|not\s+too\s+bad|with\s+phlegm)[\s,.;!]*)+$"
)


def _describes_only(question: Question, answer: str) -> bool:
    """ "Кашель есть?" / "Небольшой, сухой.": how the symptom asked about is, so it is there."""
    asked = [s for s in question.subjects if s.section is Section.SYMPTOMS and s.terms]
    return (
        bool(asked)
        and len(asked) == len(question.subjects)
        and bool(_DESCRIPTORS.fullmatch(fold_in_place(answer)))
    )


def _asks_habit(question: Question) -> bool:
    """ "Do you smoke?" / "no, not anymore": the no is about now, the rest says it was once."""
    return any(s.section is Section.LIFESTYLE and s.slot in ("smoking", "alcohol") for s in question.subjects)


def _about_allergies(question: Question) -> bool:
    return any(subject.section is Section.ALLERGIES for subject in question.subjects)


def _names_something(rest: str) -> bool:
    words = [w for w in re.findall(r"[^\W\d_]+", fold_in_place(rest)) if w not in _NOT_A_NAME]
    return bool(words) or bool(re.search(r"\d", rest)) or bool(CJK.search(rest))


def _content(
    question: Question, answer: str, offset: int, ctx: Context, negative: bool = False
) -> list[Draft]:
    drafts: list[Draft] = []
    for subject in question.subjects:
        if subject.section is Section.LIFESTYLE and subject.slot in ("smoking", "alcohol"):
            past = bool(_PAST_QUESTION.search(fold_in_place(question.text)))
            drafts += _habit(subject.slot, answer, past=past)
        elif subject.slot == "coffee":
            drafts += _coffee_answer(answer)
        elif subject.slot == "sleep":
            drafts += _sleep_answer(answer)
        elif subject.slot == "pain_site":
            drafts += _pain_where(answer)
        elif subject.slot == "city":
            drafts += _city_answer(answer)
        elif subject.slot == "birth_year":
            drafts += _age(answer, ctx)
        elif subject.slot == _YEAR_OF_BIRTH:
            drafts += _birth_year(answer, ctx)
        elif subject.slot in ("height_cm", "weight_kg"):
            drafts += _measure(subject.slot, answer, [s.slot for s in question.subjects])
        elif subject.slot == "pregnancy":
            if not negative and (
                re.search(r"\d|week|month|недел|месяц|周|月", fold_in_place(answer))
                or _BREASTFEEDING.search(fold_in_place(answer))
            ):
                drafts += _affirmed(replace(question, subjects=[subject]), answer, ctx)
        elif subject.section in _LISTED_KINDS:
            drafts += _named(subject, answer, offset, negative, ctx)
    if {s.section for s in question.subjects} >= {Section.ALLERGIES, Section.MEDICATIONS}:
        # "Any allergies or medications?" / "no allergies, just aspirin daily": a drug named is taken,
        # an allergen only where the answer says allergic
        low = fold_in_place(answer)
        drafts = [
            d
            for d in drafts
            if d.section not in (Section.ALLERGIES, Section.MEDICATIONS)
            or not find_terms(("drug",), d.name or "")
            # a drug is an allergen where its own clause says allergic, else a drug taken
            or (d.section is Section.ALLERGIES)
            == _says_allergic(_clause_of(low, fold_in_place(d.name or "")))
        ]
    return drafts


# "the co-codamol bungs me up but thats not an allergy is it", "от трамадола тошнит, но это же не
# аллергия", "吃布洛芬胃不舒服，这不算过敏吧": the user says themselves that the effect is no allergy.
_NOT_AN_ALLERGY = rx(
    r"\b(?:not|isn'?t|wasn'?t|never\s+been)\s+(?:an?\s+|really\s+an?\s+|a\s+real\s+|an\s+actual\s+)?allerg"
    r"|\bне\s+(?:совсем\s+|настоящ\w+\s+)?аллерги|不(?:算|是)(?:真的)?过敏"
)


# "青霉素头孢都打过 没事", "amoxicillin is fine, had it loads", "пенициллин кололи — нормально": a drug
# the user has had without trouble, told after an allergy question, is what they tolerate.
_TOLERATED_AFTER = rx(
    r"^[^。！？.!?]{0,12}?(?:打过|用过|吃过|输过|试过|打|用|吃)(?:了)?[^。！？.!?]{0,4}?(?:没事|没问题|没有?反应|不过敏)"
    r"|^\s*(?:都|也|倒|就)?(?:没事|没问题|没有?反应|不过敏)"  # "吃别的抗生素没事"
    r"|^\W*(?:is|are|'s|was|were)\s+(?:totally\s+|always\s+been\s+)?(?:fine|ok|okay|no\s+problem)\b"
    r"|^[^.!?]{0,20}?\b(?:had|taken|took|take)\b[^.!?]{0,15}?\b(?:no\s+(?:problems?|issues?|reaction)|without\s+(?:any\s+)?"
    r"(?:problems?|issues?|reaction)|(?:just\s+)?fine)\b"
    r"|^[^.!?]{0,20}?(?:переношу|переносил\w*|кололи|колол\w*|пил\w*|принимал\w*)[^.!?]{0,12}?"
    r"(?:нормально|хорошо|без\s+проблем|ничего\s+не\s+было)"
)


def said_not_an_allergy(draft: Draft, text: str) -> bool:
    """An allergy the sentence naming it calls no allergy, or a drug it says the user has had
    without trouble."""
    if draft.section is not Section.ALLERGIES or draft.status is not FactStatus.PRESENT or not draft.name:
        return False
    return _tolerated(fold_in_place(draft.name), text, not_an_allergy=True)


def tolerated_after_allergy_question(draft: Draft, text: str) -> bool:
    """A drug the answer to an allergy question says the user has had without trouble ("青霉素头孢都
    打过 没事"): what they tolerate, no medication history to chart."""
    if draft.section is not Section.MEDICATIONS or draft.status is FactStatus.ACTIVE or not draft.name:
        return False
    return _tolerated(fold_in_place(draft.name), text, not_an_allergy=False)


def _tolerated(name: str, text: str, *, not_an_allergy: bool) -> bool:
    for sentence in split_sentences(text):
        at = sentence.low.find(name)
        if at < 0 or _ALLERGIC_TO.search(sentence.low):
            continue
        if not_an_allergy and _NOT_AN_ALLERGY.search(sentence.low):
            return True
        clause = _clause_of(sentence.low, name)  # "a reaction to penicillin, amoxicillin I've taken fine"
        at = clause.find(name)
        if _REACTED.search(_NO_ALLERGY_SAID.sub(" ", clause)):
            continue  # "青霉素过敏，吃别的没事", "penicillin gave me hives, cephalexin is fine"
        if _TOLERATED_AFTER.search(clause[at + len(name) :]):
            return True
        around = _TOLERATED_AROUND.search(clause)  # "I've had penicillin before with no problems"
        if around and around.start() < at < around.end():
            return True
    return False


_NO_ALLERGY_SAID = rx(r"(?:没有|没|不|无|\bno|\bnot|\bнет|\bбез)\s*(?:\w+\s+)?(?:过敏|allerg\w*|аллерги\w*)")
_REACTED = rx(
    r"allerg|аллерг|过敏|reaction|реакци|rash|hives|swell|сыпь|крапивниц|отек|отёк|疹|肿|痒|anaphyla|анафилак"
)
_TOLERATED_AROUND = rx(
    r"\b(?:had|taken|took|been\s+on|used)\b[^.!?]{0,40}?\b(?:with\s+)?(?:no\s+(?:problems?|issues?|reactions?)"
    r"|without\s+(?:any\s+)?(?:problems?|issues?|reactions?))\b"
)


_ALLERGIC_TO = rx(r"\ballergic\s+to\b|\bаллерги\w*\s+на\b|对\S{1,8}过敏(?!吧|吗)")


_ALLERGY_WORD = rx(r"allerg\w*|аллерги\w*|过敏")
_NO_ALLERGY_BEFORE = rx(r"(?:\bno|\bnot|\bnone|\bнет|没有|没|无)\W*(?:\w+\W+)?$")
_NO_ALLERGY_AFTER = rx(r"\W*(?:нет|no|none|не\s+было|没有)\b")


# A clause of an answer: "penicillin and sulfa allergies" is one, "allergic to penicillin and I take
# aspirin" two
_CLAUSE_EDGE = rx(
    r"[,;.，；。]|\s(?:but|но|а|however)\s"
    r"|\s(?:and|и|plus|also)\s(?=(?:i|i'm|im|i've|я|мне|пью|принимаю|take|taking|on|also|daily)\b)"
)


def _clause_of(low: str, name: str) -> str:
    """The clause of ``low`` where ``name`` is said (all of it when the name is not found)."""
    at = low.find(name)
    if at < 0:
        return low
    edges = [m for m in _CLAUSE_EDGE.finditer(low)]
    start = max((m.end() for m in edges if m.end() <= at), default=0)
    end = min((m.start() for m in edges if m.start() >= at + len(name)), default=len(low))
    return low[start:end]


def _says_allergic(low: str) -> bool:
    """The answer says the user is allergic ("allergic to penicillin"), not that there is none ("no
    allergies", "аллергии нет")."""
    return any(
        not _NO_ALLERGY_BEFORE.search(low, 0, m.start()) and not _NO_ALLERGY_AFTER.match(low, m.end())
        for m in _ALLERGY_WORD.finditer(low)
    )


# A question whether something is normal ("Давление у вас в норме?", "Is your blood pressure
# normal?", "血压正常吗？")
_ASKS_NORMAL = rx(
    r"\bв\s+норме\b|\bнормальн\w*|\bnormal\b|正常"
    # "is your blood pressure ok?", not "Okay, so chronic knee pain."
    r"|\b(?:is|are|was|were|been|feel|feeling|looks?|seems?)\s+(?:\w+\s+)?(?:ok(?:ay)?|fine|alright)\b"
)
_NORMAL_WORDS = rx(
    r"\bнорм\w*|\bв\s+норме\b|\bnormal\b|\bok(?:ay)?\b|\bfine\b|\bхорош\w*|\bgood\b|正常|挺好|还行"
)


def asks_if_normal(question_text: str, answer: str = "") -> bool:
    """ "Давление у вас в норме?" / "да", "Is your blood pressure normal?" / "yes", "Как давление?" /
    "нормальное": a yes, or an answer that it is normal, says nothing is wrong."""
    return bool(
        _ASKS_NORMAL.search(fold_in_place(question_text)) or _SAYS_NORMAL.fullmatch(fold_in_place(answer))
    )


_SAYS_NORMAL = rx(
    r"\W*(?:(?:да|ну|yes|yeah|yep|嗯|对)\W*)?(?:(?:всё|все|вроде|пока|it'?s|all|挺|很|都|还)\s*)*"
    r"(?:норм\w*|в\s+норме|normal|正常)\W*"
)


_LISTED_KINDS: dict[Section, tuple[str, ...]] = {
    Section.MEDICATIONS: ("drug",),
    Section.ALLERGIES: ("allergen", "drug"),
    Section.CHRONIC_CONDITIONS: ("condition",),
    Section.FAMILY_HISTORY: ("condition",),
    Section.SURGERIES: ("surgery",),
    Section.SYMPTOMS: ("symptom",),
    Section.VACCINATIONS: ("vaccine",),
}
_REACTION_WORDS = rx(
    r"hives|rash|swell|itch|anaphyla|breath|сып|отек|отёк|зуд|крапивниц|удушь|anaphylaxis|疹|肿|痒|呼吸"
    # how a reaction feels ("my throat gets all itchy and tight", "губы опухают, першит"): never an allergen
    r"|\btight|\btingl|scratchy|wheez|\bpuff|\bsneez|runny|\bflush|\bblister|vomit|nause|diarrh|\bcramp"
    r"|опух|чеш|перш|сдавлив|сжима|задыха|чиха|насморк|слезя|покрасне|тошн|рвот|понос"
    r"|\bthrow\w*\s+up|\bthrew\s+up|\bpuk|\bsick\s+to\s+my\s+stomach|\bрв[её]т|吐|恶心|拉肚子"
)


# A childhood disease said to be over ("i think i outgrew it", "в детстве была, переросла", "小时候有")
_OUTGROWN = rx(
    r"\boutgr[eo]w\w*|\bgrew\s+out\s+of\b|\bas\s+a\s+(?:kid|child)\b|\bперерос\w*|\bв\s+детстве\b|小时候"
)


def _taken_back_right_before(low: str, offset: int, at: int) -> bool:
    """The name at ``at`` follows a take-back at once ("хотя нет, лозартан"): its "no" is no denial."""
    return any(m.end() == at for m in TAKEN_BACK_FOR.finditer(low, offset, at))


def _named(subject: Subject, answer: str, offset: int, negative: bool, ctx: Context) -> list[Draft]:
    """The things a list answer names, in the subject's section: "Zoloft, and Ambien at night"."""
    section = subject.section
    kinds = _LISTED_KINDS[section]
    if subject.slot == _INDICATION:
        kinds = (*kinds, "symptom")  # "По какому поводу конкор?" / "тахикардия": a complaint it treats
    text = answer
    low = fold_in_place(text)
    found: list[tuple[int, int, Term | None]] = []
    for known in find_terms(kinds, text[offset:]):
        found.append((offset + known.start, offset + known.end, known))
    if section in (Section.MEDICATIONS, Section.ALLERGIES):
        # "Как переносите эналаприл?" / "плохо, ...": an answer about the drug asked is no list of
        # names; only a capitalised name there may be a drug the table does not know
        listing = not (subject.terms and section is Section.MEDICATIONS)
        found += _unknown_names(text, offset, found, section, listing=listing, after_no=negative)
    drafts: list[Draft] = []
    seen: set[str] = set()
    previous_stopped: bool | None = None
    found.sort(key=lambda f: f[0])
    for index, (a, b, term) in enumerate(found):
        denied = False
        if term is not None and section in (Section.CHRONIC_CONDITIONS, Section.FAMILY_HISTORY):
            # "астмы нет. бронхит хронический": asthma denied in its own clause, chronic bronchitis said
            term = chronic_form(text, Term(term.entry, a, b))
            a, b = term.start, term.end
            denied = denied_in_answer(text, a, b, offset)
            if denied and subject.slot == _INDICATION:
                continue  # "what's it for?" / "not for diabetes": nothing about the user's diabetes
        elif term is not None and section is Section.ALLERGIES and denied_in_answer(text, a, b, offset):
            denied = True  # "на пенициллин нет", "penicillin no. cats yes": not allergic to it
        elif (
            term is not None
            and section is Section.SYMPTOMS
            and CJK.search(text)
            and denied_in_answer(text, a, b)
        ):
            denied = True  # "有没有咳嗽？" / "咳嗽没有", "不发烧": none
        elif any(
            NEGATION.fullmatch(w.strip(",.")) for w in low[max(offset, a - 12) : a].split()[-2:]
        ) and not (_taken_back_right_before(low, offset, a)):
            continue  # "not penicillin"; but "penicillin, oh no sorry, ceftriaxone" names ceftriaxone
        target = section
        if target is not Section.FAMILY_HISTORY and _someone_else(text, a):
            continue  # "My mother has high blood pressure": not the user's own
        if section is Section.SYMPTOMS and _asked_back(text, a):
            continue  # "How are you feeling?" / "should I worry if I get a fever?": no fever yet
        if section is Section.SYMPTOMS and _about_an_allergy(text, a):
            continue  # "allergic to penicillin, as a child it gave me a rash": the reaction, no symptom now
        if term is not None and term.entry.kind == "symptom":
            target = Section.SYMPTOMS  # taken for: the user lives with it
        elif term is not None and section is Section.CHRONIC_CONDITIONS:
            target = section if term.entry.extra.get("chronic") else Section.REPORTED_DIAGNOSES
        if section is Section.ALLERGIES and _REACTION_WORDS.search(low[a:b]):
            continue  # a reaction is never an allergen
        if (
            section is Section.ALLERGIES
            and term is not None
            and term.entry.kind == "drug"
            and REMEDY_TAKEN.search(low[max(offset, a - 24) : a])
        ):
            continue  # "peanuts, I carry an EpiPen", "take Zyrtec for it": the remedy, not an allergen
        conditions_named = section in (Section.CHRONIC_CONDITIONS, Section.FAMILY_HISTORY)
        name = mention(text, term) if term is not None and conditions_named else text[a:b]
        normalized = normalize_name(target, name)
        if normalized.key in seen:
            continue
        seen.add(normalized.key)
        attributes: dict = {}
        valid_from: str | None = None
        status = FactStatus.ACTIVE if target is Section.MEDICATIONS else FactStatus.PRESENT
        if denied:
            status = FactStatus.ABSENT
        if target is Section.MEDICATIONS:
            stopped = _stopped_in_answer(low, [(f[0], f[1]) for f in found], index, previous_stopped)
            previous_stopped = stopped
            if stopped:
                status = FactStatus.STOPPED
            next_start = found[index + 1][0] if index + 1 < len(found) else len(text)
            sentence = Sentence(text, low, ())
            attributes, _ = details(sentence, a, b, next_start, found[index - 1][1] if index else 0)
            if "dose_value" not in attributes and CJK.search(text, b, next_start):
                # "就是氨氯地平 每天一片5mg": the dose written the Chinese way
                previous_end = found[index - 1][1] if index else 0
                zh_attributes, _ = zh_med_details(sentence, a, b, next_start, previous_end)
                attributes = {**zh_attributes, **attributes}
            attributes = _own_details(attributes, low, b, next_start)
            if normalized.code:
                attributes["atc_code"] = normalized.code
        elif target is Section.FAMILY_HISTORY:
            relative = _relative_of(text, low, a)
            attributes["relative"] = (relative or subject.relative or Relative.OTHER).value
        elif (
            target is Section.CHRONIC_CONDITIONS
            and not denied
            and _OUTGROWN.search(low, offset)
            and not STILL_HAVE.search(low, offset)
        ):
            # "no. well maybe mild asthma as a kid? i think i outgrew it": over, not a disease now
            status = FactStatus.RESOLVED
        elif target in (Section.SURGERIES, Section.INJURIES) and not denied:
            # "appendix out when i was 12, gallbladder 2019": the year said with the item, before the next
            next_start = found[index + 1][0] if index + 1 < len(found) else len(text)
            attributes, when = event_date(low[b:next_start], ctx)
            valid_from = when
        elif target is Section.ALLERGIES and not denied:  # a denied allergen has no reaction
            # "амоксициллин — сыпь": the reaction, and its severity, said in the allergen's own
            # sentence or after it ("на пенициллин, сыпь. а, и на кошек": no rash from the cats)
            attributes = answer_reaction(text[slice(*_own_sentences(text, found, index))])
        drafts.append(
            Draft(
                target,
                (a, b),
                name=name,
                hint=normalized.name_normalized,
                status=status,
                attributes=attributes,
                valid_from=valid_from,
                experiencer=Experiencer.RELATIVE if target is Section.FAMILY_HISTORY else None,
            )
        )
    return drafts


def _relative_of(text: str, low: str, pos: int) -> Relative | None:
    """Whose is the condition at ``pos`` of a family answer: the relative of its own clause, else
    the nearest one before it in its sentence ("mom had breast cancer. dads side has heart
    disease": each sentence its own), else the first one the answer names ("My mother. Diabetes.")."""
    found = _sentence_at(text, pos)
    if found is not None:
        sentence, local = found
        start, end = sentence.clause(local)
        relative = family_relative(sentence.low, start, end)
        if relative is None:
            before = list(RELATIVE.finditer(sentence.low, 0, start))
            # the clause of the nearest one before ("my moms dad, diabetes": the grandfather), or
            # one after it ("diabetes, my mom")
            span = sentence.clause(before[-1].start()) if before else (0, len(sentence.low))
            relative = family_relative(sentence.low, *span)
        if relative is not None:
            return relative
    match = RELATIVE.search(low)
    return RELATIVE_BY_WORD.get(match.group(0)) if match else None


def _sentence_at(text: str, pos: int) -> tuple[Sentence, int] | None:
    """The sentence of an answer that holds ``pos``, and ``pos`` within it."""
    offset = 0
    for sentence in split_sentences(text):
        start = text.find(sentence.text, offset)
        if start < 0:
            break
        offset = start + len(sentence.text)
        if start <= pos < offset:
            return sentence, pos - start
    return None


_ALLERGY_WORD = rx(r"аллерг|allerg")


def _about_an_allergy(text: str, pos: int) -> bool:
    """The words at ``pos`` of an answer are in a sentence about an allergy (its reaction)."""
    found = _sentence_at(text, pos)
    return found is not None and bool(_ALLERGY_WORD.search(found[0].low))


def _asked_back(text: str, pos: int) -> bool:
    """The words at ``pos`` of an answer are a question, plan or condition of the user's own."""
    found = _sentence_at(text, pos)
    return found is not None and hypothetical(*found)


def _someone_else(text: str, pos: int) -> bool:
    """The words at ``pos`` of an answer are about someone other than the user."""
    found = _sentence_at(text, pos)
    if found is None:
        return False
    sentence, local = found
    if CJK.search(sentence.text):
        who = zh_who(sentence, local)  # "我没有，我爸有高血压": the father's
        if who.kind != "self" and not who.self_too:
            return True
    clause_start, _ = sentence.clause(local)
    return third_party_before(sentence, local) or bool(RELATIVE.search(sentence.low, clause_start, local))


def _own_details(attributes: dict, low: str, end: int, next_start: int) -> dict:
    """Frequency and time of day belong to the drug they follow, not to the whole answer."""
    own = low[end:next_start]
    item = re.split(r"[,;，；]", own, maxsplit=1)[0]  # "нурофен, мазь": the ointment's route is not its
    for key in ("frequency", "time_of_day", "indication", "route"):
        if key in attributes and not _said_in(key, attributes[key], item if key == "route" else own):
            attributes.pop(key)
    return attributes


def _said_in(key: str, value: str, text: str) -> bool:
    words = {
        "morning": r"morning|утр|早上|早晨",
        "evening": r"evening|вечер|晚上",
        "bedtime": r"night|bed|ночь|сном|睡前",
        "midday": r"noon|lunch|обед|днем|中午",
    }
    if key == "time_of_day":
        return all(re.search(words.get(v.strip(), re.escape(v.strip())), text) for v in value.split(","))
    if key == "frequency":
        return bool(
            re.search(r"day|daily|week|раз|день|недел|дважды|трижды|need|необходим|天|次|bid|tid|prn", text)
        )
    if key == "route":  # "melatonin sometimes, and my inhaler": the inhaler's route is not melatonin's
        return any(v == value and p.search(text) for p, v in ROUTES)
    return bool(text.strip())


_EXCEPTION_BEFORE = rx(
    r"\b(?:just|only|except|but|apart\s+from|other\s+than|besides|только|кроме|разве\s+что|лишь|но)\b|除了|就|只"
)


def _unknown_names(
    text: str,
    offset: int,
    known: list[tuple[int, int, Term | None]],
    section: Section,
    listing: bool = True,
    after_no: bool = False,
) -> list[tuple[int, int, Term | None]]:
    """List items the table does not know but that look like a drug/allergen name. ``after_no``: the
    answer opened with a no; a lower-case word then names something only after "just", "only",
    "except" ("nope, just sulfamethoxazole"), not as the no's company ("No, thankfully.")."""
    out: list[tuple[int, int, Term | None]] = []
    low = fold_in_place(text)
    cursor = offset
    pieces = [*_ITEM_SPLIT.finditer(low, offset), None]
    for piece in pieces:
        end = piece.start() if piece else len(text)
        a, b = cursor, end
        cursor = piece.end() if piece else len(text)
        chunk = low[a:b]
        lead = _ITEM_LEAD.match(chunk.strip())
        a += len(chunk) - len(chunk.lstrip()) + (lead.end() if lead else 0)
        m = re.match(r"([^\W\d_][\w-]*)", text[a:b])
        if not m or CJK.search(m.group(1)):
            continue  # Chinese names come from the table (rules/chinese.py), not from word shapes
        word_start, word_end = a + m.start(1), a + m.end(1)
        if any(s <= word_start < e for s, e, _ in known):
            continue
        word = low[word_start:word_end]
        if len(word) < 4 or word in _NOT_A_NAME or word in FUNCTION_WORDS or word in VAGUE:
            continue
        if word in _NOT_A_DRUG:  # "ice, rest", "мазь": a remedy or a form, no drug's name
            continue
        if THIRD_PARTY.fullmatch(word) or RELATIVE.fullmatch(word):
            continue  # "my wife takes 20 mg": a person, no drug (and not the user's dose)
        if any(pattern.match(word) for _, _, pattern in _TOPICS):
            continue  # "аллергии нет", "no meds", "no allergies, just aspirin": a topic's word, no name
        if _QUIT_FORWARD.fullmatch(word) or _NOW.fullmatch(word) or _QUIT_VERB.match(word):
            continue  # "Раньше пил эналаприл", "Now only metformin": a time word, not a name
        if find_terms(kinds_for(Section.SYMPTOMS), word) or (
            section is Section.ALLERGIES and _REACTION_WORDS.search(word)
        ):
            continue
        if find_terms(kinds_for(Section.CHRONIC_CONDITIONS), text[word_start:word_end]):
            continue  # "Хронические заболевания есть? принимаете что-то?" / "гипотиреоз, пью эутирокс"
        if find_terms((*kinds_for(Section.SYMPTOMS), "body_site"), text[a:b]):
            continue  # "бросила его, голова болела": the item is a symptom, not a drug's name
        # "магний", "fish oil": a short list answer; a lower-case word inside a sentence is no name
        short_item = listing and len(low[a:b].split()) <= 2 and len(low.split()) <= 8
        if after_no and not _EXCEPTION_BEFORE.search(low, offset, word_start):
            short_item = False
        capitalised = text[word_start].isupper()
        if capitalised or short_item or re.search(r"\d", low[word_end : word_end + 8]):
            out.append((word_start, word_end, None))
    return out


# A question about the habit before now ("А до этого долго курили?", "did you smoke before?",
# "以前抽吗？"): an amount in the answer describes a former habit, not a current one.
_PAST_QUESTION = rx(
    r"\bдо\s+этого\b|\bраньше\b|\bпрежде\b|\bв\s+прошлом\b|\bbefore\s+(?:that|then)\b|\bin\s+the\s+past\b"
    r"|\bused\s+to\b|\bprior\s+to\s+that\b|以前|之前|过去"
)


_ZH_CUPS = re.compile(
    r"(?P<day>一天|每天|天天|一日|每日)?(?:就|只|才|大概|差不多|也就)?(?:喝)?(?P<n>\d+|[一两二三四五六七八九十半])(?:杯|罐)"
)
_ZH_REDUCED = re.compile(r"减少|少喝|减到|降到|只喝|现在.{0,4}就")


def _coffee_answer(answer: str) -> list[Draft]:
    """ "How much coffee?" / "cut down to one cup a day", "сократила до одной чашки", "现在一天就一杯了":
    less coffee is still coffee; only a quit stops it."""
    low = fold_in_place(answer)
    value: str | None = "former"
    if _QUIT.search(low) and not _NOW.search(low):
        status = FactStatus.STOPPED
    else:
        status, value = FactStatus.PRESENT, coffee_value(low)
        cups = _ZH_CUPS.search(answer) if value in (None, "reduced") else None
        if cups is not None:
            n = parse_number(cups.group("n")) if cups.group("n").isdigit() else zh_number(cups.group("n"))
            count = "half a" if cups.group("n") == "半" else f"{int(n)}" if n else cups.group("n")
            plural = "" if count in ("1", "half a") else "s"
            value = f"{count} cup{plural}{' a day' if cups.group('day') else ''}"
        elif value is None and _ZH_REDUCED.search(answer):
            value = "reduced"
    if value is None:
        return []
    return [_habit_draft("coffee", answer, status, value)]


def _city_answer(answer: str) -> list[Draft]:
    """ "What city do you live in?" / "Chengdu", "成都", "в Казани", "Казань": the city, read as the
    user's own statement of where they live (a word that is no city names none)."""
    if len(answer.split()) > 4 and not CJK.search(answer):
        return []
    if CJK.search(answer):
        said = f"我在{answer.strip()}"
    elif re.search(r"[а-яё]", answer, re.IGNORECASE):
        if not re.match(r"\W*(?:в|во)\s", answer, re.IGNORECASE):  # "Казань": the name alone
            city = city_nominative(answer.strip(" .!"), "loc")
            return [_city_draft(answer, city)] if city else []
        said = f"я живу {answer.strip()}"
    else:
        said = f"I live in {answer.strip()}"
    for sentence in split_sentences(said):
        draft = zh_city(sentence) if CJK.search(said) else demographics_city(sentence)
        if draft is not None:
            return [_city_draft(answer, draft.attributes["city"])]
    return []


def _city_draft(answer: str, city: str) -> Draft:
    return _draft(
        Section.DEMOGRAPHICS,
        answer,
        name=city,
        hint="city",
        status=FactStatus.PRESENT,
        attributes={"city": city},
    )


def _pain_where(answer: str) -> list[Draft]:
    """ "Where is your pain?" / "It's in my right lower back": the pain of the site said (the
    table's site pains only: "back pain", "headache", "knee pain")."""
    drafts: list[Draft] = []
    for site in find_terms(("body_site",), answer):
        key = site.entry.extra.get("symptom") or f"{site.entry.key}_pain"
        pain = next(iter(find_terms(("symptom",), key.replace("_", " "))), None)
        if pain is None or pain.entry.key != key or any(d.hint == pain.entry.name("en") for d in drafts):
            continue
        drafts.append(
            _draft(
                Section.SYMPTOMS,
                answer,
                name=pain.entry.name("en"),
                hint=pain.entry.name("en"),
                status=FactStatus.PRESENT,
                attributes={"body_site": site.entry.key},
            )
        )
    return drafts


_SLEEP_NUMBER = rx(
    r"\W*(?:maybe|about|around|like|roughly|часов|часа|около|где-?то|примерно)?\s*(?P<n>\d{1,2}(?:-\d{1,2})?)\W*"
)


def _sleep_answer(answer: str) -> list[Draft]:
    """ "How much do you sleep?" / "5-6 hours, badly", "часов 6", "五六个小时": the hours said; a
    plain "badly" or "fine" says no amount (sleeping badly is a symptom, read apart)."""
    low = fold_in_place(answer)
    value = sleep_value(low)
    if value is None:
        zh = re.search(r"(?P<n>\d{1,2}|[一两二三四五六七八九十]{1,2})(?:个)?(?:多)?(?:小时|钟头)", answer)
        value = f"{zh_sleep_hours(zh)} hours" if zh else None
    bare = _SLEEP_NUMBER.fullmatch(low) if value is None else None
    if bare is not None and 2 <= float(bare.group("n").split("-")[0]) <= 14:
        value = f"{bare.group('n')} hours"  # "maybe 4", "часов 6": the hours asked for
    return [_habit_draft("sleep", answer, FactStatus.PRESENT, value)] if value else []


def _habit_draft(slot: str, answer: str, status: FactStatus, value: str) -> Draft:
    return _draft(Section.LIFESTYLE, answer, name=slot, hint=slot, status=status, attributes={"value": value})


# A two-habit answer ("以前抽 戒了两年了 酒偶尔喝点", "курил, бросил. выпиваю по праздникам"): each
# habit's status is read from its own part, from its first mention to the other habit's.
_HABIT_WORDS = {
    "smoking": rx(r"抽|烟|\bкур|сигар|\bsmok|\bcig|\bvap"),
    "alcohol": rx(r"酒|喝|\bпь[юёе]|\bпить|выпива|алкогол|\bпив|\bвин[оа]|\bdrink|\bbeers?\b|\bwine|alcohol"),
}
_CLAUSE = re.compile(r"[^,，.。;；!?！？]+")
_CJK_SPACE = re.compile(rf"(?<={CJK.pattern})\s+(?={CJK.pattern})")


def _own_part(slot: str, low: str) -> str:
    own = _HABIT_WORDS.get(slot)
    if own is None:
        return low
    others = [words for name, words in _HABIT_WORDS.items() if name != slot]
    clauses = [part for c in _CLAUSE.finditer(low) for part in _CJK_SPACE.split(c.group())]
    start = next((i for i, clause in enumerate(clauses) if own.search(clause)), None)
    if start is None:
        return low
    other = (i for i in range(start + 1, len(clauses)) if not own.search(clauses[i]))
    end = next((i for i in other if any(words.search(clauses[i]) for words in others)), len(clauses))
    return " ".join(clauses[start:end])


def _habit(slot: str, answer: str, past: bool = False) -> list[Draft]:
    low = fold_in_place(answer)
    own = _own_part(slot, low)
    if _QUIT.search(own) or (past and not (_STILL.search(own) or _NOW.search(own))):
        return [_habit_draft(slot, answer, FactStatus.STOPPED, "former")]
    if slot == "smoking":
        how = _SMOKE_HOW.search(low)
        value = answer[how.start() : how.end()] if how else None
    else:
        value = next((v for pattern, v in _ALCOHOL_HOW if pattern.search(low)), None)
    if value in (None, "regularly") and HABIT_REDUCED.search(low):
        value = "reduced"  # "cut down (a lot)", "сократил", "少抽了": less of the habit, never stopped
    if value is None:
        return []
    return [_habit_draft(slot, answer, FactStatus.PRESENT, value)]


_MEASURE_NUMBER = re.compile(
    # "72,5" and "1,75" are decimals; "175,80公斤" (a Chinese comma made ASCII) is two numbers
    r"(?<![\d.])(?<!\d,)(?P<v>\d{1,2},\d{1,2}(?![\d,])|\d{1,3}(?:\.\d{1,2})?)(?![\d])\s*(?P<u>cm|см|厘米|m\b|м\b|米|kg|кг|кило\w*|公斤|千克|斤|lbs?|pounds)?"
)


def _measure(slot: str, answer: str, asked: list[str | None]) -> list[Draft]:
    """A height or weight answer: the numbers in it, read by unit and by range when both were
    asked ("168, вес 72.. хотя нет, уже 69": 168 cm, 69 kg; the last weight said is the one)."""
    both = "height_cm" in asked and "weight_kg" in asked
    found: dict[str, float] = {}
    said: dict[str, str] = {}
    for m in _MEASURE_NUMBER.finditer(fold_in_place(answer)):
        value, unit = float(m.group("v").replace(",", ".")), (m.group("u") or "")
        if unit in ("m", "м", "米") or (not unit and 1.3 <= value <= 2.3):
            kind, value = "height_cm", value * 100 if value < 3 else value
        elif unit in ("cm", "см", "厘米"):
            kind = "height_cm"
        elif unit:
            kind = "weight_kg"
            if unit.startswith(("lb", "pound")):
                value = round(value * 0.4536, 1)
            elif unit == "斤":
                value = value / 2
        elif both:
            kind = "height_cm" if 140 <= value <= 220 and "height_cm" not in found else "weight_kg"
        else:
            kind = slot
        if (kind == "height_cm" and 100 <= value <= 250) or (kind == "weight_kg" and 25 <= value <= 300):
            found[kind] = value  # a later value corrects an earlier one
            said[kind] = m.group(0).strip()
    if slot not in found:
        return []
    return [
        _draft(
            Section.DEMOGRAPHICS,
            answer,
            name=said[slot],  # its own number: "178, вес 92" is no weight twice
            hint=slot,
            status=FactStatus.PRESENT,
            attributes={slot: found[slot]},
        )
    ]


def _age(answer: str, ctx: Context) -> list[Draft]:
    if ctx.today is None:
        return []
    m = re.search(
        r"(?<![\d.,])(\d{1,3})(?![\d.,]*\d)|^\s*([a-z]+(?:[\s-][a-z]+)?)\s*(?:years?|yrs?|$)",
        fold_in_place(answer),
    )
    if not m:
        return []
    age = parse_number(m.group(1) or m.group(2) or "")
    if age is None or age != int(age) or not 1 <= age <= 120:
        return []
    # its own number: "34, рост 168" is no height (the name keys a demographic slot)
    return _birth_year_draft(answer, ctx.today.year - int(age), said=m.group(0))


def _birth_year_draft(answer: str, year: int, said: str | None = None) -> list[Draft]:
    name = (said or answer).strip()[:40]
    attributes = {"birth_year": year}
    return [
        _draft(
            Section.DEMOGRAPHICS,
            answer,
            name=name,
            hint="birth_year",
            status=FactStatus.PRESENT,
            attributes=attributes,
        )
    ]


# A year said whole ("1994", "in '88"), or by its last two digits with the Russian ordinal ending
# ("94й", "в 79-м", "88-го") or bare ("88"); a date of birth gives its year ("12.05.88").
_FULL_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_DATE_YEAR = re.compile(r"(?<!\d)\d{1,2}[./-]\d{1,2}[./-](\d{2})(?!\d)")
_SHORT_YEAR = rx(
    r"^\W*(?:(?:в|с|born\s+in|in|it\s+was|year|год)\s+)?'?(\d{2})(?:\s*-?\s*(?:й|ий|ый|ой|м|ом|го|г\.?|года?))?"
    r"(?:\s+(?:года?|г\.?|рождения|year))*(?:\s*[,.!;:]\s*\w+)?\W*$"
)
_SAID_AS_AGE = rx(r"\d\s*(?:years?\s+old|yrs?\b|y/?o\b|лет\b|годиков|岁)")


def _birth_year(answer: str, ctx: Context) -> list[Draft]:
    """ "Ваш год рождения?" / "94й", "What year were you born?" / "88": a birth year (1994, 1988);
    the century is the one that makes the user at least 10 years old on the day it was said."""
    low = fold_in_place(answer)
    if _SAID_AS_AGE.search(low):
        return _age(answer, ctx)  # "мне 32 года": an age after all
    full = _FULL_YEAR.findall(low)
    short = _DATE_YEAR.search(low) or _SHORT_YEAR.match(low)
    if len(full) == 1:
        year = int(full[0])
    elif not full and short is not None and ctx.today is not None:
        two = int(short.group(1))
        year = 2000 + two if 2000 + two <= ctx.today.year - 10 else 1900 + two
    else:
        return []
    if ctx.today is not None and not ctx.today.year - 120 <= year <= ctx.today.year:
        return []
    return _birth_year_draft(answer, year)
