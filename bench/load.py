"""`make load`: a bounded load run against the local stack on loopback.

Starts the whole local stack in this process (moto server, the HTTP front with dev JWTs, the SQS
pollers feeding the unmodified extract handler) on free 127.0.0.1 ports in a temporary home,
then runs a FIXED number of mixed requests from several concurrent clients for several users:

    POST /v1/fragments   what a user says (health statements, small talk, garbage)
    POST /v1/context     questions the assistant would ask memory about
    GET  /v1/facts       the profile
    GET  /v1/fragments/{id}   the state of one's own fragment

When every client is done it waits (bounded) until every accepted fragment is applied or
rejected, and counts: throughput, latency median / p95 per route, 5xx (must be 0), lost
fragments (must be 0: accepted but neither applied nor rejected nor in the DLQ), DLQ depth.
Results go to docs/bench/load.md and docs/bench/load.json. Every loop is bounded in count and
time; the run stops by itself.

    python -m bench.load [--clients 8] [--requests 60] [--users 6] [--seed 7] [--out docs/bench]

``live_stack`` and ``Client`` are also what the fault, bad-input and security tests use to talk
to a real local stack over HTTP.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TERMINAL = ("applied", "rejected")


# ------------------------------------------------------------------------------------- the stack
@dataclass
class Live:
    """A running local stack: its front's URL, dev tokens, queues, the LocalStack itself."""

    stack: Any  # ltm_local.stack.LocalStack

    @property
    def port(self) -> int:
        return self.stack.front.port

    @property
    def url(self) -> str:
        return self.stack.front.url

    @property
    def endpoint(self) -> str:
        return self.stack.emulator.endpoint

    def token(self, user: str, ttl_s: int = 3600) -> str:
        from ltm_local.auth import DevSigner

        return DevSigner(self.stack.config.key_path).mint(user, ttl_s=ttl_s)

    def client(self, user: str | None = None, timeout_s: float = 30.0) -> Client:
        return Client(self.port, self.token(user) if user else None, timeout_s)

    def queue(self, key: str = "extraction"):
        return self.stack.resources.queues[key]

    def queue_depth(self, url: str) -> int:
        from ltm_local.emulator import client

        attributes = client("sqs", self.endpoint).get_queue_attributes(
            QueueUrl=url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return sum(int(value) for value in attributes.values())

    def dlq_depth(self, key: str = "extraction") -> int:
        return self.queue_depth(self.queue(key).dlq_url)

    def redrive(self, key: str = "extraction") -> int:
        from ltm_local.redrive import redrive

        return redrive(self.endpoint, self.queue(key))


@contextmanager
def live_stack(
    home: Path,
    *,
    env: Mapping[str, str | None] | None = None,
    pollers: bool = True,
    retry_visibility_s: int = 0,
) -> Iterator[Live]:
    """The local stack with the real handlers, on free loopback ports, stopped on exit.

    ``env`` is applied before the handlers are configured (e.g. OPENAI_BASE_URL for a fake model)
    and restored afterwards; the composition root is reset on both sides so that no client bound
    to this stack's emulator outlives it.
    """
    from health_ltm import wiring
    from ltm_local.config import StackConfig, apply_environment, restore_environment
    from ltm_local.stack import LocalStack

    previous = apply_environment(dict(env or {}))
    wiring.reset()
    config = StackConfig(
        home=home,
        api_port=0,
        emulator_port=0,
        emulator_port_fallback=False,
        tick_seconds=0,
        snapshot_seconds=3600,  # one snapshot at the end, none while the test runs
        retry_visibility_s=retry_visibility_s,
    )
    stack = LocalStack(config, front=True, pollers=pollers, timer=False)
    try:
        stack.start()
        wiring.reset()  # clients are built lazily from now on, against this emulator
        yield Live(stack)
    finally:
        stack.stop()
        wiring.reset()
        restore_environment(previous)


class Client:
    """One keep-alive HTTP/1.1 connection to the front (one per client thread)."""

    def __init__(self, port: int, token: str | None = None, timeout_s: float = 30.0) -> None:
        self.port = port
        self.token = token
        self.timeout_s = timeout_s
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def raw(
        self, method: str, path: str, body: bytes | None = None, headers: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        all_headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        all_headers.update(headers or {})
        for attempt in range(2):  # once more on a connection the server closed meanwhile
            if self._connection is None:
                self._connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout_s)
            try:
                self._connection.request(method, path, body=body, headers=all_headers)
                response = self._connection.getresponse()
                payload = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def call(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None
        all_headers = dict(headers or {})
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            all_headers.setdefault("Content-Type", "application/json")
        status, _, payload = self.raw(method, path, data, all_headers)
        try:
            return status, json.loads(payload) if payload else None
        except ValueError:
            return status, payload.decode("utf-8", "replace")

    def say(self, *texts: str, session: str = "s1", fragment_id: str | None = None) -> tuple[int, Any]:
        body: dict[str, Any] = {
            "session_id": session,
            "messages": [{"role": "user", "text": t} for t in texts],
        }
        if fragment_id:
            body["fragment_id"] = fragment_id
        return self.call("POST", "/v1/fragments", body)


def wait_for(predicate, timeout_s: float = 30.0, interval_s: float = 0.1, message: str = "condition"):
    """Poll ``predicate`` until it returns something truthy; bounded by ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} not met within {timeout_s} s")
        time.sleep(interval_s)


def fragment_status(client: Client, fragment_id: str) -> str | None:
    status, body = client.call("GET", f"/v1/fragments/{fragment_id}")
    return body.get("status") if status == 200 and isinstance(body, dict) else None


# ------------------------------------------------------------------------------------- the load run
SAYINGS = [
    "У меня аллергия на арахис",
    "Пью Энап 5 мг по утрам от давления",
    "Третий день болит голова",
    "Врач назначил метформин 500 мг",
    "Больше не принимаю метформин",
    "I am allergic to penicillin",
    "I take ibuprofen 200 mg when my back hurts",
    "У папы был инфаркт в 60 лет",
    "Я не курю уже два года",
    "Мне 42 года",
    "Привет, как дела?",
    "ok",
    "asdfgh qwerty",
    "Спасибо!",
]
QUESTIONS = [
    "Можно ли мне ибупрофен?",
    "Что мне приготовить на ужин?",
    "Какие лекарства я принимал раньше?",
    "Болит голова третий день, что делать?",
    "What should I know before my flu shot?",
    "Привет",
]
ROUTES = ("POST /v1/fragments", "POST /v1/context", "GET /v1/facts", "GET /v1/fragments/{id}")
WEIGHTS = (0.40, 0.25, 0.20, 0.15)


@dataclass
class Tally:
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: {r: [] for r in ROUTES})
    statuses: dict[str, dict[int, int]] = field(default_factory=lambda: {r: {} for r in ROUTES})
    accepted: list[tuple[str, str]] = field(default_factory=list)  # (user, fragment id)
    errors: list[str] = field(default_factory=list)  # transport errors (never expected)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, route: str, status: int, elapsed_ms: float) -> None:
        with self.lock:
            self.latencies_ms[route].append(elapsed_ms)
            self.statuses[route][status] = self.statuses[route].get(status, 0) + 1

    @property
    def server_errors(self) -> int:
        return sum(n for by_status in self.statuses.values() for s, n in by_status.items() if s >= 500)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.latencies_ms.values())


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def _client_loop(
    live: Live, users: list[str], requests: int, seed: int, tally: Tally, deadline: float
) -> None:
    rng = random.Random(seed)
    clients = {u: live.client(u) for u in users}
    mine: dict[str, list[str]] = {u: [] for u in users}
    try:
        for i in range(requests):
            if time.monotonic() > deadline:
                with tally.lock:
                    tally.errors.append("client deadline reached")
                return
            user = users[i % len(users)]
            client = clients[user]
            route = rng.choices(ROUTES, WEIGHTS)[0]
            if route == "GET /v1/fragments/{id}" and not mine[user]:
                route = "POST /v1/fragments"
            started = time.perf_counter()
            try:
                if route == "POST /v1/fragments":
                    status, body = client.say(rng.choice(SAYINGS), session=f"load{seed}")
                    if status == 202:
                        mine[user].append(body["fragment_id"])
                        with tally.lock:
                            tally.accepted.append((user, body["fragment_id"]))
                elif route == "POST /v1/context":
                    status, _ = client.call("POST", "/v1/context", {"query": rng.choice(QUESTIONS)})
                elif route == "GET /v1/facts":
                    status, _ = client.call("GET", "/v1/facts")
                else:
                    status, _ = client.call("GET", f"/v1/fragments/{rng.choice(mine[user])}")
            except (OSError, http.client.HTTPException) as err:
                with tally.lock:
                    tally.errors.append(type(err).__name__)
                continue
            tally.record(route, status, (time.perf_counter() - started) * 1000)
    finally:
        for client in clients.values():
            client.close()


def run_load(
    live: Live,
    *,
    clients: int = 8,
    requests: int = 60,
    users: int = 6,
    seed: int = 7,
    run_timeout_s: float = 300.0,
    settle_timeout_s: float = 120.0,
) -> dict:
    """``clients`` threads x ``requests`` requests each, then a bounded wait for the workers."""
    names = [f"load-user-{i}" for i in range(users)]
    tally = Tally()
    deadline = time.monotonic() + run_timeout_s
    threads = [
        threading.Thread(
            target=_client_loop,
            args=(
                live,
                [names[(c + k) % users] for k in range(max(1, users // 2))],
                requests,
                seed + c,
                tally,
                deadline,
            ),
            name=f"load-client-{c}",
            daemon=True,
        )
        for c in range(clients)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()) + 5)
    run_s = time.monotonic() - started

    # Every accepted fragment must end applied or rejected (or, visibly, in the DLQ).
    settle_started = time.monotonic()
    checker = {u: live.client(u) for u in names}
    final: dict[str, str | None] = {}
    pending = list(tally.accepted)
    settle_deadline = time.monotonic() + settle_timeout_s
    while pending and time.monotonic() < settle_deadline:
        still = []
        for user, fragment_id in pending:
            status = fragment_status(checker[user], fragment_id)
            final[fragment_id] = status
            if status not in TERMINAL:
                still.append((user, fragment_id))
        pending = still
        if pending:
            time.sleep(0.25)
    settle_s = time.monotonic() - settle_started
    for client in checker.values():
        client.close()
    dlq = live.dlq_depth()
    outcome_counts: dict[str, int] = {}
    for status in final.values():
        outcome_counts[str(status)] = outcome_counts.get(str(status), 0) + 1
    lost = len(pending)  # neither applied nor rejected when the bounded wait ended

    routes = {}
    for route in ROUTES:
        values = tally.latencies_ms[route]
        routes[route] = {
            "requests": len(values),
            "median_ms": round(statistics.median(values), 1) if values else 0.0,
            "p95_ms": round(_percentile(values, 0.95), 1),
            "max_ms": round(max(values), 1) if values else 0.0,
            "statuses": {str(k): v for k, v in sorted(tally.statuses[route].items())},
        }
    return {
        "config": {"clients": clients, "requests_per_client": requests, "users": users, "seed": seed},
        "requests": tally.total,
        "run_s": round(run_s, 2),
        "throughput_rps": round(tally.total / run_s, 1) if run_s else 0.0,
        "routes": routes,
        "server_errors": tally.server_errors,
        "transport_errors": len(tally.errors),
        "fragments_accepted": len(tally.accepted),
        "fragment_outcomes": outcome_counts,
        "settle_s": round(settle_s, 2),
        "lost_fragments": lost,
        "dlq_messages": dlq,
    }


def render_markdown(result: dict) -> str:
    """docs/bench/load.md from the result (load.json); the words are in bench/templates/load.md."""
    from bench.render import fill, join, plain, table

    cfg = result["config"]
    routes = [
        [f"`{route}`", r["requests"], r["median_ms"], r["p95_ms"], r["max_ms"],
         ", ".join(f"{k}: {v}" for k, v in r["statuses"].items())]
        for route, r in result["routes"].items()
    ]  # fmt: skip
    return join(
        [
            fill(
                "load",
                "page",
                clients=cfg["clients"],
                per_client=cfg["requests_per_client"],
                users=cfg["users"],
                seed=cfg["seed"],
                machine=result.get("machine", ""),
                requests=result["requests"],
                run_s=result["run_s"],
                rps=result["throughput_rps"],
                server_errors=result["server_errors"],
                transport_errors=result["transport_errors"],
                accepted=result["fragments_accepted"],
                outcomes=result["fragment_outcomes"],
                settle_s=result["settle_s"],
                lost=result["lost_fragments"],
                dlq=result["dlq_messages"],
                routes=table(
                    ["route", "requests", "median ms", "p95 ms", "max ms", "statuses"], routes, plain, "-rrrr"
                ),
            )
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=60, help="requests per client")
    parser.add_argument("--users", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench")
    args = parser.parse_args(argv)

    import logging

    logging.getLogger("ltm").setLevel(logging.WARNING)
    # The handlers log JSON lines to stdout per request; keep the report readable.
    env = {"POWERTOOLS_LOG_LEVEL": "WARNING", "OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
    # The functions print their JSON logs and EMF metrics to stdout, one or more lines per request.
    with (
        tempfile.TemporaryDirectory(prefix="ltm-load-") as home,
        open(os.devnull, "w") as quiet,
        contextlib.redirect_stdout(quiet),
        live_stack(Path(home) / "ltm", env=env) as live,
    ):
        result = run_load(
            live, clients=args.clients, requests=args.requests, users=args.users, seed=args.seed
        )
    result["machine"] = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.json").write_text(
        json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (args.out / "load.md").write_text(render_markdown(result), encoding="utf-8")
    print(render_markdown(result))
    ok = result["server_errors"] == 0 and result["lost_fragments"] == 0 and result["dlq_messages"] == 0
    ok = ok and result["transport_errors"] == 0
    if not ok:
        print("load run FAILED: 5xx, lost fragments, DLQ messages or transport errors", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
