"""DELETE /v1/me, verified across the table, the vectors and the queues, from the outside.

A user has applied facts, episodes and vectors, fragments still waiting in the extraction queue,
and a message parked in the dead-letter queue. After the erasure the table holds no item of
theirs (raw scan: no key, no attribute naming them), the vector store no document (and its files
no trace of what they said); then the queue is worked off and the dead letter redriven, and
still nothing of theirs comes back. Another user, interleaved throughout, keeps everything.
"""

from __future__ import annotations

import pytest
from bench.load import live_stack

from tests.faults.conftest import drain, export, failures

pytestmark = [pytest.mark.xdist_group("ltm_live_erasure"), pytest.mark.slow]

ERASED = "erase-me-5d1c"
KEPT = "keep-me-9a2b"
SAID = ["У меня аллергия на арахис", "Пью Энап 5 мг по утрам", "Третий день болит голова"]
OTHERS_SAID = ["I am allergic to penicillin", "Врач назначил метформин 500 мг", "У меня астма"]
LATER = ["Ещё у меня аллергия на латекс", "Начал принимать аспирин 100 мг"]


def _scan_for(live, needle: str) -> list[dict]:
    from ltm_local.emulator import client

    ddb = client("dynamodb", live.endpoint)
    found, kwargs = [], {"TableName": live.stack.resources.table_name}
    for _ in range(1000):  # pages; bounded
        page = ddb.scan(**kwargs)
        found += [item for item in page.get("Items", []) if needle in repr(item)]
        if "LastEvaluatedKey" not in page:
            return found
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    raise AssertionError("table scan did not end")


def _park_one_in_the_dlq(live) -> str:
    """Move one of the erased user's queued messages to the DLQ, as five failed receives would."""
    from ltm_local.emulator import client

    sqs = client("sqs", live.endpoint)
    queue = live.queue()
    for _ in range(20):
        messages = sqs.receive_message(
            QueueUrl=queue.url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        ).get("Messages", [])
        for message in messages:
            if ERASED in message["Body"]:
                sqs.send_message(
                    QueueUrl=queue.dlq_url,
                    MessageBody=message["Body"],
                    MessageGroupId=message["Attributes"]["MessageGroupId"],
                    MessageDeduplicationId=message["Attributes"]["MessageDeduplicationId"],
                )
                sqs.delete_message(QueueUrl=queue.url, ReceiptHandle=message["ReceiptHandle"])
                for other in messages:
                    if other is not message:
                        sqs.change_message_visibility(
                            QueueUrl=queue.url, ReceiptHandle=other["ReceiptHandle"], VisibilityTimeout=0
                        )
                return message["Body"]
        for other in messages:
            sqs.change_message_visibility(
                QueueUrl=queue.url, ReceiptHandle=other["ReceiptHandle"], VisibilityTimeout=0
            )
    raise AssertionError("no message of the erased user in the queue")


def test_erasure_leaves_nothing_in_table_vectors_or_queues_and_nothing_comes_back(tmp_path):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
    with live_stack(tmp_path / "ltm", env=env, pollers=False) as live:
        erased, kept = live.client(ERASED), live.client(KEPT)
        for mine, theirs in zip(SAID, OTHERS_SAID, strict=True):
            assert erased.say(mine)[0] == 202
            assert kept.say(theirs)[0] == 202
        assert failures(drain(live)) == 0
        before = export(erased)
        assert len(before["facts"]) >= 3 and before["vector_documents"] == 3 and before["episodes"]
        kept_before = export(kept)

        for text in LATER:  # still queued when the user erases themselves
            assert erased.say(text)[0] == 202
        assert kept.say("Мне 42 года")[0] == 202
        parked = _park_one_in_the_dlq(live)
        assert live.dlq_depth() == 1 and ERASED in parked

        status, erasure = erased.call("DELETE", "/v1/me")
        assert status == 200
        assert erasure["erased_items"] > 0 and erasure["erased_vectors"] == 3
        assert erasure["remaining_items"] == 0 and erasure["remaining_vectors"] == 0
        assert _scan_for(live, ERASED) == []

        # The queue is worked off and the dead letter redriven: the worker finds no fragment.
        assert live.redrive() == 1
        assert failures(drain(live)) == 0
        assert live.queue_depth(live.queue().url) == 0 and live.dlq_depth() == 0
        assert _scan_for(live, ERASED) == []
        after = export(erased)
        assert all(not after[k] for k in ("facts", "history", "fragments", "pending", "episodes", "sections"))
        assert after["vector_documents"] == 0
        from health_ltm import wiring

        assert wiring.vector_index().count_user(ERASED) == 0
        vector_files = "".join(
            p.read_text(encoding="utf-8", errors="replace")
            for p in live.stack.config.vector_path.rglob("*")
            if p.is_file()
        )
        assert ERASED not in vector_files and "арахис" not in vector_files and "Энап" not in vector_files

        # The other user kept everything, and their queued fragment applied.
        kept_after = export(kept)
        assert all(f in kept_after["facts"] for f in kept_before["facts"])
        assert all(e in kept_after["history"] for e in kept_before["history"])
        assert kept_after["vector_documents"] == kept_before["vector_documents"] + 1
        assert {f["status"] for f in kept_after["fragments"]} == {"applied"}
