"""Pure pieces of the local stack: tokens, event shapes, batch-failure rules, snapshot encoding."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from ltm_local.auth import AUDIENCE, ISSUER, DevSigner, apigw_claims
from ltm_local.config import StackConfig, handler_environment, model_banner
from ltm_local.events import api_gateway_event, scheduled_event, sqs_event
from ltm_local.front import _integration_response, is_internal, is_public
from ltm_local.persistence import atomic_write, decode_attribute, encode_attribute
from ltm_local.poller import failed_message_ids


@pytest.fixture
def signer(tmp_path) -> DevSigner:
    return DevSigner(tmp_path / "ltm" / "dev-signing-key.pem")


def test_key_is_created_once_owner_only(tmp_path, signer):
    path = tmp_path / "ltm" / "dev-signing-key.pem"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    token = signer.mint("alice")
    assert DevSigner(path).verify(token)["sub"] == "alice"  # same key on the next start


def test_verify_accepts_bearer_and_raw_tokens(signer):
    token = signer.mint("alice", ttl_s=60)
    for header in (f"Bearer {token}", f"bearer {token}", token):
        claims = signer.verify(header)
        assert claims["sub"] == "alice" and claims["iss"] == ISSUER and claims["aud"] == AUDIENCE


def test_verify_rejects_bad_tokens(tmp_path, signer):
    public_pem = signer._public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    now = int(time.time())
    claims = {"sub": "eve", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
    bad = [
        None,
        "",
        "Bearer ",
        "Bearer not.a.token",
        signer.mint("alice", ttl_s=10, now=now - 3600),  # expired
        DevSigner(tmp_path / "other.pem").mint("alice"),  # another key
        jwt.encode(claims, key=None, algorithm="none"),  # unsigned
        jwt.encode(claims, "a-shared-secret-of-at-least-32-bytes!", algorithm="HS256"),  # symmetric
        signer.mint("alice", aud="someone-else"),
        signer.mint("alice", iss="https://evil.example"),
    ]
    # The classic confusion attack: HS256 keyed with the public key.
    bad.append(
        f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64(claims)}.{_hs256_signature(public_pem, claims)}"
    )
    for token in bad:
        assert signer.verify(token) is None, token


def _b64(value: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def _hs256_signature(key: bytes, claims: dict) -> str:
    signing_input = f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64(claims)}".encode()
    digest = hmac.new(key, signing_input, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_claims_are_shaped_like_api_gateway_rest():
    shaped = apigw_claims({"sub": "u", "exp": 0, "iat": 0, "auth_time": 5, "email_verified": True,
                           "cognito:groups": ["a", "b"]})
    assert shaped == {
        "sub": "u",
        "exp": "Thu Jan 01 00:00:00 UTC 1970",
        "iat": "Thu Jan 01 00:00:00 UTC 1970",
        "auth_time": "5",
        "email_verified": "true",
        "cognito:groups": "[a, b]",
    }


def test_api_gateway_event_shape():
    event = api_gateway_event(
        method="GET", path="/v1/facts/f1", headers=[("Accept", "a"), ("X-Dup", "1"), ("X-Dup", "2")],
        query=[("s", "x"), ("s", "y")], body=b"", source_ip="127.0.0.1", claims={"sub": "u"},
        host="127.0.0.1:3000",
    )
    assert event["resource"] == "/v1/{proxy+}"
    assert event["pathParameters"] == {"proxy": "facts/f1"}
    assert event["headers"]["X-Dup"] == "2" and event["multiValueHeaders"]["X-Dup"] == ["1", "2"]
    assert event["queryStringParameters"] == {"s": "y"}
    assert event["multiValueQueryStringParameters"] == {"s": ["x", "y"]}
    assert event["body"] is None and event["isBase64Encoded"] is False
    context = event["requestContext"]
    assert context["authorizer"] == {"claims": {"sub": "u"}}
    assert context["resourcePath"] == "/v1/{proxy+}" and context["httpMethod"] == "GET"
    assert context["path"] == "/local/v1/facts/f1"

    bare = api_gateway_event(method="POST", path="/v1/x", headers=[], query=[], body=b"\xff",
                             source_ip="127.0.0.1", claims=None, host="h:1")
    assert bare["queryStringParameters"] is None and "authorizer" not in bare["requestContext"]
    assert bare["isBase64Encoded"] is True and base64.b64decode(bare["body"]) == b"\xff"


def test_public_and_internal_routes():
    assert is_public("GET", "/v1/health") and is_public("GET", "/v1/openapi.json")
    assert is_public("GET", "/v1/docs") and is_public("OPTIONS", "/v1/facts")
    assert not is_public("POST", "/v1/health") and not is_public("GET", "/v1/facts")
    assert is_internal("/v1/internal/x") and not is_internal("/v1/internals")


def test_sqs_event_and_scheduled_event_shapes():
    message = {
        "MessageId": "m1", "ReceiptHandle": "r1", "Body": "{}", "MD5OfBody": "x",
        "Attributes": {"ApproximateReceiveCount": "1", "MessageGroupId": "g"},
        "MessageAttributes": {"kind": {"DataType": "String", "StringValue": "fragment"},
                              "raw": {"DataType": "Binary", "BinaryValue": b"\x01"}},
    }
    record = sqs_event([message], "arn:aws:sqs:eu-central-1:1:q.fifo")["Records"][0]
    assert record["messageId"] == "m1" and record["eventSource"] == "aws:sqs"
    assert record["attributes"]["MessageGroupId"] == "g"
    assert record["messageAttributes"]["kind"]["stringValue"] == "fragment"
    assert record["messageAttributes"]["raw"]["binaryValue"] == "AQ=="
    event = scheduled_event("123456789012", dry_run=True)
    assert event["detail-type"] == "Scheduled Event" and event["detail"] == {"dry_run": True}
    assert scheduled_event()["detail"] == {}


def test_batch_item_failure_rules():
    ids = ["a", "b"]
    assert failed_message_ids(None, ids) == set()
    assert failed_message_ids({}, ids) == set()
    assert failed_message_ids({"batchItemFailures": []}, ids) == set()
    assert failed_message_ids({"batchItemFailures": [{"itemIdentifier": "b"}]}, ids) == {"b"}
    # Lambda fails the whole batch for an empty, null or unknown identifier.
    for bad in ("", None, "zzz"):
        assert failed_message_ids({"batchItemFailures": [{"itemIdentifier": bad}]}, ids) == {"a", "b"}
    assert failed_message_ids({"batchItemFailures": [{"id": "a"}]}, ids) == {"a", "b"}


def test_integration_response_merges_headers_and_decodes_base64():
    status, headers, body = _integration_response(
        {"statusCode": 201, "headers": {"A": "1", "B": "single"}, "multiValueHeaders": {"b": ["m1", "m2"]},
         "body": base64.b64encode(b"\x00").decode(), "isBase64Encoded": True}
    )
    assert status == 201 and body == b"\x00"
    assert headers == {"b": ["m1", "m2"], "A": ["1"]}
    for malformed in (None, "text", {"body": "x"}, {"statusCode": 200, "body": {"not": "a string"}}):
        with pytest.raises((ValueError, TypeError)):
            _integration_response(malformed)


def test_attribute_encoding_round_trip():
    value = {"M": {"b": {"B": b"\x00\xff"}, "bs": {"BS": [b"\x01"]},
                   "l": {"L": [{"N": "1"}, {"NULL": True}]}}}
    encoded = encode_attribute(value)
    assert json.loads(json.dumps(encoded)) == encoded
    assert decode_attribute(encoded) == value


def test_atomic_write_replaces_and_is_owner_only(tmp_path):
    path = tmp_path / "d" / "f.json"
    atomic_write(path, b"one")
    atomic_write(path, b"two")
    assert path.read_bytes() == b"two"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in path.parent.iterdir()] == ["f.json"]


def test_config_from_env_and_handler_environment(tmp_path):
    env = {"LTM_HOME": str(tmp_path), "LTM_PORT": "3100", "LTM_EXTRACT_HANDLER": "m.h",
           "AWS_ENDPOINT_URL_DYNAMODB": "http://elsewhere", "AWS_PROFILE": "prod"}
    config = StackConfig.from_env(env)
    assert config.home == Path(tmp_path).resolve() and config.api_port == 3100
    assert config.handlers["extract"] == "m.h" and config.emulator_port_fallback is True
    values = handler_environment(
        endpoint="http://127.0.0.1:1", table_name="t", extraction_queue_url="e", maintenance_queue_url="m",
        vector_path=tmp_path / "vectors", env=env,
    )
    assert values["AWS_ENDPOINT_URL"] == "http://127.0.0.1:1"
    assert values["AWS_DEFAULT_REGION"] == "eu-central-1"
    assert values["LTM_LOCAL_VECTOR_PATH"] == str(tmp_path / "vectors")
    assert values["AWS_ENDPOINT_URL_DYNAMODB"] is None and values["AWS_PROFILE"] is None
    assert "OPENAI_API_KEY" not in values  # passes through untouched
    assert model_banner({}).startswith("no model configured")
    assert model_banner({"OPENAI_API_KEY": "k"}).startswith("model configured")
    assert os.environ.get("LTM_PORT") != "3100"  # from_env read the mapping, not os.environ
