"""The `dialogues` level (whole dialogues through the whole write path) and MTS-Dialog's "what is
stored" figures: they run on a small subset, report what they promise, and count a wrong
attribution when one is stored. Scripted extractors control what is said to be stored, so these
tests do not depend on the rules' current quality."""

from __future__ import annotations

import csv

import pytest
from bench.eval import __main__ as eval_main
from bench.eval import dialogues, mts_dialog, report
from bench.eval.common import DatasetMissing, datasets_dir, offline_config, quiet

from health_ltm.domain.models import Assertion, AssertionKind, Experiencer
from health_ltm.domain.sections import Section


@pytest.fixture
def offline():
    return offline_config()


class Scripted:
    """An extractor that says what a (possibly wrong) model would."""

    name = "scripted"

    def __init__(self, *assertions: Assertion) -> None:
        self.assertions = list(assertions)

    def extract(self, messages, sections):
        return list(self.assertions)


class Every:
    """A classifier that selects every section, so the scripted extractor is always asked."""

    def classify(self, messages):
        return list(Section)


def _run(offline, dialogue, *assertions):
    with quiet():
        stored = dialogues.run_write_path(
            offline,
            dialogue["fragments"],
            dialogue.get("days"),
            extractor=Scripted(*assertions),
            classifier=Every(),
        )
    return dialogues.evaluate(dialogue, stored)


def _dialogue(text, expected=(), forbidden=(), sections=None, assistant=None):
    messages = ([{"role": "assistant", "text": assistant}] if assistant else []) + [
        {"role": "user", "text": text}
    ]
    return {
        "id": "t",
        "lang": "en",
        "split": "dev",
        "tags": [],
        "fragments": [messages],
        "expected": list(expected),
        "expected_sections": sections or {},
        "forbidden": list(forbidden),
    }


def test_the_level_runs_on_a_subset_and_reports_its_keys(offline):
    with quiet():
        result = dialogues.run(offline, limit=6)
    summary = result["summary"]
    assert summary["dialogues"] == 6 and summary["model_errors"] == 0
    for key in (
        "recall_shown",
        "recall_stored",
        "fact_recall_shown",
        "fact_recall_stored",
        "section_status_recall",
        "precision_shown",
        "precision_stored",
        "unexpected_stored_facts",
        "relative_as_self",
        "affirmed_as_absent",
        "denied_as_present",
        "retracted_stored",
        "dialogues_fully_right",
    ):
        assert key in summary, key
    assert summary["recall_stored"] is None or summary["recall_shown"] <= summary["recall_stored"]
    assert set(result["wrong_attributions"]) == set(dialogues.WRONG_ATTRIBUTIONS)
    blind = {f"blind{n}_{half}" for n in ("", 2, 3, 4) for half in ("tune", "held")}
    assert set(result["per_split"]) <= {"dev", "heldout"} | blind
    assert result["per_language"] and result["per_tag"]


def test_a_relatives_condition_stored_as_the_users_own_is_counted(offline):
    dialogue = _dialogue(
        "My grandmother had breast cancer.",
        expected=[
            {
                "section": "family_history",
                "name": "breast cancer",
                "status": "present",
                "relative": "grandmother",
            }
        ],
    )
    wrong = Assertion(
        section="chronic_conditions", name="breast cancer", status="present", evidence="had breast cancer"
    )
    result = _run(offline, dialogue, wrong)
    assert [w["category"] for w in result["wrong"]] == ["relative_as_self"]
    assert result["shown"] == 0 and result["unexpected"] == [
        "chronic_conditions/breast_cancer/present/active"
    ]
    right = Assertion(
        section="family_history",
        name="breast cancer",
        status="present",
        attributes={"relative": "grandmother"},
        experiencer=Experiencer.RELATIVE,
        evidence="My grandmother had breast cancer",
    )
    result = _run(offline, dialogue, right)
    assert result["wrong"] == [] and result["shown"] == result["expected_facts"] == 1
    assert result["fully_right"]


def test_another_persons_allergy_a_retraction_and_polarity_errors_are_counted(offline):
    coworker = _dialogue(
        "My coworker is allergic to latex.", forbidden=[{"name": "latex", "why": "other_person"}]
    )
    latex = Assertion(section="allergies", name="latex", status="present", evidence="allergic to latex")
    assert [w["category"] for w in _run(offline, coworker, latex)["wrong"]] == ["relative_as_self"]

    retracted = _dialogue(
        "I said I'm allergic to codeine — scratch that, it just made me sick.",
        forbidden=[{"section": "allergies", "name": "codeine", "why": "retracted"}],
    )
    codeine = Assertion(section="allergies", name="codeine", status="present", evidence="allergic to codeine")
    assert [w["category"] for w in _run(offline, retracted, codeine)["wrong"]] == ["retracted_stored"]

    affirmed = _dialogue(
        "Nothing helps my back pain.",
        expected=[{"section": "symptoms", "name": "back pain", "status": "present"}],
    )
    absent = Assertion(section="symptoms", name="back pain", status="absent", evidence="back pain")
    result = _run(offline, affirmed, absent)
    assert [w["category"] for w in result["wrong"]] == ["affirmed_as_absent"]
    assert result["entity_status_wrong"] == 1

    denied = _dialogue("no", assistant="Any allergies?", sections={"allergies": "confirmed_absent"})
    peanut = Assertion(section="allergies", name="peanut", status="present", evidence="no")
    assert [w["category"] for w in _run(offline, denied, peanut)["wrong"]] == ["denied_as_present"]
    empty = Assertion(section="allergies", kind=AssertionKind.SECTION_ABSENT, evidence="no")
    result = _run(offline, denied, empty)
    assert result["sections"] == [1, 1] and result["wrong"] == []


def test_labels_match_through_the_write_paths_normaliser():
    assert dialogues.label_keys({"section": "medications", "name": "Zoloft"}) == dialogues.label_keys(
        {"section": "medications", "name": "sertraline"}
    )
    keys = dialogues.label_keys(
        {"section": "family_history", "name": "heart disease", "relative": ["father", "other"]}
    )
    assert {k.split(":")[0] for k in keys} == {"father", "other"}
    assert dialogues.label_keys({"section": "demographics", "slot": "pregnancy"}) == {"pregnancy"}


def test_the_level_is_registered_and_rendered(offline):
    assert eval_main.LEVELS["dialogues"] is dialogues
    with quiet():
        result = dialogues.run(offline, limit=3)
    document = {
        "date": "2026-03-02",
        "git": {},
        "total_s": 1.0,
        "machine": {"cpus": 2},
        "committed_configuration": "offline",
        "configurations": {"offline": None, "model": report.NOT_CONFIGURED},
        "levels": {"dialogues": {"offline": result, "model": report.NOT_CONFIGURED}},
    }
    text = report.markdown(document)
    assert "What whole dialogues leave in memory" in text and "relative / other person stored as self" in text
    assert "Per split" in text and "Per tag" in text


@pytest.fixture
def mts_stand_in(tmp_path, monkeypatch):
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
            "section_header": "FAM/SOCHX",
            "section_text": "Mother with diabetes.",
            "dialogue": "Doctor: Any illnesses in the family?\nPatient: My mother has diabetes.",
        },
    ]
    for name in mts_dialog.FILES:
        with (mts / name).open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    monkeypatch.setenv("LTM_DATASETS", str(tmp_path))
    return tmp_path


def test_mts_reports_what_is_stored_per_header_and_file(offline, mts_stand_in):
    with quiet():
        result = mts_dialog.run(offline)
    summary = result["summary"]
    assert summary["mapped"] == 4
    for key in (
        "recall",
        "note_section_ends_shown",
        "note_section_ends_stored",
        "no_allergies_note_ends_confirmed_absent",
        "relative_as_self_candidates",
        "absent_but_note_present_candidates",
    ):
        assert key in summary, key
    allergy = result["stored_per_group"]["allergies (ALLERGY)"]
    assert allergy["train"]["n"] == allergy["validation"]["n"] == 1 and allergy["all"]["n"] == 2
    assert result["stored_per_header"]["ALLERGY"]["all"]["n"] == 2
    assert summary["no_allergies_note_ends_confirmed_absent"].endswith("/2")


def test_mts_proxy_flags_a_self_fact_said_about_a_relative(offline, mts_stand_in, monkeypatch):
    wrong = Assertion(
        section="chronic_conditions", name="diabetes", status="present", evidence="mother has diabetes"
    )
    monkeypatch.setattr(offline_config().__class__, "extractor", lambda self, clock=None: Scripted(wrong))
    with quiet():
        result = mts_dialog.run(offline)
    candidates = result["relative_as_self_candidates"]
    assert candidates and all("mother" in c["turn"] for c in candidates)
    assert result["summary"]["relative_as_self_candidates"].split("/")[0] != "0"


def test_mts_what_is_stored_on_the_real_dataset(offline):
    try:
        mts_dialog.load(limit=1)
    except DatasetMissing:
        pytest.skip(f"MTS-Dialog not found under {datasets_dir()} (../shared/datasets or LTM_DATASETS)")
    with quiet():
        result = mts_dialog.run(offline, limit=25)
    summary = result["summary"]
    assert summary["dialogues"] == 25 and summary["model_errors"] == 0
    assert 0 <= summary["note_section_ends_shown"] <= summary["note_section_ends_stored"] <= 1


def test_the_model_column_runs_the_same_write_path_against_the_fake():
    from bench.eval.common import Config

    from health_ltm.settings import Settings
    from tests.fakes.fake_openai import FakeOpenAI

    with FakeOpenAI(rules=True) as fake:
        config = Config("model", Settings(OPENAI_BASE_URL=fake.base_url, OPENAI_API_KEY="sk-fake"))
        with quiet():
            result = dialogues.run(config, limit=3)
        assert fake.chat_requests, "the model adapters were not called"
    assert result["summary"]["dialogues"] == 3 and result["summary"]["model_errors"] == 0
    dead = Config(
        "model",
        Settings(
            OPENAI_BASE_URL="http://127.0.0.1:9/v1",
            OPENAI_API_KEY="sk-fake",
            LTM_LLM_TIMEOUT_S=0.5,
            LTM_LLM_MAX_RETRIES=0,
        ),
    )
    with quiet():
        result = dialogues.run(dead, limit=2)
    assert result["summary"]["model_errors"] == 2  # counted, not fatal
