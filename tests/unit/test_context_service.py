"""The read path's use case, built in wiring: a question in, the context out; the route only
parses, calls and responds."""

from __future__ import annotations

from health_ltm.domain.clock import FixedClock
from health_ltm.domain.models import PendingMention
from health_ltm.domain.sections import Section
from health_ltm.read.classify import QueryClassifier
from health_ltm.read.service import ContextService
from health_ltm.storage.memory import InMemoryRepository
from tests.conftest import T0


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def record(self, user_id, episode_ids, at) -> bool:
        self.calls.append((user_id, list(episode_ids)))
        return True


def test_a_session_named_adds_its_buffered_mentions_and_retrievals_are_recorded():
    asked: list[tuple[str, str]] = []
    mention = PendingMention(
        fragment_id="chat-x-0", sections=[Section.ALLERGIES], text="аллергия на пенициллин", received_at=T0
    )

    def session_mentions(user_id: str, session_id: str) -> list[PendingMention]:
        asked.append((user_id, session_id))
        return [mention]

    recorder = Recorder()
    service = ContextService(
        repository=InMemoryRepository(),
        classifier=QueryClassifier(),
        clock=FixedClock(T0),
        episode_timeout_s=0.5,
        stats=recorder,
        session_mentions=session_mentions,
    )
    result = service.build("alice", "Можно ли мне амоксициллин?", 400, session_id="s1")
    assert asked == [("alice", "s1")]
    assert [p.fragment_id for p in result.pending] == ["chat-x-0"] and "пенициллин" in result.prompt
    assert recorder.calls == [("alice", [])]
    # without a session nothing is asked of the buffers
    service.build("alice", "Можно ли мне амоксициллин?", 400)
    assert asked == [("alice", "s1")]
