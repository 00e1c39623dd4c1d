"""POST /v1/fragments: store the fragment (queued), remember what it says about allergies or
drugs for read-your-writes, and queue a reference for the extract worker.

Text is normalised here, once, for matching (``normalize_for_matching``): every later step
(quality filter, classification, extraction, the evidence check, read-your-writes) sees the
normalised ``Message.text``; what the user typed, when it differs, is kept in
``Message.original_text`` as the evidence (docs/decision_log.md).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable
from datetime import datetime

from ..domain.models import Fragment, FragmentStatus, Message
from ..errors import FragmentConflict, FragmentGone, FragmentTooLarge
from ..ports import Clock, FragmentQueue, FragmentStore

# Unicode line and paragraph separators that are not "\n": one newline for matching.
_LINE_BREAKS = {"\u0085": "\n", "\u2028": "\n", "\u2029": "\n", "\r\n": "\n", "\r": "\n", "\x0b": "\n",
                "\x0c": "\n"}


# The fragment is one DynamoDB item (400 KB at most) that also collects, while it is processed, the
# events it applied and the fingerprints of what is done: its stored form may take 300 KB, the
# rest is headroom for those (bounded: a fragment this size names at most a few hundred facts).
MAX_FRAGMENT_STORED_BYTES = 300_000


def normalize_for_matching(text: str) -> str:
    """NFKC (fullwidth letters, ligatures, compatibility forms -> plain), without format characters
    (zero-width space/joiners, soft hyphen, BOM, bidi marks and embeddings: category Cf) and
    control characters other than tab and newline; Unicode line separators become "\\n"."""
    for separator, replacement in _LINE_BREAKS.items():
        text = text.replace(separator, replacement)
    text = unicodedata.normalize("NFKC", text)
    return "".join(
        ch for ch in text
        if ch in "\t\n" or unicodedata.category(ch) not in ("Cf", "Cc")
    )


def normalized_message(message: Message) -> Message:
    if message.original_text is not None:
        return message  # already normalised (a re-submitted stored fragment)
    text = normalize_for_matching(message.text)
    if text == message.text:
        return message
    return message.model_copy(update={"text": text, "original_text": message.text})


def content_digest(session_id: str, locale: str | None, messages: list[Message]) -> str:
    """What makes two submissions the same fragment: session, locale and what was said (as typed)."""
    document = {
        "session_id": session_id,
        "locale": locale,
        "messages": [
            {
                "role": m.role.value,
                "text": m.original_text if m.original_text is not None else m.text,
                "at": m.at.isoformat() if m.at else None,
            }
            for m in messages
        ],
    }
    return hashlib.sha256(json.dumps(document, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def submit_fragment(
    repository: FragmentStore,
    queue: FragmentQueue,
    clock: Clock,
    new_id: Callable[[], str],
    user_id: str,
    session_id: str,
    messages: list[Message],
    fragment_id: str | None = None,
    locale: str | None = None,
    new_start: bool = True,
) -> Fragment:
    """Idempotent by (user, fragment_id): a true retry (same content) answers the same and
    re-queues the same fragment, which SQS FIFO deduplicates (the deduplication id is scoped to
    the user) and the worker's state machine applies once. The same id with other content is a
    FragmentConflict. A retry of a fragment that ended ``failed`` (a poison, fixed since) queues
    it again.

    ``new_start=False`` is for work that began before a possible erasure (a chat session's flush):
    it never re-creates a fragment for an erased user (the tombstone is checked in the same
    transaction), where the user's own POST (``new_start=True``) starts afresh."""
    from .mentions import pending_mention  # loaded on first use: off the api cold start

    now: datetime = clock.now()
    messages = [normalized_message(m) for m in messages]
    fragment = Fragment(
        id=fragment_id or new_id(),
        session_id=session_id,
        messages=messages,
        locale=locale,
        status=FragmentStatus.QUEUED,
        received_at=now,
    )
    stored = fragment.model_dump_json(exclude={"applied", "rejected", "status", "version"})
    stored_bytes = len(stored.encode())
    if stored_bytes > MAX_FRAGMENT_STORED_BYTES:
        raise FragmentTooLarge(
            f"the fragment takes {stored_bytes} bytes stored, at most {MAX_FRAGMENT_STORED_BYTES}: "
            "send it as several fragments"
        )
    pending = pending_mention(fragment.id, messages, now)
    if new_start:
        created = repository.create_fragment(user_id, fragment, pending)
    else:
        created = repository.create_fragment(user_id, fragment, pending, new_start=False)
    if not created:
        existing = repository.get_fragment(user_id, fragment.id)
        if existing is None and not new_start and repository.is_erased(user_id):
            return fragment  # erased meanwhile: nothing stored, nothing queued
        if existing is None:
            raise RuntimeError("fragment vanished between create and read")
        if content_digest(existing.session_id, existing.locale, existing.messages) != content_digest(
            session_id, locale, messages
        ):
            raise FragmentConflict(
                f"fragment id {fragment.id} is already used for a different fragment: "
                "use a new fragment_id for new content"
            )
        if existing.status is FragmentStatus.FAILED:
            try:
                existing = repository.transition_fragment(
                    user_id, existing, FragmentStatus.QUEUED, [FragmentStatus.FAILED]
                )
            except FragmentGone:
                existing = repository.get_fragment(user_id, fragment.id) or existing
            else:
                # A fresh deduplication id: the 5-minute FIFO window must not swallow the re-queue.
                resend = getattr(queue, "resend", None)
                if resend is not None:
                    resend(user_id, existing.id, existing.version)
                else:
                    queue.send(user_id, existing.id)
                return existing
        if existing.status is not FragmentStatus.QUEUED:
            return existing
        fragment = existing
    queue.send(user_id, fragment.id)
    return fragment
