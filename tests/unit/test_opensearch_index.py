"""The OpenSearch Serverless adapter, through the real opensearch-py client and a fake connection.

No server: a connection class answers like a VECTORSEARCH collection (generated ids, a
custom ``_id`` refused, no refresh, no delete-by-query, k-NN with an efficient filter) and
records every request, so the tests assert the exact bodies the adapter sends.
"""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from opensearchpy import Connection, OpenSearch

from health_ltm.adapters import opensearch_index as osi
from health_ltm.adapters.opensearch_index import (
    OpenSearchVectorIndex,
    VectorIndexError,
    cosine_from_l2_score,
    index_body,
)
from health_ltm.domain.models import Episode
from health_ltm.domain.sections import Section
from health_ltm.settings import Settings

DIMS = 4
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class FakeCollection:
    """Just enough of a VECTORSEARCH collection to answer the adapter like the real one."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict, object]] = []
        self.indices: dict[str, dict] = {}
        self.docs: dict[str, dict] = {}
        self.override: dict[str, dict] = {}  # path suffix -> canned response

    def handle(self, method: str, url: str, params: dict, body: object) -> tuple[int, object]:
        self.requests.append((method, url, dict(params or {}), body))
        path = url.split("?", 1)[0]
        for suffix, canned in self.override.items():
            if path.endswith(suffix):
                return 200, canned
        if "refresh" in (params or {}) or path.endswith("/_refresh"):
            return 404, {"error": {"type": "not_found", "reason": "refresh is not supported"}, "status": 404}
        if path.endswith("/_delete_by_query"):
            return 404, ""
        if method == "HEAD":
            return (200 if path.strip("/") in self.indices else 404), ""
        if method == "PUT":
            name = path.strip("/")
            if name in self.indices:
                error = {"type": "resource_already_exists_exception", "reason": f"index [{name}] exists"}
                return 400, {"error": {"root_cause": [error], **error}, "status": 400}
            self.indices[name] = body
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}
        if path.endswith("/_bulk"):
            return 200, self._bulk(body)
        if path.endswith("/_search"):
            return self._search(path.strip("/").split("/")[0], body)
        if path.endswith("/_count"):
            user = body["query"]["term"]["user_id"]
            return 200, {"count": sum(d["user_id"] == user for d in self.docs.values()), "_shards": {}}
        return 404, {"error": {"type": "unsupported"}, "status": 404}

    def _bulk(self, body: str) -> dict:
        lines = [json.loads(line) for line in body.strip().split("\n")]
        items = []
        while lines:
            action = lines.pop(0)
            op, meta = next(iter(action.items()))
            if op == "index":
                source = lines.pop(0)
                if "_id" in meta:
                    items.append({op: {"status": 400, "error": {
                        "type": "illegal_argument_exception",
                        "reason": "Document ID is not supported in create/index operation request",
                    }}})
                    continue
                doc_id = "1%3A0%3A" + uuid.uuid4().hex[:20]
                self.docs[doc_id] = source
                items.append({op: {"_index": meta["_index"], "_id": doc_id, "_version": 1,
                                   "result": "created", "status": 201}})
            elif op == "delete":
                found = self.docs.pop(meta["_id"], None)
                items.append({op: {"_index": meta["_index"], "_id": meta["_id"],
                                   "result": "deleted" if found else "not_found",
                                   "status": 200 if found else 404}})
        errors = any(next(iter(i.values()))["status"] >= 300 for i in items)
        return {"took": 3, "errors": errors, "items": items}

    def _search(self, index: str, body: dict) -> tuple[int, dict]:
        if index not in self.indices:
            return 404, {"error": {"type": "index_not_found_exception"}, "status": 404}
        query = body["query"]
        if "knn" in query:
            clause = query["knn"]["embedding"]
            user = clause["filter"]["term"]["user_id"]
            scored = []
            for doc_id, doc in self.docs.items():
                if doc["user_id"] != user:
                    continue
                distance = sum((a - b) ** 2 for a, b in zip(doc["embedding"], clause["vector"], strict=True))
                scored.append((1 / (1 + distance), doc_id, doc))
            scored.sort(key=lambda item: -item[0])
            includes = body["_source"]["includes"]
            hits = [
                {"_index": index, "_id": doc_id, "_score": score,
                 "_source": {k: v for k, v in doc.items() if k in includes}}
                for score, doc_id, doc in scored[: clause["k"]]
            ]
        elif "bool" in query:  # which of these ids are the user's
            term, ids = query["bool"]["filter"]
            user, wanted = term["term"]["user_id"], set(ids["ids"]["values"])
            hits = [{"_index": index, "_id": doc_id, "_score": 0.0, "_source": {"user_id": doc["user_id"]}}
                    for doc_id, doc in self.docs.items() if doc_id in wanted and doc["user_id"] == user]
        else:
            user = query["term"]["user_id"]
            ordered = sorted(
                (_millis(d["at"]), d["doc_key"], doc_id)
                for doc_id, d in self.docs.items()
                if d["user_id"] == user
            )
            after = tuple(body.get("search_after") or ())
            ordered = [o for o in ordered if not after or o[:2] > after][: body["size"]]
            hits = [{"_index": index, "_id": doc_id, "_score": None, "sort": [millis, key]}
                    for millis, key, doc_id in ordered]
        return 200, {"took": 2, "timed_out": False, "hits": {"total": {"value": len(hits), "relation": "eq"},
                                                              "max_score": None, "hits": hits}}


def _millis(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


class FakeConnection(Connection):
    def __init__(self, collection: FakeCollection, **kwargs) -> None:
        super().__init__(**kwargs)
        self.collection = collection

    def perform_request(self, method, url, params=None, body=None, timeout=None, ignore=(), headers=None):
        text = body.decode("utf-8") if isinstance(body, bytes) else body
        parsed = json.loads(text) if text and not url.split("?")[0].endswith("/_bulk") else text
        status, payload = self.collection.handle(method, url, params, parsed)
        raw = payload if isinstance(payload, str) else json.dumps(payload)
        if not 200 <= status < 300 and status not in ignore:
            self._raise_error(status, raw, "application/json")
        return status, {"content-type": "application/json"}, raw


@pytest.fixture
def collection() -> FakeCollection:
    return FakeCollection()


@pytest.fixture
def store(collection) -> OpenSearchVectorIndex:
    client = OpenSearch(
        hosts=[{"host": "abc.eu-west-1.aoss.amazonaws.com", "port": 443}],
        connection_class=FakeConnection,
        collection=collection,
    )
    settings = Settings(
        LTM_VECTOR_ENDPOINT="https://abc.eu-west-1.aoss.amazonaws.com", LTM_VECTOR_INDEX="episodes"
    )
    return OpenSearchVectorIndex(settings, dimensions=DIMS, client=client)


def episode(n: int, *, minutes: int = 0) -> Episode:
    return Episode(
        id=f"ep{n}",
        session_id="s1",
        fragment_id=f"f{n}",
        text=f"episode {n}",
        sections=[Section.SYMPTOMS],
        at=T0 + timedelta(minutes=minutes or n),
    )


def calls(collection: FakeCollection, suffix: str, method: str = "POST") -> list:
    return [r for r in collection.requests if r[0] == method and r[1].split("?")[0].endswith(suffix)]


# ------------------------------------------------------------------------------ mapping
def test_ensure_index_creates_the_knn_mapping_once(store, collection):
    store.ensure_index()
    store.ensure_index()

    [(_, url, _, body)] = [r for r in collection.requests if r[0] == "PUT"]
    assert url == "/episodes"
    assert body == index_body(DIMS)
    assert body["settings"] == {"index": {"knn": True}}
    vector = body["mappings"]["properties"]["embedding"]
    assert vector == {
        "type": "knn_vector",
        "dimension": DIMS,
        "method": {"name": "hnsw", "engine": "faiss", "space_type": "l2",
                   "parameters": {"ef_construction": 128, "m": 16}},
    }
    props = body["mappings"]["properties"]
    for keyword in ("user_id", "episode_id", "session_id", "fragment_id", "sections", "doc_key"):
        assert props[keyword] == {"type": "keyword"}
    assert props["at"] == {"type": "date"}


def test_ensure_index_tolerates_a_concurrent_creator(store, collection):
    collection.indices["episodes"] = {}
    original = collection.handle

    def racing(method, url, params, body):  # HEAD says missing, PUT finds it created meanwhile
        if method == "HEAD":
            collection.requests.append((method, url, params, body))
            return 404, ""
        return original(method, url, params, body)

    collection.handle = racing
    store.ensure_index()  # the PUT's "already exists" is not an error

    assert [(method, url) for method, url, _, _ in collection.requests] == [
        ("HEAD", "/episodes"),
        ("PUT", "/episodes"),
    ]
    assert collection.indices["episodes"] == {}  # the other creator's index is left as it was
    store.ensure_index()
    assert len(collection.requests) == 2  # and the index counts as ready: no more round trips


# ------------------------------------------------------------------------------ index
def test_index_sends_no_document_id_and_returns_the_generated_one_sealed(store, collection):
    ref = store.index("u1", episode(1), [3.0, 0.0, 4.0, 0.0])

    [(_, _, params, body)] = calls(collection, "/_bulk")
    action, source = [json.loads(line) for line in body.strip().split("\n")]
    assert action == {"index": {"_index": "episodes"}}  # no "_id": the collection makes it
    assert "refresh" not in params
    doc_id = osi.owned_doc_id("u1", ref)
    assert doc_id is not None and doc_id.startswith("1%3A0%3A") and doc_id in collection.docs
    assert ref == osi.document_ref("u1", doc_id) and "u1" not in ref.removeprefix(doc_id)
    assert osi.owned_doc_id("u2", ref) is None  # the seal is the user's
    assert source["user_id"] == "u1" and source["episode_id"] == "ep1"
    assert source["sections"] == ["symptoms"] and source["at"] == episode(1).at.isoformat()
    assert source["embedding"] == pytest.approx([0.6, 0.0, 0.8, 0.0])  # stored unit-length
    assert len(source["doc_key"]) == 32


def test_index_refuses_a_vector_of_the_wrong_size(store, collection):
    with pytest.raises(ValueError):
        store.index("u1", episode(1), [1.0, 2.0])
    assert collection.requests == []


def test_a_refused_document_is_a_typed_error_without_content(store, collection):
    error = {"type": "mapper_parsing_exception", "reason": "failed to parse [text]: episode 1"}
    collection.override["/_bulk"] = {"errors": True, "items": [{"index": {"status": 400, "error": error}}]}
    with pytest.raises(VectorIndexError) as caught:
        store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    assert "episode 1" not in str(caught.value) and "mapper_parsing_exception" in str(caught.value)


# ------------------------------------------------------------------------------ search
def test_search_filters_by_user_inside_the_knn_clause(store, collection):
    store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    store.index("u1", episode(2), [0.0, 1.0, 0.0, 0.0])
    store.index("u2", episode(3), [1.0, 0.0, 0.0, 0.0])

    hits = store.search("u1", [1.0, 0.1, 0.0, 0.0], k=5)

    [(_, url, _, body)] = calls(collection, "/_search")
    assert url == "/episodes/_search"
    query_vector = body["query"]["knn"]["embedding"]["vector"]
    assert body == {
        "size": 5,
        "_source": {"includes": ["user_id", "episode_id", "text", "at"]},
        "query": {"knn": {"embedding": {"vector": query_vector, "k": 5,
                                        "filter": {"term": {"user_id": "u1"}}}}},
    }
    assert math.isclose(sum(x * x for x in query_vector), 1.0)
    assert [h.episode_id for h in hits] == ["ep1", "ep2"]
    assert hits[0].score == pytest.approx(1 / math.sqrt(1.01), abs=1e-5)  # cosine, from the l2 score
    assert hits[0].at == episode(1).at and hits[0].text == "episode 1"


def test_a_hit_of_another_user_in_a_response_is_dropped(store, collection):
    collection.indices["episodes"] = {}
    collection.override["/_search"] = {
        "took": 4, "timed_out": False,
        "hits": {"total": {"value": 3, "relation": "eq"}, "max_score": 0.95, "hits": [
            {"_index": "episodes", "_id": "1%3A0%3Aa", "_score": 0.95,
             "_source": {"user_id": "intruder", "episode_id": "x", "text": "secret", "at": T0.isoformat()}},
            {"_index": "episodes", "_id": "1%3A0%3Ab", "_score": 0.8,
             "_source": {"user_id": "u1", "episode_id": "ep1", "text": "mine", "at": T0.isoformat()}},
            {"_index": "episodes", "_id": "1%3A0%3Ac", "_score": 0.5,
             "_source": {"user_id": "u1", "episode_id": "ep1", "text": "mine", "at": T0.isoformat()}},
        ]},
    }
    hits = store.search("u1", [1.0, 0.0, 0.0, 0.0], k=3)
    assert [(h.episode_id, h.text) for h in hits] == [("ep1", "mine")]  # foreign dropped, duplicate folded
    assert hits[0].score == pytest.approx(cosine_from_l2_score(0.8))


def test_search_before_any_index_exists_finds_nothing(store):
    assert store.search("u1", [1.0, 0.0, 0.0, 0.0], k=3) == []
    assert store.count_user("u1") == 0
    assert store.delete_user("u1") == 0


def test_cosine_from_l2_score_matches_cosine_for_unit_vectors():
    for cos in (1.0, 0.5, 0.0, -0.5, -1.0):
        distance = 2 - 2 * cos  # squared l2 between unit vectors
        assert cosine_from_l2_score(1 / (1 + distance)) == pytest.approx(cos)


# ------------------------------------------------------------------------------ erasure
def test_delete_user_pages_ids_and_bulk_deletes_only_that_user(store, collection, monkeypatch):
    monkeypatch.setattr(osi, "PAGE_SIZE", 2)
    for n in range(5):
        store.index("u1", episode(n, minutes=1), [1.0, 0.0, 0.0, float(n)])  # same "at": doc_key breaks ties
    store.index("u2", episode(9), [1.0, 0.0, 0.0, 0.0])

    deleted = store.delete_user("u1")

    assert deleted == 5
    assert store.count_user("u1") == 0 and store.count_user("u2") == 1
    searches = [r for r in calls(collection, "/_search")]
    assert [r[3].get("search_after") is None for r in searches] == [True, False, False]
    first = searches[0][3]
    assert first["query"] == {"term": {"user_id": "u1"}} and first["_source"] is False
    assert first["sort"] == [{"at": "asc"}, {"doc_key": "asc"}]
    delete_bulk = calls(collection, "/_bulk")[-1][3]
    actions = [json.loads(line) for line in delete_bulk.strip().split("\n")]
    assert all(set(a) == {"delete"} and a["delete"]["_index"] == "episodes" for a in actions)
    assert not calls(collection, "/_delete_by_query")
    assert not any("refresh" in r[2] for r in collection.requests)


def test_count_user_counts_with_a_user_term(store, collection):
    store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    assert store.count_user("u1") == 1
    [(_, url, _, body)] = calls(collection, "/_count")
    assert url == "/episodes/_count" and body == {"query": {"term": {"user_id": "u1"}}}


def test_building_the_adapter_touches_nothing():
    import subprocess
    import sys

    code = (
        "import sys; from health_ltm.adapters.opensearch_index import OpenSearchVectorIndex;"
        "from health_ltm.settings import Settings;"
        "OpenSearchVectorIndex(Settings(LTM_VECTOR_ENDPOINT='https://x.aoss.amazonaws.com'), dimensions=8);"
        "print('opensearchpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_real_client_is_signed_for_aoss_over_tls(monkeypatch):
    from opensearchpy import RequestsHttpConnection

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    settings = Settings(LTM_VECTOR_ENDPOINT="https://abc123.eu-west-1.aoss.amazonaws.com")

    client = OpenSearchVectorIndex(settings, dimensions=DIMS).client  # builds, connects nowhere

    [connection] = client.transport.connection_pool.connections
    assert isinstance(connection, RequestsHttpConnection)
    assert connection.host == "https://abc123.eu-west-1.aoss.amazonaws.com:443"
    assert connection.session.verify  # certificates checked (True or a CA bundle path)
    signer = connection.session.auth.signer
    assert (signer.service, signer.region) == ("aoss", "eu-west-1")


# ------------------------------------------------------------------------------ archival deletes
def test_delete_documents_deletes_sealed_references_by_id_without_a_search(store, collection):
    mine = store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    kept = store.index("u1", episode(2), [0.0, 1.0, 0.0, 0.0])
    collection.requests.clear()

    assert store.delete_documents("u1", [mine, mine]) == 1

    assert not calls(collection, "/_search")  # the seal proves ownership
    [(_, _, params, body)] = calls(collection, "/_bulk")
    assert [json.loads(line) for line in body.strip().split("\n")] == [
        {"delete": {"_index": "episodes", "_id": osi.owned_doc_id("u1", mine)}}
    ]
    assert "refresh" not in params and not calls(collection, "/_delete_by_query")
    assert osi.owned_doc_id("u1", kept) in collection.docs


def test_delete_documents_confirms_an_unsealed_id_with_a_user_query(store, collection):
    mine = osi.owned_doc_id("u1", store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0]))
    theirs = osi.owned_doc_id("u2", store.index("u2", episode(3), [1.0, 0.0, 0.0, 0.0]))
    collection.requests.clear()

    assert store.delete_documents("u1", [mine, theirs, mine]) == 1  # bare ids: rows before seals

    [(_, url, _, query)] = calls(collection, "/_search")
    assert url == "/episodes/_search"
    assert query == {
        "size": 2,
        "_source": {"includes": ["user_id"]},
        "query": {"bool": {"filter": [{"term": {"user_id": "u1"}}, {"ids": {"values": [mine, theirs]}}]}},
    }
    [(_, _, _, body)] = calls(collection, "/_bulk")
    assert [json.loads(line) for line in body.strip().split("\n")] == [
        {"delete": {"_index": "episodes", "_id": mine}}
    ]
    assert theirs in collection.docs  # another user's id is never deleted


def test_delete_documents_drops_an_id_the_store_says_is_someone_elses(store, collection):
    theirs = osi.owned_doc_id("u2", store.index("u2", episode(3), [1.0, 0.0, 0.0, 0.0]))
    collection.override["/_search"] = {"hits": {"hits": [  # a store that ignored the user filter
        {"_index": "episodes", "_id": theirs, "_score": 0.0, "_source": {"user_id": "u2"}},
    ]}}
    collection.requests.clear()
    assert store.delete_documents("u1", [theirs]) == 0
    assert theirs in collection.docs and not calls(collection, "/_bulk")


def test_delete_documents_of_a_gone_document_or_before_any_index_is_no_error(store, collection):
    assert store.delete_documents("u1", ["1%3A0%3Anothing"]) == 0  # no index yet
    doc_id = store.index("u1", episode(1), [1.0, 0.0, 0.0, 0.0])
    assert store.delete_documents("u1", [doc_id]) == 1
    assert store.delete_documents("u1", [doc_id]) == 0
    assert store.delete_documents("u1", []) == 0
