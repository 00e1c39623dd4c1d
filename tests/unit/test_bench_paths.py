"""Smoke tests of the read, write, maintenance and context-size benchmarks at small N (in-process).

They check that each benchmark drives the real code and reports what it says it reports;
they never assert on a time.
"""

from __future__ import annotations

from bench import context_size, maintenance, read_path, write_path
from bench.profiles import NOW, build_profile


def test_read_path_in_process_serves_every_question_within_the_round_trip_bound():
    from health_ltm.storage import keys

    result = read_path.in_process({50: build_profile(50)}, quick=True)
    assert set(result["50"]) == set(read_path.QUERIES)
    for row in result["50"].values():
        assert row["n"] > 0 and row["median_ms"] > 0
        # one Query per contiguous run of the question's sections, never more than the bound
        assert 1 <= row["storage_calls_per_request"]["median"] <= keys.max_read_ranges()
        assert row["response_bytes"] > 0


def test_write_path_recorded_extractor_replays_the_rules_output():
    from health_ltm.domain.clock import FixedClock
    from health_ltm.domain.models import Message, Role

    recorded = write_path.record(FixedClock(NOW))
    assert recorded  # every fragment but the noise-only one
    key, (sections, assertions) = next(iter(recorded.items()))
    messages = [Message(role=Role.USER, text=t) for t in key]
    assert write_path.RecordedClassifier(recorded).classify(messages) == list(sections)
    assert len(write_path.RecordedExtractor(recorded).extract(messages, sections)) == len(assertions)


def test_write_path_round_applies_events_in_process():
    from bench.profiles import seed

    from health_ltm.domain.clock import FixedClock
    from health_ltm.storage.memory import InMemoryRepository

    clock = FixedClock(NOW)
    recorded = write_path.record(clock)
    repo = InMemoryRepository()
    paths = {mode: write_path._path(repo, mode, clock, recorded) for mode in ("rules", "recorded")}
    for mode in paths:
        seed(repo, f"u-w-{mode}", build_profile(50, seed=11))
    rows = write_path._round(repo, "u-w", clock, paths)
    for mode in paths:
        summary = write_path._aggregate(rows[mode], dynamo=False)
        assert summary["fragments"] == len(write_path.FRAGMENTS)
        assert summary["applied_events"] > 0
        assert "rejected" in summary["statuses"]  # the noise-only fragment
    # Model time excluded both ways, same decisions: the same events applied.
    assert [r["applied"] for r in rows["rules"]] == [r["applied"] for r in rows["recorded"]]


def test_maintenance_job_through_the_handler_and_fan_out():
    from bench import harness
    from bench.profiles import seed

    from health_ltm import wiring
    from health_ltm.storage.memory import InMemoryRepository

    clock = maintenance._Clock()
    original = wiring.clock
    wiring.clock = lambda: clock
    try:
        repo = InMemoryRepository()
        with harness.use_repository(repo):
            seed(repo, "u-m", build_profile(100, seed=3))
            _, result = maintenance._job("u-m", clock, NOW)
            assert result == {"batchItemFailures": []}
        assert maintenance._changes_made(repo, "u-m") > 0  # the backlog: something was due
    finally:
        wiring.clock = original
    fan = maintenance.fan_out_in_process(30)
    assert fan["users"] == 30


def test_context_size_compares_the_prompt_with_the_whole_profile():
    result = context_size.run(quick=True)
    assert result["tokenizer"] == "o200k_base"
    assert result["whole_profile_json_tokens"] > result["whole_profile_rendered_tokens"] > 0
    for kind in ("single_topic", "multi_topic"):
        for row in result["questions"][kind]:
            assert row["400"]["prompt_tokens"] <= 400
            assert row["400"]["prompt_tokens"] <= row["4000"]["prompt_tokens"]
    assert "met" in result["target"]
