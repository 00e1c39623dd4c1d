"""Typed errors mapped to one problem shape in one place. Bodies never echo user input."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import (
    ForbiddenError,
    NotFoundError,
    ServiceError,
    UnauthorizedError,
)
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)

from ..errors import (
    BufferBusy,
    FragmentConflict,
    FragmentTooLarge,
    InvalidDocument,
    InvalidEdit,
    ModelTimeout,
    ModelUnavailable,
    NoChatModel,
    NotFound,
    StaleVersion,
)
from ..observability import logger
from .api_models import Problem


class PayloadTooLarge(Exception):
    pass


class UnsupportedMediaType(Exception):
    pass


class TooManyRequests(Exception):
    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


def problem(status: int, title: str, detail: str) -> Response:
    return Response(
        status_code=status,
        content_type="application/problem+json",
        body=Problem(
            type=f"https://health-ltm.dev/errors/{status}", title=title, detail=detail, status=status
        ).model_dump_json(),
    )


def require_json(app: APIGatewayRestResolver) -> None:
    content_type = (app.current_event.headers or {}).get("content-type") or (
        app.current_event.headers or {}
    ).get("Content-Type")
    if not content_type or content_type.split(";")[0].strip().lower() != "application/json":
        raise UnsupportedMediaType("send application/json")


# The exceptions answered with one fixed problem each, by status: (classes, status, title, detail).
# A detail of None shows the exception's own message (service messages never carry user input).
# Powertools picks a handler by the exception's MRO, so a subclass listed here (ModelTimeout) wins
# over its base (ModelUnavailable).
_PROBLEMS: tuple[tuple[tuple[type[Exception], ...], int, str, str | None], ...] = (
    ((UnauthorizedError,), 401, "Unauthorized", "a valid token is required"),
    ((ForbiddenError,), 403, "Forbidden", "not allowed for this caller"),
    ((BufferBusy,), 409, "Conflict", "the session is being updated by another request; retry"),
    ((FragmentConflict,), 409, "Conflict", None),
    ((StaleVersion,), 412, "Precondition failed", "the fact changed since you read it; fetch it again"),
    ((PayloadTooLarge, FragmentTooLarge), 413, "Payload too large", None),
    (
        (UnsupportedMediaType, RequestUnsupportedContentType),
        415,
        "Unsupported media type",
        "send application/json",
    ),
    ((InvalidEdit,), 422, "Invalid edit", None),
    ((InvalidDocument,), 422, "Invalid document", None),
    ((NoChatModel,), 503, "Model not configured", None),
    (
        (ModelUnavailable,),
        503,
        "Model unavailable",
        "the model is unavailable right now; your message was kept for memory",
    ),
    (
        (ModelTimeout,),
        504,
        "Model timeout",
        "the model did not answer in time; your message was kept for memory",
    ),
)


def register(app: APIGatewayRestResolver) -> None:
    """Every exception -> HTTP answer of the API, in one place (routes only raise)."""
    for classes, status, title, detail in _PROBLEMS:
        app.exception_handler(list(classes))(_fixed_problem(status, title, detail))

    @app.exception_handler(NotFound)
    @app.exception_handler(NotFoundError)
    def _not_found(exc: Exception) -> Response:
        allowed = _allowed_methods(app)
        if allowed and app.current_event.http_method.upper() not in allowed:
            # A known route called with a method it does not take: 405, as HTTP says, not 404.
            response = problem(405, "Method not allowed", "this route does not take that method")
            response.headers["Allow"] = ", ".join(allowed)
            return response
        return problem(404, "Not found", "no such route or item")

    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response:
        # Only where and what kind of error, never the offending value (it may be health data).
        parts = []
        for error in exc.errors()[:10]:
            location = ".".join(str(p) for p in error.get("loc", ()))
            parts.append(f"{location}: {error.get('type', 'invalid')}")
        return problem(422, "Invalid request", "; ".join(parts) or "invalid request")

    @app.exception_handler(TooManyRequests)
    def _too_many(exc: TooManyRequests) -> Response:
        response = problem(429, "Too many requests", str(exc))
        response.headers["Retry-After"] = str(exc.retry_after_s)
        return response

    @app.exception_handler(ServiceError)
    def _service(exc: ServiceError) -> Response:
        detail = str(exc.msg) if exc.status_code < 500 else "internal error"
        return problem(exc.status_code, "Error", detail)

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        # The type only: exception messages can carry input values.
        logger.error("unhandled error", extra={"error_type": type(exc).__name__})
        return problem(500, "Internal error", "internal error")


def _fixed_problem(status: int, title: str, detail: str | None) -> Callable[[Exception], Response]:
    def handle(exc: Exception) -> Response:
        return problem(status, title, str(exc) if detail is None else detail)

    return handle


def _allowed_methods(app: APIGatewayRestResolver) -> list[str]:
    """The methods the routes matching the current path take (none: no such route)."""
    path = app.current_event.path
    routes = app._static_routes + app._dynamic_routes  # the resolver's own route table
    return sorted({route.method for route in routes if route.rule.match(path)})


# ---------------------------------------------------------------------- bodies the parser can't take
# The resolver's body parsing fails with a 500 on some inputs (invalid UTF-8, JSON nested deeper
# than Python's recursion limit or with a number of over 4300 digits, multipart without a boundary
# or with non-Latin-1 text); such requests get their 4xx here, before it runs.
MAX_JSON_DEPTH = 32  # a valid request nests 4 levels; PATCH attributes a few more
MIN_BODY_LIMIT = 1024 * 1024
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def refuse_unreadable_body(event: dict) -> dict | None:
    """A proxy response with the 4xx problem for a body we cannot read, or None to go on."""
    from ..settings import get_settings

    body = event.get("body")
    if not body or str(event.get("httpMethod", "")).upper() not in _BODY_METHODS:
        return None
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    content_type = str(headers.get("content-type") or "").split(";")[0].strip().lower()
    if content_type and content_type != "application/json":
        return _proxy(415, "Unsupported media type", "send application/json")
    settings = get_settings()
    # Larger than any valid request (every message at its limit, every character \u-escaped).
    limit = max(MIN_BODY_LIMIT, settings.max_messages * settings.max_message_chars * 6 + 65536)
    if len(body) > limit * (4 / 3 if event.get("isBase64Encoded") else 1):
        return _proxy(413, "Payload too large", f"at most {limit} bytes")
    text = body
    if event.get("isBase64Encoded"):
        try:
            text = base64.b64decode(body, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return _proxy(422, "Invalid request", "body: not UTF-8 JSON")
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _depth(text) > MAX_JSON_DEPTH:
        return _proxy(422, "Invalid request", f"body: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return None  # the resolver answers this one itself (422, json_invalid)
    except (ValueError, RecursionError):  # e.g. an integer of over 4300 digits
        return _proxy(422, "Invalid request", "body: not valid JSON")
    return None


def _depth(text: str) -> int:
    deepest = depth = 0
    for char in re.sub(r"[^\[\]{}]", "", _JSON_STRING.sub("", text)):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _proxy(status: int, title: str, detail: str) -> dict:
    response = problem(status, title, detail)
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/problem+json"},
        "body": response.body,
        "isBase64Encoded": False,
    }
