"""Context values: typed, validated; the region is explicit (context, then HEALTH_LTM_REGION) or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import App, RemovalPolicy
from infra.app import REGION_ENV, RegionNotGiven, default_environment
from infra.config import Config

from health_ltm.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def cdk_json_context() -> dict:
    return json.loads((REPO / "cdk.json").read_text())["context"]


def test_command_line_strings_become_typed_values():
    app = App(
        context={"deletion_protection": "false", "throttle_rate_limit": "7", "cors_origin": "https://x"}
    )

    config = Config.from_context(app.node)

    assert config.deletion_protection is False
    assert config.removal_policy == RemovalPolicy.DESTROY
    assert config.throttle_rate_limit == 7
    assert config.cors_origin == "https://x"


def test_model_defaults_are_the_functions_own_defaults():
    config = Config.from_context(App().node)

    assert config.classifier_model == Settings.model_fields["classifier_model"].default
    assert config.embedding_model == Settings.model_fields["embedding_model"].default
    assert config.removal_policy == RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE


@pytest.mark.parametrize(
    ("key", "value"), [("deletion_protection", "maybe"), ("log_retention_days", 42), ("log_level", "LOUD")]
)
def test_bad_values_fail_the_synthesis(key, value):
    with pytest.raises(ValueError, match=key.split("_")[0]):
        Config.from_context(App(context={key: value}).node)


def test_without_an_explicit_region_synthesis_stops_with_a_message_saying_how(monkeypatch):
    monkeypatch.delenv(REGION_ENV, raising=False)
    monkeypatch.setenv("CDK_DEFAULT_REGION", "us-east-1")  # what the CLI sets from the profile
    monkeypatch.setenv("AWS_REGION", "us-east-1")

    with pytest.raises(RegionNotGiven, match=r"-c region=.*HEALTH_LTM_REGION"):
        default_environment(App())


def test_context_region_wins_over_the_environment_and_the_profile_never_counts(monkeypatch):
    monkeypatch.setenv("CDK_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv(REGION_ENV, raising=False)
    assert default_environment(App(context={"region": "eu-west-1"})).region == "eu-west-1"

    monkeypatch.setenv(REGION_ENV, "eu-north-1")
    assert default_environment(App()).region == "eu-north-1"
    assert default_environment(App(context={"region": "eu-west-1"})).region == "eu-west-1"


def test_a_region_that_is_not_a_region_name_is_refused(monkeypatch):
    monkeypatch.delenv(REGION_ENV, raising=False)
    with pytest.raises(RegionNotGiven, match="not an AWS region"):
        default_environment(App(context={"region": "Frankfurt"}))


def test_cdk_synth_without_a_region_fails_with_the_message_and_with_one_holds_it(monkeypatch, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != REGION_ENV}
    env.update(CDK_DEFAULT_REGION="us-east-1", CDK_OUTDIR=str(tmp_path / "none"))
    refused = subprocess.run(
        [sys.executable, "-m", "infra.app"], capture_output=True, text=True, env=env, cwd=REPO, check=False
    )
    assert refused.returncode == 2
    assert "no region given" in refused.stderr and "-c region=" in refused.stderr
    assert not list((tmp_path / "none").glob("*.template.json"))

    env.update(
        CDK_OUTDIR=str(tmp_path / "out"),
        CDK_CONTEXT_JSON=json.dumps(
            {**cdk_json_context(), "region": "eu-west-1", "aws:cdk:bundling-stacks": []}
        ),
    )
    done = subprocess.run(
        [sys.executable, "-m", "infra.app"], capture_output=True, text=True, env=env, cwd=REPO, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["artifacts"]["HealthLtm"]["environment"].endswith("/eu-west-1")


def test_powertools_layer_override_must_be_a_layer_number():
    with pytest.raises(ValueError, match="powertools_layer_version"):
        Config.from_context(App(context={"powertools_layer_version": "-1"}).node)
