"""Fault tests: helpers to drive the real handlers on a local stack and to check that a user's
memory is whole (no fact without its history, no history without its fact, versions counted)."""

from __future__ import annotations

from collections import Counter

from bench.load import Client, Live


def drain(live: Live, max_batches: int = 20) -> list[dict]:
    """Feed what waits in the extraction queue to the extract handler, as the poller does, but
    in the test's own thread (for a deterministic order of faults). Bounded by ``max_batches``.

    Returns the handler's responses; failed records are made visible again at once.
    """
    from ltm_local.emulator import client
    from ltm_local.events import sqs_event

    queue = live.queue()
    sqs = client("sqs", live.endpoint)
    results = []
    for _ in range(max_batches):
        messages = sqs.receive_message(
            QueueUrl=queue.url,
            MaxNumberOfMessages=queue.spec.batch_size,
            WaitTimeSeconds=0,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        ).get("Messages", [])
        if not messages:
            break
        try:
            result = live.stack.invoker.invoke("extract", sqs_event(messages, queue.arn))
        except Exception:  # Powertools raises when every record failed: Lambda retries the batch
            result = {"batchItemFailures": [{"itemIdentifier": m["MessageId"]} for m in messages]}
        failed = {f["itemIdentifier"] for f in (result or {}).get("batchItemFailures", [])}
        for message in messages:
            if message["MessageId"] in failed:
                sqs.change_message_visibility(
                    QueueUrl=queue.url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
                )
            else:
                sqs.delete_message(QueueUrl=queue.url, ReceiptHandle=message["ReceiptHandle"])
        results.append(result)
        if failed:
            break  # the failed group is blocked until the record is visible again: let the test decide
    return results


def failures(results: list[dict]) -> int:
    return sum(len((r or {}).get("batchItemFailures", [])) for r in results)


def export(client: Client) -> dict:
    status, body = client.call("GET", "/v1/export")
    assert status == 200, body
    return body


def assert_whole(exported: dict) -> None:
    """Nothing is half-written: each fact has exactly ``version`` history events, the first a
    first_mention, and every history event belongs to a fact or a section state on record."""
    events = Counter(e["fact_id"] for e in exported["history"])
    fact_ids = {f["id"] for f in exported["facts"]}
    for fact in exported["facts"]:
        history = [e for e in exported["history"] if e["fact_id"] == fact["id"]]
        assert len(history) == fact["version"], (
            fact["section"],
            fact["version"],
            [e["type"] for e in history],
        )
        assert sorted(history, key=lambda e: (e["at"], e["id"]))[0]["type"] == "first_mention"
    section_ids = {f"section-{s['section']}" for s in exported["sections"]}
    orphans = set(events) - fact_ids - section_ids
    assert not orphans, orphans
    for state in exported["sections"]:
        assert events[f"section-{state['section']}"] == state["version"], state


def summary(exported: dict) -> dict:
    """What a user would see, without ids and times: facts, their event types, fragment states."""
    facts = sorted(
        (
            f["section"],
            f["key"],
            f["status"],
            f["version"],
            tuple(sorted(e["type"] for e in exported["history"] if e["fact_id"] == f["id"])),
        )
        for f in exported["facts"]
    )
    sections = sorted((s["section"], s["status"], s["version"]) for s in exported["sections"])
    fragments = sorted(f["status"] for f in exported["fragments"])
    return {"facts": facts, "sections": sections, "fragments": fragments, "pending": len(exported["pending"])}
