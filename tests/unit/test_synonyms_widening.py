"""The synonym table's second widening (version 2026-12-02.1): symptoms, chronic and acute
conditions, operations, vaccines, injuries, allergens and drugs people name in a chat, in three
languages. Each added name is found whole as its entity, a sentence that says it is remembered in
the right section, and the added names stay out of ordinary words: the read path's classifier
takes a Latin name as a whole word (with its plural), the spelling-variant matcher leaves frequent
words alone."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section
from health_ltm.read.classify import QueryClassifier
from health_ltm.write.normalize import find_terms, kinds_for, normalize_name
from tests.unit.test_dialogue_memory import Dialogue

S = Section
U, A = Role.USER, Role.ASSISTANT

# kind -> key -> names (ru, en, zh first), each found whole as that entity
ADDED: dict[str, dict[str, list[str]]] = {
    "symptom": {
        "excessive_thirst": ["жажда", "excessive thirst", "口渴", "thirsty all the time"],
        "hair_loss": ["выпадение волос", "hair loss", "掉头发", "losing my hair"],
        "hot_flashes": ["приливы жара", "hot flashes", "潮热"],
        "mouth_ulcers": ["язвочки во рту", "mouth ulcers", "口腔溃疡"],
        "restless_legs": ["синдром беспокойных ног", "restless legs", "不宁腿"],
        "knee_pain": ["боль в колене", "knee pain", "膝盖疼"],
    },
    "condition": {
        "thyroid_nodule": ["узлы щитовидной железы", "thyroid nodules", "甲状腺结节"],
        "hemorrhoids": ["геморрой", "hemorrhoids", "痔疮"],
        "nafld": ["жировой гепатоз", "fatty liver", "脂肪肝"],
        "plantar_fasciitis": ["подошвенный фасциит", "plantar fasciitis", "足底筋膜炎"],
        "appendicitis": ["острый аппендицит", "acute appendicitis", "阑尾炎"],
        "gastroenteritis": ["пищевое отравление", "food poisoning", "食物中毒"],  # one entity with rotavirus
    },
    "surgery": {
        "tubal_ligation": ["перевязка маточных труб", "tubal ligation", "输卵管结扎"],
        "rotator_cuff_repair": ["rotator cuff repair"],
        "mastectomy": ["мастэктомия", "mastectomy", "乳房切除术"],
    },
    "vaccine": {"rotavirus": ["от ротавируса", "rotavirus vaccine", "轮状病毒疫苗"]},
    "injury": {"rotator_cuff_tear": ["разрыв вращательной манжеты", "rotator cuff tear", "肩袖撕裂"]},
    "allergen": {"kiwi": ["киви", "kiwi", "猕猴桃"]},
    "drug": {
        "tirzepatide": ["тирзепатид", "tirzepatide", "替尔泊肽", "Mounjaro", "Zepbound"],
        "cyclobenzaprine": ["циклобензаприн", "cyclobenzaprine", "环苯扎林", "Flexeril"],
        "umifenovir": ["умифеновир", "Арбидол"],
        "lianhua_qingwen": ["连花清瘟"],
    },
}
CASES = [(kind, key, name) for kind, table in ADDED.items() for key, names in table.items() for name in names]


@pytest.mark.parametrize(("kind", "key", "name"), CASES, ids=[f"{k}:{n}" for _, k, n in CASES])
def test_every_added_name_is_found_whole_as_its_entity(kind: str, key: str, name: str) -> None:
    terms = find_terms((kind,), name)
    assert [t.entry.key for t in terms] == [key], [(t.entry.key, name[t.start : t.end]) for t in terms]
    assert (terms[0].start, terms[0].end) == (0, len(name)), name


@pytest.mark.parametrize(
    ("said", "section", "key"),
    [
        ("I have thyroid nodules", S.CHRONIC_CONDITIONS, "thyroid_nodule"),
        ("у меня геморрой уже лет пять", S.CHRONIC_CONDITIONS, "hemorrhoids"),
        ("我有脂肪肝", S.CHRONIC_CONDITIONS, "nafld"),
        ("I've been thirsty all the time lately", S.SYMPTOMS, "excessive_thirst"),
        ("у меня волосы выпадают клоками", S.SYMPTOMS, "hair_loss"),
        ("最近老是掉头发", S.SYMPTOMS, "hair_loss"),
        ("I had my tubes tied after my second kid", S.SURGERIES, "tubal_ligation"),
        ("I'm on Mounjaro 5 mg weekly", S.MEDICATIONS, "tirzepatide"),
        ("пью арбидол", S.MEDICATIONS, "umifenovir"),
        ("我在吃连花清瘟", S.MEDICATIONS, "lianhua_qingwen"),
        ("I'm allergic to kiwi", S.ALLERGIES, "kiwi"),
    ],
)
def test_a_sentence_naming_an_added_entity_is_remembered(said: str, section: Section, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert key in d.keys(section), {s.value: d.keys(s) for s in Section if d.keys(s)}


def test_a_symptoms_longer_name_is_not_a_condition_inside_it() -> None:
    d = Dialogue()
    d.say((U, "I have a mouth ulcer"))
    assert d.keys(S.SYMPTOMS) == {"mouth_ulcers"} and not d.keys(S.CHRONIC_CONDITIONS)


@pytest.mark.parametrize(
    "word",
    # frequent words one edit from an added one-word name: they are the word
    ["person", "father", "clarity", "estrogen", "cortex", "nicotine", "картины", "персоной", "перекус"],
)
def test_frequent_words_near_added_names_are_not_corrected(word: str) -> None:
    for section in (S.MEDICATIONS, S.ALLERGIES, S.CHRONIC_CONDITIONS):
        assert not find_terms(kinds_for(section), word, fuzzy=True), (section, word)
        assert normalize_name(section, word).code is None


@pytest.mark.parametrize(
    ("query", "absent_class"),
    [
        ("stomach hurts after dinner", "surgery_procedure"),  # "stoma" is a whole word
        ("пошла к стоматологу, болит зуб", "surgery_procedure"),
        ("we're doing a renovation, can the dust trigger asthma?", "medication_question"),  # not Renova
        ("кандидат наук спрашивает про сон", "medication_question"),  # not Кандид
        ("my pee is dark and it burns", "injury_question"),  # a short word takes no plural
    ],
)
def test_an_added_name_is_no_prefix_of_an_ordinary_word_for_the_classifier(
    query: str, absent_class: str
) -> None:
    assert absent_class not in QueryClassifier().classify(query).classes


def test_a_latin_name_meets_its_plural_in_a_question() -> None:
    classes = QueryClassifier().classify("are hemorrhoids dangerous?").classes
    assert "diagnosis_condition" in classes


@pytest.mark.parametrize(
    "said",
    [
        "cough and runny nose",
        "кашель и насморк",
        "bad cough and a slight fever",
        "сильный кашель и нет сил совсем",
    ],
)
def test_a_message_that_is_only_complaints_is_the_users(said: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert len(d.keys(S.SYMPTOMS)) == 2
    assert all(f.status is FactStatus.PRESENT for f in d.memory.facts if f.section is S.SYMPTOMS)


@pytest.mark.parametrize(
    "said", ["my son is sick. fever and cough.", "мой сын болеет. температура и кашель", "fever and cough?"]
)
def test_complaints_after_someone_else_or_asked_are_not_the_users(said: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert not d.keys(S.SYMPTOMS)


def test_a_no_before_the_next_complaint_does_not_deny_the_one_before() -> None:
    d = Dialogue()
    d.say((U, "у меня температура и нет аппетита"))
    assert d.fact(S.SYMPTOMS, "fever").status is FactStatus.PRESENT
    assert d.fact(S.SYMPTOMS, "loss_of_appetite").status is FactStatus.PRESENT
    d = Dialogue()
    d.say((U, "температуры нет уже три дня"))
    assert d.fact(S.SYMPTOMS, "fever").status is FactStatus.ABSENT


@pytest.mark.parametrize(
    ("answer", "allergen", "remedy"),
    [
        ("Peanuts. Bad ones, I carry an EpiPen.", "peanut", "epinephrine"),
        ("cats, I take Zyrtec for it", "cat_dander", "cetirizine"),
    ],
)
def test_the_remedy_named_in_an_allergy_answer_is_no_allergen(
    answer: str, allergen: str, remedy: str
) -> None:
    d = Dialogue()
    d.say((A, "Any allergies?"), (U, answer))
    assert d.keys(S.ALLERGIES) == {allergen}
    assert remedy in d.keys(S.MEDICATIONS)


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("I'm being treated for thyroid nodules", "thyroid_nodule"),
        ("I get treated for gout", "gout"),
        ("лечусь от гастрита", "gastritis"),
        ("наблюдаюсь с гипертонией", "hypertension"),
        ("стою на учете по поводу эпилепсии", "epilepsy"),
        ("history of kidney stones", "kidney_stones"),
        ("我在治胃炎", "gastritis"),
        ("我一直在治痛风", "gout"),
    ],
)
def test_being_treated_for_a_disease_is_having_it(said: str, key: str) -> None:
    d = Dialogue()
    d.say((U, said))
    assert d.keys(S.CHRONIC_CONDITIONS) == {key}


def test_what_a_drug_is_taken_for_stays_its_indication() -> None:
    d = Dialogue()
    d.say((U, "I take lisinopril for blood pressure"))
    assert d.fact(S.MEDICATIONS, "lisinopril").attributes.get("indication") == "blood pressure"
    d = Dialogue()
    d.say((U, "治胃炎的药有哪些"))  # a question about remedies: no gastritis of the user's
    assert not d.keys(S.CHRONIC_CONDITIONS)
