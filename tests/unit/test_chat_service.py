"""The chat turn (chat/service.py) and its system prompt (chat/prompts.py), in process: the user's
turn is kept before the model is called, memory reaches the model as labelled blocks in the system
message, history as chat turns; no model or a failing model still keeps the turn."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from health_ltm.chat import prompts
from health_ltm.chat.service import ChatAnswer, chat_turn
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import Fact, FragmentStatus, Provenance, Role
from health_ltm.domain.sections import FactStatus, Section, Stage
from health_ltm.errors import ModelTimeout, NoChatModel
from health_ltm.read.classify import QueryClassifier
from health_ltm.read.service import ContextService
from health_ltm.settings import Settings
from health_ltm.storage.memory import InMemoryRepository
from health_ltm.write.pipeline import WritePath
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.fakes.queues import ListQueue


class FakeModel:
    name = "fake-chat"

    def __init__(self, repo: InMemoryRepository | None = None, error: Exception | None = None) -> None:
        self.calls: list[list[dict[str, str]]] = []
        self.repo = repo
        self.error = error
        self.pending_at_call: list[list[str]] = []

    def complete(self, messages: list[dict[str, str]]) -> str:
        self.calls.append(messages)
        if self.repo is not None:  # what was already safe in the buffer when the model was asked
            self.pending_at_call.append(
                [t.text for s in self.repo.list_open_sessions("alice") for t in s.pending]
            )
        if self.error is not None:
            raise self.error
        return "Попробуйте яблоко или йогурт."

    @property
    def system(self) -> str:
        return self.calls[-1][0]["content"]

    @property
    def memory(self) -> str:
        """The memory part of the last system message (after the instructions)."""
        return self.system.rsplit("MEMORY CONTEXT:", 1)[1]


@pytest.fixture
def env(clock):
    repo = InMemoryRepository()
    queue = ListQueue()
    settings = Settings(LTM_CHAT_FLUSH_TURNS=3, LTM_CHAT_IDLE_MINUTES=30)
    return repo, queue, settings


def turn(env, clock, message: str, model, session: str = "s1", **kw) -> ChatAnswer:
    repo, queue, settings = env
    return chat_turn(
        repository=repo,
        queue=queue,
        clock=clock,
        new_id=new_ulid,
        context=ContextService(
            repository=repo,
            classifier=QueryClassifier(),
            clock=clock,
            episode_timeout_s=settings.episode_timeout_s,
        ),
        model=model,
        settings=kw.pop("settings", settings),
        user_id=kw.pop("user_id", "alice"),
        session_id=session,
        message=message,
        **kw,
    )


def extract_all(repo: InMemoryRepository, queue: ListQueue, clock) -> None:
    path = WritePath(repo, RuleSectionClassifier(), RuleExtractor(clock=clock), clock, new_ulid)
    for user_id, fragment_id in queue.sent:
        path.process(user_id, fragment_id)


# ---------------------------------------------------------------------------------- the turn
def test_the_users_turn_is_kept_before_the_model_is_called(env, clock):
    repo = env[0]
    model = FakeModel(repo)
    result = turn(env, clock, "У меня аллергия на арахис", model)
    assert model.pending_at_call == [["У меня аллергия на арахис"]]
    assert result.answer == "Попробуйте яблоко или йогурт."
    pending = repo.get_session("alice", "s1").pending
    assert [(t.role, t.text) for t in pending] == [
        (Role.USER, "У меня аллергия на арахис"),
        (Role.ASSISTANT, "Попробуйте яблоко или йогурт."),
    ]


def test_history_goes_as_chat_turns_and_memory_in_one_system_message(env, clock):
    model = FakeModel()
    turn(env, clock, "Привет", model)
    turn(env, clock, "Что мне перекусить?", model)
    messages = model.calls[-1]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Привет" and messages[-1]["content"] == "Что мне перекусить?"
    assert sum(m["role"] == "system" for m in messages) == 1
    assert "MEMORY CONTEXT" in messages[0]["content"]


def test_a_fact_from_session_one_is_in_the_models_context_in_session_two(env, clock):
    repo, queue, _ = env
    model = FakeModel()
    turn(env, clock, "У меня аллергия на арахис", model, session="s1")
    # Session 2 starts: session 1 is flushed first, so the words are "just said" even before extraction.
    result = turn(env, clock, "Что мне перекусить?", model, session="s2")
    assert len(queue.sent) == 1
    memory = model.memory
    assert "[JUST SAID by the user, not yet processed]" in memory and "арахис" in memory
    assert "allergies" in result.context.sections
    # After extraction the same question gets the self-reported fact, by id.
    extract_all(repo, queue, clock)
    clock.advance(minutes=1)
    result = turn(env, clock, "Что мне перекусить?", model, session="s3")
    memory = model.memory
    assert "[SELF-REPORTED by the user · Allergies]" in memory
    assert "арахис" in memory or "peanut" in memory
    (fact,) = [f for f in repo.load_memory("alice").facts if f.section is Section.ALLERGIES]
    assert fact.id in result.context.fact_ids


def test_documented_data_and_discrepancies_are_labelled_for_the_model(env, clock):
    repo = env[0]
    now = clock.now()
    common = {
        "section": Section.ALLERGIES,
        "key": "penicillin",
        "name_raw": "пенициллин",
        "name_normalized": "пенициллин",
        "stage": Stage.ACTIVE,
        "first_mentioned_at": now,
        "last_confirmed_at": now,
    }
    own = Fact(id="F1", status=FactStatus.ABSENT, **common)
    documented = Fact(
        id="D1",
        status=FactStatus.PRESENT,
        provenance=Provenance.DOCUMENTED,
        source_type="medical_record",
        document_id="doc-1",
        document_date="2025-01-10",
        **common,
    )
    from health_ltm.domain.models import EventType, HistoryEvent
    from health_ltm.ports import ChangeSet, FactWrite

    event = HistoryEvent(id=new_ulid(), fact_id="F1", type=EventType.FIRST_MENTION, at=now)
    repo.apply("alice", None, ChangeSet(facts=[FactWrite(fact=own, event=event, expected_version=None)]))
    repo.put_documented("alice", documented)
    model = FakeModel()
    result = turn(env, clock, "Можно ли мне амоксициллин?", model)
    memory = model.memory
    assert "[SELF-REPORTED by the user · Allergies]" in memory
    assert "[DOCUMENTED (records, lab results) · Allergies]" in memory
    assert "[DISCREPANCY" in memory
    assert {"F1", "D1"} <= set(result.context.fact_ids)


def test_a_gap_is_offered_to_the_model_as_a_question(env, clock):
    model = FakeModel()
    turn(env, clock, "Что мне перекусить?", model)
    memory = model.memory
    assert "[UNKNOWN: never discussed; ask if it matters for the answer]" in memory
    assert "allergies" in memory


def test_nothing_relevant_says_so(env, clock):
    model = FakeModel()
    turn(env, clock, "Привет", model)
    assert model.system.endswith(prompts.NO_MEMORY)


# ---------------------------------------------------------------------------------- no model, failures
def test_no_model_still_keeps_the_turn_and_flushes_at_n(env, clock):
    repo, queue, _ = env
    for i in range(2):
        with pytest.raises(NoChatModel):
            turn(env, clock, f"Сообщение номер {i} о здоровье", None)
    assert [t.text for t in repo.get_session("alice", "s1").pending] == [
        "Сообщение номер 0 о здоровье",
        "Сообщение номер 1 о здоровье",
    ]
    assert queue.sent == []
    with pytest.raises(NoChatModel):
        turn(env, clock, "У меня аллергия на арахис", None)  # the third user turn: N reached
    (fragment,) = repo.export("alice")["fragments"]
    assert len(fragment["messages"]) == 3 and fragment["status"] == FragmentStatus.QUEUED.value
    extract_all(repo, queue, clock)
    assert any(f.section is Section.ALLERGIES for f in repo.load_memory("alice").facts)


def test_a_model_timeout_keeps_the_turn(env, clock):
    repo, queue, _ = env
    model = FakeModel(error=ModelTimeout("chat: the model did not answer in time"))
    with pytest.raises(ModelTimeout):
        turn(env, clock, "У меня аллергия на арахис", model)
    assert [t.text for t in repo.get_session("alice", "s1").pending] == ["У меня аллергия на арахис"]
    # With N = 1 the failed turn is the N-th: it is flushed although there is no answer.
    one = Settings(LTM_CHAT_FLUSH_TURNS=1)
    with pytest.raises(ModelTimeout):
        turn(env, clock, "И на киви", model, session="s9", settings=one)
    assert len(queue.sent) == 1 + 1  # s1 flushed by the new session s9, s9 by its N-th turn


def test_an_empty_answer_is_a_model_failure(env, clock):
    from health_ltm.errors import ModelUnavailable

    class Silent(FakeModel):
        def complete(self, messages):
            return "  "

    with pytest.raises(ModelUnavailable):
        turn(env, clock, "Что мне перекусить?", Silent())
    assert env[0].get_session("alice", "s1").pending[0].text == "Что мне перекусить?"


def test_users_are_isolated(env, clock):
    queue = env[1]
    model = FakeModel()
    turn(env, clock, "У меня аллергия на арахис", model, session="s1", user_id="bob")
    turn(env, clock, "Что мне перекусить?", model, session="s2")  # alice's first session
    assert queue.sent == []  # bob's open session is not alice's to flush
    assert "арахис" not in model.memory


def test_idle_marker_is_set_by_the_first_turn_only(env, clock):
    repo = env[0]
    model = FakeModel()
    turn(env, clock, "Привет", model)
    due = repo.get_session("alice", "s1").idle_due
    assert due == clock.now() + timedelta(minutes=30)
    clock.advance(minutes=5)
    turn(env, clock, "Как дела?", model)
    assert repo.get_session("alice", "s1").idle_due == due  # no index write per turn


# ---------------------------------------------------------------------------------- the prompt
def test_system_prompt_is_strong_provenance_aware_and_quiet_about_memory():
    text = prompts.SYSTEM_PROMPT
    # seed 001: the firm wording with a concrete example
    assert "Treat every fact in MEMORY CONTEXT as absolute truth about the user" in text
    assert "NEVER contradict or ignore these facts" in text and "peanut" in text
    # provenance: every block header the read path writes is explained
    for label in ("[SELF-REPORTED", "[DOCUMENTED", "[JUST SAID", "[DISCREPANCY", "[NEEDS CLARIFICATION",
                  "[UNKNOWN", "[PAST CONVERSATIONS"):
        assert label in text, label
    assert "name the discrepancy" in text and "Never pick a side silently" in text
    assert "ask one short question" in text
    # seed 003: no "as I remember, you..." in every answer
    assert "NOT announce it" in text
    assert "as I remember" in text and "как я помню" in text


def test_every_context_header_is_named_in_the_prompt():
    from health_ltm.read.context import _headers

    header = _headers({Section.ALLERGIES})
    found = re.findall(r"\[[^\]\n]+\]", prompts.SYSTEM_PROMPT)
    labels = [label.removesuffix(" ...]").removesuffix("]") for label in found]
    for block in ("pending", "discrepancy", "clarify", "gaps", "episodes", "self:allergies", "doc:allergies"):
        assert any(header(block).startswith(label) for label in labels), header(block)


def test_locale_is_passed_on():
    messages = prompts.chat_messages("", [], "Hi", locale="en-GB")
    assert "The user's app locale: en-GB." in messages[0]["content"]
