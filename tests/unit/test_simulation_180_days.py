"""180 days of one user's life: fragments through the write path, the nightly job every day
(injected clock), and the expected table of current states and history events at the end."""

from __future__ import annotations

from datetime import timedelta

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.hashing_embedder import HashingEmbedder
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import Message, Role
from health_ltm.maintenance.engine import run_user
from health_ltm.storage.memory import InMemoryRepository
from health_ltm.wiring import canonical_key
from health_ltm.write.intake import submit_fragment
from health_ltm.write.pipeline import WritePath
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.conftest import T0
from tests.fakes.queues import ListQueue

LIFE = {
    0: "Мне 34 года. У меня гипертония. Пью Энап 5 мг по утрам от давления. У меня аллергия на пенициллин.",
    3: "Третий день болит голова",
    10: "Я вегетарианец",
    25: "Курю пачку в день",
    40: "Я вегетарианец, мясо не ем",
    50: "Сломал руку",
    60: "Бросил курить",
    70: "Пью Энап 5 мг по утрам",
    100: "Пью эналаприл 5 мг",
    120: "Мне 30",
    150: "Сделал прививку от гриппа",
}

# section, key -> (status, stage) on day 180
EXPECTED_STATE = {
    ("demographics", "birth_year"): ("present", "active"),
    ("chronic_conditions", "hypertension"): ("present", "active"),
    ("medications", "enalapril"): ("active", "stable"),
    ("allergies", "penicillin"): ("present", "active"),
    ("symptoms", "headache"): ("resolved", "active"),
    ("lifestyle", "diet"): ("present", "active"),
    ("lifestyle", "smoking"): ("stopped", "active"),
    ("injuries", "arm_fracture"): ("resolved", "active"),
    ("vaccinations", "influenza"): ("present", "active"),
}

# (section, key) -> history event types, in order
EXPECTED_HISTORY = {
    ("medications", "enalapril"): ["first_mention", "reconfirmation", "reconfirmation", "policy"],
    ("symptoms", "headache"): ["first_mention", "policy"],
    ("lifestyle", "diet"): ["first_mention", "reconfirmation"],
    ("lifestyle", "smoking"): ["first_mention", "negation"],
    ("injuries", "arm_fracture"): ["first_mention", "policy"],
    ("allergies", "penicillin"): ["first_mention"],
}


def live_180_days():
    clock = FixedClock(T0)
    repo = InMemoryRepository()
    write = WritePath(
        repo,
        RuleSectionClassifier(),
        RuleExtractor(clock=clock),
        clock,
        new_ulid,
        LocalVectorIndex(None),
        HashingEmbedder(),
    )
    policies_applied: list[tuple[int, str]] = []
    for day in range(181):
        if day in LIFE:
            fragment = submit_fragment(
                repo,
                ListQueue(),
                clock,
                new_ulid,
                "u",
                f"s{day}",
                [Message(role=Role.USER, text=LIFE[day], at=clock.now())],
            )
            write.process("u", fragment.id)
        report = run_user(repo, "u", clock, new_ulid, normalize=canonical_key)
        policies_applied.extend((day, c.policy) for c in report.changes)
        clock.advance(days=1)
    clock.set(T0 + timedelta(days=180))
    return repo, clock, policies_applied


def test_180_days_end_in_the_expected_states_and_histories():
    repo, _clock, policies = live_180_days()
    memory = repo.load_memory("u")
    state = {(f.section.value, f.key): (f.status.value, f.stage.value) for f in memory.facts}
    assert state == EXPECTED_STATE
    by_key = {(f.section.value, f.key): f for f in memory.facts}
    for key, types in EXPECTED_HISTORY.items():
        assert [e.type.value for e in repo.get_history("u", by_key[key].id)] == types, key
    # the age said on day 120 is held for clarification, the recorded one kept
    assert by_key[("demographics", "birth_year")].attributes == {"birth_year": T0.year - 34}
    assert [c.reason for c in memory.clarifications] == ["implausible_change:birth_year"]
    # the policies fired on the days the table says
    assert (33, "presumed_resolved") in policies  # headache: day 3 + 30
    assert (140, "presumed_resolved") in policies  # fracture: day 50 + 90
    assert any(p == "promoted_stable" for _, p in policies)
    assert not any(p == "candidate_lapsed" for _, p in policies)


def test_a_second_run_of_the_job_changes_nothing():
    repo, clock, _ = live_180_days()
    before = repo.export("u")
    report = run_user(repo, "u", clock, new_ulid, normalize=canonical_key)
    assert report.changes == [] and not report.summary_refreshed
    assert repo.export("u") == before
