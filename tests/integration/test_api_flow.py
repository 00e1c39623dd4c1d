"""The API and the workers, unmodified, against moto: the flows a user of the app goes through."""

from __future__ import annotations

import pytest

from .conftest import api_event, call, drain_extraction

STORY = [
    "Врач назначил метформин 500 мг",
    "Начал принимать метформин",
    "Врач увеличил дозу метформина до 1000 мг",
    "Больше не принимаю метформин",
]


def say(text: str, user: str = "alice", session: str = "s1", fragment_id: str | None = None) -> str:
    body = {"session_id": session, "messages": [{"role": "user", "text": text}]}
    if fragment_id:
        body["fragment_id"] = fragment_id
    status, out = call(api_event("POST", "/v1/fragments", user, body))
    assert status == 202, out
    assert out["status"] == "queued"
    return out["fragment_id"]


def context(query: str, user: str = "alice", **extra) -> dict:
    status, out = call(api_event("POST", "/v1/context", user, {"query": query, **extra}))
    assert status == 200, out
    return out


def block_names(ctx: dict, block: str = "self_reported") -> dict[str, list[str]]:
    return {b["section"]: [f["name"] for f in b["facts"]] for b in ctx[block]}


@pytest.fixture
def story(cloud):
    for i, text in enumerate(STORY):
        fragment_id = say(text, session=f"s{i}")
        assert drain_extraction(cloud)["batchItemFailures"] == []
        status, fragment = call(api_event("GET", f"/v1/fragments/{fragment_id}"))
        assert status == 200 and fragment["status"] == "applied", fragment
    say("У меня аллергия на арахис", session="s9")
    drain_extraction(cloud)
    return cloud


def test_medication_story_through_the_api_leaves_one_fact_with_four_events(story):
    status, facts = call(
        api_event("GET", "/v1/facts", query={"section": "medications", "include_inactive": "true"})
    )
    assert status == 200
    (fact,) = facts["facts"]
    assert fact["status"] == "stopped" and fact["attributes"]["dose_value"] == 1000
    status, detail = call(api_event("GET", f"/v1/facts/{fact['id']}"))
    assert [e["type"] for e in detail["history"]] == ["first_mention", "change", "change", "negation"]
    assert detail["history"][2]["before"]["attributes"]["dose_value"] == 500


def test_context_for_a_painkiller_question_takes_only_what_it_needs(story):
    ctx = context("Можно ли мне ибупрофен?")
    assert {"medications", "allergies"} <= set(ctx["sections"])
    assert not {"surgeries", "vaccinations", "family_history"} & set(ctx["sections"])
    names = block_names(ctx)
    assert "medications" not in names  # the only drug was stopped: not current treatment
    assert names["allergies"] == ["peanut"] or "арахис" in str(names["allergies"])
    assert "арахис" in ctx["prompt"] or "peanut" in ctx["prompt"]
    assert ctx["tokens"]["prompt"] <= ctx["tokens"]["budget"]


def test_history_question_includes_the_stopped_drug(story):
    ctx = context("Какие лекарства я принимал раньше?")
    assert ctx["history_intent"] is True
    (medication,) = block_names(ctx)["medications"]
    assert "метформин" in medication or "metformin" in medication


def test_a_user_who_never_discussed_allergies_gets_a_gap(cloud):
    ctx = context("Можно ли мне ибупрофен?", user="newcomer")
    assert "allergies" in [g["section"] for g in ctx["gaps"]]


def test_a_fresh_allergy_is_in_the_next_answer_before_extraction_runs(cloud):
    say("У меня аллергия на пенициллин")
    ctx = context("Можно ли мне амоксициллин?")
    assert ctx["pending"] and "пенициллин" in ctx["pending"][0]["text"]
    assert "пенициллин" in ctx["prompt"]


def test_smalltalk_gets_no_sections(story):
    ctx = context("Привет, как дела?")
    assert ctx["sections"] == [] and ctx["self_reported"] == []


def test_another_users_fact_is_not_found(story):
    _, facts = call(api_event("GET", "/v1/facts", query={"include_inactive": "true"}))
    fact_id = facts["facts"][0]["id"]
    status, body = call(api_event("GET", f"/v1/facts/{fact_id}", user="mallory"))
    assert status == 404 and body["title"] == "Not found"
    status, _ = call(api_event("DELETE", f"/v1/facts/{fact_id}", user="mallory"))
    assert status == 404
    assert call(api_event("GET", f"/v1/facts/{fact_id}"))[0] == 200


def test_patch_needs_the_current_version_and_is_recorded(story):
    _, facts = call(api_event("GET", "/v1/facts", query={"section": "allergies"}))
    fact = facts["facts"][0]
    stale = api_event(
        "PATCH",
        f"/v1/facts/{fact['id']}",
        body={"attributes": {"reaction": "hives"}},
        headers={"If-Match": str(fact["version"] + 1)},
    )
    assert call(stale)[0] == 412
    fresh = api_event(
        "PATCH",
        f"/v1/facts/{fact['id']}",
        body={"attributes": {"reaction": "hives"}},
        headers={"If-Match": f'"{fact["version"]}"'},
    )
    status, edited = call(fresh)
    assert status == 200 and edited["attributes"]["reaction"] == "hives"
    _, detail = call(api_event("GET", f"/v1/facts/{fact['id']}"))
    assert detail["history"][-1]["type"] == "user_edit"


def test_deleted_fact_leaves_every_context_but_stays_in_history(story):
    _, facts = call(api_event("GET", "/v1/facts", query={"section": "allergies"}))
    fact_id = facts["facts"][0]["id"]
    assert call(api_event("DELETE", f"/v1/facts/{fact_id}"))[0] == 204
    ctx = context("Что мне приготовить на ужин?")
    assert "allergies" not in block_names(ctx)
    _, detail = call(api_event("GET", f"/v1/facts/{fact_id}"))
    assert detail["history"][-1]["type"] == "user_delete"


def test_section_status_can_be_set_by_the_user(cloud):
    status, out = call(api_event("PUT", "/v1/sections/allergies", body={"status": "confirmed_absent"}))
    assert status == 200 and out["status"] == "confirmed_absent"
    _, facts = call(api_event("GET", "/v1/facts"))
    assert facts["sections"]["allergies"]["status"] == "confirmed_absent"
    assert "allergies" not in [g["section"] for g in context("Можно ли мне ибупрофен?")["gaps"]]


def test_erasure_leaves_nothing_of_the_user_and_everything_of_others(story):
    say("У меня аллергия на арахис", user="bob")
    drain_extraction(story)
    status, erased = call(api_event("DELETE", "/v1/me"))
    assert status == 200 and erased["erased_items"] > 0
    assert erased["remaining_items"] == 0 and erased["remaining_vectors"] == 0
    _, exported = call(api_event("GET", "/v1/export"))
    assert all(not v for k, v in exported.items() if k != "summary") and not exported["summary"]
    _, bob = call(api_event("GET", "/v1/export", user="bob"))
    assert bob["facts"] and bob["vector_documents"] == 1


def test_erasure_reaches_fragments_still_in_the_queue(cloud):
    say("У меня аллергия на арахис")
    call(api_event("DELETE", "/v1/me"))
    assert drain_extraction(cloud)["batchItemFailures"] == []
    _, exported = call(api_event("GET", "/v1/export"))
    assert exported["facts"] == [] and exported["fragments"] == []


def test_the_same_fragment_id_twice_is_processed_once(cloud):
    say("У меня аллергия на арахис", fragment_id="client-retry-1")
    say("У меня аллергия на арахис", fragment_id="client-retry-1")
    drain_extraction(cloud)
    drain_extraction(cloud)
    _, exported = call(api_event("GET", "/v1/export"))
    assert len(exported["fragments"]) == 1
    assert [e["type"] for e in exported["history"] if e["fact_id"] != "section-allergies"] == [
        "first_mention"
    ]


@pytest.mark.parametrize(
    ("event_kwargs", "status"),
    [
        ({"method": "GET", "path": "/v1/facts", "user": None}, 401),
        ({"method": "POST", "path": "/v1/fragments", "body": {"session_id": "s", "messages": []}}, 422),
        (
            {
                "method": "POST",
                "path": "/v1/fragments",
                "body": {"session_id": "s", "messages": [{"role": "user", "text": "x"}] * 41},
            },
            413,
        ),
        (
            {
                "method": "POST",
                "path": "/v1/fragments",
                "body": {"session_id": "s", "messages": [{"role": "user", "text": "a" * 4001}]},
            },
            413,
        ),
        (
            {
                "method": "POST",
                "path": "/v1/fragments",
                "body": {"session_id": "s", "messages": [{"role": "doctor", "text": "hello there"}]},
            },
            422,
        ),
        ({"method": "POST", "path": "/v1/context", "body": {"query": ""}}, 422),
        ({"method": "GET", "path": "/v1/nowhere"}, 404),
        ({"method": "GET", "path": "/v1/facts/not%20an%20id"}, 422),
        ({"method": "PUT", "path": "/v1/sections/astrology", "body": {"status": "unsure"}}, 422),
    ],
)
def test_bad_input_gets_a_clear_4xx_problem(cloud, event_kwargs, status):
    got, body = call(api_event(**event_kwargs))
    assert got == status, body
    assert set(body) >= {"type", "title", "detail", "status"}


def test_wrong_content_type_is_refused(cloud):
    event = api_event(
        "POST", "/v1/fragments", body={"session_id": "s", "messages": [{"role": "user", "text": "hi"}]}
    )
    event["headers"]["Content-Type"] = "text/plain"
    assert call(event)[0] == 415


def test_invalid_json_is_a_4xx(cloud):
    event = api_event("POST", "/v1/context", body={"query": "x"})
    event["body"] = '{"query": "unterminated'
    assert call(event)[0] == 422


def test_errors_never_echo_what_the_user_sent(cloud):
    secret = "Секретный диагноз: ВИЧ"
    _, body = call(
        api_event(
            "POST",
            "/v1/fragments",
            body={"session_id": "s", "messages": [{"role": "user", "text": secret, "unexpected": True}]},
        )
    )
    assert secret not in str(body) and "ВИЧ" not in str(body)


def test_a_section_without_a_tracked_status_that_holds_a_fact_reads_present(cloud):
    # symptoms and diagnoses have no "none"/"don't know" status of their own; a stored one is not
    # listed as "unknown" beside it, and a section with nothing in it still is
    say("The doctor said I have strep throat")
    drain_extraction(cloud)
    _, facts = call(api_event("GET", "/v1/facts"))
    assert any(f["section"] == "reported_diagnoses" for f in facts["facts"])
    assert facts["sections"]["reported_diagnoses"]["status"] == "present"
    assert facts["sections"]["injuries"]["status"] == "unknown"
