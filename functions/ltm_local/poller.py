"""Local SQS event source mapping: long-polls a queue and feeds batches to a handler like Lambda.

* batch size from the queue spec, ``ReportBatchItemFailures`` semantics: records listed in
  ``batchItemFailures`` stay in the queue, the others are deleted;
* a handler that raises (or an invalid failure list) fails the whole batch;
* a failed record becomes visible again after ``retry_visibility_s`` (Lambda waits for the whole
  visibility timeout, minutes; locally retries come back in seconds);
* after maxReceiveCount receives, moto's redrive moves the message to the DLQ on the next
  receive, as SQS does; the poller does not touch the DLQ itself.
"""

from __future__ import annotations

import logging
import threading
import time

from .emulator import QueueRef, client
from .events import sqs_event
from .invoke import HandlerUnavailable, Invoker

log = logging.getLogger("ltm.poller")


def failed_message_ids(result: object, batch_ids: list[str]) -> set[str]:
    """The records to retry, by Lambda's rules for a ReportBatchItemFailures response."""
    if result is None:
        return set()
    if not isinstance(result, dict):
        log.warning("handler returned %s, not a batch response: batch counted as processed",
                    type(result).__name__)
        return set()
    failures = result.get("batchItemFailures")
    if not failures:
        return set()
    if not isinstance(failures, list):
        return set(batch_ids)
    failed = set()
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
        if not identifier or identifier not in batch_ids:
            # An empty, null or unknown itemIdentifier makes Lambda retry the whole batch.
            log.warning("batchItemFailures holds an invalid itemIdentifier: whole batch retried")
            return set(batch_ids)
        failed.add(identifier)
    return failed


class QueuePoller:
    def __init__(
        self,
        *,
        function: str,
        queue: QueueRef,
        endpoint: str,
        invoker: Invoker,
        retry_visibility_s: int = 2,
        wait_s: int = 1,
        region: str,
    ) -> None:
        self.function = function
        self.queue = queue
        self._sqs = client("sqs", endpoint)
        self._invoker = invoker
        self._retry_visibility_s = retry_visibility_s
        self._wait_s = wait_s
        self._region = region
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.busy = False
        self.batches = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"ltm-poller-{self.queue.key}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def _run(self) -> None:
        unavailable_logged = False
        while not self._stop.is_set():
            try:
                self._invoker.resolve(self.function)
            except HandlerUnavailable as err:
                # Receiving now would burn receive counts and push good messages to the DLQ.
                if not unavailable_logged:
                    log.warning("%s handler unavailable, %s queue not polled until it imports: %s",
                                self.function, self.queue.key, err)
                    unavailable_logged = True
                self._stop.wait(5)
                continue
            if unavailable_logged:
                log.info("%s handler imports now: polling the %s queue", self.function, self.queue.key)
                unavailable_logged = False
            try:
                self.poll_once()
            except Exception as err:  # keep polling; the emulator may be restarting
                if self._stop.is_set():
                    break
                log.warning("%s poller: %s", self.queue.key, err.__class__.__name__)
                self._stop.wait(1)

    def poll_once(self) -> int:
        """Receive one batch and process it; returns the number of records handled."""
        started = time.monotonic()
        response = self._sqs.receive_message(
            QueueUrl=self.queue.url,
            MaxNumberOfMessages=self.queue.spec.batch_size,
            WaitTimeSeconds=self._wait_s,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        messages = response.get("Messages", [])
        if not messages:
            # moto returns early when visible messages are held back by a FIFO group lock: don't spin.
            if time.monotonic() - started < self._wait_s / 2:
                self._stop.wait(0.2)
            return 0
        self.busy = True
        try:
            self._process(messages)
        finally:
            self.busy = False
            self.batches += 1
        return len(messages)

    def _process(self, messages: list[dict]) -> None:
        event = sqs_event(messages, self.queue.arn, self._region)
        batch_ids = [message["MessageId"] for message in messages]
        try:
            result = self._invoker.invoke(self.function, event)
            failed = failed_message_ids(result, batch_ids)
        except Exception as err:  # Lambda retries the whole batch when the function errors
            log.warning("%s raised %s: batch of %d retried",
                        self.function, err.__class__.__name__, len(messages))
            failed = set(batch_ids)

        done = [message for message in messages if message["MessageId"] not in failed]
        retry = [message for message in messages if message["MessageId"] in failed]
        if done:
            self._sqs.delete_message_batch(
                QueueUrl=self.queue.url,
                Entries=[{"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
                         for index, message in enumerate(done)],
            )
        if retry:
            self._sqs.change_message_visibility_batch(
                QueueUrl=self.queue.url,
                Entries=[{"Id": str(index), "ReceiptHandle": message["ReceiptHandle"],
                          "VisibilityTimeout": self._retry_visibility_s}
                         for index, message in enumerate(retry)],
            )
            log.info("%s queue: %d of %d record(s) left for retry", self.queue.key, len(retry), len(messages))
