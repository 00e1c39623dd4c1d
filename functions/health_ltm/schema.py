"""One source of truth for the table's keys and indexes and the queues' attributes.

The CDK stack (infra/) and the local stack (ltm_local) both build their resources from these
values, so the emulator and AWS never disagree about a key name or a redrive count.
"""

from __future__ import annotations

from dataclasses import dataclass

PARTITION_KEY = "PK"
SORT_KEY = "SK"
TTL_ATTRIBUTE = "expires_at"

# Sparse GSI: only the per-user "active on day D" marker items carry these two attributes.
ACTIVE_USERS_INDEX = "active-users"
ACTIVE_DAY_ATTRIBUTE = "active_day"
ACTIVE_USER_ATTRIBUTE = "active_user"


@dataclass(frozen=True)
class QueueSpec:
    name: str
    fifo: bool
    visibility_timeout_s: int
    max_receive_count: int
    retention_days: int
    batch_size: int
    content_based_dedup: bool = False


# The extract function's timeout must stay below the visibility timeout (AWS recommends 1/6 or less
# of it for SQS event sources; we keep 6x).
EXTRACT_TIMEOUT_S = 60
EXTRACTION_QUEUE = QueueSpec(
    name="extraction",
    fifo=True,
    visibility_timeout_s=EXTRACT_TIMEOUT_S * 6,
    max_receive_count=5,
    retention_days=4,
    batch_size=5,
)
MAINTAIN_TIMEOUT_S = 120
MAINTENANCE_QUEUE = QueueSpec(
    name="maintenance",
    fifo=False,
    visibility_timeout_s=MAINTAIN_TIMEOUT_S * 6,
    max_receive_count=3,
    retention_days=4,
    batch_size=10,
)
DLQ_RETENTION_DAYS = 14


def table_definition(table_name: str) -> dict:
    """CreateTable arguments (boto3 shape) for the local stack and tests; CDK mirrors them."""
    return {
        "TableName": table_name,
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [
            {"AttributeName": PARTITION_KEY, "AttributeType": "S"},
            {"AttributeName": SORT_KEY, "AttributeType": "S"},
            {"AttributeName": ACTIVE_DAY_ATTRIBUTE, "AttributeType": "S"},
            {"AttributeName": ACTIVE_USER_ATTRIBUTE, "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
            {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": ACTIVE_USERS_INDEX,
                "KeySchema": [
                    {"AttributeName": ACTIVE_DAY_ATTRIBUTE, "KeyType": "HASH"},
                    {"AttributeName": ACTIVE_USER_ATTRIBUTE, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    }


def queue_attributes(spec: QueueSpec, dlq_arn: str | None = None) -> dict[str, str]:
    """CreateQueue attributes (boto3 shape) for a queue; redrive to dlq_arn when given."""
    import json

    attributes = {
        "VisibilityTimeout": str(spec.visibility_timeout_s),
        "MessageRetentionPeriod": str(spec.retention_days * 86400),
    }
    if spec.fifo:
        attributes["FifoQueue"] = "true"
        attributes["ContentBasedDeduplication"] = "true" if spec.content_based_dedup else "false"
    if dlq_arn:
        attributes["RedrivePolicy"] = json.dumps(
            {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(spec.max_receive_count)}
        )
    return attributes


def queue_name(stack_prefix: str, spec: QueueSpec, dead_letter: bool = False) -> str:
    base = f"{stack_prefix}-{spec.name}{'-dlq' if dead_letter else ''}"
    return f"{base}.fifo" if spec.fifo else base
