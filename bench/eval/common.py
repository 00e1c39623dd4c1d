"""What every level of the evaluation shares: paths, labelled data, configurations, counting.

A *configuration* is the set of adapters a level runs with: ``offline`` (the rule section
classifier and extractor, the hashing embedder, the local vector index) always, and ``model``
(the OpenAI adapters, any OpenAI-compatible endpoint) when OPENAI_API_KEY or OPENAI_BASE_URL is
set. External datasets are read in place from ``../shared/datasets`` next to the checkout (or
``LTM_DATASETS``); they are never copied into the repository.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = Path(__file__).resolve().parent / "data"
# "Today" in every labelled conversation: relative dates and ages are computed from it.
EVAL_DAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
MAX_EXAMPLES = 25  # failures listed per level in the JSON report


class DatasetMissing(RuntimeError):
    """An external dataset is not where it should be: the level is skipped, not failed."""


def datasets_dir() -> Path:
    override = os.environ.get("LTM_DATASETS")
    return Path(override).expanduser() if override else REPO_ROOT.parent / "shared" / "datasets"


def dataset_path(*parts: str) -> Path:
    path = datasets_dir().joinpath(*parts)
    if not path.exists():
        raise DatasetMissing(
            f"{'/'.join(parts)} not found under {datasets_dir()} "
            "(expected ../shared/datasets next to the checkout, or set LTM_DATASETS)"
        )
    return path


def load_jsonl(name: str) -> list[dict[str, Any]]:
    rows = []
    path = DATA_DIR / name
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise ValueError(f"{path.name}:{number}: {err}") from None
    return rows


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def git_commit() -> dict[str, Any]:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": head, "dirty": bool(dirty)}


# ---------------------------------------------------------------------------- configurations
def model_configured(env: dict[str, str] | None = None) -> bool:
    env = dict(os.environ) if env is None else env
    return bool(env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"))


@dataclass
class Config:
    """The adapters one column of the report runs with."""

    name: str  # "offline" | "model"
    settings: Any = None  # health_ltm.settings.Settings for the model configuration

    @property
    def is_model(self) -> bool:
        return self.name == "model"

    def section_classifier(self):
        if self.is_model:
            from health_ltm.adapters.openai_llm import OpenAISectionClassifier

            return OpenAISectionClassifier(self.settings)
        from health_ltm.write.rules import RuleSectionClassifier

        return RuleSectionClassifier()

    def extractor(self, clock=None):
        if self.is_model:
            from health_ltm.adapters.openai_llm import OpenAIExtractor

            return OpenAIExtractor(self.settings)
        from health_ltm.write.rules import RuleExtractor

        return RuleExtractor(clock=clock)

    def embedder(self):
        if self.is_model:
            from health_ltm.adapters.openai_llm import OpenAIEmbedder

            return OpenAIEmbedder(self.settings)
        from health_ltm.adapters.local_embedder import HashingEmbedder

        return HashingEmbedder()

    def describe(self) -> dict[str, Any]:
        from health_ltm.read.classify import DATA_PATH, load_query_classes

        embedder = self.embedder()
        described: dict[str, Any] = {
            "section_classifier": "RuleSectionClassifier" if not self.is_model else None,
            "extractor": self.extractor().name,
            "embedder": {"name": embedder.name, "dimensions": embedder.dimensions},
            "vector_index": "LocalVectorIndex (cosine; hybrid cosine+BM25 where the query text is given)",
            "query_classifier": {
                "data_version": load_query_classes().version,
                "data_sha256": file_digest(DATA_PATH),
            },
            "policy_version": _policy_version(),
            "synonyms_version": _synonyms_version(),
        }
        if self.is_model:
            settings = self.settings
            described["section_classifier"] = f"openai:{settings.classifier_model}"
            described["endpoint"] = "OPENAI_BASE_URL" if settings.openai_base_url else "api.openai.com"
        return described


def offline_config() -> Config:
    return Config("offline")


def model_config() -> Config | None:
    if not model_configured():
        return None
    from health_ltm.settings import Settings

    return Config("model", Settings())


def _policy_version() -> str | None:
    path = REPO_ROOT / "functions" / "health_ltm" / "data" / "policies.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def _synonyms_version() -> str | None:
    path = REPO_ROOT / "functions" / "health_ltm" / "data" / "synonyms.json"
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------- counting
def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def prf(tp: int, fp: int, fn: int) -> dict[str, Any]:
    precision = ratio(tp, tp + fp)
    recall = ratio(tp, tp + fn)
    f1 = (
        round(2 * precision * recall / (precision + recall), 4)
        if precision is not None and recall is not None and precision + recall
        else None
    )
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


@dataclass
class Tally:
    """True/false positives and false negatives per key (a section, a language, a tag)."""

    counts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))

    def add(self, key: str, got: Iterable[Any], want: Iterable[Any]) -> None:
        got, want = set(got), set(want)
        row = self.counts[key]
        row[0] += len(got & want)
        row[1] += len(got - want)
        row[2] += len(want - got)

    def add_counts(self, key: str, tp: int = 0, fp: int = 0, fn: int = 0) -> None:
        row = self.counts[key]
        row[0] += tp
        row[1] += fp
        row[2] += fn

    def total(self) -> dict[str, Any]:
        tp = sum(r[0] for r in self.counts.values())
        fp = sum(r[1] for r in self.counts.values())
        fn = sum(r[2] for r in self.counts.values())
        return prf(tp, fp, fn)

    def table(self, order: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
        keys = list(order) if order is not None else sorted(self.counts)
        return {k: prf(*self.counts[k]) for k in keys if k in self.counts}

    def macro(self) -> dict[str, float | None]:
        rows = [prf(*r) for r in self.counts.values()]
        precisions = [r["precision"] for r in rows if r["precision"] is not None]
        recalls = [r["recall"] for r in rows if r["recall"] is not None]
        return {
            "precision": round(sum(precisions) / len(precisions), 4) if precisions else None,
            "recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
        }


# ---------------------------------------------------------------------------- running quietly
@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Powertools prints metric batches and JSON logs to stdout; keep them out of the console.

    The handlers never log what a user said, but an evaluation prints a report, not logs."""
    sink = io.StringIO()
    service = logging.getLogger("health-ltm")  # Powertools' logger; its handler holds the real stdout
    level = service.level
    service.setLevel(logging.WARNING)
    try:
        with contextlib.redirect_stdout(sink):
            yield
    finally:
        service.setLevel(level)
        from health_ltm.observability import metrics

        metrics.metric_set.clear()


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def limited(rows: list, limit: int | None) -> list:
    return rows if limit is None else rows[:limit]
