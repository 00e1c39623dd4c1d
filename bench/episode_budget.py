"""How long must ``POST /v1/context`` wait for episodes? ``python -m bench.episode_budget``.

The read path starts the episode search (embed the query at the model provider, then a k-NN
search in OpenSearch Serverless) in a background thread, loads the facts from DynamoDB, renders,
and then waits at most ``LTM_EPISODE_TIMEOUT_S`` for the episodes (``read/context.py``). Past it
the answer says ``episodes_status: unavailable``. Nothing of that can be measured here without
an account, so the provider and the stores are doubles whose latencies are drawn from stated
distributions, and the code in between is the real one: ``build_context``, the OpenAI SDK over
HTTP to the fake OpenAI server (``tests/fakes/fake_openai.py``), the local vector index.

Assumed latencies (lognormal, median and p95; from an EU AWS region, not measured here):

- embedding of one short query (``text-embedding-3-small``): median 180 ms, p95 600 ms, and 2%
  of calls slow (x4): provider-side queueing;
- OpenSearch Serverless k-NN search, one user's filter: median 30 ms, p95 90 ms;
- DynamoDB Query for the sections: median 8 ms, p95 20 ms.

For each trial the episodes "arrive in time T" when their search ends within T of the moment
the read path starts waiting (after the facts are loaded). The report gives the arrival rate per
budget; ``LTM_EPISODE_TIMEOUT_S`` is set to the smallest budget with at least 95% arrival.
Written to docs/bench/episode-budget.md.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from datetime import UTC, datetime

from bench.env import OUT_DIR, prepare

EMBED = (0.180, 0.600)
KNN = (0.030, 0.090)
DYNAMODB = (0.008, 0.020)
SLOW_SHARE, SLOW_FACTOR = 0.02, 4.0
BUDGETS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
TARGET = 0.97  # "usually": about one context in 30 answers without episodes
QUERY = "Что я рассказывал про головные боли в прошлый раз?"


def lognormal(rng: random.Random, median: float, p95: float) -> float:
    sigma = math.log(p95 / median) / 1.645
    return median * math.exp(rng.gauss(0.0, sigma))


def run(trials: int = 150, seed: int = 7) -> dict:
    from tests.fakes.fake_openai import FakeOpenAI

    from health_ltm.adapters.local_vector_index import LocalVectorIndex
    from health_ltm.adapters.openai_llm import OpenAIEmbedder
    from health_ltm.domain.models import Episode
    from health_ltm.read.classify import get_classifier
    from health_ltm.read.context import build_context
    from health_ltm.settings import Settings
    from health_ltm.storage.memory import InMemoryRepository

    rng = random.Random(seed)

    def embed_latency(_request) -> float:
        value = lognormal(rng, *EMBED)
        return value * SLOW_FACTOR if rng.random() < SLOW_SHARE else value

    marks: dict[str, float] = {}

    class TimedIndex(LocalVectorIndex):
        def search(self, *args, **kwargs):
            time.sleep(lognormal(rng, *KNN))
            hits = super().search(*args, **kwargs)
            marks["arrived"] = time.perf_counter()
            return hits

    class TimedRepository(InMemoryRepository):
        def load_memory(self, *args, **kwargs):
            time.sleep(lognormal(rng, *DYNAMODB))
            memory = super().load_memory(*args, **kwargs)
            marks["waiting"] = time.perf_counter()
            return memory

    classification = get_classifier().classify(QUERY)
    if not classification.needs_episodes:
        raise SystemExit(f"the bench query must need episodes: {classification}")
    waits: list[float] = []
    with FakeOpenAI(latency=embed_latency) as fake:
        settings = Settings(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-bench", LTM_LLM_MAX_RETRIES=0)
        embedder = OpenAIEmbedder(settings)
        index = TimedIndex(dimensions=embedder.dimensions)
        repo = TimedRepository()
        now = datetime.now(UTC)
        for i in range(20):
            episode = Episode(id=f"e{i:02d}", session_id="s", fragment_id=f"e{i:02d}",
                              text=f"головная боль {i}", sections=[], at=now)  # fmt: skip
            index.index("u1", episode, embedder.embed([episode.text, "x"])[0])
        for trial in range(trials):
            marks.clear()
            embedder._recent.clear()  # every trial pays the provider (the cache is measured apart)
            result = build_context(
                repo, classification, "u1", f"{QUERY} ({trial})", 400,
                embedder=embedder, vector_index=index, episode_timeout_s=10.0,
            )  # fmt: skip
            if result.episodes_status == "ok":
                waits.append(max(0.0, marks["arrived"] - marks["waiting"]))
        # The query embedding cache: the same question asked again (a chat turn, then its context).
        started = time.perf_counter()
        embedder.embed([QUERY])
        first = time.perf_counter() - started
        started = time.perf_counter()
        embedder.embed([QUERY])
        again = time.perf_counter() - started
    waits.sort()
    arrival = {f"{b:.2f}": round(sum(w <= b for w in waits) / trials, 3) for b in BUDGETS}
    chosen = next((b for b in BUDGETS if sum(w <= b for w in waits) / trials >= TARGET), BUDGETS[-1])
    return {
        "trials": trials,
        "assumed_ms": {"embedding": EMBED, "knn": KNN, "dynamodb": DYNAMODB, "slow_share": SLOW_SHARE},
        "wait_ms": {
            "median": round(1000 * waits[len(waits) // 2], 1),
            "p95": round(1000 * waits[int(len(waits) * 0.95) - 1], 1),
            "max": round(1000 * waits[-1], 1),
        },
        "arrival_by_budget_s": arrival,
        "chosen_budget_s": chosen,
        "query_embedding_ms": {"first": round(first * 1000, 1), "cached": round(again * 1000, 3)},
    }


def render(result: dict) -> str:
    lines = [
        "# Episode budget (`LTM_EPISODE_TIMEOUT_S`)",
        "",
        "`python -m bench.episode_budget`: the real `build_context` and OpenAI SDK against doubles",
        "whose latencies are drawn from assumed distributions (see `bench/episode_budget.py`):",
        f"embedding median {EMBED[0] * 1000:.0f} ms / p95 {EMBED[1] * 1000:.0f} ms "
        f"({SLOW_SHARE:.0%} of calls x{SLOW_FACTOR:.0f}), k-NN {KNN[0] * 1000:.0f}/{KNN[1] * 1000:.0f} ms, "
        f"DynamoDB {DYNAMODB[0] * 1000:.0f}/{DYNAMODB[1] * 1000:.0f} ms. {result['trials']} trials.",
        "",
        "The wait starts once the facts are loaded (the search runs alongside that load).",
        f"Wait for episodes: median {result['wait_ms']['median']} ms, p95 {result['wait_ms']['p95']} ms, "
        f"max {result['wait_ms']['max']} ms.",
        "",
        "| budget (s) | episodes arrive |",
        "|---|---|",
        *[f"| {b} | {rate:.1%} |" for b, rate in result["arrival_by_budget_s"].items()],
        "",
        f"Chosen: **{result['chosen_budget_s']} s**, the smallest budget with at least {TARGET:.0%} arrival.",
        "A repeated query's embedding comes from the adapter's cache: "
        f"{result['query_embedding_ms']['first']} ms the first time, "
        f"{result['query_embedding_ms']['cached']} ms again.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=150)
    args = parser.parse_args(argv)
    prepare()
    result = run(args.trials)
    text = render(result)
    (OUT_DIR / "episode-budget.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
