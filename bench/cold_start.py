"""Cold start: import and init of each handler in a fresh process, beside a bare Powertools handler.

Every sample is a new ``python`` process (``bench/cold_start_child.py``) that times its own
import and module-level init with ``time.perf_counter`` (interpreter start-up is the same for
all and is left out; the whole process's wall time is reported too). Targets run round-robin
(bare, api, extract, maintain, bare, api, ...) so background load hits them alike.

- ``bare``: Logger, Tracer and Metrics, an ``APIGatewayRestResolver(enable_validation=True)`` with
  one route, and a handler with the same three decorators as ours: the floor any Powertools
  REST function pays.
- ``api``: ``health_ltm.handlers.api``; after init it serves POST /v1/context three times for a
  user with 500 facts (in-process repository, filled after init): at once, normally while the
  tokenizer still loads in its background thread; right after; and once the tokenizer is
  ready. Then it times ``import boto3`` + the first DynamoDB client, which a DynamoDB-backed
  first request pays on top.
- ``extract`` and ``maintain``: import and init only.

Each child also reports whether ``openai`` and ``opensearchpy`` were imported (they must not be
on the read path) and its peak RSS. ``-X importtime`` profiles (three runs, medians) list the
api handler's heaviest imports and what it imports beyond the bare handler.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict

from bench.env import REPO, child_env
from bench.stats import ratio, summarize

TARGETS = ("bare", "api", "extract", "maintain")
CHILD = REPO / "bench" / "cold_start_child.py"
TARGET_RATIO = 1.5


def run(quick: bool = False) -> dict:
    rounds = 5 if quick else 15
    samples: dict[str, list[dict]] = {t: [] for t in TARGETS}
    walls: dict[str, list[float]] = {t: [] for t in TARGETS}
    for target in TARGETS:  # one unrecorded round: page cache, .pyc files
        _child(target)
    for _ in range(rounds):
        for target in TARGETS:
            started = time.perf_counter()
            samples[target].append(_child(target))
            walls[target].append(time.perf_counter() - started)
    out: dict = {"rounds": rounds, "targets": {}}
    for target in TARGETS:
        rows = samples[target]
        entry = {
            "init": summarize([r["init_s"] for r in rows]),
            "process_wall": summarize(walls[target]),
            "peak_rss_mb_median": round(statistics.median(r["rss_mb"] for r in rows), 1),
            "imported": {m: any(r["modules"][m] for r in rows) for m in rows[0]["modules"]},
        }
        for key in (
            "first_request",
            "second_request",
            "warm_request",
            "tokenizer_ready_after_init",
            "first_dynamodb_client",
        ):
            values = [r[key] for r in rows if key in r]
            if values:
                entry[key] = summarize(values)
        if "modules_after_requests" in rows[0]:
            entry["imported_after_requests"] = {
                m: any(r["modules_after_requests"][m] for r in rows)
                for m in rows[0]["modules_after_requests"]
            }
        if rows[0].get("first_request_counter"):
            counters = [r["first_request_counter"] for r in rows]
            entry["first_request_token_counter"] = {c: counters.count(c) for c in sorted(set(counters))}
        out["targets"][target] = entry
    bare = out["targets"]["bare"]["init"]["median_ms"]
    out["ratio_to_bare_median"] = {
        t: ratio(out["targets"][t]["init"]["median_ms"], bare) for t in TARGETS if t != "bare"
    }
    # Per-round ratio (each api sample against the bare sample of the same round): less noisy.
    per_round = [a["init_s"] / b["init_s"] for a, b in zip(samples["api"], samples["bare"], strict=True)]
    out["api_ratio_per_round"] = {
        "median": round(statistics.median(per_round), 3),
        "min": round(min(per_round), 3),
        "max": round(max(per_round), 3),
    }
    out["target"] = {
        "api_init_at_most_x_bare": TARGET_RATIO,
        "met": out["ratio_to_bare_median"]["api"] <= TARGET_RATIO,
    }
    out["importtime"] = importtime(runs=1 if quick else 3)
    return out


def _child(target: str) -> dict:
    result = subprocess.run(
        [sys.executable, str(CHILD), target],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=REPO,
        timeout=120,
        check=False,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith('{"bench"')]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"cold-start child {target} failed:\n{result.stderr[-2000:]}")
    return json.loads(lines[-1])["bench"]


# ------------------------------------------------------------------------------- importtime
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")

_IMPORT_API = (
    "import threading, health_ltm.read.tokens as t; "
    "t.warm_up_in_background = lambda: threading.Thread(target=lambda: None); "
    "import health_ltm.handlers.api"
)


def _profile(code: str) -> dict[str, tuple[int, int]]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=REPO,
        timeout=120,
        check=True,
    )
    modules: dict[str, tuple[int, int]] = {}
    for line in result.stderr.splitlines():
        match = _LINE.match(line)
        if match:
            modules[match.group(4)] = (int(match.group(1)), int(match.group(2)))
    return modules


def importtime(runs: int = 3) -> dict:
    """Where the api handler's import time goes (the tokenizer warm-up thread is disabled in
    these runs: -X importtime mis-attributes time spent in another thread's imports)."""
    bare_code = (REPO / "bench" / "cold_start_child.py").read_text(encoding="utf-8")
    bare_code = bare_code.split("# --- bare handler ---")[1].split("# --- end bare ---")[0]
    api_runs = [_profile(_IMPORT_API) for _ in range(runs)]
    bare_runs = [_profile("import sys\n" + _dedent(bare_code)) for _ in range(runs)]

    def median_of(profiles: list[dict], index: int) -> dict[str, float]:
        names = set().union(*profiles)
        return {
            name: statistics.median(p[name][index] for p in profiles if name in p) / 1000 for name in names
        }

    api_self, api_cumulative = median_of(api_runs, 0), median_of(api_runs, 1)
    bare_modules = set().union(*bare_runs)
    extra_by_package: dict[str, float] = defaultdict(float)
    for name, self_ms in api_self.items():
        if name in bare_modules:
            continue
        depth = 3 if name.startswith("health_ltm") else 4 if name.startswith("aws_lambda_powertools") else 1
        package = ".".join(name.split(".")[:depth])
        extra_by_package[package] += self_ms
    top_cumulative = sorted(
        (
            (name, ms)
            for name, ms in api_cumulative.items()
            if name.startswith(("health_ltm", "aws_lambda_powertools.event_handler")) or "." not in name
        ),
        key=lambda x: -x[1],
    )[:20]
    return {
        "runs": runs,
        "api_total_self_ms": round(sum(api_self.values()), 1),
        "bare_total_self_ms": round(sum(median_of(bare_runs, 0).values()), 1),
        "api_modules": len(api_self),
        "bare_modules": len(bare_modules),
        "top_cumulative_ms": [[name, round(ms, 1)] for name, ms in top_cumulative],
        "beyond_bare_self_ms_by_package": [
            [name, round(ms, 1)] for name, ms in sorted(extra_by_package.items(), key=lambda x: -x[1])[:20]
        ],
        "beyond_bare_self_ms_total": round(sum(extra_by_package.values()), 1),
    }


def _dedent(block: str) -> str:
    lines = [line for line in block.splitlines() if line.strip()]
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    return "\n".join(line[indent:] for line in lines)
