"""Settings from the environment, parsed once per container through a pydantic model."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# The chat route's model budget when LTM_CHAT_TIMEOUT_S / LTM_CHAT_MAX_RETRIES are unset.
CHAT_TIMEOUT_CAP_S = 9.0
CHAT_RETRIES_CAP = 1


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    table_name: str = Field(default="health-ltm", alias="LTM_TABLE_NAME")
    extraction_queue_url: str = Field(default="", alias="LTM_EXTRACTION_QUEUE_URL")
    maintenance_queue_url: str = Field(default="", alias="LTM_MAINTENANCE_QUEUE_URL")
    # OpenSearch Serverless collection endpoint; empty means the local vector index.
    vector_endpoint: str = Field(default="", alias="LTM_VECTOR_ENDPOINT")
    vector_index: str = Field(default="episodes", alias="LTM_VECTOR_INDEX")
    local_vector_path: str = Field(default="", alias="LTM_LOCAL_VECTOR_PATH")
    # OpenAI: the key is read from Secrets Manager at run time (never an env value in AWS);
    # OPENAI_API_KEY is honoured for local use only.
    openai_secret_arn: str = Field(default="", alias="LTM_OPENAI_SECRET_ARN")
    openai_api_key: str = Field(default="", alias="OPENAI_API_KEY")
    openai_base_url: str = Field(default="", alias="OPENAI_BASE_URL")
    classifier_model: str = Field(default="gpt-4.1-mini", alias="LTM_CLASSIFIER_MODEL")
    extractor_model: str = Field(default="gpt-4.1-mini", alias="LTM_EXTRACTOR_MODEL")
    chat_model: str = Field(default="gpt-4.1-mini", alias="LTM_CHAT_MODEL")
    embedding_model: str = Field(default="text-embedding-3-small", alias="LTM_EMBEDDING_MODEL")
    llm_timeout_s: float = Field(default=20.0, alias="LTM_LLM_TIMEOUT_S")
    llm_max_retries: int = Field(default=2, alias="LTM_LLM_MAX_RETRIES")
    # How the model is held to a JSON schema (adapters/openai_llm.py): "json_schema" (strict
    # structured outputs: OpenAI, vLLM), "json_object" (JSON mode with the schema in the prompt and
    # in response_format.schema: llama.cpp, Ollama), "tools" (one forced function call), or "auto"
    # (json_schema first; on a 4xx refusal of the mode, the next one, remembered per endpoint and
    # model for the container's life). Every mode ends in the same pydantic validation.
    structured_output: Literal["json_schema", "json_object", "tools", "auto"] = Field(
        default="json_schema", alias="LTM_STRUCTURED_OUTPUT"
    )
    # POST /v1/chat's model budget: per attempt, and attempts after the first. Their product plus
    # the SDK's backoff stays below the api function timeout, itself below API Gateway's 29 s, so a
    # slow model is our 504, not a gateway 502 (infra/components/functions.py checks the sum).
    # Unset: the write path's values, capped at CHAT_TIMEOUT_CAP_S and CHAT_RETRIES_CAP.
    chat_timeout_s: float | None = Field(default=None, gt=0, le=25, alias="LTM_CHAT_TIMEOUT_S")
    chat_max_retries: int | None = Field(default=None, ge=0, le=3, alias="LTM_CHAT_MAX_RETRIES")
    # The read path's query classifier: "local" (lexicon + nearest exemplar, no network; the
    # default) or "model" (adapters/openai_query_classifier.py, needs a configured model; within
    # its own time budget, and the local answer stands on any model error).
    query_classifier: Literal["local", "model"] = Field(default="local", alias="LTM_QUERY_CLASSIFIER")
    query_classifier_model: str = Field(default="gpt-4.1-mini", alias="LTM_QUERY_CLASSIFIER_MODEL")
    query_classifier_timeout_s: float = Field(
        default=1.5, gt=0, le=30, alias="LTM_QUERY_CLASSIFIER_TIMEOUT_S"
    )
    # Limits of POST /v1/fragments.
    max_messages: int = Field(default=40, alias="LTM_MAX_MESSAGES")
    max_message_chars: int = Field(default=4000, alias="LTM_MAX_MESSAGE_CHARS")
    context_default_tokens: int = Field(default=400, alias="LTM_CONTEXT_DEFAULT_TOKENS")
    # Measured by bench/episode_budget.py (docs/bench/episode-budget.md): 98% of episode searches
    # (provider embedding + k-NN) arrive within 1 s of the facts being loaded; 0.25 s got 32-40%.
    episode_timeout_s: float = Field(default=1.0, gt=0, le=5, alias="LTM_EPISODE_TIMEOUT_S")
    cors_origin: str = Field(default="*", alias="LTM_CORS_ORIGIN")
    # ---------------------------------------------------------------- chat (POST /v1/chat, issue 8)
    # A session's buffered turns become one fragment after this many user turns, at
    # POST /v1/sessions/{id}/end, when idle this long (found by the maintenance schedule), or when
    # the user starts another session.
    chat_flush_user_turns: int = Field(default=6, ge=1, le=20, alias="LTM_CHAT_FLUSH_TURNS")
    chat_idle_minutes: float = Field(default=30.0, gt=0, alias="LTM_CHAT_IDLE_MINUTES")
    chat_history_turns: int = Field(default=12, ge=0, le=40, alias="LTM_CHAT_HISTORY_TURNS")
    chat_context_tokens: int = Field(default=600, ge=50, le=4000, alias="LTM_CHAT_CONTEXT_TOKENS")
    # Chat turns a user may start per UTC minute (each is a paid model call); more answer 429. 0: off.
    chat_rate_per_minute: int = Field(default=20, ge=0, le=10000, alias="LTM_CHAT_RATE_PER_MINUTE")

    @property
    def chat_attempt_timeout_s(self) -> float:
        if self.chat_timeout_s is not None:
            return self.chat_timeout_s
        return min(self.llm_timeout_s, CHAT_TIMEOUT_CAP_S)

    @property
    def chat_retries(self) -> int:
        if self.chat_max_retries is not None:
            return self.chat_max_retries
        return min(self.llm_max_retries, CHAT_RETRIES_CAP)

    @property
    def chat_budget_s(self) -> float:
        """The longest POST /v1/chat waits for the model: every attempt plus the SDK's backoff
        between them (openai's first retries wait well under 2 s each)."""
        return self.chat_attempt_timeout_s * (self.chat_retries + 1) + 2.0 * self.chat_retries

    @property
    def model_configured(self) -> bool:
        return bool(self.openai_api_key or self.openai_base_url or self.openai_secret_arn)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
