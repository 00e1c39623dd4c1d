"""Move dead-lettered messages back to their source queue (the local StartMessageMoveTask)."""

from __future__ import annotations

import time

from .emulator import QueueRef, client

_SEND_ATTRIBUTE_KEYS = ("DataType", "StringValue", "BinaryValue")


def redrive(endpoint: str, queue: QueueRef, timeout_s: float = 30.0) -> int:
    """Send every DLQ message back to the source queue, then delete it from the DLQ.

    FIFO messages keep their MessageGroupId (order within a user) and MessageDeduplicationId.
    Note: real SQS drops a send whose dedup id it saw in the last 5 minutes; moto only dedups
    against messages still in the queue, so a quick local redrive always goes through.
    """
    sqs = client("sqs", endpoint)
    moved = 0
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        messages = sqs.receive_message(
            QueueUrl=queue.dlq_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=0,
            VisibilityTimeout=30,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            break
        for message in messages:
            attributes = message.get("Attributes", {})
            send: dict = {"QueueUrl": queue.url, "MessageBody": message["Body"]}
            if message.get("MessageAttributes"):
                send["MessageAttributes"] = {
                    name: {key: value[key] for key in _SEND_ATTRIBUTE_KEYS if key in value}
                    for name, value in message["MessageAttributes"].items()
                }
            if queue.spec.fifo:
                send["MessageGroupId"] = attributes["MessageGroupId"]
                if attributes.get("MessageDeduplicationId"):
                    send["MessageDeduplicationId"] = attributes["MessageDeduplicationId"]
            sqs.send_message(**send)
            # Deleted only after the send succeeded: a crash in between duplicates, never loses.
            sqs.delete_message(QueueUrl=queue.dlq_url, ReceiptHandle=message["ReceiptHandle"])
            moved += 1
    return moved
