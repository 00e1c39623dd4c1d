"""moto server (DynamoDB + SQS) on 127.0.0.1, and the table and queues the handlers expect.

The server runs in this process (ThreadedMotoServer), so moto's backends are process-global:
one stack per process at a time (tests run stacks one after another).
"""

from __future__ import annotations

import contextlib
import errno
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


class _DirtyTracker:
    """WSGI middleware: remembers that a DynamoDB write went through, so snapshots skip idle periods."""

    def __init__(self, app) -> None:
        self._app = app
        self._dirty = threading.Event()
        self._dirty.set()  # first snapshot always runs
        # moto's DynamoDB is not safe under concurrent requests: a failed TransactWriteItems
        # restores a deep copy of the whole table taken when it started (undoing writes other
        # threads made meanwhile), and the copy itself breaks on a table changed mid-copy. DynamoDB
        # requests run one at a time here, so the emulator is linearizable like the real service.
        self._dynamodb = threading.Lock()

    def __call__(self, environ, start_response):
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        is_dynamodb = target.startswith("DynamoDB_")
        is_write = is_dynamodb and target.rpartition(".")[2] not in _DYNAMODB_READS
        if is_write:
            self._dirty.set()
        try:
            if is_dynamodb:
                with self._dynamodb:
                    return self._app(environ, start_response)
            return self._app(environ, start_response)
        finally:
            # Set again after the write is applied: a snapshot that cleared the flag mid-request
            # must not miss it.
            if is_write:
                self._dirty.set()

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
