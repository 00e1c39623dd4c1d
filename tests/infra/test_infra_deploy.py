"""The first real deployment: safe retries, the pinned Powertools layer, timeouts that fit, CORS."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest
from aws_cdk import App, Environment, Stack
from aws_cdk import aws_lambda as lambda_
from infra.components import functions as fn
from infra.components.api import CORS_HEADERS, CORS_METHODS
from infra.components.layers import (
    ARCHITECTURE,
    POWERTOOLS_LAYERS,
    RUNTIME,
    powertools_layer,
    powertools_layer_arn,
)
from infra.config import Config

from conftest import STACK_ID_SUFFIX, text_of
from health_ltm.settings import Settings

pytestmark = pytest.mark.xdist_group("infra")
REPO = Path(__file__).resolve().parents[2]
RETAINED_TYPES = (
    "AWS::DynamoDB::Table",
    "AWS::KMS::Key",
    "AWS::SecretsManager::Secret",
    "AWS::Logs::LogGroup",
    "AWS::Backup::BackupVault",
    "AWS::Cognito::UserPool",
    "AWS::OpenSearchServerless::Collection",
)


# ------------------------------------------------------------------------ first-deploy safety
def test_stateful_resources_are_kept_except_by_a_failed_create(synthesized):
    for resource_type in RETAINED_TYPES:
        resources = synthesized.of_type(resource_type)
        assert resources, resource_type
        for logical_id, resource in resources.items():
            assert resource["DeletionPolicy"] == "RetainExceptOnCreate", logical_id
            assert resource["UpdateReplacePolicy"] == "Retain", logical_id


def test_every_name_we_choose_ends_with_the_stack_creations_id(synthesized):
    waf_logs = next(
        r["Properties"]["LogGroupName"]
        for r in synthesized.of_type("AWS::Logs::LogGroup").values()
        if "waf" in json.dumps(r["Properties"].get("LogGroupName", ""))
    )
    vault = synthesized.one("AWS::Backup::BackupVault")
    policies = [
        p["Properties"]["Name"]
        for p in synthesized.of_type("AWS::OpenSearchServerless::SecurityPolicy").values()
    ]
    access = synthesized.one("AWS::OpenSearchServerless::AccessPolicy")

    assert text_of(waf_logs) == f"aws-waf-logs-HealthLtm-{STACK_ID_SUFFIX}"
    assert text_of(vault["BackupVaultName"]) == f"HealthLtm-backup-{STACK_ID_SUFFIX}"
    for name in [*policies, access["Name"], synthesized.one("AWS::OpenSearchServerless::Collection")["Name"]]:
        rendered = text_of(name)
        assert (
            rendered.endswith(f"-{STACK_ID_SUFFIX}") and len(rendered.replace(STACK_ID_SUFFIX, "x" * 8)) <= 32
        )


def test_the_model_secret_starts_without_any_value_the_code_could_take_for_a_key(synthesized):
    secret = synthesized.one("AWS::SecretsManager::Secret")

    assert "GenerateSecretString" not in secret
    assert "SecretString" not in secret


def test_running_on_the_offline_rules_for_want_of_a_key_raises_an_alarm(synthesized):
    alarms = [a["Properties"] for a in synthesized.of_type("AWS::CloudWatch::Alarm").values()]
    (alarm,) = [a for a in alarms if a.get("MetricName") == "ModelKeyMissing"]

    assert alarm["Namespace"] == fn.METRICS_NAMESPACE
    assert alarm["Dimensions"] == [{"Name": "service", "Value": fn.SERVICE_NAME}]
    assert alarm["AlarmActions"]


# ------------------------------------------------------------------------ Powertools layer
def test_the_pinned_powertools_layer_carries_the_version_the_tests_run():
    layer = powertools_layer(RUNTIME, ARCHITECTURE)

    assert layer.version == importlib.metadata.version("aws-lambda-powertools")
    assert layer.parameter == f"/aws/service/powertools/python/arm64/python3.14/{layer.version}"
    for (runtime, architecture), row in POWERTOOLS_LAYERS.items():
        assert (row.runtime, row.architecture) == (runtime, architecture)
        assert row.version == layer.version  # one Powertools for every runtime we may deploy


def test_a_runtime_without_a_pinned_layer_fails_the_synthesis():
    with pytest.raises(ValueError, match="POWERTOOLS_LAYERS"):
        powertools_layer(lambda_.Runtime.PYTHON_3_9, lambda_.Architecture.ARM_64)


def test_a_pinned_layer_number_uses_the_stacks_partition_and_region():
    stack = Stack(App(), "S", env=Environment(region="eu-central-1"))

    arn = stack.resolve(powertools_layer_arn(stack, Config(powertools_layer_version=42)))

    assert arn == {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":lambda:eu-central-1:017000801446:layer:AWSLambdaPowertoolsPythonV3-python314-arm64:42",
            ],
        ]
    }


def test_no_arn_in_the_infrastructure_code_spells_out_a_partition():
    # CDK itself writes the partition of a known region as a literal
    # (@aws-cdk/core:enablePartitionLiterals): "aws-cn" for cn-north-1, so that is derived too.
    for path in (REPO / "infra").rglob("*.py"):
        code = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
        assert not [line for line in code if '"arn:aws:' in line or "'arn:aws:" in line], path


# ------------------------------------------------------------------------ timeouts
def test_the_chat_model_budget_ends_before_the_function_and_the_function_before_the_gateway(synthesized):
    settings = Settings.model_construct()
    api = synthesized.functions()["api"]

    assert settings.chat_budget_s + fn.CHAT_TURN_OVERHEAD_S <= api["Timeout"] < 29
    assert api["Environment"]["Variables"]["LTM_CHAT_TIMEOUT_S"] == str(settings.chat_attempt_timeout_s)
    assert api["Environment"]["Variables"]["LTM_CHAT_MAX_RETRIES"] == str(settings.chat_retries)


def test_a_chat_budget_that_would_outlast_the_gateway_fails_the_synthesis():
    too_slow = Settings(LTM_CHAT_TIMEOUT_S=20, LTM_CHAT_MAX_RETRIES=1)

    with pytest.raises(ValueError, match="29 s"):
        fn.check_chat_budget(too_slow)


# ------------------------------------------------------------------------ CORS
def test_cors_preflight_allows_every_method_and_request_header_the_api_documents(synthesized):
    spec = json.loads((REPO / "docs" / "openapi.json").read_text())
    methods = {m.upper() for operations in spec["paths"].values() for m in operations}
    headers = {
        p["name"].lower()
        for operations in spec["paths"].values()
        for op in operations.values()
        for p in op.get("parameters", [])
        if p.get("in") == "header"
    }
    preflights = [m for (verb, _path), m in synthesized.api_methods().items() if verb == "OPTIONS"]

    assert methods <= set(CORS_METHODS)
    assert headers | {"idempotency-key", "authorization", "content-type"} <= {h.lower() for h in CORS_HEADERS}
    assert preflights
    for method in preflights:
        params = method["Integration"]["IntegrationResponses"][0]["ResponseParameters"]
        allowed = params["method.response.header.Access-Control-Allow-Methods"].strip("'").split(",")
        assert {"PUT", "PATCH", "DELETE"} <= set(allowed)
        assert "If-Match" in params["method.response.header.Access-Control-Allow-Headers"]
