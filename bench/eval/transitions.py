"""Level 4: state transitions, the table of cases in data/transitions.jsonl.

Each case sets up a stored state and either hands the product's transition function
(``domain.transitions.decide``, or the user edit / delete / section-status functions) one
candidate, or says a few fragments to the write path with a scripted extractor. Its ``expect``
lists the outcome; the unit tests (tests/unit/test_transitions.py) run the same cases, so this
level reports how many hold. No model is involved: both columns of the report are one run.
"""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

from .common import EVAL_DAY, load_jsonl

LEVEL = "transitions"
MODEL_INDEPENDENT = True
DATA = "transitions.jsonl"

_ids = itertools.count(1)


def _new_id() -> str:
    return f"id{next(_ids):05d}"


def load_cases() -> list[dict[str, Any]]:
    return load_jsonl(DATA)


# ------------------------------------------------------------------ the objects a case describes
def _fact(spec: dict[str, Any]):
    from health_ltm.domain import models, sections

    then = EVAL_DAY - timedelta(days=30)
    section, key = spec["section"], spec["key"]
    return models.Fact(
        id=f"fact-{section}-{key}",
        section=sections.Section(section),
        key=key,
        name_raw=key,
        name_normalized=key,
        status=sections.FactStatus(spec["status"]),
        stage=sections.Stage(spec.get("stage", "active")),
        attributes=dict(spec.get("attributes", {})),
        first_mentioned_at=then,
        last_confirmed_at=then,
        mention_count=2,
        source_fragment_ids=["f-old"],
        deleted_at=then if spec.get("deleted") else None,
        version=3,
    )


def _candidate(spec: dict[str, Any]):
    from health_ltm.domain import models, sections
    from health_ltm.domain.candidates import Candidate

    section = spec["section"]
    return Candidate(
        section=sections.Section(section),
        kind=models.AssertionKind(spec.get("kind", "fact")),
        key=spec.get("key") or f"section:{section}",
        name_raw=spec.get("key", ""),
        name_normalized=spec.get("key", ""),
        status=sections.FactStatus(spec["status"]) if spec.get("status") else None,
        attributes=dict(spec.get("attributes", {})),
        correction=spec.get("correction", False),
        remember=spec.get("remember", False),
    )


def _state(spec: dict[str, Any]):
    from health_ltm.domain import models, sections

    return models.SectionState(
        section=sections.Section(spec["section"]),
        status=sections.SectionStatus(spec.get("status", "unknown")),
        version=1,
    )


def _clarification(spec: dict[str, Any], fact_id: str):
    from health_ltm.domain import models, sections

    return models.Clarification(
        id="clar-1",
        section=sections.Section(spec["section"]),
        fact_id=fact_id,
        reason=spec["reason"],
        created_at=EVAL_DAY,
    )


def _context(fragment: str = "f-new"):
    from health_ltm.domain import transitions

    return transitions.DecisionContext(
        now=EVAL_DAY, new_id=_new_id, fragment_id=fragment, session_id="s-new", extractor="table"
    )


def _call(case: dict[str, Any]) -> Any:
    """The product's function for the case: a Decision, a FactDecision or a SectionDecision."""
    from health_ltm.domain import sections, transitions

    call = case["call"]
    if call == "user_edit":
        return transitions.user_edit(_fact(case["fact"]), case["changes"], _context())
    if call == "user_delete":
        return transitions.user_delete(_fact(case["fact"]), _context())
    if call == "user_section_status":
        status = sections.SectionStatus(case["status"])
        return transitions.user_section_status(_state(case["state"]), status, _context())
    candidate = _candidate(case["candidate"])
    existing = _fact(case["existing"]) if case.get("existing") else None
    facts = [_fact(f) for f in case.get("facts", [])] or ([existing] if existing is not None else [])
    pending = [_clarification(c, existing.id if existing else "") for c in case.get("pending", [])]
    state = _state(case.get("state") or {"section": candidate.section.value})
    return transitions.decide(
        candidate, existing, state, facts, pending, _context(case.get("fragment", "f-new"))
    )


def _outcome(result: Any) -> dict[str, Any]:
    """Flatten a Decision / FactDecision / SectionDecision to the fields a case's ``expect`` names."""
    from health_ltm.domain import transitions

    out: dict[str, Any] = dict.fromkeys(("event", "noop", "clarification", "section_status", "section_event"))
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


def mismatches(want: Any, have: Any, path: str = "") -> list[str]:
    """What of ``want`` ``have`` lacks: dicts are compared on want's keys, lists item by item."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return [f"{path or 'value'}: expected {want!r}, got {have!r}"]
        return [p for key, value in want.items() for p in mismatches(value, have.get(key), f"{path}{key}.")]
    if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
        return [
            p
            for n, (w, h) in enumerate(zip(want, have, strict=True))
            for p in mismatches(w, h, f"{path}{n}.")
        ]
    return [] if want == have else [f"{path.rstrip('.')}: expected {want!r}, got {have!r}"]


def _decision_problems(case: dict[str, Any]) -> list[str]:
    got = _outcome(_call(case))
    problems = mismatches(case["expect"], got)
    if case["expect"].get("event") and got.get("history_matches_state") is False:
        problems.append("the history event's 'after' is not the new state")
    if got.get("clarification") and got.get("event"):  # never two contradictory things at once
        problems.append("a clarification and a change at once")
    return problems


# ------------------------------------------------------------------ through the write path
class _Scripted:
    """Stands in for any extractor and classifier: returns the assertions of the current step."""

    name = "scripted"

    def __init__(self) -> None:
        self.assertions: list = []

    def extract(self, messages, sections):
        return list(self.assertions)

    def classify(self, messages):
        order = {s: n for n, s in enumerate(type(self.assertions[0].section))} if self.assertions else {}
        return sorted({a.section for a in self.assertions}, key=order.__getitem__)


def _write_path_problems(case: dict[str, Any]) -> list[str]:
    from health_ltm.domain.clock import FixedClock
    from health_ltm.domain.ids import new_ulid
    from health_ltm.domain.models import Assertion, Message, Role
    from health_ltm.storage.memory import InMemoryRepository
    from health_ltm.write.intake import submit_fragment
    from health_ltm.write.pipeline import WritePath

    class _Queue:
        def send(self, user_id, fragment_id):
            pass

    clock, repo, script = FixedClock(EVAL_DAY), InMemoryRepository(), _Scripted()
    path = WritePath(repository=repo, classifier=script, extractor=script, clock=clock, new_id=_new_id)
    problems: list[str] = []
    fragment_id = ""
    for number, step in enumerate(case["steps"], 1):
        before = repo.export("u")["history"]
        if step.get("redeliver"):
            outcome = path.process("u", fragment_id)
        else:
            messages = [Message(role=Role.USER, text=step["say"])]
            if step.get("assistant"):
                messages.append(Message(role=Role.ASSISTANT, text=step["assistant"]))
            script.assertions = [Assertion(**a) for a in step.get("assertions", [])]
            fragment_id = submit_fragment(repo, _Queue(), clock, new_ulid, "u", "s1", messages).id
            clock.advance(days=1)
            outcome = path.process("u", fragment_id)
        memory = repo.load_memory("u")
        state = {
            "outcome": outcome.status.value,
            "rejected": [r["reason"] for r in outcome.rejected],
            "history_changed": repo.export("u")["history"] != before,
            "facts": [
                {
                    "section": f.section.value,
                    "key": f.key,
                    "status": f.status.value,
                    "stage": f.stage.value,
                    "attributes": f.attributes,
                    "history": [e.type.value for e in repo.get_history("u", f.id)],
                }
                for f in memory.facts
            ],
            "clarifications": [c.reason for c in memory.clarifications],
            "sections": {s.value: st.status.value for s, st in memory.sections.items()},
        }
        problems += [f"step {number}: {p}" for p in mismatches(step.get("expect", {}), state)]
    return problems


def problems(case: dict[str, Any]) -> list[str]:
    """What in the case's ``expect`` the product did not do (empty: the case holds)."""
    try:
        return _write_path_problems(case) if case["call"] == "write_path" else _decision_problems(case)
    except Exception as err:  # a crash is a failed case, reported with its type
        return [f"raised {type(err).__name__}: {err}"]


def run(config=None, *, limit: int | None = None) -> dict[str, Any]:
    results = [
        {"id": c["id"], "category": c["category"], "what": c["what"], "problems": problems(c)}
        for c in load_cases()
    ]
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
