"""A cloud in a box: moto with the table and queues from the shared schema, and the env the
functions get from CDK. The handlers run unmodified."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

EVENTS = Path(__file__).resolve().parents[2] / "events"


@dataclass
class Cloud:
    table: str
    extraction_queue: str
    extraction_dlq: str
    maintenance_queue: str

    def receive(self, queue_url: str, max_messages: int = 10) -> list[dict]:
        import boto3

        return (
            boto3.client("sqs")
            .receive_message(QueueUrl=queue_url, MaxNumberOfMessages=max_messages, AttributeNames=["All"])
            .get("Messages", [])
        )


@pytest.fixture
def cloud(aws, monkeypatch, tmp_path) -> Iterator[Cloud]:
    import boto3

    from health_ltm import wiring
    from health_ltm.schema import (
        EXTRACTION_QUEUE,
        MAINTENANCE_QUEUE,
        queue_attributes,
        queue_name,
        table_definition,
    )

    boto3.client("dynamodb").create_table(**table_definition("health-ltm-it"))
    sqs = boto3.client("sqs")
    urls = {}
    for spec in (EXTRACTION_QUEUE, MAINTENANCE_QUEUE):
        dlq = sqs.create_queue(
            QueueName=queue_name("it", spec, dead_letter=True), Attributes=queue_attributes(spec)
        )["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        urls[spec.name] = sqs.create_queue(
            QueueName=queue_name("it", spec), Attributes=queue_attributes(spec, dlq_arn)
        )["QueueUrl"]
        urls[f"{spec.name}-dlq"] = dlq
    monkeypatch.setenv("LTM_TABLE_NAME", "health-ltm-it")
    monkeypatch.setenv("LTM_EXTRACTION_QUEUE_URL", urls["extraction"])
    monkeypatch.setenv("LTM_MAINTENANCE_QUEUE_URL", urls["maintenance"])
    monkeypatch.setenv("LTM_LOCAL_VECTOR_PATH", str(tmp_path / "vectors"))
    wiring.reset()
    yield Cloud("health-ltm-it", urls["extraction"], urls["extraction-dlq"], urls["maintenance"])
    wiring.reset()


def load_event(name: str) -> dict:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


def context(function: str = "api"):
    from ltm_local.invoke import LambdaContext

    return LambdaContext(function, timeout_s=30)


def api_event(
    method: str,
    path: str,
    user: str | None = "alice",
    body: dict | None = None,
    query: dict | None = None,
    headers: dict | None = None,
) -> dict:
    """An API Gateway REST proxy event like the real one, for any route and user."""
    event = load_event("api_get_facts.json")
    event["httpMethod"] = method
    event["path"] = path
    event["requestContext"]["httpMethod"] = method
    event["requestContext"]["path"] = "/prod" + path
    event["pathParameters"] = {"proxy": path.removeprefix("/v1/")}
    event["queryStringParameters"] = query
    event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} if query else None
    all_headers = dict(event["headers"])
    all_headers.update(headers or {})
    if body is not None:
        all_headers["Content-Type"] = "application/json"
        event["body"] = json.dumps(body, ensure_ascii=False)
    else:
        event["body"] = None
    event["headers"] = all_headers
    event["multiValueHeaders"] = {k: [v] for k, v in all_headers.items()}
    if user is None:
        event["requestContext"].pop("authorizer", None)
    else:
        event["requestContext"]["authorizer"]["claims"]["sub"] = user
        event["requestContext"]["authorizer"]["claims"]["cognito:username"] = user
    return event


def call(event: dict) -> tuple[int, dict | str | None]:
    from health_ltm.handlers.api import handler

    response = handler(event, context("api"))
    body = response.get("body")
    try:
        parsed = json.loads(body) if body else None
    except json.JSONDecodeError:
        parsed = body
    return response["statusCode"], parsed


def sqs_event_from(cloud: Cloud, queue_url: str, arn_name: str) -> dict:
    """Turn the messages really waiting in the queue into the batch Lambda would receive."""
    from ltm_local.events import sqs_event
    from tests.fakes.sqs import queue_arn

    return sqs_event(cloud.receive(queue_url), queue_arn(arn_name))


def drain_extraction(cloud: Cloud) -> dict:
    """Run the extract handler over what is queued, deleting what it reports done."""
    import boto3

    from health_ltm.handlers.extract import handler

    event = sqs_event_from(cloud, cloud.extraction_queue, "it-extraction.fifo")
    if not event["Records"]:
        return {"batchItemFailures": []}
    result = handler(event, context("extract"))
    failed = {f["itemIdentifier"] for f in result["batchItemFailures"]}
    sqs = boto3.client("sqs")
    for record in event["Records"]:
        if record["messageId"] not in failed:
            sqs.delete_message(QueueUrl=cloud.extraction_queue, ReceiptHandle=record["receiptHandle"])
    return result
