"""The benchmark's emulator (the local stack's moto server in a child process, with its moto
patches): a cancelled transaction still leaves nothing behind, and the read path runs against it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest
from bench import harness
from bench.profiles import build_profile, seed

from health_ltm.errors import ConflictError
from health_ltm.ports import ChangeSet


@pytest.mark.xdist_group("bench-emulator")
def test_cancelled_transaction_rolls_back_and_the_handler_reads_through_boto3():
    with harness.emulator() as env:
        repo = harness.dynamo_repository(env)
        profile = build_profile(20, seed=9)
        seed(repo, "u-e", profile)
        before = repo.load_memory("u-e")

        # A new fact and a write that must fail (this fact already exists) in one transaction.
        fresh = build_profile(20, seed=10).changes[0].facts[0]
        existing = profile.changes[0].facts[0]
        doomed = ChangeSet(facts=[fresh, dataclasses.replace(existing)])
        with pytest.raises(ConflictError):
            repo.apply("u-e", None, doomed)
        after = repo.load_memory("u-e")
        assert {f.id for f in after.facts} == {f.id for f in before.facts}

        from health_ltm import wiring

        meter = harness.DynamoMeter(wiring.repository().client)
        harness.invoke_api(harness.api_event("Можно ли мне ибупрофен?", "u-e"))
        usage = meter.reset()
        # the always-read items, and the safety sections' current-state copies (one run), in parallel
        assert usage.calls == {"Query": 2}
        assert usage.read_units > 0


_INSTALL_TWICE = """
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table
from ltm_local.emulator import Emulator, install_moto_patches
moto_query, moto_transact = Table.query, DynamoDBBackend.transact_write_items
install_moto_patches()
patched = Table.query, DynamoDBBackend.transact_write_items
install_moto_patches()  # what the bench's emulator process does, then Emulator.start() again
emulator = Emulator(0)
emulator.start()
emulator.stop()
assert (Table.query, DynamoDBBackend.transact_write_items) == patched
assert patched[0] is not moto_query and patched[1] is not moto_transact
print("ok")
"""


def test_the_moto_patches_wrap_moto_once_however_often_they_are_installed():
    # In a child process: the patches are process-global.
    done = subprocess.run(
        [sys.executable, "-c", _INSTALL_TWICE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
