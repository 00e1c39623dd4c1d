"""API Gateway (REST, proxy) entry point: read path, profile API, fragment intake, chat."""

from __future__ import annotations

from functools import lru_cache

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ..observability import logger, metrics, tracer
from . import errors
from .api_app import build_app


@lru_cache(maxsize=1)
def _app() -> APIGatewayRestResolver:
    # Built at the first request, not at import: the settings are read then, not before.
    return build_app()


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: LambdaContext) -> dict:
    refused = errors.refuse_unreadable_body(event)
    if refused is not None:
        return refused
    return _app().resolve(event, context)
