"""The labelled evaluation data (bench/eval/data/): size, coverage, shape, and honesty."""

from __future__ import annotations

from collections import Counter

import pytest
from bench.eval import questions
from bench.eval.common import load_jsonl
from bench.eval.extraction import expected_key

from health_ltm.domain.models import AssertionKind
from health_ltm.domain.sections import ALLOWED_STATUSES, FactStatus, Section

SECTIONS = {s.value for s in Section}


@pytest.fixture(scope="module")
def question_rows():
    return load_jsonl("questions.jsonl")


@pytest.fixture(scope="module")
def fragment_rows():
    return load_jsonl("fragments.jsonl")


@pytest.fixture(scope="module")
def story_rows():
    return load_jsonl("stories.jsonl")


@pytest.fixture(scope="module")
def edge_rows():
    return load_jsonl("edge_cases.jsonl")


def test_questions_are_many_multilingual_and_multi_topic(question_rows):
    assert len(question_rows) >= 150
    languages = Counter(r["lang"] for r in question_rows)
    assert languages["ru"] >= 50 and languages["en"] >= 50 and languages["zh"] >= 10
    assert sum(len(r["intents"]) > 1 for r in question_rows) >= 30
    assert {r["split"] for r in question_rows} == {"dev", "heldout"}
    assert len({r["id"] for r in question_rows}) == len(question_rows)
    for row in question_rows:
        assert set(row["sections"]) <= SECTIONS, row["id"]
        assert row["sections"] == [s.value for s in Section if s.value in row["sections"]], row["id"]


def test_questions_are_new_not_copied_from_exemplars_or_unit_tests(question_rows):
    assert questions.overlap(question_rows) == {"with_exemplars": 0, "with_unit_tests": 0}


def test_fragments_cover_what_the_issue_asks_for(fragment_rows):
    assert len(fragment_rows) >= 80
    tags = Counter(t for r in fragment_rows for t in r["tags"])
    for needed in ("negation", "absence", "unsure", "correction", "assistant_only", "garbage", "injection"):
        assert tags[needed] >= 3, needed
    assert Counter(r["lang"] for r in fragment_rows)["zh"] >= 5


def test_every_expected_event_is_well_formed_and_gets_a_key(fragment_rows):
    for row in fragment_rows:
        assert row["messages"] and all(m["role"] in ("user", "assistant") for m in row["messages"])
        for event in row["expected"]:
            section = Section(event["section"])
            kind = AssertionKind(event.get("kind", "fact"))
            if kind is AssertionKind.FACT and "status" in event:
                assert FactStatus(event["status"]) in ALLOWED_STATUSES[section], row["id"]
            assert expected_key(event), row["id"]
        if set(row["tags"]) & {"assistant_only", "garbage", "injection"}:
            assert row["expected"] == [], row["id"]


def test_stories_have_final_state_history_and_questions(story_rows):
    assert len(story_rows) >= 20
    assert sum(len(s["sessions"]) > 1 for s in story_rows) >= 20
    assert sum(bool(s["history"]) for s in story_rows) >= 10
    assert all(s["questions"] for s in story_rows)
    for story in story_rows:
        for question in story["questions"]:
            assert set(question["forbidden_sections"]) <= SECTIONS
            for ref in question["required"] + question["excluded"]:
                assert expected_key({**ref, "kind": "fact"})


def test_edge_cases_cover_the_issue_list(edge_rows):
    text = " ".join(s["title"] for s in edge_rows).casefold()
    for needed in (
        "'мне' / '30' / 'лет'",
        "вопрос по-английски",
        "'запомни:'",
        "'remember:'",
        "старение",
        "переезд",
        "диеты",
        "десять мусорных",
        "бренду, потом по мнн",
    ):
        assert needed.casefold() in text, needed
    checks = [step for s in edge_rows for step in s["steps"] if "check" in step]
    assert len(checks) >= 54
