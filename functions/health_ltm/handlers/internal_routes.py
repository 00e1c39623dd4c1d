"""Internal, IAM-authorised routes for other services (not part of the app's API or its spec).

API Gateway sends this resource only after SigV4 (AWS_IAM) authorisation; the handler checks
the resource and the IAM caller too, so a Cognito user can never reach it through the proxy.
"""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.exceptions import ForbiddenError
from aws_lambda_powertools.event_handler.openapi.params import Body

from .. import wiring
from ..documents.ingest import DocumentIn, ingest
from ..observability import logger
from .routing import require_json, rest_event

router = Router()
DOCUMENTS_RESOURCE = "/v1/internal/documents"


def require_iam_caller() -> None:
    event = rest_event(router)
    identity = event.request_context.identity
    authorizer = event.request_context.authorizer
    has_claims = bool(authorizer and authorizer.claims)
    if event.resource != DOCUMENTS_RESOURCE or not identity.user_arn or has_claims:
        raise ForbiddenError("Forbidden")


@router.post(DOCUMENTS_RESOURCE, include_in_schema=False)
def post_documents(body: Annotated[DocumentIn, Body()]) -> Response[dict]:
    require_iam_caller()
    require_json(router)
    ids = ingest(wiring.repository(), wiring.clock().now(), body)
    logger.info("documented facts ingested", extra={"facts": len(ids), "source_type": body.source_type})
    return Response(status_code=201, content_type="application/json", body={"fact_ids": ids})
