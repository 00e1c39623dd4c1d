"""Identity comes only from the authorizer claims that API Gateway (Cognito) put in the event."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from aws_lambda_powertools.event_handler.exceptions import UnauthorizedError
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent


def current_user_id(router: BaseRouter) -> str:
    """The caller's Cognito sub, read through the route's Router (or the resolver itself)."""
    event = router.current_event
    if not isinstance(event, APIGatewayProxyEvent):  # only a REST proxy event carries these claims
        raise UnauthorizedError("Unauthorized")
    authorizer = event.request_context.authorizer
    claims = (authorizer.claims if authorizer else None) or {}
    sub = claims.get("sub")
    if not sub or not isinstance(sub, str) or len(sub) > 128:
        raise UnauthorizedError("Unauthorized")
    return sub
