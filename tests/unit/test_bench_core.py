"""Smoke tests of the benchmark harness: statistics, synthetic profiles, metering. No timing asserts."""

from __future__ import annotations

import math

import pytest
from bench import harness, stats
from bench.profiles import MAX_TRANSACTION_ITEMS, build_profile, seed

from health_ltm.domain.sections import ALLOWED_STATUSES, Section
from health_ltm.storage.memory import InMemoryRepository


def test_percentile_is_nearest_rank_and_summary_is_in_milliseconds():
    values = [float(i) for i in range(1, 21)]  # 1..20
    assert stats.percentile(values, 95) == 19.0
    assert stats.percentile(values, 50) == 10.0
    summary = stats.summarize([0.001, 0.002, 0.003])
    assert summary["n"] == 3
    assert summary["median_ms"] == pytest.approx(2.0)
    assert summary["p95_ms"] == pytest.approx(3.0)


def test_interleaved_runs_every_case_once_per_round_in_turn():
    order: list[str] = []

    def case(name):
        def run() -> float:
            order.append(name)
            return 0.0

        return run

    samples = stats.interleaved({"a": case("a"), "b": case("b")}, rounds=3, warmup=1)
    assert order == ["a", "b"] * 4
    assert {k: len(v) for k, v in samples.items()} == {"a": 3, "b": 3}


def test_profile_has_n_valid_facts_across_sections_with_unique_keys():
    profile = build_profile(100, seed=1)
    assert profile.n_facts == 100
    assert {f.section for f in profile.facts} == set(Section)
    for fact in profile.facts:
        assert fact.status in ALLOWED_STATUSES[fact.section]
    keys = [(f.section, f.key) for f in profile.facts]
    assert len(keys) == len(set(keys))
    assert profile.documented  # ~2% documented facts
    assert profile.history_events > profile.n_facts  # some facts were mentioned again


def test_profile_is_deterministic_and_fits_dynamodb_transactions():
    a, b = build_profile(60, seed=2), build_profile(60, seed=2)
    assert [(f.section, f.key, f.status) for f in a.facts] == [(f.section, f.key, f.status) for f in b.facts]
    for change in a.changes:
        items = sum(3 + 0 for _ in change.facts) + len(change.copied_history) + 2 * len(change.sections)
        assert items <= MAX_TRANSACTION_ITEMS


def test_seeding_writes_the_profile_through_the_repository():
    repo = InMemoryRepository()
    profile = build_profile(50, seed=4)
    calls = seed(repo, "u-bench", profile)
    assert calls == len(profile.changes)  # put_documented is not a counted call in-process
    memory = repo.load_memory("u-bench")
    assert len(memory.facts) == profile.n_facts
    assert len(memory.documented) == len(profile.documented)


def test_item_size_follows_dynamodb_rules():
    assert harness.item_size({"PK": {"S": "abc"}}) == 2 + 3
    assert harness.item_size({"n": {"N": "12345"}}) == 1 + math.ceil(5 / 2) + 1
    assert harness.item_size({"x": {"SS": ["ab", "c"]}}) == 1 + 3
    assert harness.write_units(1024) == 1
    assert harness.write_units(1025) == 2


def test_meter_counts_calls_and_capacity_units(dynamo_table):
    import boto3

    from health_ltm.storage.dynamodb import DynamoRepository

    client = boto3.client("dynamodb")
    meter = harness.DynamoMeter(client)
    repo = DynamoRepository(dynamo_table, client)
    seed(repo, "u-meter", build_profile(20, seed=3))
    repo.load_memory("u-meter")
    usage = meter.reset()
    assert usage.calls["TransactWriteItems"] >= 1
    assert usage.calls["Query"] == 1
    assert usage.write_units >= 2 * usage.items_written - 2 * 20  # transactional: 2 per KB per item
    assert usage.read_units > 0
    assert usage.bytes_read > 0


def test_api_event_is_a_context_request_for_the_given_user():
    event = harness.api_event("Можно ли мне ибупрофен?", "u-x", max_tokens=300)
    assert event["path"] == "/v1/context"
    assert event["requestContext"]["authorizer"]["claims"]["sub"] == "u-x"
    assert '"max_tokens": 300' in event["body"]
    fragment = harness.fragment_event([("user", "Пью Энап")], "u-x")
    assert fragment["path"] == "/v1/fragments"
