"""SQS FIFO entry point of the write path: one record = one fragment reference.

A failed record (model down, throttling, conflict storm) is reported as a batch item failure:
SQS redelivers it and, after maxReceiveCount, parks it in the DLQ. Records of other users
(other message groups) in the same batch go on.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Json

from .. import wiring
from ..adapters.sqs_queue import ExtractionMessage
from ..observability import logger, metrics, tracer


class ExtractionRecord(SqsRecordModel):
    body: Json[ExtractionMessage]  # type: ignore[assignment]


def process_record(record: SQSRecord) -> str:
    # Parsed here, not by the batch processor: its FIFO short-circuit converts the records that
    # follow a failure in the same group through the model OUTSIDE its error handling, so a
    # poison message there would crash the whole batch (and retry every other user's record).
    message = ExtractionRecord.model_validate(record.raw_event).body
    outcome = wiring.write_path().process(message.user_id, message.fragment_id)
    logger.info(
        "fragment processed",
        extra={
            "fragment_id": message.fragment_id,
            "status": outcome.status.value,
            "applied": len(outcome.applied),
            "rejected": len(outcome.rejected),
        },
    )
    return outcome.status.value


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: LambdaContext) -> Any:
    processor = SqsFifoPartialProcessor(skip_group_on_error=True)
    return process_partial_response(
        event=event, record_handler=process_record, processor=processor, context=context
    )
