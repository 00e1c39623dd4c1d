"""Chinese, fourth blind round, through whole dialogues: chat Chinese that writes a space (or a bare
"?") for a comma; a prescribed drug the user says they take is taken, one not picked up yet is only
prescribed, a finished course is stopped (also in a later session); a regimen named by its number of
drugs (四联疗法); a complaint, an acute diagnosis or a test that is over is resolved (also in a later
session, and by the clause after it); facts said in passing in a long story (H. pylori, urticaria,
Hashimoto's, a city, a vaccine, a sport, acarbose); a relative's disease told as news, and a relative's
"没有" vs "有"; a quit that did not take; no drugs at all."""

from __future__ import annotations

import pytest

from health_ltm.domain.models import Role
from health_ltm.domain.sections import FactStatus, Section, SectionStatus
from tests.unit.test_dialogue_memory import Dialogue

A, U = Role.ASSISTANT, Role.USER
M, CC, RD, SY, LS, DM, FH, AL, VA = (
    Section.MEDICATIONS,
    Section.CHRONIC_CONDITIONS,
    Section.REPORTED_DIAGNOSES,
    Section.SYMPTOMS,
    Section.LIFESTYLE,
    Section.DEMOGRAPHICS,
    Section.FAMILY_HISTORY,
    Section.ALLERGIES,
    Section.VACCINATIONS,
)


def _status(d: Dialogue, section: Section, key: str) -> FactStatus | None:
    fact = d.fact(section, key)
    return fact.status if fact is not None else None


def _said(*sessions: str | tuple[str, str]) -> Dialogue:
    """Each item one session: a user message, or (assistant question, user answer)."""
    d = Dialogue()
    for index, item in enumerate(sessions):
        turns = ((A, item[0]), (U, item[1])) if isinstance(item, tuple) else ((U, item),)
        d.say(*turns, session=f"s{index}")
    return d


# ------------------------------------------------------------------ 1. spaces for commas
@pytest.mark.parametrize(
    ("said", "relative", "key"),
    [
        ("我妈这次没跟来 她糖尿病十几年了", "mother", "diabetes"),
        ("我爸不去体检 他有高血压", "father", "hypertension"),
        ("我哥没怎么管 他痛风好几年了", "brother", "gout"),
    ],
)
def test_a_negation_before_a_space_does_not_reach_the_next_clause(said: str, relative: str, key: str) -> None:
    d = _said(said)
    assert _status(d, FH, f"{relative}:{key}") is FactStatus.PRESENT


@pytest.mark.parametrize(
    ("said", "relative", "key"),
    [("我爸没有 高血压", "father", "hypertension"), ("我妈没有糖尿病 挺健康的", "mother", "diabetes")],
)
def test_a_negation_followed_by_a_space_still_denies(said: str, relative: str, key: str) -> None:
    assert _status(_said(said), FH, f"{relative}:{key}") is FactStatus.ABSENT


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("我对头孢过敏 那以后嗓子发炎该吃点啥?", "cephalosporins"),
        ("我阿莫西林过敏!以后牙疼吃什么好?", "amoxicillin"),
    ],
)
def test_a_question_at_the_end_does_not_void_what_came_before(said: str, key: str) -> None:
    assert _status(_said(said), AL, key) is FactStatus.PRESENT


def test_a_question_in_its_own_clause_is_still_a_question() -> None:
    d = _said("最近睡不好 我是不是有抑郁症?")
    assert d.fact(CC, "depression") is None


# ------------------------------------------------------------------ 2. prescribed, then taken
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("上周医生开了阿莫西林 一天三次 我一直在吃", "amoxicillin"),
        ("大夫给我开了头孢克肟，吃了四天了", "cefixime"),
        ("医生开了泮托拉唑 我现在每天都在吃", "pantoprazole"),
    ],
)
def test_a_prescribed_drug_the_user_says_they_take_is_active(said: str, key: str) -> None:
    assert _status(_said(said), M, key) is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("医生开了泮托拉唑 我还没去拿", "pantoprazole"),
        ("大夫开了布洛芬，还没开始吃", "ibuprofen"),
        ("诊所开了阿莫西林 要吃一周 明天开始吃", "amoxicillin"),
        ("医生开了甲硝唑 吃五天停两天", "metronidazole"),  # a schedule, not a report of taking
    ],
)
def test_a_prescribed_drug_not_begun_stays_prescribed(said: str, key: str) -> None:
    assert _status(_said(said), M, key) is FactStatus.PRESCRIBED


def test_not_taking_is_no_report_of_taking() -> None:
    d = _said("医生开了布洛芬 我没在吃")
    assert _status(d, M, "ibuprofen") is not FactStatus.ACTIVE


def test_a_drug_named_before_its_verb_clause_is_taken() -> None:
    d = _said("血糖高好几年了 格列美脲一次一片 早饭前吃")
    assert _status(d, M, "glimepiride") is FactStatus.ACTIVE


def test_the_verb_clause_after_an_allergy_is_not_the_drugs() -> None:
    d = _said("以前皮试阿莫西林阳性 医生说我对它过敏 那我发烧能吃啥?")
    assert _status(d, M, "amoxicillin") is None


# ------------------------------------------------------------------ 3. a finished course
@pytest.mark.parametrize(
    ("first", "later", "key"),
    [
        ("医生开了左氧氟沙星 一天一次", "左氧氟沙星吃了一周就停了", "levofloxacin"),
        ("我在吃阿莫西林", "阿莫西林已经吃完了", "amoxicillin"),
        ("大夫给我开了甲硝唑", "疗程结束了 甲硝唑不用再吃了", "metronidazole"),
        ("诊所开了阿奇霉素 一天一粒", "阿奇那个疗程已经吃完了", "azithromycin"),
    ],
)
def test_a_finished_course_is_stopped_in_a_later_session(first: str, later: str, key: str) -> None:
    d = _said(first, later)
    assert _status(d, M, key) is FactStatus.STOPPED


@pytest.mark.parametrize(
    ("said", "key"),
    [("泼尼松用了三天就停掉了", "prednisone"), ("氯雷他定吃了几天后不吃了", "loratadine")],
)
def test_taken_then_stopped_in_one_clause_is_stopped(said: str, key: str) -> None:
    assert _status(_said(said), M, key) is FactStatus.STOPPED


def test_taken_for_some_days_so_far_is_still_taken() -> None:
    assert _status(_said("氯雷他定吃了三天了"), M, "loratadine") is FactStatus.ACTIVE


# ------------------------------------------------------------------ 4. a regimen
@pytest.mark.parametrize(
    "said",
    [
        "胃镜说要根除 医生开了四联疗法 我还没开始",
        "医生说还得吃两周四联的抗菌药 药还没去拿",
        "开了铋剂四联 下周开始吃",
    ],
)
def test_a_regimen_named_by_its_number_of_drugs_is_prescribed(said: str) -> None:
    assert _status(_said(said), M, "bismuth_quadruple_therapy") is FactStatus.PRESCRIBED


def test_a_regimen_begun_is_active() -> None:
    d = _said("医生开了四联药 我已经开始吃了")
    assert _status(d, M, "bismuth_quadruple_therapy") is FactStatus.ACTIVE


def test_a_combined_vaccine_is_no_regimen() -> None:
    d = _said("我小时候打过四联疫苗")
    assert d.fact(M, "bismuth_quadruple_therapy") is None


# ------------------------------------------------------------------ 5. a complaint that is over
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("爬山的时候头疼得厉害 休息了一晚上才好", "headache"),
        ("前几天发烧 吃了退烧药就好了", "fever"),
        ("嗓子疼了好几天 后来好了", "sore_throat"),
        ("到了西藏就高反了 吸了一天氧才好", "altitude_sickness"),
    ],
)
def test_a_complaint_ended_in_the_clause_after_it_is_resolved(said: str, key: str) -> None:
    assert _status(_said(said), SY, key) is FactStatus.RESOLVED


@pytest.mark.parametrize(
    ("first", "later", "key"),
    [
        ("膝盖疼 上楼更明显", "膝盖已经好了", "knee_pain"),
        ("小腿肿了两天", "腿已经消肿了", "swelling"),
        ("身上起了好多风团", "风团都消了", "rash"),
        ("胃疼了一整天", "胃现在不疼了", "abdominal_pain"),
    ],
)
def test_a_complaint_over_in_a_later_session_is_resolved(first: str, later: str, key: str) -> None:
    d = _said(first, later)
    assert _status(d, SY, key) is FactStatus.RESOLVED


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("头疼 医生说休息几天就好了", "headache"),  # a forecast
        ("咳嗽好多了", "cough"),  # better, not over
        ("嗓子疼 吃了药还没好", "sore_throat"),
        ("腰疼好了一点 还是不能弯腰", "back_pain"),
    ],
)
def test_a_forecast_or_a_bit_better_is_not_over(said: str, key: str) -> None:
    assert _status(_said(said), SY, key) is FactStatus.PRESENT


def test_the_same_complaint_said_again_later_tells_how_it_is_now() -> None:
    d = _said("吃那个降压药脚踝一直肿 医生给我换了药 现在腿也不肿了")
    assert _status(d, SY, "swelling") is FactStatus.RESOLVED


def test_a_complaint_back_again_is_present() -> None:
    assert _status(_said("头疼好了两天 今天又头疼了"), SY, "headache") is FactStatus.PRESENT


def test_a_complaint_that_comes_and_goes_is_not_over() -> None:
    d = _said("饿了就胃疼 一吃东西就好了")
    assert _status(d, SY, "abdominal_pain") is FactStatus.PRESENT


def test_an_ankle_swollen_after_a_sprain_is_the_injurys() -> None:
    d = _said("打羽毛球扭伤了脚踝 肿得很厉害")
    assert d.fact(SY, "swelling") is None


@pytest.mark.parametrize("said", ["脸有点肿", "最近早上起来眼皮肿"])
def test_swelling_by_body_part_is_a_symptom(said: str) -> None:
    assert _status(_said(said), SY, "swelling") is FactStatus.PRESENT


def test_a_tumour_is_no_swelling() -> None:
    assert _said("我手上长了个肿块").fact(SY, "swelling") is None


# ------------------------------------------------------------------ 6. an acute diagnosis over
@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("前阵子得了急性肠胃炎 现在已经好了", "gastroenteritis"),
        ("上个月得了支气管炎 打了几天点滴就好了", "bronchitis"),
    ],
)
def test_an_acute_diagnosis_said_to_be_over_is_resolved(said: str, key: str) -> None:
    assert _status(_said(said), RD, key) is FactStatus.RESOLVED


@pytest.mark.parametrize(
    "later",
    ["疹子全都消了", "现在已经彻底好了", "病好了 药也停了"],
)
def test_the_whole_episode_over_resolves_the_diagnosis_in_focus(later: str) -> None:
    d = _said("身上起疹子 医院说是急性荨麻疹 开了西替利嗪", later)
    assert _status(d, RD, "urticaria") is FactStatus.RESOLVED


@pytest.mark.parametrize("later", ["好一点了 还是有点痒", "过几天应该就全好了"])
def test_a_part_better_or_a_forecast_leaves_the_diagnosis(later: str) -> None:
    d = _said("医院说是急性荨麻疹", later)
    assert _status(d, RD, "urticaria") is FactStatus.PRESENT


def test_an_episode_over_with_no_diagnosis_stored_adds_none() -> None:
    d = _said("风团都消了")
    assert not d.keys(RD)


# ------------------------------------------------------------------ 7. diagnoses in passing
@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("做了呼气试验 结果幽门螺杆菌是阳性", FactStatus.PRESENT),
        ("体检说我幽门螺旋杆菌感染", FactStatus.PRESENT),
        ("幽门螺杆菌检测结果是阴性", FactStatus.ABSENT),
        ("吃完药复查 幽门螺杆菌已经转阴了", FactStatus.RESOLVED),
    ],
)
def test_h_pylori_by_its_test_result(said: str, status: FactStatus) -> None:
    assert _status(_said(said), RD, "h_pylori_infection") is status


@pytest.mark.parametrize("said", ["皮肤科医生说是荨麻疹", "前天确诊了急性荨麻疹"])
def test_urticaria_diagnosed_is_a_diagnosis(said: str) -> None:
    d = _said(said)
    assert _status(d, RD, "urticaria") is FactStatus.PRESENT
    assert d.fact(RD, "measles") is None


@pytest.mark.parametrize("said", ["我昨天吃了虾 起了荨麻疹", "我身上起了风团 特别痒"])
def test_hives_that_break_out_are_a_symptom_not_a_diagnosis(said: str) -> None:
    d = _said(said)
    assert _status(d, SY, "rash") is FactStatus.PRESENT
    assert not d.keys(RD)


@pytest.mark.parametrize("said", ["我有桥本 每天吃优甲乐", "查出来是桥本氏病"])
def test_hashimoto_by_its_short_name_is_a_chronic_condition(said: str) -> None:
    assert _status(_said(said), CC, "autoimmune_thyroiditis") is FactStatus.PRESENT


def test_a_name_inside_another_word_is_no_hashimoto() -> None:
    assert not _said("我在桥本先生的公司上班").keys(CC)


@pytest.mark.parametrize("said", ["我胃也老疼 吃完饭就胀", "最近胃老是疼"])
def test_stomach_pain_said_in_passing(said: str) -> None:
    assert _status(_said(said), SY, "abdominal_pain") is FactStatus.PRESENT


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("糖尿病好多年了 二甲双胍加拜糖平一起吃", "acarbose"),
        ("每顿饭第一口嚼着吃一片拜唐平", "acarbose"),
    ],
)
def test_acarbose_by_its_brand(said: str, key: str) -> None:
    assert _status(_said(said), M, key) is FactStatus.ACTIVE


# ------------------------------------------------------------------ 8. a city, a vaccine, a sport
@pytest.mark.parametrize(("said", "city"), [("我是重庆的 退休好几年了", "重庆"), ("我是杭州人", "杭州")])
def test_the_city_the_user_is_from(said: str, city: str) -> None:
    fact = _said(said).fact(DM, "city")
    assert fact is not None and fact.attributes["city"] == city


@pytest.mark.parametrize("said", ["我是北京大学的学生", "我是老师", "我是武汉大学毕业的"])
def test_a_school_or_a_job_is_no_city(said: str) -> None:
    assert _said(said).fact(DM, "city") is None


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("去年冬天在社区医院打了流感疫苗 今年还用打吗?", "influenza"),
        ("新冠疫苗我打过三针", "covid_19"),
        ("上个月接种了流感疫苗", "influenza"),
    ],
)
def test_a_vaccine_given_is_a_vaccination(said: str, key: str) -> None:
    assert _status(_said(said), VA, key) is FactStatus.PRESENT


def test_a_vaccine_not_given_is_absent() -> None:
    assert _status(_said("我从来没打过流感疫苗"), VA, "influenza") is FactStatus.ABSENT


@pytest.mark.parametrize(
    "said",
    ["我想打流感疫苗", "流感疫苗要不要打?", "我得了流感", "得了流感 打了三天针", "下个月约了打新冠疫苗"],
)
def test_a_vaccine_wanted_asked_about_or_a_flu_is_no_vaccination(said: str) -> None:
    assert not _said(said).keys(VA)


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("我每周打三次羽毛球", "badminton"),
        ("周末都去踢足球", "football"),
        ("我一周打三四次篮球", "basketball"),
    ],
)
def test_a_sport_played_is_physical_activity(said: str, value: str) -> None:
    fact = _said(said).fact(LS, "physical_activity")
    assert fact is not None and fact.status is FactStatus.PRESENT
    assert fact.attributes["value"].startswith(value)


def test_a_sport_watched_is_no_activity() -> None:
    assert _said("我喜欢看篮球比赛").fact(LS, "physical_activity") is None


# ------------------------------------------------------------------ 9. relatives, smoking, no drugs
@pytest.mark.parametrize(
    ("said", "relative", "key"),
    [
        ("我爸上个月查出肺癌 还好是早期", "father", "lung_cancer"),
        ("我妈体检查出了乳腺癌", "mother", "breast_cancer"),
        ("刚知道我姐确诊了胃癌", "sister", "stomach_cancer"),
    ],
)
def test_a_relatives_disease_told_as_news_is_family_history(said: str, relative: str, key: str) -> None:
    d = _said(said)
    assert _status(d, FH, f"{relative}:{key}") is FactStatus.PRESENT
    assert d.fact(CC, key) is None and d.fact(RD, key) is None


@pytest.mark.parametrize(
    ("said", "status"),
    [
        ("我爸有高血压", FactStatus.PRESENT),
        ("我爸不胖但有高血压", FactStatus.PRESENT),
        ("我爸没什么大病就是高血压", FactStatus.PRESENT),
        ("我爸没有高血压", FactStatus.ABSENT),
        ("我爸从来没有过高血压", FactStatus.ABSENT),
    ],
)
def test_a_relatives_disease_affirmed_or_denied(said: str, status: FactStatus) -> None:
    assert _status(_said(said), FH, "father:hypertension") is status


@pytest.mark.parametrize(
    "said",
    ["烟也戒不掉 一天一包", "戒了好几次烟都没戒掉", "试过戒烟 一直戒不了"],
)
def test_a_quit_that_did_not_take_is_smoking(said: str) -> None:
    assert _status(_said(said), LS, "smoking") is FactStatus.PRESENT


@pytest.mark.parametrize(
    "said",
    ["我抽了十年烟 上个月开始戒烟 到现在一根都没抽", "烟已经戒了", "我戒烟三周了"],
)
def test_a_quit_under_way_or_done_is_stopped(said: str) -> None:
    assert _status(_said(said), LS, "smoking") is FactStatus.STOPPED


@pytest.mark.parametrize("said", ["我打算明年戒烟", "下周开始戒烟"])
def test_a_quit_only_planned_is_no_stop(said: str) -> None:
    assert _status(_said(said), LS, "smoking") is not FactStatus.STOPPED


def test_another_habit_not_given_up_is_no_smoking() -> None:
    assert _said("酒戒不了 每天都要喝两杯").fact(LS, "smoking") is None


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("你现在有在吃什么药吗？", "没有"),
        ("平时有吃药吗？", "没有 什么药都不吃"),
        ("最近用什么药吗？", "没 啥药都没吃"),
    ],
)
def test_no_to_a_question_about_drugs_is_the_section_confirmed_absent(question: str, answer: str) -> None:
    d = _said((question, answer))
    assert d.status(M) is SectionStatus.CONFIRMED_ABSENT


def test_no_drugs_at_all_in_passing() -> None:
    d = _said("我身体还行 啥药都不吃的")
    assert d.status(M) is SectionStatus.CONFIRMED_ABSENT


def test_asking_which_drug_to_take_says_nothing_of_the_section() -> None:
    d = _said("感冒了能吃啥药?")
    assert d.status(M) is not SectionStatus.CONFIRMED_ABSENT
