"""The report: JSON and Markdown, dated, with the configuration, a column per configuration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.eval import report
from bench.eval.__main__ import main

from tests.unit.test_bench_report import numbers_in_text, perturbed, untraced_numbers

REPO = Path(__file__).resolve().parents[2]
EVAL_DOCS = REPO / "docs" / "eval"


def document(model) -> dict:
    return {
        "date": "2026-01-02",
        "git": {"commit": "0123456789abcdef", "dirty": False},
        "machine": {"cpus": 2, "python": "3.11"},
        "configurations": {
            "offline": {
                "section_classifier": "RuleSectionClassifier",
                "extractor": "rules-v1",
                "embedder": {"name": "hash-ngram-v1", "dimensions": 512},
                "query_classifier": {"data_version": "v1", "data_sha256": "abc"},
                "policy_version": "p1",
                "synonyms_version": "s1",
            },
            "model": report.NOT_CONFIGURED if model is None else model,
        },
        "committed_configuration": "offline",
        "levels": {
            "questions": {
                "offline": {
                    "summary": {"recall": 0.97, "precision": 0.9},
                    "per_section": {},
                    "per_language": {},
                    "per_split": {},
                    "overlap": {"with_exemplars": 0, "with_unit_tests": 0},
                    "failures": [],
                },
                "model": report.NOT_CONFIGURED if model is None else report.SAME,
            },
            "locomo": {
                "offline": {"skipped": "locomo/locomo10.json not found"},
                "model": report.NOT_CONFIGURED,
            },
        },
        "total_s": 12.0,
    }


def test_markdown_has_a_headline_a_column_per_configuration_and_says_when_the_model_is_absent():
    text = report.markdown(document(None))
    assert text.startswith("# Health LTM evaluation — 2026-01-02")
    assert "| offline | RuleSectionClassifier | rules-v1 | hash-ngram-v1 (512 dims) |" in text
    assert "model: not configured" in text
    assert "| Question → sections | recall (micro), class-map labels | 0.970 | n/c |  |" in text
    assert "_Skipped: locomo/locomo10.json not found_" in text
    assert "`0123456789ab`" in text and "- No model key was used" in text


def test_a_model_independent_level_says_same():
    model = dict(document(None)["configurations"]["offline"], section_classifier="openai:gpt")
    text = report.markdown(document(model))
    assert "| Question → sections | recall (micro), class-map labels | 0.970 | same |  |" in text
    assert "No model key was used" not in text and "ran against" not in text
    assert "- The model column ran against http://127.0.0.1:9" in report.markdown(
        dict(document(model), model_endpoint="http://127.0.0.1:9")
    )


def test_an_older_run_has_no_row_for_a_metric_it_did_not_report_and_no_section_for_a_missing_level():
    text = report.markdown(document(None))
    assert "| by what the answer needs" not in text and "| exact-set accuracy" not in text
    assert "## Transitions" not in text and "| Transitions |" not in text
    assert "| Question → sections | recall (micro), class-map labels |" in text


def test_write_makes_dated_json_and_markdown_and_a_stable_latest(tmp_path):
    paths = report.write(document(None), tmp_path)
    assert [p.name for p in paths] == ["report-2026-01-02.json", "report-2026-01-02.md", "latest.md"]
    assert json.loads(paths[0].read_text(encoding="utf-8"))["date"] == "2026-01-02"
    assert "latest (2026-01-02, report-2026-01-02.json)" in paths[2].read_text(encoding="utf-8")


def test_the_command_runs_offline_levels_and_writes_the_report(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert main(["--levels", "questions,transitions", "--limit", "3", "--out", str(tmp_path)]) == 0
    written = json.loads(next(tmp_path.glob("report-*.json")).read_text(encoding="utf-8"))
    assert written["configurations"]["model"] == report.NOT_CONFIGURED
    assert written["configurations"]["offline"]["extractor"] == "rules-v1"
    assert set(written["levels"]) == {"questions", "transitions"}
    assert "## Headline" in capsys.readouterr().out
    assert (tmp_path / "latest.md").exists()


def test_unknown_levels_are_refused(capsys):
    try:
        main(["--levels", "nope", "--no-write"])
    except SystemExit as exit_:
        assert exit_.code == 2
    assert "unknown levels" in capsys.readouterr().err


def test_every_number_in_a_table_of_the_report_comes_from_the_report_json():
    document_ = json.loads((EVAL_DOCS / "report-2026-12-01.json").read_text(encoding="utf-8"))
    template = (REPO / "bench" / "templates" / "eval.md").read_text(encoding="utf-8")
    targets = {t for _, metrics in report.HEADLINES.values() for *_, target in metrics for t in [target]}
    allowed = numbers_in_text(document_) | numbers_in_text(sorted(targets))
    page, page_changed = report.markdown(document_), report.markdown(perturbed(document_))
    assert untraced_numbers(page, page_changed, template, allowed) == []


def test_render_only_writes_every_report_again_from_its_json(tmp_path, capsys):
    for path in EVAL_DOCS.glob("report-*.json"):
        shutil.copy(path, tmp_path / path.name)
    assert main(["--render-only", "--out", str(tmp_path)]) == 0
    newest = sorted(tmp_path.glob("report-*.json"))[-1]
    for path in tmp_path.glob("report-*.json"):
        assert path.with_suffix(".md").read_text(encoding="utf-8") == report.markdown(
            json.loads(path.read_text(encoding="utf-8"))
        )
    latest = (tmp_path / "latest.md").read_text(encoding="utf-8")
    assert latest.startswith(f"# Health LTM evaluation — latest ({newest.stem[7:]}, {newest.name})")


def test_the_committed_reports_are_what_their_json_renders_to():
    reports = sorted(EVAL_DOCS.glob("report-*.json"))
    for path in reports:
        document_ = json.loads(path.read_text(encoding="utf-8"))
        stale = f"{path.with_suffix('.md').name} is stale: `python -m bench.eval --render-only`"
        assert path.with_suffix(".md").read_text(encoding="utf-8") == report.markdown(document_), stale
    latest = json.loads(reports[-1].read_text(encoding="utf-8"))
    assert (EVAL_DOCS / "latest.md").read_text(encoding="utf-8") == report.markdown(latest, latest=True)
