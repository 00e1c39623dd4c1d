"""Level 7: episodic retrieval on LoCoMo (10 long conversations, 1,986 questions with evidence).

Each conversation is one user: every turn ("Speaker: text") is indexed as one episode in the
local vector index with the configuration's embedder; each question is a query, and recall@k is
the share of its evidence turns found in the top k, averaged over the questions whose evidence
ids are all well formed (1,977). Three rankings from the same run, side by side:

* ``bm25``: a plain BM25 over single turns (implemented here, k1 1.2, b 0.75, word tokens): the
  floor the dataset README quotes (R@5 0.463, R@10 0.541 for its BM25);
* ``vector``: the index's cosine alone, which is what ``/v1/context`` asks the index for today;
* ``hybrid``: the index given the query text as well (cosine fused with BM25 over the user's
  own episodes: ``LocalVectorIndex.search(..., text=query)``).

No recency weighting: the questions ask about any point of months-long conversations.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import time
from collections import Counter
from datetime import datetime
from typing import Any

from .common import EVAL_DAY, dataset_path, ratio

LEVEL = "locomo"
MODEL_INDEPENDENT = False
KS = (1, 5, 10, 20)
README_FLOOR = {"R@1": 0.253, "R@5": 0.463, "R@10": 0.541, "R@20": 0.611}
BM25_K1, BM25_B = 1.2, 0.75
_WORD = re.compile(r"\w+")
_SESSION = re.compile(r"^session_(\d+)$")


def load(limit: int | None = None) -> list[dict[str, Any]]:
    conversations = json.loads(dataset_path("locomo", "locomo10.json").read_text(encoding="utf-8"))
    return conversations if limit is None else conversations[:limit]


def _session_time(conversation: dict[str, Any], number: str) -> datetime:
    raw = conversation.get(f"session_{number}_date_time") or ""
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(raw.strip(), pattern).replace(tzinfo=EVAL_DAY.tzinfo)
        except ValueError:
            continue
    return EVAL_DAY


def turns(conversation: dict[str, Any]) -> list[dict[str, Any]]:
    body = conversation["conversation"]
    out = []
    for key in body:
        match = _SESSION.match(key)
        if not match or not isinstance(body[key], list):
            continue
        at = _session_time(body, match.group(1))
        for turn in body[key]:
            out.append(
                {
                    "id": turn["dia_id"],
                    "session": key,
                    "at": at,
                    "text": f"{turn['speaker']}: {turn['text']}",
                }
            )
    return out


def evidence(item: dict[str, Any]) -> list[str]:
    """Evidence ids; a few are written 'D8:6; D9:17' or space-separated."""
    return [part for raw in item.get("evidence") or [] for part in re.split(r"[;\s]+", str(raw)) if part]


def questions(conversation: dict[str, Any], ids: set[str]) -> list[dict[str, Any]]:
    out = []
    for item in conversation["qa"]:
        wanted = evidence(item)
        if wanted and all(i in ids for i in wanted):
            out.append(
                {"question": item["question"], "evidence": set(wanted), "category": item.get("category")}
            )
    return out


class BM25:
    """Okapi BM25 over whole turns, Lucene's idf; the floor to beat."""

    def __init__(self, texts: list[str]) -> None:
        self.docs = [Counter(_WORD.findall(t.lower())) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = sum(self.lengths) / max(len(self.docs), 1)
        df: Counter = Counter(term for d in self.docs for term in d)
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: str, k: int) -> list[int]:
        terms = set(_WORD.findall(query.lower()))
        scores = []
        for i, (doc, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            score = 0.0
            for term in terms:
                tf = doc.get(term)
                if tf:
                    norm = BM25_K1 * (1 - BM25_B + BM25_B * length / self.average)
                    score += self.idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
            scores.append((-score, i))
        return [i for _, i in sorted(scores)[:k]]


def _recall(found: list[str], wanted: set[str], k: int) -> float:
    return len(wanted & set(found[:k])) / len(wanted)


def run(config, *, limit: int | None = None, question_limit: int | None = None) -> dict[str, Any]:
    from health_ltm.adapters.local_vector_index import LocalVectorIndex
    from health_ltm.domain.models import Episode

    conversations = load(limit)
    embedder = config.embedder()
    methods = ("bm25", "vector", "hybrid")
    sums = {m: dict.fromkeys(KS, 0.0) for m in methods}
    by_category: dict[str, dict[str, list[float]]] = {m: {} for m in methods}
    timings: dict[str, list[float]] = {"vector": [], "hybrid": []}
    counted = 0
    episodes = 0
    for number, conversation in enumerate(conversations):
        user = f"locomo-{number}"
        docs = turns(conversation)
        episodes += len(docs)
        index = LocalVectorIndex(None)
        vectors = embedder.embed([d["text"] for d in docs])
        for doc, vector in zip(docs, vectors, strict=True):
            episode = Episode(
                id=doc["id"], session_id=doc["session"], fragment_id=doc["id"], text=doc["text"], at=doc["at"]
            )
            index.index(user, episode, vector)
        bm25 = BM25([d["text"] for d in docs])
        items = questions(conversation, {d["id"] for d in docs})
        if question_limit is not None:
            items = items[:question_limit]
        query_vectors = embedder.embed([item["question"] for item in items])
        for item, vector in zip(items, query_vectors, strict=True):
            ranked = {"bm25": [docs[i]["id"] for i in bm25.top(item["question"], max(KS))]}
            for method, text in (("vector", None), ("hybrid", item["question"])):
                started = time.perf_counter()
                hits = index.search(user, vector, max(KS), text=text)
                timings[method].append((time.perf_counter() - started) * 1000)
                ranked[method] = [h.episode_id for h in hits]
            counted += 1
            for method in methods:
                for k in KS:
                    sums[method][k] += _recall(ranked[method], item["evidence"], k)
                by_category[method].setdefault(str(item["category"]), []).append(
                    _recall(ranked[method], item["evidence"], 10)
                )
    table = {m: {f"R@{k}": ratio(sums[m][k], counted) for k in KS} for m in methods}
    best = table["hybrid"]["R@10"] or 0.0
    return {
        "summary": {
            "conversations": len(conversations),
            "episodes": episodes,
            "questions": counted,
            "embedder": f"{embedder.name} ({embedder.dimensions} dims)",
            **{f"{m} R@{k}": table[m][f"R@{k}"] for m in methods for k in KS},
            "hybrid R@10 above the README floor (0.541)": best > README_FLOOR["R@10"],
        },
        "recall": table,
        "readme_floor": README_FLOOR,
        "recall_at_10_by_category": {
            m: {c: round(sum(v) / len(v), 4) for c, v in sorted(cats.items())}
            for m, cats in by_category.items()
        },
        "search_ms": {
            m: {
                "median": round(statistics.median(v), 2) if v else None,
                "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 2) if v else None,
                "episodes_per_user": round(episodes / max(len(conversations), 1)),
            }
            for m, v in timings.items()
        },
    }
