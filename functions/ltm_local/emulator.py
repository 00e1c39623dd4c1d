"""moto server (DynamoDB + SQS) on 127.0.0.1, and the table and queues the handlers expect.

The server runs in this process (ThreadedMotoServer), so moto's backends are process-global:
one stack per process at a time (tests run stacks one after another).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import io
import json
import logging
import socket
import threading
from dataclasses import dataclass

import boto3
from botocore.config import Config
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from moto.server import ThreadedMotoServer
from werkzeug.serving import make_server

from health_ltm import schema

from .config import REGION, STACK_PREFIX, TABLE_NAME

log = logging.getLogger("ltm.emulator")

# DynamoDB operations that never change data: everything else marks the table dirty for the snapshot.
_DYNAMODB_READS = frozenset(
    {
        "GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "DescribeTable", "ListTables",
        "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource", "DescribeEndpoints",
        "DescribeLimits",
    }
)

_CLIENT_CONFIG = Config(
    retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=2, read_timeout=30
)


_clients: dict[tuple[str, str], object] = {}
_clients_lock = threading.Lock()
_session: boto3.session.Session | None = None


def client(service: str, endpoint: str):
    """A boto3 client for the emulator that ignores the caller's AWS profile and credentials.

    Cached per (service, endpoint): creating a client loads its service model (~80 ms); clients are
    thread-safe, sessions are not, hence the lock.
    """
    global _session
    key = (service, endpoint)
    with _clients_lock:
        cached = _clients.get(key)
        if cached is None:
            if _session is None:
                _session = boto3.session.Session()
            cached = _session.client(
                service,
                endpoint_url=endpoint,
                region_name=REGION,
                aws_access_key_id="testing",
                aws_secret_access_key="testing",  # noqa: S106 (dummy credentials for the emulator)
                config=_CLIENT_CONFIG,
            )
            _clients[key] = cached
    return cached


class _QuietRequestHandler(MotoRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # one line per AWS call drowns everything else
        pass


_DYNAMODB_JOURNALED = frozenset(
    {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
)
# ReceiveMessage changes receive counts and may move a message to the DLQ (redrive on receive).
_SQS_JOURNALED = frozenset(
    {"SendMessage", "SendMessageBatch", "DeleteMessage", "DeleteMessageBatch", "ReceiveMessage", "PurgeQueue"}
)


def _json_safe(value):
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(item) for item in value]
    return value


def _write_keys(operation: str, request: dict) -> list[tuple[str, dict]]:
    """(table, key) of every item a DynamoDB write request may change."""
    pk, sk = schema.PARTITION_KEY, schema.SORT_KEY

    def key_of(item: dict) -> dict:
        return {name: item[name] for name in (pk, sk) if name in item}

    if operation == "PutItem":
        return [(request["TableName"], key_of(request["Item"]))]
    if operation in ("UpdateItem", "DeleteItem"):
        return [(request["TableName"], key_of(request["Key"]))]
    if operation == "BatchWriteItem":
        keys = []
        for table, requests in request.get("RequestItems", {}).items():
            for entry in requests:
                if "PutRequest" in entry:
                    keys.append((table, key_of(entry["PutRequest"]["Item"])))
                elif "DeleteRequest" in entry:
                    keys.append((table, key_of(entry["DeleteRequest"]["Key"])))
        return keys
    if operation == "TransactWriteItems":
        keys = []
        for entry in request.get("TransactItems", []):
            for kind, body in entry.items():
                if kind == "Put":
                    keys.append((body["TableName"], key_of(body["Item"])))
                elif kind in ("Update", "Delete"):
                    keys.append((body["TableName"], key_of(body["Key"])))
        return keys
    return []


def _after_images(keys: list[tuple[str, dict]]) -> dict[str, list[dict]]:
    """The items as they are now in moto's backend, by table (None = deleted)."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends
    from moto.dynamodb.models.dynamo_type import DynamoType

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][REGION]
    tables: dict[str, list[dict]] = {}
    seen: set[str] = set()
    for table_name, key in keys:
        marker = json.dumps([table_name, key], sort_keys=True, default=str)
        if marker in seen:
            continue
        seen.add(marker)
        table = backend.get_table(table_name)
        hash_value = DynamoType(key[schema.PARTITION_KEY])
        range_value = DynamoType(key[schema.SORT_KEY]) if schema.SORT_KEY in key else None
        item = table.get_item(hash_value, range_value)
        image = _json_safe(item.to_json()["Attributes"]) if item is not None else None
        tables.setdefault(table_name, []).append({"k": _json_safe(key), "v": image})
    return tables


def _queue_contents(request: dict, with_dlq: bool) -> dict[str, list[dict]]:
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.sqs.models import sqs_backends

    from .persistence import dump_queue

    name = str(request.get("QueueUrl", "")).rsplit("/", 1)[-1]
    queue = sqs_backends[DEFAULT_ACCOUNT_ID][REGION].queues.get(name)
    if queue is None:
        return {}
    contents = {name: dump_queue(queue)}
    dlq = getattr(queue, "dead_letter_queue", None)
    if with_dlq and dlq is not None:
        contents[dlq.name] = dump_queue(dlq)
    return contents


class _TableCopyShim:
    """Stands for the ``copy`` module inside moto's DynamoDB backend during a transaction: a whole
    Table is not deep-copied (returned as is), anything else is."""

    def __init__(self, real) -> None:
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)

    def deepcopy(self, value, memo=None):
        from moto.dynamodb.models.table import Table

        if isinstance(value, Table):
            return value
        return self._real.deepcopy(value, memo)


def install_moto_patches() -> None:
    """The two changes to moto's DynamoDB that keep its cost per request flat as the table grows.

    The one place moto is patched: the local stack's emulator installs them, and so does the
    benchmark's emulator process (``bench.harness``). Idempotent: each moto method is wrapped at
    most once, however often this runs. Both rely on DynamoDB requests running one at a time
    (``_DirtyTracker``'s lock).
    """
    _install_cheap_transactions()
    _install_partition_queries()


def _install_cheap_transactions() -> None:
    """moto backs up every table a TransactWriteItems touches with a deep copy of the WHOLE table
    (once per item of the transaction) to roll back on failure: time per write grows with the
    table, and so does memory churn (issue 15: 150 MB -> 8 GB after 300 fragments). Instead the
    items the transaction targets are saved (deep copies of those items only) and put back on
    failure. Safe because DynamoDB requests run one at a time here (_DirtyTracker's lock)."""
    import copy

    from moto.dynamodb import models as dynamodb_models
    from moto.dynamodb.models.dynamo_type import DynamoType

    backend_class = dynamodb_models.DynamoDBBackend
    if getattr(backend_class.transact_write_items, "_ltm_cheap", False):
        return
    original = backend_class.transact_write_items

    def transact_write_items(self, transact_items):
        saved = []
        for entry in transact_items:
            _, op = next(iter(entry.items()))
            table = self.tables.get(op.get("TableName")) if isinstance(op, dict) else None
            if table is None:
                continue
            key = op.get("Key") or op.get("Item") or {}
            try:
                hash_value = DynamoType(key[table.hash_key_attr])
                range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
            except KeyError:
                continue  # moto reports the malformed item itself
            current = table.get_item(hash_value, range_value)
            saved.append((table, hash_value, range_value, copy.deepcopy(current)))
        dynamodb_models.copy = _TableCopyShim(copy)  # type: ignore[assignment]
        try:
            return original(self, transact_items)
        except BaseException:
            for table, hash_value, range_value, item in reversed(saved):
                if range_value is None:
                    if item is None:
                        table.items.pop(hash_value, None)
                    else:
                        table.items[hash_value] = item
                elif item is None:
                    table.items.get(hash_value, {}).pop(range_value, None)
                    if hash_value in table.items and not table.items[hash_value]:
                        table.items.pop(hash_value)
                else:
                    table.items.setdefault(hash_value, {})[range_value] = item
            raise
        finally:
            dynamodb_models.copy = copy

    transact_write_items._ltm_cheap = True  # type: ignore[attr-defined]
    backend_class.transact_write_items = transact_write_items  # type: ignore[method-assign]


def _install_partition_queries() -> None:
    """moto answers a Query on the table's own key by listing AND sorting every item of the table
    (``Table.all_items()``) and keeping the partition's: time per Query grows with the table (issue
    15: the time per fragment grew with the data). A main-table Query now looks at its partition
    only. Safe because DynamoDB requests run one at a time here (_DirtyTracker's lock)."""
    from moto.dynamodb.models.table import Table

    if getattr(Table.query, "_ltm_partition", False):
        return
    original = Table.query

    def query(self, hash_key, *args, **kwargs):
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name is not None or hash_key is None or not self.range_key_attr:
            return original(self, hash_key, *args, **kwargs)
        bucket = self.items.get(hash_key)
        partition = sorted(bucket.values(), key=lambda item: item.range_key) if bucket else []
        self.all_items = lambda: partition  # an instance attribute, for this call only
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            self.__dict__.pop("all_items", None)

    query._ltm_partition = True  # type: ignore[attr-defined]
    Table.query = query  # type: ignore[method-assign]


class _DirtyTracker:
    """WSGI middleware: serialises DynamoDB requests, remembers that a write went through (snapshots
    skip idle periods), and, once a journal is attached, appends every acknowledged change to it
    (fsync) before the response is sent: what the emulator answered survives a kill -9."""

    def __init__(self, app) -> None:
        install_moto_patches()
        self._app = app
        self._dirty = threading.Event()
        self._dirty.set()  # first snapshot always runs
        # moto's DynamoDB is not safe under concurrent requests: a failed TransactWriteItems
        # restores a deep copy of the whole table taken when it started (undoing writes other
        # threads made meanwhile), and the copy itself breaks on a table changed mid-copy. DynamoDB
        # requests run one at a time here, so the emulator is linearizable like the real service.
        self._dynamodb = threading.Lock()
        self.journal = None  # persistence.Journal, attached after the restore
        self.journal_errors = 0

    def __call__(self, environ, start_response):
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        service, _, operation = target.rpartition(".")
        is_dynamodb = target.startswith("DynamoDB_")
        is_write = is_dynamodb and operation not in _DYNAMODB_READS
        journal = self.journal
        journaled = journal is not None and (
            (is_dynamodb and operation in _DYNAMODB_JOURNALED)
            or (service == "AmazonSQS" and operation in _SQS_JOURNALED)
        )
        if is_write:
            self._dirty.set()
        try:
            if journaled:
                return self._journaled(environ, start_response, is_dynamodb, operation)
            if is_dynamodb:
                with self._dynamodb:
                    return self._app(environ, start_response)
            return self._app(environ, start_response)
        finally:
            # Set again after the write is applied: a snapshot that cleared the flag mid-request
            # must not miss it.
            if is_write:
                self._dirty.set()

    def _journaled(self, environ, start_response, is_dynamodb: bool, operation: str):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        captured: dict = {}

        def capture(status, headers, exc_info=None):
            captured["status"], captured["headers"] = status, headers
            return lambda data: captured.setdefault("early", []).append(data)

        def run() -> bytes:
            result = self._app(environ, capture)
            try:
                return b"".join([*captured.get("early", []), *result])
            finally:
                if hasattr(result, "close"):
                    result.close()

        journal = self.journal
        if is_dynamodb:
            with self._dynamodb:
                payload = run()
                if captured.get("status", "").startswith("2") and journal is not None:
                    request = json.loads(body or b"{}")
                    tables = _after_images(_write_keys(operation, request))
                    with journal.lock:
                        for table, changes in tables.items():
                            journal.append_locked({"t": "ddb", "table": table, "items": changes})
        else:
            payload = run()
            if captured.get("status", "").startswith("2") and journal is not None:
                request = json.loads(body or b"{}")
                if operation != "ReceiveMessage" or json.loads(payload or b"{}").get("Messages"):
                    with journal.lock:
                        contents = _queue_contents(request, with_dlq=operation == "ReceiveMessage")
                        if contents:
                            journal.append_locked({"t": "sqs", "queues": contents})
        start_response(captured["status"], captured["headers"])
        return [payload]

    def take(self) -> bool:
        """True if something was written since the last take(); clears the flag."""
        was = self._dirty.is_set()
        self._dirty.clear()
        return was

    def mark(self) -> None:
        self._dirty.set()


class _Server(ThreadedMotoServer):
    """ThreadedMotoServer that reports bind errors instead of hanging, logs nothing per request,
    and tracks writes."""

    def __init__(self, port: int) -> None:
        super().__init__(ip_address="127.0.0.1", port=port, verbose=False)
        self.tracker: _DirtyTracker | None = None
        self.error: BaseException | None = None

    def _server_entry(self) -> None:
        try:
            self.tracker = _DirtyTracker(DomainDispatcherApplication(create_backend_app))
            self._server = make_server(
                self._ip_address, self._port, self.tracker, threaded=True,
                request_handler=_QuietRequestHandler,
            )
        except SystemExit:  # werkzeug's reaction to a port taken since port_is_free()
            self.error = OSError(errno.EADDRINUSE, f"emulator port {self._port} is in use")
            self._server_ready_event.set()
            return
        except BaseException as err:  # surfaced to start() in the caller's thread
            self.error = err
            self._server_ready_event.set()
            return
        self._server_ready_event.set()
        self._server.serve_forever(poll_interval=0.2)

    def start(self) -> None:
        super().start()
        if self.error is not None:
            self._thread.join(timeout=1)  # type: ignore[union-attr]
            raise self.error

    def stop(self) -> None:
        super().stop()
        if self._server is not None:
            self._server.server_close()


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the server binds (SO_REUSEADDR): sockets of a killed stack in TIME-WAIT do not count.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Emulator:
    def __init__(self, port: int, fallback_to_ephemeral: bool = True) -> None:
        self._requested_port = port
        self._fallback = fallback_to_ephemeral
        self._server: _Server | None = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> str:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        port = self._requested_port
        # werkzeug answers a busy port with print() + sys.exit(): check first.
        if port and not port_is_free(port):
            if not self._fallback:
                raise OSError(errno.EADDRINUSE, f"emulator port {port} is in use")
            log.info("port %s busy, the emulator uses an ephemeral port", port)
            port = 0
        server = _Server(port)
        server.start()
        self._server = server
        self.port = server.get_host_and_port()[1]
        return self.endpoint

    def take_table_dirty(self) -> bool:
        tracker = self._server.tracker if self._server else None
        return tracker.take() if tracker else True

    @property
    def table_lock(self):
        """The lock every DynamoDB request of the emulator holds (None before start)."""
        tracker = self._server.tracker if self._server else None
        return tracker._dynamodb if tracker else None

    def attach_journal(self, journal) -> None:
        if self._server and self._server.tracker:
            self._server.tracker.journal = journal

    def detach_journal(self) -> None:
        if self._server and self._server.tracker:
            self._server.tracker.journal = None

    def mark_table_dirty(self) -> None:
        if self._server and self._server.tracker:
            self._server.tracker.mark()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None


@dataclass(frozen=True)
class QueueRef:
    key: str  # "extraction" | "maintenance"
    spec: schema.QueueSpec
    url: str
    arn: str
    dlq_url: str
    dlq_arn: str


@dataclass(frozen=True)
class Resources:
    table_name: str
    queues: dict[str, QueueRef]

    @property
    def account_id(self) -> str:
        return next(iter(self.queues.values())).arn.split(":")[4]

    def queue_names(self) -> list[str]:
        names = []
        for ref in self.queues.values():
            names += [ref.url.rsplit("/", 1)[1], ref.dlq_url.rsplit("/", 1)[1]]
        return names

    def to_json(self) -> dict:
        return {
            "table": self.table_name,
            "queues": {
                key: {"url": ref.url, "arn": ref.arn, "dlq_url": ref.dlq_url, "dlq_arn": ref.dlq_arn}
                for key, ref in self.queues.items()
            },
        }

    @classmethod
    def from_json(cls, data: dict) -> Resources:
        specs = {spec.name: spec for spec in (schema.EXTRACTION_QUEUE, schema.MAINTENANCE_QUEUE)}
        return cls(
            table_name=data["table"],
            queues={key: QueueRef(key=key, spec=specs[key], **ref) for key, ref in data["queues"].items()},
        )


def _ensure_queue(sqs, name: str, attributes: dict[str, str]) -> tuple[str, str]:
    try:
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    except sqs.exceptions.QueueDoesNotExist:
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def ensure_resources(endpoint: str, table_name: str = TABLE_NAME, prefix: str = STACK_PREFIX) -> Resources:
    """Create the table and the queues (each with its DLQ and redrive policy) unless they exist."""
    dynamodb = client("dynamodb", endpoint)
    try:
        dynamodb.describe_table(TableName=table_name)
    except dynamodb.exceptions.ResourceNotFoundException:
        dynamodb.create_table(**schema.table_definition(table_name))
        dynamodb.update_time_to_live(
            TableName=table_name,
            TimeToLiveSpecification={"Enabled": True, "AttributeName": schema.TTL_ATTRIBUTE},
        )
    sqs = client("sqs", endpoint)
    queues = {}
    for spec in (schema.EXTRACTION_QUEUE, schema.MAINTENANCE_QUEUE):
        dlq_attributes = schema.queue_attributes(spec)
        dlq_attributes["MessageRetentionPeriod"] = str(schema.DLQ_RETENTION_DAYS * 86400)
        dlq_name = schema.queue_name(prefix, spec, dead_letter=True)
        dlq_url, dlq_arn = _ensure_queue(sqs, dlq_name, dlq_attributes)
        url, arn = _ensure_queue(sqs, schema.queue_name(prefix, spec), schema.queue_attributes(spec, dlq_arn))
        queues[spec.name] = QueueRef(
            key=spec.name, spec=spec, url=url, arn=arn, dlq_url=dlq_url, dlq_arn=dlq_arn
        )
    return Resources(table_name=table_name, queues=queues)


def delete_resources(endpoint: str, resources: Resources) -> None:
    """Drop the table and queues from the in-process emulator so the next stack starts clean."""
    dynamodb = client("dynamodb", endpoint)
    sqs = client("sqs", endpoint)
    with contextlib.suppress(dynamodb.exceptions.ResourceNotFoundException):
        dynamodb.delete_table(TableName=resources.table_name)
    for ref in resources.queues.values():
        for url in (ref.url, ref.dlq_url):
            with contextlib.suppress(sqs.exceptions.QueueDoesNotExist):
                sqs.delete_queue(QueueUrl=url)
