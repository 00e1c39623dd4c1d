"""Context values: typed, validated, and the region chosen the way the CLI expects."""

from __future__ import annotations

import pytest
from aws_cdk import App, RemovalPolicy
from infra.app import default_environment
from infra.config import Config

from health_ltm.settings import Settings


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
    assert config.removal_policy == RemovalPolicy.RETAIN


@pytest.mark.parametrize(
    ("key", "value"), [("deletion_protection", "maybe"), ("log_retention_days", 42), ("log_level", "LOUD")]
)
def test_bad_values_fail_the_synthesis(key, value):
    with pytest.raises(ValueError, match=key.split("_")[0]):
        Config.from_context(App(context={key: value}).node)


def test_region_comes_from_the_cli_then_context_then_default(monkeypatch):
    monkeypatch.delenv("CDK_DEFAULT_REGION", raising=False)
    assert default_environment(App()).region == "eu-central-1"
    assert default_environment(App(context={"region": "eu-west-1"})).region == "eu-west-1"

    monkeypatch.setenv("CDK_DEFAULT_REGION", "us-east-2")
    assert default_environment(App(context={"region": "eu-west-1"})).region == "us-east-2"
