"""`make crash`: kill -9 the local stack while it works, restart it at once, count what was lost.

Each round starts ``ltm run`` in its own process group on fixed loopback ports (so a restart has
to reuse them right away), posts fragments from a few client threads (every fragment of a user
names another drug, so each applied fragment makes exactly one medication fact), and SIGKILLs
the whole process group several times: right after a 202, and at random moments while the
workers process the batch. After each kill the stack is restarted at once; clients whose request
got no answer retry it with the same fragment id (a true retry: the same 202 body). At the end
of a round, after a last kill, it waits (bounded) until every accepted fragment is terminal and
counts, over the HTTP API only:

    lost fragments     accepted (202) but 404, or never terminal, or its fact missing
    duplicated facts   two facts of one user for one drug
    duplicated events  one fragment's event recorded twice in a fact's history
    failed restarts    a restart that did not come up (port in use, unreadable data)

A message whose receives were all cut short by kills reaches maxReceiveCount and is parked in the
DLQ, as on SQS; the round moves such messages back with ``ltm redrive`` (what the DLQ alarm asks
of an operator) and reports how many it moved. Parked is not lost; still missing after that is.

Every number must be 0. Results go to docs/bench/crash.md (``--out``); every loop is bounded.

    python -m bench.crash [--rounds 3] [--fragments 100] [--users 25] [--kills 4] [--seed 11]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRUGS = (
    "metformin", "lisinopril", "amoxicillin", "ibuprofen", "losartan", "atorvastatin", "omeprazole",
    "levothyroxine", "amlodipine", "simvastatin", "sertraline", "metoprolol",
)
TERMINAL = ("applied", "rejected", "failed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class StackProcess:
    """``ltm run`` in its own session (process group): started, health-checked, SIGKILLed."""

    def __init__(self, home: Path, api_port: int, emulator_port: int, log_path: Path) -> None:
        self.home, self.api_port, self.emulator_port = home, api_port, emulator_port
        self.log_path = log_path
        self.process: subprocess.Popen | None = None

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AWS_", "LTM_"))}
        env.update(
            LTM_HOME=str(self.home), LTM_PORT=str(self.api_port), LTM_EMULATOR_PORT=str(self.emulator_port),
            LTM_TICK_SECONDS="0", LTM_RETRY_SECONDS="1", PYTHONUNBUFFERED="1",
        )
        return env

    def start(self, timeout_s: float = 90.0) -> float:
        started = time.monotonic()
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ltm_local.cli", "run"], env=self._env(), cwd=ROOT,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        import http.client

        while time.monotonic() - started < timeout_s:
            if self.process.poll() is not None:
                raise RuntimeError(f"stack exited with {self.process.returncode} (see {self.log_path})")
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.api_port, timeout=2)
                connection.request("GET", "/v1/health")
                if connection.getresponse().status == 200:
                    connection.close()
                    return time.monotonic() - started
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("stack did not come up in time")

    def redrive_extraction(self) -> int:
        """``ltm redrive --queue extraction`` against the running stack (the operator's step after
        the DLQ alarm); returns how many messages it moved back."""
        done = subprocess.run(
            [sys.executable, "-m", "ltm_local.cli", "redrive", "--queue", "extraction"], env=self._env(),
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=True,
        )
        words = done.stdout.split()
        return int(words[words.index("moved") + 1]) if "moved" in words else 0

    def kill(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process = None


@dataclass
class Round:
    fragments: int = 0
    accepted: int = 0
    retries: int = 0
    kills: int = 0
    restart_s: list[float] = field(default_factory=list)
    failed_restarts: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated_facts: int = 0
    duplicated_events: int = 0
    not_idempotent: int = 0
    redriven: int = 0  # dead-lettered (maxReceiveCount receives, each cut short by a kill), moved back
    seconds: float = 0.0


def _request(port: int, token: str, method: str, path: str, body: dict | None = None, timeout: float = 30.0):
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Authorization": f"Bearer {token}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        return response.status, (json.loads(payload) if payload else None)
    finally:
        connection.close()


def run_round(index: int, *, fragments: int, users: int, kills: int, seed: int, workdir: Path) -> Round:
    from ltm_local.auth import DevSigner

    rng = random.Random(seed + index)
    home = workdir / f"round-{index}"
    stack = StackProcess(home, free_port(), free_port(), workdir / f"round-{index}.log")
    result = Round(fragments=fragments)
    started = time.monotonic()
    stack.start()
    signer = DevSigner(home / "dev-signing-key.pem")
    names = [f"crash{index}u{n:03d}" for n in range(users)]
    tokens = {user: signer.mint(user, ttl_s=3600) for user in names}
    plan: list[tuple[str, str, str]] = []  # (user, fragment id, drug)
    used: dict[str, int] = {user: 0 for user in names}
    for n in range(fragments):
        user = names[n % users]
        drug = DRUGS[used[user] % len(DRUGS)]
        used[user] += 1
        plan.append((user, f"f{n:04d}", drug))
    if max(used.values()) > len(DRUGS):
        raise SystemExit("more fragments per user than drugs: raise --users")

    accepted: dict[tuple[str, str], str] = {}
    first_body: dict[tuple[str, str], dict] = {}
    kill_after = sorted(rng.sample(range(5, fragments), min(kills, fragments - 5)))
    lock = threading.Lock()
    up = threading.Event()
    up.set()
    cursor = iter(plan)
    count = [0]

    def restart() -> None:
        try:
            result.restart_s.append(stack.start())
        except RuntimeError:
            result.failed_restarts += 1
            stack.kill()
            result.restart_s.append(stack.start(timeout_s=180))

    def kill_and_restart() -> None:
        with lock:
            if not up.is_set():
                return
            up.clear()
        stack.kill()
        result.kills += 1
        restart()
        up.set()

    def post(user: str, fragment_id: str, drug: str) -> None:
        body = {"fragment_id": fragment_id, "session_id": "s1",
                "messages": [{"role": "user", "text": f"I take {drug} {10 + len(drug)} mg daily"}]}
        for attempt in range(20):
            up.wait(240)
            try:
                status, answer = _request(stack.api_port, tokens[user], "POST", "/v1/fragments", body)
            except (OSError, http.client.HTTPException):
                # a kill -9 mid-response ("IncompleteRead") is a lost connection too: the client
                # posts the same fragment again, as the app would
                result.retries += 1
                time.sleep(0.2)
                continue
            if status != 202:
                if status >= 500:
                    time.sleep(0.5)
                    continue
                raise AssertionError(f"{status} {answer}")
            key = (user, fragment_id)
            with lock:
                accepted[key] = drug
                count[0] += 1
                due = kill_after and count[0] >= kill_after[0]
                if due:
                    kill_after.pop(0)
            if attempt or key in first_body:
                first_body.setdefault(key, answer)
            else:
                first_body[key] = answer
            if due:
                kill_and_restart()  # right after a 202
            if rng.random() < 0.05:  # a true retry: the same answer
                try:
                    again = _request(stack.api_port, tokens[user], "POST", "/v1/fragments", body)
                except OSError:
                    return
                if again[0] != 202 or again[1]["fragment_id"] != fragment_id:
                    result.not_idempotent += 1
            return
        raise AssertionError(f"fragment {fragment_id} never accepted")

    def client() -> None:
        while True:
            with lock:
                item = next(cursor, None)
            if item is None:
                return
            post(*item)

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()

    # Random kills while the batch is processed (on top of the ones right after a 202).
    def random_killer() -> None:
        for _ in range(2):
            time.sleep(rng.uniform(1.0, 6.0))
            kill_and_restart()

    killer = threading.Thread(target=random_killer)
    killer.start()
    for thread in threads:
        thread.join()
    killer.join()
    time.sleep(rng.uniform(0.0, 1.5))
    kill_and_restart()  # while the workers still process the tail

    # Wait (bounded) until every accepted fragment is terminal: at least the queue's visibility
    # timeout, after which SQS hands back a message whose consumer died holding it (a FIFO group
    # waits behind it); a shorter wait counted such a message, and its group, as lost.
    from health_ltm.schema import EXTRACTION_QUEUE

    # A message whose every receive was cut short by a kill goes to the DLQ after maxReceiveCount
    # receives, as on SQS: not lost, parked. The round then does what the DLQ alarm asks of an
    # operator (`ltm redrive`) and counts the moved messages; what stays missing after that is lost.
    deadline = time.monotonic() + max(300, EXTRACTION_QUEUE.visibility_timeout_s + 60)
    pending = dict(accepted)
    last_progress, left = time.monotonic(), len(pending)
    while pending and time.monotonic() < deadline:
        if len(pending) < left:
            last_progress, left = time.monotonic(), len(pending)
        elif time.monotonic() - last_progress >= 10:  # stalled: what is left may be parked
            result.redriven += stack.redrive_extraction()
            last_progress = time.monotonic()
        for (user, fragment_id) in list(pending):
            try:
                status, body = _request(stack.api_port, tokens[user], "GET", f"/v1/fragments/{fragment_id}")
            except OSError:
                continue
            if status == 404:
                result.lost.append(f"{user}/{fragment_id}: 404")
                pending.pop((user, fragment_id))
            elif status == 200 and body["status"] in TERMINAL:
                if body["status"] != "applied":
                    result.lost.append(f"{user}/{fragment_id}: {body['status']}")
                pending.pop((user, fragment_id))
        if pending:
            time.sleep(0.5)
    result.lost += [f"{u}/{f}: not terminal" for (u, f) in pending]

    # One more crash after everything settled: nothing may move.
    kill_and_restart()
    for user in names:
        expected = {drug for (u, _f), drug in accepted.items() if u == user}
        status, body = _request(stack.api_port, tokens[user], "GET", "/v1/facts")
        facts = [f for f in body["facts"] if f["section"] == "medications" and not f.get("deleted")]
        seen: dict[str, int] = {}
        for fact in facts:
            seen[fact["name_normalized"]] = seen.get(fact["name_normalized"], 0) + 1
            _s, detail = _request(stack.api_port, tokens[user], "GET", f"/v1/facts/{fact['id']}")
            events = [(e["fragment_id"], e["type"]) for e in detail["history"] if e.get("fragment_id")]
            result.duplicated_events += len(events) - len(set(events))
        result.duplicated_facts += sum(n - 1 for n in seen.values() if n > 1)
        for drug in expected - set(seen):
            result.lost.append(f"{user}: fact {drug} missing")
    result.accepted = len(accepted)
    result.seconds = time.monotonic() - started
    stack.stop()
    return result


def report(rounds: list[Round], args: argparse.Namespace) -> str:
    lines = [
        "# Crash test of the local stack (`make crash`)",
        "",
        f"{len(rounds)} round(s); per round {args.fragments} fragments, {args.users} users, "
        f"SIGKILL of the stack's process group {args.kills} times right after a 202, twice at random "
        "moments, once while the workers process the tail and once after everything settled; "
        "restart at once on the same ports. Seed "
        f"{args.seed}; {os.cpu_count()} CPU(s).",
        "",
        "| round | accepted | kills | restart s (max) | failed restarts | lost | dup facts | dup events "
        "| retry not idempotent | redriven from the DLQ | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, r in enumerate(rounds, 1):
        lines.append(
            f"| {n} | {r.accepted} | {r.kills} | {max(r.restart_s, default=0):.1f} | {r.failed_restarts} "
            f"| {len(r.lost)} | {r.duplicated_facts} | {r.duplicated_events} | {r.not_idempotent} "
            f"| {r.redriven} | {r.seconds:.0f} |"
        )
    for r in rounds:
        lines += [f"- lost: {item}" for item in r.lost[:20]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fragments", type=int, default=100)
    parser.add_argument("--users", type=int, default=25)
    parser.add_argument("--kills", type=int, default=4)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="ltm-crash-") as tmp:
        for index in range(args.rounds):
            r = run_round(index, fragments=args.fragments, users=args.users, kills=args.kills,
                          seed=args.seed, workdir=Path(tmp))
            rounds.append(r)
            print(f"round {index + 1}: accepted {r.accepted}, kills {r.kills}, lost {len(r.lost)}, "
                  f"dup facts {r.duplicated_facts}, dup events {r.duplicated_events}, "
                  f"failed restarts {r.failed_restarts}, redriven {r.redriven}, {r.seconds:.0f} s",
                  flush=True)
    text = report(rounds, args)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "crash.md").write_text(text)
    bad = any(r.lost or r.duplicated_facts or r.duplicated_events or r.failed_restarts or r.not_idempotent
              for r in rounds)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
