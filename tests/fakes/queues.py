"""The fragment queue (``ports.FragmentQueue``) as a list, for tests that run the write path in-process."""

from __future__ import annotations


class ListQueue:
    """Keeps what was sent, in order: the worker then processes ``sent[-1]`` by hand."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def send(self, user_id: str, fragment_id: str) -> None:
        self.sent.append((user_id, fragment_id))
