"""The model failing (timeout, 429, 5xx, garbage, refusal) and poison messages, end to end.

The local stack runs with its real pollers (batch item failures, redelivery, DLQ after
maxReceiveCount) and the unmodified extract handler, which talks to the fake OpenAI server
(rules mode: an honest model answering through the JSON contract). A fault makes every chat
call fail: the record is retried, then parked in the DLQ; the fragment stays visibly
unfinished (queued/processing, never "applied"), nothing of it is written, and the read path
still shows it as "just said, not yet processed". After the fake is fixed, ``ltm redrive``
brings the message back and the fragment ends applied, once.
"""

from __future__ import annotations

import json

import pytest
from bench.load import fragment_status, live_stack, wait_for

from tests.fakes.fake_openai import FakeOpenAI, Reply
from tests.fakes.sqs import received

from .conftest import assert_whole, export, summary

pytestmark = [pytest.mark.xdist_group("ltm_live_model_faults"), pytest.mark.slow]

ALLERGY = "У меня аллергия на пенициллин"


class Switch:
    """What the fake model answers now: None = the honest rules answer."""

    def __init__(self) -> None:
        self.fault = None

    def __call__(self, request):
        return self.fault() if self.fault else None


FAULTS = {
    "timeout": lambda: Reply.slow(3.0),
    "rate_limited": lambda: Reply.rate_limited(),
    "server_error": lambda: Reply.server_error(503),
    "malformed_json": lambda: Reply.malformed(),
    "prose_not_json": lambda: Reply(content="The user seems to be allergic to something."),
    "wrong_enum": lambda: Reply.json({"sections": ["astrology"], "events": [{"section": "astrology"}]}),
    "refusal": lambda: Reply.refused(),
}


@pytest.fixture(scope="module")
def model():
    switch = Switch()
    with FakeOpenAI(responder=switch, rules=True) as fake:
        yield fake, switch


@pytest.fixture(scope="module")
def live(model, tmp_path_factory):
    fake, _ = model
    env = {
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-fake",
        "LTM_LLM_TIMEOUT_S": "0.5",
        "LTM_LLM_MAX_RETRIES": "0",  # the SDK's own retries are tested in the adapter's unit tests
    }
    with live_stack(tmp_path_factory.mktemp("model") / "ltm", env=env) as live:
        yield live


@pytest.fixture(autouse=True)
def _honest_model_after_each_test(model):
    yield
    model[1].fault = None


def _dlq_bodies(live) -> list[dict]:
    from ltm_local.emulator import client

    messages = (
        client("sqs", live.endpoint)
        .receive_message(
            QueueUrl=live.queue().dlq_url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=0,
            WaitTimeSeconds=0,
            AttributeNames=["All"],
        )
        .get("Messages", [])
    )
    return [{"body": m["Body"], "group": m["Attributes"].get("MessageGroupId")} for m in messages]


def test_the_honest_model_applies_a_fragment(live):
    alice = live.client("model-honest")
    status, accepted = alice.say(ALLERGY)
    assert status == 202
    assert wait_for(
        lambda: fragment_status(alice, accepted["fragment_id"]) == "applied", 30, message="applied"
    )
    exported = export(alice)
    assert_whole(exported)
    assert [(f["section"], f["status"]) for f in exported["facts"]] == [("allergies", "present")]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_model_parks_the_fragment_in_the_dlq_and_redrive_applies_it(live, model, fault):
    fake, switch = model
    user = f"model-{fault}"
    alice = live.client(user)
    switch.fault = FAULTS[fault]
    calls_before = len(fake.chat_requests)

    status, accepted = alice.say(ALLERGY)
    assert status == 202
    fragment_id = accepted["fragment_id"]
    max_receives = live.queue().spec.max_receive_count
    wait_for(lambda: live.dlq_depth() == 1, 90, 0.2, message=f"{fault}: the message in the DLQ")

    # Retried maxReceiveCount times, every time the model was really asked (and failed).
    assert len(fake.chat_requests) - calls_before >= max_receives
    assert live.queue_depth(live.queue().url) == 0
    (parked,) = _dlq_bodies(live)
    body = json.loads(parked["body"])
    assert body["user_id"] == user and body["fragment_id"] == fragment_id
    assert "пеницил" not in parked["body"].lower()  # ids only: a DLQ holds no words
    from health_ltm.adapters.sqs_queue import message_group_id

    assert parked["group"] == message_group_id(user)  # the user's group, by its hash (issue 15)

    # Visible as unfinished, never "applied"; nothing of it written; still read-your-writes.
    assert fragment_status(alice, fragment_id) in ("queued", "processing")
    exported = export(alice)
    assert exported["facts"] == [] and exported["history"] == []
    status, context = alice.call("POST", "/v1/context", {"query": "Можно ли мне амоксициллин?"})
    assert status == 200
    assert [p["fragment_id"] for p in context["pending"]] == [fragment_id]

    # The model is fixed; `ltm redrive` moves the message back; the fragment ends applied, once.
    switch.fault = None
    assert live.redrive() == 1
    assert wait_for(lambda: fragment_status(alice, fragment_id) == "applied", 30, message=f"{fault}: applied")
    wait_for(lambda: live.queue_depth(live.queue().url) == 0, 10, message="queue drained")
    assert live.dlq_depth() == 0
    exported = export(alice)
    assert_whole(exported)
    facts = [
        (section, status, version, events)
        for section, _, status, version, events in summary(exported)["facts"]
    ]
    assert facts == [("allergies", "present", 1, ("first_mention",))]
    status, context = alice.call("POST", "/v1/context", {"query": "Можно ли мне амоксициллин?"})
    assert context["pending"] == [] and "пенициллин" in context["prompt"].lower()


def test_poison_messages_go_to_the_dlq_without_holding_up_other_users(live):
    from ltm_local.emulator import client

    sqs = client("sqs", live.endpoint)
    queue = live.queue()
    poison = {
        "not-json": "this is not json",
        "wrong-shape": json.dumps({"user": "x"}),
        "wrong-types": json.dumps({"user_id": ["a"], "fragment_id": {"b": 1}}),
    }
    for group, body in poison.items():
        sqs.send_message(
            QueueUrl=queue.url,
            MessageBody=body,
            MessageGroupId=f"poison-{group}",
            MessageDeduplicationId=f"poison-{group}",
        )
    users = {f"healthy-{i}": live.client(f"healthy-{i}") for i in range(3)}
    accepted = {}
    for name, client_ in users.items():
        for text in (ALLERGY, "Пью Энап 5 мг по утрам"):
            status, body = client_.say(text)
            assert status == 202
            accepted.setdefault(name, []).append(body["fragment_id"])

    for name, ids in accepted.items():
        for fragment_id in ids:
            assert wait_for(
                lambda c=users[name], f=fragment_id: fragment_status(c, f) == "applied",
                60,
                message="a healthy fragment applied",
            )
    wait_for(lambda: live.dlq_depth() == len(poison), 90, 0.2, message="every poison message in the DLQ")
    parked = _dlq_bodies(live)
    assert sorted(p["group"] for p in parked) == sorted(f"poison-{g}" for g in poison)
    for client_ in users.values():
        exported = export(client_)
        assert_whole(exported)
        assert len(exported["facts"]) == 2
    sqs.purge_queue(QueueUrl=queue.dlq_url)


@pytest.mark.parametrize("model_down", [False, True], ids=["poison-first", "poison-after-a-failure"])
def test_one_batch_with_poison_fails_only_the_poison_and_what_follows_it_in_its_group(
    live, model, model_down
):
    """Partial batch response, FIFO rules: a failed record fails the rest of ITS group only, and a
    poison message is a failed record wherever it sits in the batch, never a crashed batch (which
    would retry, and eventually dead-letter, every other user's record in it too)."""
    from ltm_local.events import sqs_event

    _, switch = model
    bob = live.client(f"batch-bob-{model_down}")
    carol = live.client(f"batch-carol-{model_down}")
    _, carols = carol.say(ALLERGY)
    wait_for(lambda: fragment_status(carol, carols["fragment_id"]) == "applied", 30, message="applied")
    switch.fault = FAULTS["server_error"]  # bob's fragment stays queued; carol's is done already
    _, bobs = bob.say("Пью Энап 5 мг по утрам")
    wait_for(lambda: fragment_status(bob, bobs["fragment_id"]) == "processing", 30, message="processing")

    bob_ok = json.dumps({"user_id": f"batch-bob-{model_down}", "fragment_id": bobs["fragment_id"]})
    carol_ok = json.dumps({"user_id": f"batch-carol-{model_down}", "fragment_id": carols["fragment_id"]})
    group_b, group_c = f"batch-bob-{model_down}", f"batch-carol-{model_down}"
    if model_down:  # bob's record fails on the model, then a poison message in the same group
        batch = [
            received(bob_ok, "m1", group=group_b),
            received("not json at all", "m2", group=group_b),
            received(carol_ok, "m3", group=group_c),
        ]
    else:
        switch.fault = None
        batch = [
            received("not json at all", "m1", group=group_b),
            received(bob_ok, "m2", group=group_b),
            received(carol_ok, "m3", group=group_c),
        ]
    result = live.stack.invoker.invoke("extract", sqs_event(batch, live.queue().arn))
    assert sorted(f["itemIdentifier"] for f in result["batchItemFailures"]) == ["m1", "m2"]
    switch.fault = None
    assert wait_for(lambda: fragment_status(bob, bobs["fragment_id"]) == "applied", 60, message="bob applied")
    wait_for(lambda: live.dlq_depth() == 0 and live.queue_depth(live.queue().url) == 0, 30, message="idle")
