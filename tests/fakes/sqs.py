"""SQS messages for driving the handlers, shaped like the samples in ``events/``.

``received`` gives a message as ReceiveMessage (AttributeNames=All) returns it; the local stack's
``ltm_local.events.sqs_event`` turns received messages, these or a queue's real ones, into the
event Lambda delivers, so every test batch has the shape the local stack's pollers send.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from ltm_local.config import REGION

EVENTS = Path(__file__).resolve().parents[2] / "events"
ACCOUNT = "123456789012"


def queue_arn(name: str) -> str:
    return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"


@cache
def _sample_attributes(fifo: bool) -> dict[str, str]:
    name = "sqs_extraction_batch.json" if fifo else "sqs_maintenance_batch.json"
    records = json.loads((EVENTS / name).read_text(encoding="utf-8"))["Records"]
    return dict(records[0]["attributes"])


def received(body: str, message_id: str = "m-1", *, group: str | None = None) -> dict:
    """A received message; with ``group``, from a FIFO queue (deduplicated by its id)."""
    attributes = _sample_attributes(group is not None) | (
        {"MessageGroupId": group, "MessageDeduplicationId": message_id} if group is not None else {}
    )
    return {
        "MessageId": message_id,
        "ReceiptHandle": f"rh-{message_id}",
        "Body": body,
        "Attributes": attributes,
        "MD5OfBody": hashlib.md5(body.encode("utf-8"), usedforsecurity=False).hexdigest(),
    }
