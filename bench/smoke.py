"""``make smoke BASE_URL=... TOKEN=...``: the seed-000 medication story, end to end, against a stage.

Four fragments, one per conversation (prescribed 500 mg, started, dose raised to 1000 mg,
stopped), each waited for until the write path has applied it; then the memory must hold one
metformin fact, stopped, at 1000 mg, with four events (first mention, change, change, negation),
and a history question's context must bring the stopped drug back. The same story as
``tests/integration/test_api_flow.py``.

Use a dedicated smoke user: the run refuses a user who already has facts unless ``--erase-first``
(``ERASE=1``), and erases the user at the end (``DELETE /v1/me``) unless ``--keep``.

    python -m bench.smoke --base-url https://<id>.execute-api.<region>.amazonaws.com/prod/ --token "$TOKEN"

Only the standard library: it runs from any machine that can reach the stage.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field

STORY = [
    "Врач назначил метформин 500 мг",
    "Начал принимать метформин",
    "Врач увеличил дозу метформина до 1000 мг",
    "Больше не принимаю метформин",
]
EXPECTED_HISTORY = ["first_mention", "change", "change", "negation"]
HISTORY_QUESTION = "Какие лекарства я принимал раньше?"


class SmokeFailed(AssertionError):
    pass


@dataclass
class Api:
    base_url: str
    token: str
    timeout_s: float = 30.0
    calls: list[str] = field(default_factory=list)

    def call(
        self, method: str, path: str, body: dict | None = None, query: dict | None = None
    ) -> tuple[int, dict]:
        url = self.base_url.rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        self.calls.append(f"{method} {path}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else {}
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                return error.code, json.loads(raw) if raw else {}
            except ValueError:
                return error.code, {"raw": raw.decode("utf-8", "replace")[:500]}


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailed(message)


def _wait_applied(api: Api, fragment_id: str, timeout_s: float) -> dict:
    deadline = time.monotonic() + timeout_s
    delay = 0.5
    while True:
        status, fragment = api.call("GET", f"/v1/fragments/{fragment_id}")
        _expect(status == 200, f"GET /v1/fragments/{fragment_id}: {status} {fragment}")
        if fragment.get("status") in ("applied", "rejected"):
            return fragment
        if time.monotonic() > deadline:
            raise SmokeFailed(
                f"fragment {fragment_id} still {fragment.get('status')} after {timeout_s:.0f} s"
            )
        time.sleep(delay)
        delay = min(delay * 1.5, 5.0)


def run_smoke(
    base_url: str,
    token: str,
    *,
    timeout_s: float = 180.0,
    erase_first: bool = False,
    keep: bool = False,
) -> dict:
    api = Api(base_url, token)
    steps: list[dict] = []
    report: dict = {"base_url": base_url, "ok": False, "steps": steps}
    started = time.monotonic()
    run = uuid.uuid4().hex[:8]
    try:
        status, health = api.call("GET", "/v1/health")
        _expect(status == 200, f"GET /v1/health: {status} {health}")
        steps.append({"step": "health", "status": status})

        status, existing = api.call("GET", "/v1/facts", query={"include_inactive": "true"})
        _expect(status == 200, f"GET /v1/facts: {status} {existing} (is the token valid?)")
        if existing.get("facts"):
            _expect(erase_first, "this user already has facts: use a dedicated smoke user, or --erase-first")
            status, _ = api.call("DELETE", "/v1/me")
            _expect(status in (200, 202, 204), f"DELETE /v1/me: {status}")
            steps.append({"step": "erase_first", "status": status})

        for i, text in enumerate(STORY):
            sent = time.monotonic()
            body = {"session_id": f"smoke-{run}-{i}", "messages": [{"role": "user", "text": text}]}
            status, out = api.call("POST", "/v1/fragments", body)
            _expect(status == 202, f"POST /v1/fragments: {status} {out}")
            fragment = _wait_applied(api, out["fragment_id"], timeout_s)
            _expect(fragment["status"] == "applied", f"fragment {i} {fragment['status']}: {fragment}")
            steps.append({"step": f"fragment {i + 1}/{len(STORY)}", "status": "applied",
                          "seconds": round(time.monotonic() - sent, 2)})  # fmt: skip

        status, facts = api.call(
            "GET", "/v1/facts", query={"section": "medications", "include_inactive": "true"}
        )
        _expect(status == 200, f"GET /v1/facts: {status} {facts}")
        medications = facts.get("facts", [])
        _expect(len(medications) == 1, f"expected one medication fact, got {len(medications)}: {medications}")
        (fact,) = medications
        _expect(fact["status"] == "stopped", f"the fact is {fact['status']}, not stopped")
        _expect(fact["attributes"].get("dose_value") == 1000, f"dose {fact['attributes'].get('dose_value')}")
        status, detail = api.call("GET", f"/v1/facts/{fact['id']}")
        history = [event["type"] for event in detail.get("history", [])]
        _expect(history == EXPECTED_HISTORY, f"history {history}, expected {EXPECTED_HISTORY}")
        steps.append(
            {"step": "one fact, four events", "fact": fact.get("name_normalized"), "history": history}
        )

        status, context = api.call("POST", "/v1/context", {"query": HISTORY_QUESTION})
        _expect(status == 200, f"POST /v1/context: {status} {context}")
        _expect(context.get("history_intent") is True, "the history question was not read as one")
        prompt = context.get("prompt", "")
        _expect(
            "метформин" in prompt or "metformin" in prompt.lower(), "the stopped drug is not in the context"
        )
        steps.append({"step": "history context", "tokens": context.get("tokens", {}).get("prompt")})
        report["ok"] = True
    except SmokeFailed as failure:
        report["failure"] = str(failure)
    except (OSError, ValueError, KeyError) as error:
        report["failure"] = f"{type(error).__name__}: {error}"
    finally:
        if not keep:
            status, _ = api.call("DELETE", "/v1/me")
            steps.append({"step": "erase (cleanup)", "status": status})
        report["seconds"] = round(time.monotonic() - started, 1)
        report["calls"] = len(api.calls)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait per fragment")
    parser.add_argument("--erase-first", action="store_true", help="erase the user's memory before the story")
    parser.add_argument("--keep", action="store_true", help="leave the story in the user's memory")
    args = parser.parse_args(argv)
    if not args.base_url or not args.token:
        parser.error("BASE_URL and TOKEN are required")
    report = run_smoke(
        args.base_url, args.token, timeout_s=args.timeout, erase_first=args.erase_first, keep=args.keep
    )
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
