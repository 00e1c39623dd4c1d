"""An in-process vector index standing in for OpenSearch Serverless when running locally.

Brute-force cosine over one user's vectors (a user holds hundreds of episodes, not millions).
Given the query's text too (``search(..., text=query)``), the ranking is hybrid: the cosine
fused with a BM25 score over the words of the user's own episodes (kept in memory per user,
built from the stored texts, so the file format is unchanged). Lexical evidence matters for
episodic recall: names, places and rare words are what a hashed vector blurs. On LoCoMo
(docs/eval/) the fusion beats both the vector alone and a plain BM25 over the same turns.
Like a VECTORSEARCH collection it makes the document ids itself (never the caller's) and scopes
every call by user id: documents are held per user, so another user's id matches nothing, and a
write is countable at once (``settled_count`` is always settled). With a directory it persists
one append-only JSON-lines file per user (named by a hash of the user id, so no id reaches the
file system), so ``ltm run`` survives restarts; a torn last line from a crash is dropped and the
file compacted atomically. Several processes may share the directory: a file changed by another
process is re-read.
"""

from __future__ import annotations

import hashlib
import json
import math
import operator
import os
import tempfile
import threading
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..domain.hashing_embedder import lexical_terms
from ..domain.models import Episode
from ..ports import EpisodeHit, VectorCount

try:  # advisory lock against another local process appending to the same file
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class _Doc:
    doc_id: str
    user_id: str
    episode_id: str
    session_id: str
    fragment_id: str
    sections: tuple[str, ...]
    text: str
    at: datetime
    vector: tuple[float, ...]  # unit length

    def record(self) -> dict:
        return {
            "id": self.doc_id,
            "user_id": self.user_id,
            "episode_id": self.episode_id,
            "session_id": self.session_id,
            "fragment_id": self.fragment_id,
            "sections": list(self.sections),
            "text": self.text,
            "at": self.at.isoformat(),
            "vector": list(self.vector),
        }

    @classmethod
    def from_record(cls, raw: dict) -> _Doc:
        return cls(
            doc_id=raw["id"],
            user_id=raw["user_id"],
            episode_id=raw["episode_id"],
            session_id=raw.get("session_id", ""),
            fragment_id=raw.get("fragment_id", ""),
            sections=tuple(raw.get("sections", ())),
            text=raw["text"],
            at=datetime.fromisoformat(raw["at"]),
            vector=tuple(float(x) for x in raw["vector"]),
        )


# Hybrid ranking: score = (1 - LEXICAL_WEIGHT) * cosine + LEXICAL_WEIGHT * bm25 / best bm25.
# Equal weights, set a priori and not tuned per data set; BM25 with the usual k1 and b.
LEXICAL_WEIGHT = 0.5
BM25_K1 = 1.2
BM25_B = 0.75


@dataclass
class _Lexicon:
    """BM25 statistics of one user's documents, position by position in the user's list."""

    seen: list[_Doc] = field(default_factory=list)  # the documents counted, in list order
    postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    total: int = 0

    @property
    def size(self) -> int:
        return len(self.seen)

    def current_for(self, docs: Sequence[_Doc]) -> bool:
        """Still a prefix of ``docs`` (appends are added later; any other change means a rebuild)."""
        return len(docs) >= len(self.seen) and all(a is b for a, b in zip(self.seen, docs, strict=False))

    def extend(self, docs: Sequence[_Doc]) -> None:
        for position in range(len(self.seen), len(docs)):
            counts = Counter(lexical_terms(docs[position].text))
            for term, tf in counts.items():
                self.postings.setdefault(term, []).append((position, tf))
            length = sum(counts.values())
            self.lengths.append(length)
            self.total += length
            self.seen.append(docs[position])

    def scores(self, terms: Sequence[str]) -> dict[int, float]:
        n = self.size
        if not n or not terms:
            return {}
        average = self.total / n or 1.0
        out: dict[int, float] = {}
        for term in set(terms):
            postings = self.postings.get(term)
            if not postings:
                continue
            idf = math.log(1.0 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for position, tf in postings:
                norm = BM25_K1 * (1.0 - BM25_B + BM25_B * self.lengths[position] / average)
                out[position] = out.get(position, 0.0) + idf * tf * (BM25_K1 + 1.0) / (tf + norm)
        return out


def unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0 or not math.isfinite(norm):
        raise ValueError("a vector must be finite and non-zero")
    return tuple(x / norm for x in vector)


class LocalVectorIndex:
    def __init__(self, path: str | os.PathLike[str] | None = None, *, dimensions: int | None = None) -> None:
        self._dir = Path(path) if path else None
        self._dimensions = dimensions
        self._lock = threading.RLock()
        self._docs: dict[str, list[_Doc]] = {}
        self._seen: dict[str, tuple[int, int] | None] = {}  # file signature when last read
        self._lexicons: dict[str, _Lexicon] = {}
        if self._dir is not None:
            self._dir.mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ VectorIndex
    def index(self, user_id: str, episode: Episode, vector: list[float]) -> str:
        self._check(vector)
        doc = _Doc(
            doc_id=uuid.uuid4().hex,  # made here, never the caller's: as in a VECTORSEARCH collection
            user_id=user_id,
            episode_id=episode.id,
            session_id=episode.session_id,
            fragment_id=episode.fragment_id,
            sections=tuple(s.value for s in episode.sections),
            text=episode.text,
            at=episode.at,
            vector=unit(vector),
        )
        with self._lock:
            docs = self._load(user_id)
            if self._dir is not None:
                self._append(user_id, doc)
            docs.append(doc)
        return doc.doc_id

    def search(
        self, user_id: str, vector: list[float], k: int, *, text: str | None = None
    ) -> list[EpisodeHit]:
        """Top k episodes by cosine; with the query ``text``, by cosine fused with BM25."""
        if k <= 0:
            return []
        self._check(vector)
        query = unit(vector)
        terms = lexical_terms(text) if text else []
        with self._lock:
            docs = self._load(user_id)
            lexical = self._lexicon(user_id, docs).scores(terms) if terms else {}
            docs = list(docs)
        top_lexical = max(lexical.values(), default=0.0)
        mul = operator.mul
        best: dict[str, tuple[float, _Doc]] = {}
        for position, doc in enumerate(docs):
            # Defence in depth (a hash collision must not leak); vectors of another embedder are skipped.
            if doc.user_id != user_id or len(doc.vector) != len(query):
                continue
            score = sum(map(mul, query, doc.vector))
            if top_lexical > 0.0:
                lexical_score = lexical.get(position, 0.0) / top_lexical
                score = (1.0 - LEXICAL_WEIGHT) * score + LEXICAL_WEIGHT * lexical_score
            kept = best.get(doc.episode_id)
            if kept is None or score > kept[0]:
                best[doc.episode_id] = (score, doc)  # one hit per episode, as a re-indexed one repeats
        ranked = sorted(best.values(), key=lambda item: (-item[0], item[1].doc_id))[:k]
        return [EpisodeHit(d.episode_id, d.text, d.at, round(score, 6)) for score, d in ranked]

    def delete_user(self, user_id: str) -> int:
        with self._lock:
            count = len(self._load(user_id))
            self._docs.pop(user_id, None)
            self._seen.pop(user_id, None)
            self._lexicons.pop(user_id, None)
            if self._dir is not None:
                self._file(user_id).unlink(missing_ok=True)
        return count

    def count_user(self, user_id: str) -> int:
        with self._lock:
            return len(self._load(user_id))

    def settled_count(self, user_id: str) -> VectorCount:
        # Every write is visible at once (and re-read from the file when another process wrote).
        return VectorCount(count=self.count_user(user_id), settled=True)

    def delete_documents(self, user_id: str, doc_ids: Sequence[str]) -> int:
        wanted = set(doc_ids)
        with self._lock:
            docs = self._load(user_id)  # only this user's documents: another's ids match nothing
            kept = [d for d in docs if d.doc_id not in wanted or d.user_id != user_id]
            deleted = len(docs) - len(kept)
            if deleted:
                self._docs[user_id] = kept  # a new list: anything derived from the old one is rebuilt
                if self._dir is not None:
                    self._compact(user_id, kept)
                    self._seen[user_id] = self._signature(self._file(user_id))
        return deleted

    def _lexicon(self, user_id: str, docs: list[_Doc]) -> _Lexicon:
        """The user's BM25 statistics, brought up to date (built on first need, then extended)."""
        lexicon = self._lexicons.get(user_id)
        if lexicon is None or not lexicon.current_for(docs):
            lexicon = self._lexicons[user_id] = _Lexicon()
        lexicon.extend(docs)
        return lexicon

    # ------------------------------------------------------------------ persistence
    def _check(self, vector: Sequence[float]) -> None:
        if self._dimensions is not None and len(vector) != self._dimensions:
            raise ValueError(f"expected {self._dimensions} dimensions, got {len(vector)}")

    def _file(self, user_id: str) -> Path:
        assert self._dir is not None
        return self._dir / (hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:40] + ".jsonl")

    def _signature(self, path: Path) -> tuple[int, int] | None:
        try:
            stat = path.stat()
        except FileNotFoundError:
            return None
        return stat.st_size, stat.st_mtime_ns

    def _load(self, user_id: str) -> list[_Doc]:
        """The user's documents, re-read when the file changed since we last saw it."""
        if self._dir is None:
            return self._docs.setdefault(user_id, [])
        path = self._file(user_id)
        signature = self._signature(path)
        if user_id in self._docs and self._seen.get(user_id) == signature:
            return self._docs[user_id]
        docs: list[_Doc] = []
        torn = False
        if signature is not None:
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        doc = _Doc.from_record(json.loads(line))
                    except (ValueError, KeyError, TypeError):
                        torn = True  # a write cut short by a crash
                        continue
                    if doc.user_id == user_id:
                        docs.append(doc)
        self._docs[user_id] = docs
        if torn:
            self._compact(user_id, docs)
        self._seen[user_id] = self._signature(path)
        return docs

    def _append(self, user_id: str, doc: _Doc) -> None:
        path = self._file(user_id)
        line = json.dumps(doc.record(), ensure_ascii=False, separators=(",", ":")) + "\n"
        with path.open("a", encoding="utf-8") as handle:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_EX)
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        self._seen[user_id] = self._signature(path)

    def _compact(self, user_id: str, docs: list[_Doc]) -> None:
        """Rewrite the user's file with only valid records: write aside, then rename over."""
        path = self._file(user_id)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".compact-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                for doc in docs:
                    handle.write(json.dumps(doc.record(), ensure_ascii=False, separators=(",", ":")) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
