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

**Lambda-like** (``lambda_like``): the numbers above run in the dev venv, whose ``__pycache__`` is
warm. Lambda loads the code asset from a read-only ``/var/task`` and the layers from ``/opt``:
without shipped ``.pyc`` every cold start compiles every module it imports and cannot keep the
result. So the same four targets also run in fresh interpreters (``python -I -S -B``: no venv,
no site-packages, no user site, nothing written) whose ``sys.path`` is only a copy of the code
asset (``infra.bytecode.stage_code``, what the CDK bundler ships), the dependency layer (pip
``--target`` from ``layers/deps/requirements.txt``, stripped as ``infra.layer_bundler`` strips
it), a Powertools layer (Powertools + pydantic) and the runtime's boto3, each twice: as shipped
before (no ``.pyc``) and compiled the way the bundlers now compile (unchecked-hash ``.pyc``).
Not measurable here: the layer the stack really ships holds cp314 aarch64 wheels, which this
x86_64 Python 3.11 cannot import, so the trees are built for this host's platform and Python
from the same pins; Lambda's own interpreter start, layer extraction and Firecracker restore are
not in any figure.
"""

from __future__ import annotations

import json
import platform
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from bench.env import OUT_DIR, REPO, TMP_DIR, child_env
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
    out["lambda_like"] = lambda_like(rounds=3 if quick else 9)
    if not quick:
        page = render_lambda_like(out["lambda_like"])
        (OUT_DIR / "cold-start-lambda.md").write_text(page, encoding="utf-8")
    return out


def render_lambda_like(result: dict) -> str:
    """docs/bench/cold-start-lambda.md: the Lambda-like cold start, without and with .pyc."""
    lines = [
        "# Cold start, Lambda-like (`make bench`, `bench/cold_start.py`)",
        "",
        f"Fresh `python -I -S -B` processes ({result['python']}), {result['rounds']} interleaved rounds; "
        "`sys.path` is only the code asset, the dependency layer, a Powertools layer and the runtime's "
        "boto3 (copies built from the same pins for this host), nothing written at run time: what a "
        "read-only `/var/task` and `/opt` allow. Import and module-level init, medians (p95).",
        "",
        "| handler | without .pyc | with .pyc | saved | x bare (without / with) |",
        "|---|---|---|---|---|",
    ]
    for target, row in result["targets"].items():
        ratio_of = result["ratio_to_bare"]
        ratios = (
            "1.00 / 1.00"
            if target == "bare"
            else f"{ratio_of['no_pyc'][target]:.2f} / {ratio_of['pyc'][target]:.2f}"
        )
        lines.append(
            f"| {target} | {row['no_pyc']['median_ms']:.0f} ms ({row['no_pyc']['p95_ms']:.0f}) "
            f"| {row['pyc']['median_ms']:.0f} ms ({row['pyc']['p95_ms']:.0f}) | {row['pyc_saves_ms']:.0f} ms "
            f"| {ratios} |"
        )
    sizes = ", ".join(f"{name} {mb} MB" for name, mb in result["tree_mb"].items())
    lines += [
        "",
        f"Trees (unzipped, without .pyc): {sizes}. Modules imported from outside the trees: "
        f"{', '.join(result['imported_from_outside_the_trees']) or 'none'}.",
        "",
        f"Not measured: {result['not_measured']}.",
        "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------------------- lambda-like
LAMBDA_TREES = TMP_DIR / "lambda-like"
VARIANTS = ("no_pyc", "pyc")
# One fresh interpreter: sys.path is exactly the given directories plus the standard library.
_LAMBDA_CHILD = r"""
import time
_T0 = time.perf_counter()
import sys
target, *roots = sys.argv[1:]
sys.path[:] = [*roots, *[p for p in sys.path if p and "site-packages" not in p and p != "."]]
if target == "bare":
    from aws_lambda_powertools import Logger, Metrics, Tracer
    from aws_lambda_powertools.event_handler import APIGatewayRestResolver
    logger = Logger(service="bare"); tracer = Tracer(service="bare")
    metrics = Metrics(namespace="Bare", service="bare")
    app = APIGatewayRestResolver(enable_validation=True)
    @app.get("/v1/health")
    def health() -> dict:
        return {"status": "ok"}
    @logger.inject_lambda_context(log_event=False)
    @tracer.capture_lambda_handler(capture_response=False)
    @metrics.log_metrics
    def handler(event, context):
        return app.resolve(event, context)
else:
    import importlib
    handler = importlib.import_module(f"health_ltm.handlers.{target}").handler
init_s = time.perf_counter() - _T0
import json
foreign = sorted({m.__file__.split("site-packages")[0] for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) and "site-packages" in m.__file__
                  and not any(m.__file__.startswith(r) for r in roots)})
print(json.dumps({"init_s": init_s, "modules": len(sys.modules), "foreign": foreign}))
"""


def _pip_target(target: Path, args: list[str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-warn-conflicts", "--no-compile", "--only-binary=:all:", "--target", str(target), *args],
        check=True, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def _versions(*names: str) -> list[str]:
    from importlib.metadata import version

    return [f"{name}=={version(name)}" for name in names]


def build_lambda_trees() -> dict[str, list[Path]]:
    """The code asset and the three layer-like trees, without and with .pyc (cached by recipe)."""
    import hashlib
    import shutil

    from infra.bytecode import compile_tree, stage_code
    from infra.layer_bundler import strip_provided

    requirements = REPO / "layers" / "deps" / "requirements.txt"
    pins = _versions("aws-lambda-powertools", "pydantic", "aws-xray-sdk", "boto3")
    recipe = hashlib.sha256(requirements.read_bytes() + " ".join(pins).encode()).hexdigest()[:12]
    base = LAMBDA_TREES / recipe
    if not (base / "ready").exists():
        shutil.rmtree(base, ignore_errors=True)
        layer, powertools, runtime = (
            base / "no_pyc" / "opt-deps",
            base / "no_pyc" / "opt-powertools",
            base / "no_pyc" / "runtime",
        )
        _pip_target(layer, ["-r", str(requirements)])
        strip_provided(layer)
        _pip_target(powertools, [pins[0], pins[2], "wrapt", "--no-deps"])  # the layer's own set
        _pip_target(powertools, [pins[1]])  # pydantic's own dependencies
        _pip_target(runtime, [pins[3]])
        shutil.copytree(base / "no_pyc", base / "pyc")
        for tree in (layer, powertools, runtime):
            for cache in tree.rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)
        (base / "ready").write_text(recipe)
    for variant in VARIANTS:  # the code asset is copied fresh every run: it is the code under test
        stage_code(REPO / "functions", base / variant / "task")
    for tree in ("task", "opt-deps", "opt-powertools", "runtime"):
        compiled = base / "pyc" / tree
        if tree == "task" or not any(compiled.rglob("*.pyc")):
            compile_tree(compiled, sys.executable)
    return {v: [base / v / t for t in ("task", "opt-deps", "opt-powertools", "runtime")] for v in VARIANTS}


def _tree_mb(root: Path) -> float:
    return round(sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) / 1e6, 1)


def _lambda_child(target: str, roots: list[Path]) -> dict:
    env = {k: v for k, v in child_env().items() if not k.startswith("PYTHON")}
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", _LAMBDA_CHILD, target, *map(str, roots)],
        capture_output=True, text=True, env=env, cwd="/", timeout=120, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"lambda-like child {target} failed:\n{result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def lambda_like(rounds: int = 9) -> dict:
    trees = build_lambda_trees()
    samples: dict[str, dict[str, list[float]]] = {t: {v: [] for v in VARIANTS} for t in TARGETS}
    foreign: set[str] = set()
    for target in TARGETS:  # one unrecorded round: the page cache
        for variant in VARIANTS:
            _lambda_child(target, trees[variant])
    for _ in range(rounds):
        for target in TARGETS:
            for variant in VARIANTS:
                row = _lambda_child(target, trees[variant])
                samples[target][variant].append(row["init_s"])
                foreign.update(row["foreign"])
    out: dict = {
        "rounds": rounds,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]} {platform.machine()}",
        "sys_path": ["task (code asset)", "opt-deps (dependency layer)", "opt-powertools", "runtime (boto3)"],
        "targets": {t: {v: summarize(samples[t][v]) for v in VARIANTS} for t in TARGETS},
        "imported_from_outside_the_trees": sorted(foreign),
        "tree_mb": {
            name: _tree_mb(root)
            for name, root in zip(
                ("task", "opt-deps", "opt-powertools", "runtime"), trees["no_pyc"], strict=True
            )
        },
        "not_measured": (
            "the shipped layer's cp314 aarch64 wheels (not importable by this x86_64 Python 3.11): "
            "the trees hold the same pins for this host; Lambda's interpreter start, layer "
            "extraction and sandbox restore are in no figure"
        ),
    }
    for target in TARGETS:
        row = out["targets"][target]
        row["pyc_saves_ms"] = round(row["no_pyc"]["median_ms"] - row["pyc"]["median_ms"], 1)
    bare = out["targets"]["bare"]
    out["ratio_to_bare"] = {
        v: {t: ratio(out["targets"][t][v]["median_ms"], bare[v]["median_ms"]) for t in TARGETS if t != "bare"}
        for v in VARIANTS
    }
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

_IMPORT_API = "import health_ltm.handlers.api"  # the tokenizer loads on first count, not at import


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
    """Where the api handler's import time goes."""
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
