"""``make bench``: every benchmark, then docs/bench/results.json, docs/bench/README.md, docs/cost.md.

python -m bench                 # the full run (a few minutes on 2 cores)
python -m bench --quick         # few samples: a smoke run, written to .bench-tmp/quick/
python -m bench --only read_path,cold_start   # these parts; the others kept from results.json
python -m bench --render-only   # README.md, cost.md (and load.md) again from the JSON, nothing measured
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime

from bench import env

env.prepare()  # before anything imports boto3, Powertools or the settings
# The handlers log and publish metrics on stdout, as in Lambda: written, but to /dev/null (the
# cost of writing stays in the measurements; the console keeps the progress lines on stderr).
sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the whole process

PARTS = ("context_size", "read_path", "write_path", "maintenance", "cold_start", "sizes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples per case (a smoke run)")
    parser.add_argument("--only", default="", help=f"comma-separated parts among {', '.join(PARTS)}")
    parser.add_argument(
        "--out",
        default=None,
        help="where results.json, README.md and cost.md go (default: docs/bench and docs/cost.md; "
        "with --quick: .bench-tmp/quick, so a smoke run never replaces the committed results)",
    )
    parser.add_argument("--no-docs", action="store_true", help="print the results, write nothing")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="write README.md, cost.md and load.md again from results.json and load.json, measure nothing",
    )
    args = parser.parse_args(argv)
    parts = [p for p in args.only.split(",") if p] or list(PARTS)
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")

    from pathlib import Path

    out_dir = Path(args.out) if args.out else (env.TMP_DIR / "quick" if args.quick else env.OUT_DIR)
    results_path = out_dir / "results.json"
    if args.render_only:
        write_docs(json.loads(results_path.read_text(encoding="utf-8")), out_dir)
        load_path = out_dir / "load.json"
        if load_path.is_file():  # written by `make load`
            from bench.load import render_markdown

            load = json.loads(load_path.read_text(encoding="utf-8"))
            (out_dir / "load.md").write_text(render_markdown(load), encoding="utf-8")
            print(f"bench: wrote {out_dir / 'load.md'}", file=sys.stderr)
        return 0
    results: dict = {}
    previous: dict | None = None
    if results_path.is_file():
        old = json.loads(results_path.read_text(encoding="utf-8"))
        if args.only:
            results = old
            previous = old.get("previous_run")
        elif not old.get("meta", {}).get("quick"):
            from bench import report

            previous = {"date": old["meta"]["date"], "targets": report.targets(old)}
    started = time.perf_counter()
    meta = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "git": env.git_commit(),
        "machine": env.machine(),
        "quick": args.quick,
        "parts": parts,
    }
    for part in parts:
        module = __import__(f"bench.{part}", fromlist=["run"])
        t0 = time.perf_counter()
        print(f"bench: {part} ...", file=sys.stderr, flush=True)
        results[part] = module.run(quick=args.quick)
        print(f"bench: {part} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    meta["seconds"] = round(time.perf_counter() - started, 1)
    results["meta"] = meta
    if previous and not args.quick:
        results["previous_run"] = previous

    from bench import cost

    results["cost"] = cost.compute(results)
    if args.no_docs:
        print(json.dumps(results, indent=1, ensure_ascii=False, default=str), file=sys.__stdout__)
        return 0
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path.write_text(
        json.dumps(results, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    write_docs(results, out_dir)
    print(f"bench: wrote {results_path} in {meta['seconds']:.0f} s", file=sys.stderr)
    return 0


def write_docs(results: dict, out_dir) -> None:
    """README.md beside results.json, and the cost page (docs/cost.md for the default output)."""
    from bench import cost, report

    (out_dir / "README.md").write_text(report.markdown(results), encoding="utf-8")
    default_out = out_dir.resolve() == env.OUT_DIR.resolve()
    cost_path = env.REPO / "docs" / "cost.md" if default_out else out_dir / "cost.md"
    cost.write(results["cost"], cost_path)
    for t in report.targets(results):
        print(f"bench: {'MET   ' if t['met'] else 'MISSED'} {t['target']}: {t['result']}", file=sys.stderr)
    print(f"bench: wrote {out_dir / 'README.md'}, {cost_path}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
