"""The report: JSON and Markdown, dated, with the configuration, a column per configuration."""

from __future__ import annotations

import json

from bench.eval import report
from bench.eval.__main__ import main


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
        "level_docs": {"questions": "Level 1."},
        "total_s": 12.0,
        "notes": ["a note"],
    }


def test_markdown_has_a_headline_a_column_per_configuration_and_says_when_the_model_is_absent():
    text = report.markdown(document(None))
    assert text.startswith("# Health LTM evaluation — 2026-01-02")
    assert "| offline | RuleSectionClassifier | rules-v1 | hash-ngram-v1 (512 dims) |" in text
    assert "model: not configured" in text
    assert "| Question → sections | recall (micro), class-map labels | 0.970 | n/c |  |" in text
    assert "_Skipped: locomo/locomo10.json not found_" in text
    assert "`0123456789ab`" in text and "- a note" in text


def test_a_model_independent_level_says_same():
    model = dict(document(None)["configurations"]["offline"], section_classifier="openai:gpt")
    text = report.markdown(document(model))
    assert "| Question → sections | recall (micro), class-map labels | 0.970 | same |  |" in text


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
