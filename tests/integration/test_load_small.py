"""A small version of `make load` (bench/load.py): several concurrent clients and users, a fixed
number of mixed reads and writes over HTTP against the local stack, then a bounded wait for the
workers. Zero 5xx, zero transport errors, zero lost fragments, an empty DLQ. No timing is asserted."""

from __future__ import annotations

import pytest
from bench.load import ROUTES, live_stack, render_markdown, run_load

pytestmark = [pytest.mark.xdist_group("ltm_live_load"), pytest.mark.slow]


def test_a_small_mixed_load_loses_nothing_and_never_answers_5xx(tmp_path):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "POWERTOOLS_LOG_LEVEL": "WARNING"}
    with live_stack(tmp_path / "ltm", env=env) as live:
        result = run_load(
            live, clients=4, requests=15, users=4, seed=11, run_timeout_s=120, settle_timeout_s=60
        )

    assert result["requests"] == 4 * 15
    assert result["server_errors"] == 0, result["routes"]
    assert result["transport_errors"] == 0
    assert result["fragments_accepted"] > 0
    assert result["lost_fragments"] == 0, result["fragment_outcomes"]
    assert result["dlq_messages"] == 0
    assert set(result["fragment_outcomes"]) <= {"applied", "rejected"}
    assert sum(result["fragment_outcomes"].values()) == result["fragments_accepted"]
    assert all(result["routes"][route]["requests"] > 0 for route in ROUTES)
    assert "| `POST /v1/fragments` |" in render_markdown(result)
