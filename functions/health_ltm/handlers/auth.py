"""Identity comes only from the authorizer claims that API Gateway (Cognito) put in the event."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.exceptions import UnauthorizedError


def current_user_id(app: APIGatewayRestResolver) -> str:
    authorizer = app.current_event.request_context.authorizer
    claims = (authorizer.claims if authorizer else None) or {}
    sub = claims.get("sub")
    if not sub or not isinstance(sub, str) or len(sub) > 128:
        raise UnauthorizedError("Unauthorized")
    return sub
