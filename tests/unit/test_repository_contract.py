"""The DynamoDB repository (on moto) and the in-process twin behave the same."""

from __future__ import annotations

import pytest

from health_ltm.domain.candidates import Candidate
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import (
    AssertionKind,
    Fragment,
    FragmentStatus,
    Message,
    PendingMention,
    Role,
    SectionState,
)
from health_ltm.domain.sections import FactStatus, Section
from health_ltm.domain.transitions import DecisionContext, decide
from health_ltm.errors import ConflictError, FragmentGone
from health_ltm.ports import ChangeSet, FactWrite
from tests.conftest import T0


def fragment(fid: str = "frag-1") -> Fragment:
    return Fragment(
        id=fid,
        session_id="s1",
        messages=[Message(role=Role.USER, text="У меня аллергия на арахис")],
        received_at=T0,
    )


def new_fact_write(key: str = "peanut", fragment_id: str | None = "frag-1") -> FactWrite:
    candidate = Candidate(
        section=Section.ALLERGIES,
        kind=AssertionKind.FACT,
        key=key,
        name_raw="арахис",
        name_normalized="арахис",
        status=FactStatus.PRESENT,
    )
    d = decide(
        candidate,
        None,
        SectionState(section=Section.ALLERGIES),
        [],
        [],
        DecisionContext(now=T0, new_id=new_ulid, fragment_id=fragment_id, session_id="s1"),
    )
    return FactWrite(fact=d.fact.fact, event=d.fact.event, expected_version=None, new_key=True)


def processing(repository, user="alice", fid="frag-1") -> Fragment:
    f = fragment(fid)
    assert repository.create_fragment(
        user,
        f,
        PendingMention(
            fragment_id=fid, sections=[Section.ALLERGIES], text="аллергия на арахис", received_at=T0
        ),
    )
    return repository.transition_fragment(user, f, FragmentStatus.PROCESSING, [FragmentStatus.QUEUED])


def test_fragment_is_created_once_and_shows_as_pending_until_finished(repository):
    f = processing(repository)
    assert not repository.create_fragment("alice", fragment(), None)  # a client retry
    assert [p.fragment_id for p in repository.load_memory("alice").pending] == ["frag-1"]
    repository.transition_fragment("alice", f, FragmentStatus.APPLIED, [FragmentStatus.PROCESSING])
    assert repository.get_fragment("alice", "frag-1").status is FragmentStatus.APPLIED
    assert repository.load_memory("alice").pending == []


def test_new_fact_is_written_with_its_history_and_read_back(repository):
    processing(repository)
    write = new_fact_write()
    repository.apply(
        "alice",
        "frag-1",
        ChangeSet(facts=[write]),
        applied=[{"fact_id": write.fact.id, "section": "allergies", "event": "first_mention"}],
        fingerprint="fp1",
    )
    memory = repository.load_memory("alice")
    assert [f.key for f in memory.facts] == ["peanut"]
    assert [e.type.value for e in repository.get_history("alice", write.fact.id)] == ["first_mention"]
    assert repository.get_fact("alice", write.fact.id).version == 1
    assert repository.get_fragment("alice", "frag-1").done == {"fp1"}
    assert [a.fact_id for a in repository.get_fragment("alice", "frag-1").applied] == [write.fact.id]


def test_a_second_fact_with_the_same_key_is_refused(repository):
    processing(repository)
    repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    with pytest.raises(ConflictError):
        repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    assert len(repository.load_memory("alice").facts) == 1


def test_stale_version_is_refused_and_nothing_is_half_written(repository):
    processing(repository)
    write = new_fact_write()
    repository.apply("alice", "frag-1", ChangeSet(facts=[write]))
    stale = write.fact.model_copy(update={"version": 2, "name_raw": "арахиса"})
    event = write.event.model_copy(update={"id": new_ulid()})
    with pytest.raises(ConflictError):
        repository.apply("alice", "frag-1", ChangeSet(facts=[FactWrite(stale, event, expected_version=5)]))
    assert len(repository.get_history("alice", write.fact.id)) == 1
    assert repository.get_fact("alice", write.fact.id).name_raw == "арахис"


def test_the_same_candidate_is_not_applied_twice_for_one_fragment(repository):
    processing(repository)
    repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write("a")]), fingerprint="fp")
    with pytest.raises(FragmentGone):
        repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write("b")]), fingerprint="fp")
    assert [f.key for f in repository.load_memory("alice").facts] == ["a"]


def test_writes_for_an_erased_fragment_are_refused(repository):
    processing(repository)
    repository.erase("alice")
    with pytest.raises(FragmentGone):
        repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    assert repository.load_memory("alice").facts == []


def test_users_never_see_each_other(repository):
    processing(repository, "alice")
    processing(repository, "bob")
    repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    assert repository.load_memory("bob").facts == []
    fact_id = repository.load_memory("alice").facts[0].id
    assert repository.get_fact("bob", fact_id) is None
    assert repository.get_history("bob", fact_id) == []


def test_erasure_removes_everything_of_one_user_and_nothing_of_another(repository):
    processing(repository, "alice")
    processing(repository, "bob")
    repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    repository.apply("bob", "frag-1", ChangeSet(facts=[new_fact_write()]))
    repository.mark_active("alice", "2026-03-02")
    assert repository.erase("alice") > 0
    exported = repository.export("alice")
    assert all(not v for v in exported.values())
    assert len(repository.load_memory("bob").facts) == 1
    assert repository.list_active_users_page("2026-03-02")[0] == []


def test_active_users_are_listed_by_day(repository):
    repository.mark_active("alice", "2026-03-02")
    repository.mark_active("bob", "2026-03-02")
    repository.mark_active("carol", "2026-03-01")
    assert sorted(repository.list_active_users_page("2026-03-02")[0]) == ["alice", "bob"]


def test_load_memory_can_skip_unwanted_sections(repository):
    processing(repository)
    repository.apply("alice", "frag-1", ChangeSet(facts=[new_fact_write()]))
    assert repository.load_memory("alice", [Section.MEDICATIONS]).facts == []
    assert len(repository.load_memory("alice", [Section.ALLERGIES]).facts) == 1


def test_export_holds_facts_history_fragments_and_sections(repository):
    processing(repository)
    write = new_fact_write()
    repository.apply("alice", "frag-1", ChangeSet(facts=[write]))
    exported = repository.export("alice")
    assert len(exported["facts"]) == 1 and len(exported["history"]) == 1
    assert exported["fragments"][0]["messages"][0]["text"] == "У меня аллергия на арахис"


# ---------------------------------------------------------------------- chat session buffers (issue 8)
def session_buffer(
    session_id: str = "chat-1", *, pending: bool = True, minutes: float = 30.0, version: int = 1
):
    from datetime import timedelta

    from health_ltm.domain.sessions import SessionBuffer, Turn

    turns = [Turn(role=Role.USER, text="У меня аллергия на арахис", at=T0)] if pending else []
    return SessionBuffer(
        session_id=session_id,
        incarnation="01INCARNATION",
        pending=turns,
        user_turns=len(turns),
        recent=list(turns),
        created_at=T0,
        last_activity=T0,
        idle_due=T0 + timedelta(minutes=minutes) if pending else None,
        version=version,
    )


def test_session_buffer_is_created_once_and_replaced_only_at_its_version(repository):
    first = session_buffer()
    assert repository.get_session("alice", "chat-1") is None
    assert repository.put_session("alice", first, expected_version=0) is True
    assert repository.put_session("alice", first, expected_version=0) is False  # exists already
    assert repository.get_session("alice", "chat-1") == first
    second = first.model_copy(update={"version": 2, "user_turns": 2})
    assert repository.put_session("alice", second, expected_version=5) is False  # stale
    assert repository.put_session("alice", second, expected_version=1) is True
    assert repository.get_session("alice", "chat-1").user_turns == 2
    third = second.model_copy(update={"version": 3})
    assert repository.put_session("alice", third, expected_version=1) is False
    assert repository.get_session("bob", "chat-1") is None  # scoped by user


def test_open_sessions_are_those_with_something_pending(repository):
    repository.put_session("alice", session_buffer("open-1"), 0)
    repository.put_session("alice", session_buffer("closed-1", pending=False), 0)
    repository.put_session("bob", session_buffer("open-2"), 0)
    assert [b.session_id for b in repository.list_open_sessions("alice")] == ["open-1"]


def test_due_sessions_come_from_the_idle_marker_by_day_and_time(repository):
    from datetime import timedelta

    repository.put_session("alice", session_buffer("a", minutes=30), 0)
    repository.put_session("bob", session_buffer("b", minutes=90), 0)
    repository.put_session("carol", session_buffer("c", minutes=60 * 24), 0)  # due the next day
    repository.put_session("dave", session_buffer("d", pending=False), 0)  # no marker
    day = T0.date().isoformat()
    assert repository.list_due_sessions(day, T0 + timedelta(minutes=29)) == []
    assert repository.list_due_sessions(day, T0 + timedelta(minutes=30)) == [("alice", "a")]
    due = sorted(repository.list_due_sessions(day, T0 + timedelta(hours=5)))
    assert due == [("alice", "a"), ("bob", "b")]
    next_day = (T0 + timedelta(days=1)).date().isoformat()
    assert repository.list_due_sessions(next_day, T0 + timedelta(days=2)) == [("carol", "c")]
    # Flushed: the marker goes with the pending turns.
    flushed = session_buffer("a", pending=False, version=2)
    assert repository.put_session("alice", flushed, 1)
    assert repository.list_due_sessions(day, T0 + timedelta(hours=5)) == [("bob", "b")]


def test_due_sessions_are_not_confused_with_active_users(repository):
    from datetime import timedelta

    repository.mark_active("alice", T0.date().isoformat())
    repository.put_session("bob", session_buffer("b"), 0)
    assert repository.list_active_users_page(T0.date().isoformat())[0] == ["alice"]
    assert repository.list_due_sessions(T0.date().isoformat(), T0 + timedelta(hours=1)) == [("bob", "b")]


def test_session_sweep_day_is_kept(repository):
    assert repository.get_session_sweep_day() is None
    repository.put_session_sweep_day("2026-03-02")
    assert repository.get_session_sweep_day() == "2026-03-02"
    assert repository.get_scheduler_day() is None  # its own cursor


def test_sessions_are_exported_and_erased(repository):
    from datetime import timedelta

    repository.put_session("alice", session_buffer(), 0)
    repository.put_session("bob", session_buffer(), 0)
    (exported,) = repository.export("alice")["sessions"]
    assert exported["pending"][0]["text"] == "У меня аллергия на арахис"
    assert repository.erase("alice") >= 1
    assert repository.get_session("alice", "chat-1") is None
    assert repository.export("alice")["sessions"] == []
    assert repository.list_due_sessions(T0.date().isoformat(), T0 + timedelta(hours=1)) == [("bob", "chat-1")]


# ---------------------------------------------------------------------- keyed by section (issue 12)
def section_fact_write(section: Section, key: str, status: FactStatus) -> FactWrite:
    candidate = Candidate(
        section=section, kind=AssertionKind.FACT, key=key, name_raw=key, name_normalized=key, status=status
    )
    d = decide(
        candidate,
        None,
        SectionState(section=section),
        [],
        [],
        DecisionContext(now=T0, new_id=new_ulid, fragment_id=None, session_id="s1"),
    )
    return FactWrite(fact=d.fact.fact, event=d.fact.event, expected_version=None, new_key=True)


PROFILE = [
    (Section.ALLERGIES, "peanut", FactStatus.PRESENT),
    (Section.CHRONIC_CONDITIONS, "hypertension", FactStatus.PRESENT),
    (Section.MEDICATIONS, "enalapril", FactStatus.ACTIVE),
    (Section.MEDICATIONS, "ibuprofen", FactStatus.STOPPED),
    (Section.SYMPTOMS, "headache", FactStatus.PRESENT),
    (Section.SURGERIES, "appendectomy", FactStatus.PRESENT),
    (Section.VACCINATIONS, "flu", FactStatus.PRESENT),
    (Section.FAMILY_HISTORY, "mother:diabetes", FactStatus.PRESENT),
]


def seeded(repository, user: str = "alice") -> dict[Section, list[str]]:
    """Facts in several sections, a documented fact, a section state, a clarification, a pending
    mention and a summary; returns the fact ids by section."""
    from health_ltm.domain.models import Clarification
    from health_ltm.domain.sections import SectionStatus

    processing(repository, user)  # the pending mention (allergies)
    writes = [section_fact_write(*row) for row in PROFILE]
    state = SectionState(section=Section.SURGERIES, status=SectionStatus.PRESENT, version=1)
    event = writes[0].event.model_copy(update={"id": new_ulid(), "fact_id": "section:surgeries"})
    from health_ltm.ports import SectionWrite

    clarification = Clarification(
        id="c1", section=Section.DEMOGRAPHICS, reason="age went down", created_at=T0
    )
    repository.apply(
        user,
        None,
        ChangeSet(
            facts=writes,
            sections=[SectionWrite(state, event, expected_version=0)],
            clarifications=[clarification],
        ),
    )
    documented = writes[2].fact.model_copy(update={"id": new_ulid(), "document_id": "doc-1"})
    repository.put_documented(user, documented)
    repository.put_summary(user, {"text": "summary", "fingerprint": "fp"})
    by_section: dict[Section, list[str]] = {}
    for write in writes:
        by_section.setdefault(write.fact.section, []).append(write.fact.id)
    return by_section


ALWAYS_ITEMS = 4  # the section state, the clarification, the pending mention, the summary


@pytest.mark.parametrize(
    "asked",
    [
        [Section.MEDICATIONS],
        [Section.MEDICATIONS, Section.CHRONIC_CONDITIONS, Section.ALLERGIES],
        [Section.SYMPTOMS, Section.VACCINATIONS],
        [Section.DEMOGRAPHICS],
        list(Section),
    ],
    ids=lambda a: "+".join(s.value[:4] for s in a),
)
def test_a_section_scoped_load_reads_only_the_asked_sections(repository, asked):
    from health_ltm.storage import keys

    by_section = seeded(repository)
    items_before, calls_before = repository.items_read, repository.calls
    memory = repository.load_memory("alice", asked)
    expected_ids = {i for s in asked for i in by_section.get(s, [])}
    assert {f.id for f in memory.facts} == expected_ids
    assert [f.section for f in memory.documented] == (
        [Section.MEDICATIONS] if Section.MEDICATIONS in asked else []
    )
    # The small items come whatever the sections.
    assert set(memory.sections) == {Section.SURGERIES}
    assert [c.id for c in memory.clarifications] == ["c1"]
    assert [p.fragment_id for p in memory.pending] == ["frag-1"]
    assert (memory.summary, memory.summary_fingerprint) == ("summary", "fp")
    # Nothing of the other sections was read: exactly the asked sections' items and the small ones
    # (an ended fact is two items: its brief in the section, the whole fact in the ended block).
    documented = 1 if Section.MEDICATIONS in asked else 0
    ended = 1 if Section.MEDICATIONS in asked else 0  # the stopped ibuprofen
    assert repository.items_read - items_before == len(expected_ids) + ended + documented + ALWAYS_ITEMS
    # One round trip per key range, bounded.
    ranges = len(keys.read_ranges(asked)) + len(keys.ended_ranges(asked))
    assert repository.calls - calls_before == ranges <= 2 * keys.max_read_ranges()


@pytest.mark.parametrize(
    "asked",
    [
        [Section.MEDICATIONS],
        [Section.MEDICATIONS, Section.CHRONIC_CONDITIONS, Section.ALLERGIES],
        list(Section),
    ],
    ids=lambda a: "+".join(s.value[:4] for s in a),
)
def test_a_question_about_the_present_reads_ended_facts_in_brief(repository, asked):
    from health_ltm.storage import keys

    by_section = seeded(repository)
    stopped_id = _stopped_ibuprofen(repository)
    items_before, calls_before = repository.items_read, repository.calls
    memory = repository.load_memory("alice", asked, ended=False)
    current = {i for s in asked for i in by_section.get(s, [])} - {stopped_id}
    assert {f.id for f in memory.facts} == current
    briefs = [(b.section, b.key, b.status) for b in memory.ended]
    assert briefs == (
        [(Section.MEDICATIONS, "ibuprofen", FactStatus.STOPPED)] if Section.MEDICATIONS in asked else []
    )
    documented = 1 if Section.MEDICATIONS in asked else 0
    assert repository.items_read - items_before == len(current) + len(briefs) + documented + ALWAYS_ITEMS
    assert repository.calls - calls_before == len(keys.read_ranges(asked))  # the ended block is not read
    # the whole fact is still there for a history question, for the write path and by id
    stopped = repository.get_fact("alice", stopped_id)
    assert stopped is not None and stopped.name_normalized and stopped.status is FactStatus.STOPPED
    whole = repository.load_memory("alice")
    assert {f.id for f in whole.facts} == {i for ids in by_section.values() for i in ids} and not whole.ended


def _stopped_ibuprofen(repository) -> str:
    (fact,) = [f for f in repository.load_memory("alice").facts if f.key == "ibuprofen"]
    return fact.id


def test_a_drug_stopped_for_what_it_did_keeps_its_name_and_reason_in_its_brief(repository):
    """The brief is all a question about the present reads of an ended fact: a drug stopped for a
    side effect must still say which drug and why (a drug question may be about taking it again).
    A drug stopped for no stated reason stays a bare brief; deleting the fact empties it again."""
    from health_ltm.domain.transitions import user_delete, user_edit

    seeded(repository)
    ctx = DecisionContext(now=T0, new_id=new_ulid, fragment_id=None, session_id="s1")
    enalapril = repository.get_fact(
        "alice", next(f.id for f in repository.load_memory("alice").facts if f.key == "enalapril")
    )
    assert enalapril is not None
    stop = user_edit(
        enalapril, {"status": FactStatus.STOPPED, "attributes": {"stop_reason": "dry cough"}}, ctx
    )
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(stop.fact, stop.event, stop.expected_version)])
    )
    meds = [Section.MEDICATIONS]
    for light in (False, True):
        memory = repository.load_memory("alice", meds, ended=False, current_state=meds if light else ())
        briefs = {b.key: b for b in memory.ended}
        assert (briefs["enalapril"].name, briefs["enalapril"].stop_reason) == (
            enalapril.name_normalized,
            "dry cough",
        )
        assert (briefs["ibuprofen"].name, briefs["ibuprofen"].stop_reason) == ("", None)
        line = briefs["enalapril"].as_line()
        assert line is not None and line.attributes == {"stop_reason": "dry cough"}
        assert line.status is FactStatus.STOPPED and briefs["ibuprofen"].as_line() is None
    stopped = repository.get_fact("alice", enalapril.id)
    assert stopped is not None
    gone = user_delete(stopped, ctx)
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(gone.fact, gone.event, gone.expected_version)])
    )
    for light in (False, True):
        memory = repository.load_memory("alice", meds, ended=False, current_state=meds if light else ())
        assert all(b.as_line() is None for b in memory.ended)


def test_a_fact_that_ends_and_comes_back_moves_between_the_blocks(repository):
    from health_ltm.domain.transitions import user_edit

    seeded(repository)
    fact = repository.get_fact("alice", _stopped_ibuprofen(repository))
    assert fact is not None
    ctx = DecisionContext(now=T0, new_id=new_ulid, fragment_id=None, session_id="s1")
    again = user_edit(fact, {"status": FactStatus.ACTIVE}, ctx)
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(again.fact, again.event, again.expected_version)])
    )
    present = repository.load_memory("alice", [Section.MEDICATIONS], ended=False)
    assert "ibuprofen" in {f.key for f in present.facts} and present.ended == []
    assert len([f for f in repository.load_memory("alice").facts if f.key == "ibuprofen"]) == 1
    # a stale writer still meets the version condition on the one key
    with pytest.raises(ConflictError):
        repository.apply(
            "alice", None, ChangeSet(facts=[FactWrite(again.fact, again.event, again.expected_version)])
        )


def test_a_drug_question_with_the_safety_sections_is_one_query(repository):
    seeded(repository)
    before = repository.calls
    drug = [Section.MEDICATIONS, Section.CHRONIC_CONDITIONS, Section.ALLERGIES, Section.DEMOGRAPHICS]
    repository.load_memory("alice", drug, ended=False)  # a question about the present
    assert repository.calls - before == 1  # four adjacent sections with the small items among them
    before = repository.calls
    repository.load_memory("alice", drug)  # with the ended facts whole: their block too
    assert repository.calls - before == 2


SAFETY = [Section.MEDICATIONS, Section.CHRONIC_CONDITIONS, Section.ALLERGIES, Section.DEMOGRAPHICS]


def test_sections_read_as_their_current_state_hold_the_same_facts_as_lines(repository):
    from health_ltm.read.render import fact_line
    from health_ltm.storage import keys

    by_section = seeded(repository)
    stopped_id = _stopped_ibuprofen(repository)
    whole = repository.load_memory("alice", SAFETY, ended=False)
    items_before, calls_before = repository.items_read, repository.calls
    light = repository.load_memory("alice", SAFETY, ended=False, current_state=SAFETY)
    # the same facts, statuses and briefs as the whole read; each rendered as the same line
    # less its details (no indication); the small items come as they always do
    assert [(f.id, f.section, f.status) for f in light.facts] == [
        (f.id, f.section, f.status) for f in whole.facts
    ]
    assert [(b.id, b.key, b.status) for b in light.ended] == [(b.id, b.key, b.status) for b in whole.ended]
    assert [b.id for b in light.ended] == [stopped_id]
    assert [d.id for d in light.documented] == [d.id for d in whole.documented]
    assert [fact_line(f) for f in light.facts] == [fact_line(f) for f in whole.facts]
    assert set(light.sections) == {Section.SURGERIES} and [p.fragment_id for p in light.pending] == ["frag-1"]
    current = {i for s in SAFETY for i in by_section.get(s, [])}
    assert repository.items_read - items_before == len(current) + 1 + ALWAYS_ITEMS  # + the documented fact
    # the always block alone, and the safety sections' copies in one range
    assert repository.calls - calls_before == len(keys.read_ranges([])) + 1 == 2


def test_a_current_state_copy_follows_every_write_of_its_fact(repository):
    from health_ltm.domain.transitions import user_delete, user_edit

    seeded(repository)
    ctx = DecisionContext(now=T0, new_id=new_ulid, fragment_id=None, session_id="s1")
    meds = [Section.MEDICATIONS]

    def light():
        return repository.load_memory("alice", meds, ended=False, current_state=meds)

    enalapril = repository.get_fact("alice", next(f.id for f in light().facts if f.key == "enalapril"))
    assert enalapril is not None
    dose = {"dose_value": 10.0, "dose_unit": "mg", "indication": "bp"}
    edit = user_edit(enalapril, {"attributes": dose}, ctx)
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(edit.fact, edit.event, edit.expected_version)])
    )
    (line,) = [f for f in light().facts if f.key == "enalapril"]
    assert line.attributes == {"dose_value": 10.0, "dose_unit": "mg"}  # the edit, less its detail
    gone = user_delete(edit.fact, ctx)
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(gone.fact, gone.event, gone.expected_version)])
    )
    after = light()
    assert "enalapril" not in {f.key for f in after.facts}
    assert [(b.key, b.is_deleted) for b in after.ended if b.key == "enalapril"] == [("enalapril", True)]
    # the whole load (the write path's) never sees the copies: whole facts, details kept
    everything = repository.load_memory("alice").facts
    assert len(everything) == len(PROFILE)
    assert next(f for f in everything if f.key == "enalapril").attributes["indication"] == "bp"


def test_a_load_without_sections_reads_everything_in_one_range(repository):
    by_section = seeded(repository)
    before = repository.calls
    memory = repository.load_memory("alice")
    assert repository.calls - before == 1
    assert {f.id for f in memory.facts} == {i for ids in by_section.values() for i in ids}
    assert len(memory.documented) == 1 and memory.sections and memory.pending and memory.clarifications
    # Same order in both implementations: the ended facts' block first, then the current ones,
    # each by section rank, then by id.
    from health_ltm.domain.models import is_ended
    from health_ltm.storage import keys

    ended = [f.section for f in memory.facts if is_ended(f)]
    current = [f.section for f in memory.facts if not is_ended(f)]
    assert [f.section for f in memory.facts] == ended + current
    assert ended == sorted(ended, key=keys.section_tag) and current == sorted(current, key=keys.section_tag)


def test_facts_are_found_by_id_alone_in_any_section(repository):
    by_section = seeded(repository)
    for section, ids in by_section.items():
        for fact_id in ids:
            before = repository.calls
            fact = repository.get_fact("alice", fact_id)
            assert fact is not None and fact.section is section and fact.id == fact_id
            assert repository.calls - before == 1  # one BatchGetItem
    assert repository.get_fact("alice", "01NOSUCHFACT") is None
    assert repository.get_fact("bob", by_section[Section.MEDICATIONS][0]) is None


def test_updates_keep_the_fact_under_its_section_key(repository):
    by_section = seeded(repository)
    fact_id = by_section[Section.SYMPTOMS][0]
    fact = repository.get_fact("alice", fact_id)
    changed = fact.model_copy(update={"status": FactStatus.RESOLVED, "version": fact.version + 1})
    event = repository.get_history("alice", fact_id)[0].model_copy(update={"id": new_ulid()})
    repository.apply(
        "alice", None, ChangeSet(facts=[FactWrite(changed, event, expected_version=fact.version)])
    )
    assert repository.get_fact("alice", fact_id).status is FactStatus.RESOLVED
    assert [f.id for f in repository.load_memory("alice", [Section.SYMPTOMS]).facts] == [fact_id]
    assert len(repository.get_history("alice", fact_id)) == 2
    # A stale version still fails, now that the key carries the section.
    with pytest.raises(ConflictError):
        repository.apply(
            "alice",
            None,
            ChangeSet(facts=[FactWrite(changed, event.model_copy(update={"id": new_ulid()}), 1)]),
        )


def test_export_and_erasure_cover_the_section_keyed_items(repository):
    by_section = seeded(repository)
    seeded(repository, "bob")
    exported = repository.export("alice")
    assert {f["id"] for f in exported["facts"]} == {i for ids in by_section.values() for i in ids}
    assert len(exported["documented"]) == 1 and len(exported["sections"]) == 1
    assert len(exported["clarifications"]) == 1 and len(exported["pending"]) == 1
    assert exported["summary"] == {"text": "summary", "fingerprint": "fp"}
    assert not any("CUR#" in str(v) for v in exported.values())  # copies are derived: not exported
    assert repository.erase("alice") > 0
    assert all(not v for v in repository.export("alice").values())
    assert repository.load_memory("alice", SAFETY, current_state=SAFETY).facts == []
    assert repository.load_memory("alice", [Section.MEDICATIONS]).facts == []
    assert repository.get_fact("alice", by_section[Section.MEDICATIONS][0]) is None
    assert len(repository.load_memory("bob").facts) == len(PROFILE)


def test_recent_episodes_are_the_last_ones_newest_first_in_one_bounded_read(repository):
    from datetime import timedelta

    from health_ltm.domain.models import Episode

    ids = [new_ulid() for _ in range(5)]  # ULIDs sort by time: the key order is the order said
    for n, episode_id in enumerate(ids):
        episode = Episode(
            id=episode_id,
            session_id="s1",
            fragment_id=episode_id,
            text=f"said {n}",
            at=T0 + timedelta(hours=n),
        )
        repository.put_episode("alice", episode)
    repository.put_episode(
        "bob", Episode(id=new_ulid(), session_id="s", fragment_id="f", text="bob's", at=T0)
    )
    before = repository.calls
    assert [e.text for e in repository.recent_episodes("alice", 3)] == ["said 4", "said 3", "said 2"]
    assert repository.calls - before == 1
    assert [e.id for e in repository.recent_episodes("alice", 10)] == ids[::-1]
    assert repository.recent_episodes("nobody", 3) == []
