"""``make smoke`` (bench/smoke.py) against the local stack over HTTP: the seed-000 medication
story end to end, the same client a deployed stage gets, a dev token in place of Cognito's."""

from __future__ import annotations

import pytest
from bench.load import live_stack
from bench.smoke import EXPECTED_HISTORY, STORY, run_smoke

pytestmark = [pytest.mark.xdist_group("ltm_live_smoke"), pytest.mark.slow]


def test_the_smoke_story_passes_against_the_local_stack_and_leaves_nothing_behind(tmp_path):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "POWERTOOLS_LOG_LEVEL": "WARNING"}
    with live_stack(tmp_path / "ltm", env=env) as live:
        base_url = f"http://127.0.0.1:{live.port}/"
        report = run_smoke(base_url, live.token("smoke-user"), timeout_s=60)
        status, facts = live.client("smoke-user").call("GET", "/v1/facts?include_inactive=true")

    assert report["ok"], report
    assert [s["step"] for s in report["steps"]][: 1 + len(STORY)] == [
        "health",
        *[f"fragment {i + 1}/{len(STORY)}" for i in range(len(STORY))],
    ]
    assert (
        next(s for s in report["steps"] if s["step"] == "one fact, four events")["history"]
        == EXPECTED_HISTORY
    )
    assert status == 200 and facts["facts"] == []  # erased at the end


def test_the_smoke_refuses_a_user_who_already_has_a_memory(tmp_path):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "POWERTOOLS_LOG_LEVEL": "WARNING"}
    with live_stack(tmp_path / "ltm", env=env) as live:
        base_url = f"http://127.0.0.1:{live.port}/"
        first = run_smoke(base_url, live.token("someone"), timeout_s=60, keep=True)
        second = run_smoke(base_url, live.token("someone"), timeout_s=60, keep=True)

    assert first["ok"], first
    assert not second["ok"] and "dedicated smoke user" in second["failure"]
