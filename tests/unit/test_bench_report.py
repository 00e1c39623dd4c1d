"""Smoke tests of the bench's sizes, cost model and report rendering (no timing asserts)."""

from __future__ import annotations

from pathlib import Path

from bench import cost, report, sizes


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
