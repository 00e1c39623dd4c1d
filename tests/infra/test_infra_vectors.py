"""OpenSearch Serverless: a KMS-encrypted vector collection only the three function roles can use."""

from __future__ import annotations

import json

import pytest

from conftest import STACK_ID_SUFFIX, text_of

pytestmark = pytest.mark.xdist_group("infra")


def _policies(synthesized) -> dict[str, dict]:
    return {
        p["Properties"]["Type"]: p["Properties"]
        for p in synthesized.of_type("AWS::OpenSearchServerless::SecurityPolicy").values()
    }


def test_collection_is_a_vector_search_collection(synthesized):
    collection = synthesized.one("AWS::OpenSearchServerless::Collection")

    assert collection["Type"] == "VECTORSEARCH"
    assert text_of(collection["Name"]) == f"healthltm-episodes-{STACK_ID_SUFFIX}"
    assert collection["DeletionProtection"] == "ENABLED"
    assert collection["StandbyReplicas"] == "ENABLED"


def test_collection_is_encrypted_with_the_customer_managed_key(synthesized):
    (resource,) = synthesized.of_type("AWS::OpenSearchServerless::Collection").values()
    encryption = _policies(synthesized)["encryption"]
    key_id = next(iter(synthesized.of_type("AWS::KMS::Key")))
    encryption_id = next(
        logical_id
        for logical_id, p in synthesized.of_type("AWS::OpenSearchServerless::SecurityPolicy").items()
        if p["Properties"]["Type"] == "encryption"
    )

    assert {"Fn::GetAtt": [key_id, "Arn"]} in encryption["Policy"]["Fn::Join"][1]
    assert '"AWSOwnedKey":false' in json.dumps(encryption["Policy"]).replace("\\", "").replace(" ", "")
    assert encryption_id in resource["DependsOn"]


def test_network_policy_exposes_the_collection_but_not_dashboards(synthesized):
    (rule_set,) = json.loads(text_of(_policies(synthesized)["network"]["Policy"]))

    assert rule_set["Rules"] == [
        {"ResourceType": "collection", "Resource": [f"collection/healthltm-episodes-{STACK_ID_SUFFIX}"]}
    ]


def test_data_access_policy_names_only_the_three_function_roles(synthesized):
    policy = synthesized.one("AWS::OpenSearchServerless::AccessPolicy")
    principals = [
        part["Fn::GetAtt"][0]
        for part in policy["Policy"]["Fn::Join"][1]
        if isinstance(part, dict) and "Fn::GetAtt" in part
    ]
    text = text_of(policy["Policy"])

    assert policy["Type"] == "data"
    assert sorted(principals) == sorted(
        logical_id
        for logical_id in synthesized.of_type("AWS::IAM::Role")
        if logical_id.startswith("Functions") and "Role" in logical_id
    )
    assert f"index/healthltm-episodes-{STACK_ID_SUFFIX}/episodes" in text
    assert "aoss:*" not in text and "aoss:DeleteIndex" not in text


def test_functions_get_the_collection_endpoint(synthesized):
    collection_id = next(iter(synthesized.of_type("AWS::OpenSearchServerless::Collection")))

    for props in synthesized.functions().values():
        assert props["Environment"]["Variables"]["LTM_VECTOR_ENDPOINT"] == {
            "Fn::GetAtt": [collection_id, "CollectionEndpoint"]
        }
