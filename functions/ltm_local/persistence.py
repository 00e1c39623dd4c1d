"""Snapshots of the emulator's state, so data survives a restart of ``ltm run``.

* table items: Scan, written as DynamoDB JSON lines (``B``/``BS`` values base64, like a DynamoDB export)
* queue messages: read from moto's SQS backend (a ReceiveMessage would change receive counts and
  visibility), with their ids, group/dedup ids, attributes and receive counts; in-flight messages
  come back visible, as if their visibility timeout had run out.

Files are written atomically (tmp + rename) and only when their content changed. Between snapshots
every acknowledged change is in the write-ahead journal (``Journal`` below): a crash loses nothing
the emulator answered.
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
        self.table_lock = None  # the emulator's DynamoDB lock (set by the stack)

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
        """Stream the table to the snapshot file straight from moto's backend, a chunk of items at a
        time under the emulator's DynamoDB lock: memory stays bounded by a chunk whatever the table's
        size (a paginated Scan made moto deep-copy the whole table for every page, and the lines were
        all held and sorted in memory). Consistency across chunks is not needed: the journal segments
        from before the snapshot started are replayed over it (see Journal)."""
        import contextlib

        from moto.core import DEFAULT_ACCOUNT_ID
        from moto.dynamodb.models import dynamodb_backends

        from .emulator import _json_safe

        lock = self.table_lock if self.table_lock is not None else contextlib.nullcontext()
        table = dynamodb_backends[DEFAULT_ACCOUNT_ID][self._region].get_table(self._resources.table_name)
        with lock:
            keys = [(h, r) for h, ranges in table.items.items() for r in list(ranges)]
        path = self.table_path
        path.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "wb") as handle:
                for start in range(0, len(keys), 500):
                    with lock:
                        items = [table.items.get(h, {}).get(r) for h, r in keys[start:start + 500]]
                        lines = [
                            json.dumps(_json_safe(item.to_json()["Attributes"]), ensure_ascii=False,
                                       sort_keys=True, separators=(",", ":"))
                            for item in items if item is not None
                        ]
                    data = "".join(line + "\n" for line in lines).encode("utf-8")
                    digest.update(data)
                    handle.write(data)
                handle.flush()
                if self._last_digest.get(path) == digest.hexdigest():
                    Path(tmp).unlink(missing_ok=True)
                    return False
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._last_digest[path] = digest.hexdigest()
        return True

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

    def count_items(self) -> int:
        dynamodb = client("dynamodb", self._endpoint)
        return sum(page.get("Count", 0) for page in dynamodb.get_paginator("scan").paginate(
            TableName=self._resources.table_name, Select="COUNT"))

    def count_messages(self) -> int:
        count = 0
        for name in self._resources.queue_names():
            queue = _moto_queue(self._resources.account_id, self._region, name)
            if queue is not None:
                with queue._messages_lock:
                    count += len(queue._messages)
        return count

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
                # Split on "\n" bytes only: JSON escapes it inside strings, while U+0085, U+2028,
                # U+2029 and the like stay raw in the text (str.splitlines() would cut there).
                for line in raw.split(b"\n")
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


# --- write-ahead journal -------------------------------------------------------------------------------
#
# Every state change the emulator acknowledges is first appended here and fsynced (emulator.py's
# middleware calls append() before the HTTP response leaves): a DynamoDB write as the after-images
# of the items it touched, an SQS change as the full content of the queues it touched. Replaying
# after-images and queue contents is idempotent and converges, so a snapshot may be taken while
# writes go on: rotate() starts a new segment, the snapshot is written, and only then are the
# older segments deleted; on start the snapshot is loaded and every remaining segment replayed in
# order. A record is one line "<crc32 hex> <json, ASCII only>\n": no Unicode separator or control
# character can appear raw in it, and a torn last line (crash mid-append, never acknowledged) fails
# its checksum and is dropped.

_SEGMENT_PREFIX = "journal-"
_SEGMENT_SUFFIX = ".log"


def encode_record(record: dict) -> bytes:
    import zlib

    payload = json.dumps(record, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode("ascii")
    return b"%08x " % zlib.crc32(payload) + payload + b"\n"


def decode_records(raw: bytes) -> tuple[list[dict], bool]:
    """The records of one segment, and whether it ended cleanly (False: a torn tail was dropped)."""
    import zlib

    records: list[dict] = []
    lines = raw.split(b"\n")
    clean = lines[-1] == b""
    for line in lines[:-1] if clean else lines:
        if not line:
            continue
        crc, _, payload = line.partition(b" ")
        try:
            if int(crc, 16) != zlib.crc32(payload):
                return records, False
            records.append(json.loads(payload))
        except ValueError:
            return records, False
    return records, clean


class Journal:
    def __init__(self, data_dir: Path) -> None:
        import threading

        self._dir = data_dir
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._number = max(self.segment_numbers(), default=0)
        self.appended = 0  # records in the current segment
        self.bytes = 0

    def segment_numbers(self) -> list[int]:
        numbers = []
        for path in self._dir.glob(f"{_SEGMENT_PREFIX}*{_SEGMENT_SUFFIX}"):
            try:
                numbers.append(int(path.name[len(_SEGMENT_PREFIX):-len(_SEGMENT_SUFFIX)]))
            except ValueError:
                continue
        return sorted(numbers)

    def _path(self, number: int) -> Path:
        return self._dir / f"{_SEGMENT_PREFIX}{number:08d}{_SEGMENT_SUFFIX}"

    def read_all(self) -> list[dict]:
        records: list[dict] = []
        for number in self.segment_numbers():
            path = self._path(number)
            batch, clean = decode_records(path.read_bytes())
            if not clean:
                log.warning("journal %s: torn last record dropped (it was never acknowledged)", path.name)
            records.extend(batch)
        return records

    def open(self) -> None:
        """Start appending to a fresh segment after the existing ones."""
        with self._lock:
            self._open_next()

    def _open_next(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        self._number += 1
        self._fd = os.open(self._path(self._number), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        _fsync_dir(self._dir)
        self.appended = 0
        self.bytes = 0

    @property
    def lock(self):
        """Held by the emulator around 'apply a change, read its after-state, append'."""
        return self._lock

    def append_locked(self, record: dict) -> None:
        if self._fd is None:
            return
        data = encode_record(record)
        os.write(self._fd, data)
        os.fsync(self._fd)
        self.appended += 1
        self.bytes += len(data)

    def rotate(self) -> list[Path]:
        """New segment; returns the older segments, to delete once a snapshot covers them."""
        with self._lock:
            older = [self._path(number) for number in self.segment_numbers() if number <= self._number]
            self._open_next()
        return older

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    @staticmethod
    def discard(paths: list[Path]) -> None:
        for path in paths:
            path.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replay(records: list[dict], endpoint: str, resources: Resources, region: str) -> tuple[int, int]:
    """Apply journal records (after-images, queue contents) in order; returns (items, queues) touched."""
    dynamodb = client("dynamodb", endpoint)
    items = queues = 0
    account = resources.account_id
    for record in records:
        if record.get("t") == "ddb":
            for change in record["items"]:
                key = {name: decode_attribute(value) for name, value in change["k"].items()}
                if change.get("v") is None:
                    dynamodb.delete_item(TableName=record["table"], Key=key)
                else:
                    item = {name: decode_attribute(value) for name, value in change["v"].items()}
                    dynamodb.put_item(TableName=record["table"], Item=item)
                items += 1
        elif record.get("t") == "sqs":
            for name, messages in record["queues"].items():
                queue = _moto_queue(account, region, name)
                if queue is None:
                    continue
                with queue._messages_lock:
                    queue._messages.clear()
                _load_queue(queue, messages)
                queues += 1
    return items, queues


def dump_queue(queue) -> list[dict]:
    return _dump_queue(queue)
