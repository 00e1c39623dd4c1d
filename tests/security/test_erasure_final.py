"""Issue 15: erasure is final. After DELETE /v1/me nothing re-creates an item for the user: not the
fragments still queued, not a late statistics flush (activity markers), not maintenance (summary),
not a chat session's flush; and a kill -9 of the local stack right after the erasure does not
bring anything back. The user's own new POST is a new start."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime

import pytest
from bench.load import live_stack

from health_ltm.domain.models import Episode, Message, Role
from tests.faults.conftest import drain, failures
from tests.security.test_erasure import _scan_for

pytestmark = [pytest.mark.xdist_group("ltm_live_erasure"), pytest.mark.slow]

ERASED = "erase-final-77c1"
KEPT = "keep-final-31ab"
ENV = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}


def test_nothing_re_creates_an_item_after_erasure_and_a_crash_brings_nothing_back(tmp_path):
    from health_ltm import wiring
    from health_ltm.write.intake import submit_fragment

    home, crashed = tmp_path / "ltm", tmp_path / "crashed"
    with live_stack(home, env=ENV, pollers=False) as live:
        erased, kept = live.client(ERASED), live.client(KEPT)
        assert erased.say("У меня аллергия на арахис")[0] == 202
        assert kept.say("I am allergic to penicillin")[0] == 202
        assert failures(drain(live)) == 0
        for text in ("Пью Энап 5 мг по утрам", "Начал принимать аспирин 100 мг"):
            assert erased.say(text)[0] == 202  # still queued at the erasure

        status, erasure = erased.call("DELETE", "/v1/me")
        assert status == 200 and erasure["remaining_items"] == 0
        # What a kill -9 right now would leave on disk (no snapshot taken since the start).
        shutil.copytree(home, crashed)

        # In-flight work settles after the erasure: the queue, a late statistics flush, a
        # maintenance run, a chat session's flush.
        assert failures(drain(live)) == 0
        repository = wiring.repository()
        repository.mark_active(ERASED, datetime.now(UTC).date().isoformat())
        repository.put_summary(ERASED, {"sections": {}})
        repository.put_episode(
            ERASED, Episode(id="late", session_id="s1", fragment_id="late", text="late", sections=[],
                            at=datetime.now(UTC)),
        )
        submit_fragment(
            repository, wiring.fragment_queue(), wiring.clock(), lambda: "flush-1", ERASED, "chat-1",
            [Message(role=Role.USER, text="У меня аллергия на латекс")], fragment_id="flush-1",
            new_start=False,
        )
        assert failures(drain(live)) == 0
        assert _scan_for(live, ERASED) == []  # re-checked after in-flight work settled
        assert repository.is_erased(ERASED)

        # The other user is untouched; the erased user's own new POST is a new start.
        assert kept.call("GET", "/v1/facts")[1]["facts"]
        assert erased.say("I take metformin 500 mg")[0] == 202
        assert not repository.is_erased(ERASED)

    (crashed / "stack.lock").unlink(missing_ok=True)
    with live_stack(crashed, env=ENV, pollers=False) as live:
        assert failures(drain(live)) == 0  # the queued references find nothing
        assert _scan_for(live, ERASED) == []
        assert live.client(KEPT).call("GET", "/v1/facts")[1]["facts"]
