"""General questions get the compact profile summary, but only while it describes the facts."""

from __future__ import annotations

from health_ltm.domain.ids import new_ulid
from health_ltm.maintenance.engine import run_user
from health_ltm.read.classify import QueryClassifier
from health_ltm.read.context import build_context
from tests.unit.test_write_path import Memory

OVERVIEW = "Что ты знаешь обо мне?"
CLASSIFIER = QueryClassifier()


def test_a_general_question_is_answered_with_the_current_summary():
    memory = Memory()
    memory.say("У меня аллергия на арахис. Пью Энап 5 мг по утрам от давления. Мне 34 года.")
    run_user(memory.repo, "u", memory.clock, new_ulid)  # the nightly job writes the summary
    classification = CLASSIFIER.classify(OVERVIEW)
    assert classification.prefers_summary
    ctx = build_context(memory.repo, classification, "u", OVERVIEW, 400)
    assert "[SELF-REPORTED by the user · profile summary]" in ctx.prompt
    assert "[SELF-REPORTED by the user · Allergies]" not in ctx.prompt
    assert "арахис" in ctx.prompt or "peanut" in ctx.prompt


def test_a_stale_summary_is_not_used():
    memory = Memory()
    memory.say("У меня аллергия на арахис")
    run_user(memory.repo, "u", memory.clock, new_ulid)
    memory.say("У меня гипертония", session="s2")  # a change since the summary was written
    ctx = build_context(memory.repo, CLASSIFIER.classify(OVERVIEW), "u", OVERVIEW, 400)
    assert "profile summary" not in ctx.prompt
    assert "гипертони" in ctx.prompt or "hypertension" in ctx.prompt


def test_a_specific_question_never_takes_the_summary():
    memory = Memory()
    memory.say("У меня аллергия на арахис")
    run_user(memory.repo, "u", memory.clock, new_ulid)
    classification = CLASSIFIER.classify("Можно ли мне ибупрофен?")
    assert not classification.prefers_summary
    ctx = build_context(memory.repo, classification, "u", "Можно ли мне ибупрофен?", 400)
    assert "profile summary" not in ctx.prompt
