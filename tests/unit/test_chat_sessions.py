"""Session buffering (chat/sessions.py, maintenance/sessions.py) on the in-process repository:
each trigger flushes exactly once, nothing is lost when a step dies, concurrent flushes claim once."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest

from health_ltm.chat.sessions import BufferPolicy, SessionBuffers, fragment_id_for
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import FragmentStatus, Role
from health_ltm.domain.sessions import Turn
from health_ltm.handlers.api_models import ID_PATTERN
from health_ltm.maintenance.sessions import sweep_idle_sessions
from health_ltm.storage.memory import InMemoryRepository
from tests.fakes.queues import ListQueue


class FailingQueue(ListQueue):
    """Fails its next ``fail_next`` sends, as SQS being down would."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_next = 0

    def send(self, user_id: str, fragment_id: str) -> None:
        if self.fail_next:
            self.fail_next -= 1
            raise ConnectionError("queue down")
        super().send(user_id, fragment_id)


@pytest.fixture
def repo() -> InMemoryRepository:
    return InMemoryRepository()


@pytest.fixture
def queue() -> FailingQueue:
    return FailingQueue()


def make_buffers(repo, queue, clock, **policy) -> SessionBuffers:
    values = {"flush_user_turns": 3, "idle": timedelta(minutes=30)}
    values.update(policy)
    return SessionBuffers(repo, queue, clock, new_ulid, BufferPolicy(**values))


def user(text: str, clock) -> Turn:
    return Turn(role=Role.USER, text=text, at=clock.now())


def assistant(text: str, clock) -> Turn:
    return Turn(role=Role.ASSISTANT, text=text, at=clock.now())


def full_turn(buffers: SessionBuffers, clock, text: str, session: str = "s1", who: str = "alice") -> list:
    first = buffers.record(who, session, [user(text, clock)], close_turn=False)
    second = buffers.record(who, session, [assistant(f"ответ на: {text}", clock)], close_turn=True)
    return first.fragment_ids + second.fragment_ids


def fragments(repo: InMemoryRepository, who: str = "alice") -> list:
    return repo.export(who)["fragments"]


def test_fragment_ids_are_deterministic_valid_ids():
    fid = fragment_id_for("session-1", "01INCARNATION", 7)
    assert fid == fragment_id_for("session-1", "01INCARNATION", 7)
    assert fid != fragment_id_for("session-1", "01INCARNATION", 8)
    assert fid != fragment_id_for("session-1", "01OTHER", 7)  # a re-created buffer never reuses ids
    assert fid != fragment_id_for("session-2", "01INCARNATION", 7)
    assert re.match(ID_PATTERN, fid) and fid.endswith("-7")
    assert re.match(ID_PATTERN, fragment_id_for("x" * 64, new_ulid(), 10**9))


def test_n_user_turns_flush_one_fragment_once(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    assert full_turn(buffers, clock, "У меня аллергия на арахис") == []
    assert full_turn(buffers, clock, "Ещё я пью эналаприл") == []
    flushed = full_turn(buffers, clock, "И давление бывает высокое")
    buffer = repo.get_session("alice", "s1")
    assert flushed == [fragment_id_for("s1", buffer.incarnation, 0)]
    assert queue.sent == [("alice", flushed[0])]
    (fragment,) = fragments(repo)
    assert [m["role"] for m in fragment["messages"]] == ["user", "assistant"] * 3
    assert fragment["messages"][0]["text"] == "У меня аллергия на арахис"
    assert fragment["status"] == FragmentStatus.QUEUED.value
    assert fragment["session_id"] == "s1"
    assert buffer.pending == [] and buffer.user_turns == 0 and buffer.outbox == [] and buffer.seq == 1
    assert buffer.idle_due is None  # nothing pending: no idle marker
    # The next turn starts the next fragment; the chat history survives the flush.
    recorded = buffers.record("alice", "s1", [user("Что мне перекусить?", clock)], close_turn=False)
    assert recorded.fragment_ids == [] and len(queue.sent) == 1
    last = "И давление бывает высокое"
    assert [t.text for t in recorded.history][-2:] == [last, f"ответ на: {last}"]


def test_a_turn_that_never_closed_is_flushed_by_the_next_user_turn(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock, flush_user_turns=2)
    full_turn(buffers, clock, "первое сообщение про здоровье")
    buffers.record("alice", "s1", [user("второе, а потом функция умерла", clock)], close_turn=False)
    assert queue.sent == []  # the answer never came: the turn never closed
    recorded = buffers.record("alice", "s1", [user("третье", clock)], close_turn=False)
    assert len(recorded.fragment_ids) == 1
    (fragment,) = fragments(repo)
    assert [m["text"] for m in fragment["messages"]][-1] == "второе, а потом функция умерла"
    assert repo.get_session("alice", "s1").pending[0].text == "третье"


def test_end_flushes_once_and_knows_unknown_sessions(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    (fid,) = buffers.end("alice", "s1")
    assert buffers.end("alice", "s1") == []  # nothing left: a repeated end flushes nothing
    assert buffers.end("alice", "nope") is None
    assert buffers.end("bob", "s1") is None  # another user's session does not exist for bob
    assert queue.sent == [("alice", fid)]
    assert len(fragments(repo)) == 1


def test_idle_sessions_are_flushed_once_by_the_sweep(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    policy = buffers.policy
    clock.advance(minutes=10)
    early = sweep_idle_sessions(repo, queue, clock, new_ulid, policy)
    assert early.due == 0 and queue.sent == []
    clock.advance(minutes=21)
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, policy)
    assert report.outcomes["flushed"] == 1 and report.fragments == 1
    again = sweep_idle_sessions(repo, queue, clock, new_ulid, policy)
    assert again.due == 0
    assert len(queue.sent) == 1 and len(fragments(repo)) == 1
    assert repo.get_session_sweep_day() == clock.now().date().isoformat()


def test_an_active_session_is_rearmed_not_flushed(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    clock.advance(minutes=20)
    full_turn(buffers, clock, "и на киви тоже")
    clock.advance(minutes=11)  # 31 min after the first turn, 11 after the last
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy)
    assert report.outcomes["rearmed"] == 1 and queue.sent == []
    assert repo.get_session("alice", "s1").idle_due == clock.now() + timedelta(minutes=19)
    clock.advance(minutes=19)
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy)
    assert report.outcomes["flushed"] == 1
    (fragment,) = fragments(repo)
    assert len(fragment["messages"]) == 4


def test_dry_run_sweep_changes_nothing(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    clock.advance(hours=1)
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy, dry_run=True)
    assert report.due == 1 and report.fragments == 0 and queue.sent == []
    assert repo.get_session_sweep_day() is None


def test_sweep_catches_up_on_missed_days(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    repo.put_session_sweep_day(clock.now().date().isoformat())
    full_turn(buffers, clock, "У меня аллергия на арахис")
    clock.advance(days=3)
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy)
    assert report.days_queried == 4 and report.outcomes["flushed"] == 1


def test_queue_failure_keeps_the_claim_and_the_retry_sends_it_once(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    queue.fail_next = 1
    (fid,) = buffers.end("alice", "s1")  # claimed; stored; the send failed
    buffer = repo.get_session("alice", "s1")
    assert [e.fragment_id for e in buffer.outbox] == [fid] and buffer.idle_due is not None
    assert queue.sent == [] and len(fragments(repo)) == 1
    # The next touch (a turn here) hands it over under the same id: stored once, queued once.
    recorded = buffers.record("alice", "s1", [user("ещё вопрос", clock)], close_turn=False)
    assert recorded.fragment_ids == [fid]
    assert queue.sent == [("alice", fid)]
    assert len(fragments(repo)) == 1
    assert repo.get_session("alice", "s1").outbox == []


def test_a_crash_before_the_fragment_is_stored_loses_nothing(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    real_create = repo.create_fragment
    calls = []

    def dying_create(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("function died")
        return real_create(*args, **kwargs)

    repo.create_fragment = dying_create  # type: ignore[method-assign]
    (fid,) = buffers.end("alice", "s1")
    assert fragments(repo) == [] and queue.sent == []
    clock.advance(hours=1)
    report = sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy)  # the marker finds it
    assert report.fragments == 1
    (fragment,) = fragments(repo)
    assert fragment["id"] == fid and fragment["messages"][0]["text"] == "У меня аллергия на арахис"
    assert queue.sent == [("alice", fid)]


def test_a_crash_after_the_send_does_not_duplicate(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    real_put = repo.put_session
    state = {"drop_next_clear": False}

    def put(user_id, buffer, expected_version):
        if state["drop_next_clear"] and not buffer.outbox and not buffer.pending:
            state["drop_next_clear"] = False
            raise RuntimeError("function died before clearing the outbox")
        return real_put(user_id, buffer, expected_version)

    repo.put_session = put  # type: ignore[method-assign]
    state["drop_next_clear"] = True
    with pytest.raises(RuntimeError):
        buffers.end("alice", "s1")
    assert len(queue.sent) == 1 and len(repo.get_session("alice", "s1").outbox) == 1
    clock.advance(hours=1)
    sweep_idle_sessions(repo, queue, clock, new_ulid, buffers.policy)
    assert len(fragments(repo)) == 1  # the same id again: stored once
    assert {fid for _, fid in queue.sent} == {fragments(repo)[0]["id"]}  # FIFO dedups a resend
    assert repo.get_session("alice", "s1").outbox == []


def test_concurrent_flushes_claim_once(clock, queue):
    class RacingRepository(InMemoryRepository):
        """Both flushers' first reads see the same version before either writes."""

        def __init__(self) -> None:
            super().__init__()
            self.barrier: threading.Barrier | None = None
            self.racing_reads = 0
            self.conflicts = 0

        def get_session(self, user_id, session_id):
            buffer = super().get_session(user_id, session_id)
            with self._lock:
                self.racing_reads += 1
                wait = self.barrier is not None and self.racing_reads <= 2
            if wait:
                self.barrier.wait(timeout=10)
            return buffer

        def put_session(self, user_id, buffer, expected_version):
            stored = super().put_session(user_id, buffer, expected_version)
            self.conflicts += not stored
            return stored

    repo = RacingRepository()
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис")
    repo.barrier, repo.racing_reads = threading.Barrier(2), 0
    results: list = []

    def end() -> None:
        results.append(buffers.end("alice", "s1"))

    threads = [threading.Thread(target=end) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    repo.barrier = None
    assert repo.conflicts >= 1  # they really raced: the loser's claim failed its version condition
    assert len(fragments(repo)) == 1
    ids = {fid for r in results for fid in r}
    assert ids == {fragments(repo)[0]["id"]}
    assert repo.get_session("alice", "s1").seq == 1


def test_concurrent_turns_are_all_kept(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock, flush_user_turns=50)
    threads = [
        threading.Thread(
            target=buffers.record,
            args=("alice", "s1", [user(f"сообщение {i}", clock)]),
            kwargs={"close_turn": False},
        )
        for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    buffer = repo.get_session("alice", "s1")
    assert sorted(t.text for t in buffer.pending) == sorted(f"сообщение {i}" for i in range(8))
    assert buffer.user_turns == 8


def test_a_new_session_flushes_the_users_other_sessions(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock)
    full_turn(buffers, clock, "У меня аллергия на арахис", session="s1")
    full_turn(buffers, clock, "bob's words", session="b1", who="bob")
    (fid,) = buffers.flush_others("alice", "s2")
    assert queue.sent == [("alice", fid)]
    assert buffers.flush_others("alice", "s2") == []  # nothing left to flush
    assert repo.get_session("bob", "b1").pending  # another user's buffer is never touched


def test_size_guard_claims_before_the_item_grows_too_big(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock, flush_user_turns=20, max_pending_turns=4)
    for i in range(2):
        full_turn(buffers, clock, f"сообщение номер {i}")
    (fragment,) = fragments(repo)
    assert len(fragment["messages"]) == 4


def test_long_turns_are_cut_to_the_message_limit(repo, queue, clock):
    buffers = make_buffers(repo, queue, clock, max_turn_chars=100)
    buffers.record("alice", "s1", [assistant("я" * 500, clock)], close_turn=True)
    assert len(repo.get_session("alice", "s1").pending[0].text) == 100
