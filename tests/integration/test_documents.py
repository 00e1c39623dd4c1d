"""Documented data arrives through an internal, IAM-only route and is shown as its own block."""

from __future__ import annotations

import pytest

from .conftest import api_event, call, drain_extraction

DOCUMENT = {
    "user_id": "alice",
    "source_type": "lab_result",
    "document_id": "emr-2026-0042",
    "document_date": "2026-10-14",
    "facts": [
        {
            "section": "allergies",
            "name": "пенициллин",
            "status": "present",
            "attributes": {"reaction": "крапивница"},
        }
    ],
}


def internal_event(body: dict, iam: bool = True) -> dict:
    event = api_event("POST", "/v1/internal/documents", user=None, body=body)
    event["resource"] = "/v1/internal/documents"
    event["requestContext"]["resourcePath"] = "/v1/internal/documents"
    event["pathParameters"] = None
    if iam:
        event["requestContext"]["identity"]["userArn"] = "arn:aws:sts::123456789012:assumed-role/emr-sync/x"
    return event


def test_ingested_document_and_the_users_own_words_are_both_shown_with_the_discrepancy(cloud):
    call(
        api_event(
            "POST",
            "/v1/fragments",
            body={"session_id": "s1", "messages": [{"role": "user", "text": "Аллергий нет"}]},
        )
    )
    drain_extraction(cloud)
    status, out = call(internal_event(DOCUMENT))
    assert status == 201 and len(out["fact_ids"]) == 1
    status, ctx = call(api_event("POST", "/v1/context", body={"query": "Можно ли мне амоксициллин?"}))
    assert status == 200
    assert [b["section"] for b in ctx["documented"]] == ["allergies"]
    assert ctx["documented"][0]["facts"][0]["source_type"] == "lab_result"
    assert ctx["discrepancies"] and ctx["discrepancies"][0]["self_reported"] == "confirmed_absent"
    assert "[DOCUMENTED" in ctx["prompt"] and "[DISCREPANCY" in ctx["prompt"]


def test_resending_a_document_replaces_its_facts(cloud):
    call(internal_event(DOCUMENT))
    call(internal_event(DOCUMENT))
    _, exported = call(api_event("GET", "/v1/export"))
    assert len(exported["documented"]) == 1


@pytest.mark.parametrize("how", ["cognito_user_via_proxy", "no_iam_caller"])
def test_the_app_cannot_call_the_internal_route(cloud, how):
    if how == "cognito_user_via_proxy":
        # through the proxy resource, with a Cognito token
        event = api_event("POST", "/v1/internal/documents", user="alice", body=DOCUMENT)
    else:
        event = internal_event(DOCUMENT, iam=False)
    status, _ = call(event)
    assert status == 403
    _, exported = call(api_event("GET", "/v1/export"))
    assert exported["documented"] == []


def test_invalid_document_is_a_4xx(cloud):
    bad = {**DOCUMENT, "facts": [{"section": "allergies", "name": "x", "status": "stopped"}]}
    assert call(internal_event(bad))[0] == 422
