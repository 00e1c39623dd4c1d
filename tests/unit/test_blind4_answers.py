"""What a clinician charts from long stories and later updates (fourth blind round), write path.

A symptom or an acute illness that is over (said by name, told in a later clause, or as a bare
"всё прошло" / "all cleared up" for the complaint in focus), the facts said in passing inside a
rambling message (an aching back, smoking someone nags about, sleep, weight, a penicillin allergy,
a city written in lower case, a vaccine someone made the user get, a joint replaced, a stress
fracture, breastfeeding), a relative's diagnosis told as news, panic attacks as a symptom, drinks
counted, the condition a drug is taken for, and a reaction word that is no symptom. Each pattern
in Russian and English, and what must not follow from it. (Wording is our own: none of it comes
from the evaluation data.)
"""

from __future__ import annotations

import pytest

from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.eval_wording import copied_eval_wording
from tests.unit.test_dialogue_memory import A, Dialogue, U

S, F = Section, FactStatus


@pytest.fixture
def talk() -> Dialogue:
    return Dialogue()


def _status(talk: Dialogue, section: Section, key: str) -> FactStatus | None:
    fact = talk.fact(section, key)
    return fact.status if fact is not None else None


# ------------------------------------------------ 1. a symptom that is over, in a later session
@pytest.mark.parametrize(
    ("first", "later", "key"),
    [
        ("у меня по всему телу сыпь, чешется", "сыпь сошла за три дня", "rash"),
        ("вторые сутки температура 38.4", "температуры больше нет, слава богу", "fever"),
        ("тошнит каждое утро уже неделю", "тошноты давно нет", "nausea"),
        ("i've got a rash on my legs", "the rash cleared up over the weekend", "rash"),
        (
            "I get headaches every afternoon",
            "the headaches went away once I started drinking water",
            "headache",
        ),
        ("feeling nauseous all the time", "no more nausea since the dose was lowered", "nausea"),
    ],
)
def test_a_symptom_said_over_later_is_resolved(talk, first, later, key) -> None:
    talk.say((U, first))
    assert _status(talk, S.SYMPTOMS, key) is F.PRESENT
    talk.say((U, later), session="s2")
    assert _status(talk, S.SYMPTOMS, key) is F.RESOLVED


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("у меня сыпь на руках", "у подруги сыпь сошла за день"),
        ("I have a rash on my neck", "my friend's rash is gone"),
    ],
)
def test_someone_elses_symptom_ending_resolves_nothing_of_the_users(talk, first, later) -> None:
    talk.say((U, first))
    talk.say((U, later), session="s2")
    assert _status(talk, S.SYMPTOMS, "rash") is F.PRESENT


# ------------------------------------- 2. "всё прошло", "all cleared up": the complaint in focus
@pytest.mark.parametrize(
    ("first", "asked", "later", "section", "key"),
    [
        (
            "терапевт сказал бронхит, выписал сироп",
            "Как вы?",
            "всё прошло, сироп допила",
            S.REPORTED_DIAGNOSES,
            "bronchitis",
        ),
        ("лор сказал отит, капаю капли", "Как ухо?", "лор сказал всё чисто", S.REPORTED_DIAGNOSES, "otitis"),
        (
            "the doctor said it's pneumonia",
            "How are you feeling?",
            "all cleared up, finally",
            S.REPORTED_DIAGNOSES,
            "pneumonia",
        ),
        (
            "urgent care said strep throat",
            "How's the throat?",
            "completely fine now",
            S.REPORTED_DIAGNOSES,
            "strep_throat",
        ),
        ("у меня третий день понос", "Как живот?", "уже всё прошло", S.SYMPTOMS, "diarrhea"),
        ("i've got a rash on my back", "How is your back?", "all cleared up!", S.SYMPTOMS, "rash"),
    ],
)
def test_a_bare_recovery_resolves_the_one_complaint_in_focus(talk, first, asked, later, section, key) -> None:
    talk.say((U, first))
    assert _status(talk, section, key) is F.PRESENT
    talk.say((A, asked), (U, later), session="s2")
    assert _status(talk, section, key) is F.RESOLVED


def test_a_bare_recovery_in_the_same_message_ends_the_symptom_just_told(talk) -> None:
    talk.say((U, "в поездке меня прихватило, понос два дня. сейчас всё нормально, прошло."))
    assert _status(talk, S.SYMPTOMS, "diarrhea") is F.RESOLVED


@pytest.mark.parametrize(
    "later", ["у дочки всё прошло, в садик пошла", "my son's all cleared up, back at school"]
)
def test_a_recovery_told_of_someone_else_resolves_nothing(talk, later) -> None:
    talk.say((U, "у меня бронхит, врач сказал"))
    talk.say((U, "у меня сыпь на руках"))
    talk.say((U, later), session="s2")
    assert _status(talk, S.REPORTED_DIAGNOSES, "bronchitis") is F.PRESENT
    assert _status(talk, S.SYMPTOMS, "rash") is F.PRESENT


def test_a_bare_gone_after_a_question_about_a_drug_ends_no_symptom(talk) -> None:
    talk.say((U, "I have a cough"))
    talk.say((A, "Do you still have the inhaler?"), (U, "gone"), session="s2")
    assert _status(talk, S.SYMPTOMS, "cough") is F.PRESENT


# --------------------------------------------- 3. the end told in a later clause of the sentence
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("голова болела весь вечер, выпила чаю, к ночи прошла", "headache"),
        ("на даче меня тошнило, потом прошло само", "nausea"),
        ("had a splitting headache on the plane, blamed the pressure, went away after landing", "headache"),
        ("got a rash from the sunscreen, cleared up in two days", "rash"),
    ],
)
def test_a_symptom_whose_end_follows_in_the_sentence_is_resolved(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, key) is F.RESOLVED


@pytest.mark.parametrize(
    "text",
    [
        "голова болела с утра, прошла обследование у невролога",
        "my head hurts since morning, stopped by the pharmacy on the way",
    ],
)
def test_a_verb_of_the_users_own_after_the_symptom_ends_nothing(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, "headache") is F.PRESENT


# ------------------------------------------- 4. after a recovery, a "no" means it is over now
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("полностью здорова, кашля нет", "cough"),
        ("ok completely fine now, no fever, no cough", "fever"),
        ("all good, no more wheezing", "wheezing"),
    ],
)
def test_a_no_after_a_recovery_is_an_end(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, key) is F.RESOLVED


@pytest.mark.parametrize(
    ("text", "key"), [("температуры вроде нет", "fever"), ("no fever, just tired", "fever")]
)
def test_a_plain_no_is_still_no_symptom(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, key) in (None, F.ABSENT)


# ----------------------------------------------- 5. facts said in passing in a rambling message
def test_an_aching_back_and_the_smoking_a_spouse_nags_about_are_the_users(talk) -> None:
    talk.say(
        (
            U,
            "работаю на складе, таскаю коробки весь день, поясница ноет к вечеру. "
            "муж ворчит, что курю много, ну где-то пачка в день, на перекурах скучно",
        )
    )
    assert _status(talk, S.SYMPTOMS, "back_pain") is F.PRESENT
    assert _status(talk, S.LIFESTYLE, "smoking") is F.PRESENT


@pytest.mark.parametrize(
    "text",
    ["my wife says I smoke way too much, about a pack a day", "жена говорит, что курю слишком много"],
)
def test_someone_saying_the_user_smokes_is_the_users_habit(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.LIFESTYLE, "smoking") is F.PRESENT


@pytest.mark.parametrize(
    "text",
    ["муж курит по пачке в день", "my husband smokes a pack a day", "мама говорит: «я курю», но она шутит"],
)
def test_someone_elses_smoking_stays_theirs(talk, text) -> None:
    talk.say((U, text))
    assert talk.fact(S.LIFESTYLE, "smoking") is None


@pytest.mark.parametrize(
    "text",
    [
        "толком не сплю уже недели три, сижу в телефоне до утра",
        "не сплю нормально с тех пор как сменил работу",
        "I've been barely sleeping since the move",
        "not sleeping well at all, up till 3 most nights",
    ],
)
def test_sleeping_badly_said_in_passing_is_insomnia(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, "insomnia") is F.PRESENT


@pytest.mark.parametrize(
    "text", ["брат толком не спит из-за работы", "my roommate is barely sleeping lately"]
)
def test_someone_elses_sleep_is_not_the_users_insomnia(talk, text) -> None:
    talk.say((U, text))
    assert talk.fact(S.SYMPTOMS, "insomnia") is None


@pytest.mark.parametrize(
    ("text", "kg"),
    [("вес за осень прибавился, сейчас 88 кило.", 88.0), ("вес опять пополз вверх, сейчас 74 кг", 74.0)],
)
def test_a_weight_told_after_a_word_of_weight_is_stored(talk, text, kg) -> None:
    talk.say((U, text))
    fact = talk.fact(S.DEMOGRAPHICS, "weight_kg")
    assert fact is not None and fact.attributes["weight_kg"] == kg


def test_a_weight_lost_is_no_weight(talk) -> None:
    talk.say((U, "вес за месяц ушёл, минус 4 кило"))
    assert talk.fact(S.DEMOGRAPHICS, "weight_kg") is None


@pytest.mark.parametrize(
    "text",
    [
        "из лекарств ничего. аллергия только на пенициллин, в детстве от него пятнами покрылась",
        "no meds. I'm allergic only to penicillin, it gave me hives as a kid",
    ],
)
def test_an_allergy_with_only_before_its_object_is_stored(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.ALLERGIES, "penicillin") is F.PRESENT
    assert talk.status(S.ALLERGIES) is SectionStatus.PRESENT


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Что вас беспокоит?", "голова болит. аллергия на амоксициллин, от него когда-то была сыпь"),
        ("What brings you in?", "headaches. and i'm allergic to amoxicillin, it gave me a rash once"),
    ],
)
def test_an_allergys_reaction_in_an_answer_is_no_symptom_now(talk, question, answer) -> None:
    talk.say((A, question), (U, answer))
    assert _status(talk, S.SYMPTOMS, "headache") is F.PRESENT
    assert talk.fact(S.SYMPTOMS, "rash") is None
    assert _status(talk, S.ALLERGIES, "amoxicillin") is F.PRESENT


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("we sold the condo and moved down to denver, way more sun", "Denver"),
        ("so we finally moved to boise last spring", "Boise"),
        ("We moved over to Austin in 2022", "Austin"),
    ],
)
def test_a_city_moved_to_is_stored_even_in_lower_case(talk, text, city) -> None:
    talk.say((U, text))
    fact = talk.fact(S.DEMOGRAPHICS, "city")
    assert fact is not None and fact.attributes["city"] == city


@pytest.mark.parametrize("text", ["we moved to nights at the plant", "my sister moved to denver"])
def test_a_move_that_is_no_city_of_the_users_stores_none(talk, text) -> None:
    talk.say((U, text))
    assert talk.fact(S.DEMOGRAPHICS, "city") is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("my son made me get the flu shot before flying", "influenza"),
        ("my wife talked me into both shingrix shots in the fall", "herpes_zoster"),
        ("дочь уговорила меня сделать прививку от гриппа", "influenza"),
    ],
)
def test_a_vaccine_someone_made_the_user_get_is_the_users(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.VACCINATIONS, key) is F.PRESENT


@pytest.mark.parametrize("text", ["my wife got her flu shot yesterday", "сын сделал прививку от гриппа"])
def test_someone_elses_vaccine_stays_theirs(talk, text) -> None:
    talk.say((U, text))
    assert talk.fact(S.VACCINATIONS, "influenza") is None


@pytest.mark.parametrize(
    ("text", "key", "year"),
    [
        ("they replaced my left knee in may 2022 and it's been fine", "knee_replacement", 2022),
        ("в 2018 мне заменили правый коленный сустав", "knee_replacement", 2018),
        ("they replaced my right hip in 2020, walking great now", "hip_replacement", 2020),
    ],
)
def test_a_joint_replaced_is_a_surgery(talk, text, key, year) -> None:
    talk.say((U, text))
    fact = talk.fact(S.SURGERIES, key)
    assert fact is not None and fact.attributes.get("year") == year
    assert talk.status(S.SURGERIES) is SectionStatus.PRESENT


def test_someone_elses_joint_replaced_is_not_the_users(talk) -> None:
    talk.say((U, "they replaced his knee last year"))
    assert not talk.keys(S.SURGERIES)


@pytest.mark.parametrize(
    "text",
    [
        "the x-ray showed a stress fracture in my third metatarsal",
        "на снимке перелом плюсневой кости, хожу в ортезе",
    ],
)
def test_a_fracture_of_a_foot_bone_is_the_users_foot_fracture(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.INJURIES, "foot_fracture") is F.PRESENT


@pytest.mark.parametrize(
    "text",
    [
        "младшему полгода, я его пока грудью кормлю",
        "дочке четыре месяца, грудью кормлю до сих пор",
        "the baby is 5 months and i'm still nursing her",
    ],
)
def test_breastfeeding_said_in_passing_is_stored(talk, text) -> None:
    talk.say((U, text))
    fact = talk.fact(S.DEMOGRAPHICS, "pregnancy")
    assert fact is not None and fact.attributes["pregnancy"] == "breastfeeding"


def test_a_friend_breastfeeding_is_not_the_user(talk) -> None:
    talk.say((U, "подруга до сих пор кормит грудью"))
    assert talk.fact(S.DEMOGRAPHICS, "pregnancy") is None


@pytest.mark.parametrize(
    "text",
    [
        "both legs broke out in blisters and itchy all over after the hike",
        "ноги и спину обсыпало после бани, чешется",
    ],
)
def test_a_skin_complaint_told_of_a_body_part_is_the_users(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, "itching") is F.PRESENT


@pytest.mark.parametrize(
    "text",
    [
        "my son had a fever yesterday, had a rash too",
        "my daughter came home from camp, both arms covered in a rash",
        "моя дочь приехала из лагеря. руки и живот обсыпало, чешется",
    ],
)
def test_a_skin_complaint_after_someone_else_is_spoken_of_is_not_the_users(talk, text) -> None:
    talk.say((U, text))
    assert not talk.keys(S.SYMPTOMS)


def test_a_general_statement_about_a_side_effect_is_no_symptom(talk) -> None:
    talk.say((U, "rash is a known side effect of that cream"))
    assert not talk.keys(S.SYMPTOMS)


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("my gut is a mess this week, nausea and the runs", {"nausea", "diarrhea"}),
        ("я сам не свой, тошнота и понос", {"nausea", "diarrhea"}),
    ],
)
def test_a_bare_list_of_symptoms_after_the_user_speaks_of_themselves(talk, text, keys) -> None:
    talk.say((U, text))
    assert keys <= talk.keys(S.SYMPTOMS)


def test_a_bare_list_of_symptoms_about_someone_else_is_theirs(talk) -> None:
    talk.say((U, "my son is not himself, nausea and the runs"))
    assert not talk.keys(S.SYMPTOMS)


# -------------------------------------------------- 6. a relative's diagnosis told as news
@pytest.mark.parametrize(
    ("text", "relative", "key"),
    [
        ("у папы взяли биопсию. рак простаты, вторая стадия.", "father", "prostate_cancer"),
        (
            "my mom's scan results came back. breast cancer, stage 1. surgery in june",
            "mother",
            "breast_cancer",
        ),
    ],
)
def test_a_bare_verdict_after_a_relatives_tests_is_their_family_history(talk, text, relative, key) -> None:
    talk.say((U, text))
    fact = talk.fact(S.FAMILY_HISTORY, f"{relative}:{key}")
    assert fact is not None and fact.status is F.PRESENT
    assert talk.fact(S.CHRONIC_CONDITIONS, key) is None
    assert talk.fact(S.REPORTED_DIAGNOSES, key) is None


def test_the_users_own_diagnosis_after_a_relative_stays_the_users(talk) -> None:
    talk.say((U, "my dad drove me to the clinic. i have asthma, they said"))
    assert talk.fact(S.CHRONIC_CONDITIONS, "asthma") is not None
    assert not talk.keys(S.FAMILY_HISTORY)


# ------------------------------------------------------- 7. panic attacks are a symptom
@pytest.mark.parametrize(
    "text",
    [
        "exams are killing me, had two panic attacks this week",
        "на работе завал, за месяц было три панические атаки",
        "опять приступы паники в метро",
    ],
)
def test_panic_attacks_are_a_symptom_not_a_disorder(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.SYMPTOMS, "panic_attack") is F.PRESENT
    assert talk.fact(S.CHRONIC_CONDITIONS, "anxiety_disorder") is None


@pytest.mark.parametrize(
    "text", ["my psychiatrist diagnosed panic disorder", "психиатр поставил паническое расстройство"]
)
def test_a_panic_disorder_a_doctor_named_is_a_condition(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.CHRONIC_CONDITIONS, "anxiety_disorder") is F.PRESENT


def test_a_relatives_panic_attacks_are_not_the_users(talk) -> None:
    talk.say((U, "my sister gets panic attacks on planes"))
    assert talk.fact(S.SYMPTOMS, "panic_attack") is None


# -------------------------------------------------------------- 8. drinks counted in passing
@pytest.mark.parametrize(
    "text",
    [
        "my friends say slow down but honestly we drink like 4-5 beers every saturday",
        "I have about 3 glasses of wine most nights",
        "по пятницам выпиваем по паре бокалов вина",
        "пью где-то 2-3 бутылки пива по выходным",
    ],
)
def test_drinks_counted_in_passing_are_alcohol(talk, text) -> None:
    talk.say((U, text))
    assert _status(talk, S.LIFESTYLE, "alcohol") is F.PRESENT


@pytest.mark.parametrize(
    "text",
    ["we drink a lot of water in the summer", "my dad drinks 3 beers a night", "муж выпивает по выходным"],
)
def test_water_or_someone_elses_drinking_is_no_alcohol_of_the_users(talk, text) -> None:
    talk.say((U, text))
    assert talk.fact(S.LIFESTYLE, "alcohol") is None


# ------------------------------------------------------ 9. the condition a drug is taken for
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("I take metformin every morning for my diabetes", "diabetes"),
        ("amlodipine 5 at night for blood pressure", "hypertension"),
        ("пью лозартан 50 от давления", "hypertension"),
        ("эутирокс 75 мкг утром, гипотиреоз после операции", "hypothyroidism"),
        ("metformin 1000 twice a day, type 2 diabetes since 2018", "type_2_diabetes"),
    ],
)
def test_the_condition_a_drug_is_taken_for_is_the_users(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.CHRONIC_CONDITIONS, key) is F.PRESENT


@pytest.mark.parametrize(
    "text",
    [
        "my mom takes metformin for her diabetes",
        "can I take ibuprofen with pills for blood pressure?",
        "раньше пил эналаприл от давления",
        "амлодипин, у папы гипертония",
    ],
)
def test_a_drug_for_someone_else_or_asked_about_says_no_condition_of_the_users(talk, text) -> None:
    talk.say((U, text))
    assert not talk.keys(S.CHRONIC_CONDITIONS)


# --------------------------------------------- 10. a verdict from the ENT or the urgent care
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("лор сказал гайморит, выписал капли", "sinusitis"),
        ("urgent care said contact dermatitis from the new detergent", "contact_dermatitis"),
        ("дерматолог сказал контактный дерматит, на крем", "contact_dermatitis"),
    ],
)
def test_a_verdict_said_by_the_ent_or_urgent_care_is_the_users(talk, text, key) -> None:
    talk.say((U, text))
    assert _status(talk, S.REPORTED_DIAGNOSES, key) is F.PRESENT


def test_a_verdict_on_someone_else_is_not_the_users(talk) -> None:
    talk.say((U, "my daughter's pediatrician said contact dermatitis"))
    assert talk.fact(S.REPORTED_DIAGNOSES, "contact_dermatitis") is None


# ------------------------------------------------------------------------- test data hygiene
def test_no_wording_here_is_an_evaluation_dialogue() -> None:
    assert not copied_eval_wording(__file__, held=False, shortest=12)
