"""API Gateway (REST, proxy) entry point: read path, profile API, fragment intake."""

from __future__ import annotations

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ..observability import logger, metrics, tracer
from . import errors
from .api_app import app


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST, log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: LambdaContext) -> dict:
    refused = errors.refuse_unreadable_body(event)
    if refused is not None:
        return refused
    return app.resolve(event, context)
