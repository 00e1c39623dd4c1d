"""Episode vectors in an OpenSearch Serverless VECTORSEARCH collection.

What such a collection does not do, and how this adapter lives with it:
- no custom document ids on index (nor upserts): documents are indexed without ``_id`` and the
  collection makes the id; a re-indexed episode is a second document, so search keeps the best
  hit per ``episode_id``. ``index`` returns a *reference*, ``<generated id>.<seal>``, the seal a
  keyed hash of the id under the user's id: the episode row keeps it, and ``delete_documents``
  proves ownership by recomputing the seal, with no search (a search misses a document indexed
  within the refresh interval). A reference without a valid seal (rows written before seals, a
  mix-up, a forgery) is only deleted if a user_id query confirms it as the caller's;
- no ``_refresh``, no scroll and (per AWS and client issue reports) no ``_delete_by_query``:
  the user sweep pages through the user's ids with ``search_after`` and deletes them with
  ``_bulk``. Writes (and deletes) become searchable after the collection's refresh interval, so
  the sweep misses fresh documents: erasure deletes by the rows' references first, and a sweep
  also takes the ids this process indexed lately. A count right after cannot be trusted
  (``settled_count`` says so); against a managed OpenSearch domain the index is refreshed first;
- faiss HNSW with ``l2`` is the space every serverless generation accepts; vectors are stored
  unit-length, so the l2 ranking is the cosine ranking, and scores are turned back into
  cosine for the read path.

Every query carries the user id as a filter *inside* the k-NN clause (efficient filtering: the
k nearest among the user's own vectors, not k from everyone then filtered), and a hit of any
other user in a response is dropped anyway. ``opensearch-py`` and ``boto3`` are imported only
when a client is first needed.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from aws_lambda_powertools.metrics import MetricUnit

from ..domain.models import Episode
from ..observability import logger, metrics
from ..ports import EpisodeHit, VectorCount
from ..settings import Settings, get_settings
from .local_vector_index import unit

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

VECTOR_FIELD = "embedding"
PAGE_SIZE = 500
WRITE_TIMEOUT_S = 10.0
# Ids indexed by this process stay known this long: longer than a collection takes to make a
# write searchable (service-managed, seconds), so a sweep right after indexing still finds them.
RECENT_WINDOW_S = 120.0
RECENT_MAX = 10_000
SEAL_CHARS = 32  # 128 bits of HMAC-SHA256, hex


class VectorIndexError(Exception):
    """The vector store refused or failed an operation (status and reason only, no content)."""


def index_body(dimensions: int) -> dict:
    """Settings and mapping of the episodes index."""
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "properties": {
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimensions,
                    "method": {
                        "name": "hnsw",
                        "engine": "faiss",
                        "space_type": "l2",
                        "parameters": {"ef_construction": 128, "m": 16},
                    },
                },
                "user_id": {"type": "keyword"},
                "episode_id": {"type": "keyword"},
                "session_id": {"type": "keyword"},
                "fragment_id": {"type": "keyword"},
                "sections": {"type": "keyword"},
                "text": {"type": "text", "index": False},  # returned, never searched
                "at": {"type": "date"},
                "doc_key": {"type": "keyword"},  # unique tie-breaker for paging (ids can't be set)
            }
        },
    }


def knn_query(user_id: str, vector: list[float], k: int) -> dict:
    """The k nearest of the user's own vectors: the filter sits inside the k-NN clause."""
    return {
        "size": k,
        "_source": {"includes": ["user_id", "episode_id", "text", "at"]},
        "query": {
            "knn": {
                VECTOR_FIELD: {"vector": vector, "k": k, "filter": {"term": {"user_id": user_id}}},
            }
        },
    }


def user_ids_query(user_id: str, after: list | None) -> dict:
    body: dict[str, Any] = {
        "size": PAGE_SIZE,
        "_source": False,
        "query": {"term": {"user_id": user_id}},
        "sort": [{"at": "asc"}, {"doc_key": "asc"}],
    }
    if after is not None:
        body["search_after"] = after
    return body


def owned_ids_query(user_id: str, doc_ids: list[str]) -> dict:
    """Which of these ids are the user's documents (both conditions as filters: no scoring)."""
    return {
        "size": len(doc_ids),
        "_source": {"includes": ["user_id"]},
        "query": {"bool": {"filter": [{"term": {"user_id": user_id}}, {"ids": {"values": doc_ids}}]}},
    }


def _seal(user_id: str, doc_id: str) -> str:
    mac = hmac.new(user_id.encode("utf-8"), b"episode-vector\x00" + doc_id.encode("utf-8"), hashlib.sha256)
    return mac.hexdigest()[:SEAL_CHARS]


def document_ref(user_id: str, doc_id: str) -> str:
    """The reference an episode row keeps: the generated id and its seal (no user id, no text)."""
    return f"{doc_id}.{_seal(user_id, doc_id)}"


def owned_doc_id(user_id: str, ref: str) -> str | None:
    """The document id of a reference sealed for this user; None for any other reference."""
    doc_id, dot, seal = ref.rpartition(".")
    if not dot or not doc_id or len(seal) != SEAL_CHARS:
        return None
    return doc_id if hmac.compare_digest(seal, _seal(user_id, doc_id)) else None


def is_serverless_host(endpoint: str) -> bool:
    host = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}").hostname or ""
    # <collection>.<region>.aoss.amazonaws.com, and <collection>.aoss.<region>.on.aws
    return ".aoss." in f".{host}"


def cosine_from_l2_score(score: float) -> float:
    """faiss l2 score is 1 / (1 + d) with d the squared distance; for unit vectors d = 2 - 2 cos."""
    if score <= 0:
        return -1.0
    distance = 1.0 / score - 1.0
    return max(-1.0, min(1.0, 1.0 - distance / 2.0))


class OpenSearchVectorIndex:
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        dimensions: int,
        client: OpenSearch | None = None,
        region: str | None = None,
        refreshable: bool | None = None,
    ) -> None:
        self._settings = settings or get_settings()
        self.index_name = self._settings.vector_index
        self.dimensions = dimensions
        self._client = client
        self._region = region
        self._ready = False
        self.serverless = is_serverless_host(self._settings.vector_endpoint)
        # A managed OpenSearch domain has POST <index>/_refresh; a serverless collection has not.
        self.refreshable = not self.serverless if refreshable is None else refreshable
        self._recent: OrderedDict[tuple[str, str], float] = OrderedDict()  # (user, id) -> indexed at
        self._recent_lock = threading.Lock()

    # ------------------------------------------------------------------ client
    @property
    def client(self) -> OpenSearch:
        if self._client is None:
            self._client = self._connect()
        return self._client

    def _connect(self) -> OpenSearch:
        import boto3
        from opensearchpy import AWSV4SignerAuth, OpenSearch, RequestsHttpConnection

        session = boto3.Session()
        endpoint = self._settings.vector_endpoint
        host = urlparse(endpoint if "://" in endpoint else f"https://{endpoint}").hostname or ""
        # <collection-id>.<region>.aoss.amazonaws.com names its region when the session has none.
        parts = host.split(".")
        region = self._region or session.region_name or (parts[1] if len(parts) > 2 else None)
        service = "aoss" if self.serverless else "es"  # a managed domain signs as "es"
        return OpenSearch(
            hosts=[{"host": host, "port": 443}],
            http_auth=AWSV4SignerAuth(session.get_credentials(), region, service),
            use_ssl=True,
            verify_certs=True,
            connection_class=RequestsHttpConnection,
            timeout=WRITE_TIMEOUT_S,
            pool_maxsize=10,
        )

    # ------------------------------------------------------------------ index
    def ensure_index(self) -> None:
        """Create the index with its k-NN mapping unless it exists (safe to call concurrently)."""
        from opensearchpy.exceptions import RequestError

        if self._ready:
            return
        if not self.client.indices.exists(index=self.index_name):
            try:
                self.client.indices.create(index=self.index_name, body=index_body(self.dimensions))
            except RequestError as error:
                if error.error != "resource_already_exists_exception":
                    reason = f"{error.status_code} {error.error}"
                    raise VectorIndexError(f"create index failed: {reason}") from None
        self._ready = True

    def index(self, user_id: str, episode: Episode, vector: list[float]) -> str:
        self._check(vector)
        self.ensure_index()
        document = {
            "user_id": user_id,
            "episode_id": episode.id,
            "session_id": episode.session_id,
            "fragment_id": episode.fragment_id,
            "sections": [s.value for s in episode.sections],
            "text": episode.text,
            "at": episode.at.isoformat(),
            "doc_key": uuid.uuid4().hex,
            VECTOR_FIELD: list(unit(vector)),
        }
        # No "_id": a VECTORSEARCH collection makes the id and refuses one chosen by the caller.
        [(ok, item)] = list(self._bulk([{"_index": self.index_name, "_source": document}]))
        result = item.get("index", {})
        if not ok or "_id" not in result:
            raise VectorIndexError(f"index failed: {result.get('status')} {_error_type(result)}")
        self._remember(user_id, result["_id"])
        return document_ref(user_id, result["_id"])

    def search(
        self, user_id: str, vector: list[float], k: int, *, text: str | None = None
    ) -> list[EpisodeHit]:
        # ``text`` is not used here: in AWS the vectors come from the OpenAI embedder, which
        # carries the lexical signal the local hashing embedder lacks.
        from opensearchpy.exceptions import NotFoundError

        if k <= 0:
            return []
        self._check(vector)
        try:
            response = self.client.search(
                index=self.index_name,
                body=knn_query(user_id, list(unit(vector)), k),
                request_timeout=self._settings.episode_timeout_s,
            )
        except NotFoundError:
            return []  # no index yet: nobody has episodes
        return parse_hits(user_id, response, k)

    def delete_user(self, user_id: str) -> int:
        """The sweep: every id a user_id query finds, and the ids this process indexed for the
        user lately (a search does not see them yet)."""
        ids = list(dict.fromkeys([*self._user_doc_ids(user_id), *self._recent_ids(user_id)]))
        deleted = self._bulk_delete(ids)
        self._forget(user_id, ids)
        return deleted

    def delete_documents(self, user_id: str, doc_ids: Sequence[str]) -> int:
        """Bulk delete by id. A reference sealed for this user is proof of ownership (no search,
        so a document indexed a moment ago is found); any other reference is deleted only if a
        user_id term query confirms it as this user's: a wrong id from a row (a bug, a mix-up, a
        forgery) must never delete another tenant's vector."""
        wanted = list(dict.fromkeys(doc_ids))
        owned: list[str] = []
        unproven: list[str] = []
        for ref in wanted:
            doc_id = owned_doc_id(user_id, ref)
            if doc_id is not None:
                owned.append(doc_id)
            else:
                unproven.append(ref)
        owned += self._owned_by_search(user_id, unproven)
        refused = len(wanted) - len(owned)
        if refused:  # not the user's, or already gone: either way not deleted here
            metrics.add_metric(name="VectorDeleteSkipped", unit=MetricUnit.Count, value=refused)
        deleted = self._bulk_delete(owned)
        self._forget(user_id, owned)
        return deleted

    def count_user(self, user_id: str) -> int:
        """The user's documents as search sees them now: a write of the last refresh interval
        may be missing, a delete of it still counted."""
        from opensearchpy.exceptions import NotFoundError

        try:
            response = self.client.count(
                index=self.index_name, body={"query": {"term": {"user_id": user_id}}}
            )
        except NotFoundError:
            return 0
        return int(response.get("count", 0))

    def settled_count(self, user_id: str) -> VectorCount:
        """Refresh, then count, where the store has a refresh; otherwise the count as it is,
        marked unsettled (a serverless collection refreshes on its own schedule only)."""
        from opensearchpy.exceptions import TransportError

        settled = False
        if self.refreshable:
            try:
                self.client.indices.refresh(index=self.index_name)
                settled = True
            except TransportError as error:  # refused or missing: the count stays unsettled
                logger.warning("vector index refresh failed", extra={"status": str(error.status_code)})
        return VectorCount(count=self.count_user(user_id), settled=settled)

    # ------------------------------------------------------------------ helpers
    def _check(self, vector: list[float]) -> None:
        if len(vector) != self.dimensions:
            raise ValueError(f"expected {self.dimensions} dimensions, got {len(vector)}")

    def _bulk(self, actions: Iterable[dict], **kwargs: Any) -> Iterator[tuple[bool, dict]]:
        from opensearchpy import helpers

        # No refresh parameter: serverless collections refuse it.
        yield from helpers.streaming_bulk(
            self.client, actions, chunk_size=PAGE_SIZE, raise_on_error=False, **kwargs
        )

    def _bulk_delete(self, ids: list[str]) -> int:
        """Delete by id; a 404 (already gone) is fine, any other failure raises."""
        if not ids:
            return 0
        actions = ({"_op_type": "delete", "_index": self.index_name, "_id": doc_id} for doc_id in ids)
        deleted = failed = 0
        for ok, item in self._bulk(actions, ignore_status=(404,)):
            result = item.get("delete", {})
            if ok and result.get("result") == "deleted":
                deleted += 1
            elif result.get("status") != 404:
                failed += 1
        if failed:
            raise VectorIndexError(f"delete failed for {failed} of {len(ids)} documents")
        return deleted

    def _owned_by_search(self, user_id: str, refs: list[str]) -> list[str]:
        """Which of these ids a user_id term query confirms as the user's (checked again here)."""
        from opensearchpy.exceptions import NotFoundError

        owned: list[str] = []
        for start in range(0, len(refs), PAGE_SIZE):
            try:
                response = self.client.search(
                    index=self.index_name, body=owned_ids_query(user_id, refs[start : start + PAGE_SIZE])
                )
            except NotFoundError:
                return owned
            for hit in response.get("hits", {}).get("hits", []):
                if (hit.get("_source") or {}).get("user_id") == user_id:
                    owned.append(hit["_id"])
        return owned

    def _remember(self, user_id: str, doc_id: str) -> None:
        now = time.monotonic()
        with self._recent_lock:
            self._recent[(user_id, doc_id)] = now
            while self._recent:
                _, indexed_at = next(iter(self._recent.items()))
                if indexed_at >= now - RECENT_WINDOW_S and len(self._recent) <= RECENT_MAX:
                    break
                self._recent.popitem(last=False)

    def _recent_ids(self, user_id: str) -> list[str]:
        cutoff = time.monotonic() - RECENT_WINDOW_S
        with self._recent_lock:
            return [doc for (user, doc), at in self._recent.items() if user == user_id and at >= cutoff]

    def _forget(self, user_id: str, doc_ids: Iterable[str]) -> None:
        with self._recent_lock:
            for doc_id in doc_ids:
                self._recent.pop((user_id, doc_id), None)

    def _user_doc_ids(self, user_id: str) -> Iterator[str]:
        """Every document id of the user, paged with search_after (no scroll on serverless)."""
        from opensearchpy.exceptions import NotFoundError

        after: list | None = None
        while True:
            try:
                response = self.client.search(index=self.index_name, body=user_ids_query(user_id, after))
            except NotFoundError:
                return
            hits = response.get("hits", {}).get("hits", [])
            for hit in hits:
                yield hit["_id"]
            if len(hits) < PAGE_SIZE:
                return
            after = hits[-1]["sort"]


def parse_hits(user_id: str, response: dict, k: int) -> list[EpisodeHit]:
    """Hits of this user only, best first, one per episode."""
    best: dict[str, EpisodeHit] = {}
    foreign = 0
    for hit in response.get("hits", {}).get("hits", []):
        source = hit.get("_source") or {}
        if source.get("user_id") != user_id:
            foreign += 1
            continue
        episode_id = source["episode_id"]
        score = cosine_from_l2_score(float(hit.get("_score") or 0.0))
        if episode_id in best and best[episode_id].score >= score:
            continue
        best[episode_id] = EpisodeHit(
            episode_id=episode_id,
            text=source.get("text", ""),
            at=datetime.fromisoformat(source["at"]),
            score=round(score, 6),
        )
    if foreign:
        metrics.add_metric(name="VectorForeignHitDropped", unit=MetricUnit.Count, value=foreign)
        logger.error("vector search returned another user's documents", extra={"count": foreign})
    return sorted(best.values(), key=lambda h: (-h.score, h.episode_id))[:k]


def _error_type(result: dict) -> str:
    error = result.get("error")
    return error.get("type", "") if isinstance(error, dict) else ""
