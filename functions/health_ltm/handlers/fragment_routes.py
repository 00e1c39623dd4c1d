"""The write path's intake: POST /v1/fragments queues a dialogue fragment, GET reads its state."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Body

from .. import wiring
from ..domain.models import FragmentStatus, Message
from ..settings import get_settings
from ..write.intake import submit_fragment
from . import errors
from .api_models import FragmentAccepted, FragmentIn, FragmentOut
from .auth import current_user_id
from .routing import FragmentId, documented, require_json

router = Router()


@router.post(
    "/v1/fragments",
    summary="Queue a dialogue fragment for extraction",
    tags=["write"],
    responses=documented(202, "Queued", 409, 413, 415),
)
def post_fragment(body: Annotated[FragmentIn, Body()]) -> Response[FragmentAccepted]:
    """Idempotent by fragment_id (per user): a retry with the same content answers the same 202;
    the same id with other content is 409. The state is at GET /v1/fragments/{fragment_id}."""
    require_json(router)
    settings = get_settings()
    if len(body.messages) > settings.max_messages:
        raise errors.PayloadTooLarge(f"at most {settings.max_messages} messages per fragment")
    if any(len(m.text) > settings.max_message_chars for m in body.messages):
        raise errors.PayloadTooLarge(f"at most {settings.max_message_chars} characters per message")
    fragment = submit_fragment(
        wiring.repository(),
        wiring.fragment_queue(),
        wiring.clock(),
        wiring.id_factory(),
        user_id=current_user_id(router),
        session_id=body.session_id,
        messages=[Message(role=m.role, text=m.text, at=m.at) for m in body.messages],
        fragment_id=body.fragment_id,
        locale=body.locale,
    )
    # A retry answers exactly what the first POST did: accepted, queued (the state is at GET).
    return Response(
        status_code=202,
        content_type="application/json",
        body=FragmentAccepted(fragment_id=fragment.id, status=FragmentStatus.QUEUED),
    )


@router.get(
    "/v1/fragments/<fragment_id>",
    summary="State of a fragment",
    tags=["write"],
    responses=documented(200, "The fragment's state", 404),
)
def get_fragment(fragment_id: FragmentId) -> FragmentOut:
    fragment = wiring.repository().get_fragment(current_user_id(router), fragment_id)
    if fragment is None:
        raise errors.NotFoundError("no such fragment")
    return FragmentOut(
        fragment_id=fragment.id, status=fragment.status, applied=fragment.applied, rejected=fragment.rejected,
        reason=fragment.reason if fragment.status is FragmentStatus.FAILED else None,
    )
