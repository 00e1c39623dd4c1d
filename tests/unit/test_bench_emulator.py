"""The benchmark's emulator (moto server in a child process, with bench/moto_patch.py): a cancelled
transaction still leaves nothing behind, and the read path runs against it."""

from __future__ import annotations

import dataclasses

import pytest
from bench import harness
from bench.profiles import build_profile, seed

from health_ltm.ports import ChangeSet, ConflictError


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
        assert usage.calls == {"Query": 1}
        assert usage.read_units > 0
