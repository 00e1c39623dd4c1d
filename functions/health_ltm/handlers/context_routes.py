"""The read path: POST /v1/context, the memory a question needs as labelled blocks and a prompt."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from .. import wiring
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
    result = wiring.context_service().build(
        current_user_id(router),
        body.query,
        body.max_tokens,
        recent_user_messages=[m.text for m in body.recent_messages if m.role.value == "user"],
        session_id=body.session_id,
    )
    return ContextOut.model_validate(result, from_attributes=True)
