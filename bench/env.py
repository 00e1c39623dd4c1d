"""The environment every benchmark runs in: no AWS account, no model key, no endpoint.

Set before anything imports boto3, Powertools or the settings (``python -m bench`` calls
``prepare()`` first). The same values go to the child processes of the cold-start benchmark,
so both sides of every comparison see the same environment.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "docs" / "bench"
TMP_DIR = REPO / ".bench-tmp"  # gitignored: pip cache for the layer build

BASE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "eu-central-1",
    "POWERTOOLS_SERVICE_NAME": "health-ltm",
    "POWERTOOLS_METRICS_NAMESPACE": "HealthLTM",
    # X-Ray is off: there is no daemon here, and both sides of the cold-start comparison build a
    # Tracer the same way.
    "POWERTOOLS_TRACE_DISABLED": "1",
    "POWERTOOLS_DEV": "0",
    "LTM_TABLE_NAME": "health-ltm-bench",
}
# Anything that would send boto3 or the model adapters somewhere real.
CLEARED = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AWS_ENDPOINT_URL",
    "AWS_PROFILE",
    "AWS_SESSION_TOKEN",
    "LTM_OPENAI_SECRET_ARN",
    "LTM_VECTOR_ENDPOINT",
    "LTM_LOCAL_VECTOR_PATH",
)


def prepare() -> None:
    for name in CLEARED:
        os.environ.pop(name, None)
    os.environ.update(BASE_ENV)
    functions = str(REPO / "functions")
    if functions not in sys.path:  # normally on the path through the editable install
        sys.path.insert(0, functions)
    # Powertools warns once per process when a request published no metric (the read path).
    warnings.filterwarnings("ignore", message="No application metrics to publish")


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(BASE_ENV)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "functions"), str(REPO)) if p)
    env.update(extra)
    return env


def machine() -> dict:
    return {
        "cores": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def git_commit() -> dict:
    def run(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, check=False, timeout=10
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""

    return {"commit": run("rev-parse", "HEAD"), "dirty": bool(run("status", "--porcelain", "functions"))}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
