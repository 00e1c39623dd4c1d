"""The customer-managed key on EVERY store, checked as an inventory.

The per-resource tests (storage, functions, vectors, api) check each store they know of; this one
walks the whole template: every resource of a type that can hold data must be encrypted with the
one CMK, and a data-holding type nobody has reviewed yet (a bucket, a stream, a file system, a
second key ...) fails here until it is added to the table below with the property that points
at the key.
"""

from __future__ import annotations

import json

import pytest

from conftest import text_of

pytestmark = pytest.mark.xdist_group("infra")

# type -> the property that must reference the CMK
KEY_PROPERTY = {
    "AWS::DynamoDB::Table": ("SSESpecification", "KMSMasterKeyId"),
    "AWS::SQS::Queue": ("KmsMasterKeyId",),
    "AWS::SNS::Topic": ("KmsMasterKeyId",),
    "AWS::Logs::LogGroup": ("KmsKeyId",),
    "AWS::SecretsManager::Secret": ("KmsKeyId",),
    "AWS::Lambda::Function": ("KmsKeyArn",),  # the environment variables
    "AWS::Backup::BackupVault": ("EncryptionKeyArn",),
}
# Data-holding types that are not in the table: each must be reviewed (and added) before it ships.
DATA_HOLDING = {
    "AWS::S3::Bucket",
    "AWS::Kinesis::Stream",
    "AWS::KinesisFirehose::DeliveryStream",
    "AWS::EFS::FileSystem",
    "AWS::RDS::DBInstance",
    "AWS::RDS::DBCluster",
    "AWS::ElastiCache::CacheCluster",
    "AWS::ElastiCache::ReplicationGroup",
    "AWS::OpenSearchService::Domain",
    "AWS::Elasticsearch::Domain",
    "AWS::DynamoDB::GlobalTable",
    "AWS::SSM::Parameter",
    "AWS::ECR::Repository",
    "AWS::Events::Archive",
    "AWS::StepFunctions::StateMachine",
    "AWS::AppSync::GraphQLApi",
    "AWS::Athena::WorkGroup",
    "AWS::Glue::Database",
    "AWS::CodeBuild::Project",
    "AWS::KMS::Key",
}


def _key_arn(synthesized) -> dict:
    (key_id,) = synthesized.of_type("AWS::KMS::Key")
    return {"Fn::GetAtt": [key_id, "Arn"]}


def _get(properties: dict, path: tuple[str, ...]):
    value = properties
    for name in path:
        value = (value or {}).get(name)
    return value


@pytest.mark.parametrize("which", ["synthesized", "variant"])
def test_every_store_is_encrypted_with_the_one_customer_managed_key(request, which):
    synthesized = request.getfixturevalue(which)
    key = _key_arn(synthesized)
    checked = 0
    for logical_id, resource in synthesized.resources.items():
        path = KEY_PROPERTY.get(resource["Type"])
        if path is None:
            continue
        checked += 1
        assert _get(resource.get("Properties", {}), path) == key, (logical_id, resource["Type"], path)
    assert checked >= 12  # table, 5 queues, topic, 3 functions, log groups, secret, vault


def test_the_vector_collection_uses_the_key_through_its_encryption_policy(synthesized):
    key = _key_arn(synthesized)
    (collection,) = synthesized.of_type("AWS::OpenSearchServerless::Collection").values()
    name = text_of(collection["Properties"]["Name"])
    policies = [
        p["Properties"]
        for p in synthesized.of_type("AWS::OpenSearchServerless::SecurityPolicy").values()
        if p["Properties"]["Type"] == "encryption"
    ]
    assert len(policies) == 1
    text = json.dumps(policies[0]["Policy"])
    assert name in text_of(policies[0]["Policy"])
    assert json.dumps(key) in text and '\\"AWSOwnedKey\\":false' in text.replace(" ", "")


def test_no_unreviewed_data_holding_resource_type_is_in_the_template(synthesized):
    unreviewed = {r["Type"] for r in synthesized.resources.values() if r["Type"] in DATA_HOLDING} - {
        "AWS::KMS::Key"
    }
    assert not unreviewed, f"review encryption of {sorted(unreviewed)} and add them to KEY_PROPERTY"
    assert len(synthesized.of_type("AWS::KMS::Key")) == 1  # one CMK: nothing encrypted with another
