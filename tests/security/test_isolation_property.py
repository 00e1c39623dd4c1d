"""Identity comes only from the JWT claims: a property test across users and every endpoint.

Hypothesis draws, for three fresh users, a sequence of what people do (say things, correct and
forget facts, set sections, ask for context, erase themselves), run over HTTP against the local
stack with each user's own dev JWT, together with every way a caller could try to name another
user (a user id in the body, the query, a header, extra token claims, the path). Then, for every
pair (observer, owner) and every endpoint: nothing of the owner's appears in what the observer
gets (words, fact ids, fragment ids, keys), the owner's fact and fragment ids answer 404 to the
observer (also for PATCH and DELETE, which leave the owner's fact as it was), and an erasure by
one leaves the others exactly as they were.
"""

from __future__ import annotations

import itertools
import json

import pytest
from bench.load import Client, fragment_status, live_stack, wait_for
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytestmark = [pytest.mark.xdist_group("ltm_live_isolation"), pytest.mark.slow]

# Each user talks about their own things only, so that anything of theirs is recognisable.
SAYINGS = {
    0: ["У меня аллергия на арахис", "Пью Энап 5 мг по утрам", "У папы был инфаркт"],
    1: ["I am allergic to penicillin", "Врач назначил метформин 500 мг", "У меня астма"],
    2: ["Аллергия на латекс", "I take ibuprofen 200 mg for my back", "Мне удалили аппендикс в 2019 году"],
}
QUERIES = [
    "Можно ли мне ибупрофен?",
    "Какие лекарства я принимаю?",
    "Что мне приготовить на ужин?",
    "Что у меня с аллергией?",
    "What did I tell you about my family?",
]
SECTIONS = ["allergies", "chronic_conditions", "family_history"]

action = st.one_of(
    st.tuples(st.just("say"), st.integers(0, 2), st.integers(0, 2)),
    st.tuples(st.just("context"), st.integers(0, 2), st.integers(0, len(QUERIES) - 1)),
    st.tuples(st.just("patch"), st.integers(0, 2), st.integers(0, 5)),
    st.tuples(st.just("delete"), st.integers(0, 2), st.integers(0, 5)),
    st.tuples(st.just("section"), st.integers(0, 2), st.integers(0, len(SECTIONS) - 1)),
)
_run = itertools.count()


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    env = {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None}
    with live_stack(tmp_path_factory.mktemp("isolation") / "ltm", env=env) as live:
        yield live


def _export(client) -> dict:
    status, exported = client.call("GET", "/v1/export")
    assert status == 200
    return exported


def _owned(exported: dict) -> set[str]:
    """What identifies a user's data: ids, keys, names, what they said."""
    marks: set[str] = set()
    for fact in exported["facts"]:
        marks |= {fact["id"], fact["key"], fact["name_raw"], fact["name_normalized"]}
    for fragment in exported["fragments"]:
        marks.add(fragment["id"])
        marks |= {m["text"] for m in fragment["messages"]}
    marks |= {e["id"] for e in exported["history"]}
    return {m for m in marks if m and len(m) >= 4}


@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    # No shrinking: against a live stack it takes minutes; the failing example is printed as is.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
@given(actions=st.lists(action, min_size=3, max_size=8), eraser=st.integers(0, 2))
def test_no_user_ever_sees_or_touches_another_users_data(live, actions, eraser):
    run = next(_run)
    names = [f"iso{run}-{i}" for i in range(3)]
    clients = [live.client(name) for name in names]
    # Every user says at least one thing, so that everyone has something to leak.
    plan = [("say", i, 0) for i in range(3)] + list(actions)
    fragments: dict[int, list[str]] = {0: [], 1: [], 2: []}
    for kind, who, arg in plan:
        client = clients[who]
        if kind == "say":
            status, body = client.say(SAYINGS[who][arg])
            assert status == 202
            fragments[who].append(body["fragment_id"])
        elif kind == "context":
            assert client.call("POST", "/v1/context", {"query": QUERIES[arg]})[0] == 200
        elif kind in ("patch", "delete"):
            facts = client.call("GET", "/v1/facts")[1]["facts"]
            if facts:
                fact = facts[arg % len(facts)]
                if kind == "patch":
                    status, _ = client.call(
                        "PATCH",
                        f"/v1/facts/{fact['id']}",
                        {"valid_from": "2020"},
                        {"If-Match": str(fact["version"])},
                    )
                else:
                    status, _ = client.call("DELETE", f"/v1/facts/{fact['id']}")
                assert status in (200, 204, 412)
        else:
            assert client.call("PUT", f"/v1/sections/{SECTIONS[arg]}", {"status": "unsure"})[0] == 200
    for who, ids in fragments.items():
        for fragment_id in ids:
            wait_for(
                lambda c=clients[who], f=fragment_id: fragment_status(c, f) in ("applied", "rejected"),
                30,
                message="a final state",
            )

    exports = [_export(client) for client in clients]
    owned = [_owned(exported) for exported in exports]
    assert all(owned)

    for observer, owner in itertools.permutations(range(3), 2):
        client, theirs = clients[observer], exports[owner]
        seen = _everything_seen_by(live, client, names[observer], names[owner], theirs)
        leaked = {mark for mark in owned[owner] - owned[observer] if mark in seen}
        assert not leaked, (names[observer], "sees", names[owner], sorted(leaked)[:5])
        for fact in theirs["facts"]:
            assert client.call("GET", f"/v1/facts/{fact['id']}")[0] == 404
            assert (
                client.call(
                    "PATCH",
                    f"/v1/facts/{fact['id']}",
                    {"valid_from": "1999"},
                    {"If-Match": str(fact["version"])},
                )[0]
                == 404
            )
            assert client.call("DELETE", f"/v1/facts/{fact['id']}")[0] == 404
        for fragment in theirs["fragments"]:
            assert client.call("GET", f"/v1/fragments/{fragment['id']}")[0] == 404
        # Re-using another user's fragment id creates the caller's own fragment, nothing else.
        reused = theirs["fragments"][0]["id"]
        status, body = client.call(
            "POST",
            "/v1/fragments",
            {"session_id": "s", "fragment_id": reused, "messages": [{"role": "user", "text": "ok"}]},
        )
        assert status == 202 and body["fragment_id"] == reused
        wait_for(
            lambda c=client, f=reused: fragment_status(c, f) in ("applied", "rejected"),
            30,
            message="the caller's own copy settled",
        )
    # Those attempts changed nothing of the owners' (the observers' own exports did change).
    for owner in range(3):
        again = _export(clients[owner])
        assert [f for f in again["facts"]] == exports[owner]["facts"]
        assert again["history"] == exports[owner]["history"]

    # One erases themselves: the others are exactly as they were.
    before = [_export(client) for client in clients]
    status, erased = clients[eraser].call("DELETE", "/v1/me")
    assert status == 200 and erased["remaining_items"] == 0 and erased["remaining_vectors"] == 0
    after = [_export(client) for client in clients]
    for i in range(3):
        if i == eraser:
            assert not any(after[i][k] for k in ("facts", "history", "fragments", "episodes", "sections"))
            assert after[i]["vector_documents"] == 0
        else:
            assert after[i] == before[i]
    for client in clients:
        client.close()


def _everything_seen_by(live, client, observer_name: str, owner_name: str, theirs: dict) -> str:
    """Every endpoint, and every way of naming another user, as the observer's own token."""
    seen: list = []

    def get(path: str, **headers):
        seen.append(client.call("GET", path, headers=headers)[1])

    get("/v1/facts")
    get("/v1/facts?include_inactive=true")
    get(f"/v1/facts?user_id={owner_name}&sub={owner_name}")
    get(
        "/v1/facts",
        **{"X-User-Id": owner_name, "X-Amzn-Oidc-Identity": owner_name, "Cookie": f"sub={owner_name}"},
    )
    get("/v1/export")
    get(f"/v1/export?user={owner_name}")
    get("/v1/facts?section=allergies&include_inactive=true")
    for query in QUERIES[:2] + QUERIES[3:4]:
        seen.append(client.call("POST", "/v1/context", {"query": query, "max_tokens": 4000})[1])
    # A user id in the body is refused, not used.
    status, body = client.call("POST", "/v1/context", {"query": QUERIES[0], "user_id": owner_name})
    assert status == 422
    seen.append(body)
    # A token for the observer carrying extra claims that name the owner: still the observer.
    from ltm_local.auth import DevSigner

    token = DevSigner(live.stack.config.key_path).mint(
        observer_name,
        **{
            "cognito:username": owner_name,
            "username": owner_name,
            "custom:user_id": owner_name,
            "email": f"{owner_name}@example.invalid",
        },
    )
    other = Client(client.port, token)
    status, body = other.call("GET", "/v1/export")
    other.close()
    assert status == 200
    seen.append(body)
    for fact in theirs["facts"]:
        get(f"/v1/facts/{fact['id']}")
    for fragment in theirs["fragments"]:
        get(f"/v1/fragments/{fragment['id']}")
    return json.dumps(seen, ensure_ascii=False)
