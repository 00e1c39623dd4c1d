"""SQS queues from ``health_ltm.schema``: the FIFO extraction queue and the maintenance fan-out."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from health_ltm import schema
from health_ltm.schema import QueueSpec


class Queues(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        self._key = key
        # Message group = user id: one user's fragments apply in order, users run in parallel.
        self.extraction_dlq = self._dead_letter_queue("ExtractionDlq", schema.EXTRACTION_QUEUE)
        self.extraction = self._queue("Extraction", schema.EXTRACTION_QUEUE, self.extraction_dlq)
        self.maintenance_dlq = self._dead_letter_queue("MaintenanceDlq", schema.MAINTENANCE_QUEUE)
        self.maintenance = self._queue("Maintenance", schema.MAINTENANCE_QUEUE, self.maintenance_dlq)

    def _queue(self, construct_id: str, spec: QueueSpec, dlq: sqs.Queue) -> sqs.Queue:
        # No queue_name: CloudFormation names the queues (CDK adds ".fifo"), so nothing a failed
        # create leaves behind can collide with a retry; the functions get the URLs.
        return sqs.Queue(
            self,
            construct_id,
            visibility_timeout=Duration.seconds(spec.visibility_timeout_s),
            retention_period=Duration.days(spec.retention_days),
            dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=spec.max_receive_count),
            **self._common(spec),
            **_fifo(spec),
        )

    def _dead_letter_queue(self, construct_id: str, spec: QueueSpec) -> sqs.Queue:
        return sqs.Queue(
            self,
            construct_id,
            retention_period=Duration.days(schema.DLQ_RETENTION_DAYS),
            **self._common(spec),
        )

    def _common(self, spec: QueueSpec) -> dict:
        return {
            "fifo": True if spec.fifo else None,
            "content_based_deduplication": spec.content_based_dedup if spec.fifo else None,
            "encryption": sqs.QueueEncryption.KMS,
            "encryption_master_key": self._key,
            "enforce_ssl": True,
        }


def _fifo(spec: QueueSpec) -> dict:
    if not spec.fifo:
        return {}
    # High-throughput FIFO: ordering and dedup per message group (user), not per queue.
    return {
        "deduplication_scope": sqs.DeduplicationScope.MESSAGE_GROUP,
        "fifo_throughput_limit": sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    }
