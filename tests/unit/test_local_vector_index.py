"""The local vector index: user isolation, persistence across restarts, complete erasure."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.models import Episode
from health_ltm.domain.sections import Section

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def episode(n: int, text: str | None = None) -> Episode:
    return Episode(
        id=f"ep{n}",
        session_id="s1",
        fragment_id=f"f{n}",
        text=text or f"episode {n}",
        sections=[Section.ALLERGIES],
        at=T0 + timedelta(minutes=n),
    )


vectors = st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=3).filter(
    lambda v: sum(x * x for x in v) > 1e-6
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mine=st.lists(vectors, min_size=0, max_size=6),
    theirs=st.lists(vectors, min_size=1, max_size=6),
    query=vectors,
)
def test_a_user_never_sees_another_users_episodes(mine, theirs, query):
    # Given two users with interleaved episodes, the other user's vectors possibly identical
    index = LocalVectorIndex()
    for n, vector in enumerate(mine):
        index.index("alice", episode(n, "alice"), vector)
    for n, vector in enumerate(theirs):
        index.index("bob", episode(100 + n, "bob"), vector)

    # When alice searches with any vector, even one of bob's
    for probe in (query, theirs[0]):
        hits = index.search("alice", probe, k=20)
        # Then only her own episodes come back, best first
        assert {h.text for h in hits} <= {"alice"}
        assert len(hits) == len(mine)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert index.count_user("alice") == len(mine) and index.count_user("bob") == len(theirs)


def test_search_ranks_by_cosine_and_keeps_k():
    index = LocalVectorIndex()
    index.index("u", episode(1), [1.0, 0.0, 0.0])
    index.index("u", episode(2), [0.0, 1.0, 0.0])
    index.index("u", episode(3), [1.0, 1.0, 0.0])

    hits = index.search("u", [2.0, 0.0, 0.0], k=2)

    assert [h.episode_id for h in hits] == ["ep1", "ep3"]
    assert hits[0].score == pytest.approx(1.0) and hits[1].score == pytest.approx(0.707107, abs=1e-6)
    assert hits[0].text == "episode 1" and hits[0].at == episode(1).at
    assert index.search("u", [1.0, 0.0, 0.0], k=0) == []


def test_ids_are_made_by_the_index_and_a_reindexed_episode_is_one_hit():
    index = LocalVectorIndex()
    first = index.index("u", episode(1), [1.0, 0.0, 0.0])
    second = index.index("u", episode(1), [1.0, 0.0, 0.0])

    assert first != second and len(first) == 32
    assert index.count_user("u") == 2
    assert [h.episode_id for h in index.search("u", [1.0, 0.0, 0.0], k=5)] == ["ep1"]


def test_persists_across_instances(tmp_path):
    LocalVectorIndex(tmp_path).index("u", episode(1), [1.0, 0.0, 0.0])
    LocalVectorIndex(tmp_path).index("u", episode(2), [0.0, 1.0, 0.0])

    restarted = LocalVectorIndex(tmp_path)

    assert restarted.count_user("u") == 2
    assert [h.episode_id for h in restarted.search("u", [0.0, 1.0, 0.0], k=1)] == ["ep2"]


def test_files_are_named_by_a_hash_not_the_user_id(tmp_path):
    LocalVectorIndex(tmp_path).index("user@example.com", episode(1), [1.0, 0.0, 0.0])
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1 and "example" not in names[0] and names[0].endswith(".jsonl")


def test_delete_user_leaves_nothing_of_the_user_and_everything_of_the_other(tmp_path):
    index = LocalVectorIndex(tmp_path)
    for n in range(3):
        index.index("alice", episode(n, "alice"), [1.0, float(n), 0.0])
        index.index("bob", episode(10 + n, "bob"), [1.0, float(n), 0.0])

    assert index.delete_user("alice") == 3

    restarted = LocalVectorIndex(tmp_path)
    for store in (index, restarted):
        assert store.count_user("alice") == 0 and store.search("alice", [1.0, 0.0, 0.0], k=10) == []
        assert store.count_user("bob") == 3
        assert {h.text for h in store.search("bob", [1.0, 0.0, 0.0], k=10)} == {"bob"}
    assert len(list(tmp_path.iterdir())) == 1  # only bob's file is left
    assert index.delete_user("alice") == 0


def test_a_write_by_another_process_is_seen(tmp_path):
    reader = LocalVectorIndex(tmp_path)
    assert reader.count_user("u") == 0
    LocalVectorIndex(tmp_path).index("u", episode(1), [1.0, 0.0, 0.0])  # another "process"
    assert reader.count_user("u") == 1


def test_a_torn_last_line_is_dropped_and_the_file_compacted(tmp_path):
    LocalVectorIndex(tmp_path).index("u", episode(1), [1.0, 0.0, 0.0])
    [path] = tmp_path.iterdir()
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "half-writ')  # a crash mid-append

    index = LocalVectorIndex(tmp_path)

    assert index.count_user("u") == 1
    assert path.read_text(encoding="utf-8").count("\n") == 1 and "half-writ" not in path.read_text()
    index.index("u", episode(2), [0.0, 1.0, 0.0])
    assert LocalVectorIndex(tmp_path).count_user("u") == 2


def test_memory_only_without_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    index = LocalVectorIndex(None)
    index.index("u", episode(1), [1.0, 0.0, 0.0])
    assert index.count_user("u") == 1 and list(tmp_path.iterdir()) == []


def test_wrong_or_empty_vectors_are_refused():
    index = LocalVectorIndex(dimensions=3)
    with pytest.raises(ValueError):
        index.index("u", episode(1), [1.0, 0.0])
    with pytest.raises(ValueError):
        index.index("u", episode(1), [0.0, 0.0, 0.0])


def test_vectors_of_another_embedder_are_skipped_not_fatal():
    index = LocalVectorIndex()
    index.index("u", episode(1), [1.0, 0.0, 0.0])
    index.index("u", episode(2), [1.0, 0.0, 0.0, 0.0])
    assert [h.episode_id for h in index.search("u", [1.0, 0.0, 0.0, 0.0], k=5)] == ["ep2"]


def test_concurrent_writers_lose_nothing(tmp_path):
    index = LocalVectorIndex(tmp_path)

    def write(worker: int) -> None:
        for n in range(25):
            index.index(f"user{worker % 2}", episode(worker * 100 + n), [1.0, float(n), float(worker)])

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    restarted = LocalVectorIndex(tmp_path)
    assert restarted.count_user("user0") == 50 and restarted.count_user("user1") == 50
