"""Coverage of the synonym table's widening (version 2026-12-01.2): common drugs, symptoms and
conditions it lacked. Every name of an added entity (ru / en / zh and its main aliases) is found
by ``find_terms`` as one term of that entity, brands meet the INN key, and the table stays
unambiguous: keys are unique within a kind and no alias belongs to two entities of a kind."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from health_ltm.domain.sections import Section
from health_ltm.domain.text import CJK, fold_in_place
from health_ltm.write.normalize import _phrase_key, find_terms, kinds_for, normalize_name

S = Section

# key -> names that must each be found, whole, as that one entity (first: ru, en, zh names).
DRUGS: dict[str, list[str]] = {
    "citalopram": ["циталопрам", "citalopram", "西酞普兰", "Celexa", "Ципрамил", "Cipramil"],
    "venlafaxine": ["венлафаксин", "venlafaxine", "文拉法辛", "Effexor", "Effexor XR", "Велаксин"],
    "duloxetine": ["дулоксетин", "duloxetine", "度洛西汀", "Cymbalta", "Симбалта"],
    "bupropion": ["бупропион", "bupropion", "安非他酮", "Wellbutrin", "Wellbutrin XL", "Zyban"],
    "trazodone": ["тразодон", "trazodone", "曲唑酮", "Триттико", "Trittico", "Desyrel"],
    "mirtazapine": ["миртазапин", "mirtazapine", "米氮平", "Remeron", "Ремерон"],
    "oxycodone": ["оксикодон", "oxycodone", "羟考酮", "OxyContin", "Roxicodone"],
    "oxycodone+paracetamol": [
        "оксикодон + парацетамол",
        "oxycodone/paracetamol",
        "氨酚羟考酮",
        "Percocet",
        "Endocet",
        "oxycodone/acetaminophen",
    ],
    "hydrocodone+paracetamol": [
        "гидрокодон + парацетамол",
        "hydrocodone/paracetamol",
        "氨酚氢可酮",
        "Vicodin",
        "Norco",
        "Lortab",
        "hydrocodone/acetaminophen",
    ],
    "morphine": ["морфин", "morphine", "吗啡", "морфий", "MS Contin"],
    "codeine": ["кодеин", "codeine", "可待因"],
    "pravastatin": ["правастатин", "pravastatin", "普伐他汀", "Pravachol"],
    "glipizide": ["глипизид", "glipizide", "格列吡嗪", "Glucotrol", "Минидиаб"],
    "glibenclamide": [
        "глибенкламид",
        "glibenclamide",
        "格列本脲",
        "glyburide",
        "Манинил",
        "Maninil",
        "优降糖",
    ],
    "ranitidine": ["ранитидин", "ranitidine", "雷尼替丁", "Zantac", "Ранисан"],
    "fluticasone": ["флутиказон", "fluticasone", "氟替卡松", "Flonase", "Фликсоназе", "Flovent", "Назарел"],
    "lorazepam": ["лоразепам", "lorazepam", "劳拉西泮", "Ativan"],
    "clonazepam": ["клоназепам", "clonazepam", "氯硝西泮", "Klonopin", "Ривотрил"],
    "diazepam": ["диазепам", "diazepam", "地西泮", "Valium", "Реланиум", "Сибазон", "Седуксен"],
    "risperidone": ["рисперидон", "risperidone", "利培酮", "Risperdal", "Рисполепт"],
    "aripiprazole": ["арипипразол", "aripiprazole", "阿立哌唑", "Abilify", "Абилифай"],
    "olanzapine": ["оланзапин", "olanzapine", "奥氮平", "Zyprexa", "Зипрекса"],
    "lithium": ["лития карбонат", "lithium", "碳酸锂", "lithium carbonate", "карбонат лития", "Седалит"],
    "topiramate": ["топирамат", "topiramate", "托吡酯", "Topamax", "Топамакс"],
    "colchicine": ["колхицин", "colchicine", "秋水仙碱", "Colcrys", "Колхикум-Дисперт"],
    "cefalexin": ["цефалексин", "cefalexin", "头孢氨苄", "cephalexin", "Keflex"],
    "clindamycin": ["клиндамицин", "clindamycin", "克林霉素", "Cleocin", "Далацин", "Dalacin"],
    "sulfamethoxazole+trimethoprim": [
        "ко-тримоксазол",
        "co-trimoxazole",
        "复方磺胺甲噁唑",
        "Бисептол",
        "Bactrim",
        "复方新诺明",
        "TMP-SMX",
        "sulfamethoxazole/trimethoprim",
    ],
    "amphetamine": ["амфетамин", "amphetamine", "苯丙胺", "Adderall", "mixed amphetamine salts"],
    "methylphenidate": [
        "метилфенидат",
        "methylphenidate",
        "哌甲酯",
        "Ritalin",
        "Concerta",
        "Риталин",
        "利他林",
        "专注达",
    ],
    "clonidine": ["клонидин", "clonidine", "可乐定", "Клофелин", "Catapres", "Kapvay"],
}

SYMPTOMS: dict[str, list[str]] = {
    "lump": ["шишка", "lump", "肿块", "уплотнение", "a mass"],
    "bleeding": ["кровотечение", "bleeding", "出血"],
    "bruising": ["синяки", "bruising", "瘀青", "bruises", "синяк"],
    "burning_sensation": ["жжение", "burning sensation", "烧灼感"],
    "stiffness": ["скованность", "stiffness", "僵硬", "morning stiffness"],
    "muscle_cramps": ["судороги", "muscle cramps", "抽筋", "cramps", "leg cramps", "сводит ногу"],
    "wheezing": ["хрипы", "wheezing", "喘鸣", "свист в груди", "wheeze"],
    "fainting": ["обморок", "fainting", "晕厥", "syncope", "passed out", "потеряла сознание"],
    "bloating": ["вздутие", "bloating", "腹胀", "вздутие живота", "bloated"],
    "indigestion": ["несварение", "indigestion", "消化不良", "dyspepsia", "несварение желудка"],
    "nasal_congestion": ["заложенность носа", "nasal congestion", "鼻塞", "заложен нос", "stuffy nose"],
    "sneezing": ["чихание", "sneezing", "打喷嚏", "чихаю"],
    "night_sweats": ["ночная потливость", "night sweats", "盗汗", "потею по ночам"],
    "weight_loss": ["похудение", "weight loss", "体重下降", "потеря веса", "похудела", "lost weight"],
    "weight_gain": ["набор веса", "weight gain", "体重增加", "набрала вес", "gained weight"],
    "confusion": ["спутанность сознания", "confusion", "意识模糊", "disoriented"],
    "memory_loss": ["ухудшение памяти", "memory loss", "记忆力减退", "потеря памяти", "forgetful"],
    "blurred_vision": ["нечёткое зрение", "нечеткое зрение", "blurred vision", "视力模糊", "blurry vision"],
    "tinnitus": ["шум в ушах", "tinnitus", "耳鸣", "звон в ушах", "ringing in my ears"],
    "pelvic_pain": ["боль в малом тазу", "pelvic pain", "盆腔痛", "боли в малом тазу"],
    "frequent_urination": ["частое мочеиспускание", "frequent urination", "尿频", "учащённое мочеиспускание"],
    "painful_urination": [
        "боль при мочеиспускании",
        "painful urination",
        "尿痛",
        "dysuria",
        "жжение при мочеиспускании",
        "burning when I pee",
    ],
    "blood_in_urine": ["кровь в моче", "blood in urine", "血尿", "hematuria", "гематурия"],
    "vaginal_discharge": ["выделения из влагалища", "vaginal discharge", "白带异常", "вагинальные выделения"],
    "sleepiness": ["сонливость", "sleepiness", "嗜睡", "drowsy", "somnolence"],
    "nosebleed": ["носовое кровотечение", "nosebleed", "流鼻血", "鼻出血"],
    "menstrual_pain": ["болезненные месячные", "menstrual pain", "痛经", "period cramps"],
}

CONDITIONS: dict[str, list[str]] = {
    "systemic_lupus_erythematosus": [
        "системная красная волчанка",
        "systemic lupus erythematosus",
        "系统性红斑狼疮",
        "волчанка",
        "lupus",
        "SLE",
        "СКВ",
        "红斑狼疮",
    ],
    "prediabetes": ["преддиабет", "prediabetes", "糖尿病前期", "prediabetic", "pre-diabetic", "предиабет"],
    "fibromyalgia": ["фибромиалгия", "fibromyalgia", "纤维肌痛"],
    "crohns_disease": ["болезнь Крона", "Crohn's disease", "克罗恩病", "Crohn's"],
    "cirrhosis": ["цирроз печени", "cirrhosis", "肝硬化", "цирроз"],
    "hepatitis": ["гепатит", "hepatitis", "肝炎"],
    "hepatitis_a": ["гепатит A", "hepatitis A", "甲肝", "гепатит а", "甲型肝炎"],
    "hepatitis_b": ["гепатит B", "hepatitis B", "乙肝", "乙型肝炎"],
    "hepatitis_c": ["гепатит C", "hepatitis C", "丙肝"],
    "autism": ["аутизм", "autism", "自闭症", "autistic", "孤独症"],
    "bipolar_disorder": ["биполярное расстройство", "bipolar disorder", "双相情感障碍", "bipolar", "躁郁症"],
    "schizophrenia": ["шизофрения", "schizophrenia", "精神分裂症"],
    "ptsd": [
        "птср",
        "post-traumatic stress disorder",
        "创伤后应激障碍",
        "PTSD",
        "посттравматическое стрессовое расстройство",
    ],
    "neuropathy": ["нейропатия", "neuropathy", "周围神经病变", "полинейропатия", "peripheral neuropathy"],
    "sciatica": ["ишиас", "sciatica", "坐骨神经痛"],
    "scoliosis": ["сколиоз", "scoliosis", "脊柱侧弯"],
    "hyperuricemia": ["гиперурикемия", "hyperuricemia", "高尿酸血症", "血尿酸高"],
    # colloquial "a person with ..." forms
    "coronary_artery_disease": ["сердечник", "сердечники", "сердечница", "heart disease"],
    "hypertension": ["гипертоник", "гипертоники", "гипертоничка"],
    "asthma": ["астматик", "астматичка"],
    "diabetes": ["диабетик", "диабетики", "diabetic"],
}

KIND_OF = {"drug": DRUGS, "symptom": SYMPTOMS, "condition": CONDITIONS}
CASES = [
    (kind, key, name) for kind, table in KIND_OF.items() for key, names in table.items() for name in names
]


def _raw() -> dict:
    return json.loads(resources.files("health_ltm.data").joinpath("synonyms.json").read_text("utf-8"))


def _entries(kind: str) -> list[dict]:
    return _raw()[kind]


@pytest.mark.parametrize(("kind", "key", "name"), CASES, ids=[f"{k}:{n}" for _, k, n in CASES])
def test_every_name_is_found_whole_as_its_entity(kind: str, key: str, name: str) -> None:
    terms = find_terms((kind,), name)
    assert [t.entry.key for t in terms] == [key], (
        name,
        [(t.entry.key, name[t.start : t.end]) for t in terms],
    )
    assert (terms[0].start, terms[0].end) == (0, len(name)), name


@pytest.mark.parametrize("kind", list(KIND_OF))
def test_the_listed_entities_are_in_the_table_with_their_names(kind: str) -> None:
    by_key = {e["key"]: e for e in _entries(kind)}
    for key in KIND_OF[kind]:
        entry = by_key[key]
        assert entry["en"] and entry["ru"] and entry["zh"], key
        if kind == "condition":
            assert isinstance(entry["chronic"], bool), key
        assert "code" in entry, key


def test_brands_meet_the_inn_key_in_a_sentence() -> None:
    cases = [
        ("Пью Ципрамил 20 мг", "citalopram"),
        ("I take Celexa every morning", "citalopram"),
        ("Мне назначили Велаксин", "venlafaxine"),
        ("I'm on Cymbalta 60 mg", "duloxetine"),
        ("Принимаю Симбалту", "duloxetine"),
        ("Started Wellbutrin last month", "bupropion"),
        ("Пью Триттико на ночь", "trazodone"),
        ("Remeron 15 mg at bedtime", "mirtazapine"),
        ("I was on OxyContin after surgery", "oxycodone"),
        ("They gave me Percocet", "oxycodone+paracetamol"),
        ("I take Norco for my back", "hydrocodone+paracetamol"),
        ("Пью Манинил", "glibenclamide"),
        ("glyburide 5 mg", "glibenclamide"),
        ("Пшикаю Фликсоназе", "fluticasone"),
        ("Flonase every day", "fluticasone"),
        ("Ativan as needed", "lorazepam"),
        ("Klonopin 0.5 mg", "clonazepam"),
        ("Принимала Реланиум", "diazepam"),
        ("Сибазон по назначению", "diazepam"),
        ("Risperdal 2 mg", "risperidone"),
        ("Abilify 5 mg", "aripiprazole"),
        ("Zyprexa at night", "olanzapine"),
        ("Topamax for migraines", "topiramate"),
        ("Keflex 500 mg", "cefalexin"),
        ("Пила Далацин", "clindamycin"),
        ("Бисептол от цистита", "sulfamethoxazole+trimethoprim"),
        ("Adderall XR 20 mg", "amphetamine"),
        ("Concerta 36 mg", "methylphenidate"),
        ("Пью Клофелин", "clonidine"),
        ("我在吃西酞普兰", "citalopram"),
        ("每天吃碳酸锂", "lithium"),
    ]
    for text, key in cases:
        assert [t.entry.key for t in find_terms(("drug",), text)] == [key], text
        assert normalize_name(S.MEDICATIONS, text).key == key, text


def test_inflected_forms_and_names_in_the_users_script() -> None:
    assert normalize_name(S.MEDICATIONS, "ципрамилом").key == "citalopram"
    assert normalize_name(S.MEDICATIONS, "реланиума").key == "diazepam"
    assert normalize_name(S.SYMPTOMS, "судорогами").key == "muscle_cramps"
    assert normalize_name(S.SYMPTOMS, "кровотечения").key == "bleeding"
    assert normalize_name(S.CHRONIC_CONDITIONS, "волчанкой").key == "systemic_lupus_erythematosus"
    assert normalize_name(S.CHRONIC_CONDITIONS, "шизофрении").key == "schizophrenia"
    celexa = normalize_name(S.MEDICATIONS, "Celexa")
    assert (celexa.key, celexa.name_normalized, celexa.code) == ("citalopram", "citalopram", "N06AB04")
    ru = normalize_name(S.MEDICATIONS, "Ципрамил")
    assert (ru.key, ru.name_normalized) == ("citalopram", "циталопрам")
    zh = normalize_name(S.SYMPTOMS, "耳鸣")
    assert (zh.key, zh.name_normalized, zh.code) == ("tinnitus", "耳鸣", "H93.1")


def test_longer_phrases_win_over_the_generic_entity() -> None:
    symptoms = kinds_for(S.SYMPTOMS)
    assert [t.entry.key for t in find_terms(symptoms, "жжение при мочеиспускании")] == ["painful_urination"]
    assert [t.entry.key for t in find_terms(symptoms, "носовое кровотечение")] == ["nosebleed"]
    assert [t.entry.key for t in find_terms(symptoms, "stomach cramps")] == ["abdominal_pain"]
    assert [t.entry.key for t in find_terms(symptoms, "period cramps")] == ["menstrual_pain"]
    assert [t.entry.key for t in find_terms(symptoms, "鼻出血")] == ["nosebleed"]
    conditions = kinds_for(S.CHRONIC_CONDITIONS)
    assert [t.entry.key for t in find_terms(conditions, "гепатит C")] == ["hepatitis_c"]
    assert [t.entry.key for t in find_terms(conditions, "乙型肝炎")] == ["hepatitis_b"]
    assert [t.entry.key for t in find_terms(conditions, "血尿酸高")] == ["hyperuricemia"]
    assert [t.entry.key for t in find_terms(conditions, "脑出血")] == ["stroke"]


def test_runny_and_blocked_nose_are_two_symptoms() -> None:
    assert normalize_name(S.SYMPTOMS, "насморк").key == "runny_nose"
    assert normalize_name(S.SYMPTOMS, "заложен нос").key == "nasal_congestion"


@pytest.mark.parametrize(
    ("section", "word"),
    [
        # frequent words near (or, stemmed, equal to) an added name: they are the word
        (S.MEDICATIONS, "концерт"),  # "Концерта" is not listed: its stem is "концерт"
        (S.MEDICATIONS, "кофеин"),  # not codeine (кодеин)
        (S.MEDICATIONS, "морщины"),  # not морфин
        (S.MEDICATIONS, "назрел"),  # not Назарел
        (S.MEDICATIONS, "ability"),  # not Abilify
        (S.MEDICATIONS, "concert"),  # not Concerta
        (S.MEDICATIONS, "morphing"),  # not morphine
        (S.MEDICATIONS, "metadata"),  # not Metadate
        (S.MEDICATIONS, "mitigate"),  # not Mitigare
        (S.MEDICATIONS, "лить"),  # "литий" is not listed bare: its stem is "лит"
        (S.CHRONIC_CONDITIONS, "nephropathy"),  # another disease, not neuropathy
        (S.CHRONIC_CONDITIONS, "artistic"),  # not autistic
        (S.CHRONIC_CONDITIONS, "артист"),  # not аутист
    ],
)
def test_common_words_near_added_names_are_not_corrected(section: Section, word: str) -> None:
    assert not find_terms(kinds_for(section), word, fuzzy=True), word
    assert normalize_name(section, word).code is None, word


def test_keys_are_unique_within_a_kind() -> None:
    for kind, entries in _raw().items():
        if kind.startswith("_") or not isinstance(entries, list):
            continue
        keys = [e["key"] for e in entries]
        assert len(keys) == len(set(keys)), (kind, sorted({k for k in keys if keys.count(k) > 1}))


def test_no_alias_names_two_entities_of_a_kind() -> None:
    """Compared as the table is indexed: stemmed phrases, CJK aliases folded."""
    for kind, entries in _raw().items():
        if kind.startswith("_") or not isinstance(entries, list):
            continue
        owners: dict[str, str] = {}
        for entry in entries:
            for alias in [entry.get("ru"), entry.get("en"), entry.get("zh"), *entry.get("aliases", [])]:
                if not alias:
                    continue
                phrase = fold_in_place(alias) if CJK.search(alias) else _phrase_key(alias)
                assert owners.setdefault(phrase, entry["key"]) == entry["key"], (kind, alias, owners[phrase])


def test_the_version_was_bumped() -> None:
    assert _raw()["version"] >= "2026-12-01.2"
