"""Smoke tests of the bench's sizes, cost model and report rendering (no timing asserts)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from bench import cost, report, sizes
from bench.load import render_markdown as load_page


def test_code_excludes_are_read_from_the_cdk_app_and_applied_like_cdk():
    patterns = sizes.code_excludes()
    assert "ltm_local" in patterns
    root = Path(__file__).resolve().parents[2] / "functions"
    files = [p.relative_to(root).as_posix() for p in sizes.function_files(root, patterns)]
    assert files and all(f.startswith("health_ltm/") for f in files)
    assert not any("__pycache__" in f or f.endswith(".pyc") for f in files)
    assert sizes._excluded("ltm_local/cli.py", patterns)
    assert sizes._excluded("health_ltm/x/__pycache__/a.pyc", patterns)
    assert not sizes._excluded("health_ltm/read/context.py", patterns)


def test_deployment_facts_come_from_the_cdk_app():
    facts = cost.deployment()
    assert set(facts["memory_mb"]) >= {"api", "extract", "maintain"}
    assert facts["maintain_max_concurrency"] >= 1
    assert cost.cpu_factor(1769) == 1.0
    assert cost.cpu_factor(512) > 3


def _minimal_results() -> dict:
    return {
        "meta": {
            "date": "2026-01-01 00:00 UTC",
            "git": {"commit": "0" * 40, "dirty": False},
            "machine": {"cores": 2, "cpu": "test", "python": "3.11", "load_average_at_start": [0, 0, 0]},
            "quick": True,
            "seconds": 1.0,
        }
    }


def test_cost_model_runs_on_defaults_and_renders_its_formulas():
    results = _minimal_results()
    model = cost.compute(results)
    assert model["per_million_reads_total"] > 0
    assert model["per_thousand_fragments_total"] > 0
    assert model["fixed_per_month"]["OpenSearch Serverless minimum OCUs"] > 0
    assert model["capacity"]["scenarios"]["expected"]["jobs"] == 1_000_000
    text = cost.markdown(model)
    assert "## Capacity plan" in text and "billed_ms" in text
    results["cost"] = model
    page = report.markdown(results)
    assert page.startswith("# Benchmarks") and "## Targets" in page


# ---------------------------------------------------------------- rendered from the results alone
REPO = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"(?<![\w@#.\-/:'])\d[\d,]*(?:\.\d+)?")
RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")


def perturbed(value):
    """The results with every number changed (booleans and strings kept)."""
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int):
        return value * 3 + 7
    if isinstance(value, float):
        return value * 3 + 0.7
    if isinstance(value, dict):
        return {k: perturbed(v) for k, v in value.items()}
    return [perturbed(v) for v in value]


def _as_number(token: str) -> float:
    return float(token.replace(",", ""))


def numbers_in_text(value) -> set[float]:
    """What stays when the results' numbers change: numbers inside strings and keys, list lengths."""
    if isinstance(value, str):
        return {_as_number(t) for t in NUMBER.findall(value)}
    if isinstance(value, dict):
        return set().union(*(numbers_in_text(k) | numbers_in_text(v) for k, v in value.items()))
    if isinstance(value, list):
        return {float(len(value))}.union(*(numbers_in_text(v) for v in value))
    return set()


def table_cells(markdown: str, template: str) -> list[list[str]]:
    """The body cells of every table on the page, but for rows written out in the template."""
    lines = markdown.splitlines()
    rows = []
    for n, line in enumerate(lines):
        if not line.startswith("|") or RULE.match(line) or line in template:
            continue
        if n + 1 < len(lines) and RULE.match(lines[n + 1]):
            continue  # a header row
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def untraced_numbers(page: str, page_changed: str, template: str, allowed: set[float]) -> list[str]:
    """Table numbers that neither change with the results nor appear in their text: made up."""
    rows, rows_changed = table_cells(page, template), table_cells(page_changed, template)
    assert len(rows) == len(rows_changed)
    out = []
    for row, row_changed in zip(rows, rows_changed, strict=True):
        for cell, cell_changed in zip(row, row_changed, strict=True):
            tokens, changed = NUMBER.findall(cell), NUMBER.findall(cell_changed)
            for n, token in enumerate(tokens):
                same = n < len(changed) and changed[n] == token
                if same and _as_number(token) not in allowed:
                    out.append(f"{token} in «{cell}»")
    return out


def test_the_untraced_number_check_finds_a_number_the_renderer_wrote_itself():
    page = "| a | b |\n|---|---|\n| 12 ms | 42 |\n"
    changed = "| a | b |\n|---|---|\n| 43 ms | 42 |\n"
    assert untraced_numbers(page, changed, "", set()) == ["42 in «42»"]
    assert untraced_numbers(page, changed, "", {42.0}) == []


def committed_results() -> dict:
    return json.loads((REPO / "docs" / "bench" / "results.json").read_text(encoding="utf-8"))


def test_every_number_in_a_table_of_the_benchmark_page_comes_from_the_results():
    results = committed_results()
    template = (REPO / "bench" / "templates" / "bench.md").read_text(encoding="utf-8")
    thresholds = {v for t in report.TARGETS.values() for v in (t, round(t * 100, 6))}
    allowed = numbers_in_text(results) | thresholds | {1.0}  # 1.00: the bare handler's ratio to itself
    page, page_changed = report.markdown(results), report.markdown(perturbed(results))
    assert untraced_numbers(page, page_changed, template, allowed) == []


def test_the_benchmark_page_has_every_section_and_no_unfilled_placeholder():
    page = report.markdown(committed_results())
    titles = "Targets|Read path|Cold start|Write path|Maintenance|Context size|Sizes|Cost|Peers|How the"
    for title in titles.split("|"):
        assert f"## {title}" in page
    assert "$" not in page.split("## Cost")[0]  # dollars only in the cost summary


def test_render_only_writes_the_pages_from_the_json_without_measuring(tmp_path):
    results = committed_results()
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    load = json.loads((REPO / "docs" / "bench" / "load.json").read_text(encoding="utf-8"))
    (tmp_path / "load.json").write_text(json.dumps(load), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--render-only", "--out", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == report.markdown(results)
    assert (tmp_path / "cost.md").read_text(encoding="utf-8") == cost.markdown(results["cost"])
    assert (tmp_path / "load.md").read_text(encoding="utf-8") == load_page(load)
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["README.md", "cost.md", "load.json", "load.md", "results.json"]


def test_the_committed_pages_are_what_the_committed_results_render_to():
    stale = "stale: `.venv/bin/python -m bench --render-only` writes it again"
    results = committed_results()
    readme = (REPO / "docs" / "bench" / "README.md").read_text(encoding="utf-8")
    assert readme == report.markdown(results), stale
    load = json.loads((REPO / "docs" / "bench" / "load.json").read_text(encoding="utf-8"))
    assert (REPO / "docs" / "bench" / "load.md").read_text(encoding="utf-8") == load_page(load), stale
