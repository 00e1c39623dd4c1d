"""The read path's round trips, counted: one DynamoDB Query per key range of the selected sections
(a run of adjacent sections; the small always-read items folded into the first run or one more
range; issue 12), run in parallel and bounded; at most one embedding and one vector query, no
model call."""

from __future__ import annotations

import pytest

from health_ltm import wiring

from .conftest import api_event, call, drain_extraction


class Counting:
    def __init__(self, inner, method: str):
        self.inner, self.method, self.calls = inner, method, 0

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if name != self.method:
            return attr

        def counted(*args, **kwargs):
            self.calls += 1
            return attr(*args, **kwargs)

        return counted


@pytest.fixture
def counted(cloud, monkeypatch):
    for text in [
        "У меня аллергия на арахис",
        "Пью Энап 5 мг по утрам от давления",
        "Третий день болит голова",
        "В 2019 году удалили аппендикс",
        "У мамы диабет 2 типа",
    ]:
        call(
            api_event(
                "POST",
                "/v1/fragments",
                body={"session_id": "s", "messages": [{"role": "user", "text": text}]},
            )
        )
    drain_extraction(cloud)
    embedder = Counting(wiring.embedder(), "embed")
    index = Counting(wiring.vector_index(), "search")
    monkeypatch.setattr(wiring, "embedder", lambda: embedder)
    monkeypatch.setattr(wiring, "vector_index", lambda: index)
    dynamo_calls: list[str] = []
    wiring.repository().client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: dynamo_calls.append(model.name)
    )
    return embedder, index, dynamo_calls


@pytest.mark.parametrize(
    ("query", "wants_episodes"),
    [("Можно ли мне ибупрофен от головной боли?", True), ("Что мне приготовить на ужин?", False)],
)
def test_one_query_per_section_range_and_at_most_one_vector_search(counted, query, wants_episodes):
    from health_ltm.storage import keys

    embedder, index, dynamo_calls = counted
    dynamo_calls.clear()
    status, ctx = call(api_event("POST", "/v1/context", body={"query": query}))
    assert status == 200 and len(ctx["sections"]) >= 3
    # Was exactly one Query over the whole profile; now one per range of the asked sections,
    # whole or (riding along for safety) as their current state.
    light = set(ctx["current_state"])
    whole = [s for s in ctx["sections"] if s not in light]
    expected = len(keys.read_ranges(whole)) + len(keys.current_ranges(light))
    assert dynamo_calls == ["Query"] * expected
    assert expected <= 2 * keys.max_read_ranges()
    if wants_episodes:  # a drug question: its safety sections are lines, in one Query
        assert {"allergies", "medications", "chronic_conditions"} <= light
        assert len(keys.current_ranges(light)) == 1 and expected <= 3
    assert embedder.calls == index.calls == (1 if wants_episodes else 0)
    assert ctx["episodes_status"] == ("ok" if wants_episodes else "skipped")


def test_no_model_is_called_on_the_read_path(counted, monkeypatch):
    import health_ltm.adapters.openai_llm as llm

    def forbidden(*args, **kwargs):
        raise AssertionError("the read path called a model")

    monkeypatch.setattr(llm, "openai_client", forbidden)
    assert call(api_event("POST", "/v1/context", body={"query": "Можно ли мне ибупрофен?"}))[0] == 200


class BrokenIndex:
    def search(self, *args, **kwargs):
        raise ConnectionError("vector store down")


def test_vector_store_down_degrades_to_facts_only(counted, monkeypatch):
    monkeypatch.setattr(wiring, "vector_index", lambda: BrokenIndex())
    status, ctx = call(
        api_event("POST", "/v1/context", body={"query": "Третий день болит голова, что делать?"})
    )
    assert status == 200 and ctx["episodes_status"] == "unavailable"
    assert ctx["self_reported"]
