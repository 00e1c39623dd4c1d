"""The model column's code path, against the fake OpenAI-compatible server in rules mode.

The fake answers the classifier and the extractor through the model's JSON contract with the
offline rules, so the numbers say nothing about a model; the test shows the path works: the
requests are made, the answers validated, matched and counted like the offline column's.
"""

from __future__ import annotations

from bench.eval import extraction, mts_dialog
from bench.eval.common import Config, model_config, model_configured, quiet

from health_ltm.settings import Settings
from tests.fakes.fake_openai import FakeOpenAI


def test_model_configuration_follows_the_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert model_config() is None
    assert model_configured({"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    config = model_config()
    assert config is not None and config.is_model
    assert config.describe()["section_classifier"].startswith("openai:")


def test_extraction_with_the_model_adapters_against_the_fake():
    with FakeOpenAI(rules=True) as fake:
        config = Config("model", Settings(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-fake"))
        with quiet():
            result = extraction.run(config, limit=3)
        assert fake.chat_requests, "the model adapters were not called"
    summary = result["summary"]
    assert summary["model_errors"] == 0
    assert result["extractor"].startswith("openai:")
    assert summary["recall"] is not None and summary["recall"] > 0


def test_model_errors_are_counted_not_fatal(tmp_path, monkeypatch):
    dead = Config(
        "model",
        Settings(
            OPENAI_BASE_URL="http://127.0.0.1:9/v1",
            OPENAI_API_KEY="sk-fake",
            LTM_LLM_TIMEOUT_S=0.5,
            LTM_LLM_MAX_RETRIES=0,
        ),
    )
    with quiet():
        result = extraction.run(dead, limit=2)
    assert result["summary"]["model_errors"] == 2


def test_dialogue_sections_with_the_model_classifier(monkeypatch, tmp_path):
    (tmp_path / "mts-dialog").mkdir()
    for name in mts_dialog.FILES:
        (tmp_path / "mts-dialog" / name).write_text(
            "ID,section_header,section_text,dialogue\n"
            '0,ALLERGY,Penicillin.,"Doctor: Any allergies?\nPatient: I am allergic to penicillin."\n',
            encoding="utf-8",
        )
    monkeypatch.setenv("LTM_DATASETS", str(tmp_path))
    with FakeOpenAI(rules=True) as fake:
        config = Config("model", Settings(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-fake"))
        with quiet():
            result = mts_dialog.run(config)
    assert result["summary"]["recall"] == 1.0
