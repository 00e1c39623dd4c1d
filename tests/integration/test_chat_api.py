"""POST /v1/chat and POST /v1/sessions/{id}/end through the API handler on moto, with the fake
OpenAI-compatible server as the model (and as the write path's classifier and extractor)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.conftest import T0
from tests.fakes.fake_openai import FakeOpenAI, Reply

from .conftest import api_event, call, context, drain_extraction, load_event

ALLERGY = "У меня аллергия на арахис"
SNACK = "Что мне перекусить?"


@pytest.fixture
def fake(cloud, monkeypatch):
    from health_ltm import wiring

    with FakeOpenAI(rules=True) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LTM_LLM_MAX_RETRIES", "0")
        monkeypatch.setenv("LTM_CHAT_FLUSH_TURNS", "3")
        wiring.reset()
        yield server
    wiring.reset()


@pytest.fixture
def fixed_clock(monkeypatch):
    from health_ltm import wiring
    from health_ltm.domain.clock import FixedClock

    clock = FixedClock(T0)
    monkeypatch.setattr(wiring, "clock", lambda: clock)
    return clock


def chat(message: str, session: str = "s1", user: str = "alice", **extra) -> tuple[int, dict]:
    return call(api_event("POST", "/v1/chat", user, {"session_id": session, "message": message, **extra}))


def end(session: str, user: str = "alice") -> tuple[int, dict]:
    return call(api_event("POST", f"/v1/sessions/{session}/end", user))


def answer_requests(fake: FakeOpenAI) -> list:
    """The chat-answer calls (the classifier and extractor calls carry a JSON schema)."""
    return [r for r in fake.chat_requests if r.response_format is None]


def memory_of(request) -> str:
    system = request.body["messages"][0]
    assert system["role"] == "system"
    return system["content"].rsplit("MEMORY CONTEXT:", 1)[1]


def exported_fragments(user: str = "alice") -> list[dict]:
    status, out = call(api_event("GET", "/v1/export", user))
    assert status == 200
    return out["fragments"]


def queued_messages(cloud) -> int:
    import boto3

    attributes = boto3.client("sqs").get_queue_attributes(
        QueueUrl=cloud.extraction_queue,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(v) for v in attributes.values())


# ---------------------------------------------------------------------------------- the story
def test_a_fact_said_in_session_one_is_in_the_models_context_in_session_two(fake, cloud):
    status, out = chat(ALLERGY, session="s1")
    assert status == 200, out
    assert out["session_id"] == "s1" and out["answer"] == "OK"
    status, ended = end("s1")
    assert status == 200 and ended["flushed"] is True
    (fragment_id,) = ended["fragment_ids"]
    assert drain_extraction(cloud)["batchItemFailures"] == []
    status, fragment = call(api_event("GET", f"/v1/fragments/{fragment_id}"))
    assert fragment["status"] == "applied", fragment

    status, out = chat(SNACK, session="s2")
    assert status == 200, out
    request = answer_requests(fake)[-1]
    assert request.body["model"] == "gpt-4.1-mini"  # settings.chat_model
    assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
    assert request.body["messages"][-1]["content"] == SNACK
    memory = memory_of(request)
    assert "[SELF-REPORTED by the user · Allergies]" in memory
    assert "арахис" in memory or "peanut" in memory
    assert "Treat every fact in MEMORY CONTEXT as absolute truth" in request.system_prompt
    _, facts = call(api_event("GET", "/v1/facts", query={"section": "allergies"}))
    (allergy,) = facts["facts"]
    assert "allergies" in out["context_used"]["sections"]
    assert allergy["id"] in out["context_used"]["fact_ids"]
    assert out["context_used"]["episodes"] == []


def test_the_next_session_alone_brings_what_was_just_said(fake, cloud):
    """No end, no extraction yet: starting session 2 flushes session 1, and the read path shows the
    allergy as "just said, not yet processed" (read-your-writes)."""
    assert chat(ALLERGY, session="s1")[0] == 200
    status, out = chat(SNACK, session="s2")
    assert status == 200, out
    memory = memory_of(answer_requests(fake)[-1])
    assert "[JUST SAID by the user, not yet processed]" in memory and "арахис" in memory
    assert queued_messages(cloud) == 1
    (fragment,) = exported_fragments()
    assert [m["text"] for m in fragment["messages"]] == [ALLERGY, "OK"]


def test_history_of_the_session_goes_along_as_chat_turns(fake, cloud):
    chat("Привет", session="s1")
    chat(SNACK, session="s1")
    roles = [m["role"] for m in answer_requests(fake)[-1].body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]


# ---------------------------------------------------------------------------------- flush triggers
def test_n_user_turns_flush_exactly_once(fake, cloud):
    for i in range(3):
        assert chat(f"Вопрос номер {i}: болит голова", session="s1")[0] == 200
    assert queued_messages(cloud) == 1
    (fragment,) = exported_fragments()
    assert [m["role"] for m in fragment["messages"]] == ["user", "assistant"] * 3
    for i in range(2):
        assert chat(f"Ещё вопрос {i}", session="s1")[0] == 200
    assert queued_messages(cloud) == 1 and len(exported_fragments()) == 1
    _, export = call(api_event("GET", "/v1/export"))
    (session,) = export["sessions"]
    assert session["user_turns"] == 2 and session["seq"] == 1


def test_end_flushes_exactly_once(fake, cloud):
    chat(ALLERGY, session="s1")
    status, first = end("s1")
    assert status == 200 and first["flushed"] is True and len(first["fragment_ids"]) == 1
    status, second = end("s1")
    assert status == 200 and second == {"session_id": "s1", "flushed": False, "fragment_ids": []}
    assert queued_messages(cloud) == 1
    status, missing = end("never-seen")
    assert status == 404 and missing["title"] == "Not found"
    assert end("s1", user="bob")[0] == 404  # alice's session is not bob's


def test_idle_sessions_are_flushed_once_by_the_maintenance_schedule(fake, cloud, fixed_clock):
    from health_ltm.handlers.maintain import handler

    assert chat(ALLERGY, session="s1")[0] == 200
    fixed_clock.advance(minutes=10)
    result = handler(load_event("eventbridge_schedule.json"), context("maintain"))
    assert result["sessions"]["flushed"] == 0 and queued_messages(cloud) == 0
    fixed_clock.advance(minutes=21)
    result = handler(load_event("eventbridge_schedule.json"), context("maintain"))
    assert result["sessions"]["flushed"] == 1 and result["sessions"]["fragments"] == 1
    sessions_only = {**load_event("eventbridge_schedule.json"), "detail": {"task": "sessions"}}
    result = handler(sessions_only, context("maintain"))
    assert result == {"sessions": {**result["sessions"], "due": 0, "flushed": 0}}
    assert queued_messages(cloud) == 1
    assert drain_extraction(cloud)["batchItemFailures"] == []
    _, facts = call(api_event("GET", "/v1/facts", query={"section": "allergies"}))
    assert len(facts["facts"]) == 1


def test_an_active_session_is_not_flushed_as_idle(fake, cloud, fixed_clock):
    from health_ltm.handlers.maintain import handler

    sessions_only = {**load_event("eventbridge_schedule.json"), "detail": {"task": "sessions"}}
    chat(ALLERGY, session="s1")
    fixed_clock.advance(minutes=25)
    chat("и ещё на киви", session="s1")
    fixed_clock.advance(minutes=10)
    assert handler(sessions_only, context("maintain"))["sessions"]["rearmed"] == 1
    assert queued_messages(cloud) == 0
    fixed_clock.advance(minutes=25)
    assert handler(sessions_only, context("maintain"))["sessions"]["flushed"] == 1
    (fragment,) = exported_fragments()
    assert len(fragment["messages"]) == 4


# ---------------------------------------------------------------------------------- no model, failures
def test_without_a_model_chat_answers_503_and_still_keeps_the_turn(cloud):
    status, problem = chat(ALLERGY, session="s1")
    assert status == 503
    assert problem["title"] == "Model not configured"
    assert "арахис" not in json.dumps(problem, ensure_ascii=False)
    status, ended = end("s1")
    assert status == 200 and ended["flushed"] is True
    assert drain_extraction(cloud)["batchItemFailures"] == []  # offline rule extractor
    _, facts = call(api_event("GET", "/v1/facts", query={"section": "allergies"}))
    assert len(facts["facts"]) == 1


def test_a_model_timeout_is_a_504_and_the_turn_is_kept(fake, cloud, monkeypatch):
    from health_ltm import wiring

    monkeypatch.setenv("LTM_LLM_TIMEOUT_S", "0.5")
    wiring.reset()
    fake.script(Reply.slow(5, Reply(content="too late")))
    status, problem = chat(ALLERGY, session="s1")
    assert status == 504 and problem["title"] == "Model timeout"
    assert "арахис" not in json.dumps(problem, ensure_ascii=False)
    assert end("s1")[0] == 200
    (fragment,) = exported_fragments()
    assert [m["text"] for m in fragment["messages"]] == [ALLERGY]


def test_a_model_server_error_is_a_503_and_the_turn_is_kept(fake, cloud):
    fake.script(Reply.server_error(500))
    status, problem = chat(ALLERGY, session="s1")
    assert status == 503 and problem["title"] == "Model unavailable"
    _, export = call(api_event("GET", "/v1/export"))
    assert export["sessions"][0]["pending"][0]["text"] == ALLERGY


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"session_id": "s1", "message": "x" * 4001}, 413),
        ({"session_id": "s1", "message": "   "}, 422),
        ({"session_id": "s1", "message": ""}, 422),
        ({"session_id": "bad id!", "message": "привет"}, 422),
        ({"session_id": "s1", "message": "привет", "user_id": "bob"}, 422),
        ({"session_id": "s1", "message": "привет", "locale": "not a locale"}, 422),
        ({"message": "привет"}, 422),
    ],
)
def test_bad_chat_requests_get_a_clear_4xx(fake, cloud, body, status):
    got, problem = call(api_event("POST", "/v1/chat", "alice", body))
    assert got == status, problem
    assert "привет" not in json.dumps(problem, ensure_ascii=False)
    assert answer_requests(fake) == []


def test_chat_needs_a_token_and_json(fake, cloud):
    assert chat(ALLERGY, user=None)[0] == 401
    event = api_event("POST", "/v1/chat", "alice", {"session_id": "s1", "message": ALLERGY})
    event["headers"]["Content-Type"] = "text/plain"
    event["multiValueHeaders"]["Content-Type"] = ["text/plain"]
    assert call(event)[0] == 415
    assert call(api_event("POST", "/v1/sessions/s1/end", None))[0] == 401


def test_locale_reaches_the_model_and_the_fragment(fake, cloud):
    assert chat(ALLERGY, session="s1", locale="ru-RU")[0] == 200
    assert "The user's app locale: ru-RU." in answer_requests(fake)[-1].system_prompt
    end("s1")
    (fragment,) = exported_fragments()
    assert fragment["locale"] == "ru-RU"


def test_the_idle_marker_of_a_session_expires_with_erasure(fake, cloud):
    chat(ALLERGY, session="s1")
    status, erased = call(api_event("DELETE", "/v1/me"))
    assert status == 200 and erased["remaining_items"] == 0
    from health_ltm import wiring

    due = wiring.repository().list_due_sessions(T0.date().isoformat(), T0 + timedelta(days=3650))
    assert due == []
