"""Episodes over time: recency-weighted recall, batched retrieval statistics, archival."""

from __future__ import annotations

from datetime import timedelta

import pytest

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.clock import FixedClock
from health_ltm.domain.ids import new_ulid
from health_ltm.domain.models import Episode
from health_ltm.domain.sections import Section
from health_ltm.errors import ConflictError
from health_ltm.maintenance.engine import run_user
from health_ltm.maintenance.episodes import ARCHIVED, RESUMED
from health_ltm.maintenance.policies import load_policies
from health_ltm.ports import EpisodeHit
from health_ltm.read.classify import QueryClassification
from health_ltm.read.context import build_context
from health_ltm.read.episode_stats import EpisodeStats
from health_ltm.read.recency import FLOOR, HALF_LIFE_DAYS, recency_factor, rerank
from health_ltm.storage.memory import InMemoryRepository
from tests.conftest import T0

DAYS = load_policies().episodes.archive_after_days


def episode(eid: str, at=T0, **extra) -> Episode:
    return Episode(id=eid, session_id="s1", fragment_id=eid, text=f"text of {eid}", at=at, **extra)


def store(repo, index, user: str, ep: Episode, vector=(1.0, 0.0, 0.0)) -> Episode:
    """As the write path does: the row, the vector, then the row with the vector's id."""
    repo.put_episode(user, ep)
    stored = ep.model_copy(update={"vector_doc_id": index.index(user, ep, list(vector))})
    repo.put_episode(user, stored)
    return stored


class FixedEmbedder:
    name, dimensions = "fixed", 3

    def embed(self, texts):
        return [[1.0, 0.0, 0.0] for _ in texts]


def needs_episodes() -> QueryClassification:
    return QueryClassification(
        classes=["symptom_now"], sections=[], history_intent=False, needs_episodes=True,
        method="test", data_version="test",
    )


# ------------------------------------------------------------------------------ recency
def test_recency_factor_halves_the_decaying_part_every_half_life():
    assert recency_factor(T0, T0) == pytest.approx(1.0)
    assert recency_factor(T0, T0 + timedelta(days=HALF_LIFE_DAYS)) == pytest.approx(FLOOR + (1 - FLOOR) / 2)
    assert recency_factor(T0, T0 + timedelta(days=3650)) == pytest.approx(FLOOR, abs=1e-3)
    assert recency_factor(T0 + timedelta(days=5), T0) == pytest.approx(1.0)  # clock skew never boosts


def test_a_recent_slightly_less_similar_episode_outranks_an_old_one():
    repo, index = InMemoryRepository(), LocalVectorIndex()
    now = T0 + timedelta(days=400)
    store(repo, index, "u", episode("old", at=T0), (1.0, 0.05, 0.0))  # cosine 0.999
    store(repo, index, "u", episode("recent", at=now - timedelta(days=3)), (1.0, 0.4, 0.0))  # 0.928
    assert [h.episode_id for h in index.search("u", [1.0, 0.0, 0.0], 2)] == ["old", "recent"]

    result = build_context(
        repo, needs_episodes(), "u", "q", 500, embedder=FixedEmbedder(), vector_index=index, now=now
    )

    assert result.episodes_status == "ok"
    assert result.episode_ids == ["recent", "old"]
    recent, old = result.episodes
    assert recent["score"] == pytest.approx(0.928 * recency_factor(now - timedelta(days=3), now), abs=1e-3)
    assert old["score"] == pytest.approx(0.999 * recency_factor(T0, now), abs=1e-3)


def test_rerank_keeps_k_from_the_candidates_and_is_deterministic():
    hits = [EpisodeHit(f"e{n}", "t", T0 - timedelta(days=n * 30), 0.9) for n in range(6)]
    ranked = rerank(list(reversed(hits)), T0, 3)
    assert [h.episode_id for h in ranked] == ["e0", "e1", "e2"]
    assert rerank(hits, T0, 3) == ranked
    assert rerank([EpisodeHit("neg", "t", T0, -0.4)], T0, 1)[0].score == 0.0  # no negative weights


# ------------------------------------------------------------------------------ statistics
class Ticks:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stats_over(repo, ticks: Ticks, hits: int = 10) -> EpisodeStats:
    return EpisodeStats(
        repo, due_after_days=DAYS, flush_after_hits=hits, flush_after_s=60, background=False, monotonic=ticks
    )


def test_reads_write_nothing_until_the_threshold_then_one_write_per_episode():
    repo = InMemoryRepository()
    for eid in ("a", "b", "c"):
        repo.put_episode("u", episode(eid))
    repo.put_episode("v", episode("a"))
    ticks = Ticks()
    stats = stats_over(repo, ticks, hits=10)
    before = repo.calls

    for n in range(4):  # 9 hits over 4 reads, below the 10-hit threshold
        assert not stats.record("u", ["a", "b"], T0 + timedelta(minutes=n))
        ticks.now += 1
    assert not stats.record("v", ["a"], T0)
    assert repo.calls == before and stats.pending() == 3

    assert stats.record("u", ["c"], T0 + timedelta(minutes=1))  # the 10th hit flushes
    assert stats.pending() == 0
    # one update per touched episode and one "due on" marker per user, nothing per read
    assert repo.calls - before == 4 + 2
    a, b, c = (repo.get_episode("u", e) for e in ("a", "b", "c"))
    assert (a.retrieval_count, b.retrieval_count, c.retrieval_count) == (4, 4, 1)
    assert a.last_retrieved_at == T0 + timedelta(minutes=3)
    assert repo.get_episode("v", "a").retrieval_count == 1  # kept apart per user
    due = (T0 + timedelta(minutes=3) + timedelta(days=DAYS)).date().isoformat()
    assert repo.list_active_users_page(due)[0] == ["u", "v"]


def test_a_quiet_container_flushes_once_the_interval_has_passed():
    repo = InMemoryRepository()
    repo.put_episode("u", episode("a"))
    ticks = Ticks()
    stats = stats_over(repo, ticks, hits=1000)
    stats.record("u", ["a"], T0)
    ticks.now += 59
    assert not stats.record("u", [], T0)
    ticks.now += 2
    assert stats.record("u", [], T0)
    assert repo.get_episode("u", "a").retrieval_count == 1
    assert not stats.record("u", [], T0)  # nothing waiting: nothing to flush


def test_a_background_flush_writes_the_batch_off_the_request_thread():
    repo = InMemoryRepository()
    repo.put_episode("u", episode("a"))
    stats = EpisodeStats(repo, flush_after_hits=2)
    stats.record("u", ["a"], T0)
    assert stats.record("u", ["a"], T0 + timedelta(seconds=1))
    stats.wait(timeout=30)
    assert repo.get_episode("u", "a").retrieval_count == 2


def test_a_failing_write_drops_that_statistic_and_keeps_serving():
    class Broken(InMemoryRepository):
        def add_episode_retrievals(self, *args, **kwargs):
            raise RuntimeError("throttled")

    stats = EpisodeStats(Broken(), flush_after_hits=1, background=False)
    assert stats.record("u", ["a"], T0)
    assert stats.pending() == 0


# ------------------------------------------------------------------------------ repository contract
def test_retrievals_add_up_and_the_last_time_only_moves_forward(repository):
    repository.put_episode("alice", episode("e1"))
    assert repository.add_episode_retrievals("alice", "e1", 3, T0 + timedelta(days=2))
    assert repository.add_episode_retrievals("alice", "e1", 2, T0 + timedelta(days=1))  # a late flush
    got = repository.get_episode("alice", "e1")
    assert (got.retrieval_count, got.last_retrieved_at) == (5, T0 + timedelta(days=2))
    assert [e.retrieval_count for e in repository.list_episodes("alice")] == [5]
    assert repository.export("alice")["episodes"][0]["retrieval_count"] == 5


def test_retrievals_never_create_an_erased_or_foreign_row(repository):
    repository.put_episode("alice", episode("e1"))
    assert not repository.add_episode_retrievals("bob", "e1", 1, T0)
    assert not repository.add_episode_retrievals("alice", "gone", 1, T0)
    assert repository.list_episodes("bob") == [] and repository.get_episode("alice", "gone") is None


def test_update_episode_keeps_statistics_and_refuses_after_a_new_retrieval(repository):
    repository.put_episode("alice", episode("e1"))
    repository.add_episode_retrievals("alice", "e1", 1, T0)
    seen = repository.get_episode("alice", "e1")
    repository.update_episode("alice", seen.model_copy(update={"pinned": True}), seen.last_retrieved_at)
    got = repository.get_episode("alice", "e1")
    assert got.pinned and got.retrieval_count == 1

    repository.add_episode_retrievals("alice", "e1", 1, T0 + timedelta(hours=1))
    with pytest.raises(ConflictError):
        repository.update_episode("alice", got.model_copy(update={"archived": True}), got.last_retrieved_at)
    with pytest.raises(ConflictError):
        repository.update_episode("alice", episode("never-stored"), None)
    assert not repository.get_episode("alice", "e1").archived


# ------------------------------------------------------------------------------ archival
def setup_user(repository, index):
    store(repository, index, "u", episode("plain"))
    store(repository, index, "u", episode("pinned", pinned=True))
    store(repository, index, "u", episode("used"))
    repository.add_episode_retrievals("u", "used", 1, T0 + timedelta(days=100))
    store(repository, index, "other", episode("plain"))  # another user, same ids, same age


def run(repository, index, at, **kwargs):
    return run_user(repository, "u", FixedClock(at), new_ulid, vector_index=index, **kwargs)


def test_an_unused_episode_is_archived_after_n_days_unless_pinned_or_recently_retrieved(repository):
    index = LocalVectorIndex()
    setup_user(repository, index)

    assert run(repository, index, T0 + timedelta(days=DAYS - 1)).changes == []

    report = run(repository, index, T0 + timedelta(days=DAYS))
    assert [(c.policy, c.section, c.fact_id) for c in report.changes] == [(ARCHIVED, "episodes", "plain")]
    assert report.counts() == {ARCHIVED: 1}
    plain = repository.get_episode("u", "plain")
    assert plain.archived and plain.vector_doc_id is None  # the row stays for export
    assert repository.export("u")["episodes"][1]["archived"] is True
    assert index.count_user("u") == 2
    assert "plain" not in {h.episode_id for h in index.search("u", [1.0, 0.0, 0.0], 10)}
    assert index.count_user("other") == 1 and not repository.get_episode("other", "plain").archived

    assert run(repository, index, T0 + timedelta(days=DAYS)).changes == []  # a rerun changes nothing

    later = run(repository, index, T0 + timedelta(days=100 + DAYS))
    assert [c.fact_id for c in later.changes] == ["used"]
    assert run(repository, index, T0 + timedelta(days=3650)).changes == []
    assert not repository.get_episode("u", "pinned").archived and index.count_user("u") == 1


def test_a_dry_run_reports_the_archival_and_writes_nothing(repository):
    index = LocalVectorIndex()
    setup_user(repository, index)
    before = repository.export("u")

    report = run(repository, index, T0 + timedelta(days=DAYS), dry_run=True)

    assert [(c.policy, c.fact_id) for c in report.changes] == [(ARCHIVED, "plain")]
    assert repository.export("u") == before and index.count_user("u") == 3


def test_without_a_vector_index_episodes_are_left_alone():
    repo, index = InMemoryRepository(), LocalVectorIndex()
    store(repo, index, "u", episode("plain"))
    assert run_user(repo, "u", FixedClock(T0 + timedelta(days=DAYS)), new_ulid).changes == []
    assert not repo.get_episode("u", "plain").archived


def test_a_retrieval_flushed_during_the_job_keeps_the_episode():
    class RetrievedMeanwhile(InMemoryRepository):
        def update_episode(self, user_id, episode, seen):
            if not getattr(self, "_raced", False):
                self._raced = True
                self.add_episode_retrievals(user_id, episode.id, 1, T0 + timedelta(days=DAYS))
            super().update_episode(user_id, episode, seen)

    repo, index = RetrievedMeanwhile(), LocalVectorIndex()
    store(repo, index, "u", episode("plain"))

    assert run(repo, index, T0 + timedelta(days=DAYS)).changes == []
    assert not repo.get_episode("u", "plain").archived and index.count_user("u") == 1


def test_a_failed_vector_delete_is_finished_by_the_next_run():
    class Down:
        def delete_documents(self, user_id, doc_ids):
            raise OSError("vector store unavailable")

    repo, index = InMemoryRepository(), LocalVectorIndex()
    store(repo, index, "u", episode("plain"))

    with pytest.raises(OSError):
        run(repo, Down(), T0 + timedelta(days=DAYS))
    half = repo.get_episode("u", "plain")
    assert half.archived and half.vector_doc_id is not None

    report = run(repo, index, T0 + timedelta(days=DAYS + 1))
    assert [(c.policy, c.fact_id) for c in report.changes] == [(RESUMED, "plain")]
    assert repo.get_episode("u", "plain").vector_doc_id is None and index.count_user("u") == 0
    assert run(repo, index, T0 + timedelta(days=DAYS + 2)).changes == []


def test_activity_markers_outlive_the_longest_policy_horizon():
    from health_ltm.storage.dynamodb import ACTIVE_MARKER_TTL

    # the scheduler finds a user N days after their last activity only if the marker is still there
    assert ACTIVE_MARKER_TTL.days > max(load_policies().horizons())


# ------------------------------------------------------------------------------ local vector deletes
def test_local_delete_documents_deletes_only_the_users_own_and_survives_a_restart(tmp_path):
    index = LocalVectorIndex(tmp_path)
    mine = index.index("alice", episode("a"), [1.0, 0.0, 0.0])
    keep = index.index("alice", episode("b"), [0.0, 1.0, 0.0])
    theirs = index.index("bob", episode("c"), [1.0, 0.0, 0.0])

    assert index.delete_documents("alice", [theirs]) == 0  # bob's id, asked for by alice
    assert index.delete_documents("alice", [mine, "unknown"]) == 1
    assert index.delete_documents("alice", [mine]) == 0  # already gone: fine

    reopened = LocalVectorIndex(tmp_path)
    assert [h.episode_id for h in reopened.search("alice", [1.0, 0.0, 0.0], 5)] == ["b"]
    assert reopened.count_user("bob") == 1
    assert index.index("alice", episode("d"), [1.0, 0.0, 0.0]) not in (mine, keep)
    assert {h.episode_id for h in index.search("alice", [1.0, 0.0, 0.0], 5)} == {"b", "d"}


def test_an_episode_about_an_allergy_is_archived_too_the_fact_itself_never_expires():
    repo, index = InMemoryRepository(), LocalVectorIndex()
    store(repo, index, "u", episode("allergy", sections=[Section.ALLERGIES]))
    assert [c.fact_id for c in run(repo, index, T0 + timedelta(days=DAYS)).changes] == ["allergy"]
