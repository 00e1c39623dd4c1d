"""The chat model port (``chat.service.ChatModel``) on an OpenAI-compatible endpoint."""

from __future__ import annotations

from ..settings import Settings


class OpenAIChatModel:
    """settings.chat_model through ``adapters.openai_llm.chat_completion`` (typed errors)."""

    def __init__(self, settings: Settings, client=None) -> None:
        self._settings = settings
        self._client = client
        self.name = settings.chat_model

    def complete(self, messages: list[dict[str, str]]) -> str:
        # Lazy: the openai SDK costs cold start, and only a configured model needs it.
        from .openai_llm import chat_completion

        text, _usage = chat_completion(messages, self.name, settings=self._settings, client=self._client)
        return text
