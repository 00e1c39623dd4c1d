"""Dialogues through the API and the worker, unmodified, against moto: the gap loop closes.

The read path offers a question for a critical section never discussed; the user answers the
assistant's own question with one word; the next context has no gap and knows the status.
"""

from __future__ import annotations

import pytest

from .conftest import api_event, call, drain_extraction


def send(messages: list[tuple[str, str]], user: str = "alice", session: str = "s1") -> str:
    body = {"session_id": session, "messages": [{"role": r, "text": t} for r, t in messages]}
    status, out = call(api_event("POST", "/v1/fragments", user, body))
    assert status == 202, out
    return out["fragment_id"]


def context(query: str, user: str = "alice") -> dict:
    status, out = call(api_event("POST", "/v1/context", user, {"query": query}))
    assert status == 200, out
    return out


def facts(user: str = "alice") -> dict:
    status, out = call(api_event("GET", "/v1/facts", user, query={"include_inactive": "true"}))
    assert status == 200, out
    return out


@pytest.mark.parametrize(
    ("query", "section", "answer"),
    [
        ("Can I take ibuprofen for my back?", "allergies", "no"),
        ("Что мне приготовить на ужин?", "allergies", "нет"),
    ],
)
def test_answering_the_suggested_gap_question_with_one_word_closes_the_gap(cloud, query, section, answer):
    # Given a context that offers a question for a section never discussed
    before = context(query)
    gap = next(g for g in before["gaps"] if g["section"] == section)

    # When the assistant asks it and the user answers with one word
    fragment_id = send([("assistant", gap["suggested_question"]), ("user", answer)])
    assert drain_extraction(cloud)["batchItemFailures"] == []
    _, fragment = call(api_event("GET", f"/v1/fragments/{fragment_id}"))
    assert fragment["status"] == "applied", fragment

    # Then the gap is gone and the section reads confirmed_absent
    after = context(query)
    assert section not in {g["section"] for g in after["gaps"]}
    assert facts()["sections"][section]["status"] == "confirmed_absent"


def test_a_relatives_disease_and_a_pronoun_follow_up_in_one_conversation(cloud):
    send(
        [
            ("assistant", "Do you take any medicines?"),
            ("user", "Just lisinopril 10 mg"),
            ("assistant", "Anyone in your family with heart problems?"),
            ("user", "My dad had a heart attack at 60"),
            ("assistant", "Any allergies?"),
            ("user", "penicillin"),
        ]
    )
    send([("user", "they switched me to the 20 mg one")], session="s2")
    drain_extraction(cloud)
    by_section: dict[str, list[dict]] = {}
    for fact in facts()["facts"]:
        by_section.setdefault(fact["section"], []).append(fact)
    (lisinopril,) = by_section["medications"]
    assert lisinopril["attributes"]["dose_value"] == 20
    # the app can show where a fact came from: the user's answer to the assistant's question
    (penicillin,) = by_section["allergies"]
    assert penicillin["evidence_kind"] == "answer_to_question"
    assert penicillin["context_evidence"] == "Any allergies?"
    assert [f["attributes"]["relative"] for f in by_section["family_history"]] == ["father"]
    assert "chronic_conditions" not in by_section
