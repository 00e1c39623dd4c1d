"""Issue 15 at the API: user-scoped fragment ids (409 for new content under a used id, the same
202 for a true retry), stored-size limits (413 before anything is stored), sane message times (422),
and a deterministic failure that ends `failed` with a reason without blocking the next fragment."""

from __future__ import annotations

from .conftest import api_event, call, drain_extraction


def post(text: str, user: str = "alice", fragment_id: str | None = None, at: str | None = None, n: int = 1):
    message = {"role": "user", "text": text}
    if at:
        message["at"] = at
    body = {"session_id": "s1", "messages": [dict(message) for _ in range(n)]}
    if fragment_id:
        body["fragment_id"] = fragment_id
    return call(api_event("POST", "/v1/fragments", user, body))


def test_the_same_id_from_two_users_applies_both_and_new_content_under_a_used_id_is_409(cloud):
    first = post("I take metformin 500 mg", "alice", "shared-id")
    assert first == post("I take metformin 500 mg", "alice", "shared-id")  # a true retry: same answer
    assert post("I take lisinopril 10 mg", "bob", "shared-id")[0] == 202
    status, problem = post("I take amoxicillin 250 mg", "alice", "shared-id")
    assert status == 409 and "already used" in problem["detail"] and "amoxicillin" not in problem["detail"]
    drain_extraction(cloud)
    for user, drug in (("alice", "metformin"), ("bob", "lisinopril")):
        _, facts = call(api_event("GET", "/v1/facts", user))
        assert [f["name_normalized"] for f in facts["facts"] if f["section"] == "medications"] == [drug]
        _, fragment = call(api_event("GET", "/v1/fragments/shared-id", user))
        assert fragment["status"] == "applied"


def test_the_largest_fragment_by_the_message_limits_is_413_before_anything_is_stored(cloud):
    status, problem = post("𝄞" * 4000, fragment_id="huge", n=40)  # 640 KB of text: over one item
    assert status == 413 and "bytes" in problem["detail"]
    assert call(api_event("GET", "/v1/fragments/huge"))[0] == 404
    assert post("я" * 3000, fragment_id="big-but-fits", n=40)[0] == 202  # 240 KB: stored whole


def test_a_message_time_out_of_bounds_is_422(cloud):
    for at in ("0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "9999-12-31T00:00:00Z"):
        status, problem = post("I take metformin 500 mg", at=at)
        assert status == 422 and "messages.0.at" in problem["detail"], (at, problem)
    assert post("I take metformin 500 mg", at="1990-05-01T08:00:00Z")[0] == 202
