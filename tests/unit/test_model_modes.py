"""Structured output modes (json_schema, json_object, tools, auto) against the fake OpenAI server,
the model key's absence (no placeholder, no DLQ: the offline rules, with a metric), and the
chat route's tighter model budget."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from health_ltm import errors, wiring
from health_ltm.adapters import openai_llm
from health_ltm.adapters.openai_llm import (
    ModelModeUnsupported,
    OpenAIEmbedder,
    OpenAIExtractor,
    OpenAISectionClassifier,
    chat_completion,
    detected_mode,
    openai_client,
)
from health_ltm.adapters.secrets import get_openai_api_key
from health_ltm.domain.models import Message, Role
from health_ltm.domain.sections import Section
from health_ltm.errors import ModelAuthRejected, ModelNotConfigured, ModelOutputInvalid
from health_ltm.observability import metrics
from health_ltm.settings import Settings
from tests.fakes.fake_openai import FakeOpenAI, Reply
from tests.unit.test_openai_llm import DIALOGUE, make_settings, medication_event

MODES = ("json_schema", "json_object", "tools")
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean():
    metrics.clear_metrics()
    openai_llm._DETECTED.clear()
    yield
    metrics.clear_metrics()
    openai_llm._DETECTED.clear()


# ------------------------------------------------------------------------------ each mode
@pytest.mark.parametrize("mode", MODES)
def test_every_mode_returns_the_same_validated_assertions(mode):
    # Given a server that speaks only this mode, answering one medication event
    with FakeOpenAI(modes=(mode,)) as fake:
        fake.script(Reply.events(medication_event()))
        extractor = OpenAIExtractor(make_settings(fake, LTM_STRUCTURED_OUTPUT=mode))

        # When the extractor runs
        (assertion,) = extractor.extract(DIALOGUE, [Section.MEDICATIONS])

    # Then the answer went through the same schema and the same domain model
    assert (assertion.section, assertion.name, assertion.attributes["dose_value"]) == (
        Section.MEDICATIONS,
        "Энап",
        5,
    )
    (request,) = fake.chat_requests
    assert request.mode == mode
    assert request.schema_name == "Extraction"
    assert request.schema["properties"]["events"]


def test_json_object_mode_puts_the_schema_in_the_prompt_and_in_response_format():
    with FakeOpenAI(modes=("json_object",)) as fake:
        OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT="json_object")).classify(DIALOGUE)

    (request,) = fake.chat_requests
    assert request.response_format["type"] == "json_object"
    assert request.response_format["schema"]["title"] == "SectionChoice"
    assert '"sections"' in request.system_prompt and "JSON schema" in request.system_prompt


def test_tools_mode_forces_one_strict_function_call_and_reads_its_arguments():
    with FakeOpenAI(modes=("tools",)) as fake:
        fake.script(Reply.sections("allergies", "medications"))
        sections = OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT="tools")).classify(
            DIALOGUE
        )

    assert set(sections) == {Section.ALLERGIES, Section.MEDICATIONS}
    (request,) = fake.chat_requests
    (tool,) = request.body["tools"]
    assert tool["function"]["strict"] is True
    assert request.body["tool_choice"] == {"type": "function", "function": {"name": "SectionChoice"}}
    assert "response_format" not in request.body


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "bad",
    [
        {"sections": ["astrology"]},  # a wrong enum
        {"sections": ["allergies"], "extra": 1},  # an extra key
        {},  # a missing key
    ],
)
def test_a_sloppy_answer_fails_the_same_validation_in_every_mode(mode, bad):
    with FakeOpenAI(modes=(mode,)) as fake:
        fake.script(Reply.json(bad))
        classifier = OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT=mode))
        with pytest.raises(ModelOutputInvalid):
            classifier.classify(DIALOGUE)


def test_a_tool_answer_without_the_call_is_invalid_not_empty():
    with FakeOpenAI(modes=("tools",)) as fake:
        fake.script(Reply(body={
            "id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "{\"sections\": []}"}}],
        }))  # fmt: skip
        with pytest.raises(ModelOutputInvalid, match="0 tool calls"):
            OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT="tools")).classify(DIALOGUE)


def test_a_mode_the_server_refuses_is_a_typed_error():
    with FakeOpenAI(modes=("json_object",)) as fake, pytest.raises(ModelModeUnsupported, match="json_schema"):
        OpenAISectionClassifier(make_settings(fake)).classify(DIALOGUE)


# ------------------------------------------------------------------------------ auto
def test_auto_finds_the_mode_the_server_speaks_once_and_keeps_it():
    # Given a server like llama.cpp's: json_object only
    with FakeOpenAI(modes=("json_object",)) as fake:
        settings = make_settings(fake, LTM_STRUCTURED_OUTPUT="auto")
        classifier = OpenAISectionClassifier(settings)

        # When two fragments are classified
        classifier.classify(DIALOGUE)
        classifier.classify(DIALOGUE)

    # Then the first call tried json_schema, then json_object; the second went straight there
    assert [r.mode for r in fake.chat_requests] == ["json_schema", "json_object", "json_object"]
    assert detected_mode(classifier.client, classifier.model) == "json_object"


def test_auto_reads_a_500_that_blames_the_request_field_as_an_unsupported_mode():
    # llama-cpp-python's server answers an unknown response_format with 500, not 400
    with FakeOpenAI(modes=("json_object",), unsupported_status=500) as fake:
        settings = make_settings(fake, LTM_STRUCTURED_OUTPUT="auto", LTM_LLM_MAX_RETRIES=0)
        OpenAISectionClassifier(settings).classify(DIALOGUE)

    assert [r.mode for r in fake.chat_requests] == ["json_schema", "json_object"]


def test_a_plain_500_is_still_a_server_error_not_a_mode_problem():
    with FakeOpenAI() as fake:
        fake.script(Reply.server_error(500), Reply.server_error(500))
        settings = make_settings(fake, LTM_STRUCTURED_OUTPUT="auto", LTM_LLM_MAX_RETRIES=0)
        with pytest.raises(errors.ModelServerError):
            OpenAISectionClassifier(settings).classify(DIALOGUE)


def test_auto_keeps_json_schema_where_it_works():
    with FakeOpenAI() as fake:
        OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT="auto")).classify(DIALOGUE)
    assert [r.mode for r in fake.chat_requests] == ["json_schema"]


def test_auto_gives_a_typed_error_when_no_mode_is_spoken():
    with FakeOpenAI(modes=()) as fake, pytest.raises(ModelModeUnsupported, match="none of"):
        OpenAISectionClassifier(make_settings(fake, LTM_STRUCTURED_OUTPUT="auto")).classify(DIALOGUE)


# ------------------------------------------------------------------------------ keys
def test_a_refused_key_is_its_own_typed_error():
    with FakeOpenAI() as fake:
        fake.script(Reply(status=401, body={"error": {"message": "bad key", "type": "invalid_api_key"}}))
        with pytest.raises(ModelAuthRejected):
            OpenAISectionClassifier(make_settings(fake, LTM_LLM_MAX_RETRIES=0)).classify(DIALOGUE)


@pytest.fixture
def empty_secret(monkeypatch):
    """A secret created the way the stack creates it: no value at all."""
    moto = pytest.importorskip("moto")
    import boto3
    from aws_lambda_powertools.utilities import parameters

    for name, value in {
        "AWS_DEFAULT_REGION": "eu-west-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
    }.items():
        monkeypatch.setenv(name, value)
    parameters.clear_caches()
    with moto.mock_aws():
        client = boto3.client("secretsmanager", region_name="eu-west-1")
        yield client, client.create_secret(Name="ltm/openai-empty")["ARN"]
    parameters.clear_caches()


def test_a_secret_without_a_value_means_no_key_is_set(empty_secret):
    client, arn = empty_secret

    with pytest.raises(ModelNotConfigured, match="no value yet"):
        get_openai_api_key(Settings(OPENAI_API_KEY="", LTM_OPENAI_SECRET_ARN=arn))

    client.put_secret_value(SecretId=arn, SecretString="sk-now-set")
    from aws_lambda_powertools.utilities import parameters

    parameters.clear_caches()
    assert get_openai_api_key(Settings(OPENAI_API_KEY="", LTM_OPENAI_SECRET_ARN=arn)) == "sk-now-set"


def test_without_a_key_the_write_path_uses_the_offline_rules_and_never_fails_the_record(
    empty_secret, monkeypatch, capsys
):
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from health_ltm.domain.clock import SystemClock
    from health_ltm.handlers import extract
    from health_ltm.storage.memory import InMemoryRepository
    from health_ltm.write.intake import submit_fragment
    from health_ltm.write.pipeline import WritePath

    _, arn = empty_secret
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)  # the metric is what is checked
    # Given the deployed wiring: model adapters chosen (a secret ARN is set), the secret empty
    settings = Settings(OPENAI_API_KEY="", LTM_OPENAI_SECRET_ARN=arn, OPENAI_BASE_URL="")
    repo = InMemoryRepository()
    model_path = WritePath(
        repository=repo,
        classifier=OpenAISectionClassifier(settings),
        extractor=OpenAIExtractor(settings),
        clock=SystemClock(),
        new_id=wiring.id_factory(),
    )
    monkeypatch.setattr(wiring, "write_path", lambda: model_path)
    monkeypatch.setattr(wiring, "repository", lambda: repo)
    extract.offline_write_path.cache_clear()
    sent = []
    queue = type("Q", (), {"send": lambda self, u, f: sent.append((u, f))})()
    fragment = submit_fragment(
        repo, queue, SystemClock(), wiring.id_factory(), "u1", "s1",
        [Message(role=Role.USER, text="У меня аллергия на пенициллин")],
    )  # fmt: skip
    raw = json.loads((REPO / "events" / "sqs_extraction_batch.json").read_text())["Records"][0]
    raw["body"] = json.dumps({"user_id": "u1", "fragment_id": fragment.id})
    record = SQSRecord(raw)

    # When the worker processes the record
    status = extract.process_record(record)
    metrics.flush_metrics()

    # Then the fragment is applied by the rules (nothing to retry, nothing to the DLQ) and counted
    assert status == "applied"
    (fact,) = repo.load_memory("u1").facts
    assert fact.section is Section.ALLERGIES
    assert "ModelKeyMissing" in capsys.readouterr().out
    extract.offline_write_path.cache_clear()


# ------------------------------------------------------------------------------ chat budget
def test_chat_uses_its_own_tighter_budget_not_the_write_paths():
    with FakeOpenAI() as fake:
        fake.script(Reply.slow(1.5, Reply(content="late")), Reply.slow(1.5, Reply(content="late")))
        settings = make_settings(
            fake, LTM_LLM_TIMEOUT_S=20, LTM_LLM_MAX_RETRIES=2, LTM_CHAT_TIMEOUT_S=0.3, LTM_CHAT_MAX_RETRIES=0
        )
        started = time.monotonic()
        with pytest.raises(errors.ModelTimeout):
            chat_completion([{"role": "user", "content": "hi"}], settings=settings)
        assert time.monotonic() - started < 1.2
        assert openai_client(settings, chat=True).timeout == 0.3
        assert openai_client(settings).timeout == 20


def test_the_chat_budget_counts_every_attempt_and_the_backoff():
    settings = Settings(LTM_CHAT_TIMEOUT_S=9, LTM_CHAT_MAX_RETRIES=1)
    assert settings.chat_budget_s == 9 * 2 + 2


def test_unset_the_chat_budget_is_the_write_paths_capped():
    assert Settings().chat_budget_s == 9 * 2 + 2  # 20 s x 3 attempts capped at 9 s x 2
    tight = Settings(LTM_LLM_TIMEOUT_S=0.5, LTM_LLM_MAX_RETRIES=0)
    assert (tight.chat_attempt_timeout_s, tight.chat_retries) == (0.5, 0)


# ------------------------------------------------------------------------------ query embedding
def test_a_query_embedded_twice_costs_one_call():
    with FakeOpenAI() as fake:
        embedder = OpenAIEmbedder(make_settings(fake))
        first = embedder.embed(["Можно ли мне ибупрофен?"])
        second = embedder.embed(["Можно ли мне ибупрофен?"])
        embedder.embed(["a", "b"])  # batches (the write path) are not cached

    assert first == second
    assert len(fake.embedding_requests) == 2


# ------------------------------------------------------------------------------ ltm doctor
def test_doctor_reports_which_modes_a_server_speaks_and_recommends_one():
    from ltm_local.cli import doctor

    with FakeOpenAI(modes=("json_object",)) as fake:
        report = doctor(make_settings(fake, LTM_STRUCTURED_OUTPUT="json_schema"))

    modes = report["checks"]["structured_output"]
    assert report["checks"]["reachable"]["ok"] and report["checks"]["key_accepted"]["ok"]
    assert [m for m, r in modes.items() if r["ok"]] == ["json_object"]
    assert report["recommended_mode"] == "json_object"
    assert report["ok"] is False and "LTM_STRUCTURED_OUTPUT=json_object" in report["hint"]


def test_doctor_passes_a_server_that_speaks_the_configured_mode():
    from ltm_local.cli import doctor

    with FakeOpenAI() as fake:
        report = doctor(make_settings(fake))

    assert report["ok"] is True, report


def test_doctor_says_when_no_key_is_set(empty_secret):
    from ltm_local.cli import doctor

    _, arn = empty_secret
    report = doctor(Settings(OPENAI_API_KEY="", OPENAI_BASE_URL="", LTM_OPENAI_SECRET_ARN=arn))

    assert report["ok"] is False and "no value yet" in report["checks"]["key"]["detail"]
