"""One chat turn (POST /v1/chat): buffer the user's words, build the context, ask the model, answer.

user turn -> session buffer (persisted BEFORE the model is called: a crash mid-turn loses
             nothing, and with no model the memory still gets the words)
          -> first turn of a session: flush the user's other open sessions (read-your-writes
             across conversations)
          -> read path (read.service.ContextService: labelled blocks by provenance; the session's buffered
             turns that mention allergies or drugs as "just said") -> system prompt
          -> model (settings.chat_model) with the session's recent turns as history
          -> assistant turn -> buffer (N user turns: flush to the write path)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..domain.models import Role
from ..domain.sessions import Turn
from ..errors import EmptyAnswer, ModelUnavailable, NoChatModel
from ..observability import logger
from ..read.context import ContextResult
from ..read.service import ContextService
from ..settings import Settings
from .prompts import chat_messages
from .sessions import BufferPolicy, BufferStore, SessionBuffers, buffer_mentions


class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[dict[str, str]]) -> str: ...


@dataclass
class ChatAnswer:
    answer: str
    session_id: str
    context: ContextResult
    fragment_ids: list[str]  # fragments this turn flushed to the write path


def chat_turn(
    *,
    repository: BufferStore,
    queue,
    clock,
    new_id,
    context: ContextService,
    model: ChatModel | None,
    settings: Settings,
    user_id: str,
    session_id: str,
    message: str,
    locale: str | None = None,
) -> ChatAnswer:
    """``context``: the read path's use case (the same one POST /v1/context runs)."""
    buffers = SessionBuffers(repository, queue, clock, new_id, BufferPolicy.from_settings(settings))
    recorded = buffers.record(
        user_id,
        session_id,
        [Turn(role=Role.USER, text=message, at=clock.now())],
        close_turn=model is None,
        locale=locale,
    )
    flushed = list(recorded.fragment_ids)
    if recorded.created:
        try:
            flushed.extend(buffers.flush_others(user_id, session_id))
        except Exception as exc:  # the other buffers keep their turns; the sweep retries
            logger.warning("flushing other sessions deferred", extra={"error_type": type(exc).__name__})
    if model is None:
        raise NoChatModel("no chat model is configured; the message was kept for memory")

    history = recorded.history
    recent_user = [t.text for t in history if t.role is Role.USER][-3:]
    memory = context.build(
        user_id,
        message,
        settings.chat_context_tokens,
        recent_user_messages=recent_user,
        unprocessed=buffer_mentions(recorded.buffer),  # this session's turns, before any flush
    )
    messages = chat_messages(memory.prompt, history, message, locale or recorded.buffer.locale)
    try:
        answer = model.complete(messages)
        if not answer.strip():
            raise EmptyAnswer("chat: the model returned no answer")
    except ModelUnavailable:
        try:  # the turn is over without an answer: an N-th user turn still flushes
            buffers.close_turn(user_id, session_id)
        except Exception as exc:
            logger.warning("closing the turn deferred", extra={"error_type": type(exc).__name__})
        raise
    try:
        closed = buffers.record(
            user_id, session_id, [Turn(role=Role.ASSISTANT, text=answer, at=clock.now())], close_turn=True
        )
        flushed.extend(closed.fragment_ids)
    except Exception as exc:
        # The user's words are safe already; the assistant's words alone never make a fact.
        logger.warning("assistant turn not buffered", extra={"error_type": type(exc).__name__})
    logger.info(
        "chat turn",
        extra={
            "sections": len(memory.sections),
            "facts": len(memory.fact_ids),
            "history_turns": len(history),
            "flushed": len(flushed),
        },
    )
    return ChatAnswer(answer=answer, session_id=session_id, context=memory, fragment_ids=flushed)
