"""Maintenance entry point: the EventBridge schedule fans out; queue records run per user."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Json

from .. import wiring
from ..adapters.sqs_queue import MaintenanceMessage
from ..maintenance.engine import run_user
from ..maintenance.scheduler import fan_out
from ..observability import logger, metrics, tracer


class MaintenanceRecord(SqsRecordModel):
    body: Json[MaintenanceMessage]  # type: ignore[assignment]


def process_record(record: MaintenanceRecord) -> dict:
    message = record.body
    report = run_user(
        wiring.repository(),
        message.user_id,
        wiring.clock(),
        wiring.id_factory(),
        normalize=wiring.canonical_key,
        dry_run=message.dry_run,
        vector_index=wiring.vector_index(),
    )
    for policy, count in report.counts().items():
        # Policy names are code constants, never user data: safe as a metric name suffix.
        metrics.add_metric(name=f"Policy_{policy}", unit=MetricUnit.Count, value=count)
    logger.info("user maintained", extra={"changes": len(report.changes), "dry_run": report.dry_run})
    return {"changes": len(report.changes)}


def run_schedule(event: dict) -> dict:
    dry_run = bool((event.get("detail") or {}).get("dry_run", False))
    if (event.get("detail") or {}).get("task") == "sessions":  # a frequent rule: idle chat sessions only
        return {"sessions": sweep_sessions(dry_run)}
    result = fan_out(wiring.repository(), wiring.maintenance_queue(), wiring.clock(), dry_run=dry_run)
    metrics.add_metric(name="MaintenanceUsersQueued", unit=MetricUnit.Count, value=result.users)
    logger.info("maintenance fan-out", extra={"users": result.users, "days_queried": result.days_queried})
    return {
        "run_day": result.run_day,
        "users": result.users,
        "dry_run": result.dry_run,
        "sessions": sweep_sessions(dry_run),
    }


def sweep_sessions(dry_run: bool) -> dict:
    """Flush chat session buffers idle longer than T (chat/sessions.py, maintenance/sessions.py)."""
    from ..chat.sessions import BufferPolicy
    from ..maintenance.sessions import sweep_idle_sessions
    from ..settings import get_settings

    report = sweep_idle_sessions(
        wiring.repository(),
        wiring.fragment_queue(),
        wiring.clock(),
        wiring.id_factory(),
        BufferPolicy.from_settings(get_settings()),
        dry_run=dry_run,
    )
    metrics.add_metric(name="IdleSessionsFlushed", unit=MetricUnit.Count, value=report.outcomes["flushed"])
    logger.info("idle sessions", extra=report.as_dict())
    return report.as_dict()


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: LambdaContext) -> Any:
    if "Records" in event:
        processor = BatchProcessor(event_type=EventType.SQS, model=MaintenanceRecord)
        return process_partial_response(
            event=event, record_handler=process_record, processor=processor, context=context
        )
    return run_schedule(event)
