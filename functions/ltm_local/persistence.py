"""Snapshots of the emulator's state, so data survives a restart of ``ltm run``.

* table items: Scan, written as DynamoDB JSON lines (``B``/``BS`` values base64, like a DynamoDB export)
* queue messages: read from moto's SQS backend (a ReceiveMessage would change receive counts and
  visibility), with their ids, group/dedup ids, attributes and receive counts; in-flight messages
  come back visible, as if their visibility timeout had run out.

Files are written atomically (tmp + rename) and only when their content changed. A crash loses at
most the last snapshot interval.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .emulator import Resources, client

log = logging.getLogger("ltm.persistence")

_FORMAT = 1


class SnapshotError(RuntimeError):
    pass


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write to a tmp file in the same directory, fsync, rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# --- DynamoDB JSON <-> JSON-safe ------------------------------------------------------------------

def encode_attribute(value: dict) -> dict:
    """A boto3 low-level AttributeValue as JSON (bytes as base64)."""
    (kind, inner), = value.items()
    if kind == "B":
        return {"B": base64.b64encode(inner).decode("ascii")}
    if kind == "BS":
        return {"BS": [base64.b64encode(item).decode("ascii") for item in inner]}
    if kind == "M":
        return {"M": {key: encode_attribute(item) for key, item in inner.items()}}
    if kind == "L":
        return {"L": [encode_attribute(item) for item in inner]}
    return {kind: inner}


def decode_attribute(value: dict) -> dict:
    (kind, inner), = value.items()
    if kind == "B":
        return {"B": base64.b64decode(inner)}
    if kind == "BS":
        return {"BS": [base64.b64decode(item) for item in inner]}
    if kind == "M":
        return {"M": {key: decode_attribute(item) for key, item in inner.items()}}
    if kind == "L":
        return {"L": [decode_attribute(item) for item in inner]}
    return {kind: inner}


def _tag_bytes(value: Any) -> Any:
    """Generic JSON-safe form for moto's in-memory message fields (message attributes may hold bytes)."""
    if isinstance(value, bytes | bytearray):
        return {"__b64__": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {key: _tag_bytes(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_tag_bytes(item) for item in value]
    return value


def _untag_bytes(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__b64__"}:
            return base64.b64decode(value["__b64__"])
        return {key: _untag_bytes(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_untag_bytes(item) for item in value]
    return value


# --- moto SQS backend access ------------------------------------------------------------------------

_MESSAGE_FIELDS = (
    "id", "body", "message_attributes", "sender_id", "sent_timestamp", "approximate_first_receive_timestamp",
    "approximate_receive_count", "deduplication_id", "group_id", "sequence_number", "delayed_until",
    "system_attributes",
)


def _moto_queue(account_id: str, region: str, name: str):
    from moto.sqs.models import sqs_backends

    return sqs_backends[account_id][region].queues.get(name)


def _dump_queue(queue) -> list[dict]:
    with queue._messages_lock:
        messages = list(queue._messages)
    return [_tag_bytes({name: getattr(message, name) for name in _MESSAGE_FIELDS}) for message in messages]


def _load_queue(queue, records: list[dict]) -> int:
    from moto.sqs.models import Message

    restored = []
    for record in records:
        record = _untag_bytes(record)
        message = Message(record["id"], record["body"], record.get("system_attributes") or {})
        for name in _MESSAGE_FIELDS:
            if name in record and name not in ("id", "body", "system_attributes"):
                setattr(message, name, record[name])
        message.visible_at = 0.0  # in flight when the stack stopped: visible again now
        restored.append(message)
    with queue._messages_lock:
        queue._messages.extend(restored)
        queue._messages_lock.notify_all()
    return len(restored)


# --- snapshots ------------------------------------------------------------------------------------------

def _unreadable(path: Path, err: Exception) -> str:
    return f"cannot read {path}: {err.__class__.__name__}; move it away to start with empty data"


class Snapshotter:
    def __init__(self, data_dir: Path, endpoint: str, resources: Resources, region: str) -> None:
        self._dir = data_dir
        self._endpoint = endpoint
        self._resources = resources
        self._region = region
        self._last_digest: dict[Path, str] = {}

    @property
    def table_path(self) -> Path:
        return self._dir / f"table-{self._resources.table_name}.jsonl"

    @property
    def queues_path(self) -> Path:
        return self._dir / "queues.json"

    def _write_if_changed(self, path: Path, data: bytes) -> bool:
        digest = hashlib.sha256(data).hexdigest()
        if self._last_digest.get(path) == digest:
            return False
        atomic_write(path, data)
        self._last_digest[path] = digest
        return True

    def snapshot_table(self) -> bool:
        dynamodb = client("dynamodb", self._endpoint)
        lines = []
        for page in dynamodb.get_paginator("scan").paginate(TableName=self._resources.table_name):
            for item in page.get("Items", []):
                encoded = {name: encode_attribute(value) for name, value in item.items()}
                lines.append(json.dumps(encoded, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
        lines.sort()  # Scan order is not stable; sorted lines keep the digest meaningful
        data = ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8")
        return self._write_if_changed(self.table_path, data)

    def snapshot_queues(self) -> bool:
        account = self._resources.account_id
        queues = {}
        for name in self._resources.queue_names():
            queue = _moto_queue(account, self._region, name)
            if queue is not None:
                queues[name] = _dump_queue(queue)
        document = {"format": _FORMAT, "queues": queues}
        data = json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")
        return self._write_if_changed(self.queues_path, data)

    def snapshot(self, table_dirty: bool = True) -> None:
        started = time.monotonic()
        wrote_table = self.snapshot_table() if table_dirty else False
        wrote_queues = self.snapshot_queues()
        if wrote_table or wrote_queues:
            log.debug("snapshot written in %.0f ms", (time.monotonic() - started) * 1000)

    def restore(self) -> tuple[int, int]:
        """Load the snapshot into a fresh emulator. Returns (items, messages)."""
        items = self._restore_table()
        messages = self._restore_queues()
        return items, messages

    def _restore_table(self) -> int:
        path = self.table_path
        if not path.exists():
            return 0
        raw = path.read_bytes()
        self._last_digest[path] = hashlib.sha256(raw).hexdigest()
        try:
            items = [
                {name: decode_attribute(value) for name, value in json.loads(line).items()}
                for line in raw.decode("utf-8").splitlines()
                if line.strip()
            ]
        except (ValueError, KeyError) as err:
            # Refuse to start: starting empty would overwrite the data with the next snapshot.
            raise SnapshotError(_unreadable(path, err)) from err
        from health_ltm.storage.migrate import migrate_items

        # Snapshots written before issue 12 hold CTX#F#<id> fact keys: moved to the section-keyed
        # layout here, once; the next snapshot is written in the new layout.
        items, moved = migrate_items(items)
        if moved:
            log.info("snapshot %s: %d items moved to the section-keyed layout", path.name, moved)
        dynamodb = client("dynamodb", self._endpoint)
        table = self._resources.table_name
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": item}} for item in items[start:start + 25]]
            pending: dict = {table: requests}
            for _attempt in range(10):
                response = dynamodb.batch_write_item(RequestItems=pending)
                pending = response.get("UnprocessedItems") or {}
                if not pending:
                    break
            else:
                raise SnapshotError(f"could not restore all items of {path}")
        return len(items)

    def _restore_queues(self) -> int:
        path = self.queues_path
        if not path.exists():
            return 0
        raw = path.read_bytes()
        self._last_digest[path] = hashlib.sha256(raw).hexdigest()
        try:
            document = json.loads(raw)
            queues = document["queues"]
        except (ValueError, KeyError) as err:
            raise SnapshotError(_unreadable(path, err)) from err
        count = 0
        account = self._resources.account_id
        for name, records in queues.items():
            queue = _moto_queue(account, self._region, name)
            if queue is None:
                log.warning("snapshot has messages for queue %s, which no longer exists: skipped", name)
                continue
            count += _load_queue(queue, records)
        return count
