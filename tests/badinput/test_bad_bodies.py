"""Hostile and broken requests over HTTP to the local stack's front: always a clear 4xx, never a
5xx, never an echo of what was sent, never a half-written state.

Limits: the front (like API Gateway) refuses bodies over 10 MB with 413 before the function runs;
the function refuses bodies larger than any valid request, too many messages and too long a
message with 413; what it cannot read (invalid UTF-8, JSON nested deeper than 32 levels, numbers
Python will not parse) with 422; anything but application/json with 415.
"""

from __future__ import annotations

import json
import socket

import pytest
from bench.load import fragment_status, live_stack, wait_for

pytestmark = [pytest.mark.xdist_group("ltm_live_badinput"), pytest.mark.slow]

SECRET = "Секретный диагноз: ВИЧ"
PROBLEM_KEYS = {"type", "title", "detail", "status"}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
    with live_stack(tmp_path_factory.mktemp("badinput") / "ltm", env=env) as live:
        yield live


@pytest.fixture(scope="module")
def client(live):
    client = live.client("bad-input-user")
    yield client
    client.close()


def fragment(*texts: str, role: str = "user") -> dict:
    return {"session_id": "s1", "messages": [{"role": role, "text": t} for t in texts]}


def raw(client, method: str, path: str, body: bytes | None, content_type: str | None = "application/json"):
    headers = {"Content-Type": content_type} if content_type else {}
    status, headers_out, payload = client.raw(method, path, body, headers)
    return status, headers_out, payload


def assert_problem(status: int, headers: dict, payload: bytes, expected: int) -> dict:
    assert status == expected, (status, payload[:300])
    assert headers.get("content-type", "").startswith("application/problem+json"), headers
    problem = json.loads(payload)
    assert set(problem) == PROBLEM_KEYS and problem["status"] == expected
    assert SECRET not in payload.decode("utf-8", "replace") and "ВИЧ" not in payload.decode(
        "utf-8", "replace"
    )
    return problem


def assert_nothing_stored(client) -> None:
    status, exported = client.call("GET", "/v1/export")
    assert status == 200
    assert all(not exported[k] for k in ("facts", "history", "fragments", "pending", "episodes"))


# ---------------------------------------------------------------------------------- sizes
def test_a_body_over_api_gateways_10_mb_is_refused_at_the_front(live):
    """The front answers 413 from the Content-Length alone, without reading or forwarding."""
    token = live.token("bad-input-user")
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as sock:
        sock.sendall(
            (
                "POST /v1/fragments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {10 * 1024 * 1024 + 1}\r\n\r\n"
            ).encode()
            + b'{"session_id": "s1", "messages": ['
        )
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert status_line.split()[1] == b"413"
    assert json.loads(rest.partition(b"\r\n\r\n")[2]) == {"message": "Request Too Long"}


def test_a_chunked_body_over_10_mb_is_refused_at_the_front(live):
    token = live.token("bad-input-user")
    chunk = b"x" * (1024 * 1024)
    with socket.create_connection(("127.0.0.1", live.port), timeout=30) as sock:
        sock.sendall(
            (
                "POST /v1/fragments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n"
            ).encode()
        )
        try:
            for _ in range(11):
                sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the front stopped reading: its answer is already there
        reply = sock.recv(65536)
    assert reply.split(b"\r\n", 1)[0].split()[1] == b"413"


@pytest.mark.parametrize(
    ("case", "body", "expected"),
    [
        ("41 messages, over LTM_MAX_MESSAGES", fragment(*["x"] * 41), 413),
        ("500 messages", fragment(*["x"] * 500), 413),
        ("501 messages, over the schema's 500", fragment(*["x"] * 501), 422),
        ("10,000 messages", fragment(*["x"] * 10_000), 422),
        ("a message over LTM_MAX_MESSAGE_CHARS", fragment(SECRET + "a" * 4001), 413),
        ("a message over the schema's 20,000", fragment(SECRET + "a" * 20_001), 422),
        ("2 MB: larger than any valid request", fragment(*[SECRET + "б" * 3900] * 270), 413),
        ("9 MB in one message", fragment(SECRET + "a" * 9_000_000), 413),
    ],
)
def test_too_much_is_refused_with_a_4xx_and_stores_nothing(live, case, body, expected):
    client = live.client(f"too-much-{abs(hash(case)) % 10**8}")
    status, headers, payload = raw(
        client, "POST", "/v1/fragments", json.dumps(body, ensure_ascii=False).encode()
    )
    assert_problem(status, headers, payload, expected)
    assert_nothing_stored(client)


# ---------------------------------------------------------------------------------- empty
@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("no body", None),
        ("empty JSON object", b"{}"),
        ("null", b"null"),
        ("a list", b"[]"),
        ("no messages", json.dumps({"session_id": "s1", "messages": []}).encode()),
        ("an empty message", json.dumps(fragment("")).encode()),
        ("an unknown role", json.dumps(fragment("hello", role="doctor")).encode()),
        ("an extra field", json.dumps({**fragment(SECRET), "user_id": "someone-else"}).encode()),
        (
            "a user id in the message",
            json.dumps(
                {"session_id": "s1", "messages": [{"role": "user", "text": SECRET, "user_id": "x"}]}
            ).encode(),
        ),
        ("a lone surrogate", b'{"session_id": "s1", "messages": [{"role": "user", "text": "\\ud800"}]}'),
        ("NaN", b'{"query": "x", "max_tokens": NaN}'),
        ("a 5,000-digit number", b'{"query": "x", "max_tokens": ' + b"9" * 5000 + b"}"),
        ("max_tokens as a string", b'{"query": "x", "max_tokens": "400"}'),
        (
            "a date as a number",
            json.dumps({"session_id": "s1", "messages": [{"role": "user", "text": "hi", "at": 0}]}).encode(),
        ),
    ],
)
def test_empty_or_malformed_bodies_get_422(client, case, body):
    path = "/v1/context" if body and b"query" in body else "/v1/fragments"
    status, headers, payload = raw(client, "POST", path, body)
    assert_problem(status, headers, payload, 422)


def test_whitespace_and_noise_are_accepted_then_rejected_with_a_reason_never_lost(live):
    client = live.client("noise-user")
    ids = []
    for texts in (["   "], ["\u200b\u200b"], ["ok"], ["asdf qwer zxcv"], ["🙂🙂🙂"], ["12345"]):
        status, body = client.say(*texts)
        assert status == 202
        ids.append(body["fragment_id"])
    for fragment_id in ids:
        final = wait_for(
            lambda f=fragment_id: (
                fragment_status(client, f) in ("applied", "rejected") and fragment_status(client, f)
            ),
            30,
            message="a final state",
        )
        assert final in ("applied", "rejected")
        status, detail = client.call("GET", f"/v1/fragments/{fragment_id}")
        if final == "rejected":
            assert detail["rejected"] and all(r["reason"] for r in detail["rejected"])
    status, facts = client.call("GET", "/v1/facts")
    assert facts["facts"] == []


def test_only_the_assistants_words_make_no_fact(live):
    client = live.client("assistant-only")
    status, body = client.call(
        "POST", "/v1/fragments", fragment("У вас аллергия на пенициллин", role="assistant")
    )
    assert status == 202
    wait_for(
        lambda: fragment_status(client, body["fragment_id"]) in ("applied", "rejected"), 30, message="done"
    )
    assert client.call("GET", "/v1/facts")[1]["facts"] == []


# ---------------------------------------------------------------------------------- content types
@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data",
        "multipart/form-data; boundary=xyz",
        "application/json-patch+json",
        "application/problem+json",
    ],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/fragments"),
        ("POST", "/v1/context"),
        ("PUT", "/v1/sections/allergies"),
        ("PATCH", "/v1/facts/some-fact"),
    ],
)
def test_anything_but_json_gets_415(client, content_type, method, path):
    body = '--xyz\r\nContent-Disposition: form-data; name="query"\r\n\r\nпривет\r\n--xyz--\r\n'
    if "urlencoded" in content_type:
        body = "query=%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82"
    headers = {"If-Match": "1"} if method == "PATCH" else {}
    status, headers_out, payload = client.raw(
        method, path, body.encode(), {"Content-Type": content_type, **headers}
    )
    assert_problem(status, headers_out, payload, 415)


def test_a_json_body_without_a_content_type_gets_415(client):
    status, headers, payload = raw(client, "POST", "/v1/fragments", json.dumps(fragment("hi")).encode(), None)
    assert_problem(status, headers, payload, 415)


# ---------------------------------------------------------------------------------- unreadable
@pytest.mark.parametrize(
    ("case", "body"),
    [
        ("invalid UTF-8", b'{"session_id": "s1", "messages": [{"role": "user", "text": "\xff\xfe\xfa"}]}'),
        ("Latin-1, not UTF-8", '{"query": "Müller"}'.encode("latin-1")),
        ("truncated JSON", b'{"query": "unterminated'),
        (
            "10,000 levels of arrays",
            b'{"query": "x", "recent_messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
        ),
        ("10,000 levels of objects", b'{"query": ' + b'{"a": ' * 10_000 + b"1" + b"}" * 10_000 + b"}"),
        ("100 levels", b'{"query": "x", "recent_messages": ' + b"[" * 100 + b"]" * 100 + b"}"),
        ("33 levels", b'{"query": "x", "recent_messages": ' + b"[" * 32 + b"]" * 32 + b"}"),
        ("unbalanced, 50,000 brackets", b"[" * 50_000),
    ],
)
def test_unreadable_bodies_get_422_not_500(client, case, body):
    path = "/v1/context" if b"query" in body else "/v1/fragments"
    status, headers, payload = raw(client, "POST", path, body)
    assert_problem(status, headers, payload, 422)


def test_deep_nesting_in_a_patch_is_refused_before_it_reaches_storage(live):
    client = live.client("deep-patch")
    status, body = client.say("У меня аллергия на арахис")
    wait_for(lambda: fragment_status(client, body["fragment_id"]) == "applied", 30, message="applied")
    (fact,) = client.call("GET", "/v1/facts")[1]["facts"]
    deep = b'{"attributes": {"reaction": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}}"
    status, headers, payload = client.raw(
        "PATCH",
        f"/v1/facts/{fact['id']}",
        deep,
        {"Content-Type": "application/json", "If-Match": str(fact["version"])},
    )
    assert_problem(status, headers, payload, 422)
    assert client.call("GET", f"/v1/facts/{fact['id']}")[1]["version"] == fact["version"]


# ---------------------------------------------------------------------------------- paths, methods, headers
@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/v1/facts/..%2F..%2Fetc%2Fpasswd", (404, 422)),
        ("GET", "/v1/facts/" + "a" * 65, (422,)),
        ("GET", "/v1/fragments/%00", (404, 422)),
        ("GET", "/v1/facts?section=astrology", (422,)),
        ("GET", "/v1/facts?include_inactive=maybe", (422,)),
        ("GET", "/v1/facts?status=" + "x" * 100, (422,)),
        ("PUT", "/v1/health", (405,)),
        ("DELETE", "/v1/fragments", (405,)),
        ("TRACE", "/v1/facts", (405,)),
        ("BREW", "/v1/facts", (405,)),
        ("GET", "/v1/nowhere", (404,)),
    ],
)
def test_odd_paths_methods_and_queries_get_a_4xx(client, method, path, expected):
    status, _, payload = client.raw(method, path, None)
    assert status in expected, (status, payload[:200])


@pytest.mark.parametrize("if_match", ["", "abc", "-1", "1.5", "99999999999", '"1', "W/", "*"])
def test_bad_if_match_gets_a_4xx(live, if_match):
    client = live.client("if-match-user")
    status, _, payload = client.raw(
        "PATCH",
        "/v1/facts/some-fact",
        json.dumps({"status": "present"}).encode(),
        {"Content-Type": "application/json", "If-Match": if_match},
    )
    assert 400 <= status < 500, (status, payload[:200])
