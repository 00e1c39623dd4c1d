"""A storm of ConditionalCheckFailed on one user's fact: many concurrent writers, no lost update.

Six "phones" correct the same allergy at once (PATCH with the version they read, retried on 412)
while two extract workers apply fragments that mention it again (reconfirmations, retried on
conflict as SQS would redeliver). Against the in-process repository and against DynamoDB (moto
server over HTTP, one shared thread-safe client, as a Lambda container has).

No lost update means: every acknowledged edit is in the history, no two edits were made on the
same base, every version from 1 to the last was produced exactly once, and the fact's version
equals the length of its history.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from health_ltm.domain.clock import SystemClock
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import Message, Role
from health_ltm.errors import ConflictError, StaleVersion
from health_ltm.read import profile
from health_ltm.write.intake import submit_fragment
from health_ltm.write.pipeline import WritePath
from health_ltm.write.rules import RuleExtractor, RuleSectionClassifier
from tests.fakes.queues import ListQueue

pytestmark = [pytest.mark.xdist_group("ltm_live_conflicts"), pytest.mark.slow]

EDITORS = 6
EDITS_EACH = 5
WORKERS = 2
MENTIONS_EACH = 3
MAX_ATTEMPTS = 400  # per edit: bounded, far above what a storm of 8 writers needs
USER = "storm-user"


@pytest.fixture(params=["memory", "dynamodb"])
def repository(request):
    if request.param == "memory":
        from health_ltm.storage.memory import InMemoryRepository

        yield InMemoryRepository()
        return
    from health_ltm.storage.dynamodb import DynamoRepository
    from ltm_local.emulator import Emulator, client, delete_resources, ensure_resources

    emulator = Emulator(0, fallback_to_ephemeral=False)
    endpoint = emulator.start()
    resources = ensure_resources(endpoint, table_name="storm", prefix="storm")
    try:
        yield DynamoRepository(resources.table_name, client=client("dynamodb", endpoint))
    finally:
        delete_resources(endpoint, resources)
        emulator.stop()


def _path(repository) -> WritePath:
    clock = SystemClock()
    return WritePath(
        repository=repository,
        classifier=RuleSectionClassifier(),
        extractor=RuleExtractor(clock=clock),
        clock=clock,
        new_id=new_ulid,
    )


def _say(repository, text: str) -> str:
    fragment = submit_fragment(
        repository, ListQueue(), SystemClock(), new_ulid, USER, "storm", [Message(role=Role.USER, text=text)]
    )
    return fragment.id


def test_concurrent_writers_on_one_fact_lose_no_update(repository):
    path = _path(repository)
    path.process(USER, _say(repository, "У меня аллергия на арахис"))
    (fact,) = repository.load_memory(USER).facts
    fragments = [_say(repository, "У меня аллергия на арахис") for _ in range(WORKERS * MENTIONS_EACH)]

    start = threading.Barrier(EDITORS + WORKERS)
    acknowledged: dict[int, list[tuple[str, int]]] = {t: [] for t in range(EDITORS)}
    conflicts = Counter()
    errors: list[str] = []

    def editor(t: int) -> None:
        start.wait(timeout=30)
        for i in range(EDITS_EACH):
            reaction = f"w{t}e{i}"
            for _ in range(MAX_ATTEMPTS):
                current = repository.get_fact(USER, fact.id)
                try:
                    edited = profile.edit_fact(
                        repository,
                        SystemClock(),
                        new_ulid,
                        USER,
                        fact.id,
                        current.version,
                        {"attributes": {"reaction": reaction}},
                    )
                except StaleVersion:
                    conflicts["edit"] += 1
                    continue
                acknowledged[t].append((reaction, edited.version))
                break
            else:
                errors.append(f"editor {t} gave up on edit {i}")

    def worker(w: int) -> None:
        start.wait(timeout=30)
        for fragment_id in fragments[w::WORKERS]:
            for _ in range(50):  # SQS would redeliver a record that lost too many races
                try:
                    path.process(USER, fragment_id)
                    break
                except ConflictError:
                    conflicts["worker"] += 1
            else:
                errors.append(f"worker {w} gave up on a fragment")

    threads = [threading.Thread(target=editor, args=(t,), daemon=True) for t in range(EDITORS)]
    threads += [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a writer is stuck"
    assert not errors, errors

    final = repository.get_fact(USER, fact.id)
    history = repository.get_history(USER, fact.id)
    edits = [e for e in history if e.type.value == "user_edit"]
    reconfirmations = [e for e in history if e.type.value == "reconfirmation"]

    # Versions strictly increase for each writer, and each version was produced exactly once.
    versions = [v for acks in acknowledged.values() for _, v in acks]
    for acks in acknowledged.values():
        assert [v for _, v in acks] == sorted({v for _, v in acks})
    assert len(versions) == len(set(versions)) == EDITORS * EDITS_EACH
    assert final.version == len(history) == 1 + len(edits) + len(reconfirmations)
    assert set(versions) <= set(range(2, final.version + 1))

    # Every acknowledged edit is in the history, and no two edits were made on the same base.
    reactions = [e.after["attributes"]["reaction"] for e in edits]
    assert sorted(reactions) == sorted(r for acks in acknowledged.values() for r, _ in acks)
    bases = Counter(repr(e.before) for e in edits)
    assert max(bases.values()) == 1, "two edits were decided on the same version: a lost update"
    assert final.attributes["reaction"] in reactions
    assert [e.type.value for e in history].count("first_mention") == 1

    # Each fragment applied once: one reconfirmation per fragment, every fragment applied.
    assert len(reconfirmations) == len(fragments)
    assert all(repository.get_fragment(USER, f).status.value == "applied" for f in fragments)


def test_the_local_emulator_loses_no_write_while_transactions_fail_concurrently():
    """moto alone restores a whole-table copy when a transaction fails, undoing other threads'
    writes; the local stack's emulator serialises DynamoDB requests so that it cannot."""
    from ltm_local.emulator import Emulator, client, delete_resources, ensure_resources

    emulator = Emulator(0, fallback_to_ephemeral=False)
    endpoint = emulator.start()
    resources = ensure_resources(endpoint, table_name="linear", prefix="linear")
    ddb = client("dynamodb", endpoint)
    table = resources.table_name
    try:
        for i in range(200):  # a table big enough for the copy to take a while
            ddb.put_item(
                TableName=table,
                Item={"PK": {"S": "filler"}, "SK": {"S": f"{i:05d}"}, "data": {"S": "x" * 200}},
            )
        stop = threading.Event()
        failed = Counter()

        def failing_transactions() -> None:
            for _ in range(2000):
                if stop.is_set():
                    return
                try:
                    ddb.transact_write_items(
                        TransactItems=[
                            {
                                "Put": {
                                    "TableName": table,
                                    "Item": {"PK": {"S": "f"}, "SK": {"S": "f"}},
                                    "ConditionExpression": "attribute_exists(PK)",
                                }
                            }
                        ]
                    )
                except ddb.exceptions.TransactionCanceledException:
                    failed["cancelled"] += 1

        def writer(w: int) -> None:
            for i in range(100):
                ddb.put_item(TableName=table, Item={"PK": {"S": f"w{w}"}, "SK": {"S": f"{i:05d}"}})

        failing = [threading.Thread(target=failing_transactions, daemon=True) for _ in range(2)]
        writers = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(3)]
        for thread in failing + writers:
            thread.start()
        for thread in writers:
            thread.join(timeout=60)
        stop.set()
        for thread in failing:
            thread.join(timeout=60)
        found = sum(
            ddb.query(
                TableName=table,
                KeyConditionExpression="PK = :p",
                ExpressionAttributeValues={":p": {"S": f"w{w}"}},
                Select="COUNT",
            )["Count"]
            for w in range(3)
        )
        assert failed["cancelled"] > 0
        assert found == 300
    finally:
        delete_resources(endpoint, resources)
        emulator.stop()
