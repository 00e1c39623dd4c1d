"""The vector store (OpenSearch Serverless; locally its stand-in) down or slow.

Read path: the episodes are an extra, so POST /v1/context still answers 200 with every fact and
``episodes_status: "unavailable"`` (slow: not waited for beyond LTM_EPISODE_TIMEOUT_S).

Write path, as decided in pipeline.py: the facts are committed first, each in its own
transaction with its fingerprint on the fragment; the episode is indexed after them and an
indexing failure fails the RECORD (it is not best-effort): SQS redelivers it, the redelivery
skips every fact already applied (no second history event) and indexes the episode, and after
maxReceiveCount the record waits in the DLQ for `ltm redrive`. Either way no fact is
half-written and the fragment only reads "applied" once its episode is stored too.
"""

from __future__ import annotations

import threading

import pytest
from bench.load import fragment_status, live_stack, wait_for

from .conftest import assert_whole, export

pytestmark = [pytest.mark.xdist_group("ltm_live_vector_faults"), pytest.mark.slow]

SAID = "У меня аллергия на арахис. Третий день болит голова"
QUESTION = "Болит голова третий день, что делать?"  # a question class that wants episodes


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "LTM_EPISODE_TIMEOUT_S": "0.25"}
    with live_stack(tmp_path_factory.mktemp("vectors") / "ltm", env=env) as live:
        yield live


@pytest.fixture
def index():
    from health_ltm import wiring

    return wiring.vector_index()


def _facts_by_section(context: dict) -> dict[str, list[str]]:
    return {b["section"]: [f["name"] for f in b["facts"]] for b in context["self_reported"]}


@pytest.fixture
def remembered(live):
    client = live.client("vec-reader")
    status, body = client.say(SAID)
    assert status == 202
    wait_for(lambda: fragment_status(client, body["fragment_id"]) == "applied", 30, message="applied")
    status, context = client.call("POST", "/v1/context", {"query": QUESTION})
    assert status == 200 and context["episodes_status"] == "ok" and context["episodes"]
    return client, context


def test_context_answers_without_episodes_when_the_store_is_down(live, remembered, index, monkeypatch):
    client, healthy = remembered

    def down(*args, **kwargs):
        raise ConnectionError("vector store unreachable")

    monkeypatch.setattr(index, "search", down)
    status, context = client.call("POST", "/v1/context", {"query": QUESTION})
    assert status == 200
    assert context["episodes_status"] == "unavailable" and context["episodes"] == []
    assert _facts_by_section(context) == _facts_by_section(healthy)
    assert context["prompt"] and "[PAST CONVERSATIONS" not in context["prompt"]


def test_context_answers_without_episodes_when_the_embedder_fails(live, remembered, monkeypatch):
    from health_ltm import wiring

    def broken(texts):
        raise RuntimeError("embedding model down")

    monkeypatch.setattr(wiring.embedder(), "embed", broken)
    client, healthy = remembered
    status, context = client.call("POST", "/v1/context", {"query": QUESTION})
    assert status == 200 and context["episodes_status"] == "unavailable"
    assert _facts_by_section(context) == _facts_by_section(healthy)


def test_context_does_not_wait_for_a_slow_store(live, remembered, index, monkeypatch):
    client, healthy = remembered
    release = threading.Event()
    real_search = index.search

    def slow(*args, **kwargs):
        release.wait(10)  # far beyond the 0.25 s budget; released at the end of the test
        return real_search(*args, **kwargs)

    monkeypatch.setattr(index, "search", slow)
    try:
        for _ in range(3):  # more than once: a stuck search must not make the next ones fail
            status, context = client.call("POST", "/v1/context", {"query": QUESTION})
            assert status == 200 and context["episodes_status"] == "unavailable"
            assert _facts_by_section(context) == _facts_by_section(healthy)
    finally:
        release.set()


def test_indexing_down_retries_the_record_then_dlq_and_redrive_completes_it_without_duplicates(
    live, index, monkeypatch
):
    client = live.client("vec-writer")
    calls = {"index": 0}

    def down(*args, **kwargs):
        calls["index"] += 1
        raise ConnectionError("vector store unreachable")

    monkeypatch.setattr(index, "index", down)
    status, body = client.say(SAID)
    assert status == 202
    fragment_id = body["fragment_id"]
    wait_for(lambda: live.dlq_depth() == 1, 60, 0.2, message="the record in the DLQ")
    assert calls["index"] == live.queue().spec.max_receive_count  # each delivery tried to index

    # The facts are whole and were applied once, although the record ran five times.
    exported = export(client)
    assert_whole(exported)
    assert {f["section"] for f in exported["facts"]} == {"allergies", "symptoms"}
    assert all(f["version"] == 1 for f in exported["facts"])
    assert fragment_status(client, fragment_id) == "processing"  # not "applied" without its episode
    assert exported["vector_documents"] == 0

    monkeypatch.undo()  # the store is back
    assert live.redrive() == 1
    wait_for(lambda: fragment_status(client, fragment_id) == "applied", 30, message="applied")
    exported = export(client)
    assert_whole(exported)
    assert all(f["version"] == 1 for f in exported["facts"])  # no second history event
    assert exported["vector_documents"] == 1 and len(exported["episodes"]) == 1
    assert exported["pending"] == []
    status, context = client.call("POST", "/v1/context", {"query": QUESTION})
    assert status == 200 and context["episodes_status"] == "ok" and len(context["episodes"]) == 1
