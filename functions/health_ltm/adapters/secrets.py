"""The OpenAI API key: from Secrets Manager in AWS (read at run time, cached), from the env locally.

In AWS the key never sits in an environment variable: the function gets the secret's ARN and
reads the value through the Powertools parameters utility, which caches it for
``SECRET_MAX_AGE_S`` so a rotated key is picked up within minutes without a redeploy.
"""

from __future__ import annotations

import json

from ..ports import ModelUnavailable
from ..settings import Settings

SECRET_MAX_AGE_S = 300
# Many OpenAI-compatible servers (vLLM, llama.cpp, Ollama, the local fake) ignore the key,
# but the SDK insists on one.
PLACEHOLDER_KEY = "sk-no-key-needed"
_JSON_KEYS = ("api_key", "OPENAI_API_KEY", "openai_api_key", "key")


class ModelNotConfigured(ModelUnavailable):
    """No key, no secret and no base URL: the model adapters should not have been chosen."""


def get_openai_api_key(settings: Settings) -> str:
    if settings.openai_api_key:
        return settings.openai_api_key
    if settings.openai_secret_arn:
        from aws_lambda_powertools.utilities import parameters  # lazy: pulls boto3 clients in

        raw = parameters.get_secret(settings.openai_secret_arn, max_age=SECRET_MAX_AGE_S)
        return parse_secret(raw)
    if settings.openai_base_url:
        return PLACEHOLDER_KEY
    raise ModelNotConfigured("no OpenAI key, secret or base URL configured")


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
