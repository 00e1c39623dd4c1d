"""The OpenAI API key: from Secrets Manager in AWS (read at run time, cached), from the env locally.

In AWS the key never sits in an environment variable: the function gets the secret's ARN and
reads the value through the Powertools parameters utility, which caches it for
``SECRET_MAX_AGE_S`` so a rotated key is picked up within minutes without a redeploy. The stack
creates the secret with no value; until the operator puts a key in, reading it raises
``ModelNotConfigured`` (there is no placeholder that could be sent as a key).
"""

from __future__ import annotations

import json

from ..errors import ModelNotConfigured, ModelUnavailable
from ..settings import Settings

SECRET_MAX_AGE_S = 300
# Many OpenAI-compatible servers (vLLM, llama.cpp, Ollama, the local fake) ignore the key,
# but the SDK insists on one.
PLACEHOLDER_KEY = "sk-no-key-needed"
_JSON_KEYS = ("api_key", "OPENAI_API_KEY", "openai_api_key", "key")


def get_openai_api_key(settings: Settings) -> str:
    if settings.openai_api_key:
        return settings.openai_api_key
    if settings.openai_secret_arn:
        from aws_lambda_powertools.utilities import parameters  # lazy: pulls boto3 clients in

        try:
            raw = parameters.get_secret(settings.openai_secret_arn, max_age=SECRET_MAX_AGE_S)
        except parameters.exceptions.GetParameterError as error:
            if _no_value_yet(error):
                # The stack creates the secret without a value (infra/components/secret.py).
                raise ModelNotConfigured("the OpenAI secret has no value yet (put the key in)") from None
            raise ModelUnavailable("the OpenAI secret could not be read") from None
        return parse_secret(raw)
    if settings.openai_base_url:
        return PLACEHOLDER_KEY
    raise ModelNotConfigured("no OpenAI key, secret or base URL configured")


def _no_value_yet(error: BaseException) -> bool:
    """GetSecretValue on a secret with no version: ResourceNotFoundException (the secret exists,
    its AWSCURRENT value does not). Other failures (access, throttling) are not "no key"."""
    cause = error.__cause__ or error.__context__
    code = getattr(cause, "response", {}).get("Error", {}).get("Code") if cause is not None else None
    return code == "ResourceNotFoundException" or "ResourceNotFoundException" in str(error)


def parse_secret(raw: str | bytes | dict) -> str:
    """Accept a plain string or a JSON object such as {"api_key": "sk-..."}."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8")
    if isinstance(raw, str):
        text = raw.strip()
        if not text.startswith("{"):
            if not text:
                raise ModelNotConfigured("the OpenAI secret is empty")
            return text
        try:
            raw = json.loads(text)
        except json.JSONDecodeError:
            # The message names the problem, never the secret's content.
            raise ModelNotConfigured("the OpenAI secret is not valid JSON") from None
    if isinstance(raw, dict):
        for key in _JSON_KEYS:
            value = raw.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
    raise ModelNotConfigured("the OpenAI secret holds no api_key")
