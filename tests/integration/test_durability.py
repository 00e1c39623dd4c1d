"""Issue 15: the local stack's write-ahead journal. What the emulator acknowledged survives a kill -9
(and a restart right after it); any text survives the snapshot and the journal."""

from __future__ import annotations

import shutil
import sys
import unicodedata
from pathlib import Path

import pytest

from ltm_local.config import StackConfig
from ltm_local.emulator import client
from ltm_local.persistence import decode_records, encode_record
from ltm_local.stack import LocalStack

pytestmark = [pytest.mark.xdist_group("ltm_local_stack"), pytest.mark.slow]

# Every character str.splitlines() splits on, every C0/C1 control, and the format characters.
SEPARATORS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
CONTROLS = "".join(chr(c) for c in range(0x00, 0x20)) + "".join(chr(c) for c in range(0x7F, 0xA0))
FORMAT = "".join(chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) == "Cf")
ANY_TEXT = f"peanuts{SEPARATORS}allergy{CONTROLS}{FORMAT}\ud7ff\ue000\U0010ffff😀end"


def test_a_journal_record_round_trips_every_separator_and_control_character():
    record = {"t": "ddb", "text": ANY_TEXT, "lines": list(SEPARATORS)}
    line = encode_record(record)
    assert line.count(b"\n") == 1 and line.endswith(b"\n") and line.isascii()
    records, clean = decode_records(line * 3)
    assert clean and records == [record] * 3


def test_a_torn_last_record_is_dropped_and_the_rest_kept():
    good = encode_record({"n": 1})
    torn = encode_record({"n": 2, "text": ANY_TEXT})[:-9]
    records, clean = decode_records(good + torn)
    assert records == [{"n": 1}] and not clean
    corrupt = good + b"00000000 " + good.split(b" ", 1)[1]
    assert decode_records(corrupt) == ([{"n": 1}], False)


def _config(home: Path) -> StackConfig:
    return StackConfig(home=home, api_port=0, emulator_port=0, emulator_port_fallback=False,
                       tick_seconds=0, snapshot_seconds=3600)


def _put(stack: LocalStack, sk: str, text: str) -> None:
    client("dynamodb", stack.emulator.endpoint).put_item(
        TableName=stack.resources.table_name,
        Item={"PK": {"S": "USER#durable"}, "SK": {"S": sk}, "kind": {"S": "t"}, "data": {"S": text},
              "blob": {"B": text.encode("utf-8", "surrogatepass")}},
    )


def _get(stack: LocalStack, sk: str) -> dict | None:
    return client("dynamodb", stack.emulator.endpoint).get_item(
        TableName=stack.resources.table_name, Key={"PK": {"S": "USER#durable"}, "SK": {"S": sk}},
        ConsistentRead=True,
    ).get("Item")


def test_an_acknowledged_write_survives_a_crash_through_the_journal_and_any_text_the_snapshot(tmp_path):
    home, crashed = tmp_path / "home", tmp_path / "crashed"
    with LocalStack(_config(home), front=False, pollers=False, timer=False) as stack:
        _put(stack, "T#1", ANY_TEXT)
        sqs = client("sqs", stack.emulator.endpoint)
        queue = stack.resources.queues["extraction"]
        sqs.send_message(QueueUrl=queue.url, MessageBody=ANY_TEXT.replace("\x00", ""),
                         MessageGroupId="g", MessageDeduplicationId="d1")
        # What is on disk right now is what a kill -9 would leave (no snapshot was taken).
        shutil.copytree(home, crashed)
        assert not (crashed / "data" / f"table-{stack.resources.table_name}.jsonl").exists()
    (crashed / "stack.lock").unlink(missing_ok=True)
    with LocalStack(_config(crashed), front=False, pollers=False, timer=False) as stack:
        item = _get(stack, "T#1")
        assert item["data"]["S"] == ANY_TEXT
        assert stack.restored == (1, 1)
    # And once more from the snapshot the clean stop wrote (no journal left to replay).
    with LocalStack(_config(crashed), front=False, pollers=False, timer=False) as stack:
        assert _get(stack, "T#1")["data"]["S"] == ANY_TEXT
        assert stack.restored == (1, 1)


@pytest.mark.skipif(sys.platform != "linux", reason="process groups and SIGKILL as on Linux")
def test_kill_minus_9_after_a_202_and_during_a_batch_loses_and_duplicates_nothing(tmp_path):
    """The small round of `make crash` (docs/bench/crash.md has the 3 x 100 run)."""
    from bench.crash import run_round

    result = run_round(0, fragments=20, users=5, kills=2, seed=5, workdir=tmp_path)
    assert result.accepted == 20 and result.kills >= 3
    assert result.lost == [] and result.duplicated_facts == 0 and result.duplicated_events == 0
    assert result.failed_restarts == 0 and result.not_idempotent == 0


def test_the_front_takes_a_burst_of_parallel_connections(tmp_path):
    import http.client
    import threading

    statuses: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(64)
    with LocalStack(_config(tmp_path / "burst"), front=True, pollers=False, timer=False) as stack:
        port = stack.front.port

        def one() -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            start.wait()
            try:
                connection.request("GET", "/v1/health")
                status = connection.getresponse().status
            except OSError:
                status = 0
            finally:
                connection.close()
            with lock:
                statuses.append(status)

        threads = [threading.Thread(target=one) for _ in range(64)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert statuses == [200] * 64
