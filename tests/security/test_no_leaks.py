"""No health data in logs, metrics, traces or error bodies: everything captured over a whole flow.

The flow runs over the local stack (HTTP front, pollers, the real handlers) with the model path
(fake OpenAI), at the most verbose log level everywhere, through the happy path, every error
path we can provoke, a model that fails (and answers garbage quoting the user), redelivery, and
erasure. Captured: stdout/stderr (the functions' JSON logs and their CloudWatch EMF metrics),
every stdlib log record at DEBUG (front, pollers, botocore, openai/httpx, Powertools' batch
utility), and what the X-Ray tracer would record (a recording provider stands in for X-Ray:
every subsegment's metadata, annotations and captured exceptions). Every error body is kept too.

Then: not one of the words the user said appears anywhere; metric dimensions hold no user data;
and every tracer decorator in the code passes capture_response=False.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import logging
from pathlib import Path
from urllib.parse import quote

import pytest
from bench.load import fragment_status, live_stack, wait_for

from tests.fakes.fake_openai import FakeOpenAI, Reply

pytestmark = [pytest.mark.xdist_group("ltm_live_leaks"), pytest.mark.slow]

PACKAGE = Path(__file__).resolve().parents[2] / "functions" / "health_ltm"
USER = "leak-user-7f3a"
SAID = [
    "У меня аллергия на арахис, от него крапивница",
    "Пью Энап 5 мг по утрам от давления",
    "Третий день мигрень, пью суматриптан",
    "I was diagnosed with HIV last year",
]
# Pieces of what the user said (and of what they typed into error paths): none may leak.
WORDS = [
    "арахис",
    "крапивниц",
    "Энап",
    "давлени",
    "мигрен",
    "суматриптан",
    "HIV",
    "diagnosed",
    "ибупрофен",
    "гастрит",
    "ВИЧ-статус",
    "шизофрени",
    "heroin",
]


class Subsegment:
    def __init__(self, name: str, sink: list) -> None:
        self.name = name
        self.sink = sink

    def put_metadata(self, key, value, namespace="default"):
        self.sink.append(("metadata", self.name, key, repr(value)))

    def put_annotation(self, key, value):
        self.sink.append(("annotation", self.name, key, repr(value)))

    def add_exception(self, exception, stack, remote=False):
        self.sink.append(("exception", self.name, type(exception).__name__, str(exception)))


class RecordingProvider:
    """Stands in for the X-Ray recorder: what a trace would hold, as text."""

    def __init__(self) -> None:
        self.recorded: list[tuple] = []

    @contextlib.contextmanager
    def in_subsegment(self, name=None, **kwargs):
        yield Subsegment(name, self.recorded)

    in_subsegment_async = in_subsegment

    def put_annotation(self, key, value):
        self.recorded.append(("annotation", None, key, repr(value)))

    def put_metadata(self, key, value, namespace="default"):
        self.recorded.append(("metadata", None, key, repr(value)))


class Model:
    """Honest, except for the faults queued in ``faults``: "429" (the SDK retries once, so two in a
    row fail the call) or "garbage" (broken JSON quoting the whole prompt back)."""

    def __init__(self) -> None:
        self.faults: list[str] = []

    def __call__(self, request):
        if not self.faults:
            return None
        fault = self.faults.pop(0)
        if fault == "429":
            return Reply.rate_limited()
        return Reply(
            content='{"events": [{"section": "allergies", "name": ' + json.dumps(request.user_prompt)
        )


def test_a_whole_flow_leaks_no_health_data(tmp_path, capsys, caplog, monkeypatch):
    from health_ltm.observability import logger as powertools_logger
    from health_ltm.observability import tracer

    # The root logger at DEBUG, as Lambda sets it for AWS_LAMBDA_LOG_LEVEL=DEBUG: every library
    # logger that does not pin its own level (observability.py pins those that log bodies) follows.
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="ltm")
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "DEBUG")
    provider = RecordingProvider()
    monkeypatch.setattr(tracer, "provider", provider)
    own_logs = io.StringIO()
    handler = logging.StreamHandler(own_logs)  # whatever stream the Powertools logger was built with
    handler.setFormatter(powertools_logger.registered_formatter)
    powertools_logger.addHandler(handler)
    previous_level = powertools_logger.log_level
    powertools_logger.setLevel(logging.DEBUG)

    bodies: list[str] = []  # every response body the client saw
    model = Model()
    try:
        with FakeOpenAI(responder=model, rules=True) as fake:
            env = {
                "OPENAI_BASE_URL": fake.base_url,
                "OPENAI_API_KEY": "sk-fake",
                "LTM_LLM_MAX_RETRIES": "1",
                "LTM_LLM_TIMEOUT_S": "2",
            }
            with live_stack(tmp_path / "ltm", env=env) as live:
                _flow(live, model, bodies)
    finally:
        powertools_logger.removeHandler(handler)
        powertools_logger.setLevel(previous_level)

    captured = capsys.readouterr()
    logs = "\n".join([captured.out, captured.err, caplog.text, own_logs.getvalue()])
    traces = "\n".join(" ".join(map(str, entry)) for entry in provider.recorded)
    errors = "\n".join(bodies)

    assert "fragment processed" in logs  # the function logs were captured ...
    assert "model call failed" in logs and "model output invalid" in logs  # ... the failure paths too ...
    traced = {(entry[0], entry[2]) for entry in provider.recorded}
    assert ("annotation", "ColdStart") in traced  # ... and the traces, with the errors they hold
    assert any(kind == "metadata" and key.endswith(" error") for kind, key in traced)
    assert not any(kind == "metadata" and key.endswith(" response") for kind, key in traced)
    assert '"CloudWatchMetrics"' in logs  # ... and metrics
    for where, text in (("logs", logs), ("traces", traces), ("error bodies", errors)):
        lowered = text.lower()
        leaked = [w for w in WORDS if w.lower() in lowered]
        assert not leaked, f"{where} hold what the user said: {leaked}"
    _assert_metric_dimensions_hold_no_user_data(logs)


def _flow(live, model: Model, bodies: list[str]) -> None:
    client = live.client(USER)

    def keep(status, body):
        if status >= 400:
            bodies.append(body if isinstance(body, str) else json.dumps(body, ensure_ascii=False))
        return status, body

    # Happy path.
    ids = []
    for text in SAID:
        status, body = keep(*client.say(text))
        assert status == 202
        ids.append(body["fragment_id"])
    for fragment_id in ids:
        wait_for(lambda f=fragment_id: fragment_status(client, f) == "applied", 30, message="applied")
    for query in ("Можно ли мне ибупрофен при гастрите?", "Какие лекарства я принимаю?", "Что с мигренью?"):
        assert keep(*client.call("POST", "/v1/context", {"query": query}))[0] == 200
    status, facts = keep(*client.call("GET", "/v1/facts"))
    fact = next(f for f in facts["facts"] if f["section"] == "allergies")
    keep(*client.call("GET", f"/v1/facts/{fact['id']}"))
    keep(
        *client.call(
            "PATCH",
            f"/v1/facts/{fact['id']}",
            {"attributes": {"reaction": "крапивница и отёк"}},
            {"If-Match": str(fact["version"])},
        )
    )

    # Error paths, each carrying health words in what it sends.
    secret = "ВИЧ-статус положительный, шизофрения, heroin"
    keep(
        *client.call(
            "PATCH", f"/v1/facts/{fact['id']}", {"attributes": {"reaction": secret}}, {"If-Match": "1"}
        )
    )  # stale: 412
    keep(
        *client.call(
            "PATCH",
            f"/v1/facts/{fact['id']}",
            {"attributes": {"severity": secret}},
            {"If-Match": str(fact["version"] + 1)},
        )
    )  # invalid attribute
    keep(*client.say(secret + " " + "x" * 4100))  # 413
    keep(
        *client.call(
            "POST",
            "/v1/fragments",
            {"session_id": "s1", "messages": [{"role": "user", "text": secret}], "diagnosis": secret},
        )
    )  # 422: extra field
    keep(
        *client.call(
            "POST", "/v1/fragments", {"session_id": secret, "messages": [{"role": "user", "text": secret}]}
        )
    )
    keep(*client.call("POST", "/v1/context", {"query": secret, "max_tokens": secret}))
    status, _, payload = client.raw(
        "POST", "/v1/fragments", f'{{"text": "{secret}'.encode(), {"Content-Type": "application/json"}
    )
    keep(status, payload.decode("utf-8", "replace"))
    status, _, payload = client.raw(
        "POST", "/v1/context", secret.encode("cp1251"), {"Content-Type": "application/json"}
    )
    keep(status, payload.decode("utf-8", "replace"))
    status, _, payload = client.raw("POST", "/v1/context", secret.encode(), {"Content-Type": "text/plain"})
    keep(status, payload.decode("utf-8", "replace"))
    keep(*client.call("GET", "/v1/facts?status=" + quote(secret[:20])))
    keep(*client.call("GET", "/v1/facts/no-such-fact"))
    keep(*client.call("PUT", "/v1/sections/allergies", {"status": secret}))

    # The model fails (garbage quoting the user, 429s), the record is redelivered, then applies.
    model.faults = ["429", "429", "garbage", "garbage", "429", "garbage"]
    status, body = keep(*client.say("Мне поставили гастрит, пью омепразол"))
    wait_for(
        lambda: fragment_status(client, body["fragment_id"]) == "applied", 60, message="applied after faults"
    )
    assert model.faults == []

    # Everything held, then erasure.
    keep(*client.call("GET", "/v1/export"))
    status, erased = keep(*client.call("DELETE", "/v1/me"))
    assert status == 200 and erased["remaining_items"] == 0
    assert len(bodies) >= 10


def _assert_metric_dimensions_hold_no_user_data(logs: str) -> None:
    blobs = []
    for line in logs.splitlines():
        line = line.strip()
        if line.startswith("{") and '"_aws"' in line:
            with contextlib.suppress(ValueError):
                blobs.append(json.loads(line))
    assert blobs
    allowed_dimensions = {"service", "function_name", "operation", "reason"}
    for blob in blobs:
        for directive in blob["_aws"]["CloudWatchMetrics"]:
            for dimension_set in directive["Dimensions"]:
                assert set(dimension_set) <= allowed_dimensions, dimension_set
                for dimension in dimension_set:
                    value = str(blob.get(dimension, ""))
                    assert USER not in value and len(value) <= 64, (dimension, value)
                    assert not any(w.lower() in value.lower() for w in WORDS)
            for metric in directive["Metrics"]:
                assert metric["Name"].isidentifier(), metric  # names are code constants


def test_every_tracer_decorator_keeps_responses_out_of_traces():
    """capture_response=False on every capture_lambda_handler / capture_method in the package:
    a response (a context, a fact, a model answer) would otherwise be put into the trace."""
    found = 0
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("capture_lambda_handler", "capture_method"):
                found += 1
                keywords = {k.arg: k.value for k in node.keywords}
                value = keywords.get("capture_response")
                assert isinstance(value, ast.Constant) and value.value is False, f"{path.name}:{node.lineno}"
            if name in ("put_metadata", "put_annotation") and isinstance(func, ast.Attribute):
                pytest.fail(
                    f"{path.name}:{node.lineno}: a trace annotation/metadata; review it for user data"
                )
    assert found >= 3  # the three handlers at least
