"""Table, queues, secret and key: built from health_ltm.schema and encrypted with the one CMK."""

from __future__ import annotations

import pytest

from health_ltm import schema

pytestmark = pytest.mark.xdist_group("infra")


def _key_arn(synthesized) -> dict:
    return {"Fn::GetAtt": [next(iter(synthesized.of_type("AWS::KMS::Key"))), "Arn"]}


def test_key_is_customer_managed_with_rotation(synthesized):
    key = synthesized.one("AWS::KMS::Key")

    assert key["EnableKeyRotation"] is True
    principals = [s["Principal"] for s in key["KeyPolicy"]["Statement"]]
    assert {"Service": "logs.eu-central-1.amazonaws.com"} in principals


def test_table_matches_the_schema_definition(synthesized):
    table = synthesized.one("AWS::DynamoDB::Table")
    definition = schema.table_definition("ignored")

    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["KeySchema"] == definition["KeySchema"]
    assert sorted(table["AttributeDefinitions"], key=str) == sorted(
        definition["AttributeDefinitions"], key=str
    )
    (index,) = table["GlobalSecondaryIndexes"]
    (expected,) = definition["GlobalSecondaryIndexes"]
    assert index["IndexName"] == schema.ACTIVE_USERS_INDEX
    assert index["KeySchema"] == expected["KeySchema"]
    assert index["Projection"] == expected["Projection"]


def test_table_is_protected_encrypted_and_expires_items(synthesized):
    table = synthesized.one("AWS::DynamoDB::Table")
    (resource,) = synthesized.of_type("AWS::DynamoDB::Table").values()

    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["SSESpecification"] == {
        "KMSMasterKeyId": _key_arn(synthesized),
        "SSEEnabled": True,
        "SSEType": "KMS",
    }
    assert table["TimeToLiveSpecification"] == {"AttributeName": schema.TTL_ATTRIBUTE, "Enabled": True}
    assert table["DeletionProtectionEnabled"] is True
    assert resource["DeletionPolicy"] == "RetainExceptOnCreate"


def test_table_is_in_a_backup_plan_with_an_encrypted_vault(synthesized):
    vault = synthesized.one("AWS::Backup::BackupVault")
    selection = synthesized.one("AWS::Backup::BackupSelection")
    table_id = next(iter(synthesized.of_type("AWS::DynamoDB::Table")))

    assert vault["EncryptionKeyArn"] == _key_arn(synthesized)
    assert table_id in str(selection["BackupSelection"]["Resources"])


def test_deletion_protection_off_makes_stateful_resources_destroyable(variant):
    (table,) = variant.of_type("AWS::DynamoDB::Table").values()
    collection = variant.one("AWS::OpenSearchServerless::Collection")

    assert table["Properties"]["DeletionProtectionEnabled"] is False
    assert table["DeletionPolicy"] == "Delete"
    assert collection["DeletionProtection"] == "DISABLED"
    assert collection["StandbyReplicas"] == "DISABLED"
    for resource_type in ("AWS::KMS::Key", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup"):
        for resource in variant.of_type(resource_type).values():
            assert resource["DeletionPolicy"] == "Delete", resource_type


def _queue(synthesized, logical_id: str) -> dict:
    return synthesized.resources[logical_id]["Properties"]


def test_queues_carry_no_fixed_names_so_a_retried_create_cannot_collide(synthesized):
    for queue in synthesized.of_type("AWS::SQS::Queue").values():
        assert "QueueName" not in queue["Properties"]


def test_extraction_queue_is_fifo_with_a_fifo_dead_letter_queue(synthesized):
    spec = schema.EXTRACTION_QUEUE
    queue = _queue(synthesized, synthesized.queue_ids()["extraction"])
    dlq_id = queue["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
    dlq = _queue(synthesized, dlq_id)

    assert queue["FifoQueue"] is True
    assert queue["ContentBasedDeduplication"] is spec.content_based_dedup
    assert queue["VisibilityTimeout"] == spec.visibility_timeout_s
    assert queue["MessageRetentionPeriod"] == spec.retention_days * 86400
    assert queue["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]},
        "maxReceiveCount": spec.max_receive_count,
    }
    assert dlq["FifoQueue"] is True
    assert dlq["MessageRetentionPeriod"] == schema.DLQ_RETENTION_DAYS * 86400


def test_maintenance_queue_is_standard_with_redrive(synthesized):
    queue = _queue(synthesized, synthesized.queue_ids()["maintenance"])

    assert "FifoQueue" not in queue
    assert queue["RedrivePolicy"]["maxReceiveCount"] == schema.MAINTENANCE_QUEUE.max_receive_count
    assert queue["VisibilityTimeout"] == schema.MAINTENANCE_QUEUE.visibility_timeout_s


def test_every_queue_is_encrypted_with_the_key_and_refuses_plain_http(synthesized):
    queues = synthesized.of_type("AWS::SQS::Queue")
    policies = [p["Properties"] for p in synthesized.of_type("AWS::SQS::QueuePolicy").values()]
    tls_only = {
        queue["Ref"]
        for policy in policies
        for statement in policy["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Deny"
        and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        for queue in policy["Queues"]
    }

    assert len(queues) == 5  # two work queues, their DLQs, the maintain invocation DLQ
    for logical_id, queue in queues.items():
        assert queue["Properties"]["KmsMasterKeyId"] == _key_arn(synthesized)
        assert logical_id in tls_only


def test_openai_secret_is_encrypted_with_the_key(synthesized):
    secret = synthesized.one("AWS::SecretsManager::Secret")

    assert secret["KmsKeyId"] == _key_arn(synthesized)


def test_dead_letters_and_function_errors_raise_alarms_to_an_encrypted_topic(synthesized):
    topic_id = next(iter(synthesized.of_type("AWS::SNS::Topic")))
    alarms = [a["Properties"] for a in synthesized.of_type("AWS::CloudWatch::Alarm").values()]
    dlq_alarms = [a for a in alarms if a["MetricName"] == "ApproximateNumberOfMessagesVisible"]
    error_alarms = [a for a in alarms if a["MetricName"] == "Errors"]

    assert synthesized.one("AWS::SNS::Topic")["KmsMasterKeyId"] == _key_arn(synthesized)
    assert len(dlq_alarms) == 3
    assert len(error_alarms) == 3
    for alarm in dlq_alarms + error_alarms:
        assert alarm["Threshold"] == 0
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert alarm["AlarmActions"] == [{"Ref": topic_id}]
