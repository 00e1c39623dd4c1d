"""Erasure and fact deletion reach a vector indexed a moment ago, and only the user's own.

A VECTORSEARCH collection makes a write searchable only after its refresh interval and has no
refresh: ``LaggingCollection`` answers search and count from the documents as of its last
refresh, while bulk deletes by id act at once. Adapters built separately stand for separate
processes (the extraction worker that indexed, the API that erases), so what one process
remembers of its own writes does not help the other.
"""

from __future__ import annotations

import pytest
from opensearchpy import OpenSearch

from health_ltm.adapters import opensearch_index as osi
from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.adapters.opensearch_index import OpenSearchVectorIndex
from health_ltm.domain.models import Episode
from health_ltm.ports import VectorCount
from health_ltm.read.profile import erase_user, forget_episodes
from health_ltm.settings import Settings
from tests.unit.test_opensearch_index import DIMS, FakeCollection, FakeConnection, calls, episode

SERVERLESS = "https://abc.eu-west-1.aoss.amazonaws.com"
MANAGED = "https://search-episodes-abc.eu-west-1.es.amazonaws.com"


class LaggingCollection(FakeCollection):
    """Search and count see the documents as of the last refresh; deletes by id act at once.
    ``refreshable``: a managed domain's POST <index>/_refresh; otherwise 404, as serverless."""

    def __init__(self, refreshable: bool = False) -> None:
        super().__init__()
        self.refreshable = refreshable
        self.visible: dict[str, dict] = {}

    def refresh(self) -> None:  # the collection's own interval passing
        self.visible = dict(self.docs)

    def handle(self, method: str, url: str, params: dict, body: object) -> tuple[int, object]:
        path = url.split("?", 1)[0]
        if self.refreshable and path.endswith("/_refresh"):
            self.requests.append((method, url, dict(params or {}), body))
            self.refresh()
            return 200, {"_shards": {"total": 2, "successful": 2, "failed": 0}}
        if path.endswith(("/_search", "/_count")):
            live, self.docs = self.docs, self.visible
            try:
                return super().handle(method, url, params, body)
            finally:
                self.docs = live
        return super().handle(method, url, params, body)

    def of(self, user_id: str) -> list[str]:
        return [doc_id for doc_id, doc in self.docs.items() if doc["user_id"] == user_id]


def process(
    collection: FakeCollection, endpoint: str = SERVERLESS, dimensions: int = DIMS
) -> OpenSearchVectorIndex:
    """One process's adapter over the shared collection."""
    client = OpenSearch(hosts=[{"host": "abc", "port": 443}], connection_class=FakeConnection,
                        collection=collection)
    settings = Settings(LTM_VECTOR_ENDPOINT=endpoint, LTM_VECTOR_INDEX="episodes")
    return OpenSearchVectorIndex(settings, dimensions=dimensions, client=client)


def write(repository, index, user_id: str, ep: Episode, vector=(1.0, 0.0, 0.0, 0.0)) -> str:
    """As the write path does: the row, the vector, then the row with the vector's reference."""
    repository.put_episode(user_id, ep)
    ref = index.index(user_id, ep, list(vector))
    repository.put_episode(user_id, ep.model_copy(update={"vector_doc_id": ref}))
    return ref


@pytest.fixture
def lagging() -> LaggingCollection:
    return LaggingCollection()


# ------------------------------------------------------------------------------ the gap
def test_a_search_sweep_alone_misses_a_vector_indexed_just_now(lagging):
    process(lagging).index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])

    api = process(lagging)
    assert api.delete_user("u1") == 0 and api.count_user("u1") == 0  # invisible to the search
    assert len(lagging.of("u1")) == 1  # and still there, text and all
    assert api.settled_count("u1") == VectorCount(count=0, settled=False)


def test_the_process_that_indexed_it_sweeps_its_own_fresh_vectors(lagging):
    worker = process(lagging)
    worker.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    worker.index("u2", episode(2), [1.0, 0.0, 0.0, 0.0])

    # The write path's compensation after an erasure raced it: right after indexing, same process.
    assert worker.delete_user("u1") == 1
    assert lagging.of("u1") == [] and len(lagging.of("u2")) == 1


def test_what_a_process_remembers_of_its_writes_is_bounded(lagging, monkeypatch):
    worker = process(lagging)
    monkeypatch.setattr(osi, "RECENT_MAX", 3)
    for n in range(5):
        worker.index("u1", episode(n), [1.0, 0.0, 0.0, float(n)])
    assert len(worker._recent) == 3

    now = osi.time.monotonic()
    monkeypatch.setattr(osi.time, "monotonic", lambda: now + osi.RECENT_WINDOW_S + 1)
    assert worker._recent_ids("u1") == []  # past the window the search sees them anyway
    lagging.refresh()
    assert worker.delete_user("u1") == 5


# ------------------------------------------------------------------------------ erasure
def test_erasure_deletes_a_vector_indexed_just_now_by_its_rows_reference(repository, lagging):
    worker = process(lagging)
    write(repository, worker, "u1", episode(1))
    lagging.refresh()  # an older episode, searchable
    write(repository, worker, "u1", episode(2))  # indexed just now: no search sees it yet
    write(repository, worker, "u2", episode(3))
    lagging.refresh()
    write(repository, worker, "u1", episode(4))
    assert len(lagging.of("u1")) == 3

    erasure = erase_user(repository, process(lagging), "u1")  # the API: another process

    assert lagging.of("u1") == []
    assert erasure["erased_vectors"] == 3 and erasure["remaining_items"] == 0
    # No refresh on serverless: the count still sees what was just deleted, and cannot vouch.
    assert erasure["vector_verification"] == "pending"
    assert len(lagging.of("u2")) == 1 and repository.list_episodes("u2")


def test_erasure_also_sweeps_vectors_no_row_names(repository, lagging):
    worker = process(lagging)
    worker.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])  # its row was never written (a crash)
    lagging.refresh()

    erasure = erase_user(repository, process(lagging), "u1")

    assert lagging.of("u1") == [] and erasure["erased_vectors"] == 1


def test_erasure_is_verified_where_the_store_can_refresh(repository):
    managed = LaggingCollection(refreshable=True)
    worker = process(managed, MANAGED)
    write(repository, worker, "u1", episode(1))
    write(repository, worker, "u2", episode(2))
    api = process(managed, MANAGED)
    assert api.refreshable and not api.serverless

    erasure = erase_user(repository, api, "u1")

    assert managed.of("u1") == []
    assert erasure["vector_verification"] == "verified" and erasure["remaining_vectors"] == 0
    assert calls(managed, "/episodes/_refresh")
    assert len(managed.of("u2")) == 1


def test_a_refused_refresh_leaves_the_erasure_pending(repository, lagging):
    write(repository, process(lagging), "u1", episode(1))
    api = process(lagging, MANAGED)  # believes it can refresh; the store answers 404

    erasure = erase_user(repository, api, "u1")

    assert lagging.of("u1") == [] and erasure["vector_verification"] == "pending"


def test_erasure_sweeps_again_when_a_settled_count_finds_a_late_write(repository, monkeypatch):
    managed = LaggingCollection(refreshable=True)
    worker = process(managed, MANAGED)
    write(repository, worker, "u1", episode(1))
    api = process(managed, MANAGED)
    real = api.delete_documents

    def and_meanwhile(user_id, refs):  # an in-flight fragment indexes after the rows were read
        deleted = real(user_id, refs)
        worker.index("u1", episode(2), [0.0, 1.0, 0.0, 0.0])
        return deleted

    monkeypatch.setattr(api, "delete_documents", and_meanwhile)
    erasure = erase_user(repository, api, "u1")

    assert managed.of("u1") == [] and erasure["erased_vectors"] == 2
    assert erasure["vector_verification"] == "verified"


def test_erasure_with_the_local_index_is_verified(repository):
    index = LocalVectorIndex()
    write(repository, index, "u1", episode(1))
    write(repository, index, "u2", episode(2))

    erasure = erase_user(repository, index, "u1")

    assert erasure == {
        "erased_items": erasure["erased_items"], "erased_vectors": 1, "remaining_items": 0,
        "remaining_vectors": 0, "vector_verification": "verified",
    }
    assert index.count_user("u1") == 0 and index.count_user("u2") == 1
    assert index.settled_count("u2") == VectorCount(count=1, settled=True)


def test_erasure_without_a_vector_store_is_verified(repository):
    assert erase_user(repository, None, "u1")["vector_verification"] == "verified"


# ------------------------------------------------------------------------------ fact deletion
def test_forgetting_an_episode_indexed_just_now_deletes_its_vector_without_a_search(repository, lagging):
    worker = process(lagging)
    write(repository, worker, "u1", episode(1).model_copy(update={"id": "f1"}))
    kept = write(repository, worker, "u1", episode(2).model_copy(update={"id": "f2"}))
    api = process(lagging)
    lagging.requests.clear()

    assert forget_episodes(repository, api, "u1", ["f1", "f1", "gone"]) == 1

    assert lagging.of("u1") == [osi.owned_doc_id("u1", kept)]
    assert repository.get_episode("u1", "f1") is None and repository.get_episode("u1", "f2")
    assert not calls(lagging, "/_search") and len(calls(lagging, "/_bulk")) == 1


# ------------------------------------------------------------------------------ ownership
def test_another_users_vector_cannot_be_deleted_by_a_forged_reference(lagging):
    worker = process(lagging)
    ref = worker.index("alice", episode(1), [1.0, 0.0, 0.0, 0.0])
    doc_id = osi.owned_doc_id("alice", ref)
    assert doc_id is not None
    forged = [
        ref,  # alice's own reference, presented by bob
        doc_id,  # the bare id
        f"{doc_id}.{'0' * osi.SEAL_CHARS}",  # a made-up seal
        f"{doc_id}.{ref[-osi.SEAL_CHARS:].upper()}",  # the seal, altered
        f"{doc_id}.{ref[-8:]}",  # a short one
    ]
    api = process(lagging)
    for visible in (False, True):  # fresh (no search sees it) and searchable
        if visible:
            lagging.refresh()
        assert api.delete_documents("bob", forged) == 0
        assert lagging.of("alice") == [doc_id]
    assert api.delete_documents("alice", [ref]) == 1


def test_a_reference_holds_neither_the_user_id_nor_any_text(lagging):
    ref = process(lagging).index("user@example.com", episode(1), [1.0, 0.0, 0.0, 0.0])
    doc_id, _, seal = ref.rpartition(".")
    assert doc_id in lagging.docs and len(seal) == osi.SEAL_CHARS
    assert "user" not in seal and "example" not in ref and "episode" not in ref
    assert osi.document_ref("user@example.com", doc_id) == ref  # recomputed, not stored


def test_the_adapter_knows_serverless_from_managed_endpoints():
    assert osi.is_serverless_host("https://abc.eu-west-1.aoss.amazonaws.com")
    assert osi.is_serverless_host("abc.aoss.us-east-1.on.aws")
    assert not osi.is_serverless_host(MANAGED) and not osi.is_serverless_host("http://localhost:9200")
    assert not process(FakeCollection()).refreshable
    assert process(FakeCollection(), MANAGED).refreshable
