"""The learned section gate of the read path (read/gate.py, decision log 43): what it may and may
never do, over every labelled question and over arbitrary inputs, and that the shipped weights
are what the labels and the class map train."""

from __future__ import annotations

import hashlib

import pytest
from bench.eval.common import DATA_DIR, load_jsonl
from bench.eval.questions import NEEDS_FILE
from hypothesis import given
from hypothesis import strategies as st

from health_ltm.domain.sections import Section
from health_ltm.read.classify import QueryClassifier, load_query_classes
from health_ltm.read.gate import (
    SAFETY_SECTIONS,
    SectionGate,
    SectionGateData,
    feature_values,
    gate_features,
    shipped_gate,
)


@pytest.fixture(scope="module")
def gate() -> SectionGate:
    shipped = shipped_gate()
    assert shipped is not None
    return shipped


@pytest.fixture(scope="module")
def classifiers() -> tuple[QueryClassifier, QueryClassifier]:
    return QueryClassifier(), QueryClassifier(gated=False)


def _labelled_questions() -> list[tuple[str, list[str]]]:
    rows = load_jsonl(NEEDS_FILE) + load_jsonl("questions.jsonl")
    return [(row["query"], row.get("recent", [])) for row in rows]


def test_the_shipped_gate_was_trained_on_the_current_labels_and_class_map(gate):
    trained_on = gate.data.trained_on
    assert trained_on.labels_sha256 == hashlib.sha256((DATA_DIR / NEEDS_FILE).read_bytes()).hexdigest(), (
        "the needs labels changed: make train-gate"
    )
    assert trained_on.query_classes_version == load_query_classes().version, (
        "the class map changed: make train-gate"
    )
    assert set(trained_on.held_apart).isdisjoint(trained_on.splits)


def test_the_trainer_reproduces_the_shipped_file_exactly():
    from bench.eval import train_gate

    assert train_gate.main(["--check"]) == 0, "the shipped gate is stale: make train-gate"


def test_over_every_labelled_question_the_gate_only_removes_and_never_a_safety_section(classifiers):
    gated, ungated = classifiers
    specs = load_query_classes().classes
    removed = 0
    for query, recent in _labelled_questions():
        before, after = ungated.classify(query, recent), gated.classify(query, recent)
        chosen, kept = set(before.sections), set(after.sections)
        assert kept <= chosen, query
        assert chosen & SAFETY_SECTIONS <= kept, query
        floor = {section for name in before.classes for section in specs[name].kept_by_gate}
        assert chosen & floor <= kept, query
        if "fallback" in before.method:
            assert kept == chosen, query
        assert set(after.current_state) <= kept, query
        assert ("gate" in after.method) == (kept != chosen), query
        removed += len(chosen - kept)
    assert removed > 0  # the gate does something on real questions


@pytest.mark.parametrize(
    ("query", "left_out"),
    [
        ("my asthma is acting up since it got cold, should I use my inhaler more?", Section.SYMPTOMS),
        ("拔完智齿 脸肿了 咋办", Section.SYMPTOMS),
        ("after my C-section when can I start running?", Section.DEMOGRAPHICS),
    ],
)
def test_a_section_the_words_make_unneeded_is_left_out(classifiers, query, left_out):
    gated, ungated = classifiers
    assert left_out in ungated.classify(query).sections
    result = gated.classify(query)
    assert left_out not in result.sections and "gate" in result.method
    assert set(ungated.classify(query).sections) & SAFETY_SECTIONS <= set(result.sections)


def test_a_drug_question_keeps_the_pregnancy_it_chose(classifiers):
    gated, _ = classifiers
    assert Section.DEMOGRAPHICS in gated.classify("can I take ibuprofen for a headache?").sections


_FEATURES = st.frozensets(
    st.sampled_from(["bias", "w:ice", "w:heat", "cls:symptom_question", "b:智齿", "w:zzz"])
)


@given(
    chosen=st.sets(st.sampled_from(list(Section))),
    features=_FEATURES,
    kept=st.sets(st.sampled_from(list(Section))),
)
def test_the_gate_keeps_a_subset_with_every_safety_and_kept_section(chosen, features, kept):
    gate = shipped_gate()
    assert gate is not None
    result = gate.apply(chosen, features, kept)
    assert result <= chosen
    assert chosen & (SAFETY_SECTIONS | kept) <= result


def test_a_gate_may_not_model_a_safety_section_or_mismatch_its_rows(gate):
    data = gate.data.model_dump(by_alias=True)
    with pytest.raises(ValueError, match="safety"):
        SectionGateData.model_validate({**data, "sections": [*data["sections"][:-1], "allergies"]})
    with pytest.raises(ValueError, match="one weight per section"):
        SectionGateData.model_validate({**data, "weights": {"bias": [0.0]}})


def test_the_features_see_the_decision_and_the_words_in_three_scripts():
    features = gate_features(
        "Можно ли ибупрофен? 我头疼 headaches",
        ["medication_question", "symptom_question"],
        [Section.MEDICATIONS],
        "lexicon+recent",
        history=True,
        has_recent=True,
    )
    assert {"rule:medications", "cls:medication_question", "m:recent", "hist", "has_recent"} <= features
    assert {"pair:medication_question+symptom_question", "w:ибупро", "w:headac", "b:头疼"} <= features


@given(words=st.lists(st.text("abcdefgh", min_size=1, max_size=6), min_size=1, max_size=60, unique=True))
def test_the_words_of_a_long_story_weigh_together_what_one_word_weighs_alone(words):
    features = {"bias", "cls:symptom_question", *(f"w:{w}" for w in words)}
    values = feature_values(features, scaled=True)
    assert values["bias"] == values["cls:symptom_question"] == 1.0
    text = [v for f, v in values.items() if f.startswith("w:")]
    assert abs(sum(v * v for v in text) - 1.0) < 1e-9  # unit length, however many words
    assert set(feature_values(features, scaled=False).values()) == {1.0}
