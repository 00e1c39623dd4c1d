"""Medication patterns read through the whole write path, in Russian, English and Chinese: a dose
change says the drug is being taken (with the new value, its unit said or not), a doctor who
starts you on a drug or gives it to you, and short list answers of supplements."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M = Section.MEDICATIONS


@pytest.mark.parametrize(
    ("first", "then", "key", "value"),
    [
        (
            "My psychiatrist started me on escitalopram.",
            "They increased it to 15 last month.",
            "escitalopram",
            15,
        ),
        (
            "The GP prescribed atorvastatin.",
            "Upped it to 40 mg in March, cholesterol is fine now.",
            "atorvastatin",
            40,
        ),
        ("Кардиолог назначил бисопролол.", "Дозу увеличили до 5, пульс стал ровнее.", "bisoprolol", 5),
        ("Эндокринолог выписал метформин.", "Потом подняли дозу до 1000 мг.", "metformin", 1000),
        ("医生给我开了二甲双胍。", "上个月加到1000毫克了。", "metformin", 1000),
        ("医生给我开了氨氯地平。", "剂量加到10了。", "amlodipine", 10),
    ],
)
def test_a_dose_change_after_a_prescription_means_the_drug_is_taken(first, then, key, value) -> None:
    talk = Dialogue()
    talk.say((U, first))
    assert talk.fact(M, key) is not None
    talk.say((U, then))
    fact = talk.fact(M, key)
    assert fact.status is FactStatus.ACTIVE
    assert fact.attributes["dose_value"] == value


@pytest.mark.parametrize(
    ("first", "then", "key"),
    [
        ("The neurologist prescribed topiramate.", "They doubled the dose after a month.", "topiramate"),
        ("Врач прописал сертралин.", "Недавно врач увеличил мне дозу.", "sertraline"),
        ("医生给我开了舍曲林。", "后来医生给我加量了。", "sertraline"),
    ],
)
def test_a_dose_change_without_the_value_still_means_taken(first, then, key) -> None:
    talk = Dialogue()
    talk.say((U, first))
    talk.say((U, then))
    assert talk.fact(M, key).status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("The doctor bumped my lisinopril up to 20 last week.", "lisinopril", 20),
        ("My cardiologist raised the metoprolol to 50 mg.", "metoprolol", 50),
        ("Терапевт повысил мне дозу лозартана до 100.", "losartan", 100),
        ("氨氯地平加到10毫克了。", "amlodipine", 10),
    ],
)
def test_a_dose_change_naming_the_drug_is_taken_with_the_new_value(text, key, value) -> None:
    talk = Dialogue()
    talk.say((U, text))
    fact = talk.fact(M, key)
    assert fact.status is FactStatus.ACTIVE
    assert fact.attributes["dose_value"] == value


@pytest.mark.parametrize(
    "text",
    [
        "The endocrinologist started me on levothyroxine.",
        "My doctor put me on omeprazole for the reflux.",
        "Врач посадил меня на левотироксин.",
    ],
)
def test_a_doctor_starting_you_on_a_drug_means_you_take_it(text) -> None:
    talk = Dialogue()
    talk.say((U, text))
    key = "levothyroxine" if "thyrox" in text or "тирокс" in text else "omeprazole"
    assert talk.fact(M, key).status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Went to urgent care and the doctor gave me azithromycin for the chest infection.", "azithromycin"),
        ("My dentist gave me a prescription for amoxicillin.", "amoxicillin"),
        ("They gave me ondansetron at the hospital.", "ondansetron"),
        ("Была у терапевта, она дала мне ибупрофен.", "ibuprofen"),
        ("Врач выдал рецепт на азитромицин.", "azithromycin"),
        ("大夫给了我布洛芬。", "ibuprofen"),
        ("医生给我开了舒马曲坦，头疼的时候吃。", "sumatriptan"),
    ],
)
def test_a_drug_a_doctor_gave_is_stored(text, key) -> None:
    talk = Dialogue()
    talk.say((U, text))
    fact = talk.fact(M, key)
    assert fact is not None, talk.keys(M)
    assert fact.status in (FactStatus.PRESCRIBED, FactStatus.ACTIVE)


@pytest.mark.parametrize(
    "text",
    [
        "A friend gave me some ibuprofen.",  # no doctor: not a prescription
        "The doctor thinks the amoxicillin gave me the hives.",  # the drug before "gave me": a cause
        "My mom's doctor gave her metformin.",  # someone else's
        "Подруга дала мне ибупрофен.",
    ],
)
def test_gave_me_without_a_doctor_or_after_the_drug_is_no_prescription(text) -> None:
    talk = Dialogue()
    talk.say((U, text))
    assert not {f.key for f in talk.memory.facts if f.section is M and f.status is FactStatus.PRESCRIBED}


@pytest.mark.parametrize(
    ("question", "answer", "keys"),
    [
        (
            "What medications do you take regularly?",
            "Only magnesium and omega-3",
            {"magnesium", "omega_3_fatty_acids"},
        ),
        (
            "Any medications or supplements?",
            "fish oil, zinc and probiotics",
            {"omega_3_fatty_acids", "zinc", "probiotic"},
        ),
        ("Any medications or supplements?", "Just B12 and calcium", {"cyanocobalamin", "calcium"}),
        (
            "Какие лекарства вы принимаете постоянно?",
            "Омега-3 и магний",
            {"omega_3_fatty_acids", "magnesium"},
        ),
        ("Принимаете ли какие-то лекарства?", "Только рыбий жир и цинк", {"omega_3_fatty_acids", "zinc"}),
        ("Принимаете ли какие-то лекарства?", "Пробиотики и кальций", {"probiotic", "calcium"}),
        ("你平时吃什么药吗？", "只吃鱼油和钙片", {"omega_3_fatty_acids", "calcium"}),
        ("有在服用什么药物吗？", "益生菌和维生素B12", {"probiotic", "cyanocobalamin"}),
    ],
)
def test_a_short_list_of_supplements_is_every_one_taken(question, answer, keys) -> None:
    talk = Dialogue()
    talk.say((A, question), (U, answer))
    active = {f.key for f in talk.memory.facts if f.section is M and f.status is FactStatus.ACTIVE}
    assert keys <= active, active


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I take fish oil every morning.", "omega_3_fatty_acids"),
        ("Пью рыбий жир по утрам.", "omega_3_fatty_acids"),
        ("Принимаю магний на ночь.", "magnesium"),
        ("I'm on iron tablets for my anemia.", "iron"),
        ("每天吃深海鱼油。", "omega_3_fatty_acids"),
        ("每天吃一片锌片。", "zinc"),
    ],
)
def test_a_supplement_said_in_a_sentence_is_taken(text, key) -> None:
    talk = Dialogue()
    talk.say((U, text))
    fact = talk.fact(M, key)
    assert fact is not None, talk.keys(M)
    assert fact.status is FactStatus.ACTIVE


def test_a_gland_is_no_iron_and_no_unit_is_made_up() -> None:
    talk = Dialogue()
    talk.say((U, "Пью эутирокс для щитовидной железы."))
    assert talk.keys(M) == {"levothyroxine"}
    talk.say((U, "They bumped it up to 75."))
    fact = talk.fact(M, "levothyroxine")
    assert fact.attributes["dose_value"] == 75 and "dose_unit" not in fact.attributes
