"""The local stack: emulator + persisted data + handler environment + front + pollers + timer.

One stack per LTM_HOME at a time: ``ltm run`` holds ``.ltm/stack.lock`` (flock) for its lifetime and
publishes ``.ltm/stack.json`` (ports, pid, endpoints, control token) for the other commands. A
command that finds no running stack takes the lock itself and starts a headless stack (emulator
with the persisted data, no HTTP front) for its own duration.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import threading
import time
from pathlib import Path

from .auth import DevSigner
from .config import (
    REGION,
    StackConfig,
    apply_environment,
    handler_environment,
    model_banner,
    restore_environment,
)
from .emulator import Emulator, Resources, client, delete_resources, ensure_resources
from .events import scheduled_event
from .front import Front
from .invoke import HandlerUnavailable, Invoker
from .persistence import Journal, Snapshotter, atomic_write, replay
from .poller import QueuePoller

log = logging.getLogger("ltm.stack")

JOURNAL_COMPACT_BYTES = 32 * 1024 * 1024
POLLED_QUEUES = (("extraction", "extract"), ("maintenance", "maintain"))


class StackBusy(RuntimeError):
    pass


class StackLock:
    """Exclusive flock on .ltm/stack.lock; released by the OS if the holder dies."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        if self._fd is not None:
            return True
        self._path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_state(config: StackConfig) -> dict | None:
    """The running stack's stack.json, or None (missing, unreadable, or its process is gone)."""
    try:
        state = json.loads(config.state_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not _pid_alive(int(state.get("pid", 0))):
        return None
    return state


def connect_or_lock(config: StackConfig, timeout_s: float = 30.0) -> tuple[dict | None, StackLock | None]:
    """(state, None) when a stack runs; (None, held lock) when none does and we may start one."""
    lock = StackLock(config.lock_path)
    deadline = time.monotonic() + timeout_s
    while True:
        if lock.try_acquire():
            config.state_path.unlink(missing_ok=True)  # no stack can be running: any stack.json is stale
            return None, lock
        state = read_state(config)
        if state is not None:
            return state, None
        # Locked but no stack.json yet: a stack is starting, or another command runs headless.
        if time.monotonic() > deadline:
            raise StackBusy(f"{config.lock_path} is held by another ltm command; try again when it ends")
        time.sleep(0.1)


class LocalStack:
    def __init__(
        self, config: StackConfig, *, front: bool = True, pollers: bool = True, timer: bool = True
    ) -> None:
        self.config = config
        self._want_front = front
        self._want_pollers = pollers
        self._want_timer = timer and config.tick_seconds > 0
        self._lock: StackLock | None = None
        self._stop = threading.Event()
        self._compact_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._previous_env: dict[str, str | None] | None = None
        self.emulator: Emulator | None = None
        self.resources: Resources | None = None
        self.snapshotter: Snapshotter | None = None
        self.journal: Journal | None = None
        self.invoker: Invoker | None = None
        self.front: Front | None = None
        self.pollers: dict[str, QueuePoller] = {}
        self.control_token = secrets.token_urlsafe(24)
        self.restored = (0, 0)
        # Until the snapshot is fully loaded, writing one back would overwrite the data with less.
        self._restore_complete = False
        self.startup_s = 0.0
        self.api_handler_error: str | None = None

    # --- lifecycle ---

    def start(self, lock: StackLock | None = None) -> LocalStack:
        started = time.monotonic()
        config = self.config
        config.ensure_home()
        self._lock = lock or StackLock(config.lock_path)
        if not self._lock.try_acquire():
            raise StackBusy(f"a local stack already runs for {config.home} (lock {config.lock_path})")
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - started
        return self

    def _start(self) -> None:
        config = self.config
        if self._want_front:
            config.state_path.unlink(missing_ok=True)  # stale from a crashed run: we hold the lock
        self.emulator = Emulator(config.emulator_port, config.emulator_port_fallback)
        endpoint = self.emulator.start()
        self.resources = ensure_resources(endpoint)
        self.snapshotter = Snapshotter(config.data_dir, endpoint, self.resources, REGION)
        self.snapshotter.table_lock = self.emulator.table_lock
        items, messages = self.snapshotter.restore()
        # Everything acknowledged after that snapshot: replayed, then new changes are journaled.
        self.journal = Journal(config.data_dir)
        records = self.journal.read_all()
        if records:
            replayed_items, _queues = replay(records, endpoint, self.resources, REGION)
            log.info("journal: %d record(s) replayed (%d item image(s))", len(records), replayed_items)
            items, messages = self.snapshotter.count_items(), self.snapshotter.count_messages()
        self.restored = (items, messages)
        self.journal.open()
        self.emulator.attach_journal(self.journal)
        self._restore_complete = True

        # The handlers read their configuration from the environment at import time.
        self._previous_env = apply_environment(self.environment())
        self.invoker = Invoker(config.handlers, self.resources.account_id)

        if self._want_front:
            try:
                self.invoker.resolve("api")  # import now: first request fast, import errors visible
            except HandlerUnavailable as err:
                self.api_handler_error = str(err)
                log.error("api handler unavailable: %s", err)
            self.front = Front(
                port=config.api_port,
                signer=DevSigner(config.key_path),
                invoker=self.invoker,
                account_id=self.resources.account_id,
                max_body_bytes=config.max_body_bytes,
                control_token=self.control_token,
                control_routes={("POST", "tick"): lambda body: self.tick(bool(body.get("dry_run")))},
                debug=bool(os.environ.get("LTM_DEBUG")),
            )
            self.front.start()
        if self._want_pollers:
            for queue_key, function in POLLED_QUEUES:
                poller = QueuePoller(
                    function=function,
                    queue=self.resources.queues[queue_key],
                    endpoint=endpoint,
                    invoker=self.invoker,
                    retry_visibility_s=config.retry_visibility_s,
                    wait_s=config.poll_wait_s,
                    region=REGION,
                )
                poller.start()
                self.pollers[queue_key] = poller
        self._spawn("ltm-snapshots", self._snapshot_loop)
        if self._want_timer:
            self._spawn("ltm-maintain-timer", self._timer_loop)
        if self._want_front:
            atomic_write(config.state_path, json.dumps(self.state(), indent=2).encode())

    def stop(self) -> None:
        """Stop accepting work, let running work end (bounded), snapshot, shut the emulator down."""
        self._stop.set()
        steps = [
            ("front", lambda: self.front and self.front.stop()),
            ("pollers", self._stop_pollers),
            ("threads", lambda: [thread.join(timeout=5) for thread in self._threads]),
            ("snapshot", self._final_snapshot),
            ("emulator", self._stop_emulator),
        ]
        for name, step in steps:
            try:
                step()
            except Exception as err:  # stop as much as possible
                log.error("stopping %s failed: %s", name, err)
        self.front = None
        if self._want_front and self._lock is not None and self._lock.held:
            self.config.state_path.unlink(missing_ok=True)
        if self._previous_env is not None:
            restore_environment(self._previous_env)
            self._previous_env = None
        if self._lock is not None:
            self._lock.release()

    def _stop_pollers(self) -> None:
        for poller in self.pollers.values():
            poller.stop()
        for poller in self.pollers.values():
            if not poller.join(timeout=15):
                log.warning("%s poller still busy at shutdown: its batch stays queued", poller.queue.key)
        self.pollers = {}

    def _final_snapshot(self) -> None:
        if self._restore_complete and self.snapshotter is not None and self.emulator is not None:
            self.compact(force=True)
        if self.emulator is not None:
            self.emulator.detach_journal()
        if self.journal is not None:
            self.journal.close()

    def compact(self, force: bool = False) -> bool:
        """Snapshot, then drop the journal segments the snapshot covers (see persistence.Journal)."""
        assert self.snapshotter is not None and self.journal is not None
        with self._compact_lock:
            if not force and self.journal.appended == 0:
                return False
            older = self.journal.rotate()
            self.snapshotter.snapshot(table_dirty=True)
            Journal.discard(older)
            return True

    def _stop_emulator(self) -> None:
        if self.emulator is None:
            return
        if self.resources is not None:
            # moto's backends are process-global: leave nothing behind for the next stack in this process.
            delete_resources(self.emulator.endpoint, self.resources)
        self.emulator.stop()
        self.emulator = None

    def __enter__(self) -> LocalStack:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- background work ---

    def _spawn(self, name: str, target) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _snapshot_loop(self) -> None:
        """Compaction: every change is already durable in the journal; a snapshot every
        snapshot_seconds (or sooner when the journal passes JOURNAL_COMPACT_BYTES) keeps it short."""
        last = time.monotonic()
        while not self._stop.wait(min(1.0, self.config.snapshot_seconds)):
            journal = self.journal
            if journal is None or journal.appended == 0:
                continue
            due = time.monotonic() - last >= self.config.snapshot_seconds
            if not due and journal.bytes < JOURNAL_COMPACT_BYTES:
                continue
            try:
                self.compact()
                last = time.monotonic()
            except Exception as err:
                if self._stop.is_set():
                    return
                log.warning("snapshot failed: %s (the journal keeps every change)", err.__class__.__name__)

    def _timer_loop(self) -> None:
        while not self._stop.wait(self.config.tick_seconds):
            try:
                self.tick()
            except Exception as err:
                log.warning("scheduled maintain tick failed: %s", err.__class__.__name__)

    # --- operations ---

    def environment(self) -> dict[str, str | None]:
        assert self.emulator is not None and self.resources is not None
        return handler_environment(
            endpoint=self.emulator.endpoint,
            table_name=self.resources.table_name,
            extraction_queue_url=self.resources.queues["extraction"].url,
            maintenance_queue_url=self.resources.queues["maintenance"].url,
            vector_path=self.config.vector_path,
        )

    def tick(self, dry_run: bool = False) -> object:
        """What the EventBridge schedule does: one scheduled event to the maintain handler."""
        assert self.invoker is not None and self.resources is not None
        event = scheduled_event(self.resources.account_id, dry_run=dry_run)
        return self.invoker.invoke("maintain", event)

    def wait_idle(self, timeout_s: float) -> bool:
        """True once both work queues are empty and no poller is mid-batch (bounded by timeout_s)."""
        assert self.emulator is not None and self.resources is not None
        sqs = client("sqs", self.emulator.endpoint)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            pending = 0
            for ref in self.resources.queues.values():
                attributes = sqs.get_queue_attributes(
                    QueueUrl=ref.url,
                    AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
                )["Attributes"]
                pending += int(attributes["ApproximateNumberOfMessages"])
                pending += int(attributes["ApproximateNumberOfMessagesNotVisible"])
            if pending == 0 and not any(poller.busy for poller in self.pollers.values()):
                return True
            time.sleep(0.2)
        return False

    def state(self) -> dict:
        assert self.emulator is not None and self.resources is not None
        return {
            "pid": os.getpid(),
            "home": str(self.config.home),
            "api_url": self.front.url if self.front else None,
            "api_port": self.front.port if self.front else None,
            "emulator_endpoint": self.emulator.endpoint,
            "emulator_port": self.emulator.port,
            "region": REGION,
            "resources": self.resources.to_json(),
            "vector_path": str(self.config.vector_path),
            "control_token": self.control_token,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    def banner(self) -> str:
        assert self.emulator is not None and self.resources is not None
        items, messages = self.restored
        lines = [
            "Health LTM local stack (no AWS account, no Docker)",
            f"  API       {self.front.url if self.front else '-'}/v1   (GET /v1/health needs no token)",
            f"  Token     TOKEN=$(ltm token alice)   then   curl -H \"Authorization: Bearer $TOKEN\" "
            f"{self.front.url if self.front else ''}/v1/...",
            f"  Emulator  {self.emulator.endpoint}  (moto: DynamoDB {self.resources.table_name}, "
            f"SQS {', '.join(self.resources.queue_names())})",
            f"  Data      {self.config.home}  (restored {items} item(s), {messages} queued message(s))",
            f"  Model     {model_banner()}",
            f"  Maintain  every {self.config.tick_seconds:g} s (LTM_TICK_SECONDS); now: ltm tick [--dry-run]"
            if self._want_timer else "  Maintain  timer off (LTM_TICK_SECONDS=0); run: ltm tick [--dry-run]",
        ]
        if self.api_handler_error:
            lines.append(f"  WARNING   api handler unavailable: {self.api_handler_error}")
        lines.append(f"Ready in {self.startup_s:.1f} s. Ctrl-C stops (data is kept).")
        return "\n".join(lines)
