"""POST /v1/fragments: store the fragment (queued), remember what it says about allergies or
drugs for read-your-writes, and queue a reference for the extract worker."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from ..domain.models import Fragment, FragmentStatus, Message
from ..ports import Clock, FragmentQueue


def submit_fragment(
    repository,
    queue: FragmentQueue,
    clock: Clock,
    new_id: Callable[[], str],
    user_id: str,
    session_id: str,
    messages: list[Message],
    fragment_id: str | None = None,
    locale: str | None = None,
) -> Fragment:
    """Idempotent by fragment_id: a retry re-queues the same fragment; SQS FIFO deduplicates it
    and the worker's state machine applies it once."""
    from .mentions import pending_mention  # loaded on first use: off the api cold start

    now: datetime = clock.now()
    fragment = Fragment(
        id=fragment_id or new_id(),
        session_id=session_id,
        messages=messages,
        locale=locale,
        status=FragmentStatus.QUEUED,
        received_at=now,
    )
    pending = pending_mention(fragment.id, messages, now)
    created = repository.create_fragment(user_id, fragment, pending)
    if not created:
        existing = repository.get_fragment(user_id, fragment.id)
        if existing is None:
            raise RuntimeError("fragment vanished between create and read")
        if existing.status is not FragmentStatus.QUEUED:
            return existing
        fragment = existing
    queue.send(user_id, fragment.id)
    return fragment
