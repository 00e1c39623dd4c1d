"""Done-when of issue 8, on the real local stack (`ltm run`, real handlers, emulator, pollers) with
the fake OpenAI-compatible server as the model: the seed-000 story through POST /v1/chat alone.

"У меня аллергия на арахис" in one session; in the next, "Что мне перекусить?" sends the model a
context holding the peanut allergy: at once as "just said" (the new session flushes the old one),
and as a self-reported fact once the extract poller has applied the fragment.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from tests.fakes.fake_openai import FakeOpenAI

from .test_local_stack_cli import Running, ltm, ltm_env

pytestmark = [pytest.mark.xdist_group("ltm_chat_stack"), pytest.mark.slow]


def request(run: Running, method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body, ensure_ascii=False).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{run.state['api_port']}{path}", data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def say(run: Running, token: str, session: str, message: str) -> tuple[int, dict]:
    return request(run, "POST", "/v1/chat", token, {"session_id": session, "message": message})


def wait_for(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"condition not met within {timeout} s")


def memory_of(fake: FakeOpenAI) -> str:
    answers = [r for r in fake.chat_requests if r.response_format is None]
    return answers[-1].body["messages"][0]["content"].rsplit("MEMORY CONTEXT:", 1)[1]


@pytest.fixture
def stack(tmp_path):
    started: list[Running] = []
    with FakeOpenAI(rules=True) as fake:
        home = tmp_path / "ltm"
        env = ltm_env(home, standins=False)
        env["OPENAI_BASE_URL"] = fake.base_url
        run = Running(home, env)
        started.append(run)
        yield run, env, fake
        for run in started:
            if run.process.poll() is None:
                run.process.kill()
                run.process.wait(timeout=10)


def test_seed_000_story_through_post_chat_alone(stack):
    run, env, fake = stack
    assert "model configured: OpenAI-compatible endpoint" in run.output()
    token = ltm(env, "token", "alice").stdout.strip()

    status, out = say(run, token, "morning", "У меня аллергия на арахис")
    assert status == 200, out

    status, out = say(run, token, "evening", "Что мне перекусить?")
    assert status == 200, out
    assert "allergies" in out["context_used"]["sections"]
    memory = memory_of(fake)
    assert "арахис" in memory or "peanut" in memory, memory

    # The extract poller applies the flushed fragment through the model adapter (fake, rules on).
    def allergy_ids() -> list[str]:
        _, facts = request(run, "GET", "/v1/facts?section=allergies", token)
        return [f["id"] for f in facts["facts"]]

    (fact_id,) = wait_for(allergy_ids)
    status, out = say(run, token, "next-day", "Что мне перекусить?")
    assert status == 200, out
    memory = memory_of(fake)
    assert "[SELF-REPORTED by the user · Allergies]" in memory
    assert "арахис" in memory or "peanut" in memory
    assert fact_id in out["context_used"]["fact_ids"]

    status, ended = request(run, "POST", "/v1/sessions/next-day/end", token)
    assert status == 200 and ended["flushed"] is True
    assert run.stop() == 0


def test_without_a_model_the_stack_says_so_and_chat_keeps_the_turn(tmp_path):
    home = tmp_path / "ltm"
    env = ltm_env(home, standins=False)
    run = Running(home, env)
    try:
        assert "POST /v1/chat answers 503" in run.output()
        token = ltm(env, "token", "alice").stdout.strip()
        status, problem = say(run, token, "s1", "У меня аллергия на арахис")
        assert status == 503 and problem["title"] == "Model not configured"
        status, ended = request(run, "POST", "/v1/sessions/s1/end", token)
        assert status == 200 and ended["flushed"] is True

        def applied() -> bool:
            _, facts = request(run, "GET", "/v1/facts?section=allergies", token)
            return bool(facts["facts"])

        assert wait_for(applied)
        assert run.stop() == 0
    finally:
        if run.process.poll() is None:
            run.process.kill()
            run.process.wait(timeout=10)
