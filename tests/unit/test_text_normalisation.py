"""Issue 15: text is normalised once at intake for matching; the user's original is kept as evidence;
fragment ids are scoped to the user; a deterministic failure ends `failed` and blocks nothing."""

from __future__ import annotations

import pytest

from health_ltm.adapters.sqs_queue import deduplication_id
from health_ltm.domain.models import FragmentStatus, Message, Role
from health_ltm.domain.sections import Section
from health_ltm.errors import FragmentConflict, FragmentTooLarge
from health_ltm.write.intake import normalize_for_matching, submit_fragment
from tests.unit.test_write_path import Memory


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("pea\u200bnuts", "peanuts"),  # zero-width space
        ("pea\u00adnuts", "peanuts"),  # soft hyphen
        ("ｐｅａｎｕｔｓ", "peanuts"),  # fullwidth
        ("\u200fpeanuts\u200e", "peanuts"),  # bidi marks
        ("\u202bpeanuts\u202c\u2066x\u2069", "peanutsx"),  # embeddings and isolates
        ("\ufeffpeanuts", "peanuts"),  # BOM
        ("a\u2028b\u2029c\u0085d\r\ne", "a\nb\nc\nd\ne"),
        ("ﬁsh", "fish"),  # ligature
        ("tab\tkept", "tab\tkept"),
        ("bell\x07gone", "bellgone"),
    ],
)
def test_normalisation_for_matching(raw, normalised):
    assert normalize_for_matching(raw) == normalised


@pytest.mark.parametrize(
    "hidden", ["pea\u200bnuts", "pea\u00adnuts", "ｐｅａｎｕｔｓ", "\u200fpeanuts\u200e"]
)
def test_invisible_characters_do_not_change_what_is_remembered(hidden):
    plain, tricky = Memory(), Memory()
    plain.say("I am allergic to peanuts")
    tricky.say(f"I am allergic to {hidden}")
    expected = [(f.section, f.key) for f in plain.facts(section=Section.ALLERGIES)]
    assert expected and [(f.section, f.key) for f in tricky.facts(section=Section.ALLERGIES)] == expected
    (fragment,) = tricky.repo.export("u")["fragments"]
    (message,) = fragment["messages"]
    assert message["original_text"] == f"I am allergic to {hidden}"  # the evidence, as typed
    assert message["text"] == "I am allergic to peanuts"


def test_a_message_without_anything_to_normalise_keeps_no_copy():
    memory = Memory()
    memory.say("I am allergic to peanuts")
    (fragment,) = memory.repo.export("u")["fragments"]
    assert fragment["messages"][0].get("original_text") is None


def test_the_deduplication_id_is_scoped_to_the_user():
    assert deduplication_id("alice", "f1") != deduplication_id("bob", "f1")
    assert deduplication_id("alice", "f1") == deduplication_id("alice", "f1")
    assert "alice" not in deduplication_id("alice", "f1") and len(deduplication_id("alice", "f1")) <= 128
    assert deduplication_id("alice", "f1", attempt=3) != deduplication_id("alice", "f1")


def _submit(memory, text, fragment_id, user="u"):
    return submit_fragment(
        memory.repo, memory.queue, memory.clock, lambda: "x", user, "s1",
        [Message(role=Role.USER, text=text)], fragment_id=fragment_id,
    )


def test_same_id_from_two_users_both_apply_and_new_content_under_a_used_id_is_a_conflict():
    memory = Memory()
    _submit(memory, "I take metformin 500 mg", "same", user="alice")
    _submit(memory, "I take lisinopril 10 mg", "same", user="bob")
    for user in ("alice", "bob"):
        memory.path.process(user, "same")
    assert [f.key for f in memory.facts("alice")] != [f.key for f in memory.facts("bob")]
    assert memory.facts("alice") and memory.facts("bob")
    again = _submit(memory, "I take metformin 500 mg", "same", user="alice")  # a true retry
    assert again.id == "same"
    with pytest.raises(FragmentConflict):
        _submit(memory, "I take amoxicillin 250 mg", "same", user="alice")


def test_a_fragment_too_large_for_its_item_is_refused_before_anything_is_stored():
    memory = Memory()
    with pytest.raises(FragmentTooLarge):
        submit_fragment(
            memory.repo, memory.queue, memory.clock, lambda: "big", "u", "s1",
            [Message(role=Role.USER, text="𝄞" * 4000) for _ in range(40)],
        )
    assert memory.repo.get_fragment("u", "big") is None and memory.queue.sent == []


class Exploding:
    name = "exploding"

    def __init__(self):
        self.broken = True

    def extract(self, messages, sections):
        if self.broken and any("poison" in m.text for m in messages):
            raise OverflowError("date value out of range")
        from health_ltm.write.rules import RuleExtractor

        return RuleExtractor().extract(messages, sections)


def test_a_deterministic_failure_ends_failed_with_a_reason_and_the_next_fragment_applies():
    extractor = Exploding()
    memory = Memory(extractor=extractor)
    outcome = memory.say("poison: I take metformin 500 mg")
    poison_id = memory.queue.sent[-1][1]
    assert outcome.status is FragmentStatus.FAILED
    stored = memory.repo.get_fragment("u", poison_id)
    assert stored.status is FragmentStatus.FAILED and stored.reason == "error:OverflowError"
    assert memory.say("I take lisinopril 10 mg").status is FragmentStatus.APPLIED  # not blocked
    # The poison, fixed: the same POST again queues it once more and it applies.
    extractor.broken = False
    _submit(memory, "poison: I take metformin 500 mg", poison_id)
    assert memory.queue.sent[-1] == ("u", poison_id)
    assert memory.path.process("u", poison_id).status is FragmentStatus.APPLIED
    assert {f.key for f in memory.facts(section=Section.MEDICATIONS)} >= {"metformin", "lisinopril"}


def test_erasure_is_final_for_derived_writes_until_the_user_posts_again():
    memory = Memory()
    memory.say("I take metformin 500 mg")
    memory.repo.erase("u")
    memory.repo.mark_active("u", "2026-01-01")  # a late statistics flush
    memory.repo.put_summary("u", {"x": 1})  # a late maintenance run
    assert memory.repo.export("u")["fragments"] == [] and memory.repo.get_summary("u") is None
    flushed = submit_fragment(
        memory.repo, memory.queue, memory.clock, lambda: "late", "u", "s1",
        [Message(role=Role.USER, text="I take lisinopril 10 mg")], new_start=False,
    )
    assert flushed.id == "late" and memory.repo.get_fragment("u", "late") is None
    assert memory.say("I take aspirin 100 mg").status is FragmentStatus.APPLIED  # the user's own new start
