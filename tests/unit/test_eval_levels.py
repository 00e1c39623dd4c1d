"""Every evaluation level runs on a tiny subset and reports the numbers it promises.

The full run is `make eval`; these only show the code works. The external datasets are stood in
for by a few synthetic rows in a temporary LTM_DATASETS, so the tests need nothing outside the
repository and never depend on the real data's numbers.
"""

from __future__ import annotations

import csv
import json

import pytest
from bench.eval import (
    edge_cases,
    end_to_end,
    extraction,
    locomo,
    mts_dialog,
    questions,
    retrieval,
    transitions,
)
from bench.eval.common import DatasetMissing, Tally, offline_config, prf, quiet

from health_ltm.domain.sections import Section


@pytest.fixture
def offline():
    return offline_config()


@pytest.fixture
def datasets(tmp_path, monkeypatch):
    """A tiny stand-in for ../shared/datasets (same layout, three rows each)."""
    mts = tmp_path / "mts-dialog"
    mts.mkdir()
    rows = [
        {
            "ID": "0",
            "section_header": "ALLERGY",
            "section_text": "No known drug allergies.",
            "dialogue": "Doctor: Any allergies?\nPatient: I have no allergies.",
        },
        {
            "ID": "1",
            "section_header": "MEDICATIONS",
            "section_text": "Lisinopril 10 mg.",
            "dialogue": "Doctor: What do you take?\nPatient: I take lisinopril 10 mg every morning.",
        },
        {
            "ID": "2",
            "section_header": "PLAN",
            "section_text": "Follow up.",
            "dialogue": "Doctor: See you.\nPatient: Bye.",
        },
    ]
    for name in mts_dialog.FILES:
        with (mts / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    locomo_dir = tmp_path / "locomo"
    locomo_dir.mkdir()
    conversation = {
        "sample_id": "c0",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy named Biscuit last week."},
                {"speaker": "Bob", "dia_id": "D1:2", "text": "Nice! I went hiking in the Alps in June."},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "My sister moved to Lisbon for work."},
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ann's puppy?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where did Bob go hiking?",
                "answer": "Alps",
                "evidence": ["D1:2; D1:3"],
                "category": 4,
            },
            {"question": "Malformed", "answer": "x", "evidence": ["D9:99"], "category": 1},
        ],
    }
    (locomo_dir / "locomo10.json").write_text(json.dumps([conversation]), encoding="utf-8")
    monkeypatch.setenv("LTM_DATASETS", str(tmp_path))
    return tmp_path


def test_counting_helpers():
    assert prf(3, 1, 2) == {"precision": 0.75, "recall": 0.6, "f1": 0.6667, "tp": 3, "fp": 1, "fn": 2}
    tally = Tally()
    tally.add("a", {1, 2}, {2, 3})
    tally.add("b", set(), {4})
    assert tally.total()["tp"] == 1 and tally.total()["fn"] == 2
    assert tally.table(["a"])["a"]["precision"] == 0.5


def test_questions_level(offline):
    result = questions.run(offline, limit=6)
    summary = result["summary"]
    assert summary["questions"] == 6
    assert 0 <= summary["precision"] <= 1 and 0 <= summary["recall"] <= 1
    per_section = result["per_section"]
    assert list(per_section) == [s.value for s in Section]  # every section, in declaration order
    micro = prf(*(sum(row[count] for row in per_section.values()) for count in ("tp", "fp", "fn")))
    assert (micro["precision"], micro["recall"]) == (summary["precision"], summary["recall"])


def test_transitions_level_runs_every_case_without_crashing():
    with quiet():
        result = transitions.run()
    assert result["summary"]["cases"] >= 40
    assert not [f for f in result["failures"] if any(p.startswith("raised") for p in f["problems"])]
    # every category of the shared case table is reported (tests/unit/test_transitions.py checks
    # the table covers every kind of transition)
    assert set(result["per_category"]) == {case["category"] for case in transitions.load_cases()}


def test_extraction_level_matches_by_normalised_key(offline):
    with quiet():
        result = extraction.run(offline, limit=4)
    summary = result["summary"]
    assert summary["fragments"] == 4 and summary["model_errors"] == 0
    assert summary["hallucinated_assertions"] == 0  # the rule extractor quotes the user by construction
    # fragment 1 is "Пью Конкор 5 мг по утрам": the brand meets its INN key
    assert result["per_section"]["medications"]["tp"] >= 1


def test_an_assertion_quoting_someone_else_counts_as_hallucinated(offline):
    from health_ltm.domain.models import Assertion

    class Inventing:
        name = "inventing"

        def extract(self, messages, sections):
            return [
                Assertion(
                    section="allergies",
                    name="пенициллин",
                    status="present",
                    evidence="аллергия на пенициллин",
                )
            ]

    runner = extraction.Extraction(offline)
    runner.extractor = Inventing()
    fragment = {
        "messages": [
            {"role": "user", "text": "У меня болит голова"},
            {"role": "assistant", "text": "У вас аллергия на пенициллин?"},
        ]
    }
    with quiet():
        out = runner.run_fragment(fragment)
    assert len(out["hallucinated"]) == 1 and out["candidates"] == []
    assert out["rejected"]["evidence_not_in_user_text"] == 1


def test_retrieval_level_builds_stories_and_checks_contexts(offline):
    with quiet():
        result = retrieval.run(offline, limit=2)
    summary = result["summary"]
    assert summary["stories"] == 2 and summary["questions"] >= 2
    assert summary["questions_with_irrelevant_section_in_context"] == 0


def test_edge_cases_level_scores_checks(offline):
    with quiet():
        result = edge_cases.run(offline, limit=3)
    assert result["summary"]["checks"] >= 5
    assert result["summary"]["score"] == f"{result['summary']['passed']}/{result['summary']['checks']}"


def test_mts_dialog_level_on_a_stand_in(offline, datasets):
    messages = mts_dialog.parse_dialogue(
        "Doctor: Any pain?\nPatient: Yes, my knee.\nstill hurts\nDoctor: OK."
    )
    assert [m.role.value for m in messages] == ["assistant", "user", "assistant"]
    assert messages[1].text == "Yes, my knee. still hurts"
    with quiet():
        result = mts_dialog.run(offline)
    summary = result["summary"]
    assert summary["dialogues"] == 6 and summary["mapped"] == 4  # two files, three rows each
    assert result["unmapped_headers"] == {"PLAN": 2}
    assert result["per_group"]["medications (MEDICATIONS)"]["recall"] == 1.0


def test_locomo_level_on_a_stand_in(offline, datasets):
    with quiet():
        result = locomo.run(offline)
    summary = result["summary"]
    assert summary["questions"] == 2  # the malformed evidence id is left out
    assert result["recall"]["bm25"]["R@1"] == pytest.approx(0.75)  # puppy at 1; Alps at 1 of {D1:2, D1:3}
    assert result["recall"]["hybrid"]["R@5"] == 1.0


def test_bm25_floor_ranks_the_rare_word_first():
    bm25 = locomo.BM25(["the cat sat", "the dog sat on the mat", "a zebra"])
    assert bm25.top("zebra", 1) == [2]
    assert bm25.top("the dog", 1) == [1]
    assert locomo.evidence({"evidence": ["D1:2; D3:4", "D5:6 D7:8"]}) == ["D1:2", "D3:4", "D5:6", "D7:8"]


def test_a_missing_dataset_is_a_clear_skip(offline, tmp_path, monkeypatch):
    monkeypatch.setenv("LTM_DATASETS", str(tmp_path / "nowhere"))
    with pytest.raises(DatasetMissing, match="LTM_DATASETS"):
        locomo.run(offline)
    with pytest.raises(DatasetMissing):
        mts_dialog.run(offline)


@pytest.mark.slow
@pytest.mark.xdist_group("ltm_local_stack")
def test_end_to_end_level_on_the_local_stack(offline):
    with quiet():
        result = end_to_end.run(offline, limit=1)
    summary = result["summary"]
    assert summary["stories"] == 1
    assert summary["fragments_applied"] == "1/1"
    assert summary["facts_stored"].split("/")[0] == summary["facts_stored"].split("/")[1]
