"""`make eval`: every level of the memory, measured separately, for each configuration.

    python -m bench.eval          # all levels -> docs/eval/report-<date>.{json,md} and latest.md
    python -m bench.eval --levels questions,transitions --no-write
    python -m bench.eval --limit 5 --out /tmp/eval   # a quick subset (tests use this)
    python -m bench.eval --render-only   # the Markdown again from every report-*.json, nothing run

Offline (rule extractor, local embedder) always; a second column with the model adapters when
OPENAI_API_KEY or OPENAI_BASE_URL is set. Levels that need an external dataset are skipped,
with the reason in the report, when ../shared/datasets (or LTM_DATASETS) is absent.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import (
    dialogues,
    edge_cases,
    end_to_end,
    extraction,
    locomo,
    mts_dialog,
    questions,
    report,
    retrieval,
    transitions,
)
from .common import (
    DatasetMissing,
    git_commit,
    model_config,
    offline_config,
    progress,
    quiet,
)

LEVELS = {
    "questions": questions,
    "mts_dialog": mts_dialog,
    "extraction": extraction,
    "dialogues": dialogues,
    "transitions": transitions,
    "retrieval": retrieval,
    "end_to_end": end_to_end,
    "locomo": locomo,
    "edge_cases": edge_cases,
}


def run_levels(names: list[str], configs: list, limit: int | None) -> tuple[dict[str, Any], dict, bool]:
    results: dict[str, Any] = {}
    timing: dict[str, dict[str, float]] = {}
    failed = False
    model_configured = any(c.is_model for c in configs)
    for name in names:
        module = LEVELS[name]
        results[name] = {}
        timing[name] = {}
        for config in configs:
            if config.is_model and module.MODEL_INDEPENDENT:
                results[name]["model"] = report.SAME
                continue
            progress(f"eval: {name} [{config.name}] ...")
            started = time.monotonic()
            try:
                with quiet():
                    results[name][config.name] = module.run(config, limit=limit)
            except DatasetMissing as err:
                results[name][config.name] = {"skipped": str(err)}
                progress(f"eval: {name} skipped: {err}")
            except Exception as err:  # report it, go on with the other levels, fail at the end
                failed = True
                results[name][config.name] = {"error": f"{type(err).__name__}: {err}"}
                traceback.print_exc(file=sys.stderr)
            timing[name][config.name] = round(time.monotonic() - started, 1)
        if not model_configured:
            results[name]["model"] = report.NOT_CONFIGURED
    return results, timing, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated, default: all")
    parser.add_argument("--limit", type=int, default=None, help="first N items of each level (a quick run)")
    parser.add_argument(
        "--out", type=Path, default=report.OUT_DIR, help="output directory (default docs/eval)"
    )
    parser.add_argument("--no-write", action="store_true", help="print the Markdown, write nothing")
    parser.add_argument(
        "--offline-only", action="store_true", help="skip the model column even if configured"
    )
    parser.add_argument(
        "--render-only", action="store_true", help="write the Markdown of every report JSON in --out again"
    )
    args = parser.parse_args(argv)
    if args.render_only:
        for path in report.render_all(args.out):
            progress(f"eval: wrote {path}")
        return 0
    names = [n.strip() for n in args.levels.split(",") if n.strip()]
    unknown = [n for n in names if n not in LEVELS]
    if unknown:
        parser.error(f"unknown levels {unknown}; known: {', '.join(LEVELS)}")
    warnings.filterwarnings("ignore", message="No application metrics to publish")

    configs = [offline_config()]
    model = None if args.offline_only else model_config()
    if model is not None:
        configs.append(model)
    started = time.monotonic()
    results, timing, failed = run_levels(names, configs, args.limit)
    now = datetime.now(UTC)
    document: dict[str, Any] = {
        "title": "Health LTM evaluation",
        "date": now.date().isoformat(),
        "generated_at": now.isoformat(timespec="seconds"),
        "git": git_commit(),
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "configurations": {
            "offline": configs[0].describe(),
            "model": model.describe() if model is not None else report.NOT_CONFIGURED,
        },
        "committed_configuration": "offline" if model is None else "offline + model",
        "limit": args.limit,
        "levels": results,
        "timing_s": timing,
        "total_s": round(time.monotonic() - started, 1),
    }
    if model is not None:
        document["model_endpoint"] = os.environ.get("OPENAI_BASE_URL") or "api.openai.com"
    if args.no_write:
        print(report.markdown(document))
    else:
        for path in report.write(document, args.out):
            progress(f"eval: wrote {path}")
        headline = report.markdown(document).split("## Headline", 1)[1].split("\n## ", 1)[0]
        print("## Headline" + headline)
    progress(f"eval: done in {document['total_s']:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
