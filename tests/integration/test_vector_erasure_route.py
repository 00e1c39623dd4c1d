"""DELETE /v1/me and DELETE /v1/facts/{id} through the unmodified handlers, against a vector store
that makes writes searchable only after its refresh interval: what was said a moment ago leaves
with the rest, and the erasure says whether the store could vouch for it."""

from __future__ import annotations

import pytest

from tests.unit.test_vector_erasure import MANAGED, SERVERLESS, LaggingCollection, process

from .conftest import api_event, call, drain_extraction
from .test_api_flow import say


@pytest.fixture
def lagging(cloud, monkeypatch):
    from health_ltm import wiring

    collection = LaggingCollection()
    # A new adapter per use: the worker that indexed and the API that deletes share nothing
    # but the collection, as separate Lambda processes do.
    dimensions = wiring.embedder().dimensions
    monkeypatch.setattr(wiring, "vector_index", lambda: process(collection, SERVERLESS, dimensions))
    return collection


def test_erasure_deletes_what_was_indexed_a_moment_ago_and_says_pending(lagging, cloud):
    say("У меня аллергия на арахис")
    say("I am allergic to penicillin", user="bob")
    assert drain_extraction(cloud)["batchItemFailures"] == []
    assert lagging.of("alice") and lagging.visible == {}  # indexed, not yet searchable

    status, erased = call(api_event("DELETE", "/v1/me"))

    assert status == 200 and erased["remaining_items"] == 0
    assert erased["erased_vectors"] == 1 and erased["vector_verification"] == "pending"
    assert lagging.of("alice") == [] and len(lagging.of("bob")) == 1
    assert "арахис" not in repr(lagging.docs)


def test_deleting_a_fact_deletes_its_episode_indexed_a_moment_ago(lagging, cloud):
    say("У меня аллергия на арахис")
    assert drain_extraction(cloud)["batchItemFailures"] == []
    _, facts = call(api_event("GET", "/v1/facts"))
    [fact] = facts["facts"]
    assert len(lagging.of("alice")) == 1 and lagging.visible == {}

    assert call(api_event("DELETE", f"/v1/facts/{fact['id']}"))[0] == 204

    assert lagging.of("alice") == []
    _, exported = call(api_event("GET", "/v1/export"))
    assert exported["episodes"] == []


def test_erasure_is_verified_where_the_store_refreshes(cloud, monkeypatch):
    from health_ltm import wiring

    collection = LaggingCollection(refreshable=True)
    dimensions = wiring.embedder().dimensions
    monkeypatch.setattr(wiring, "vector_index", lambda: process(collection, MANAGED, dimensions))
    say("У меня аллергия на арахис")
    assert drain_extraction(cloud)["batchItemFailures"] == []
    assert len(collection.of("alice")) == 1

    status, erased = call(api_event("DELETE", "/v1/me"))

    assert status == 200 and erased["vector_verification"] == "verified"
    assert erased["remaining_vectors"] == 0 and collection.of("alice") == []


def test_erasure_with_the_local_index_is_verified(cloud):
    say("У меня аллергия на арахис")
    assert drain_extraction(cloud)["batchItemFailures"] == []
    status, erased = call(api_event("DELETE", "/v1/me"))
    assert status == 200 and erased["erased_vectors"] == 1
    assert erased["remaining_vectors"] == 0 and erased["vector_verification"] == "verified"
