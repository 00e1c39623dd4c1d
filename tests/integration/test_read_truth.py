"""The read path tells the model the truth, black box through the API handler on moto: what is
known to be absent or unsure, what was just said in chat, nothing of what was deleted, and an
old episode never as if it were current."""

from __future__ import annotations

import pytest

from tests.conftest import T0

from .conftest import api_event, call, drain_extraction

DRUG_QUESTION = "Можно ли мне ибупрофен от головной боли?"  # allergies, medications, chronic conditions
PENICILLIN = "У меня аллергия на пенициллин"


def say(text: str, user: str = "alice", session: str = "s1") -> str:
    body = {"session_id": session, "messages": [{"role": "user", "text": text}]}
    status, out = call(api_event("POST", "/v1/fragments", user, body))
    assert status == 202, out
    return out["fragment_id"]


def said_and_processed(cloud, text: str, session: str = "s1") -> None:
    fragment_id = say(text, session=session)
    assert drain_extraction(cloud)["batchItemFailures"] == []
    _, fragment = call(api_event("GET", f"/v1/fragments/{fragment_id}"))
    assert fragment["status"] == "applied", fragment


def context(query: str = DRUG_QUESTION, user: str = "alice", **extra) -> dict:
    status, out = call(api_event("POST", "/v1/context", user, {"query": query, **extra}))
    assert status == 200, out
    return out


def chat(message: str, session: str = "s1", user: str = "alice") -> tuple[int, dict]:
    return call(api_event("POST", "/v1/chat", user, {"session_id": session, "message": message}))


def one_fact(section: str) -> dict:
    _, facts = call(api_event("GET", "/v1/facts", query={"section": section}))
    (fact,) = facts["facts"]
    return fact


@pytest.fixture
def fixed_clock(monkeypatch):
    from health_ltm import wiring
    from health_ltm.domain.clock import FixedClock

    clock = FixedClock(T0)
    monkeypatch.setattr(wiring, "clock", lambda: clock)
    return clock


# ------------------------------------------------------------------ unknown / absent / unsure
@pytest.mark.parametrize(
    ("said", "line"),
    [
        ("У меня нет аллергий", "allergies: none known (confirmed "),
        ("Не знаю, есть ли у меня аллергия", "allergies: the user is not sure"),
        ("Не знаю, есть ли у меня хронические заболевания", "chronic conditions: the user is not sure"),
    ],
)
def test_confirmed_absence_and_dont_know_reach_the_prompt(cloud, said, line):
    said_and_processed(cloud, said)
    ctx = context()
    assert line in ctx["prompt"]
    (status,) = ctx["statuses"]
    assert status["status"] in ("confirmed_absent", "unsure") and status["since"]
    assert status["section"] not in [g["section"] for g in ctx["gaps"]]
    assert f"{status['section'].replace('_', ' ')}: never discussed" not in ctx["prompt"]


def test_a_section_confirmed_absent_in_the_profile_is_a_line_not_an_empty_prompt(cloud):
    status, _ = call(api_event("PUT", "/v1/sections/allergies", body={"status": "confirmed_absent"}))
    assert status == 200
    ctx = context("Что мне перекусить?")
    assert ctx["self_reported"] == [] and ctx["prompt"]
    assert "[SELF-REPORTED by the user · Allergies]\n- allergies: none known (confirmed" in ctx["prompt"]


def test_a_section_whose_every_fact_ended_says_so_instead_of_an_empty_prompt(cloud):
    """Found talking to the local stack: "I stopped taking the amlodipine" then "what am I taking?"
    gave an empty prompt, which the model cannot tell from never discussed."""
    said_and_processed(cloud, "I take amlodipine 5 mg")
    said_and_processed(cloud, "I stopped taking the amlodipine", session="s2")
    ctx = context("What medications am I taking?")
    assert "medications: nothing current on record (1 ended before" in ctx["prompt"]
    (status,) = [s for s in ctx["statuses"] if s["section"] == "medications"]
    assert (status["status"], status["ended"]) == ("present", 1)
    history = context("What medications have I taken before?")
    assert "amlodipine" in history["prompt"] and "nothing current on record" not in history["prompt"]


def test_a_never_discussed_section_stays_a_gap(cloud):
    ctx = context("Can I take ibuprofen?", user="newcomer")
    assert "allergies: never discussed" in ctx["prompt"]
    assert ctx["statuses"] == []


def test_a_negative_entity_is_said_as_such(cloud):
    said_and_processed(cloud, "У меня нет аллергии на пенициллин")
    ctx = context()
    assert "NOT allergic to пенициллин" in ctx["prompt"]
    (allergy,) = next(b["facts"] for b in ctx["self_reported"] if b["section"] == "allergies")
    assert allergy["status"] == "absent"


# ------------------------------------------------------------------ read-your-writes
def test_a_queued_allergy_never_sits_beside_never_discussed(cloud):
    fragment_id = say(PENICILLIN)
    ctx = context()
    assert [p["fragment_id"] for p in ctx["pending"]] == [fragment_id]
    assert ctx["pending"][0]["source"] == "fragment"
    assert "allergies" not in [g["section"] for g in ctx["gaps"]]
    assert "allergies: never discussed" not in ctx["prompt"]
    assert "[JUST SAID by the user, not yet processed]" in ctx["prompt"] and "пенициллин" in ctx["prompt"]


def test_an_allergy_said_in_chat_is_in_the_next_context_before_any_flush(cloud):
    status, _ = chat(PENICILLIN, session="s1")  # no model here: 503, and the turn is kept
    assert status == 503
    _, export = call(api_event("GET", "/v1/export"))
    assert export["fragments"] == []  # nothing flushed
    ctx = context(session_id="s1")
    (pending,) = ctx["pending"]
    assert pending["source"] == "chat_session" and "пенициллин" in pending["text"]
    assert "пенициллин" in ctx["prompt"] and "allergies: never discussed" not in ctx["prompt"]
    assert context(session_id="s1", user="bob")["pending"] == []  # alice's session is not bob's


def test_a_chat_turn_is_in_a_context_that_does_not_name_the_session(cloud):
    chat(PENICILLIN, session="s1")
    ctx = context()  # the app asks for memory outside the chat (another screen, another device)
    (pending,) = ctx["pending"]
    assert pending["source"] == "chat_session" and "пенициллин" in pending["text"]
    assert "allergies: never discussed" not in ctx["prompt"]
    assert context(user="bob")["pending"] == []


def test_none_known_gives_way_to_an_allergy_just_said(cloud):
    said_and_processed(cloud, "У меня нет аллергий")
    assert "none known" in context()["prompt"]
    chat(PENICILLIN, session="s2")
    prompt = context()["prompt"]
    assert "пенициллин" in prompt and "none known" not in prompt  # never "none" beside a new allergy


def test_an_erased_user_has_no_chat_mention_left(cloud):
    chat(PENICILLIN, session="s1")
    status, _ = call(api_event("DELETE", "/v1/me"))
    assert status == 200
    chat("А ещё на амоксициллин", session="s1")  # a turn that arrives after the erasure
    _, export = call(api_event("GET", "/v1/export"))
    assert export["pending"] == []


def test_a_flushed_chat_turn_is_one_entry_then_a_fact(cloud):
    chat(PENICILLIN, session="s1")
    before = context(session_id="s1")["pending"]
    status, ended = call(api_event("POST", "/v1/sessions/s1/end"))
    assert status == 200 and ended["fragment_ids"] == [before[0]["fragment_id"]]
    after = context(session_id="s1")
    assert [(p["fragment_id"], p["source"]) for p in after["pending"]] == [
        (before[0]["fragment_id"], "fragment")
    ]
    assert after["prompt"].count("пенициллин") == 1
    assert drain_extraction(cloud)["batchItemFailures"] == []
    processed = context(session_id="s1")
    assert processed["pending"] == []
    assert "пенициллин" in str(processed["self_reported"])


def test_a_chat_turn_is_in_the_models_memory_at_the_next_turn_of_the_session(cloud, monkeypatch):
    from health_ltm import wiring
    from tests.fakes.fake_openai import FakeOpenAI

    with FakeOpenAI(rules=True) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("LTM_LLM_MAX_RETRIES", "0")
        wiring.reset()
        assert chat(PENICILLIN, session="s1")[0] == 200
        assert chat("Можно ли мне амоксициллин?", session="s1")[0] == 200
        answers = [r for r in server.chat_requests if r.response_format is None]
        memory = answers[-1].body["messages"][0]["content"].rsplit("MEMORY CONTEXT:", 1)[1]
    wiring.reset()
    assert "[JUST SAID by the user, not yet processed]" in memory and "пенициллин" in memory


# ------------------------------------------------------------------ forgetting and correcting
def test_a_deleted_facts_words_are_not_in_the_next_context(cloud):
    said_and_processed(cloud, PENICILLIN)
    ctx = context()
    assert ctx["episodes_status"] == "ok" and "пенициллин" in str(ctx["episodes"])
    fact = one_fact("allergies")
    assert call(api_event("DELETE", f"/v1/facts/{fact['id']}"))[0] == 204
    ctx = context()
    assert "пенициллин" not in ctx["prompt"] and "пенициллин" not in str(ctx)
    _, export = call(api_event("GET", "/v1/export"))
    assert export["episodes"] == [] and export["vector_documents"] == 0
    assert [e["type"] for e in export["history"] if e["fact_id"] == fact["id"]][-1] == "user_delete"


def test_deleting_one_fact_keeps_other_fragments_episodes(cloud):
    said_and_processed(cloud, PENICILLIN, session="s1")
    said_and_processed(cloud, "Пью Энап 5 мг по утрам от давления", session="s2")
    fact = one_fact("allergies")
    assert call(api_event("DELETE", f"/v1/facts/{fact['id']}"))[0] == 204
    _, export = call(api_event("GET", "/v1/export"))
    assert [e["text"] for e in export["episodes"]] == ["Пью Энап 5 мг по утрам от давления"]
    assert export["vector_documents"] == 1


def test_a_corrected_value_comes_back_only_as_an_earlier_conversation(cloud, fixed_clock):
    said_and_processed(cloud, "Пью метформин 500 мг")
    fact = one_fact("medications")
    fixed_clock.advance(days=3)
    patch = api_event(
        "PATCH",
        f"/v1/facts/{fact['id']}",
        body={"attributes": {"dose_value": 1000}},
        headers={"If-Match": str(fact["version"])},
    )
    assert call(patch)[0] == 200
    ctx = context("Какую дозу метформина я принимаю?")
    (medication,) = next(b["facts"] for b in ctx["self_reported"] if b["section"] == "medications")
    assert medication["attributes"]["dose_value"] == 1000
    (episode,) = [e for e in ctx["episodes"] if "500" in e["text"]]
    assert episode["earlier"] is True
    (line,) = [ln for ln in ctx["prompt"].splitlines() if "500 мг" in ln]
    assert "earlier conversation" in line
    assert "1000 mg" in ctx["prompt"]


def test_a_fresh_episode_is_not_called_earlier(cloud, fixed_clock):
    said_and_processed(cloud, "Пью метформин 500 мг")
    ctx = context("Какую дозу метформина я принимаю?")
    assert ctx["episodes"] and not any(e["earlier"] for e in ctx["episodes"])
    assert "earlier conversation" not in ctx["prompt"]


# ------------------------------------------------------------------ safety sections as lines
def test_a_drug_question_reads_its_safety_sections_as_lines_and_a_list_question_whole(cloud):
    said_and_processed(cloud, "I take metformin 500 mg twice a day for diabetes")
    said_and_processed(cloud, "I used to take atorvastatin but I stopped it", session="s2")
    (metformin,) = [f for f in call(api_event("GET", "/v1/facts"))[1]["facts"] if f["key"] == "metformin"]
    assert metformin["attributes"].get("indication")  # the whole fact keeps why it is taken

    drug = context("Is ibuprofen safe for me?")
    assert {"medications", "allergies", "chronic_conditions"} <= set(drug["current_state"])
    (line,) = [ln for ln in drug["prompt"].splitlines() if ln.startswith("- metformin")]
    assert "500 mg" in line and "twice" in line and "diabetes" not in line
    assert not any(ln.startswith("- atorvastatin") for ln in drug["prompt"].splitlines())
    assert metformin["id"] in {f["id"] for b in drug["self_reported"] for f in b["facts"]}

    listed = context("Which medicines am I on?")
    assert "medications" in listed["sections"] and "medications" not in listed["current_state"]
    (line,) = [ln for ln in listed["prompt"].splitlines() if ln.startswith("- metformin")]
    assert "diabetes" in line

    history = context("What medicines did I take before?")
    assert history["current_state"] == []
    assert any(ln.startswith("- atorvastatin") for ln in history["prompt"].splitlines())
