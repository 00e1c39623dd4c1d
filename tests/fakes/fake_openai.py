"""A local fake of the OpenAI HTTP API: POST /v1/chat/completions and POST /v1/embeddings.

Binds 127.0.0.1 on an ephemeral port, records every request (so tests can assert what the
model was sent), and answers chat requests from a script: a queue of ``Reply`` objects, then
an optional ``responder`` function, then a default answer. Faults are replies too: a delay (timeouts),
429 with retry-after, 5xx, malformed JSON, a refusal, any content at all (a wrong enum).

Structured-output modes: ``json_schema`` (strict), ``json_object`` (the schema in
``response_format.schema``, as llama.cpp's server takes it) and forced ``tools`` calls (the
answer comes back as the call's arguments) are all understood; ``modes=`` limits the ones this
server accepts (others answer 400). ``latency=`` delays each answer (a provider's latency).

Default answers: the classifier gets no sections and the extractor no events, unless
``rules=True``, where the offline rule extractor (``health_ltm.write.rules``) answers through
the model's JSON contract, so the end-to-end path through the model adapter yields real facts.
Embeddings are deterministic unit vectors derived from a hash of the text.

    with FakeOpenAI() as fake:
        fake.script(Reply.rate_limited(), Reply.json({"sections": ["allergies"]}))
        settings = Settings(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-fake")

As a server for ``ltm run``:  python -m tests.fakes.fake_openai --port 8765 --rules
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_RETRY_AFTER_MS = 10  # keeps SDK retries fast in tests
EMBEDDING_SIZES = {"text-embedding-3-large": 3072}
DEFAULT_EMBEDDING_SIZE = 1536


@dataclass
class Reply:
    """One scripted answer to a chat completion request."""

    status: int = 200
    content: str | None = None
    refusal: str | None = None
    finish_reason: str = "stop"
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # a full JSON body, sent as is (overrides everything but status/headers)
    usage: tuple[int, int] | None = None  # (prompt, completion) tokens; estimated when None

    @classmethod
    def json(cls, obj: Any, **kw: Any) -> Reply:
        return cls(content=json.dumps(obj, ensure_ascii=False), **kw)

    @classmethod
    def sections(cls, *names: str, **kw: Any) -> Reply:
        return cls.json({"sections": list(names)}, **kw)

    @classmethod
    def events(cls, *events: dict, **kw: Any) -> Reply:
        return cls.json({"events": list(events)}, **kw)

    @classmethod
    def malformed(cls) -> Reply:
        return cls(content='{"events": [{"section": "medications", "kind": ')

    @classmethod
    def refused(cls, text: str = "I'm sorry, I can't help with that.") -> Reply:
        return cls(refusal=text)

    @classmethod
    def slow(cls, seconds: float, then: Reply | None = None) -> Reply:
        reply = then or cls.json({"sections": []})
        reply.delay_s = seconds
        return reply

    @classmethod
    def rate_limited(cls, retry_after_ms: int = FAULT_RETRY_AFTER_MS) -> Reply:
        return cls._error(429, "rate_limit_error", "Rate limit reached", retry_after_ms)

    @classmethod
    def server_error(cls, status: int = 500, retry_after_ms: int = FAULT_RETRY_AFTER_MS) -> Reply:
        return cls._error(status, "server_error", "The server had an error", retry_after_ms)

    @classmethod
    def _error(cls, status: int, kind: str, message: str, retry_after_ms: int) -> Reply:
        return cls(
            status=status,
            headers={"retry-after-ms": str(retry_after_ms)},
            body={"error": {"message": message, "type": kind, "param": None, "code": None}},
        )


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict

    def _content(self, role: str) -> str:
        return "\n".join(
            m.get("content") or "" for m in self.body.get("messages", []) if m.get("role") == role
        )

    @property
    def system_prompt(self) -> str:
        return self._content("system")

    @property
    def user_prompt(self) -> str:
        return self._content("user")

    @property
    def response_format(self) -> dict | None:
        return self.body.get("response_format")

    @property
    def mode(self) -> str | None:
        """How the request holds the answer to a schema: json_schema, json_object, tools or None."""
        if self.forced_tool:
            return "tools"
        return (self.response_format or {}).get("type")

    @property
    def forced_tool(self) -> dict | None:
        """The function a ``tool_choice`` forces, from ``tools``."""
        choice = self.body.get("tool_choice")
        if not isinstance(choice, dict):
            return None
        name = (choice.get("function") or {}).get("name")
        for tool in self.body.get("tools") or []:
            if (tool.get("function") or {}).get("name") == name:
                return tool["function"]
        return None

    @property
    def schema_name(self) -> str | None:
        if self.forced_tool:
            return self.forced_tool.get("name")
        fmt = self.response_format or {}
        if fmt.get("type") == "json_object":
            return (fmt.get("schema") or {}).get("title")
        return (fmt.get("json_schema") or {}).get("name")

    @property
    def schema(self) -> dict | None:
        if self.forced_tool:
            return self.forced_tool.get("parameters")
        fmt = self.response_format or {}
        if fmt.get("type") == "json_object":
            return fmt.get("schema")
        return (fmt.get("json_schema") or {}).get("schema")


Responder = Callable[[RecordedRequest], "Reply | None"]


class FakeOpenAI:
    def __init__(
        self,
        responder: Responder | None = None,
        *,
        rules: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
        modes: tuple[str, ...] = ("json_schema", "json_object", "tools"),
        unsupported_status: int = 400,
        latency: Callable[[RecordedRequest], float] | None = None,
    ) -> None:
        self.responder = responder
        self.rules = rules
        # The structured-output modes this server speaks: others answer 400, as a server that
        # does not know them would (llama.cpp's refuses json_schema, say).
        self.modes = modes
        self.unsupported_status = unsupported_status  # llama.cpp's server answers 500
        # Seconds to wait before answering a request (a provider latency distribution).
        self.latency = latency
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer((host, port), _Handler)
        self._server.daemon_threads = True
        self._server.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping on a scripted delay
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ scripting
    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/embeddings")]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            scripted = self._queue.popleft() if self._queue else None
        if scripted is not None:
            return scripted
        if self.responder is not None:
            reply = self.responder(request)
            if reply is not None:
                return reply
        return default_reply(request, rules=self.rules)

    # ------------------------------------------------------------------ answers
    def chat(self, request: RecordedRequest) -> tuple[int, dict[str, str], dict]:
        if request.mode in ("json_schema", "json_object", "tools") and request.mode not in self.modes:
            field = "tool_choice" if request.mode == "tools" else "response_format.type"
            message = f"1 validation error: {field}: Input should be 'text' or 'json_object'"
            return (
                self.unsupported_status,
                {},
                {"error": {"message": message, "type": "invalid_request_error"}},
            )
        reply = self._next_reply(request)
        if reply.delay_s:
            self._stopping.wait(reply.delay_s)
        if self.latency is not None:
            self._stopping.wait(self.latency(request))
        if reply.body is not None:
            return reply.status, reply.headers, reply.body
        prompt_chars = sum(len(m.get("content") or "") for m in request.body.get("messages", []))
        prompt, completion = reply.usage or (prompt_chars // 4 + 1, len(reply.content or "") // 4 + 1)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": reply.refusal}
        tool = request.forced_tool
        if tool is not None and reply.content is not None and reply.refusal is None:
            # A forced function call: the answer is the call's arguments, not the content.
            message["content"] = None
            message["tool_calls"] = [
                {
                    "id": f"call_fake_{len(self.requests)}",
                    "type": "function",
                    "function": {"name": tool.get("name"), "arguments": reply.content},
                }
            ]
        body = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls"
                    if "tool_calls" in message and reply.finish_reason == "stop"
                    else reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
        return reply.status, reply.headers, body

    def embeddings(self, request: RecordedRequest) -> tuple[int, dict[str, str], dict]:
        if self.latency is not None:
            self._stopping.wait(self.latency(request))
        inputs = request.body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        model = request.body.get("model", "text-embedding-3-small")
        size = int(request.body.get("dimensions") or EMBEDDING_SIZES.get(model, DEFAULT_EMBEDDING_SIZE))
        as_base64 = request.body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vector = deterministic_vector(str(text), size)
            encoded: Any = vector
            if as_base64:
                encoded = base64.b64encode(struct.pack(f"<{size}f", *vector)).decode("ascii")
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = sum(len(str(t)) // 4 + 1 for t in inputs)
        body = {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return 200, {}, body


def deterministic_vector(text: str, size: int) -> list[float]:
    """A unit vector from a hash of the text: same text, same vector, on every machine."""
    values: list[float] = []
    counter = 0
    while len(values) < size:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        values.extend(int.from_bytes(digest[i : i + 4], "little") / 2**31 - 1.0 for i in range(0, 32, 4))
        counter += 1
    values = values[:size]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


# ---------------------------------------------------------------------- default answers
def default_reply(request: RecordedRequest, *, rules: bool = False) -> Reply:
    name = request.schema_name
    if name == "SectionChoice":
        return Reply.json({"sections": _rule_sections(request) if rules else []})
    if name == "Extraction":
        return Reply.json({"events": _rule_events(request) if rules else []})
    return Reply(content="OK")


def parse_dialogue(prompt: str) -> list:
    """Messages back from ``prompts.render_dialogue`` (continuation lines are indented)."""
    from health_ltm.adapters.prompts import DIALOGUE_CLOSE, DIALOGUE_OPEN
    from health_ltm.domain.models import Message, Role

    inside = prompt.split(DIALOGUE_OPEN, 1)[-1].rsplit(DIALOGUE_CLOSE, 1)[0]
    messages: list[tuple[str, list[str]]] = []
    for line in inside.strip("\n").split("\n"):
        role = next((r for r in Role if line.startswith(f"[{r.value}] ")), None)
        if role is not None:
            messages.append((role.value, [line[len(role.value) + 3 :]]))
        elif messages:
            messages[-1][1].append(line.removeprefix("    "))
    return [Message(role=role, text="\n".join(lines)) for role, lines in messages]


def schema_sections(schema: dict | None) -> list[str]:
    """The section values an extraction schema allows (each event variant pins one)."""
    found: list[str] = []
    for definition in (schema or {}).get("$defs", {}).values():
        section = definition.get("properties", {}).get("section", {})
        found.extend(section.get("enum", []))
    return found


def _rule_sections(request: RecordedRequest) -> list[str]:
    try:
        from health_ltm.write.rules import RuleSectionClassifier
    except ImportError:
        return []
    return [s.value for s in RuleSectionClassifier().classify(parse_dialogue(request.user_prompt))]


def _rule_events(request: RecordedRequest) -> list[dict]:
    try:
        from health_ltm.write.rules import RuleExtractor
    except ImportError:
        return []
    from pydantic import ValidationError

    from health_ltm.adapters.llm_schemas import attributes_model, event_model
    from health_ltm.domain.clock import SystemClock
    from health_ltm.domain.sections import Section

    allowed = [Section(s) for s in schema_sections(request.schema)]
    assertions = RuleExtractor(clock=SystemClock()).extract(parse_dialogue(request.user_prompt), allowed)
    events = []
    for a in assertions:
        if a.section not in allowed:
            continue
        fields = attributes_model(a.section).model_fields
        raw = a.model_dump(mode="json")
        raw["attributes"] = {name: raw["attributes"].get(name) for name in fields}
        try:
            # Strict decoding never emits what the schema forbids; neither does the fake.
            events.append(event_model(a.section).model_validate(raw).model_dump(mode="json"))
        except ValidationError:
            continue
    return events


# ---------------------------------------------------------------------- HTTP plumbing
class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read requests, not logs
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {}, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send(404, {}, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        fake: FakeOpenAI = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._send(400, {}, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
            return
        path = self.path.split("?", 1)[0]
        request = RecordedRequest("POST", path, {k.lower(): v for k, v in self.headers.items()}, body)
        fake._record(request)
        if path.endswith("/chat/completions"):
            self._send(*fake.chat(request))
        elif path.endswith("/embeddings"):
            self._send(*fake.embeddings(request))
        else:
            self._send(404, {}, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def _send(self, status: int, headers: dict[str, str], body: Any) -> None:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server for local runs and tests.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--rules", action="store_true", help="answer with the offline rule extractor")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(rules=args.rules, host=args.host, port=args.port)
    print(f"fake OpenAI listening on {fake.base_url} (rules={'on' if args.rules else 'off'})", flush=True)
    try:
        fake._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake._server.server_close()


if __name__ == "__main__":
    main()
