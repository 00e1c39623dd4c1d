"""POST /v1/chat: the user's turn is buffered first (kept for memory even when the model is missing
or fails), then the read path builds the context and the model answers. The buffer flushes
coherent fragments to the write path (chat/sessions.py); POST /v1/sessions/{id}/end flushes now.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse

from .. import wiring
from ..chat.service import NoChatModel, chat_turn
from ..chat.sessions import BufferBusy, BufferPolicy, SessionBuffers
from ..ports import ModelUnavailable
from ..settings import get_settings
from . import errors
from .api_app import app, documented
from .api_models import ID_PATTERN, ChatIn, ChatOut, ContextUsed, Problem, SessionEndOut
from .auth import current_user_id

SessionId = Annotated[str, Path(pattern=ID_PATTERN)]


def _problem(description: str) -> OpenAPIResponse:
    return {"description": description, "content": {"application/problem+json": {"model": Problem}}}


class ChatModelFailed(Exception):
    def __init__(self, timeout: bool) -> None:
        super().__init__("timeout" if timeout else "unavailable")
        self.timeout = timeout


@app.exception_handler(ChatModelFailed)
def _chat_model_failed(exc: ChatModelFailed) -> Response:
    if exc.timeout:
        return errors.problem(
            504, "Model timeout", "the model did not answer in time; your message was kept for memory"
        )
    return errors.problem(
        503, "Model unavailable", "the model is unavailable right now; your message was kept for memory"
    )


@app.exception_handler(BufferBusy)
def _buffer_busy(exc: BufferBusy) -> Response:
    return errors.problem(409, "Conflict", "the session is being updated by another request; retry")


@app.post(
    "/v1/chat",
    summary="One chat turn: the memory this message needs goes to the model; the turn is kept for memory",
    tags=["chat"],
    responses={
        **documented(200, "The answer, and which memory the model was given", 413, 415),
        409: _problem("The session is being updated by another request; retry"),
        503: _problem("No model configured, or the model is unavailable; the message was kept"),
        504: _problem("The model did not answer in time; the message was kept"),
    },
)
def post_chat(body: Annotated[ChatIn, Body()]) -> ChatOut:
    errors.require_json(app)
    settings = get_settings()
    if len(body.message) > settings.max_message_chars:
        raise errors.PayloadTooLarge(f"at most {settings.max_message_chars} characters per message")
    try:
        result = chat_turn(
            repository=wiring.repository(),
            queue=wiring.fragment_queue(),
            clock=wiring.clock(),
            new_id=wiring.id_factory(),
            classifier=wiring.query_classifier(),
            model=wiring.chat_model(),
            settings=settings,
            user_id=current_user_id(app),
            session_id=body.session_id,
            message=body.message,
            locale=body.locale,
            embedder=wiring.embedder(),
            vector_index=wiring.vector_index(),
        )
    except NoChatModel as exc:
        raise errors.ModelNotConfigured(str(exc)) from None
    except ModelUnavailable as exc:
        from ..adapters.openai_llm import ModelTimeout

        raise ChatModelFailed(timeout=isinstance(exc, ModelTimeout)) from None
    return ChatOut(
        answer=result.answer,
        context_used=ContextUsed(
            sections=result.context.sections,
            fact_ids=result.context.fact_ids,
            episodes=list(result.context.episodes),
        ),
        session_id=result.session_id,
    )


@app.post(
    "/v1/sessions/<session_id>/end",
    summary="End a chat session: its buffered turns go to the write path now",
    tags=["chat"],
    responses={
        **documented(200, "Flushed (or nothing was waiting)", 404),
        409: _problem("The session is being updated by another request; retry"),
    },
)
def end_session(session_id: SessionId) -> SessionEndOut:
    buffers = SessionBuffers(
        wiring.repository(),
        wiring.fragment_queue(),
        wiring.clock(),
        wiring.id_factory(),
        BufferPolicy.from_settings(get_settings()),
    )
    fragment_ids = buffers.end(current_user_id(app), session_id)
    if fragment_ids is None:
        raise errors.NotFoundError("no such session")
    return SessionEndOut(session_id=session_id, flushed=bool(fragment_ids), fragment_ids=fragment_ids)
