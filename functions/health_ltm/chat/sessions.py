"""Session buffering: chat turns become coherent fragments for the write path (seed 000), not one
extraction per message.

A session's turns wait in its buffer (one item, ``SESS#<session_id>``) and are flushed as ONE
fragment when the session has had ``N`` user turns, when the client ends it, when it has been
idle for ``T`` minutes (the maintenance schedule finds it through the sparse idle marker), or when
the same user starts another session (so what was just said reaches the next conversation's
context at once, as a "just said, not yet processed" mention, before extraction has run).

Every change to a buffer is a read-modify-write under a version condition (retried on conflict),
so two concurrent writers never lose a turn. A flush is two steps:

1. claim: one conditional write moves the pending turns into the buffer's outbox under a fragment
   id made from (session id, buffer incarnation, sequence number) and bumps the sequence. Only one
   of two concurrent flushes can win it, so each trigger flushes once;
2. hand over: ``write.intake.submit_fragment`` with that fragment id (store + queue), then a
   conditional write drops the entry from the outbox.

Read-your-writes before a flush: ``buffer_mentions`` turns what the buffered user turns said
about allergies or drugs into pending mentions (the same rule as a queued fragment's), under the
fragment id the flush will give them. The read path shows them as "just said, not yet processed"
(POST /v1/context with the session id, and every chat turn of the session); once flushed, the
fragment's own pending mention carries the same id, so the two are one entry.

A function that dies between the two leaves the entry in the outbox; whoever touches the session
next (a turn, an end, the idle sweep) submits it again under the same id, and the same fragment
id is stored and processed once (``create_fragment`` answers False for a duplicate). Nothing in a
buffer is lost, and nothing is sent twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from ..domain.models import PendingMention, Role
from ..domain.sessions import OutboxEntry, SessionBuffer, Turn
from ..errors import BufferBusy
from ..observability import logger
from ..ports import Clock, FragmentQueue, FragmentStore, SessionStore
from ..write.intake import submit_fragment

MAX_WRITE_ATTEMPTS = 12
# A DynamoDB item holds 400 KB: pending turns are claimed before they reach PENDING_BYTES and the
# chat history is trimmed to RECENT_BYTES (an outbox entry is at most one pending list).
PENDING_BYTES = 96_000
RECENT_BYTES = 48_000

TRIGGER_TURNS = "turns"
TRIGGER_END = "end"
TRIGGER_IDLE = "idle"
TRIGGER_NEW_SESSION = "new_session"
TRIGGER_SIZE = "size"


@dataclass(frozen=True)
class BufferPolicy:
    flush_user_turns: int = 6
    idle: timedelta = timedelta(minutes=30)
    history_turns: int = 12
    max_pending_turns: int = 40  # a fragment's message limit (LTM_MAX_MESSAGES)
    max_turn_chars: int = 4000  # a message's length limit (LTM_MAX_MESSAGE_CHARS)

    @classmethod
    def from_settings(cls, settings) -> BufferPolicy:
        return cls(
            flush_user_turns=settings.chat_flush_user_turns,
            idle=timedelta(minutes=settings.chat_idle_minutes),
            history_turns=settings.chat_history_turns,
            max_pending_turns=max(2, settings.max_messages),
            max_turn_chars=settings.max_message_chars,
        )


def fragment_id_for(session_id: str, incarnation: str, seq: int) -> str:
    """Deterministic: the same claim always gets the same fragment id (a retried flush is
    processed once); the incarnation keeps a buffer re-created after expiry from reusing ids."""
    digest = hashlib.blake2b(f"{session_id}\x1f{incarnation}".encode(), digest_size=12).hexdigest()
    return f"chat-{digest}-{seq}"


def buffer_mentions(buffer: SessionBuffer) -> list[PendingMention]:
    """What the buffer's unflushed turns said about allergies or drugs, as pending mentions keyed
    by the fragment each will be flushed as: the pending turns under the next sequence number,
    every claimed outbox entry under its own id."""
    from ..write.mentions import pending_mention  # loaded on first use: off the api cold start

    batches = [(e.fragment_id, e.turns) for e in buffer.outbox]
    if buffer.pending:
        batches.append((fragment_id_for(buffer.session_id, buffer.incarnation, buffer.seq), buffer.pending))
    found: list[PendingMention] = []
    for fragment_id, turns in batches:
        mention = pending_mention(fragment_id, [t.message() for t in turns], max(t.at for t in turns))
        if mention is not None:
            found.append(mention.model_copy(update={"source": "chat_session"}))
    return found


def publish_mentions(
    put_pending: Callable[[str, PendingMention], None], user_id: str, buffer: SessionBuffer
) -> PendingMention | None:
    """Write-time read-your-writes, for a context that names no session: store the pending turns'
    mention under the fragment id their flush will use, so the flush's own pending mention (the
    same key) replaces it. Not wired yet: it needs a repository ``put_pending(user_id, mention)``
    (a plain Put of the pending item with its TTL); then ``record`` calls this after its write.
    Claimed turns need nothing: their hand-over stores the fragment with its mention."""
    claimed = {e.fragment_id for e in buffer.outbox}
    mention = next((m for m in buffer_mentions(buffer) if m.fragment_id not in claimed), None)
    if mention is not None:
        put_pending(user_id, mention)
    return mention


@dataclass
class Recorded:
    buffer: SessionBuffer
    history: list[Turn]  # the session's recent turns before these ones (chat history for the model)
    created: bool  # the first turn of this session
    fragment_ids: list[str] = field(default_factory=list)  # flushed by this call


@dataclass
class Written:
    before: SessionBuffer
    after: SessionBuffer
    wrote: bool


class BufferStore(SessionStore, FragmentStore, Protocol):
    """Buffers live in the session rows and are handed over as fragments."""


class SessionBuffers:
    def __init__(
        self,
        repository: BufferStore,
        queue: FragmentQueue,
        clock: Clock,
        new_id: Callable[[], str],
        policy: BufferPolicy | None = None,
    ) -> None:
        self.repository = repository
        self.queue = queue
        self.clock = clock
        self.new_id = new_id
        self.policy = policy or BufferPolicy()

    # ------------------------------------------------------------------ triggers
    def record(
        self,
        user_id: str,
        session_id: str,
        turns: Sequence[Turn],
        *,
        close_turn: bool,
        locale: str | None = None,
    ) -> Recorded:
        """Append turns to the session (created on its first turn). ``close_turn``: the turn is
        complete (the answer is in, or there will be none), so N user turns flush now."""
        policy = self.policy
        now = self.clock.now()
        incoming = [t.model_copy(update={"text": t.text[: policy.max_turn_chars]}) for t in turns]
        has_user_turn = any(t.role is Role.USER for t in incoming)

        def change(buffer: SessionBuffer) -> bool:
            if has_user_turn and buffer.user_turns >= policy.flush_user_turns:
                _claim(buffer, TRIGGER_TURNS)  # an earlier turn reached N but never closed (a crash)
            buffer.pending.extend(incoming)
            buffer.user_turns += sum(t.role is Role.USER for t in incoming)
            buffer.recent = _trim_history(buffer.recent + incoming, policy.history_turns)
            buffer.last_activity = now
            buffer.locale = locale or buffer.locale
            if close_turn and buffer.user_turns >= policy.flush_user_turns:
                _claim(buffer, TRIGGER_TURNS)
            elif len(buffer.pending) >= policy.max_pending_turns or _bytes(buffer.pending) >= PENDING_BYTES:
                _claim(buffer, TRIGGER_SIZE)
            return True

        written = self._update(user_id, session_id, change, now, create=True)
        assert written is not None  # create=True always yields a buffer
        if has_user_turn:
            self._store_mentions(user_id, written.after)
        return Recorded(
            buffer=written.after,
            history=list(written.before.recent),
            created=written.before.version == 0,
            fragment_ids=self._hand_over(user_id, written.after),
        )

    def _store_mentions(self, user_id: str, buffer: SessionBuffer) -> None:
        """What the unflushed turns said about allergies or drugs, stored as pending mentions now:
        the next context sees them whether or not it names the session. Best effort: the chat
        route's own context reads the buffer anyway, and the flush stores the fragment's mention."""
        try:
            for mention in buffer_mentions(buffer):
                self.repository.put_pending(user_id, mention)
        except Exception:  # a failed read-your-writes hint must not fail the turn
            logger.warning("pending mention not stored", extra={"reason": "store_failed"})

    def close_turn(self, user_id: str, session_id: str) -> list[str]:
        """A turn ended without an answer (the model failed): flush if it was the N-th."""
        limit = self.policy.flush_user_turns

        def change(buffer: SessionBuffer) -> bool:
            return buffer.user_turns >= limit and _claim(buffer, TRIGGER_TURNS)

        written = self._update(user_id, session_id, change, self.clock.now(), create=False)
        return self._hand_over(user_id, written.after) if written else []

    def end(self, user_id: str, session_id: str) -> list[str] | None:
        """POST /v1/sessions/{id}/end: flush what is pending. None when the session is unknown;
        an empty list when there was nothing to flush (a repeated end flushes nothing)."""
        written = self._update(
            user_id, session_id, lambda b: _claim(b, TRIGGER_END), self.clock.now(), create=False
        )
        if written is None:
            return None
        claimed = [e.fragment_id for e in written.after.outbox]
        self._hand_over(user_id, written.after)  # a failed hand-over is retried; the ids stand
        return claimed

    def flush_others(self, user_id: str, keep_session_id: str) -> list[str]:
        """A new session supersedes the user's other open buffers: flush them now."""
        flushed: list[str] = []
        for other in self.repository.list_open_sessions(user_id):
            if other.session_id == keep_session_id:
                continue
            written = self._update(
                user_id,
                other.session_id,
                lambda b: _claim(b, TRIGGER_NEW_SESSION),
                self.clock.now(),
                create=False,
            )
            if written is not None:
                flushed.extend(self._hand_over(user_id, written.after))
        return flushed

    def flush_if_idle(
        self, user_id: str, session_id: str, now: datetime | None = None
    ) -> tuple[str, list[str]]:
        """The idle sweep found this session's marker due. Returns (outcome, fragment ids):
        flushed | rearmed (active since: the marker moves to last activity + T) | retried (an
        unfinished hand-over) | cleared (a stale marker) | gone. Raises if the hand-over fails
        (the marker stays, the next sweep retries)."""
        now = now or self.clock.now()
        idle = self.policy.idle
        outcome = ["retried"]

        def change(buffer: SessionBuffer) -> bool:
            if not buffer.open:
                outcome[0] = "cleared"
                return buffer.idle_due is not None  # write only to drop the marker
            if buffer.pending and buffer.last_activity + idle <= now:
                outcome[0] = "flushed"
                return _claim(buffer, TRIGGER_IDLE)
            if buffer.pending:
                outcome[0] = "rearmed"
                buffer.idle_due = buffer.last_activity + idle
                return True
            outcome[0] = "retried"
            return False

        written = self._update(user_id, session_id, change, now, create=False)
        if written is None:
            return "gone", []
        return outcome[0], self._hand_over(user_id, written.after, raise_errors=True)

    # ------------------------------------------------------------------ plumbing
    def _update(
        self,
        user_id: str,
        session_id: str,
        change: Callable[[SessionBuffer], bool],
        now: datetime,
        *,
        create: bool,
    ) -> Written | None:
        """Read, change, write under the version condition; retried on conflict. ``change``
        mutates the buffer and says whether there is anything to write; it must depend only on the
        buffer it is given (it runs again after a conflict)."""
        for _attempt in range(MAX_WRITE_ATTEMPTS):
            current = self.repository.get_session(user_id, session_id)
            if current is None:
                if not create:
                    return None
                current = SessionBuffer(
                    session_id=session_id, incarnation=self.new_id(), created_at=now, last_activity=now
                )
            buffer = current.model_copy(deep=True)
            if not change(buffer):
                return Written(current, current, wrote=False)
            buffer.version = current.version + 1
            _mark(buffer, now, self.policy.idle)
            if self.repository.put_session(user_id, buffer, current.version):
                return Written(current, buffer, wrote=True)
        raise BufferBusy("the session buffer kept changing; retry")

    def _hand_over(self, user_id: str, buffer: SessionBuffer, raise_errors: bool = False) -> list[str]:
        """Store and queue every claimed fragment, then drop it from the outbox. A failure leaves
        the entry (and the idle marker) in place for the next turn, end or sweep."""
        if not buffer.outbox:
            return []
        done: list[str] = []
        try:
            for entry in buffer.outbox:
                submit_fragment(
                    self.repository,
                    self.queue,
                    self.clock,
                    self.new_id,
                    user_id=user_id,
                    session_id=buffer.session_id,
                    messages=[t.message() for t in entry.turns],
                    fragment_id=entry.fragment_id,
                    locale=buffer.locale,
                    new_start=False,  # a flush never re-creates data of an erased user (tombstone)
                )
                done.append(entry.fragment_id)
                logger.info(
                    "session flushed",
                    extra={
                        "fragment_id": entry.fragment_id,
                        "trigger": entry.trigger,
                        "turns": len(entry.turns),
                    },
                )
        except Exception as exc:
            logger.warning("session hand-over deferred", extra={"error_type": type(exc).__name__})
            if raise_errors:
                raise
        finally:
            if done:
                delivered = set(done)

                def drop(b: SessionBuffer) -> bool:
                    before = len(b.outbox)
                    b.outbox = [e for e in b.outbox if e.fragment_id not in delivered]
                    return len(b.outbox) != before

                try:
                    self._update(user_id, buffer.session_id, drop, self.clock.now(), create=False)
                except BufferBusy:
                    # Delivered but still listed: the next touch re-submits; the id makes it a no-op.
                    logger.warning("session outbox not cleared", extra={"error_type": "BufferBusy"})
        return done


def _claim(buffer: SessionBuffer, trigger: str) -> bool:
    """Move the pending turns into the outbox under the next fragment id. False if nothing pends."""
    if not buffer.pending:
        return False
    buffer.outbox.append(
        OutboxEntry(
            fragment_id=fragment_id_for(buffer.session_id, buffer.incarnation, buffer.seq),
            seq=buffer.seq,
            trigger=trigger,
            turns=buffer.pending,
        )
    )
    buffer.seq += 1
    buffer.pending = []
    buffer.user_turns = 0
    return True


def _mark(buffer: SessionBuffer, now: datetime, idle: timedelta) -> None:
    """The sparse idle marker: present while anything is pending or claimed. Set when a buffer
    opens (last activity + T; now, for a claimed-only buffer whose hand-over must be retried) and
    otherwise left alone, so ordinary turns cause no index writes; the sweep re-arms it."""
    if not buffer.open:
        buffer.idle_due = None
    elif buffer.idle_due is None:
        buffer.idle_due = buffer.last_activity + idle if buffer.pending else now


def _bytes(turns: Sequence[Turn]) -> int:
    return sum(len(t.text.encode("utf-8")) + 64 for t in turns)


def _trim_history(turns: list[Turn], keep: int) -> list[Turn]:
    kept = turns[-keep:] if keep > 0 else []
    while kept and _bytes(kept) > RECENT_BYTES:
        kept = kept[1:]
    return kept
