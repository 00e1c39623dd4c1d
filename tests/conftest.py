"""Shared fixtures: a clean environment with no AWS account and no model key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

# Before anything imports boto3 or the settings: no real account, no key, no endpoint.
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "eu-central-1",
        "POWERTOOLS_TRACE_DISABLED": "1",
        "POWERTOOLS_METRICS_NAMESPACE": "HealthLTM",
        "POWERTOOLS_SERVICE_NAME": "health-ltm",
        "POWERTOOLS_DEV": "0",
    }
)
for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AWS_ENDPOINT_URL", "LTM_OPENAI_SECRET_ARN"):
    os.environ.pop(name, None)

from health_ltm.domain.clock import FixedClock  # noqa: E402

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


@pytest.fixture
def aws() -> Iterator[None]:
    """moto in-process, with the table and queues built from the same schema as CDK."""
    from moto import mock_aws

    with mock_aws():
        yield


@pytest.fixture
def dynamo_table(aws) -> str:
    import boto3

    from health_ltm.schema import table_definition

    name = "health-ltm-test"
    boto3.client("dynamodb").create_table(**table_definition(name))
    return name


@pytest.fixture(params=["memory", "dynamodb"])
def repository(request):
    """Both implementations of the repository port, through the same cases."""
    if request.param == "memory":
        from health_ltm.storage.memory import InMemoryRepository

        return InMemoryRepository()
    table = request.getfixturevalue("dynamo_table")
    from health_ltm.storage.dynamodb import DynamoRepository

    return DynamoRepository(table)
