"""Maintenance entry point: the EventBridge schedule fans out; queue records run per user."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Json

from .. import wiring
from ..domain.messages import MaintenanceMessage
from ..maintenance.engine import run_user
from ..maintenance.scheduler import fan_out, fan_out_day
from ..observability import logger, metrics, tracer


class MaintenanceRecord(SqsRecordModel):
    body: Json[MaintenanceMessage]  # type: ignore[assignment]


def process_record(record: MaintenanceRecord) -> dict:
    message = record.body
    if message.task == "fanout":
        queued = fan_out_day(wiring.repository(), wiring.maintenance_queue(), message, _seconds_left)
        metrics.add_metric(name="MaintenanceUsersQueued", unit=MetricUnit.Count, value=queued)
        return {"queued": queued}
    failed = 0
    changes = 0
    for user_id in message.users():
        try:
            report = run_user(
                wiring.repository(),
                user_id,
                wiring.clock(),
                wiring.id_factory(),
                normalize=wiring.canonical_key,
                dry_run=message.dry_run,
                vector_index=wiring.vector_index(),
            )
        except Exception as exc:  # the others still run; the record is retried below
            # The type only: a message or traceback could carry stored values.
            logger.error("user maintenance failed", extra={"error_type": type(exc).__name__})
            failed += 1
            continue
        changes += len(report.changes)
        for policy, count in report.counts().items():
            # Policy names are code constants, never user data: safe as a metric name suffix.
            metrics.add_metric(name=f"Policy_{policy}", unit=MetricUnit.Count, value=count)
    logger.info(
        "users maintained",
        extra={
            "users": len(message.users()),
            "changes": changes,
            "failed": failed,
            "dry_run": message.dry_run,
        },
    )
    if failed:
        # Redelivered as a whole; the users that succeeded find nothing left to do.
        raise RuntimeError(f"{failed} user job(s) failed")
    return {"changes": changes}


_CONTEXT: dict[str, LambdaContext] = {}


def _seconds_left() -> float:
    context = _CONTEXT.get("current")
    return context.get_remaining_time_in_millis() / 1000 if context else float("inf")


def run_schedule(event: dict) -> dict:
    dry_run = bool((event.get("detail") or {}).get("dry_run", False))
    if (event.get("detail") or {}).get("task") == "sessions":  # a frequent rule: idle chat sessions only
        return {"sessions": sweep_sessions(dry_run)}
    result = fan_out(wiring.repository(), wiring.maintenance_queue(), wiring.clock(), dry_run=dry_run)
    logger.info("maintenance fan-out", extra={"days_queued": result.days_queried})
    return {
        "run_day": result.run_day,
        "days_queued": result.days_queried,
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
    _CONTEXT["current"] = context
    if "Records" in event:
        processor = BatchProcessor(event_type=EventType.SQS, model=MaintenanceRecord)
        return process_partial_response(
            event=event, record_handler=process_record, processor=processor, context=context
        )
    return run_schedule(event)
