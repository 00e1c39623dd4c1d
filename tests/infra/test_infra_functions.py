"""The three functions: runtime, layers, code asset, environment, triggers and least privilege."""

from __future__ import annotations

import json
import re
import sys

import pytest
from infra.components import functions as fn
from infra.components import permissions as perm
from infra.components.layers import FUNCTIONS_DIR, POWERTOOLS_LAYERS
from infra.layer_bundler import CodeBundler

from health_ltm import schema
from health_ltm.settings import Settings
from infra import bytecode

pytestmark = pytest.mark.xdist_group("infra")

ENV_NAMES_READ_BY_SETTINGS = {
    "LTM_TABLE_NAME",
    "LTM_EXTRACTION_QUEUE_URL",
    "LTM_MAINTENANCE_QUEUE_URL",
    "LTM_VECTOR_ENDPOINT",
    "LTM_VECTOR_INDEX",
    "LTM_OPENAI_SECRET_ARN",
    "OPENAI_BASE_URL",
    "LTM_CLASSIFIER_MODEL",
    "LTM_EXTRACTOR_MODEL",
    "LTM_CHAT_MODEL",
    "LTM_EMBEDDING_MODEL",
    "LTM_CORS_ORIGIN",
}


def test_three_arm64_python314_functions_with_active_tracing_and_powertools(synthesized):
    functions = synthesized.functions()

    assert set(functions) == {"api", "extract", "maintain"}
    for props in functions.values():
        assert props["Runtime"] == "python3.14"
        assert props["Architectures"] == ["arm64"]
        assert props["TracingConfig"] == {"Mode": "Active"}
        # Resolved at deploy time from AWS's public parameter for the pinned Powertools version.
        assert props["Layers"][-1] == (
            "{{resolve:ssm:/aws/service/powertools/python/arm64/python3.14/"
            + POWERTOOLS_LAYERS[("python3.14", "arm64")].version
            + "}}"
        )


def test_powertools_layer_is_extracted_last_so_its_pydantic_set_wins(synthesized):
    for props in synthesized.functions().values():
        dependency_layer, powertools = props["Layers"]
        assert "Ref" in dependency_layer
        assert "/aws/service/powertools/python/" in powertools


def test_handlers_and_timeouts_come_from_the_schema(synthesized):
    functions = synthesized.functions()

    assert functions["api"]["Handler"] == "health_ltm.handlers.api.handler"
    assert functions["extract"]["Handler"] == "health_ltm.handlers.extract.handler"
    assert functions["maintain"]["Handler"] == "health_ltm.handlers.maintain.handler"
    assert functions["api"]["Timeout"] == fn.API_TIMEOUT_S
    assert functions["extract"]["Timeout"] == schema.EXTRACT_TIMEOUT_S
    assert functions["maintain"]["Timeout"] == schema.MAINTAIN_TIMEOUT_S


def test_one_code_asset_for_all_three_functions(synthesized):
    keys = {json.dumps(p["Code"]) for p in synthesized.functions().values()}
    assert len(keys) == 1


def test_the_code_asset_leaves_out_local_tooling_and_the_hosts_caches(tmp_path, monkeypatch):
    monkeypatch.setattr(bytecode, "target_python", lambda version: None)  # no python3.14 here
    (tmp_path / "out").mkdir()

    CodeBundler(FUNCTIONS_DIR).try_bundle(str(tmp_path / "out"), None)

    files = [p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*")]
    assert "health_ltm/schema.py" in files
    assert not [f for f in files if f.startswith("ltm_local") or "__pycache__" in f or f.endswith(".pyc")]


def test_the_code_asset_ships_bytecode_of_the_target_python_that_needs_no_source_times(tmp_path, monkeypatch):
    # The host's own interpreter stands in for python3.14 (the mechanism is the same).
    monkeypatch.setattr(bytecode, "target_python", lambda version: sys.executable)
    (tmp_path / "out").mkdir()

    CodeBundler(FUNCTIONS_DIR).try_bundle(str(tmp_path / "out"), None)

    tag = sys.implementation.cache_tag
    pyc = tmp_path / "out" / "health_ltm" / "__pycache__" / f"schema.{tag}.pyc"
    assert pyc.exists()
    flags = int.from_bytes(pyc.read_bytes()[4:8], "little")
    assert flags == 0b01  # hash-based, check_source off: valid whatever the zip does to mtimes


def test_bytecode_can_be_required_for_a_deploy(tmp_path, monkeypatch):
    monkeypatch.setattr(bytecode, "target_python", lambda version: None)
    (tmp_path / "out").mkdir()

    with pytest.raises(bytecode.BytecodeUnavailable, match=r"python3\.14"):
        CodeBundler(FUNCTIONS_DIR, require_bytecode=True).try_bundle(str(tmp_path / "out"), None)


def test_environment_names_every_setting_and_powertools_variable(synthesized):
    aliases = {field.alias for field in Settings.model_fields.values()}
    assert aliases >= ENV_NAMES_READ_BY_SETTINGS  # the names we set are the names the code reads

    for props in synthesized.functions().values():
        env = props["Environment"]["Variables"]
        assert set(env) >= ENV_NAMES_READ_BY_SETTINGS
        assert env["POWERTOOLS_SERVICE_NAME"] == fn.SERVICE_NAME
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == "HealthLTM"
        assert env["POWERTOOLS_LOG_LEVEL"] == "INFO"
        assert env["LTM_VECTOR_INDEX"] == Settings.model_fields["vector_index"].default


def test_service_name_and_namespace_match_the_functions_observability_module():
    from health_ltm import observability

    assert observability.SERVICE == fn.SERVICE_NAME
    assert observability.metrics.namespace == fn.METRICS_NAMESPACE


def test_the_openai_key_is_never_an_environment_value(synthesized):
    secret_id = next(iter(synthesized.of_type("AWS::SecretsManager::Secret")))
    template_text = json.dumps(synthesized.template.to_json())

    for props in synthesized.functions().values():
        env = props["Environment"]["Variables"]
        assert "OPENAI_API_KEY" not in env
        assert env["LTM_OPENAI_SECRET_ARN"] == {"Ref": secret_id}
        assert not any(re.search(r"sk-[A-Za-z0-9_-]{8,}", json.dumps(value)) for value in env.values())
    assert not re.search(r"sk-[A-Za-z0-9_-]{8,}", template_text)
    assert "SecretString" not in synthesized.one("AWS::SecretsManager::Secret")


def test_environment_and_logs_are_encrypted_with_the_key(synthesized):
    key_arn = {"Fn::GetAtt": [next(iter(synthesized.of_type("AWS::KMS::Key"))), "Arn"]}

    for props in synthesized.functions().values():
        assert props["KmsKeyArn"] == key_arn
    for log_group in synthesized.of_type("AWS::Logs::LogGroup").values():
        assert log_group["Properties"]["KmsKeyId"] == key_arn
        assert log_group["Properties"]["RetentionInDays"] == 90


def test_sqs_event_sources_report_partial_batch_failures(synthesized):
    mappings = [m["Properties"] for m in synthesized.of_type("AWS::Lambda::EventSourceMapping").values()]
    queue_ids = synthesized.queue_ids()
    by_queue = {m["EventSourceArn"]["Fn::GetAtt"][0]: m for m in mappings}

    extraction = by_queue[queue_ids["extraction"]]
    maintenance = by_queue[queue_ids["maintenance"]]
    assert len(mappings) == 2
    for mapping, spec in ((extraction, schema.EXTRACTION_QUEUE), (maintenance, schema.MAINTENANCE_QUEUE)):
        assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        assert mapping["BatchSize"] == spec.batch_size
        assert mapping["ScalingConfig"]["MaximumConcurrency"] >= 2


def test_maintenance_runs_on_the_configured_schedule_and_idle_sessions_are_swept_often(synthesized):
    rules = {
        r["Properties"]["ScheduleExpression"]: r["Properties"]
        for r in synthesized.of_type("AWS::Events::Rule").values()
    }

    assert set(rules) == {"cron(0 3 * * ? *)", "rate(5 minutes)"}
    for rule in rules.values():
        assert rule["State"] == "ENABLED"
        (target,) = rule["Targets"]
        assert target["Arn"]["Fn::GetAtt"][0].startswith("FunctionsMaintain")
    (sweep,) = rules["rate(5 minutes)"]["Targets"]
    assert json.loads(sweep["Input"]) == {"detail": {"task": "sessions"}}


def test_each_role_has_exactly_one_reviewed_policy_and_no_inline_policy(synthesized):
    roles = {
        logical_id: props["Properties"]
        for logical_id, props in synthesized.of_type("AWS::IAM::Role").items()
        if logical_id.startswith("Functions")
    }

    assert synthesized.of_type("AWS::IAM::Policy") == {}
    assert len(roles) == 3
    for role in roles.values():
        assert "Policies" not in role
        (policy_ref,) = role["ManagedPolicyArns"]
        assert "Ref" in policy_ref


def test_only_xray_has_a_wildcard_resource(synthesized):
    for policy in synthesized.of_type("AWS::IAM::ManagedPolicy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            assert not any("*" in action for action in actions), statement
            if statement["Resource"] == "*":
                assert set(actions) == {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}


def _actions_by_sid(synthesized, function: str) -> dict[str, list[str]]:
    (policy,) = [
        p["Properties"]
        for logical_id, p in synthesized.of_type("AWS::IAM::ManagedPolicy").items()
        if logical_id.startswith(f"Functions{function.capitalize()}Policy")
    ]
    return {
        s["Sid"]: s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
        for s in policy["PolicyDocument"]["Statement"]
    }


def _all_actions(by_sid: dict[str, list[str]]) -> set[str]:
    return {action for actions in by_sid.values() for action in actions}


def test_grants_follow_each_functions_job(synthesized):
    api = _actions_by_sid(synthesized, "api")
    extract = _actions_by_sid(synthesized, "extract")
    maintain = _actions_by_sid(synthesized, "maintain")

    assert "sqs:SendMessage" in api["QueueFragments"]
    assert "sqs:ReceiveMessage" not in _all_actions(api)
    assert "sqs:ReceiveMessage" in extract["ConsumeFragments"]
    assert "sqs:SendMessage" not in _all_actions(extract)
    assert "sqs:SendMessage" in maintain["FanOutToUsers"]
    assert "sqs:ReceiveMessage" in maintain["ConsumeUserBatches"]
    for actions in (api, extract, maintain):
        assert actions["UseEpisodeCollection"] == ["aoss:APIAccessAll"]
        assert "secretsmanager:GetSecretValue" in actions["ReadOpenAiKey"]
        assert "dynamodb:Scan" not in actions["ReadWriteMemoryTable"]
        assert set(actions["UseDataKeysThroughServices"]) == set(perm.KEY_ACTIONS)


def test_key_use_is_limited_to_the_services_that_store_our_data(synthesized):
    for policy in synthesized.of_type("AWS::IAM::ManagedPolicy").values():
        (statement,) = [
            s
            for s in policy["Properties"]["PolicyDocument"]["Statement"]
            if s["Sid"] == "UseDataKeysThroughServices"
        ]
        services = statement["Condition"]["StringEquals"]["kms:ViaService"]
        assert sorted(s.split(".")[0] for s in services) == ["dynamodb", "secretsmanager", "sqs"]


def test_scheduled_run_failures_are_parked_in_an_encrypted_dead_letter_queue(synthesized):
    functions = synthesized.functions()

    dlq = functions["maintain"]["DeadLetterConfig"]["TargetArn"]["Fn::GetAtt"][0]
    assert synthesized.resources[dlq]["Properties"]["KmsMasterKeyId"]
    assert "DeadLetterConfig" not in functions["api"]
    assert "DeadLetterConfig" not in functions["extract"]
