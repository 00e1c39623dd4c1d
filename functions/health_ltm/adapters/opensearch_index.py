"""Episode vectors in an OpenSearch Serverless VECTORSEARCH collection.

What such a collection does not do, and how this adapter lives with it:
- no custom document ids on index (nor upserts): documents are indexed without ``_id`` and the
  generated id is returned to the caller; a re-indexed episode is a second document, so search
  keeps the best hit per ``episode_id``;
- no ``_refresh``, no scroll and (per AWS and client issue reports) no ``_delete_by_query``:
  erasure pages through the user's ids with ``search_after`` and deletes them with ``_bulk``.
  Writes become visible after the collection's refresh interval, so an erasure is verified
  (``count_user``) a little later, not in the same breath;
- faiss HNSW with ``l2`` is the space every serverless generation accepts; vectors are stored
  unit-length, so the l2 ranking is the cosine ranking, and scores are turned back into
  cosine for the read path.

Every query carries the user id as a filter *inside* the k-NN clause (efficient filtering: the
k nearest among the user's own vectors, not k from everyone then filtered), and a hit of any
other user in a response is dropped anyway. ``opensearch-py`` and ``boto3`` are imported only
when a client is first needed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from aws_lambda_powertools.metrics import MetricUnit

from ..domain.models import Episode
from ..observability import logger, metrics
from ..ports import EpisodeHit
from ..settings import Settings, get_settings
from .local_vector_index import unit

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

VECTOR_FIELD = "embedding"
PAGE_SIZE = 500
WRITE_TIMEOUT_S = 10.0


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
    ) -> None:
        self._settings = settings or get_settings()
        self.index_name = self._settings.vector_index
        self.dimensions = dimensions
        self._client = client
        self._region = region
        self._ready = False

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
        return OpenSearch(
            hosts=[{"host": host, "port": 443}],
            http_auth=AWSV4SignerAuth(session.get_credentials(), region, "aoss"),
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
        return result["_id"]

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
        return self._bulk_delete(list(self._user_doc_ids(user_id)))

    def delete_documents(self, user_id: str, doc_ids: Sequence[str]) -> int:
        """Bulk delete by id, but only ids a user_id term query confirms as this user's: a wrong
        id from a row (a bug, a mix-up) must never delete another tenant's vector."""
        from opensearchpy.exceptions import NotFoundError

        wanted = list(dict.fromkeys(doc_ids))
        owned: list[str] = []
        for start in range(0, len(wanted), PAGE_SIZE):
            try:
                response = self.client.search(
                    index=self.index_name, body=owned_ids_query(user_id, wanted[start : start + PAGE_SIZE])
                )
            except NotFoundError:
                return 0
            for hit in response.get("hits", {}).get("hits", []):
                if (hit.get("_source") or {}).get("user_id") == user_id:  # and check it ourselves
                    owned.append(hit["_id"])
        refused = len(wanted) - len(owned)
        if refused:  # not the user's, or already gone: either way not deleted here
            metrics.add_metric(name="VectorDeleteSkipped", unit=MetricUnit.Count, value=refused)
        return self._bulk_delete(owned)

    def count_user(self, user_id: str) -> int:
        from opensearchpy.exceptions import NotFoundError

        try:
            response = self.client.count(
                index=self.index_name, body={"query": {"term": {"user_id": user_id}}}
            )
        except NotFoundError:
            return 0
        return int(response.get("count", 0))

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
