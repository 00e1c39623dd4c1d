"""Edge cases in the spirit of seed 001's 54-check suite: scenarios, checks, one score.

Each scenario (data/edge_cases.jsonl) is a user's short history: ``say`` steps go through the
write path in process (filter, classifier, extractor, validation, transitions, episodes), the
clock moved by ``days``; ``check`` steps look at the result: a fact and its status, stage or
value; no such fact; how many facts; a fact's history; a pending clarification (or none); a
section's status; how many fragments were rejected; how many episodes were stored; and what a
question's context holds (and must not hold). The score is passed checks over all checks, the
way seed 001 reports 51/54.
"""

from __future__ import annotations

from typing import Any

from .common import limited, load_jsonl
from .extraction import expected_key
from .retrieval import StoryMemory

LEVEL = "edge_cases"
MODEL_INDEPENDENT = False


def _key(ref: dict[str, Any]) -> tuple[str, str]:
    return ref["section"], expected_key({**ref, "kind": "fact"})


def check(memory: StoryMemory, step: dict[str, Any]) -> tuple[bool, str]:
    kind = step["check"]
    state = memory.memory()
    live = [f for f in state.facts if not f.is_deleted]
    if kind == "fact":
        found = memory.find(step)
        if found is None:
            return False, "not stored"
        problems = []
        if "status" in step and found.status.value != step["status"]:
            problems.append(f"status {found.status.value}")
        if "stage" in step and found.stage.value != step["stage"]:
            problems.append(f"stage {found.stage.value}")
        for name, value in (step.get("attributes") or {}).items():
            have = found.attributes.get(name)
            same = (
                have is not None and abs(float(have) - float(value)) < 1e-6
                if isinstance(value, int | float)
                else str(have).casefold() == str(value).casefold()
            )
            if not same:
                problems.append(f"{name}={have!r}")
        return not problems, ", ".join(problems)
    if kind == "no_fact":
        if "name" in step or "slot" in step:
            return memory.find(step) is None, "stored"
        return not [f for f in live if f.section.value == step["section"]], "section has facts"
    if kind == "count":
        have = len([f for f in live if step["section"] == "all" or f.section.value == step["section"]])
        return have == step["count"], f"{have}"
    if kind == "history":
        found = memory.find(step)
        events = [e.type.value for e in memory.repo.get_history(memory.user, found.id)] if found else []
        return events == step["events"], ",".join(events) or "no fact"
    if kind == "clarification":
        ok = any(
            c.section.value == step["section"] and c.reason.startswith(step["reason"])
            for c in state.clarifications
        )
        return ok, "none pending"
    if kind == "no_clarification":
        pending = [c.reason for c in state.clarifications if c.section.value == step["section"]]
        return not pending, ",".join(pending)
    if kind == "section_status":
        from health_ltm.domain.sections import Section

        have = state.section_status(Section(step["section"])).value
        return have == step["status"], have
    if kind == "rejected":
        have = sum(o.status.value == "rejected" for o in memory.outcomes)
        return have == step["count"], f"{have} rejected"
    if kind == "episodes":
        have = len(memory.repo.list_episodes(memory.user))
        return have == step["count"], f"{have}"
    if kind == "context":
        _, context = memory.context(step["query"], step.get("recent"))
        by_id = {f.id: f for f in live}
        shown = {
            (by_id[v["id"]].section.value, by_id[v["id"]].key)
            for block in context.self_reported
            for v in block["facts"]
            if v["id"] in by_id
        }
        missing = [k for k in map(_key, step.get("contains", [])) if k not in shown]
        leaked = [k for k in map(_key, step.get("not_contains", [])) if k in shown]
        gaps = [g["section"] for g in context.gaps if g["section"] in step.get("no_gap", [])]
        problems = [f"missing {s}/{k}" for s, k in missing] + [f"shown {s}/{k}" for s, k in leaked]
        problems += [f"gap {g}" for g in gaps]
        return not problems, "; ".join(problems)
    raise ValueError(f"unknown check {kind!r}")


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm.errors import ModelUnavailable

    scenarios = limited(load_jsonl("edge_cases.jsonl"), limit)
    passed = total = 0
    per_scenario: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    for scenario in scenarios:
        memory = StoryMemory(config, user=f"eval-{scenario['id']}", episodes=True)
        right = count = 0
        for step in scenario["steps"]:
            if "say" in step:
                try:
                    memory.say(step["say"], step.get("days", 0))
                except ModelUnavailable as err:
                    failures.append({"scenario": scenario["id"], "error": type(err).__name__})
                continue
            ok, detail = check(memory, step)
            count += 1
            right += ok
            if not ok:
                failures.append(
                    {
                        "scenario": scenario["id"],
                        "title": scenario["title"],
                        "check": step.get("label", step["check"]),
                        "got": detail,
                    }
                )
        passed += right
        total += count
        per_scenario.append(
            {
                "id": scenario["id"],
                "title": scenario["title"],
                "from": scenario.get("from", ""),
                "passed": f"{right}/{count}",
            }
        )
    return {
        "summary": {
            "scenarios": len(scenarios),
            "checks": total,
            "passed": passed,
            "score": f"{passed}/{total}",
            "rate": round(passed / total, 4) if total else None,
        },
        "scenarios": per_scenario,
        "failures": failures,
    }
