"""Level 5: retrieval, over memories built from multi-session stories.

Each story (data/stories.jsonl) is said session by session to the write path in process
(InMemoryRepository, a fixed clock moved by the story's day gaps, the configuration's classifier
and extractor). Then:

* the memory the story left is checked against the story's expected final state: facts with
  their status (and stage, attributes where given), section statuses, pending clarifications,
  the history of chosen facts event by event, and counts ("one medication fact, not two");
* each labelled question goes through the read path (QueryClassifier + build_context) and the
  context is checked: required facts present, facts the status rules must hide absent (a
  stopped drug for a question about now), no fact from a section the question has nothing to do
  with, a clarification shown where one is pending, no "gap" where the user already answered.

Required facts the write path never stored are counted apart ("not stored"), so a retrieval
miss is told from an extraction miss.
"""

from __future__ import annotations

from typing import Any

from .common import EVAL_DAY, MAX_EXAMPLES, limited, load_jsonl, ratio
from .extraction import expected_key

LEVEL = "retrieval"
MODEL_INDEPENDENT = False
CONTEXT_TOKENS = 4000  # large: this level checks which facts are selected, not the token budget


class StoryMemory:
    """One user's memory, written by the real write path, session by session."""

    def __init__(self, config, user: str = "eval-user", *, episodes: bool = False) -> None:
        from health_ltm.domain.clock import FixedClock
        from health_ltm.domain.ids import new_ulid
        from health_ltm.storage.memory import InMemoryRepository
        from health_ltm.write.pipeline import WritePath

        self.user = user
        self.clock = FixedClock(EVAL_DAY)
        self.repo = InMemoryRepository()
        self.path = WritePath(
            repository=self.repo,
            classifier=config.section_classifier(),
            extractor=config.extractor(self.clock),
            clock=self.clock,
            new_id=new_ulid,
            recall_guard=config.is_model,
        )
        if episodes:
            from health_ltm.adapters.local_vector_index import LocalVectorIndex

            self.path.vector_index = LocalVectorIndex(None)
            self.path.embedder = config.embedder()
        self.sessions = 0
        self.outcomes: list[Any] = []

    def say(self, messages: list[dict[str, str]], days: float = 0) -> Any:
        from health_ltm.domain.ids import new_ulid
        from health_ltm.domain.models import Message, Role
        from health_ltm.write.intake import submit_fragment

        class _Queue:
            def send(self, user_id: str, fragment_id: str) -> None:
                pass

        if days:
            self.clock.advance(days=days)
        self.sessions += 1
        at = self.clock.now()
        batch = [Message(role=Role(m.get("role", "user")), text=m["text"], at=at) for m in messages]
        fragment = submit_fragment(
            self.repo, _Queue(), self.clock, new_ulid, self.user, f"s{self.sessions}", batch
        )
        outcome = self.path.process(self.user, fragment.id)
        self.outcomes.append(outcome)
        self.clock.advance(minutes=5)
        return outcome

    def memory(self):
        return self.repo.load_memory(self.user)

    def find(self, ref: dict[str, Any]):
        key = expected_key({**ref, "kind": "fact"})
        return next(
            (
                f
                for f in self.memory().facts
                if f.section.value == ref["section"] and f.key == key and not f.is_deleted
            ),
            None,
        )

    def context(self, query: str, recent: list[str] | None = None):
        from health_ltm.read.classify import get_classifier
        from health_ltm.read.context import build_context

        classification = get_classifier().classify(query, recent or [])
        return classification, build_context(self.repo, classification, self.user, query, CONTEXT_TOKENS)


def build(config, story: dict[str, Any]) -> StoryMemory:
    memory = StoryMemory(config, user=f"eval-{story['id']}")
    for session in story["sessions"]:
        memory.say(session["messages"], session.get("days", 0))
    return memory


def _same(want: Any, have: Any) -> bool:
    if isinstance(want, int | float) and not isinstance(want, bool):
        try:
            return abs(float(have) - float(want)) < 1e-6
        except (TypeError, ValueError):
            return False
    return str(want).casefold() == str(have).casefold()


def state_checks(memory: StoryMemory, story: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(what, ok, detail) for every expectation the story states about the final memory."""
    checks: list[tuple[str, bool, str]] = []
    state = memory.memory()
    for expected in story.get("final", []):
        label = f"fact {expected['section']}/{expected_key({**expected, 'kind': 'fact'})}"
        found = memory.find(expected)
        if found is None:
            checks.append((label, False, "not stored"))
            continue
        problems = []
        if "status" in expected and found.status.value != expected["status"]:
            problems.append(f"status {found.status.value}")
        if "stage" in expected and found.stage.value != expected["stage"]:
            problems.append(f"stage {found.stage.value}")
        for name, value in (expected.get("attributes") or {}).items():
            if not _same(value, found.attributes.get(name)):
                problems.append(f"{name}={found.attributes.get(name)!r}")
        checks.append((label, not problems, ", ".join(problems)))
    for section, status in (story.get("section_status") or {}).items():
        from health_ltm.domain.sections import Section

        have = state.section_status(Section(section)).value
        checks.append((f"section {section} {status}", have == status, have))
    for expected in story.get("clarifications", []):
        ok = any(
            c.section.value == expected["section"] and c.reason.startswith(expected["reason"])
            for c in state.clarifications
        )
        checks.append((f"clarification {expected['section']}", ok, "" if ok else "none pending"))
    for expected in story.get("history", []):
        found = memory.find(expected)
        events = [e.type.value for e in memory.repo.get_history(memory.user, found.id)] if found else []
        checks.append(
            (
                f"history {expected['section']}/{expected_key({**expected, 'kind': 'fact'})}",
                events == expected["events"],
                ",".join(events) or "no fact",
            )
        )
    for section, count in (story.get("counts") or {}).items():
        have = len(
            [f for f in state.facts if not f.is_deleted and (section == "all" or f.section.value == section)]
        )
        checks.append((f"count {section}={count}", have == count, str(have)))
    return checks


def question_checks(
    memory: StoryMemory, question: dict[str, Any], final: list[dict[str, Any]] = ()
) -> dict[str, Any]:
    from health_ltm.domain.sections import ENDING_STATUSES

    classification, context = memory.context(question["query"], question.get("recent"))
    by_id = {f.id: f for f in memory.memory().facts}
    shown: set[tuple[str, str]] = set()
    # shown as what is true now: a drug shown as "stopped; why stopped: …" (decision log 45: a stop
    # with its reason is shown to a question about the present) is hidden as a current drug
    shown_current: set[tuple[str, str]] = set()
    shown_sections: set[str] = set()
    for block in context.self_reported + context.documented:
        for view in block["facts"]:
            fact = by_id.get(view["id"])
            if fact is not None:
                shown.add((fact.section.value, fact.key))
                shown_sections.add(fact.section.value)
                if fact.status not in ENDING_STATUSES:
                    shown_current.add((fact.section.value, fact.key))

    def key(ref: dict[str, Any]) -> tuple[str, str]:
        return ref["section"], expected_key({**ref, "kind": "fact"})

    facts = {(f.section.value, f.key): f for f in memory.memory().facts if not f.is_deleted}
    stored = set(facts)
    # A fact the status rules must hide counts only when the write path stored it as the story
    # says (a stopped drug stored as active is an extraction miss, not a retrieval one).
    final_status = {key(f): f.get("status") for f in final}
    required = [key(r) for r in question.get("required", [])]
    excluded = [
        k
        for k in (key(r) for r in question.get("excluded", []))
        if k in facts and final_status.get(k) in (None, facts[k].status.value)
    ]
    excluded_all = len(question.get("excluded", []))
    forbidden = set(question.get("forbidden_sections", []))
    return {
        "query": question["query"],
        "sections": [s.value for s in classification.sections],
        "required": len(required),
        "required_stored": sum(k in stored for k in required),
        "required_present": sum(k in shown for k in required),
        "missing": [f"{s}/{k}" for s, k in required if (s, k) not in shown],
        "excluded": excluded_all,
        "excluded_stored": len(excluded),
        "excluded_hidden": sum(k not in shown_current for k in excluded),
        "irrelevant_shown": sorted(shown_sections & forbidden),
        "irrelevant_selected": sorted({s.value for s in classification.sections} & forbidden),
        "history_intent_right": classification.history_intent == bool(question.get("history")),
        "clarification_ok": (not question.get("clarification")) or bool(context.clarifications),
        "no_gap_ok": not ({g["section"] for g in context.gaps} & set(question.get("no_gap", []))),
    }


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    stories = limited(load_jsonl("stories.jsonl"), limit)
    state_total = state_right = stories_right = 0
    totals = {
        k: 0
        for k in (
            "required",
            "required_stored",
            "required_present",
            "excluded",
            "excluded_stored",
            "excluded_hidden",
        )
    }
    irrelevant_shown = irrelevant_selected = history_right = clar_ok = gap_ok = questions = 0
    failures: list[dict[str, Any]] = []
    for story in stories:
        memory = build(config, story)
        checks = state_checks(memory, story)
        wrong = [(what, detail) for what, ok, detail in checks if not ok]
        state_total += len(checks)
        state_right += len(checks) - len(wrong)
        stories_right += not wrong
        if wrong and len(failures) < MAX_EXAMPLES:
            failures.append({"story": story["id"], "kind": "state", "wrong": [f"{w}: {d}" for w, d in wrong]})
        for question in story.get("questions", []):
            result = question_checks(memory, question, story.get("final", []))
            questions += 1
            for k in totals:
                totals[k] += result[k]
            irrelevant_shown += bool(result["irrelevant_shown"])
            irrelevant_selected += bool(result["irrelevant_selected"])
            history_right += result["history_intent_right"]
            clar_ok += result["clarification_ok"]
            gap_ok += result["no_gap_ok"]
            bad = (
                result["required_present"] < result["required_stored"]
                or result["excluded_hidden"] < result["excluded_stored"]
                or result["irrelevant_shown"]
                or result["irrelevant_selected"]
                or not (result["clarification_ok"] and result["no_gap_ok"])
            )
            if bad and len(failures) < MAX_EXAMPLES:
                failures.append({"story": story["id"], "kind": "question", **result})
    return {
        "summary": {
            "stories": len(stories),
            "questions": questions,
            "required_facts_present": f"{totals['required_present']}/{totals['required']}",
            "required_present_of_stored": ratio(totals["required_present"], totals["required_stored"]),
            "required_not_stored": totals["required"] - totals["required_stored"],
            "status_filtering_hidden": f"{totals['excluded_hidden']}/{totals['excluded_stored']}",
            "status_filtering_not_applicable": totals["excluded"] - totals["excluded_stored"],
            "questions_with_irrelevant_section_in_context": irrelevant_shown,
            "questions_selecting_an_irrelevant_section": irrelevant_selected,
            "history_intent_right": f"{history_right}/{questions}",
            "clarification_shown_where_pending": f"{clar_ok}/{questions}",
            "no_gap_where_answered": f"{gap_ok}/{questions}",
            "story_state_checks": f"{state_right}/{state_total}",
            "stories_fully_right": f"{stories_right}/{len(stories)}",
        },
        "failures": failures,
    }
