"""The offline rule extractor reads Chinese: every section the Russian/English rules cover, the
Chinese ConText traps (negation, pseudo-negation, other people, questions), and a few realistic
multi-sentence messages. Each case lists assertions that must be present (subset check); a
``forbid`` entry lists what must not come out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from health_ltm.domain.attributes import validate_attributes
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.models import Assertion, AssertionKind, Experiencer, Message, Role
from health_ltm.domain.sections import ALLOWED_STATUSES, FactStatus, Section
from health_ltm.write.normalize import normalize_name
from health_ltm.write.rules import RuleExtractor
from health_ltm.write.rules.chinese import zh_number
from health_ltm.write.validate import dialogue_words, user_text, validate
from tests.unit.test_rules_table import NOTHING, NOW, check, extract, fact, key_of, section_level

S, K, F = Section, AssertionKind, FactStatus

CASES: list[tuple[str, list[dict]]] = [
    # medications: status cues, brands, dose, frequency, time of day
    (
        "我在吃拜新同 30mg，每天一次，早上吃。",
        [
            fact(
                S.MEDICATIONS,
                "nifedipine",
                F.ACTIVE,
                attrs={
                    "dose_value": 30,
                    "dose_unit": "mg",
                    "frequency": "once daily",
                    "time_of_day": "morning",
                    "atc_code": "C08CA05",
                },
            )
        ],
    ),
    ("我在服用立普妥", [fact(S.MEDICATIONS, "atorvastatin", F.ACTIVE)]),
    (
        "我每天吃格华止500毫克，一天两次",
        [fact(S.MEDICATIONS, "metformin", F.ACTIVE, attrs={"dose_value": 500, "frequency": "twice daily"})],
    ),
    (
        "络活喜5mg一天三次",
        [fact(S.MEDICATIONS, "amlodipine", F.ACTIVE, attrs={"frequency": "three times daily"})],
    ),
    (
        "我吃优甲乐，半片，早上空腹",
        [
            fact(
                S.MEDICATIONS,
                "levothyroxine",
                F.ACTIVE,
                attrs={"dose_value": 0.5, "dose_unit": "tablets", "time_of_day": "morning"},
            )
        ],
    ),
    (
        "睡前吃立普妥20毫克",
        [fact(S.MEDICATIONS, "atorvastatin", F.ACTIVE, attrs={"dose_value": 20, "time_of_day": "bedtime"})],
    ),
    ("头疼需要时吃布洛芬", [fact(S.MEDICATIONS, "ibuprofen", F.ACTIVE, attrs={"frequency": "as needed"})]),
    (
        "我用倍他乐克，一次一片",
        [fact(S.MEDICATIONS, "metoprolol", F.ACTIVE, attrs={"dose_value": 1, "dose_unit": "tablets"})],
    ),
    (
        "我在吃代文和科素亚",
        [fact(S.MEDICATIONS, "valsartan", F.ACTIVE), fact(S.MEDICATIONS, "losartan", F.ACTIVE)],
    ),
    (
        "我在吃拜新同，立普妥",
        [fact(S.MEDICATIONS, "nifedipine", F.ACTIVE), fact(S.MEDICATIONS, "atorvastatin", F.ACTIVE)],
    ),
    (
        "我在吃两种药：拜阿司匹灵、波立维",
        [fact(S.MEDICATIONS, "acetylsalicylic_acid", F.ACTIVE), fact(S.MEDICATIONS, "clopidogrel", F.ACTIVE)],
    ),
    ("我每天打胰岛素", [fact(S.MEDICATIONS, "insulin", F.ACTIVE, attrs={"route": "injection"})]),
    ("吃二甲双胍控制血糖", [fact(S.MEDICATIONS, "metformin", F.ACTIVE, attrs={"indication": "diabetes"})]),
    ("我停了立普妥", [fact(S.MEDICATIONS, "atorvastatin", F.STOPPED)]),
    ("立普妥已经停了", [fact(S.MEDICATIONS, "atorvastatin", F.STOPPED)]),
    ("我不吃阿司匹林了", [fact(S.MEDICATIONS, "acetylsalicylic_acid", F.STOPPED)]),
    ("我已经不吃波立维", [fact(S.MEDICATIONS, "clopidogrel", F.STOPPED)]),
    ("后来就没再吃格华止", [fact(S.MEDICATIONS, "metformin", F.STOPPED)]),
    ("医生给我开了络活喜", [fact(S.MEDICATIONS, "amlodipine", F.PRESCRIBED)]),
    ("医生开的药是优甲乐", [fact(S.MEDICATIONS, "levothyroxine", F.PRESCRIBED)]),
    ("医生建议我吃阿司匹林", [fact(S.MEDICATIONS, "acetylsalicylic_acid", F.PRESCRIBED)]),
    (
        "医生把拜新同换成了络活喜",
        [fact(S.MEDICATIONS, "nifedipine", F.STOPPED), fact(S.MEDICATIONS, "amlodipine", F.ACTIVE)],
    ),
    ("我不吃任何药", [section_level(S.MEDICATIONS, K.SECTION_ABSENT)]),
    ("我在吃Lipitor 20mg", [fact(S.MEDICATIONS, "atorvastatin", F.ACTIVE, attrs={"dose_value": 20})]),
    # allergies
    ("我对青霉素过敏", [fact(S.ALLERGIES, "penicillin", F.PRESENT, attrs={"allergen_type": "drug"})]),
    ("我海鲜过敏", [fact(S.ALLERGIES, "shellfish", F.PRESENT, attrs={"allergen_type": "food"})]),
    (
        "我的过敏原是尘螨和花粉",
        [fact(S.ALLERGIES, "dust_mite", F.PRESENT), fact(S.ALLERGIES, "pollen", F.PRESENT)],
    ),
    (
        "我对青霉素、头孢和花生过敏",
        [fact(S.ALLERGIES, "penicillin"), fact(S.ALLERGIES, "cephalosporins"), fact(S.ALLERGIES, "peanut")],
    ),
    ("我对青霉素不过敏", [fact(S.ALLERGIES, "penicillin", F.ABSENT)]),
    (
        "我对花生、海鲜都不过敏",
        [fact(S.ALLERGIES, "peanut", F.ABSENT), fact(S.ALLERGIES, "shellfish", F.ABSENT)],
    ),
    (
        "我对青霉素不过敏，对头孢过敏",
        [fact(S.ALLERGIES, "penicillin", F.ABSENT), fact(S.ALLERGIES, "cephalosporins", F.PRESENT)],
    ),
    (
        "我对青霉素过敏，吃了会起疹子，还会呼吸困难",
        [
            fact(
                S.ALLERGIES,
                "penicillin",
                F.PRESENT,
                attrs={"reaction": "breathing difficulty, rash", "severity": "severe"},
            )
        ],
    ),
    ("我对芒果过敏", [fact(S.ALLERGIES, "mango", F.PRESENT)]),
    ("小时候对牛奶过敏，后来好了", [fact(S.ALLERGIES, "milk", F.RESOLVED)]),
    ("我没有过敏", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("我没有任何过敏", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("我没有过敏史", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("我什么都不过敏", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("过敏史：无", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("我不知道自己有没有过敏", [section_level(S.ALLERGIES, K.SECTION_UNSURE)]),
    ("不清楚有没有过敏", [section_level(S.ALLERGIES, K.SECTION_UNSURE)]),
    # chronic conditions and reported diagnoses
    ("我有高血压", [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT, attrs={"icd10": "I10"})]),
    ("我患有糖尿病", [fact(S.CHRONIC_CONDITIONS, "diabetes", F.PRESENT)]),
    ("我被诊断出2型糖尿病", [fact(S.CHRONIC_CONDITIONS, "type_2_diabetes", F.PRESENT)]),
    ("去年确诊哮喘", [fact(S.CHRONIC_CONDITIONS, "asthma", F.PRESENT, attrs={"since": "2024"})]),
    ("我高血压十年了", [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT, attrs={"since": "2015"})]),
    ("我没有高血压", [fact(S.CHRONIC_CONDITIONS, "hypertension", F.ABSENT)]),
    (
        "高血压、糖尿病都没有",
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension", F.ABSENT),
            fact(S.CHRONIC_CONDITIONS, "diabetes", F.ABSENT),
        ],
    ),
    ("我小时候有哮喘，后来好了", [fact(S.CHRONIC_CONDITIONS, "asthma", F.RESOLVED)]),
    ("我以前有胃炎，后来好了", [fact(S.CHRONIC_CONDITIONS, "gastritis", F.RESOLVED)]),
    ("医生说我得了肺炎", [fact(S.REPORTED_DIAGNOSES, "pneumonia", F.PRESENT)]),
    ("我得过肺炎", [fact(S.REPORTED_DIAGNOSES, "pneumonia", F.RESOLVED)]),
    ("我没有慢性病", [section_level(S.CHRONIC_CONDITIONS, K.SECTION_ABSENT)]),
    ("我没有什么基础病", [section_level(S.CHRONIC_CONDITIONS, K.SECTION_ABSENT)]),
    (
        "我不仅有高血压，还有糖尿病",
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT),
            fact(S.CHRONIC_CONDITIONS, "diabetes", F.PRESENT),
        ],
    ),
    # symptoms
    ("我头疼", [fact(S.SYMPTOMS, "headache", F.PRESENT)]),
    ("头有点疼", [fact(S.SYMPTOMS, "headache", F.PRESENT, attrs={"severity": "mild"})]),
    ("我胃疼得厉害", [fact(S.SYMPTOMS, "abdominal_pain", F.PRESENT, attrs={"severity": "severe"})]),
    (
        "我咳嗽三天了",
        [fact(S.SYMPTOMS, "cough", F.PRESENT, attrs={"onset_days_ago": 3}, valid_from="2025-06-12")],
    ),
    ("昨天开始恶心", [fact(S.SYMPTOMS, "nausea", F.PRESENT, attrs={"onset_days_ago": 1})]),
    ("我失眠", [fact(S.SYMPTOMS, "insomnia", F.PRESENT)]),
    ("我发烧了", [fact(S.SYMPTOMS, "fever", F.PRESENT)]),
    ("膝盖疼", [fact(S.SYMPTOMS, "knee_pain", F.PRESENT, attrs={"body_site": "knee"})]),
    ("我不咳嗽", [fact(S.SYMPTOMS, "cough", F.ABSENT)]),
    ("我没发烧", [fact(S.SYMPTOMS, "fever", F.ABSENT)]),
    ("我头不疼了", [fact(S.SYMPTOMS, "headache", F.RESOLVED)]),
    ("我已经不咳嗽了", [fact(S.SYMPTOMS, "cough", F.RESOLVED)]),
    ("发烧退了", [fact(S.SYMPTOMS, "fever", F.RESOLVED)]),
    ("咳嗽好了", [fact(S.SYMPTOMS, "cough", F.RESOLVED)]),
    # family history
    ("我妈妈有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", F.PRESENT, attrs={"relative": "mother"})]),
    ("我母亲患有高血压", [fact(S.FAMILY_HISTORY, "hypertension", F.PRESENT, attrs={"relative": "mother"})]),
    ("我爸得过中风", [fact(S.FAMILY_HISTORY, "stroke", F.PRESENT, attrs={"relative": "father"})]),
    ("我外婆有高血压", [fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "grandmother"})]),
    ("我姥姥有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "grandmother"})]),
    (
        "我爷爷50岁得了糖尿病",
        [fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "grandfather", "age_at_onset": 50})],
    ),
    (
        "我外公有冠心病",
        [fact(S.FAMILY_HISTORY, "coronary_artery_disease", attrs={"relative": "grandfather"})],
    ),
    ("我哥哥患有哮喘", [fact(S.FAMILY_HISTORY, "asthma", attrs={"relative": "brother"})]),
    ("我妹妹有甲减", [fact(S.FAMILY_HISTORY, "hypothyroidism", attrs={"relative": "sister"})]),
    ("我女儿有哮喘", [fact(S.FAMILY_HISTORY, "asthma", attrs={"relative": "daughter"})]),
    ("我姑姑得了乳腺癌", [fact(S.FAMILY_HISTORY, "breast_cancer", attrs={"relative": "aunt"})]),
    ("我舅舅有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "uncle"})]),
    (
        "我有高血压，我妈也有",
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension"),
            fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"}),
        ],
    ),
    (
        "我和妈妈都有高血压",
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension"),
            fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"}),
        ],
    ),
    ("我有高血压家族史", [fact(S.FAMILY_HISTORY, "hypertension", F.PRESENT, attrs={"relative": "other"})]),
    ("家里人都没有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", F.ABSENT, attrs={"relative": "other"})]),
    ("家族里没有高血压", [fact(S.FAMILY_HISTORY, "hypertension", F.ABSENT, attrs={"relative": "other"})]),
    ("家族史没有", [section_level(S.FAMILY_HISTORY, K.SECTION_ABSENT)]),
    ("没有家族史", [section_level(S.FAMILY_HISTORY, K.SECTION_ABSENT)]),
    # surgeries
    ("我做过阑尾手术", [fact(S.SURGERIES, "appendectomy", F.PRESENT)]),
    ("2015年割了阑尾", [fact(S.SURGERIES, "appendectomy", F.PRESENT, attrs={"year": 2015})]),
    ("我做过阑尾切除手术", [fact(S.SURGERIES, "appendectomy", F.PRESENT)]),
    ("三年前切除了胆囊", [fact(S.SURGERIES, "cholecystectomy", F.PRESENT, attrs={"year": 2022})]),
    ("我生孩子是剖腹产", [fact(S.SURGERIES, "cesarean_section", F.PRESENT)]),
    ("我做过白内障手术", [fact(S.SURGERIES, "cataract_surgery", F.PRESENT)]),
    ("我没做过阑尾手术", [fact(S.SURGERIES, "appendectomy", F.ABSENT)]),
    ("我没做过手术", [section_level(S.SURGERIES, K.SECTION_ABSENT)]),
    ("手术史：无", [section_level(S.SURGERIES, K.SECTION_ABSENT)]),
    # demographics
    ("我今年35岁", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})]),
    ("我三十五岁", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})]),
    ("35岁了", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})]),
    ("我1990年出生", [fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})]),
    (
        "身高170，体重60公斤",
        [fact(S.DEMOGRAPHICS, attrs={"height_cm": 170}), fact(S.DEMOGRAPHICS, attrs={"weight_kg": 60})],
    ),
    (
        "我一米七，120斤",
        [fact(S.DEMOGRAPHICS, attrs={"height_cm": 170}), fact(S.DEMOGRAPHICS, attrs={"weight_kg": 60})],
    ),
    ("我一米七五", [fact(S.DEMOGRAPHICS, attrs={"height_cm": 175})]),
    ("身高170厘米", [fact(S.DEMOGRAPHICS, attrs={"height_cm": 170})]),
    ("我体重60kg", [fact(S.DEMOGRAPHICS, attrs={"weight_kg": 60})]),
    ("我是女的", [fact(S.DEMOGRAPHICS, attrs={"sex": "female"})]),
    ("我是男性", [fact(S.DEMOGRAPHICS, attrs={"sex": "male"})]),
    (
        "女，35岁",
        [fact(S.DEMOGRAPHICS, attrs={"sex": "female"}), fact(S.DEMOGRAPHICS, attrs={"birth_year": 1990})],
    ),
    ("我住在北京", [fact(S.DEMOGRAPHICS, attrs={"city": "北京"})]),
    ("我在上海", [fact(S.DEMOGRAPHICS, attrs={"city": "上海"})]),
    ("我怀孕了", [fact(S.DEMOGRAPHICS, "pregnancy", attrs={"pregnancy": "pregnant"})]),
    ("我怀孕20周", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "pregnant"})]),
    ("怀孕三个月", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "pregnant"})]),
    ("我在哺乳期", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "breastfeeding"})]),
    ("我在喂奶", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "breastfeeding"})]),
    ("母乳喂养中", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "breastfeeding"})]),
    ("我没有怀孕", [fact(S.DEMOGRAPHICS, attrs={"pregnancy": "not_pregnant"})]),
    # lifestyle
    ("我抽烟，一天一包", [fact(S.LIFESTYLE, "smoking", F.PRESENT, attrs={"value": "pack a day"})]),
    ("我每天抽半包烟", [fact(S.LIFESTYLE, "smoking", F.PRESENT, attrs={"value": "half a pack a day"})]),
    ("我吸烟", [fact(S.LIFESTYLE, "smoking", F.PRESENT)]),
    ("我不抽烟", [fact(S.LIFESTYLE, "smoking", F.ABSENT)]),
    ("我不吸烟", [fact(S.LIFESTYLE, "smoking", F.ABSENT)]),
    ("我从不抽烟", [fact(S.LIFESTYLE, "smoking", F.ABSENT)]),
    ("我戒烟了", [fact(S.LIFESTYLE, "smoking", F.STOPPED)]),
    ("我三年前戒烟了", [fact(S.LIFESTYLE, "smoking", F.STOPPED, valid_to="2022")]),
    ("我偶尔喝酒", [fact(S.LIFESTYLE, "alcohol", F.PRESENT, attrs={"value": "occasionally"})]),
    ("我每天喝酒", [fact(S.LIFESTYLE, "alcohol", F.PRESENT, attrs={"value": "daily"})]),
    ("我喝酒", [fact(S.LIFESTYLE, "alcohol", F.PRESENT)]),
    ("我不喝酒", [fact(S.LIFESTYLE, "alcohol", F.ABSENT)]),
    ("我戒酒了", [fact(S.LIFESTYLE, "alcohol", F.STOPPED)]),
    ("我不抽烟也不喝酒", [fact(S.LIFESTYLE, "smoking", F.ABSENT), fact(S.LIFESTYLE, "alcohol", F.ABSENT)]),
    ("我吃素", [fact(S.LIFESTYLE, "diet", F.PRESENT, attrs={"value": "vegetarian"})]),
    (
        "我每周跑步三次",
        [fact(S.LIFESTYLE, "physical_activity", F.PRESENT, attrs={"value": "running, 3 times a week"})],
    ),
    # ConText: pseudo-negation is no negation
    ("我不停地咳嗽", [fact(S.SYMPTOMS, "cough", F.PRESENT)]),
    ("咳嗽一直不好", [fact(S.SYMPTOMS, "cough", F.PRESENT)]),
    ("咳嗽还没好", [fact(S.SYMPTOMS, "cough", F.PRESENT)]),
    ("我无法入睡", [fact(S.SYMPTOMS, "insomnia", F.PRESENT)]),
    ("我不仅咳嗽，还发烧", [fact(S.SYMPTOMS, "cough", F.PRESENT), fact(S.SYMPTOMS, "fever", F.PRESENT)]),
    ("医生排除了肺炎", [fact(S.REPORTED_DIAGNOSES, "pneumonia", F.ABSENT)]),
    # ConText: other people and questions give nothing at all
    ("我朋友有高血压", NOTHING),
    ("我同事对花生过敏", NOTHING),
    ("我邻居有糖尿病，每天吃二甲双胍", NOTHING),
    ("我老公有糖尿病", NOTHING),
    ("我老婆在吃优甲乐", NOTHING),
    ("我丈夫抽烟", NOTHING),
    ("我妻子怀孕了", NOTHING),
    ("她有高血压", NOTHING),
    ("他在吃拜新同", NOTHING),
    ("我朋友头疼", NOTHING),
    ("我朋友建议我吃褪黑素", NOTHING),
    ("我儿子5岁", NOTHING),
    ("我的猫对花生过敏", NOTHING),
    ("如果我对青霉素过敏怎么办？", NOTHING),
    ("万一发烧了能吃布洛芬吗", NOTHING),
    ("要是头疼，我就吃布洛芬", NOTHING),
    ("我可以吃阿司匹林吗？", NOTHING),
    ("能不能喝酒？", NOTHING),
    ("我会不会有糖尿病？", NOTHING),
    ("我有糖尿病吗", NOTHING),
    ("我担心自己得了糖尿病", NOTHING),
    ("我不知道自己有没有糖尿病", NOTHING),
    ("我想戒烟", NOTHING),
    ("吃头孢不能喝酒", NOTHING),
    ("我从来没吃过阿司匹林", NOTHING),
    ("下个月要做阑尾手术", NOTHING),
    ("我在北京出差", NOTHING),
    ("我瘦了5公斤", NOTHING),
    ("如果怀孕了能吃吗？", NOTHING),
    ("我在备孕", NOTHING),
    ("我在吃氯雷他定治过敏", [fact(S.MEDICATIONS, "loratadine", F.ACTIVE, attrs={"indication": "allergy"})]),
    # more wording
    ("吃海鲜时会过敏", [fact(S.ALLERGIES, "shellfish", F.PRESENT)]),
    ("一吃海鲜就过敏", [fact(S.ALLERGIES, "shellfish", F.PRESENT)]),
    ("我对阿莫西林有过敏反应", [fact(S.ALLERGIES, "amoxicillin", F.PRESENT)]),
    ("对海鲜轻微过敏", [fact(S.ALLERGIES, "shellfish", F.PRESENT, attrs={"severity": "mild"})]),
    (
        "我对青霉素过敏，会过敏性休克",
        [fact(S.ALLERGIES, "penicillin", attrs={"reaction": "anaphylaxis", "severity": "severe"})],
    ),
    ("目前没有在吃药", [section_level(S.MEDICATIONS, K.SECTION_ABSENT)]),
    (
        "我血压高，医生让我吃络活喜",
        [fact(S.CHRONIC_CONDITIONS, "hypertension"), fact(S.MEDICATIONS, "amlodipine", F.PRESCRIBED)],
    ),
    (
        "我每天早晚各吃一片二甲双胍",
        [
            fact(
                S.MEDICATIONS,
                "metformin",
                F.ACTIVE,
                attrs={"frequency": "twice daily", "time_of_day": "morning, evening"},
            )
        ],
    ),
    (
        "优甲乐50微克，每天早上空腹吃",
        [fact(S.MEDICATIONS, "levothyroxine", F.ACTIVE, attrs={"dose_value": 50, "dose_unit": "mcg"})],
    ),
    ("阿司匹林我一直在吃", [fact(S.MEDICATIONS, "acetylsalicylic_acid", F.ACTIVE)]),
    (
        "我没有吃拜新同，我在吃络活喜",
        [fact(S.MEDICATIONS, "nifedipine", F.STOPPED), fact(S.MEDICATIONS, "amlodipine", F.ACTIVE)],
    ),
    ("我以前抽烟，现在不抽了", [fact(S.LIFESTYLE, "smoking", F.STOPPED)]),
    ("我家住北京朝阳区", [fact(S.DEMOGRAPHICS, attrs={"city": "北京"})]),
    ("妈妈说我小时候有哮喘", [fact(S.CHRONIC_CONDITIONS, "asthma", F.RESOLVED)]),
    ("我三年前得过带状疱疹", [fact(S.REPORTED_DIAGNOSES, "herpes_zoster", F.RESOLVED)]),
    (
        "我妈妈和我都有高血压",
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension"),
            fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"}),
        ],
    ),
]

CASES += [
    ("我吃拜新同三年了", [fact(S.MEDICATIONS, "nifedipine", F.ACTIVE, valid_from="2022")]),
    ("2020年开始服用二甲双胍", [fact(S.MEDICATIONS, "metformin", F.ACTIVE, valid_from="2020")]),
    ("上个月停了拜新同", [fact(S.MEDICATIONS, "nifedipine", F.STOPPED, valid_to="2025-05")]),
    ("我没有对任何药物过敏", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("无药物过敏史", [section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("拜新同我已经停药了", [fact(S.MEDICATIONS, "nifedipine", F.STOPPED)]),
    ("我父亲有高血压", [fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "father"})]),
    ("我弟弟有哮喘", [fact(S.FAMILY_HISTORY, "asthma", attrs={"relative": "brother"})]),
    ("我姐姐得过乳腺癌", [fact(S.FAMILY_HISTORY, "breast_cancer", attrs={"relative": "sister"})]),
    ("我儿子有哮喘", [fact(S.FAMILY_HISTORY, "asthma", attrs={"relative": "son"})]),
    ("我阿姨有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "aunt"})]),
    ("我叔叔得了肺癌", [fact(S.FAMILY_HISTORY, "lung_cancer", attrs={"relative": "uncle"})]),
    ("我奶奶没有糖尿病", [fact(S.FAMILY_HISTORY, "diabetes", F.ABSENT, attrs={"relative": "grandmother"})]),
    ("我切除了阑尾", [fact(S.SURGERIES, "appendectomy", F.PRESENT)]),
    ("我晚上吃立普妥", [fact(S.MEDICATIONS, "atorvastatin", F.ACTIVE, attrs={"time_of_day": "evening"})]),
    ("我对青霉素过敏，吃了会肿", [fact(S.ALLERGIES, "penicillin", attrs={"reaction": "swelling"})]),
    ("我花粉过敏，会打喷嚏", [fact(S.ALLERGIES, "pollen", attrs={"reaction": "sneezing, runny nose"})]),
    ("我被确诊为高血压", [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT)]),
    ("我的胃疼好了", [fact(S.SYMPTOMS, "abdominal_pain", F.RESOLVED)]),
    ("我牙疼", [fact(S.SYMPTOMS, "toothache", F.PRESENT)]),
    ("嗓子疼", [fact(S.SYMPTOMS, "sore_throat", F.PRESENT)]),
    (
        "睡前吃一片褪黑素",
        [fact(S.MEDICATIONS, "melatonin", F.ACTIVE, attrs={"time_of_day": "bedtime", "dose_value": 1})],
    ),
    ("我是北京人，现在住在上海", [fact(S.DEMOGRAPHICS, attrs={"city": "上海"})]),
    (
        "我已经不发烧了，但还有点咳嗽",
        [fact(S.SYMPTOMS, "fever", F.RESOLVED), fact(S.SYMPTOMS, "cough", F.PRESENT)],
    ),
    ("我男朋友住在上海", NOTHING),
    ("我婆婆有高血压", NOTHING),
    ("宝宝发烧了", NOTHING),
    ("我老婆35岁", NOTHING),
    ("我不太确定是不是高血压", NOTHING),
    (
        "我没有高血压，我妈也没有",
        [fact(S.FAMILY_HISTORY, "hypertension", F.ABSENT, attrs={"relative": "mother"})],
    ),
    (
        "我家族里有糖尿病史，我奶奶和我爸都有。",
        [
            fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "grandmother"}),
            fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "father"}),
        ],
    ),
    ("我有高血压，我朋友也有", [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT)]),
    (
        "我哥哥和我都有哮喘，我用万托林，需要的时候喷两下。",
        [
            fact(S.FAMILY_HISTORY, "asthma", attrs={"relative": "brother"}),
            fact(S.CHRONIC_CONDITIONS, "asthma", F.PRESENT),
            fact(S.MEDICATIONS, "salbutamol", F.ACTIVE, attrs={"frequency": "as needed"}),
        ],
    ),
    (
        "我以前吃过二甲双胍，后来停了，现在打胰岛素。",
        [fact(S.MEDICATIONS, "metformin", F.STOPPED), fact(S.MEDICATIONS, "insulin", F.ACTIVE)],
    ),
    (
        "我有点拉肚子，没发烧，也不恶心。",
        [
            fact(S.SYMPTOMS, "diarrhea", F.PRESENT),
            fact(S.SYMPTOMS, "fever", F.ABSENT),
            fact(S.SYMPTOMS, "nausea", F.ABSENT),
        ],
    ),
    (
        "我感冒好了，但是还在咳嗽。",
        [fact(S.REPORTED_DIAGNOSES, "common_cold", F.RESOLVED), fact(S.SYMPTOMS, "cough", F.PRESENT)],
    ),
    (
        "我身高一米六，体重一百斤，住在杭州。",
        [
            fact(S.DEMOGRAPHICS, attrs={"height_cm": 160}),
            fact(S.DEMOGRAPHICS, attrs={"weight_kg": 50}),
            fact(S.DEMOGRAPHICS, attrs={"city": "杭州"}),
        ],
    ),
    (
        "我没有在吃任何药，也没有慢性病，家族史也没有。",
        [
            section_level(S.MEDICATIONS, K.SECTION_ABSENT),
            section_level(S.CHRONIC_CONDITIONS, K.SECTION_ABSENT),
            section_level(S.FAMILY_HISTORY, K.SECTION_ABSENT),
        ],
    ),
    (
        "我对什么都不过敏，也没做过手术。",
        [section_level(S.ALLERGIES, K.SECTION_ABSENT), section_level(S.SURGERIES, K.SECTION_ABSENT)],
    ),
    ("我女儿三岁，对鸡蛋过敏。", NOTHING),
    ("高血压是什么原因引起的", NOTHING),
    ("高血压有什么症状", NOTHING),
]

# What must not come out next to what must: the trap is the point of the case.
FORBIDDEN: list[tuple[str, list[dict]]] = [
    ("我妈妈有糖尿病", [fact(S.CHRONIC_CONDITIONS), fact(S.REPORTED_DIAGNOSES)]),
    ("我妈妈对青霉素过敏", [fact(S.ALLERGIES)]),
    ("我妈妈有高血压，在吃拜新同", [fact(S.MEDICATIONS), fact(S.CHRONIC_CONDITIONS)]),
    ("我对青霉素过敏，会起疹子", [fact(S.SYMPTOMS), fact(S.ALLERGIES, "rash")]),
    ("我吃阿莫西林过敏", [fact(S.MEDICATIONS)]),
    ("我在吃氯雷他定治过敏", [fact(S.ALLERGIES)]),
    ("我有过敏性鼻炎", [fact(S.ALLERGIES), section_level(S.ALLERGIES, K.SECTION_ABSENT)]),
    ("我有高血压家族史", [fact(S.CHRONIC_CONDITIONS)]),
    ("头疼的时候吃布洛芬", [fact(S.SYMPTOMS)]),
    ("吃二甲双胍控制糖尿病", [fact(S.CHRONIC_CONDITIONS)]),
    ("我做过白内障手术", [fact(S.CHRONIC_CONDITIONS)]),
    ("我爷爷有高血压", [fact(S.CHRONIC_CONDITIONS)]),
    ("我抽烟，想戒烟", [fact(S.LIFESTYLE, "smoking", F.STOPPED)]),
    ("我在吃拜新同，可以喝酒吗？", [fact(S.LIFESTYLE)]),
    ("我不抽烟，不过我老公抽得很厉害，一天两包。", [fact(S.LIFESTYLE, "smoking", F.PRESENT)]),
    ("我今年28岁，怀孕16周。请问可以吃感冒药吗？", [fact(S.MEDICATIONS), fact(S.REPORTED_DIAGNOSES)]),
    ("我头疼了两天了，吃了布洛芬也不见好。", [fact(S.SYMPTOMS, "headache", F.RESOLVED)]),
]


def _matching(assertions: list[Assertion], expected: dict) -> list[Assertion]:
    out = []
    for a in assertions:
        if a.section != expected["section"] or a.kind != expected["kind"]:
            continue
        if expected.get("key") and key_of(a) != expected["key"]:
            continue
        if expected.get("status") and a.status != expected["status"]:
            continue
        out.append(a)
    return out


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_chinese_case(text: str, expected: list[dict]) -> None:
    check(extract(text), expected)


@pytest.mark.parametrize(("text", "forbidden"), FORBIDDEN)
def test_chinese_trap_yields_nothing_wrong(text: str, forbidden: list[dict]) -> None:
    found = extract(text)
    for f in forbidden:
        assert not _matching(found, f), (f, [a.model_dump() for a in found])


def test_trap_positives_still_come_out() -> None:
    check(
        extract("我妈妈有高血压，在吃拜新同"),
        [fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"})],
    )
    check(extract("我抽烟，想戒烟"), [fact(S.LIFESTYLE, "smoking", F.PRESENT)])
    check(extract("我在吃拜新同，可以喝酒吗？"), [fact(S.MEDICATIONS, "nifedipine", F.ACTIVE)])
    check(extract("我有高血压，能吃布洛芬吗？"), [fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT)])
    check(extract("我对青霉素过敏，会起疹子"), [fact(S.ALLERGIES, "penicillin", attrs={"reaction": "rash"})])


def assert_well_formed(messages: list[Message]) -> None:
    users = [m.text for m in messages if m.role is Role.USER]
    for a in RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section)):
        if a.refers_to_focus:
            continue  # a name-less follow-up (followups.py), resolved later against memory
        assert any(a.evidence in text for text in users), (a.evidence, users)
        assert a.evidence == a.evidence.strip() and len(a.evidence) >= 2
        assert validate_attributes(a.section, a.attributes) == a.attributes
        if a.kind is K.FACT:
            assert a.name and a.status in ALLOWED_STATUSES[a.section]
        candidates, rejection = validate(a, user_text(messages))
        assert rejection is None and candidates, (a, rejection)


@pytest.mark.parametrize("text", [t for t, _ in CASES + FORBIDDEN])
def test_every_output_validates_and_quotes_the_user(text: str) -> None:
    messages = [Message(role=Role.USER, text=text)]
    for a in RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section)):
        assert a.evidence in text and a.evidence == a.evidence.strip() and len(a.evidence) >= 2
        assert validate_attributes(a.section, a.attributes) == a.attributes
        if a.kind is K.FACT:
            assert a.name and a.status in ALLOWED_STATUSES[a.section]
        if a.section is S.FAMILY_HISTORY and a.kind is K.FACT:
            assert a.experiencer is Experiencer.RELATIVE
        else:
            assert a.experiencer is Experiencer.SELF
        candidates, rejection = validate(a, user_text(messages))
        assert rejection is None and candidates, (a, rejection)


def test_family_history_never_lands_in_the_users_own_sections() -> None:
    for text in ["我妈妈有糖尿病", "我爸爸有高血压，还得过中风", "我奶奶有哮喘", "我外公得了肺癌"]:
        sections = {a.section for a in extract(text)}
        assert sections == {S.FAMILY_HISTORY}, (text, sections)


def test_realistic_intake_message() -> None:
    text = (
        "你好，我今年45岁，男，身高175，体重80公斤。我有高血压十年了，一直在吃拜新同30mg，每天早上一次。"
        "去年医生又给我开了立普妥20mg，晚上吃。我爸爸有糖尿病，我妈妈有高血压。我不抽烟，偶尔喝酒。"
        "我对青霉素过敏，会起疹子。"
    )
    found = extract(text)
    check(
        found,
        [
            fact(S.DEMOGRAPHICS, attrs={"birth_year": 1980}),
            fact(S.DEMOGRAPHICS, attrs={"sex": "male"}),
            fact(S.DEMOGRAPHICS, attrs={"height_cm": 175}),
            fact(S.DEMOGRAPHICS, attrs={"weight_kg": 80}),
            fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT, attrs={"since": "2015"}),
            fact(
                S.MEDICATIONS,
                "nifedipine",
                F.ACTIVE,
                attrs={"dose_value": 30, "frequency": "once daily", "time_of_day": "morning"},
            ),
            fact(
                S.MEDICATIONS,
                "atorvastatin",
                F.PRESCRIBED,
                attrs={"dose_value": 20, "time_of_day": "evening"},
            ),
            fact(S.FAMILY_HISTORY, "diabetes", F.PRESENT, attrs={"relative": "father"}),
            fact(S.FAMILY_HISTORY, "hypertension", F.PRESENT, attrs={"relative": "mother"}),
            fact(S.LIFESTYLE, "smoking", F.ABSENT),
            fact(S.LIFESTYLE, "alcohol", F.PRESENT, attrs={"value": "occasionally"}),
            fact(S.ALLERGIES, "penicillin", F.PRESENT, attrs={"reaction": "rash"}),
        ],
    )
    assert not [a for a in found if a.section is S.SYMPTOMS]
    family = [a for a in found if a.section is S.FAMILY_HISTORY]
    assert {a.attributes["relative"] for a in family} == {"father", "mother"}


def test_realistic_symptom_message_with_a_friend_and_a_negation() -> None:
    found = extract("最近三天一直咳嗽，还有点发烧，但是不头疼。我朋友也咳嗽。我对青霉素过敏。")
    check(
        found,
        [
            fact(S.SYMPTOMS, "cough", F.PRESENT, attrs={"onset_days_ago": 3}),
            fact(S.SYMPTOMS, "fever", F.PRESENT),
            fact(S.SYMPTOMS, "headache", F.ABSENT),
            fact(S.ALLERGIES, "penicillin", F.PRESENT),
        ],
    )
    coughs = [a for a in found if a.section is S.SYMPTOMS and key_of(a) == "cough"]
    assert len(coughs) == 1 and "朋友" not in coughs[0].evidence


def test_realistic_pregnancy_message_with_section_level_answers() -> None:
    found = extract("我怀孕12周了，之前在吃优甲乐，现在还在吃，一天一片。我没有做过手术，也没有慢性病。")
    check(
        found,
        [
            fact(S.DEMOGRAPHICS, attrs={"pregnancy": "pregnant"}),
            fact(
                S.MEDICATIONS, "levothyroxine", F.ACTIVE, attrs={"dose_value": 1, "frequency": "once daily"}
            ),
            section_level(S.SURGERIES, K.SECTION_ABSENT),
            section_level(S.CHRONIC_CONDITIONS, K.SECTION_ABSENT),
        ],
    )


def test_a_relatives_whole_message_stays_family_history() -> None:
    found = extract("我妈妈有糖尿病，在吃二甲双胍，一天两次。她还有高血压。我自己没有慢性病。")
    check(
        found,
        [
            fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "mother"}),
            section_level(S.CHRONIC_CONDITIONS, K.SECTION_ABSENT),
        ],
    )
    assert not [a for a in found if a.section in (S.MEDICATIONS, S.SYMPTOMS)]
    assert not [a for a in found if a.section is S.CHRONIC_CONDITIONS and a.kind is K.FACT]


def test_she_is_the_relative_named_before_her() -> None:
    found = extract("我妈妈有糖尿病，她还有高血压，她在吃二甲双胍")
    check(
        found,
        [
            fact(S.FAMILY_HISTORY, "diabetes", attrs={"relative": "mother"}),
            fact(S.FAMILY_HISTORY, "hypertension", attrs={"relative": "mother"}),
        ],
    )
    assert {a.section for a in found} == {S.FAMILY_HISTORY}
    assert extract("我朋友有糖尿病，她还有高血压") == []


def test_she_in_a_new_sentence_takes_the_relative_in_focus() -> None:
    from health_ltm.domain.attributes import Relative
    from health_ltm.write.rules import chinese
    from health_ltm.write.rules.text import Context, split_sentences

    [first] = split_sentences("我外婆有糖尿病")
    assert chinese.relative_named(first) is Relative.GRANDMOTHER
    [second] = split_sentences("她还有高血压")
    [draft] = chinese.extract(second, Context(today=NOW.date(), relative_in_focus=Relative.GRANDMOTHER))
    assert draft.section is S.FAMILY_HISTORY and draft.attributes == {"relative": "grandmother"}
    assert chinese.extract(second, Context(today=NOW.date())) == []


def test_about_the_user_for_rules_that_name_nothing() -> None:
    from health_ltm.write.rules import chinese
    from health_ltm.write.rules.text import split_sentences

    for text, expected in [
        ("我停药了", True),
        ("我妈妈停药了", False),
        ("我朋友把药停了", False),
        ("如果不舒服就停了", False),
        ("可以停药吗？", False),
    ]:
        [sentence] = split_sentences(text)
        assert chinese.about_the_user(sentence, text.index("停")) is expected, text


def test_family_section_absent_carries_relative_other() -> None:
    [a] = [a for a in extract("家族史没有") if a.section is S.FAMILY_HISTORY]
    assert a.kind is K.SECTION_ABSENT and a.attributes == {"relative": "other"}


def test_age_needs_a_clock() -> None:
    messages = [Message(role=Role.USER, text="我今年35岁，我1990年出生")]
    found = RuleExtractor().extract(messages, list(Section))
    assert [a.attributes for a in found if a.section is S.DEMOGRAPHICS] == [{"birth_year": 1990}]
    assert not [
        a for a in RuleExtractor().extract([Message(role=Role.USER, text="我今年35岁")], list(Section))
    ]


def test_age_uses_the_day_the_message_was_sent() -> None:
    messages = [Message(role=Role.USER, text="我35岁了", at=datetime(2030, 1, 2, tzinfo=UTC))]
    found = RuleExtractor(clock=FixedClock(NOW)).extract(messages, [S.DEMOGRAPHICS])
    assert [a.attributes for a in found] == [{"birth_year": 1995}]


def test_assistant_words_are_never_read() -> None:
    messages = [Message(role=Role.ASSISTANT, text="您对青霉素过敏吗？您在吃拜新同吗？")]
    assert RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section)) == []


def test_brand_names_meet_the_inn_key() -> None:
    for brand, key in [
        ("拜新同", "nifedipine"),
        ("立普妥", "atorvastatin"),
        ("络活喜", "amlodipine"),
        ("波立维", "clopidogrel"),
        ("格华止", "metformin"),
        ("拜阿司匹灵", "acetylsalicylic_acid"),
        ("优甲乐", "levothyroxine"),
        ("倍他乐克", "metoprolol"),
        ("代文", "valsartan"),
        ("科素亚", "losartan"),
        ("雅施达", "perindopril"),
        ("安博维", "irbesartan"),
        ("捷诺维", "sitagliptin"),
        ("西格列汀二甲双胍", "sitagliptin+metformin"),
        ("泼尼松", "prednisone"),
        ("泼尼松龙", "prednisolone"),
    ]:
        assert normalize_name(S.MEDICATIONS, brand).key == key, brand
        check(extract(f"我在吃{brand}"), [fact(S.MEDICATIONS, key, F.ACTIVE)])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("35", 35),
        ("三十五", 35),
        ("十八", 18),
        ("二十", 20),
        ("一百二十", 120),
        ("一百二", 120),
        ("两", 2),
        ("四十二", 42),
        ("一百零五", 105),
        ("十", 10),
    ],
)
def test_chinese_numbers(text: str, value: int) -> None:
    assert zh_number(text) == value


def test_other_scripts_are_left_to_the_other_rules() -> None:
    from health_ltm.write.rules import chinese
    from health_ltm.write.rules.text import Context, split_sentences

    for text in ["I'm allergic to penicillin", "У меня аллергия на арахис", "Пью Энап 5 мг"]:
        for sentence in split_sentences(text):
            assert chinese.extract(sentence, Context(today=NOW.date())) == []


def test_one_assertion_per_drug_when_answering_with_a_dose() -> None:
    found = [a for a in extract("拜新同 30mg，每天一次") if a.section is S.MEDICATIONS]
    assert len(found) == 1 and found[0].attributes.get("frequency") == "once daily"


_PIECES = sorted({p for text, _ in CASES for p in text.replace("，", "。").split("。") if p})
_GLUE = st.sampled_from(["，", "。", "、", "", "？", "！", "；", "和", "但是", " "])


@st.composite
def _recombined(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6))
    glue = draw(st.lists(_GLUE, min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + g for p, g in zip(pieces, glue, strict=True))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_recombined(), min_size=1, max_size=3))
def test_recombined_chinese_never_breaks_the_contract(texts: list[str]) -> None:
    assert_well_formed([Message(role=Role.USER, text=t) for t in texts])


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            "我不没有对过敏吃在停了医生开头疼咳嗽妈妈朋友岁米斤怀孕抽烟喝酒，。？、0123mg"
        ),
        max_size=60,
    )
)
def test_arbitrary_chinese_never_raises(text: str) -> None:
    assert_well_formed([Message(role=Role.USER, text=text)])


def test_a_fragment_of_several_messages() -> None:
    messages = [
        Message(role=Role.USER, text="你好。我有高血压。"),
        Message(role=Role.ASSISTANT, text="好的，您在吃什么药？对什么药过敏吗？"),
        Message(role=Role.USER, text="我在吃拜新同，每天一片。对青霉素过敏。"),
        Message(role=Role.USER, text="I smoke."),
    ]
    found = RuleExtractor(clock=FixedClock(NOW)).extract(messages, list(Section))
    check(
        found,
        [
            fact(S.CHRONIC_CONDITIONS, "hypertension", F.PRESENT),
            fact(S.MEDICATIONS, "nifedipine", F.ACTIVE, attrs={"frequency": "once daily", "dose_value": 1}),
            fact(S.ALLERGIES, "penicillin", F.PRESENT),
            fact(S.LIFESTYLE, "smoking", F.PRESENT),
        ],
    )
    words = dialogue_words(messages)  # an answer's question is checked against the assistant's words
    assert all(validate(a, words)[1] is None for a in found if not a.refers_to_focus)
