"""The read path: POST /v1/context, the memory a question needs as labelled blocks and a prompt."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from .. import wiring
from ..domain.models import PendingMention
from ..settings import get_settings
from .api_models import ContextIn, ContextOut
from .auth import current_user_id
from .routing import documented, require_json

router = Router()


@router.post(
    "/v1/context",
    summary="Memory for this question, as labelled blocks and a prompt",
    tags=["read"],
    responses=documented(200, "The context", 413, 415),
)
def post_context(body: Annotated[ContextIn, Body()]) -> ContextOut:
    require_json(router)
    from ..read.context import build_context

    settings = get_settings()
    classification = wiring.query_classifier().classify(
        body.query, [m.text for m in body.recent_messages if m.role.value == "user"]
    )
    user_id, now = current_user_id(router), wiring.clock().now()
    repository = wiring.repository()
    unprocessed: list[PendingMention] = []
    if body.session_id:  # that chat session's buffered turns: one GetItem, only when asked for
        from ..chat.sessions import buffer_mentions

        buffer = repository.get_session(user_id, body.session_id)
        unprocessed = buffer_mentions(buffer) if buffer else []
    result = build_context(
        repository,
        classification,
        user_id,
        body.query,
        body.max_tokens,
        embedder=wiring.embedder(),
        vector_index=wiring.vector_index(),
        episode_timeout_s=settings.episode_timeout_s,
        now=now,
        unprocessed=unprocessed,
    )
    wiring.episode_stats().record(user_id, result.episode_ids, now)  # batched: no write per read
    return ContextOut.model_validate(result, from_attributes=True)
