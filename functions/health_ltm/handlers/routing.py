"""What the route modules share: how a route documents its answers, path parameter types, the
OpenAPI description's header, and access to the request a router is resolving.

Route modules register on their own ``Router``; ``api_app.build_app()`` includes them. None of them
imports the resolver, and nothing here reads the environment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, cast

from aws_lambda_powertools.event_handler.api_gateway import BaseRouter
from aws_lambda_powertools.event_handler.openapi.params import Path
from aws_lambda_powertools.event_handler.openapi.types import OpenAPIResponse
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from . import errors
from .api_models import ID_PATTERN, GatewayMessage, Problem

if TYPE_CHECKING:
    from aws_lambda_powertools.event_handler import APIGatewayRestResolver

OPENAPI_TITLE, OPENAPI_VERSION = "Health LTM", "1.0.0"
OPENAPI_SUMMARY = "Long-term memory of a personal health assistant"
OPENAPI_DESCRIPTION = (
    "What people tell the assistant about their health, remembered with its history and handed "
    "back only where a question needs it. Every route but health and docs needs a Cognito JWT."
)
PUBLIC: list[dict[str, list[str]]] = [{}]  # OpenAPI's "no authentication" for a route

FactId = Annotated[str, Path(pattern=ID_PATTERN)]
FragmentId = Annotated[str, Path(pattern=ID_PATTERN)]
SessionId = Annotated[str, Path(pattern=ID_PATTERN)]

ERRORS = {
    401: "No valid token",
    404: "No such item (or not the caller's)",
    409: "The fragment id is already used for different content",
    412: "The fact changed since it was read (If-Match)",
    413: "Too large a request",
    415: "The body is not application/json",
    422: "Invalid request",
    429: "Throttled",
}
GATEWAY_ERRORS = (401, 413, 429)  # API Gateway answers these itself too, as {"message": "..."}


def documented(success: int, description: str, *codes: int) -> dict[int, OpenAPIResponse]:
    """A route's responses as the spec states them: its success (schema from the return type),
    and its errors in the one problem shape or, from API Gateway, its own message shape."""
    responses: dict[int, Any] = {success: {"description": description}}
    if success == 204:
        responses[success]["content"] = {}
    for code in (*codes, 401, 422, 429):
        content: dict = {} if code == 429 else {"application/problem+json": {"model": Problem}}
        if code in GATEWAY_ERRORS:
            content["application/json"] = {"model": GatewayMessage}
        responses[code] = {"description": ERRORS[code], "content": content}
    return responses


def problem_response(description: str) -> OpenAPIResponse:
    """An error only the function answers, in the one problem shape."""
    return {"description": description, "content": {"application/problem+json": {"model": Problem}}}


def rate_limited_response(description: str) -> OpenAPIResponse:
    """A 429 the function answers itself (problem shape, with Retry-After) or API Gateway does."""
    return {
        "description": description,
        "headers": {
            "Retry-After": {
                "description": "Whole seconds (at least 1) until the limit lets a message through again",
                "schema": {"type": "integer"},
            }
        },
        "content": {
            "application/problem+json": {"model": Problem},
            "application/json": {"model": GatewayMessage},
        },
    }


def rest_event(router: BaseRouter) -> APIGatewayProxyEvent:
    """The REST proxy event being resolved. A Router hands out the resolver's current event, typed
    as any proxy event; the resolver is a REST one, so anything else is refused, never trusted."""
    event = router.current_event
    if not isinstance(event, APIGatewayProxyEvent):
        raise TypeError("not an API Gateway REST proxy event")
    return event


def require_json(router: BaseRouter) -> None:
    # errors.require_json is typed for the resolver but reads only current_event, which a Router
    # delegates to the resolver that included it.
    errors.require_json(cast("APIGatewayRestResolver", router))


def openapi_json(app: APIGatewayRestResolver) -> str:
    """The OpenAPI description of a built resolver (docs/openapi.json is this, pretty-printed)."""
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer

    return app.get_openapi_json_schema(
        title=OPENAPI_TITLE,
        version=OPENAPI_VERSION,
        summary=OPENAPI_SUMMARY,
        description=OPENAPI_DESCRIPTION,
        security_schemes={"cognito": HTTPBearer(bearerFormat="JWT", description="Cognito ID token")},
        security=[{"cognito": []}],
    )

