"""Transition table: code decides first mention, reconfirmation, change, negation, correction."""

from __future__ import annotations

from datetime import timedelta

import pytest
from bench.eval import transitions as table
from hypothesis import given, settings
from hypothesis import strategies as st

from health_ltm.domain.candidates import Candidate
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import AssertionKind, EventType, SectionState
from health_ltm.domain.sections import FactStatus, Section, SectionStatus, Stage
from health_ltm.domain.transitions import DecisionContext, decide, snapshot, user_delete, user_edit
from tests.conftest import T0


def ctx(fragment: str = "f1", session: str = "s1", days: int = 0) -> DecisionContext:
    return DecisionContext(
        now=T0 + timedelta(days=days),
        new_id=new_ulid,
        fragment_id=fragment,
        session_id=session,
        extractor="test",
    )


def med(status=FactStatus.ACTIVE, **attrs) -> Candidate:
    return Candidate(
        section=Section.MEDICATIONS,
        kind=AssertionKind.FACT,
        key="metformin",
        name_raw="метформин",
        name_normalized="метформин",
        status=status,
        attributes=attrs,
    )


def first(candidate: Candidate, **kw):
    state = SectionState(section=candidate.section)
    return decide(candidate, None, state, [], [], ctx(**kw))


def again(candidate: Candidate, fact, facts=None, pending=(), state=None, **kw):
    state = state or SectionState(section=candidate.section)
    return decide(candidate, fact, state, facts or [fact], list(pending), ctx(**kw))


# --- the table of cases (bench/eval/data/transitions.jsonl), also reported by `make eval` --------
@pytest.mark.parametrize("case", table.load_cases(), ids=lambda case: case["id"])
def test_table_case(case):
    assert table.problems(case) == [], case["what"]


def test_the_table_covers_every_kind_of_transition():
    categories = {case["category"] for case in table.load_cases()}
    assert {
        "first mention",
        "reconfirmation",
        "change",
        "negation",
        "correction",
        "section status",
        "clarification",
        "lifecycle",
        "user edit",
        "write path",
    } <= categories


def test_a_case_the_product_does_not_meet_is_reported():
    case = dict(table.load_cases()[0], expect={"event": "reconfirmation"})
    assert table.problems(case) == ["event: expected 'reconfirmation', got 'first_mention'"]


def test_first_mention_of_a_medication_is_active_at_once():
    d = first(med(FactStatus.PRESCRIBED, dose_value=500, dose_unit="mg"))
    assert d.fact.event.type is EventType.FIRST_MENTION
    assert d.fact.fact.stage is Stage.ACTIVE and d.fact.fact.status is FactStatus.PRESCRIBED
    assert d.fact.expected_version is None and d.fact.fact.version == 1


def test_medication_story_prescribed_started_dose_changed_stopped():
    fact = first(med(FactStatus.PRESCRIBED, dose_value=500, dose_unit="mg")).fact.fact
    started = again(med(FactStatus.ACTIVE), fact, fragment="f2", days=1).fact
    assert started.event.type is EventType.CHANGE
    assert started.fact.attributes == {"dose_value": 500, "dose_unit": "mg"}  # kept, not restated
    dosed = again(med(FactStatus.ACTIVE, dose_value=1000, dose_unit="mg"), started.fact, fragment="f3").fact
    assert dosed.event.type is EventType.CHANGE
    assert dosed.event.before["attributes"]["dose_value"] == 500
    assert dosed.fact.attributes["dose_value"] == 1000
    stopped = again(med(FactStatus.STOPPED), dosed.fact, fragment="f4").fact
    assert stopped.event.type is EventType.NEGATION
    assert stopped.fact.status is FactStatus.STOPPED and stopped.fact.version == 4


def test_same_statement_in_a_later_fragment_is_a_reconfirmation():
    fact = first(med()).fact.fact
    d = again(med(), fact, fragment="f2", session="s2", days=3).fact
    assert d.event.type is EventType.RECONFIRMATION
    assert d.fact.mention_count == 2 and d.fact.session_ids == ["s1", "s2"]
    assert d.fact.last_confirmed_at == T0 + timedelta(days=3)


def test_repeat_inside_the_same_fragment_changes_nothing():
    fact = first(med()).fact.fact
    d = again(med(), fact, fragment="f1")
    assert d.fact is None and d.noop_reason == "same_fragment_repeat"


def lifestyle(value: str, status=FactStatus.PRESENT, remember=False) -> Candidate:
    return Candidate(
        section=Section.LIFESTYLE,
        kind=AssertionKind.FACT,
        key="diet",
        name_raw="вегетарианец",
        name_normalized="diet",
        status=status,
        attributes={"value": value},
        remember=remember,
    )


def test_lifestyle_is_a_candidate_until_a_second_mention():
    fact = first(lifestyle("vegetarian")).fact.fact
    assert fact.stage is Stage.CANDIDATE
    assert again(lifestyle("vegetarian"), fact, fragment="f1").fact is None
    promoted = again(lifestyle("vegetarian"), fact, fragment="f2").fact.fact
    assert promoted.stage is Stage.ACTIVE


def test_remember_command_makes_a_lifestyle_fact_active_at_once():
    assert first(lifestyle("gluten-free", remember=True)).fact.fact.stage is Stage.ACTIVE


def age(birth_year: int, correction=False) -> Candidate:
    return Candidate(
        section=Section.DEMOGRAPHICS,
        kind=AssertionKind.FACT,
        key="birth_year",
        name_raw="34 года",
        name_normalized="birth_year",
        status=FactStatus.PRESENT,
        attributes={"birth_year": birth_year},
        correction=correction,
    )


def test_age_going_down_is_held_as_a_clarification():
    fact = first(age(1992)).fact.fact
    d = again(age(1996), fact, fragment="f2")
    assert d.fact is None and d.clarification.reason == "implausible_change:birth_year"
    assert d.clarification.current == {"birth_year": 1992} and d.clarification.proposed == {
        "birth_year": 1996
    }


def test_natural_ageing_is_a_reconfirmation_not_a_conflict():
    fact = first(age(1992)).fact.fact
    d = again(age(1991), fact, fragment="f2", days=400)
    assert d.clarification is None and d.fact.event.type is EventType.CHANGE


def test_a_marked_correction_applies_and_resolves_the_pending_clarification():
    fact = first(age(1992)).fact.fact
    held = again(age(1996), fact, fragment="f2").clarification
    d = again(age(1996, correction=True), fact, pending=[held], fragment="f3").fact
    assert d.event.type is EventType.CORRECTION
    assert d.fact.attributes["birth_year"] == 1996 and d.resolves == [held.id]


def section_claim(kind: AssertionKind, section=Section.ALLERGIES) -> Candidate:
    return Candidate(
        section=section,
        kind=kind,
        key=f"section:{section.value}",
        name_raw="",
        name_normalized="",
        status=None,
    )


def peanut(status=FactStatus.PRESENT) -> Candidate:
    return Candidate(
        section=Section.ALLERGIES,
        kind=AssertionKind.FACT,
        key="peanut",
        name_raw="арахис",
        name_normalized="арахис",
        status=status,
    )


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (AssertionKind.SECTION_ABSENT, SectionStatus.CONFIRMED_ABSENT),
        (AssertionKind.SECTION_UNSURE, SectionStatus.UNSURE),
    ],
)
def test_unknown_confirmed_absent_and_unsure_are_three_different_states(kind, expected):
    d = decide(section_claim(kind), None, SectionState(section=Section.ALLERGIES), [], [], ctx())
    assert d.section.state.status is expected and d.section.event.type is EventType.SECTION_STATUS
    assert d.section.event.before == {"status": "unknown"}


def test_no_allergies_while_an_allergy_is_active_is_a_clarification_not_a_deletion():
    allergy = first(peanut()).fact.fact
    d = decide(
        section_claim(AssertionKind.SECTION_ABSENT),
        None,
        SectionState(section=Section.ALLERGIES),
        [allergy],
        [],
        ctx(fragment="f2"),
    )
    assert d.section is None and d.fact is None
    assert d.clarification.reason == "section_absent_conflicts_with_recorded_facts"


def test_entity_level_absence_is_a_fact_and_does_not_conflict_with_no_allergies():
    penicillin = Candidate(
        section=Section.ALLERGIES,
        kind=AssertionKind.FACT,
        key="penicillin",
        name_raw="пенициллин",
        name_normalized="пенициллин",
        status=FactStatus.ABSENT,
    )
    fact = first(penicillin).fact.fact
    assert fact.status is FactStatus.ABSENT and fact.stage is Stage.ACTIVE
    d = decide(
        section_claim(AssertionKind.SECTION_ABSENT),
        None,
        SectionState(section=Section.ALLERGIES),
        [fact],
        [],
        ctx(fragment="f2"),
    )
    assert d.section.state.status is SectionStatus.CONFIRMED_ABSENT


def test_first_allergy_marks_the_section_present():
    d = first(peanut())
    assert d.section.state.status is SectionStatus.PRESENT


def test_user_delete_then_new_mention_revives_the_fact_as_a_change():
    fact = first(peanut()).fact.fact
    deleted = user_delete(fact, ctx()).fact
    assert deleted.is_deleted
    d = again(peanut(), deleted, fragment="f9").fact
    assert d.event.type is EventType.CHANGE and not d.fact.is_deleted


def test_user_edit_is_recorded_with_before_and_after():
    fact = first(med(FactStatus.ACTIVE, dose_value=500, dose_unit="mg")).fact.fact
    d = user_edit(fact, {"attributes": {"dose_value": 850}}, ctx())
    assert d.event.type is EventType.USER_EDIT
    assert d.event.before["attributes"]["dose_value"] == 500 and d.fact.attributes["dose_value"] == 850
    assert snapshot(d.fact) == d.event.after


# --- lifecycle per key: safety-relevant habits are active at once (seed 003, brief) -------------
def habit(key: str, value: str, status=FactStatus.PRESENT, correction=False, remember=False) -> Candidate:
    return Candidate(
        section=Section.LIFESTYLE,
        kind=AssertionKind.FACT,
        key=key,
        name_raw=value,
        name_normalized=key,
        status=status,
        attributes={"value": value},
        correction=correction,
        remember=remember,
    )


@pytest.mark.parametrize(("key", "value"), [("smoking", "pack a day"), ("alcohol", "weekends")])
def test_smoking_and_alcohol_are_active_at_first_mention(key, value):
    assert first(habit(key, value)).fact.fact.stage is Stage.ACTIVE


@pytest.mark.parametrize(("key", "value"), [("diet", "vegetarian"), ("physical_activity", "running")])
def test_other_habits_still_wait_for_a_second_mention(key, value):
    assert first(habit(key, value)).fact.fact.stage is Stage.CANDIDATE


def test_pregnancy_is_active_at_first_mention():
    candidate = Candidate(
        section=Section.DEMOGRAPHICS,
        kind=AssertionKind.FACT,
        key="pregnancy",
        name_raw="я беременна",
        name_normalized="pregnancy",
        status=FactStatus.PRESENT,
        attributes={"pregnancy": "pregnant"},
    )
    assert first(candidate).fact.fact.stage is Stage.ACTIVE


def test_the_lifecycle_sets_are_declared_in_sections():
    from health_ltm.domain import sections

    assert sections.active_at_first_mention(Section.LIFESTYLE, "smoking")
    assert not sections.active_at_first_mention(Section.LIFESTYLE, "diet")
    assert sections.active_at_first_mention(Section.DEMOGRAPHICS, "pregnancy")
    assert sections.resists_one_off_contradiction(Section.LIFESTYLE, "diet")
    assert not sections.resists_one_off_contradiction(Section.LIFESTYLE, "alcohol")
    assert not any(sections.resists_one_off_contradiction(s, "x") for s in sections.SAFETY_SECTIONS)


# --- stable facts resist a one-off contradiction (seed 003) --------------------------------------
def stable(candidate: Candidate):
    fact = first(candidate).fact.fact
    return fact.model_copy(update={"stage": Stage.STABLE, "mention_count": 5})


def test_a_one_off_contradiction_of_a_stable_habit_is_held_as_a_clarification():
    diet = stable(habit("diet", "vegetarian"))
    d = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, fragment="f2")
    assert d.fact is None and d.clarification is not None
    held = d.clarification
    assert held.reason == "contradicts_stable_fact" and held.fact_id == diet.id
    assert held.current == {"status": "present"} and held.proposed == {"status": "stopped"}
    assert held.fragment_id == "f2"


def test_a_second_mention_of_the_new_state_applies_it_and_settles_the_clarification():
    diet = stable(habit("diet", "vegetarian"))
    held = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, fragment="f2").clarification
    d = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, pending=[held], fragment="f3", days=2)
    assert d.fact.event.type is EventType.NEGATION and d.fact.fact.status is FactStatus.STOPPED
    assert d.fact.resolves == [held.id]


def test_the_same_contradiction_repeated_in_its_own_fragment_is_not_a_second_mention():
    diet = stable(habit("diet", "vegetarian"))
    held = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, fragment="f2").clarification
    d = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, pending=[held], fragment="f2")
    assert d.fact is None and d.clarification is None
    assert d.noop_reason == "stable_contradiction_pending"


def test_a_changed_value_of_a_stable_habit_is_held_too():
    activity = stable(habit("physical_activity", "running, 3 times a week"))
    d = again(habit("physical_activity", "swimming"), activity, fragment="f2")
    assert d.clarification.current == {"status": "present", "value": "running, 3 times a week"}
    assert d.clarification.proposed == {"status": "present", "value": "swimming"}
    applied = again(
        habit("physical_activity", "swimming"), activity, pending=[d.clarification], fragment="f3"
    ).fact
    assert applied.event.type is EventType.CHANGE and applied.fact.attributes["value"] == "swimming"


def test_a_different_second_contradiction_is_held_again_not_applied():
    diet = stable(habit("diet", "vegetarian"))
    held = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, fragment="f2").clarification
    d = again(habit("diet", "vegan"), diet, pending=[held], fragment="f3")
    assert d.fact is None and d.clarification.proposed == {"status": "present", "value": "vegan"}


def test_restating_the_stable_state_settles_a_pending_one_off():
    diet = stable(habit("diet", "vegetarian"))
    held = again(habit("diet", "vegetarian", FactStatus.STOPPED), diet, fragment="f2").clarification
    d = again(habit("diet", "vegetarian"), diet, pending=[held], fragment="f3").fact
    assert d.event.type is EventType.RECONFIRMATION and d.resolves == [held.id]
    assert d.fact.status is FactStatus.PRESENT


def test_an_explicit_correction_of_a_stable_habit_applies_at_once():
    diet = stable(habit("diet", "vegetarian"))
    d = again(habit("diet", "vegetarian", FactStatus.STOPPED, correction=True), diet, fragment="f2").fact
    assert d.event.type is EventType.CORRECTION and d.fact.status is FactStatus.STOPPED


def test_new_attributes_on_a_stable_habit_are_no_contradiction():
    diet = stable(habit("diet", "vegetarian"))
    richer = Candidate(**{**habit("diet", "vegetarian").__dict__, "valid_from": "2020"})
    d = again(richer, diet, fragment="f2").fact
    assert d is not None and d.event.type is EventType.CHANGE and d.fact.valid_from == "2020"


@pytest.mark.parametrize("key", ["smoking", "alcohol"])
def test_stable_smoking_and_alcohol_change_at_first_mention(key):
    fact = stable(habit(key, "yes"))
    d = again(habit(key, "former smoker", FactStatus.STOPPED), fact, fragment="f2")
    assert d.clarification is None and d.fact.event.type is EventType.NEGATION


def test_stable_facts_of_safety_sections_keep_their_first_mention_rules():
    metformin = stable(med(FactStatus.ACTIVE, dose_value=500, dose_unit="mg"))
    stopped = again(med(FactStatus.STOPPED), metformin, fragment="f2")
    assert stopped.clarification is None and stopped.fact.event.type is EventType.NEGATION
    allergy = stable(peanut())
    gone = again(peanut(FactStatus.RESOLVED), allergy, fragment="f2")
    assert gone.clarification is None and gone.fact.fact.status is FactStatus.RESOLVED


# A stable preference meets a stream of mentions, one per fragment (some repeated in a fragment);
# the pipeline keeps the clarifications that are not settled. Whatever the stream:
#  - the fact takes a new state only if that state was already held from another fragment;
#  - the same new state said in two fragments in a row is always the state afterwards.
DIET_STATES = [
    (FactStatus.PRESENT, "vegetarian"),
    (FactStatus.STOPPED, "vegetarian"),
    (FactStatus.PRESENT, "vegan"),
    (FactStatus.ABSENT, "vegetarian"),
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(DIET_STATES) - 1), st.booleans()), min_size=1, max_size=12))
def test_a_stable_preference_changes_only_on_a_repeated_contradiction(stream):
    fact = stable(habit("diet", "vegetarian"))
    pending: list = []
    held_from: dict[tuple, set[str]] = {}  # proposed state -> fragments that said it
    previous: tuple | None = None
    for n, (index, repeat) in enumerate(stream):
        status, value = DIET_STATES[index]
        fragment = f"f{n + 2}"
        for _ in range(2 if repeat else 1):
            before = (fact.status, fact.attributes["value"])
            d = again(habit("diet", value, status), fact, pending=pending, fragment=fragment)
            if d.clarification:
                pending.append(d.clarification)
                held_from.setdefault((status, value), set()).add(fragment)
            if d.fact:
                pending = [c for c in pending if c.id not in d.fact.resolves]
                fact = d.fact.fact
                after = (fact.status, fact.attributes["value"])
                if after != before:
                    assert held_from.get(after, set()) - {fragment}, (before, after)
                    held_from.clear()
                assert fact.stage is Stage.STABLE
        if previous == (status, value):
            assert (fact.status, fact.attributes["value"]) == (status, value)
        previous = (status, value)
