"""Level 4: state transitions, table-driven, every case.

Code decides what happened (domain/transitions.decide); the model never does. Each row of the
table sets up a stored state, hands ``decide`` one candidate (or calls the user edit / delete /
section-status functions) and states the outcome: the history event, the resulting status and
stage, a clarification instead of a change, or nothing at all. A second table drives the same
decisions through the write path (InMemoryRepository, a scripted extractor standing in for any
extractor) to check what the pipeline adds: validation, redelivery, stored clarifications.
No model is involved, so both columns of the report are the same run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from .common import EVAL_DAY

LEVEL = "transitions"
MODEL_INDEPENDENT = True


def _domain():
    from health_ltm.domain import models, sections, transitions
    from health_ltm.domain.candidates import Candidate

    return models, sections, transitions, Candidate


_ids = itertools.count(1)


def _new_id() -> str:
    return f"id{next(_ids):05d}"


def _ctx(fragment: str = "f-new", session: str = "s-new"):
    _, _, transitions, _ = _domain()
    return transitions.DecisionContext(
        now=EVAL_DAY, new_id=_new_id, fragment_id=fragment, session_id=session, extractor="table"
    )


def fact(
    section: str,
    key: str,
    status: str,
    *,
    stage: str = "active",
    attributes: dict | None = None,
    fragments: tuple[str, ...] = ("f-old",),
    deleted: bool = False,
    version: int = 3,
):
    models, sections, _, _ = _domain()
    then = EVAL_DAY - timedelta(days=30)
    return models.Fact(
        id=f"fact-{section}-{key}",
        section=sections.Section(section),
        key=key,
        name_raw=key,
        name_normalized=key,
        status=sections.FactStatus(status),
        stage=sections.Stage(stage),
        attributes=dict(attributes or {}),
        first_mentioned_at=then,
        last_confirmed_at=then,
        mention_count=2,
        source_fragment_ids=list(fragments),
        deleted_at=then if deleted else None,
        version=version,
    )


def cand(
    section: str,
    key: str = "",
    status: str | None = None,
    *,
    kind: str = "fact",
    attributes: dict | None = None,
    correction: bool = False,
    remember: bool = False,
):
    models, sections, _, Candidate = _domain()
    kind_ = models.AssertionKind(kind)
    return Candidate(
        section=sections.Section(section),
        kind=kind_,
        key=key or f"section:{section}",
        name_raw=key,
        name_normalized=key,
        status=sections.FactStatus(status) if status else None,
        attributes=dict(attributes or {}),
        correction=correction,
        remember=remember,
    )


def state(section: str, status: str = "unknown", version: int = 1):
    models, sections, _, _ = _domain()
    return models.SectionState(
        section=sections.Section(section), status=sections.SectionStatus(status), version=version
    )


def clarification(section: str, fact_id: str):
    models, sections, _, _ = _domain()
    return models.Clarification(
        id="clar-1",
        section=sections.Section(section),
        fact_id=fact_id,
        reason="implausible_change:birth_year",
        created_at=EVAL_DAY,
    )


@dataclass
class Case:
    id: str
    category: str
    what: str
    run: Callable[[], Any]  # -> a Decision, a FactDecision or a SectionDecision
    expect: dict[str, Any] = field(default_factory=dict)


def _decide(candidate, existing=None, section_state=None, facts=(), pending=(), fragment="f-new"):
    _, _, transitions, _ = _domain()
    return lambda: transitions.decide(
        candidate,
        existing,
        section_state or state(candidate.section.value),
        list(facts) or ([existing] if existing is not None else []),
        list(pending),
        _ctx(fragment),
    )


def _user(function: str, *args):
    _, _, transitions, _ = _domain()
    return lambda: getattr(transitions, function)(*args, _ctx())


def decide_cases() -> list[Case]:
    enap = fact("medications", "enalapril", "active", attributes={"dose_value": 5.0, "dose_unit": "mg"})
    allergy = fact("allergies", "penicillin", "present")
    age = fact("demographics", "birth_year", "present", attributes={"birth_year": 1996})
    sex = fact("demographics", "sex", "present", attributes={"sex": "female"})
    diet = fact("lifestyle", "diet", "present", stage="candidate", attributes={"value": "vegetarian"})
    return [
        # first mention
        Case(
            "first_mention_medication",
            "first mention",
            "a new drug: an active fact, section present",
            _decide(cand("medications", "metformin", "active")),
            {"event": "first_mention", "status": "active", "stage": "active", "section_status": "present"},
        ),
        Case(
            "first_mention_prescribed",
            "first mention",
            "prescribed, not started yet",
            _decide(cand("medications", "metformin", "prescribed")),
            {"event": "first_mention", "status": "prescribed", "stage": "active"},
        ),
        Case(
            "first_mention_symptom",
            "first mention",
            "a symptom: active at once, no section status",
            _decide(cand("symptoms", "headache", "present")),
            {"event": "first_mention", "status": "present", "stage": "active", "section_status": None},
        ),
        Case(
            "first_mention_lifestyle_candidate",
            "first mention",
            "lifestyle waits for a second mention: a candidate",
            _decide(cand("lifestyle", "diet", "present", attributes={"value": "vegan"})),
            {"event": "first_mention", "stage": "candidate", "section_status": None},
        ),
        Case(
            "first_mention_remember",
            "first mention",
            "an explicit 'remember' makes lifestyle active at once",
            _decide(cand("lifestyle", "diet", "present", attributes={"value": "vegan"}, remember=True)),
            {"event": "first_mention", "stage": "active"},
        ),
        Case(
            "first_mention_entity_absent",
            "negation",
            "'not allergic to penicillin': an absent fact, the section stays unknown",
            _decide(cand("allergies", "penicillin", "absent")),
            {"event": "first_mention", "status": "absent", "stage": "active", "section_status": None},
        ),
        Case(
            "first_mention_default_status",
            "first mention",
            "no status given: a drug is taken, a condition present",
            _decide(cand("chronic_conditions", "hypertension")),
            {"event": "first_mention", "status": "present", "section_status": "present"},
        ),
        # reconfirmation
        Case(
            "reconfirmation",
            "reconfirmation",
            "the same drug and dose said again in another fragment",
            _decide(
                cand("medications", "enalapril", "active", attributes={"dose_value": 5.0, "dose_unit": "mg"}),
                enap,
            ),
            {"event": "reconfirmation", "status": "active", "mention_count": 3, "version": 4},
        ),
        Case(
            "same_fragment_repeat",
            "reconfirmation",
            "a repeat inside the fragment that stored it: nothing",
            _decide(
                cand("medications", "enalapril", "active", attributes={"dose_value": 5.0, "dose_unit": "mg"}),
                enap,
                fragment="f-old",
            ),
            {"noop": "same_fragment_repeat"},
        ),
        Case(
            "stable_stays_stable",
            "reconfirmation",
            "a stable fact reconfirmed stays stable",
            _decide(
                cand("allergies", "penicillin", "present"),
                fact("allergies", "penicillin", "present", stage="stable"),
            ),
            {"event": "reconfirmation", "stage": "stable"},
        ),
        # change
        Case(
            "change_dose",
            "change",
            "the dose goes from 5 to 10 mg; what was not restated is kept",
            _decide(cand("medications", "enalapril", "active", attributes={"dose_value": 10.0}), enap),
            {"event": "change", "attributes": {"dose_value": 10.0, "dose_unit": "mg"}},
        ),
        Case(
            "change_started",
            "change",
            "prescribed, then started: a change to active",
            _decide(
                cand("medications", "metformin", "active"), fact("medications", "metformin", "prescribed")
            ),
            {"event": "change", "status": "active"},
        ),
        Case(
            "change_city",
            "change",
            "moving to another city",
            _decide(
                cand("demographics", "city", "present", attributes={"city": "Казань"}),
                fact("demographics", "city", "present", attributes={"city": "Москва"}),
            ),
            {"event": "change", "attributes": {"city": "Казань"}},
        ),
        Case(
            "change_diet",
            "change",
            "a changed diet",
            _decide(
                cand("lifestyle", "diet", "present", attributes={"value": "vegan"}),
                fact("lifestyle", "diet", "present", attributes={"value": "vegetarian"}),
            ),
            {"event": "change", "attributes": {"value": "vegan"}},
        ),
        # negation
        Case(
            "negation_stopped",
            "negation",
            "no longer takes the drug",
            _decide(cand("medications", "enalapril", "stopped"), enap),
            {"event": "negation", "status": "stopped"},
        ),
        Case(
            "negation_resolved",
            "negation",
            "a symptom is over",
            _decide(cand("symptoms", "headache", "resolved"), fact("symptoms", "headache", "present")),
            {"event": "negation", "status": "resolved"},
        ),
        Case(
            "negation_absent",
            "negation",
            "'turns out I am not allergic to it'",
            _decide(cand("allergies", "penicillin", "absent"), allergy),
            {"event": "negation", "status": "absent"},
        ),
        Case(
            "negation_to_present_again",
            "change",
            "stopped, then taken again: a change back to active",
            _decide(cand("medications", "enalapril", "active"), fact("medications", "enalapril", "stopped")),
            {"event": "change", "status": "active"},
        ),
        # correction
        Case(
            "correction_event",
            "correction",
            "'I was wrong, it is 10 mg': a correction, not a change",
            _decide(
                cand("medications", "enalapril", "active", attributes={"dose_value": 10.0}, correction=True),
                enap,
            ),
            {"event": "correction", "attributes": {"dose_value": 10.0}},
        ),
        Case(
            "correction_of_age",
            "correction",
            "'я ошибся, мне 28': the implausible change is accepted",
            _decide(
                cand(
                    "demographics", "birth_year", "present", attributes={"birth_year": 1998}, correction=True
                ),
                age,
            ),
            {"event": "correction", "attributes": {"birth_year": 1998}},
        ),
        Case(
            "correction_resolves_clarification",
            "correction",
            "a correction settles the pending clarification",
            _decide(
                cand(
                    "demographics", "birth_year", "present", attributes={"birth_year": 1998}, correction=True
                ),
                age,
                pending=[clarification("demographics", age.id)],
            ),
            {"event": "correction", "resolves": 1},
        ),
        # implausible changes
        Case(
            "implausible_age",
            "clarification",
            "age going down by two years: held as a clarification",
            _decide(cand("demographics", "birth_year", "present", attributes={"birth_year": 1998}), age),
            {"clarification": "implausible_change:birth_year"},
        ),
        Case(
            "natural_ageing",
            "change",
            "a birthday moves the stated age by one year: a plain change",
            _decide(cand("demographics", "birth_year", "present", attributes={"birth_year": 1995}), age),
            {"event": "change", "attributes": {"birth_year": 1995}},
        ),
        Case(
            "same_age_again",
            "reconfirmation",
            "the same birth year again",
            _decide(cand("demographics", "birth_year", "present", attributes={"birth_year": 1996}), age),
            {"event": "reconfirmation"},
        ),
        Case(
            "implausible_sex",
            "clarification",
            "sex changing without a correction: a clarification",
            _decide(cand("demographics", "sex", "present", attributes={"sex": "male"}), sex),
            {"clarification": "implausible_change:sex"},
        ),
        # section status: unknown vs confirmed absence vs unsure
        Case(
            "confirmed_absent",
            "section status",
            "'I have no allergies' on an unknown section",
            _decide(cand("allergies", kind="section_absent")),
            {"section_status": "confirmed_absent", "section_event": "section_status"},
        ),
        Case(
            "unsure",
            "section status",
            "'I don't know if I have allergies'",
            _decide(cand("allergies", kind="section_unsure")),
            {"section_status": "unsure", "section_event": "section_status"},
        ),
        Case(
            "absent_after_unsure",
            "section status",
            "unsure first, then sure there are none",
            _decide(cand("allergies", kind="section_absent"), section_state=state("allergies", "unsure")),
            {"section_status": "confirmed_absent", "section_event": "section_status"},
        ),
        Case(
            "absent_reconfirmed",
            "section status",
            "'no allergies' said again",
            _decide(
                cand("allergies", kind="section_absent"), section_state=state("allergies", "confirmed_absent")
            ),
            {"section_status": "confirmed_absent", "section_event": "reconfirmation"},
        ),
        Case(
            "unsure_but_known",
            "section status",
            "'not sure' while an allergy is on record: nothing changes",
            _decide(
                cand("allergies", kind="section_unsure"),
                section_state=state("allergies", "present"),
                facts=[allergy],
            ),
            {"noop": "unsure_but_facts_known"},
        ),
        Case(
            "absent_conflict",
            "clarification",
            "'no allergies' while one is recorded: ask, never delete",
            _decide(
                cand("allergies", kind="section_absent"),
                section_state=state("allergies", "present"),
                facts=[allergy],
            ),
            {"clarification": "section_absent_conflicts_with_recorded_facts"},
        ),
        Case(
            "absent_with_entity_absent_only",
            "section status",
            "'no allergies' after 'not allergic to X'",
            _decide(
                cand("allergies", kind="section_absent"), facts=[fact("allergies", "penicillin", "absent")]
            ),
            {"section_status": "confirmed_absent"},
        ),
        Case(
            "absent_after_stopped_drug",
            "section status",
            "'I take nothing' when the only drug is stopped",
            _decide(
                cand("medications", kind="section_absent"),
                section_state=state("medications", "present"),
                facts=[fact("medications", "enalapril", "stopped")],
            ),
            {"section_status": "confirmed_absent"},
        ),
        Case(
            "fact_after_confirmed_absent",
            "section status",
            "an allergy after 'no allergies': present again",
            _decide(
                cand("allergies", "peanut", "present"), section_state=state("allergies", "confirmed_absent")
            ),
            {"event": "first_mention", "section_status": "present"},
        ),
        # lifecycle
        Case(
            "candidate_to_active",
            "lifecycle",
            "a lifestyle candidate said again in another fragment",
            _decide(cand("lifestyle", "diet", "present", attributes={"value": "vegetarian"}), diet),
            {"event": "reconfirmation", "stage": "active"},
        ),
        Case(
            "candidate_same_fragment_stays",
            "lifecycle",
            "a candidate changed within the fragment that made it stays a candidate",
            _decide(
                cand("lifestyle", "diet", "present", attributes={"value": "vegan"}), diet, fragment="f-old"
            ),
            {"event": "change", "stage": "candidate"},
        ),
        Case(
            "candidate_remember",
            "lifecycle",
            "'remember' in the same fragment activates a candidate",
            _decide(
                cand("lifestyle", "diet", "present", attributes={"value": "vegetarian"}, remember=True),
                diet,
                fragment="f-old",
            ),
            {"stage": "active"},
        ),
        Case(
            "deprecated_revived_by_change",
            "lifecycle",
            "a deprecated fact that changes is active again",
            _decide(
                cand("medications", "enalapril", "active", attributes={"dose_value": 10.0}),
                fact(
                    "medications",
                    "enalapril",
                    "active",
                    stage="deprecated",
                    attributes={"dose_value": 5.0, "dose_unit": "mg"},
                ),
            ),
            {"event": "change", "stage": "active"},
        ),
        Case(
            "deleted_revived",
            "lifecycle",
            "a fact the user deleted and then mentions again comes back",
            _decide(
                cand("allergies", "penicillin", "present"),
                fact("allergies", "penicillin", "present", deleted=True),
            ),
            {"event": "change", "deleted": False, "status": "present"},
        ),
        Case(
            "deleted_age_no_clarification",
            "lifecycle",
            "a deleted age restated differently is no conflict with what the user removed",
            _decide(
                cand("demographics", "birth_year", "present", attributes={"birth_year": 1990}),
                fact("demographics", "birth_year", "present", attributes={"birth_year": 1996}, deleted=True),
            ),
            {"event": "change", "attributes": {"birth_year": 1990}},
        ),
        # the user's own edits
        Case(
            "user_edit",
            "user edit",
            "PATCH: attributes merged, a user_edit event, the version bumped",
            _user("user_edit", enap, {"attributes": {"dose_value": 2.5}}),
            {"event": "user_edit", "attributes": {"dose_value": 2.5, "dose_unit": "mg"}, "version": 4},
        ),
        Case(
            "user_edit_activates_candidate",
            "user edit",
            "the user vouches for a candidate",
            _user("user_edit", diet, {"attributes": {"value": "vegan"}}),
            {"event": "user_edit", "stage": "active"},
        ),
        Case(
            "user_delete",
            "user edit",
            "DELETE: the fact leaves every context, history kept",
            _user("user_delete", allergy),
            {"event": "user_delete", "deleted": True},
        ),
        Case(
            "user_section_status",
            "user edit",
            "PUT /v1/sections: the user says 'no allergies'",
            lambda: _domain()[2].user_section_status(
                state("allergies"), _domain()[1].SectionStatus.CONFIRMED_ABSENT, _ctx()
            ),
            {"section_status": "confirmed_absent", "section_event": "section_status"},
        ),
    ]


def _outcome(result: Any) -> dict[str, Any]:
    """Flatten a Decision / FactDecision / SectionDecision to the fields the table speaks of."""
    _, _, transitions, _ = _domain()
    out: dict[str, Any] = {
        "event": None,
        "noop": None,
        "clarification": None,
        "section_status": None,
        "section_event": None,
    }
    fact_decision = section_decision = None
    if isinstance(result, transitions.Decision):
        fact_decision, section_decision = result.fact, result.section
        out["noop"] = result.noop_reason
        if result.clarification is not None:
            out["clarification"] = result.clarification.reason
    elif isinstance(result, transitions.FactDecision):
        fact_decision = result
    elif isinstance(result, transitions.SectionDecision):
        section_decision = result
    if fact_decision is not None:
        f = fact_decision.fact
        out.update(
            event=fact_decision.event.type.value,
            status=f.status.value,
            stage=f.stage.value,
            attributes=f.attributes,
            mention_count=f.mention_count,
            version=f.version,
            deleted=f.deleted_at is not None,
            resolves=len(fact_decision.resolves),
            history_matches_state=fact_decision.event.after == transitions.snapshot(f),
        )
    if section_decision is not None:
        out["section_status"] = section_decision.state.status.value
        out["section_event"] = section_decision.event.type.value
    return out


def _check(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    wrong = []
    for key, want in expect.items():
        have = got.get(key)
        if key == "attributes":
            have = {k: (have or {}).get(k) for k in want}
        if have != want:
            wrong.append(f"{key}: expected {want!r}, got {have!r}")
    if "event" in expect and expect["event"] and got.get("history_matches_state") is False:
        wrong.append("the history event's 'after' is not the new state")
    # A decision never does two contradictory things at once.
    if got.get("clarification") and got.get("event"):
        wrong.append("a clarification and a change at once")
    return wrong


# ---------------------------------------------------------------------------- through the write path
class _Scripted:
    """Stands in for any extractor: returns the assertions of the current step."""

    name = "scripted"

    def __init__(self) -> None:
        self.assertions: list = []

    def extract(self, messages, sections):
        return list(self.assertions)

    def classify(self, messages):
        return (
            sorted({a.section for a in self.assertions}, key=list(type(self.assertions[0].section)).index)
            if self.assertions
            else []
        )


def _assertion(section: str, evidence: str, **kw):
    from health_ltm.domain.models import Assertion

    return Assertion(section=section, evidence=evidence, **kw)


class _Harness:
    def __init__(self) -> None:
        from health_ltm.domain.clock import FixedClock
        from health_ltm.storage.memory import InMemoryRepository
        from health_ltm.write.pipeline import WritePath

        self.clock = FixedClock(EVAL_DAY)
        self.repo = InMemoryRepository()
        self.script = _Scripted()
        self.path = WritePath(
            repository=self.repo,
            classifier=self.script,
            extractor=self.script,
            clock=self.clock,
            new_id=_new_id,
        )
        self.last_fragment: str | None = None

    def say(self, text: str, *assertions, assistant: str | None = None, session: str = "s1"):
        from health_ltm.domain.ids import new_ulid
        from health_ltm.domain.models import Message, Role
        from health_ltm.write.intake import submit_fragment

        class _Queue:
            def send(self, user_id, fragment_id):
                pass

        messages = [Message(role=Role.USER, text=text)]
        if assistant:
            messages.append(Message(role=Role.ASSISTANT, text=assistant))
        self.script.assertions = list(assertions)
        fragment = submit_fragment(self.repo, _Queue(), self.clock, new_ulid, "u", session, messages)
        self.last_fragment = fragment.id
        self.clock.advance(days=1)
        return self.path.process("u", fragment.id)

    def facts(self, section: str | None = None):
        return [f for f in self.repo.load_memory("u").facts if section is None or f.section.value == section]

    def history(self, fact) -> list[str]:
        return [e.type.value for e in self.repo.get_history("u", fact.id)]


def _wp_seed_story() -> list[str]:
    h = _Harness()
    h.say(
        "Врач назначил метформин 500 мг",
        _assertion(
            "medications",
            "назначил метформин 500 мг",
            name="метформин",
            status="prescribed",
            attributes={"dose_value": 500, "dose_unit": "mg"},
        ),
    )
    h.say(
        "Начал принимать метформин",
        _assertion("medications", "Начал принимать метформин", name="метформин", status="active"),
    )
    h.say(
        "Врач увеличил дозу метформина до 1000 мг",
        _assertion(
            "medications",
            "метформина до 1000 мг",
            name="метформин",
            status="active",
            attributes={"dose_value": 1000, "dose_unit": "mg"},
        ),
    )
    h.say(
        "Больше не принимаю метформин",
        _assertion("medications", "не принимаю метформин", name="метформин", status="stopped"),
    )
    facts = h.facts("medications")
    problems = []
    if len(facts) != 1:
        return [f"expected one medication fact, got {len(facts)}"]
    events = h.history(facts[0])
    if events != ["first_mention", "change", "change", "negation"]:
        problems.append(f"history {events}")
    if facts[0].status.value != "stopped" or facts[0].attributes.get("dose_value") != 1000:
        problems.append(f"state {facts[0].status.value} {facts[0].attributes}")
    return problems


def _wp_redelivery() -> list[str]:
    h = _Harness()
    h.say(
        "У меня аллергия на арахис",
        _assertion("allergies", "аллергия на арахис", name="арахис", status="present"),
    )
    before = h.repo.export("u")["history"]
    again = h.path.process("u", h.last_fragment)
    after = h.repo.export("u")["history"]
    return [] if again.status.value == "applied" and before == after else ["a redelivery changed the history"]


def _wp_repeat_in_fragment() -> list[str]:
    h = _Harness()
    a = _assertion("allergies", "аллергия на арахис", name="арахис", status="present")
    h.say(
        "У меня аллергия на арахис, да, на арахис аллергия", a, a.model_copy(update={"evidence": "на арахис"})
    )
    facts = h.facts("allergies")
    return (
        []
        if len(facts) == 1 and h.history(facts[0]) == ["first_mention"]
        else ["a repeat made a second event"]
    )


def _wp_evidence() -> list[str]:
    h = _Harness()
    outcome = h.say(
        "Пью эналаприл",
        _assertion("medications", "Пью эналаприл", name="эналаприл", status="active"),
        _assertion("chronic_conditions", "у меня гипертония", name="гипертония", status="present"),
    )
    reasons = [r["reason"] for r in outcome.rejected]
    problems = []
    if reasons != ["evidence_not_in_user_text"]:
        problems.append(f"rejected {reasons}")
    if [f.key for f in h.facts()] != ["enalapril"]:
        problems.append(f"stored {[f.key for f in h.facts()]}")
    return problems


def _wp_assistant_only() -> list[str]:
    h = _Harness()
    h.say(
        "Расскажи про давление",
        _assertion("chronic_conditions", "У вас гипертония", name="гипертония", status="present"),
        assistant="У вас гипертония, пейте таблетки.",
    )
    return [] if not h.facts() else ["a fact from the assistant's words was stored"]


def _wp_absent_conflict() -> list[str]:
    h = _Harness()
    h.say(
        "Аллергия на пенициллин",
        _assertion("allergies", "Аллергия на пенициллин", name="пенициллин", status="present"),
    )
    h.say("Аллергий у меня нет", _assertion("allergies", "Аллергий у меня нет", kind="section_absent"))
    memory = h.repo.load_memory("u")
    problems = []
    if not any(c.reason == "section_absent_conflicts_with_recorded_facts" for c in memory.clarifications):
        problems.append("no clarification stored")
    if [f.status.value for f in memory.facts] != ["present"]:
        problems.append("the allergy did not survive")
    if memory.section_status(memory.facts[0].section).value != "present":
        problems.append("section status changed")
    return problems


def _wp_age_clarified_then_corrected() -> list[str]:
    h = _Harness()
    h.say(
        "Мне 30 лет", _assertion("demographics", "Мне 30 лет", name="30 лет", attributes={"birth_year": 1996})
    )
    h.say("Мне 28", _assertion("demographics", "Мне 28", name="28", attributes={"birth_year": 1998}))
    problems = []
    memory = h.repo.load_memory("u")
    if len(memory.clarifications) != 1 or memory.facts[0].attributes["birth_year"] != 1996:
        problems.append("the implausible age was not held back")
    h.say(
        "Я ошибся, мне 28",
        _assertion("demographics", "мне 28", name="28", attributes={"birth_year": 1998}, correction=True),
    )
    memory = h.repo.load_memory("u")
    if memory.clarifications or memory.facts[0].attributes["birth_year"] != 1998:
        problems.append("the correction did not apply or did not settle the clarification")
    if h.history(memory.facts[0]) != ["first_mention", "correction"]:
        problems.append(f"history {h.history(memory.facts[0])}")
    return problems


def write_path_cases() -> list[tuple[str, str, Callable[[], list[str]]]]:
    return [
        (
            "wp_seed_medication_story",
            "the seed's story: prescribed, started, dose up, stopped",
            _wp_seed_story,
        ),
        ("wp_redelivery", "a redelivered fragment changes nothing", _wp_redelivery),
        ("wp_repeat_in_fragment", "two mentions in one fragment are one event", _wp_repeat_in_fragment),
        ("wp_evidence", "a quote not in the user's words is rejected, the rest applies", _wp_evidence),
        ("wp_assistant_only", "what only the assistant said makes no fact", _wp_assistant_only),
        (
            "wp_absent_conflict",
            "'no allergies' with one on record is stored as a clarification",
            _wp_absent_conflict,
        ),
        (
            "wp_age_clarified_then_corrected",
            "age down: held; 'я ошибся': applied and settled",
            _wp_age_clarified_then_corrected,
        ),
    ]


def run(config=None, *, limit: int | None = None) -> dict[str, Any]:
    results: list[dict[str, Any]] = []
    for case in decide_cases():
        try:
            problems = _check(case.expect, _outcome(case.run()))
        except Exception as err:  # a crash is a failed case, reported with its type
            problems = [f"raised {type(err).__name__}: {err}"]
        results.append({"id": case.id, "category": case.category, "what": case.what, "problems": problems})
    for case_id, what, check in write_path_cases():
        try:
            problems = check()
        except Exception as err:
            problems = [f"raised {type(err).__name__}: {err}"]
        results.append({"id": case_id, "category": "write path", "what": what, "problems": problems})
    by_category: dict[str, list[int]] = {}
    for r in results:
        row = by_category.setdefault(r["category"], [0, 0])
        row[0] += not r["problems"]
        row[1] += 1
    passed = sum(not r["problems"] for r in results)
    return {
        "summary": {"cases": len(results), "passed": passed, "accuracy": round(passed / len(results), 4)},
        "per_category": {k: f"{v[0]}/{v[1]}" for k, v in by_category.items()},
        "cases": [
            {"id": r["id"], "category": r["category"], "what": r["what"], "ok": not r["problems"]}
            for r in results
        ],
        "failures": [r for r in results if r["problems"]],
    }
