"""The local index's hybrid ranking (cosine + BM25 over the user's own episodes), added for the
LoCoMo level of `make eval`: the query text is optional, the file format is unchanged."""

from __future__ import annotations

from datetime import UTC, datetime

from health_ltm.adapters.local_vector_index import LocalVectorIndex
from health_ltm.domain.hashing_embedder import HashingEmbedder, lexical_terms
from health_ltm.domain.models import Episode

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TEXTS = [
    "Caroline: I went to a support group meeting yesterday, it was powerful",
    "Melanie: I painted a sunrise over the lake last summer",
    "Caroline: my grandmother gave me a necklace from Sweden",
    "Melanie: the kids and I went camping near the mountains",
]


def episode(n: int, text: str) -> Episode:
    return Episode(id=f"ep{n}", session_id="s1", fragment_id=f"f{n}", text=text, at=T0)


def filled(path=None) -> tuple[LocalVectorIndex, HashingEmbedder]:
    embedder = HashingEmbedder()
    index = LocalVectorIndex(path)
    for n, text in enumerate(TEXTS):
        index.index("u", episode(n, text), embedder.embed([text])[0])
    return index, embedder


def test_lexical_terms_are_words_and_cjk_bigrams():
    assert lexical_terms("Ёлка, Tree 42!") == ["елка", "tree", "42"]
    assert lexical_terms("我对青霉素过敏") == ["我对", "对青", "青霉", "霉素", "素过", "过敏"]
    assert lexical_terms("药") == ["药"]


def test_without_text_the_ranking_is_the_plain_cosine():
    index, embedder = filled()
    query = "Where is the necklace from?"
    vector = embedder.embed([query])[0]
    plain = index.search("u", vector, k=4)
    assert [h.score for h in plain] == sorted((h.score for h in plain), reverse=True)
    assert index.search("u", vector, k=4, text=None) == plain


def test_the_query_text_brings_the_rare_word_match_first():
    index, embedder = filled()
    query = "Which country is Caroline's necklace from?"
    hits = index.search("u", embedder.embed([query])[0], k=2, text=query)
    assert hits[0].episode_id == "ep2"
    assert 0 < hits[0].score <= 1.0


def test_a_user_only_matches_their_own_words(tmp_path):
    index, embedder = filled(tmp_path)
    other = "Sweden necklace grandmother"
    index.index("v", episode(9, other), embedder.embed([other])[0])
    hits = index.search("u", embedder.embed([other])[0], k=10, text=other)
    assert {h.episode_id for h in hits} == {"ep0", "ep1", "ep2", "ep3"}
    assert [h.episode_id for h in index.search("v", embedder.embed([other])[0], k=10, text=other)] == ["ep9"]


def test_the_word_statistics_follow_appends_deletes_and_other_processes(tmp_path):
    index, embedder = filled(tmp_path)
    query = "camping in the mountains"
    vector = embedder.embed([query])[0]
    assert index.search("u", vector, k=1, text=query)[0].episode_id == "ep3"
    index.index("u", episode(7, "Melanie: camping mountains camping again"), embedder.embed(["camping"])[0])
    assert index.search("u", vector, k=1, text=query)[0].episode_id in {"ep3", "ep7"}
    assert index.delete_user("u") == 5
    assert index.search("u", vector, k=3, text=query) == []
    LocalVectorIndex(tmp_path).index("u", episode(8, "mountains and camping"), embedder.embed(["x y"])[0])
    assert [h.episode_id for h in index.search("u", vector, k=3, text=query)] == ["ep8"]


def test_an_index_written_before_the_change_still_loads_and_searches(tmp_path):
    filled(tmp_path)  # the JSON-lines files carry text and vector as before: nothing new is stored
    reopened = LocalVectorIndex(tmp_path)
    query = "sunrise painting"
    embedder = HashingEmbedder()
    assert reopened.search("u", embedder.embed([query])[0], k=1, text=query)[0].episode_id == "ep1"


def test_deleting_documents_rebuilds_the_word_statistics(tmp_path):
    index, embedder = filled(tmp_path)
    query = "necklace from Sweden"
    vector = embedder.embed([query])[0]
    first = index.search("u", vector, k=1, text=query)[0]
    assert first.episode_id == "ep2"
    doc_ids = [d.doc_id for d in index._load("u") if d.episode_id == "ep2"]
    assert index.delete_documents("u", doc_ids) == 1
    hits = index.search("u", vector, k=4, text=query)
    assert "ep2" not in {h.episode_id for h in hits} and len(hits) == 3
