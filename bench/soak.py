"""`make soak`: a long, bounded run against the local stack on loopback; memory and cost stay flat.

Starts the whole local stack in this process (as ``make load`` does: moto server, HTTP front with
dev JWTs, the pollers feeding the unmodified extract handler, the write-ahead journal and its
compaction), then posts ``--fragments`` fragments across ``--users`` users in batches of
``--batch`` from a few client threads, waits after each batch until every fragment of it is
terminal, and reports per batch: resident memory of the process (VmRSS, the stack and the
clients), the time per fragment (batch wall time / batch size, end to end: POST to applied), and
the sizes of what could grow (table items, journal bytes). Pass: memory <= --max-rss-mb and every
batch's time per fragment within 1.5x of the first batch's. Results: docs/bench/soak.md.

    python -m bench.soak [--fragments 2000] [--users 500] [--batch 100] [--clients 4] [--out docs/bench]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.crash import DRUGS
from bench.load import live_stack

TERMINAL = ("applied", "rejected", "failed")
TEXTS = (
    "I take {drug} {dose} mg daily",
    "My doctor put me on {drug} {dose} mg",
    "I am allergic to penicillin and I take {drug} {dose} mg",
    "Hello, how are you today?",
    "I have had a headache since yesterday and took {drug} {dose} mg",
)


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(args: argparse.Namespace) -> tuple[list[dict], dict]:
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="ltm-soak-") as tmp, live_stack(Path(tmp)) as live:
        live.stack.config.snapshot_seconds = args.snapshot_seconds  # compaction, as `ltm run` does it
        users = [f"soak{n:04d}" for n in range(args.users)]
        clients = {}
        tokens: dict[str, str] = {}

        def token(user: str) -> str:
            if user not in tokens:
                tokens[user] = live.token(user, ttl_s=6 * 3600)
            return tokens[user]

        sent = 0
        started_all = time.monotonic()
        while sent < args.fragments:
            size = min(args.batch, args.fragments - sent)
            work = []
            for n in range(sent, sent + size):
                user = users[n % len(users)]
                round_ = n // len(users)
                drug = DRUGS[round_ % len(DRUGS)]
                text = TEXTS[(n + round_) % len(TEXTS)].format(drug=drug, dose=5 + n % 50)
                work.append((user, f"k{n:05d}", text))
            lock = threading.Lock()
            cursor = iter(work)
            accepted: list[tuple[str, str]] = []
            errors: list[str] = []
            started = time.monotonic()

            def client_loop(cursor=cursor, lock=lock, accepted=accepted, errors=errors) -> None:
                while True:
                    with lock:
                        item = next(cursor, None)
                    if item is None:
                        return
                    user, fragment_id, text = item
                    client = clients.get(threading.get_ident())
                    if client is None:
                        client = clients[threading.get_ident()] = live.client(None)
                    client.token = token(user)
                    status, _body = client.say(text, fragment_id=fragment_id)
                    with lock:
                        if status == 202:
                            accepted.append((user, fragment_id))
                        else:
                            errors.append(str(status))

            threads = [threading.Thread(target=client_loop) for _ in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            deadline = time.monotonic() + args.batch_timeout_s
            pending = list(accepted)
            checker = live.client(None)
            while pending and time.monotonic() < deadline:
                still = []
                for user, fragment_id in pending:
                    checker.token = token(user)
                    status, body = checker.call("GET", f"/v1/fragments/{fragment_id}")
                    if not (status == 200 and body["status"] in TERMINAL):
                        still.append((user, fragment_id))
                pending = still
                if pending:
                    time.sleep(0.2)
            elapsed = time.monotonic() - started
            sent += size
            gc.collect()
            journal = live.stack.journal
            rows.append({
                "fragments": sent,
                "rss_mb": round(rss_mb(), 1),
                "ms_per_fragment": round(elapsed * 1000 / size, 1),
                "not_terminal": len(pending),
                "errors": len(errors),
                "items": live.stack.snapshotter.count_items(),
                "journal_kb": round((journal.bytes if journal else 0) / 1024, 1),
            })
            print(rows[-1], flush=True)
        total_s = time.monotonic() - started_all
    first = rows[0]["ms_per_fragment"]
    summary = {
        "fragments": sent,
        "users": args.users,
        "total_s": round(total_s, 1),
        "max_rss_mb": max(r["rss_mb"] for r in rows),
        "first_ms": first,
        "max_ratio": round(max(r["ms_per_fragment"] for r in rows) / first, 2),
        "median_ratio": round(statistics.median(r["ms_per_fragment"] for r in rows) / first, 2),
        "not_terminal": sum(r["not_terminal"] for r in rows),
        "errors": sum(r["errors"] for r in rows),
    }
    return rows, summary


def report(rows: list[dict], summary: dict, args: argparse.Namespace) -> str:
    ok = (summary["max_rss_mb"] <= args.max_rss_mb and summary["max_ratio"] <= 1.5
          and summary["not_terminal"] == 0 and summary["errors"] == 0)
    lines = [
        "# Soak of the local stack (`make soak`)",
        "",
        f"{summary['fragments']} fragments across {summary['users']} users, batches of {args.batch} from "
        f"{args.clients} clients, the offline rule extractor; each batch waited until applied. "
        f"Python {platform.python_version()}, {os.cpu_count()} CPU(s), {platform.machine()}. "
        f"Total {summary['total_s']} s.",
        "",
        f"**{'PASS' if ok else 'FAIL'}**: max resident memory {summary['max_rss_mb']} MB "
        f"(bound {args.max_rss_mb} MB); time per fragment {summary['first_ms']} ms in the first batch, "
        f"at most {summary['max_ratio']}x that later (bound 1.5x), median {summary['median_ratio']}x; "
        f"{summary['not_terminal']} not terminal, {summary['errors']} errors.",
        "",
        "| fragments | RSS MB | ms / fragment | table items | journal KB | not terminal | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['fragments']} | {r['rss_mb']} | {r['ms_per_fragment']} | {r['items']} "
                     f"| {r['journal_kb']} | {r['not_terminal']} | {r['errors']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fragments", type=int, default=2000)
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--snapshot-seconds", type=float, default=30.0)
    parser.add_argument("--batch-timeout-s", type=float, default=300.0)
    parser.add_argument("--max-rss-mb", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows, summary = run(args)
    text = report(rows, summary, args)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "soak.md").write_text(text)
    return 0 if "**PASS**" in text else 1


if __name__ == "__main__":
    sys.exit(main())
