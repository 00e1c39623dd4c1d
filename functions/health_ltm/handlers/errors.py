"""Typed errors mapped to one problem shape in one place. Bodies never echo user input."""

from __future__ import annotations

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

from ..observability import logger
from ..read.profile import InvalidEdit, NotFound, StaleVersion
from .api_models import Problem


class PayloadTooLarge(Exception):
    pass


class UnsupportedMediaType(Exception):
    pass


class ModelNotConfigured(Exception):
    pass


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


def register(app: APIGatewayRestResolver) -> None:
    @app.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response:
        # Only where and what kind of error, never the offending value (it may be health data).
        parts = []
        for error in exc.errors()[:10]:
            location = ".".join(str(p) for p in error.get("loc", ()))
            parts.append(f"{location}: {error.get('type', 'invalid')}")
        return problem(422, "Invalid request", "; ".join(parts) or "invalid request")

    @app.exception_handler(UnauthorizedError)
    def _unauthorized(exc: UnauthorizedError) -> Response:
        return problem(401, "Unauthorized", "a valid token is required")

    @app.exception_handler(ForbiddenError)
    def _forbidden(exc: ForbiddenError) -> Response:
        return problem(403, "Forbidden", "not allowed for this caller")

    @app.exception_handler(PayloadTooLarge)
    def _too_large(exc: PayloadTooLarge) -> Response:
        return problem(413, "Payload too large", str(exc))

    @app.exception_handler(UnsupportedMediaType)
    @app.exception_handler(RequestUnsupportedContentType)
    def _media(exc: Exception) -> Response:
        return problem(415, "Unsupported media type", "send application/json")

    @app.exception_handler(NotFound)
    @app.exception_handler(NotFoundError)
    def _not_found(exc: Exception) -> Response:
        return problem(404, "Not found", "no such route or item")

    @app.exception_handler(StaleVersion)
    def _stale(exc: StaleVersion) -> Response:
        return problem(412, "Precondition failed", "the fact changed since you read it; fetch it again")

    @app.exception_handler(InvalidEdit)
    def _invalid_edit(exc: InvalidEdit) -> Response:
        return problem(422, "Invalid edit", str(exc))

    @app.exception_handler(ModelNotConfigured)
    def _no_model(exc: ModelNotConfigured) -> Response:
        return problem(503, "Model not configured", str(exc))

    @app.exception_handler(ServiceError)
    def _service(exc: ServiceError) -> Response:
        detail = str(exc.msg) if exc.status_code < 500 else "internal error"
        return problem(exc.status_code, "Error", detail)

    @app.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        # The type only: exception messages can carry input values.
        logger.error("unhandled error", extra={"error_type": type(exc).__name__})
        return problem(500, "Internal error", "internal error")
