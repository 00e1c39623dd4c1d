"""Maintenance policies: data-driven, evented, idempotent, concurrency-safe."""

from __future__ import annotations

from datetime import timedelta

from health_ltm.domain.candidates import Candidate
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import (
    AssertionKind,
    EventType,
    Fragment,
    FragmentStatus,
    Message,
    Role,
    SectionState,
)
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.domain.transitions import DecisionContext, decide
from health_ltm.maintenance.engine import run_user
from health_ltm.maintenance.policies import load_policies
from health_ltm.maintenance.scheduler import due_days, fan_out
from health_ltm.ports import ChangeSet, FactWrite
from health_ltm.storage.memory import InMemoryRepository
from tests.conftest import T0


def remember(repo, candidate: Candidate, clock: FixedClock, session="s1"):
    """Write a fact through the same decide() + apply() path the write path uses."""
    memory = repo.load_memory("u")
    existing = next(
        (f for f in memory.facts if f.key == candidate.key and f.section is candidate.section), None
    )
    fid = new_ulid()
    repo.create_fragment(
        "u",
        Fragment(
            id=fid, session_id=session, received_at=clock.now(), messages=[Message(role=Role.USER, text="x")]
        ),
        None,
    )
    fragment = repo.get_fragment("u", fid)
    repo.transition_fragment("u", fragment, FragmentStatus.PROCESSING, [FragmentStatus.QUEUED])
    d = decide(
        candidate,
        existing,
        memory.sections.get(candidate.section) or SectionState(section=candidate.section),
        memory.facts,
        memory.clarifications,
        DecisionContext(now=clock.now(), new_id=new_ulid, fragment_id=fid, session_id=session),
    )
    repo.apply(
        "u",
        fid,
        ChangeSet(
            facts=[
                FactWrite(
                    d.fact.fact,
                    d.fact.event,
                    d.fact.expected_version,
                    new_key=d.fact.expected_version is None,
                )
            ]
        ),
    )
    return d.fact.fact


def fact(section, key, status=FactStatus.PRESENT, name=None, **attrs) -> Candidate:
    return Candidate(
        section=section,
        kind=AssertionKind.FACT,
        key=key,
        name_raw=name or key,
        name_normalized=key,
        status=status,
        attributes=attrs,
    )


def canonical(section, name):
    return {"энап": "enalapril", "эналаприл": "enalapril"}.get(name.lower(), name.lower())


def test_policy_table_is_versioned_and_covers_every_section():
    table = load_policies()
    assert table.version and set(table.sections) == set(Section)
    assert table.sections[Section.ALLERGIES].never_expires
    assert 30 in table.horizons() and 1 in table.horizons()


def test_untouched_symptom_resolves_after_30_days_and_allergy_never_expires():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    headache = remember(repo, fact(Section.SYMPTOMS, "headache"), clock)
    peanut = remember(repo, fact(Section.ALLERGIES, "peanut"), clock)
    clock.advance(days=29)
    assert run_user(repo, "u", clock, new_ulid).changes == []
    clock.advance(days=1)
    report = run_user(repo, "u", clock, new_ulid)
    assert [c.policy for c in report.changes] == ["presumed_resolved"]
    assert repo.get_fact("u", headache.id).status is FactStatus.RESOLVED
    event = repo.get_history("u", headache.id)[-1]
    assert event.type is EventType.POLICY and event.policy == "presumed_resolved"
    assert event.policy_version == load_policies().version
    clock.advance(days=3650)
    run_user(repo, "u", clock, new_ulid)
    assert repo.get_fact("u", peanut.id).status is FactStatus.PRESENT


def test_a_second_run_changes_nothing():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    remember(repo, fact(Section.SYMPTOMS, "cough"), clock)
    clock.advance(days=40)
    assert run_user(repo, "u", clock, new_ulid).changes
    before = repo.export("u")
    assert run_user(repo, "u", clock, new_ulid).changes == []
    assert repo.export("u")["history"] == before["history"]


def test_dry_run_reports_and_writes_nothing():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    remember(repo, fact(Section.SYMPTOMS, "cough"), clock)
    clock.advance(days=40)
    before = repo.export("u")
    report = run_user(repo, "u", clock, new_ulid, dry_run=True)
    assert [c.policy for c in report.changes] == ["presumed_resolved"]
    assert repo.export("u") == before


def test_course_with_an_end_date_stops_at_that_date():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    course = remember(
        repo,
        fact(
            Section.MEDICATIONS,
            "amoxicillin",
            FactStatus.ACTIVE,
            course_end=(T0 + timedelta(days=7)).date().isoformat(),
        ),
        clock,
    )
    longterm = remember(repo, fact(Section.MEDICATIONS, "enalapril", FactStatus.ACTIVE), clock)
    clock.advance(days=8)
    run_user(repo, "u", clock, new_ulid)
    assert repo.get_fact("u", course.id).status is FactStatus.STOPPED
    assert repo.get_fact("u", course.id).valid_to == (T0 + timedelta(days=7)).date().isoformat()
    clock.advance(days=3000)
    run_user(repo, "u", clock, new_ulid)
    assert repo.get_fact("u", longterm.id).status is FactStatus.ACTIVE


def test_unconfirmed_lifestyle_candidate_lapses():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    marathon = remember(repo, fact(Section.LIFESTYLE, "activity", value="marathon training"), clock)
    assert marathon.stage is Stage.CANDIDATE
    clock.advance(days=61)
    run_user(repo, "u", clock, new_ulid)
    assert repo.get_fact("u", marathon.id).stage is Stage.DEPRECATED


def test_often_confirmed_fact_across_sessions_becomes_stable():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    for session in ("s1", "s2", "s3"):
        f = remember(repo, fact(Section.CHRONIC_CONDITIONS, "hypertension"), clock, session=session)
        clock.advance(days=1)
    run_user(repo, "u", clock, new_ulid)
    assert repo.get_fact("u", f.id).stage is Stage.STABLE


def test_duplicates_with_the_same_normalised_key_are_merged_with_joined_history():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    brand = remember(repo, fact(Section.MEDICATIONS, "энап", FactStatus.ACTIVE, name="Энап"), clock)
    clock.advance(days=2)
    inn = remember(repo, fact(Section.MEDICATIONS, "enalapril", FactStatus.ACTIVE, name="эналаприл"), clock)
    report = run_user(repo, "u", clock, new_ulid, normalize=canonical)
    assert [c.policy for c in report.changes] == ["consolidate_duplicates"]
    survivor, retired = repo.get_fact("u", inn.id), repo.get_fact("u", brand.id)
    assert retired.stage is Stage.DEPRECATED and survivor.mention_count == 2
    assert survivor.first_mentioned_at == T0
    types = [e.type for e in repo.get_history("u", survivor.id)]
    assert types.count(EventType.FIRST_MENTION) == 2 and EventType.MERGE in types
    assert run_user(repo, "u", clock, new_ulid, normalize=canonical).changes == []


def test_summary_is_refreshed_only_when_facts_change():
    repo, clock = InMemoryRepository(), FixedClock(T0)
    remember(repo, fact(Section.ALLERGIES, "peanut", name="арахис"), clock)
    assert run_user(repo, "u", clock, new_ulid).summary_refreshed
    assert "peanut" in repo.get_summary("u")["text"]
    assert not run_user(repo, "u", clock, new_ulid).summary_refreshed


class ConflictOnce(InMemoryRepository):
    """A write-path update lands between the job's read and its write."""

    def __init__(self):
        super().__init__()
        self.armed = False

    def apply(self, user_id, fragment_id, changes, applied=(), fingerprint=None):
        if self.armed and fragment_id is None:
            self.armed = False
            fact = changes.facts[0].fact
            current = self.get_fact(user_id, fact.id)
            bumped = current.model_copy(update={"version": current.version + 1, "mention_count": 99})
            super().apply(
                user_id,
                None,
                ChangeSet(
                    facts=[
                        FactWrite(
                            bumped,
                            changes.facts[0].event.model_copy(update={"id": new_ulid()}),
                            current.version,
                        )
                    ]
                ),
            )
        return super().apply(user_id, fragment_id, changes, applied, fingerprint)


def test_concurrent_write_path_update_makes_the_job_retry_and_nothing_is_lost():
    repo, clock = ConflictOnce(), FixedClock(T0)
    cough = remember(repo, fact(Section.SYMPTOMS, "cough"), clock)
    clock.advance(days=31)
    repo.armed = True
    report = run_user(repo, "u", clock, new_ulid)
    assert report.attempts == 2
    stored = repo.get_fact("u", cough.id)
    assert stored.status is FactStatus.RESOLVED and stored.mention_count == 99


def test_scheduler_reaches_inactive_users_at_policy_horizons_without_a_scan():
    table = load_policies()
    today = (T0 + timedelta(days=30)).date()
    days = due_days(today, today - timedelta(days=1), table)
    assert T0.date().isoformat() in days  # 30 days ago: symptoms due
    assert (today - timedelta(days=1)).isoformat() in days


class ListQueue:
    def __init__(self):
        self.messages = []

    def send_batch(self, messages):
        self.messages.extend(messages)
        return len(messages)


def test_fan_out_queues_one_listing_task_per_due_day_and_the_tasks_queue_each_due_user():
    from health_ltm.maintenance.scheduler import fan_out_day

    repo, clock = InMemoryRepository(), FixedClock(T0)
    repo.mark_active("alice", T0.date().isoformat())
    repo.mark_active("bob", (T0 - timedelta(days=29)).date().isoformat())
    repo.mark_active("carol", (T0 - timedelta(days=5)).date().isoformat())
    clock.advance(days=1)
    queue = ListQueue()
    result = fan_out(repo, queue, clock)
    tasks = queue.messages
    assert all(t.task == "fanout" for t in tasks) and result.days_queried == len(tasks)
    assert repo.get_scheduler_day() == clock.now().date().isoformat()
    jobs = ListQueue()
    for task in tasks:
        fan_out_day(repo, jobs, task, seconds_left=lambda: 900.0)
    assert sorted(u for m in jobs.messages for u in m.users()) == ["alice", "bob"]


def test_a_day_too_long_for_one_invocation_continues_from_its_cursor(monkeypatch):
    from health_ltm.maintenance import scheduler

    monkeypatch.setattr(scheduler, "PAGE_SIZE", 10)
    repo = InMemoryRepository()
    day = T0.date().isoformat()
    for i in range(35):
        repo.mark_active(f"user{i:02d}", day)
    queue = ListQueue()
    task = scheduler.MaintenanceMessage(task="fanout", day=day, activity_day=day)
    queued = scheduler.fan_out_day(repo, queue, task, seconds_left=lambda: 1.0)  # no time left
    jobs = [m for m in queue.messages if m.task == "users"]
    (continuation,) = [m for m in queue.messages if m.task == "fanout"]
    assert queued == 10 and continuation.cursor is not None
    while continuation is not None:
        queue = ListQueue()
        queued += scheduler.fan_out_day(repo, queue, continuation, seconds_left=lambda: 1.0)
        jobs += [m for m in queue.messages if m.task == "users"]
        continuation = next((m for m in queue.messages if m.task == "fanout"), None)
    users = [u for m in jobs for u in m.users()]
    assert queued == 35 and sorted(users) == [f"user{i:02d}" for i in range(35)]
    assert max(len(m.users()) for m in jobs) <= scheduler.USERS_PER_MESSAGE
