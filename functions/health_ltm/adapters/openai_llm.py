"""OpenAI (or any OpenAI-compatible endpoint) behind the classifier, extractor and embedder ports.

Every model answer is constrained by the JSON schema of a pydantic model, in one of three
modes (``settings.structured_output``): ``json_schema`` (strict structured outputs),
``json_object`` (JSON mode, the schema in the prompt and in ``response_format.schema``, which
llama.cpp's server turns into a grammar) or ``tools`` (one forced function call whose
parameters are the schema); ``auto`` finds the first mode the endpoint accepts, once. Whatever
the mode, the answer is validated here against the same pydantic model: an answer that is not
valid JSON, breaks the schema (a wrong enum, a missing or extra key, a section that was not
asked for) or is a refusal raises ``ModelOutputInvalid``. A failed call is never turned into "nothing to
extract": every failure is a ``ModelUnavailable`` subclass, so the fragment is retried and
ends in the DLQ rather than being lost.

``openai`` is imported lazily (about 0.7 s of cold start) and only by the code paths that call
the model. Error messages and logs carry status codes and counts, never the user's words.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel, ValidationError

from ..domain.models import Assertion, Message
from ..domain.sections import Section
from ..errors import (
    ModelAuthRejected,
    ModelOutputInvalid,
    ModelRateLimited,
    ModelServerError,
    ModelTimeout,
    ModelUnavailable,
)
from ..observability import logger, metrics, tracer
from ..settings import Settings, get_settings
from . import prompts
from .llm_schemas import SectionChoice, extraction_model
from .secrets import get_openai_api_key

if TYPE_CHECKING:
    from openai import OpenAI

ResponseT = TypeVar("ResponseT", bound=BaseModel)

# Native sizes; text-embedding-3 models can be shortened with the ``dimensions`` parameter.
EMBEDDING_DIMENSIONS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
EMBEDDING_BATCH = 256
QUERY_EMBEDDING_CACHE = 128


class ModelModeUnsupported(ModelUnavailable):
    """HTTP 400/404/422 to a structured-output request: the endpoint does not speak this mode.

    Only this adapter's mode negotiation (and the local CLI probing it) cares: it stays here."""


MODES = ("json_schema", "json_object", "tools")


@dataclass(frozen=True)
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


# ---------------------------------------------------------------------------------- client
@lru_cache(maxsize=4)
def _cached_client(base_url: str | None, api_key: str, timeout_s: float, max_retries: int) -> OpenAI:
    import openai  # lazy: see the module docstring

    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)


def openai_client(settings: Settings, *, chat: bool = False) -> OpenAI:
    """One client per (endpoint, key, limits): a rotated key gives a new client, nothing else does.

    ``chat=True``: the chat route's tighter budget (``Settings.chat_attempt_timeout_s``, ``chat_retries``)."""
    return _cached_client(
        settings.openai_base_url or None,
        get_openai_api_key(settings),
        settings.chat_attempt_timeout_s if chat else settings.llm_timeout_s,
        settings.chat_retries if chat else settings.llm_max_retries,
    )


class _ModelAdapter:
    def __init__(self, settings: Settings | None, client: OpenAI | None) -> None:
        self._settings = settings or get_settings()
        self._injected = client

    @property
    def client(self) -> OpenAI:
        # Not cached on the instance: the secret may rotate under a long-lived container.
        return self._injected or openai_client(self._settings)


# ---------------------------------------------------------------------------------- errors
@contextmanager
def _model_errors(operation: str) -> Iterator[None]:
    """Map SDK exceptions to typed ``ModelUnavailable`` errors without their text (it may quote input)."""
    import openai

    try:
        yield
    except openai.APITimeoutError:
        _failed(operation, "timeout")
        raise ModelTimeout(f"{operation}: the model did not answer in time") from None
    except openai.RateLimitError:
        _failed(operation, "rate_limited")
        raise ModelRateLimited(f"{operation}: rate limited (429) after retries") from None
    except openai.APIConnectionError:
        _failed(operation, "connection")
        raise ModelServerError(f"{operation}: the model endpoint could not be reached") from None
    except openai.APIStatusError as error:
        _failed(operation, str(error.status_code))
        if error.status_code in (401, 403):
            raise ModelAuthRejected(
                f"{operation}: the endpoint refused the key ({error.status_code})"
            ) from None
        if error.status_code >= 500:
            raise ModelServerError(f"{operation}: the model endpoint answered {error.status_code}") from None
        raise ModelUnavailable(f"{operation}: the model endpoint answered {error.status_code}") from None
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError):
        _failed(operation, "finish_reason")
        raise ModelOutputInvalid(f"{operation}: the answer was cut off or filtered") from None


def _failed(operation: str, reason: str) -> None:
    metrics.add_metric(name="ModelCallFailed", unit=MetricUnit.Count, value=1)
    logger.warning("model call failed", extra={"operation": operation, "reason": reason})


def _record_usage(usage: Any) -> TokenUsage:
    if usage is None:
        return TokenUsage()
    tokens = TokenUsage(usage.prompt_tokens or 0, getattr(usage, "completion_tokens", 0) or 0)
    metrics.add_metric(name="ModelPromptTokens", unit=MetricUnit.Count, value=tokens.prompt_tokens)
    metrics.add_metric(name="ModelCompletionTokens", unit=MetricUnit.Count, value=tokens.completion_tokens)
    return tokens


# ------------------------------------------------------------------------ structured calls
# Mode chosen by "auto", per (endpoint, model), for the container's life.
_DETECTED: dict[tuple[str, str], str] = {}
_MODE_UNSUPPORTED = (400, 404, 415, 422)


def structured_completion(
    client: OpenAI,
    *,
    model: str,
    system: str,
    user: str,
    response_model: type[ResponseT],
    operation: str,
    mode: str = "json_schema",
) -> ResponseT:
    """One chat completion held to the JSON schema of ``response_model`` in ``mode``
    (``json_schema``, ``json_object``, ``tools`` or ``auto``), then validated by pydantic.

    ``create`` plus our own validation rather than ``parse``: the token usage is recorded even
    when the answer is invalid, and every failure goes through one typed mapping. Whatever the
    mode, the same ``_parse`` ends the call: a weak model's answer is held to the same schema.
    """
    if mode == "auto":
        return _auto(client, model, system, user, response_model, operation)
    if mode not in MODES:
        raise ValueError(f"unknown structured output mode {mode!r}")
    request = _request(mode, model, system, user, response_model)
    with _model_errors(operation):
        try:
            completion = client.chat.completions.create(**request)
        except Exception as error:
            status = getattr(error, "status_code", None)
            if status in _MODE_UNSUPPORTED or (status == 500 and _blames_the_mode(error, mode)):
                _failed(operation, f"mode_{mode}_{status}")
                raise ModelModeUnsupported(f"{operation}: the endpoint refused {mode} ({status})") from None
            raise
    _record_usage(completion.usage)
    return _parse(completion, response_model, operation, tool=request.get("tool_choice") is not None)


def _blames_the_mode(error: Exception, mode: str) -> bool:
    """Some servers answer a request field they do not know with 500, not 400 (llama.cpp's:
    "response_format.type: Input should be 'text' or 'json_object'"). Only such a message counts."""
    text = f"{getattr(error, 'message', '')} {getattr(error, 'body', '')}"
    field = {"json_schema": "response_format", "json_object": "response_format", "tools": "tool"}[mode]
    return field in text and ("validation" in text.lower() or "input should be" in text.lower())


def _auto(
    client: OpenAI, model: str, system: str, user: str, response_model: type[ResponseT], operation: str
) -> ResponseT:
    key = (str(getattr(client, "base_url", "")), model)
    known = _DETECTED.get(key)
    for mode in [known] if known else list(MODES):
        try:
            answer = structured_completion(
                client,
                model=model,
                system=system,
                user=user,
                response_model=response_model,
                operation=operation,
                mode=mode,
            )
        except ModelModeUnsupported:
            if known:
                _DETECTED.pop(key, None)  # the endpoint changed under us: detect again next time
                raise
            continue
        if key not in _DETECTED:
            _DETECTED[key] = mode
            logger.info("structured output mode detected", extra={"mode": mode, "model": model})
        return answer
    raise ModelModeUnsupported(f"{operation}: the endpoint accepts none of {', '.join(MODES)}")


def detected_mode(client: OpenAI, model: str) -> str | None:
    return _DETECTED.get((str(getattr(client, "base_url", "")), model))


def _request(mode: str, model: str, system: str, user: str, response_model: type[BaseModel]) -> dict:
    strict = _response_format(response_model)
    schema = strict["json_schema"]["schema"]
    name = strict["json_schema"]["name"]
    request: dict[str, Any] = {"model": model, "temperature": 0}
    if mode == "json_schema":
        request["response_format"] = strict
    elif mode == "json_object":
        # The schema in the prompt for any JSON-mode server; in response_format.schema for the
        # servers that compile it into a grammar (llama.cpp's). OpenAI itself uses json_schema.
        system = f"{system}\n\n{json_schema_instruction(schema)}"
        request["response_format"] = {"type": "json_object", "schema": schema}
    else:  # tools
        request["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": "Record the answer. Call it exactly once.",
                    "parameters": schema,
                    "strict": True,
                },
            }
        ]
        request["tool_choice"] = {"type": "function", "function": {"name": name}}
    request["messages"] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return request


def json_schema_instruction(schema: dict) -> str:
    """The schema as an instruction, for JSON mode (which alone guarantees only "some JSON")."""
    import json

    return (
        "Answer with one JSON object and nothing else. It must validate against this JSON schema "
        "(every property is required; use null where a value is unknown):\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def _response_format(response_model: type[BaseModel]) -> Any:
    """The SDK's own strict-schema builder (all properties required, every object closed)."""
    try:
        from openai.lib import type_to_response_format_param
    except ImportError:  # SDKs that do not re-export it
        from openai.lib._parsing._completions import type_to_response_format_param
    return type_to_response_format_param(response_model)


def _parse(completion: Any, response_model: type[ResponseT], operation: str, tool: bool = False) -> ResponseT:
    if not completion.choices:
        raise _invalid(operation, "no choices")
    choice = completion.choices[0]
    if choice.finish_reason in ("length", "content_filter"):
        raise _invalid(operation, f"finish_reason {choice.finish_reason}")
    if getattr(choice.message, "refusal", None):
        raise _invalid(operation, "refusal")
    content = choice.message.content
    if tool:
        calls = getattr(choice.message, "tool_calls", None) or []
        if len(calls) != 1 or getattr(calls[0], "function", None) is None:
            raise _invalid(operation, f"{len(calls)} tool calls instead of one")
        content = calls[0].function.arguments
    if not content:
        raise _invalid(operation, "empty content")
    try:
        return response_model.model_validate_json(content)
    except ValidationError as error:
        # Locations and error types only: pydantic's own message quotes the input.
        where = ", ".join(sorted({".".join(map(str, e["loc"])) or e["type"] for e in error.errors()})[:5])
        raise _invalid(operation, f"{error.error_count()} schema errors at {where}") from None


def _invalid(operation: str, reason: str) -> ModelOutputInvalid:
    metrics.add_metric(name="ModelOutputInvalid", unit=MetricUnit.Count, value=1)
    logger.warning("model output invalid", extra={"operation": operation, "reason": reason})
    return ModelOutputInvalid(f"{operation}: {reason}")


# ---------------------------------------------------------------------------------- ports
class OpenAISectionClassifier(_ModelAdapter):
    """Which of the eleven sections a dialogue fragment touches (any number, possibly none)."""

    def __init__(self, settings: Settings | None = None, *, client: OpenAI | None = None) -> None:
        super().__init__(settings, client)
        self.model = self._settings.classifier_model
        self.name = f"openai:{self.model}"

    @tracer.capture_method(capture_response=False)
    def classify(self, messages: Sequence[Message]) -> list[Section]:
        if not messages:
            return []
        answer = structured_completion(
            self.client,
            model=self.model,
            system=prompts.classifier_system(),
            user=prompts.render_dialogue(messages),
            response_model=SectionChoice,
            operation="classify",
            mode=self._settings.structured_output,
        )
        chosen = set(answer.sections)
        return [s for s in Section if s in chosen]


class OpenAIExtractor(_ModelAdapter):
    """Candidate assertions for the selected sections; the prompt holds only their rules."""

    def __init__(self, settings: Settings | None = None, *, client: OpenAI | None = None) -> None:
        super().__init__(settings, client)
        self.model = self._settings.extractor_model
        self.name = f"openai:{self.model}"

    @tracer.capture_method(capture_response=False)
    def extract(self, messages: Sequence[Message], sections: Sequence[Section]) -> list[Assertion]:
        chosen = [s for s in Section if s in set(sections)]
        if not chosen or not messages:
            return []
        answer = structured_completion(
            self.client,
            model=self.model,
            system=prompts.extractor_system(chosen, prompts.reference_date(messages)),
            user=prompts.render_dialogue(messages),
            response_model=extraction_model(chosen),
            operation="extract",
            mode=self._settings.structured_output,
        )
        return to_assertions(answer.events)  # type: ignore[attr-defined]


def to_assertions(events: Sequence[BaseModel]) -> list[Assertion]:
    """Schema-valid events to Assertions; meaning is validated later, by code.

    An event the schema allows but the domain model's limits refuse (e.g. a 2,000-character
    name) is dropped and counted, so one odd event does not cost the whole fragment.
    """
    assertions: list[Assertion] = []
    dropped = 0
    for event in events:
        data = event.model_dump(mode="json")
        data["attributes"] = {k: v for k, v in data["attributes"].items() if v is not None}
        try:
            assertions.append(Assertion.model_validate(data))
        except ValidationError:
            dropped += 1
    if dropped:
        metrics.add_metric(name="ModelEventsDropped", unit=MetricUnit.Count, value=dropped)
        logger.warning("model events dropped", extra={"count": dropped})
    return assertions


class OpenAIEmbedder(_ModelAdapter):
    """Embeddings in batches; ``dimensions`` shortens text-embedding-3 vectors when given."""

    def __init__(
        self, settings: Settings | None = None, *, client: OpenAI | None = None, dimensions: int | None = None
    ) -> None:
        super().__init__(settings, client)
        self.name = self._settings.embedding_model
        self.dimensions = dimensions or EMBEDDING_DIMENSIONS.get(self.name, 1536)
        self._request_dimensions = dimensions is not None and self.name.startswith("text-embedding-3")
        # One-text calls (a query) are cached: a chat turn and a POST /v1/context for the same
        # question, or a retried request, embed once per container. Bounded; in memory only.
        self._recent: OrderedDict[str, list[float]] = OrderedDict()

    @tracer.capture_method(capture_response=False)
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) == 1:
            cached = self._recent.get(texts[0])
            if cached is not None:
                self._recent.move_to_end(texts[0])
                metrics.add_metric(name="EmbeddingCacheHit", unit=MetricUnit.Count, value=1)
                return [list(cached)]
        vectors = self._embed(texts)
        if len(texts) == 1:
            self._recent[texts[0]] = vectors[0]
            while len(self._recent) > QUERY_EMBEDDING_CACHE:
                self._recent.popitem(last=False)
        return vectors

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), EMBEDDING_BATCH):
            # The API refuses empty strings; a blank stands in for one.
            batch = [text if text.strip() else " " for text in texts[start : start + EMBEDDING_BATCH]]
            extra: dict[str, Any] = {"dimensions": self.dimensions} if self._request_dimensions else {}
            with _model_errors("embed"):
                response = self.client.embeddings.create(
                    model=self.name, input=batch, encoding_format="float", **extra
                )
            if response.usage is not None:
                metrics.add_metric(
                    name="EmbeddingTokens", unit=MetricUnit.Count, value=response.usage.prompt_tokens or 0
                )
            data = sorted(response.data, key=lambda item: item.index)
            if len(data) != len(batch) or any(len(item.embedding) != self.dimensions for item in data):
                raise _invalid("embed", "wrong number or size of vectors")
            vectors.extend([float(x) for x in item.embedding] for item in data)
        return vectors


def chat_completion(
    messages: Sequence[Mapping[str, str]],
    model: str | None = None,
    *,
    settings: Settings | None = None,
    client: OpenAI | None = None,
    temperature: float | None = None,
) -> tuple[str, TokenUsage]:
    """A plain chat answer (for a chat endpoint): the text and the tokens it cost."""
    settings = settings or get_settings()
    extra: dict[str, Any] = {} if temperature is None else {"temperature": temperature}
    with _model_errors("chat"):
        completion = (client or openai_client(settings, chat=True)).chat.completions.create(
            model=model or settings.chat_model,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            **extra,
        )
    usage = _record_usage(completion.usage)
    if not completion.choices:
        raise _invalid("chat", "no choices")
    return completion.choices[0].message.content or "", usage
