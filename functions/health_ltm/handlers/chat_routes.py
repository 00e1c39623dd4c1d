"""POST /v1/chat: the user's turn is buffered first (kept for memory even when the model is missing
or fails), then the read path builds the context and the model answers. The buffer flushes
coherent fragments to the write path (chat/sessions.py); POST /v1/sessions/{id}/end flushes now.

Each turn is a paid model call, so a user gets LTM_CHAT_RATE_PER_MINUTE turns per UTC minute
(storage/rate_limit.py); a turn over the limit answers 429 with Retry-After and is not kept.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body
from aws_lambda_powertools.metrics import MetricUnit

from .. import wiring
from ..chat.service import chat_turn
from ..chat.sessions import BufferPolicy, SessionBuffers
from ..observability import logger, metrics
from ..settings import get_settings
from . import errors
from .api_models import ChatIn, ChatOut, ContextUsed, SessionEndOut
from .auth import current_user_id
from .routing import SessionId, documented, problem_response, rate_limited_response, require_json

router = Router()


@router.post(
    "/v1/chat",
    summary="One chat turn: the memory this message needs goes to the model; the turn is kept for memory",
    tags=["chat"],
    responses={
        **documented(200, "The answer, and which memory the model was given", 413, 415),
        409: problem_response("The session is being updated by another request; retry"),
        429: rate_limited_response(
            "The caller's chat messages for this minute are used up (the message was not kept; retry "
            "after Retry-After seconds), or API Gateway throttled the request"
        ),
        503: problem_response("No model configured, or the model is unavailable; the message was kept"),
        504: problem_response("The model did not answer in time; the message was kept"),
    },
)
def post_chat(body: Annotated[ChatIn, Body()]) -> ChatOut:
    require_json(router)
    settings = get_settings()
    if len(body.message) > settings.max_message_chars:
        raise errors.PayloadTooLarge(f"at most {settings.max_message_chars} characters per message")
    user_id = current_user_id(router)
    _count_turn(user_id)
    result = chat_turn(
        repository=wiring.repository(),
        queue=wiring.fragment_queue(),
        clock=wiring.clock(),
        new_id=wiring.id_factory(),
        context=wiring.context_service(),
        model=wiring.chat_model(),
        settings=settings,
        user_id=user_id,
        session_id=body.session_id,
        message=body.message,
        locale=body.locale,
    )
    return ChatOut(
        answer=result.answer,
        context_used=ContextUsed(
            sections=result.context.sections,
            fact_ids=result.context.fact_ids,
            episodes=list(result.context.episodes),
        ),
        session_id=result.session_id,
    )


def _count_turn(user_id: str) -> None:
    """Count the turn against the user's limit for this minute; over it, refuse with a 429."""
    limiter = wiring.chat_rate_limiter()
    try:
        decision = limiter.acquire(user_id, wiring.clock().now())
    except Exception as exc:
        from botocore.exceptions import BotoCoreError, ClientError  # not at import: cold start

        if not isinstance(exc, BotoCoreError | ClientError):
            raise
        # The counter failing is no reason to refuse the user's turn: it goes ahead uncounted.
        logger.warning("chat rate limit unavailable", extra={"error_type": type(exc).__name__})
        return
    if not decision.allowed:
        metrics.add_metric(name="ChatRateLimited", unit=MetricUnit.Count, value=1)
        raise errors.TooManyRequests(
            f"at most {limiter.limit} chat messages a minute; retry in {decision.retry_after_s} s",
            decision.retry_after_s,
        )


@router.post(
    "/v1/sessions/<session_id>/end",
    summary="End a chat session: its buffered turns go to the write path now",
    tags=["chat"],
    responses={
        **documented(200, "Flushed (or nothing was waiting)", 404),
        409: problem_response("The session is being updated by another request; retry"),
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
    fragment_ids = buffers.end(current_user_id(router), session_id)
    if fragment_ids is None:
        raise errors.NotFoundError("no such session")
    return SessionEndOut(session_id=session_id, flushed=bool(fragment_ids), fragment_ids=fragment_ids)
