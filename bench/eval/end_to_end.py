"""Level 6: end to end on the local stack: said in one session, in the next session's context.

The real local stack runs in process (``ltm_local.stack.LocalStack``: the moto DynamoDB + SQS
emulator, the HTTP front with locally signed JWTs, the SQS poller feeding the real ``extract``
handler, the local vector index), with a fresh, temporary LTM_HOME. For every story that names
an end-to-end check (data/stories.jsonl, ``e2e``), its first session goes in over HTTP as one
fragment (``POST /v1/fragments``); once the worker has applied it (``GET /v1/fragments/{id}``),
a question in a new session (``POST /v1/context``) must bring the facts back. Counted apart: the
fragment was applied, each fact was stored (``GET /v1/facts``), and each fact was in the context.

Offline the handlers run the rule extractor and the local embedder (OPENAI_* are hidden from
the stack for the run); in the model configuration they see the caller's OPENAI_* variables.
"""

from __future__ import annotations

import http.client
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import MAX_EXAMPLES, limited, load_jsonl, ratio
from .extraction import expected_key

LEVEL = "end_to_end"
MODEL_INDEPENDENT = False
APPLY_TIMEOUT_S = 60.0
_MODEL_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL")


class _Client:
    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, Any]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Authorization": f"Bearer {self.token}"}
        payload = None
        if body is not None:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        try:
            return response.status, json.loads(raw) if raw else None
        except json.JSONDecodeError:
            return response.status, raw.decode("utf-8", "replace")


def _hidden_model_env(config) -> dict[str, str | None]:
    """Offline: take OPENAI_* out of the environment for the run; returns what to put back."""
    if config.is_model:
        return {}
    saved = {name: os.environ.get(name) for name in _MODEL_ENV}
    for name in _MODEL_ENV:
        os.environ.pop(name, None)
    return saved


def _restore(saved: dict[str, str | None]) -> None:
    for name, value in saved.items():
        if value is not None:
            os.environ[name] = value


def run(config, *, limit: int | None = None) -> dict[str, Any]:
    from health_ltm import wiring
    from ltm_local.auth import DevSigner
    from ltm_local.config import StackConfig
    from ltm_local.stack import LocalStack

    stories = limited([s for s in load_jsonl("stories.jsonl") if s.get("e2e")], limit)
    saved = _hidden_model_env(config)
    wiring.reset()
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="ltm-eval-") as home:
            stack_config = StackConfig(
                home=Path(home),
                api_port=0,
                emulator_port=0,
                emulator_port_fallback=False,
                tick_seconds=0,
                snapshot_seconds=3600,
                retry_visibility_s=1,
            )
            stack = LocalStack(stack_config, front=True, pollers=True, timer=False).start()
            try:
                startup_s = time.monotonic() - started
                result = _exercise(stack, DevSigner(stack_config.key_path), stories)
                result["summary"]["stack_startup_s"] = round(startup_s, 1)
                return result
            finally:
                stack.stop()
    finally:
        wiring.reset()
        _restore(saved)


def _exercise(stack, signer, stories: list[dict[str, Any]]) -> dict[str, Any]:
    port = stack.front.port
    clients = {s["id"]: _Client(port, signer.mint(f"eval-e2e-{s['id']}")) for s in stories}
    # Session 1 of every story at once (one user each; the FIFO queue keeps a user's order).
    submitted: dict[str, str] = {}
    failures: list[dict[str, Any]] = []
    for story in stories:
        first = story["sessions"][0]["messages"]
        status, body = clients[story["id"]].call(
            "POST",
            "/v1/fragments",
            {
                "session_id": "s1",
                "messages": [{"role": m.get("role", "user"), "text": m["text"]} for m in first],
            },
        )
        if status == 202:
            submitted[story["id"]] = body["fragment_id"]
        else:
            failures.append({"story": story["id"], "stage": "submit", "status": status})
    states: dict[str, str] = {}
    deadline = time.monotonic() + APPLY_TIMEOUT_S
    while time.monotonic() < deadline and len(states) < len(submitted):
        for story_id, fragment_id in submitted.items():
            if story_id in states:
                continue
            status, body = clients[story_id].call("GET", f"/v1/fragments/{fragment_id}")
            if status == 200 and body["status"] in ("applied", "rejected", "failed"):
                states[story_id] = body["status"]
        if len(states) < len(submitted):
            time.sleep(0.2)
    applied = sum(v == "applied" for v in states.values())
    facts_total = facts_stored = facts_in_context = 0
    stories_right = 0
    for story in stories:
        client = clients[story["id"]]
        check = story["e2e"]
        status, listing = client.call("GET", "/v1/facts")
        stored = {
            (f["section"], f["key"]): f["id"]
            for f in (listing or {}).get("facts", [])
            if not f.get("deleted")
        }
        status, context = client.call("POST", "/v1/context", {"query": check["query"], "session_id": "s2"})
        shown = {
            view["id"]
            for block in ((context or {}).get("self_reported", []) if status == 200 else [])
            for view in block["facts"]
        }
        right = states.get(story["id"]) == "applied"
        missing = []
        for ref in check["required"]:
            key = (ref["section"], expected_key({**ref, "kind": "fact"}))
            facts_total += 1
            fact_id = stored.get(key)
            facts_stored += fact_id is not None
            found = fact_id is not None and fact_id in shown
            facts_in_context += found
            if not found:
                right = False
                missing.append(f"{key[0]}/{key[1]}" + ("" if fact_id else " (not stored)"))
        stories_right += right
        if not right and len(failures) < MAX_EXAMPLES:
            failures.append(
                {
                    "story": story["id"],
                    "fragment": states.get(story["id"], "not processed in time"),
                    "query": check["query"],
                    "missing": missing,
                    "context_status": status,
                }
            )
    return {
        "summary": {
            "stories": len(stories),
            "fragments_applied": f"{applied}/{len(stories)}",
            "facts_stored": f"{facts_stored}/{facts_total}",
            "facts_in_next_session_context": f"{facts_in_context}/{facts_total}",
            "fact_recall": ratio(facts_in_context, facts_total),
            "stories_fully_right": f"{stories_right}/{len(stories)}",
        },
        "failures": failures,
    }
