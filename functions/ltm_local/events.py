"""Lambda event shapes, as AWS delivers them: API Gateway REST proxy, SQS batch, EventBridge schedule."""

from __future__ import annotations

import base64
import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

from .config import API_ID, REGION, STACK_PREFIX, STAGE

PROXY_RESOURCE = "/v1/{proxy+}"


def _multi_to_single(multi: dict[str, list[str]]) -> dict[str, str] | None:
    # API Gateway keeps the last value of a repeated header or query parameter in the single-value map.
    return {name: values[-1] for name, values in multi.items()} or None


def api_gateway_event(
    *,
    method: str,
    path: str,
    headers: Iterable[tuple[str, str]],
    query: Iterable[tuple[str, str]],
    body: bytes,
    source_ip: str,
    claims: dict[str, str] | None,
    host: str,
    account_id: str = "123456789012",
) -> dict:
    """A REST API (v1 payload) proxy event for the ``/v1/{proxy+}`` resource."""
    multi_headers: dict[str, list[str]] = {}
    for name, value in headers:
        multi_headers.setdefault(name, []).append(value)
    # API Gateway adds these in front of every integration.
    for name, value in (("X-Forwarded-For", source_ip), ("X-Forwarded-Proto", "http"),
                        ("X-Forwarded-Port", host.rpartition(":")[2] or "80")):
        if not any(existing.lower() == name.lower() for existing in multi_headers):
            multi_headers[name] = [value]
    multi_query: dict[str, list[str]] = {}
    for name, value in query:
        multi_query.setdefault(name, []).append(value)

    if not body:
        event_body, is_base64 = None, False
    else:
        try:
            event_body, is_base64 = body.decode("utf-8"), False
        except UnicodeDecodeError:
            event_body, is_base64 = base64.b64encode(body).decode("ascii"), True

    proxy = path[len("/v1/"):] if path.startswith("/v1/") else None
    now = datetime.now(tz=UTC)
    request_id = str(uuid.uuid4())
    request_context: dict = {
        "accountId": account_id,
        "apiId": API_ID,
        "domainName": host,
        "domainPrefix": host.split(".")[0],
        "extendedRequestId": base64.b32encode(uuid.uuid4().bytes).decode("ascii")[:16],
        "httpMethod": method,
        "identity": {
            "accessKey": None,
            "accountId": None,
            "caller": None,
            "cognitoAuthenticationProvider": None,
            "cognitoAuthenticationType": None,
            "cognitoIdentityId": None,
            "cognitoIdentityPoolId": None,
            "principalOrgId": None,
            "sourceIp": source_ip,
            "user": None,
            "userAgent": multi_headers.get("User-Agent", [None])[-1],
            "userArn": None,
        },
        "path": f"/{STAGE}{path}",
        "protocol": "HTTP/1.1",
        "requestId": request_id,
        "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
        "requestTimeEpoch": int(now.timestamp() * 1000),
        "resourceId": "local",
        "resourcePath": PROXY_RESOURCE,
        "stage": STAGE,
    }
    if claims is not None:
        request_context["authorizer"] = {"claims": claims}
    return {
        "resource": PROXY_RESOURCE,
        "path": path,
        "httpMethod": method,
        "headers": _multi_to_single(multi_headers),
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": _multi_to_single(multi_query),
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": {"proxy": proxy} if proxy else None,
        "stageVariables": None,
        "requestContext": request_context,
        "body": event_body,
        "isBase64Encoded": is_base64,
    }


def _lambda_message_attributes(attributes: dict) -> dict:
    """SQS API message attributes -> the camelCase shape Lambda puts in SQS records."""
    shaped = {}
    for name, value in attributes.items():
        binary = value.get("BinaryValue")
        entry = {
            "stringListValues": value.get("StringListValues", []),
            "binaryListValues": [
                base64.b64encode(item).decode("ascii") for item in value.get("BinaryListValues", [])
            ],
            "dataType": value.get("DataType"),
        }
        if value.get("StringValue") is not None:
            entry["stringValue"] = value["StringValue"]
        if binary is not None:
            if isinstance(binary, bytes):
                binary = base64.b64encode(binary).decode("ascii")
            entry["binaryValue"] = binary
        shaped[name] = entry
    return shaped


def sqs_event(messages: list[dict], queue_arn: str, region: str = REGION) -> dict:
    """ReceiveMessage results (AttributeNames=All) -> the event an SQS event source mapping delivers."""
    records = []
    for message in messages:
        record = {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": dict(message.get("Attributes", {})),
            "messageAttributes": _lambda_message_attributes(message.get("MessageAttributes", {})),
            "md5OfBody": message.get("MD5OfBody"),
            "md5OfMessageAttributes": message.get("MD5OfMessageAttributes"),
            "eventSource": "aws:sqs",
            "eventSourceARN": queue_arn,
            "awsRegion": region,
        }
        records.append(record)
    return {"Records": records}


def scheduled_event(account_id: str = "123456789012", dry_run: bool = False, region: str = REGION) -> dict:
    """What an EventBridge schedule rule sends; ``detail`` is {"dry_run": true} for ``ltm tick --dry-run``."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": account_id,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "region": region,
        "resources": [f"arn:aws:events:{region}:{account_id}:rule/{STACK_PREFIX}-maintain-schedule"],
        "detail": {"dry_run": True} if dry_run else {},
    }
