"""SQS FIFO entry point of the write path: one record = one fragment reference.

A failed record (model down, throttling, conflict storm) is reported as a batch item failure:
SQS redelivers it and, after maxReceiveCount, parks it in the DLQ. Records of other users
(other message groups) in the same batch go on.

No model key set yet (the stack creates the secret empty) is not such a failure: retrying
cannot help and would only burn the record's receives into the DLQ. The record is extracted by
the offline rules instead, deliberately (docs/decision_log.md, "No model key"), with the
``ModelKeyMissing`` metric and its alarm telling the operator. A key that is set but refused
(401/403) is a real fault and takes the DLQ path.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.parser.models import SqsRecordModel
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Json

from .. import wiring
from ..domain.messages import ExtractionMessage
from ..errors import ModelNotConfigured
from ..observability import logger, metrics, tracer


class ExtractionRecord(SqsRecordModel):
    body: Json[ExtractionMessage]  # type: ignore[assignment]


def process_record(record: SQSRecord) -> str:
    # Parsed here, not by the batch processor: its FIFO short-circuit converts the records that
    # follow a failure in the same group through the model OUTSIDE its error handling, so a
    # poison message there would crash the whole batch (and retry every other user's record).
    message = ExtractionRecord.model_validate(record.raw_event).body
    try:
        outcome = wiring.write_path().process(message.user_id, message.fragment_id)
    except ModelNotConfigured:
        metrics.add_metric(name="ModelKeyMissing", unit=MetricUnit.Count, value=1)
        logger.warning("no model key set: the offline rules extract this fragment")
        outcome = offline_write_path().process(message.user_id, message.fragment_id)
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


@lru_cache(maxsize=1)
def offline_write_path():
    """The write path on the offline rules (the same validation, decisions and storage). No
    episode is indexed: the episode index expects the model's embeddings."""
    from ..write.pipeline import WritePath
    from ..write.rules import RuleExtractor, RuleSectionClassifier

    return WritePath(
        repository=wiring.repository(),
        classifier=RuleSectionClassifier(),
        extractor=RuleExtractor(clock=wiring.clock()),
        clock=wiring.clock(),
        new_id=wiring.id_factory(),
    )


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict, context: LambdaContext) -> Any:
    processor = SqsFifoPartialProcessor(skip_group_on_error=True)
    return process_partial_response(
        event=event, record_handler=process_record, processor=processor, context=context
    )
