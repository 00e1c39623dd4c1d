"""In-process twin of the DynamoDB repository: same conditions, same outcomes, no network.

Used by unit tests and by the in-process benchmarks; contract tests run both implementations
through the same cases so they cannot drift apart.
"""

from __future__ import annotations

import bisect
import copy
import threading
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..domain.models import (
    AppliedEvent,
    CurrentFact,
    EndedFact,
    Episode,
    Fact,
    Fragment,
    FragmentStatus,
    HistoryEvent,
    PendingMention,
    RejectedEvent,
    UserMemory,
    is_ended,
)
from ..domain.sections import Section
from ..domain.sessions import SessionBuffer
from ..errors import ConflictError, FragmentGone
from ..ports import ChangeSet

if TYPE_CHECKING:
    from ..ports import MemoryRepository
from . import keys
from .codec import from_millis, to_millis

_KINDS: dict[str, str] = {}  # sort key -> what it holds (keys.context_kind), worked out once per key
_MISSING = object()
_RANGED = (keys.CONTEXT_PREFIX, keys.CURRENT_PREFIX)  # the prefixes loads read by key range


def _current(fact: Fact, documented: bool = False) -> tuple[bool, Fact | EndedFact | None]:
    """A fact's current-state copy as a load hands it out, made once when the fact is written
    (the DynamoDB twin stores ``CurrentFact`` JSON and makes the same view when it parses it)."""
    return documented, CurrentFact.of(fact).view(fact.section, fact.id, documented)


class _Rows(dict[str, Any]):
    """One user's items by sort key, keeping the CTX# and CUR# keys sorted beside them, so a load
    reads key ranges as a Query does (whichever way an item is written or removed)."""

    def __init__(self) -> None:
        super().__init__()
        self.ctx: list[str] = []

    def __setitem__(self, sk: str, value: Any) -> None:
        if sk.startswith(_RANGED) and sk not in self:
            bisect.insort(self.ctx, sk)
        super().__setitem__(sk, value)

    def __delitem__(self, sk: str) -> None:
        super().__delitem__(sk)
        if sk.startswith(_RANGED):
            del self.ctx[bisect.bisect_left(self.ctx, sk)]

    def pop(self, sk: str, default: Any = _MISSING) -> Any:
        if sk in self:
            value = self[sk]
            del self[sk]
            return value
        if default is _MISSING:
            raise KeyError(sk)
        return default

    def setdefault(self, sk: str, default: Any = None) -> Any:
        if sk not in self:
            self[sk] = default
        return self[sk]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for sk, value in dict(*args, **kwargs).items():
            self[sk] = value


class InMemoryRepository:
    def __init__(self) -> None:
        self._users: dict[str, _Rows] = {}
        self._tombstones: set[str] = set()  # erased users (DynamoRepository: TOMB# items with a TTL)
        self._lock = threading.RLock()
        self.calls = 0
        self.items_read = 0  # CTX# items the loads went through (the DynamoDB twin counts the same)

    def _user(self, user_id: str) -> _Rows:
        rows = self._users.get(user_id)
        if rows is None:
            rows = self._users[user_id] = _Rows()
        return rows

    def _rows(self, user_id: str) -> _Rows:
        """The user's rows to read (a fresh empty set for an unknown user: writes to it go nowhere)."""
        return self._users.get(user_id) or _Rows()

    def _put(self, user_id: str, sk: str, value: Any) -> None:
        self._user(user_id)[sk] = value

    def _pop(self, user_id: str, sk: str) -> None:
        self._rows(user_id).pop(sk, None)

    # ---------------------------------------------------------------- read path
    def load_memory(
        self,
        user_id: str,
        sections: Sequence[Section] | None = None,
        ended: bool = True,
        current_state: Collection[Section] = (),
    ) -> UserMemory:
        """The same key ranges as the DynamoDB twin (one call per range), over the sorted keys."""
        if sections is None:
            ranges = [(keys.CONTEXT_PREFIX, keys.CONTEXT_PREFIX[:-1] + "$")]
            wanted = None
            ended = True
        else:
            asked = {s.value if isinstance(s, Section) else s for s in sections}
            light = asked & {s.value if isinstance(s, Section) else s for s in current_state}
            wanted = asked - light
            ranges = keys.read_ranges(wanted)
            if ended:
                ranges = keys.ended_ranges(wanted) + ranges
            ranges += keys.current_ranges(light)
        memory = UserMemory()
        # Facts are handed out as stored, not copied: every write stores its own deep copy and
        # replaces it whole, nothing changes a stored fact in place, and callers treat a loaded
        # memory as read-only (DynamoDB parses fresh objects). Copying the 2,000 facts a drug
        # question reads in a 5,000-fact profile cost more than the rest of the load.
        facts, documented = memory.facts, memory.documented
        with self._lock:
            self.calls += len(ranges)
            rows = self._rows(user_id)
            ordered = rows.ctx
            current = keys.CURRENT_PREFIX
            for lo, hi in ranges:
                found = ordered[bisect.bisect_left(ordered, lo) : bisect.bisect_right(ordered, hi)]
                self.items_read += len(found)
                if lo.startswith(current):  # a range of current-state copies: (documented, view),
                    for sk in found:  # made when written; inline of codec.add_current (~2,000 a question)
                        documented_copy, view = rows[sk]
                        if view is None:
                            pass
                        elif type(view) is EndedFact:
                            memory.ended.append(view)
                        else:
                            (documented if documented_copy else facts).append(view)
                    continue
                for sk in found:
                    value = rows[sk]
                    kind = _KINDS.get(sk) or _KINDS.setdefault(sk, keys.context_kind(sk) or "")
                    if kind == "fact":
                        if wanted is not None and value.section not in wanted:  # a StrEnum: a str
                            continue
                        if type(value) is EndedFact:  # a brief: its whole fact is at CTX#E#
                            if not ended:
                                memory.ended.append(value)
                        else:
                            facts.append(value)
                    elif kind == "documented":
                        if wanted is None or value.section in wanted:
                            documented.append(value)
                    elif kind == "section":
                        memory.sections[value.section] = value.model_copy()
                    elif kind == "clarification":
                        memory.clarifications.append(value)
                    elif kind == "pending":
                        memory.pending.append(value)
                    elif kind == "summary":
                        memory.summary = value.get("text")
                        memory.summary_fingerprint = value.get("fingerprint")
        return memory

    def get_fact(self, user_id: str, fact_id: str) -> Fact | None:
        self.calls += 1  # one BatchGetItem of the fact's possible keys
        with self._lock:
            rows = self._rows(user_id)
            for section in Section:
                fact = rows.get(keys.fact_sk(section, fact_id))
                if type(fact) is EndedFact:
                    fact = rows.get(keys.ended_sk(section, fact_id))
                if fact is not None:
                    return fact.model_copy()
        return None

    def get_history(self, user_id: str, fact_id: str) -> list[HistoryEvent]:
        self.calls += 1
        prefix = keys.history_prefix(fact_id)
        with self._lock:
            rows = sorted((sk, v) for sk, v in self._rows(user_id).items() if sk.startswith(prefix))
        return [v for _, v in rows]

    # ---------------------------------------------------------------- fragments
    def create_fragment(
        self, user_id: str, fragment: Fragment, pending: PendingMention | None, new_start: bool = True
    ) -> bool:
        self.calls += 1
        with self._lock:
            if not new_start and user_id in self._tombstones:
                return False
            rows = self._user(user_id)
            sk = keys.fragment_sk(fragment.id)
            if sk in rows:
                return False
            self._tombstones.discard(user_id)  # a new fragment after an erasure: a new start
            rows[sk] = {"fragment": fragment.model_copy(), "done": set()}
            if pending is not None:
                self._put(user_id, keys.pending_sk(fragment.id), pending)
        return True

    def get_fragment(self, user_id: str, fragment_id: str) -> Fragment | None:
        self.calls += 1
        with self._lock:
            row = self._rows(user_id).get(keys.fragment_sk(fragment_id))
            if row is None:
                return None
            return row["fragment"].model_copy(deep=True, update={"done": set(row["done"])})

    def transition_fragment(
        self,
        user_id: str,
        fragment: Fragment,
        to: FragmentStatus,
        expected: Sequence[FragmentStatus],
        rejected: Sequence[dict] = (),
        reason: str | None = None,
    ) -> Fragment:
        self.calls += 1
        with self._lock:
            rows = self._rows(user_id)
            row = rows.get(keys.fragment_sk(fragment.id))
            if row is None or row["fragment"].status not in expected:
                raise FragmentGone(fragment.id)
            stored: Fragment = row["fragment"]
            stored.status = to
            stored.version += 1
            stored.rejected.extend(RejectedEvent.model_validate(r) for r in rejected)
            if reason:
                stored.reason = reason
            if to in (FragmentStatus.APPLIED, FragmentStatus.REJECTED, FragmentStatus.FAILED):
                self._pop(user_id, keys.pending_sk(fragment.id))
            return stored.model_copy(deep=True, update={"done": set(row["done"])})

    # ---------------------------------------------------------------- write path
    def apply(
        self,
        user_id: str,
        fragment_id: str | None,
        changes: ChangeSet,
        applied: Sequence[dict] = (),
        fingerprint: str | None = None,
    ) -> None:
        self.calls += 1
        with self._lock:
            rows = self._user(user_id)
            # Check every condition first: all or nothing, like TransactWriteItems.
            for write in changes.facts:
                # A fact's section is part of its key: one that changed section is not found here
                # and fails its version condition, as it does in DynamoDB.
                current = rows.get(keys.fact_sk(write.fact.section, write.fact.id))
                if write.expected_version is None and current is not None:
                    raise ConflictError("fact exists")
                if write.expected_version is not None and (
                    current is None or current.version != write.expected_version
                ):
                    raise ConflictError("fact version")
                if write.new_key and keys.key_guard_sk(write.fact.section.value, write.fact.key) in rows:
                    raise ConflictError("key taken")
            for section_write in changes.sections:
                current_state = rows.get(keys.section_sk(section_write.state.section.value))
                version = current_state.version if current_state else 0
                if version != section_write.expected_version:
                    raise ConflictError("section version")
            if fragment_id is not None:
                row = rows.get(keys.fragment_sk(fragment_id))
                if row is None or row["fragment"].status is not FragmentStatus.PROCESSING:
                    raise FragmentGone(fragment_id)
                if fingerprint and fingerprint in row["done"]:
                    raise FragmentGone(fragment_id)
            # Then write.
            for write in changes.facts:
                fact = write.fact.model_copy(deep=True)
                brief_key, ended_key = (
                    keys.fact_sk(fact.section, fact.id),
                    keys.ended_sk(fact.section, fact.id),
                )
                if is_ended(fact):  # as the DynamoDB twin: the brief in the section, the fact apart
                    self._put(user_id, ended_key, fact)
                    self._put(user_id, brief_key, EndedFact.of(fact))
                else:
                    self._put(user_id, brief_key, fact)
                    self._pop(user_id, ended_key)
                self._put(user_id, keys.current_sk(fact.section, fact.id), _current(fact))
                rows[keys.history_sk(write.event.fact_id, write.event.id)] = write.event
                if write.new_key:
                    rows[keys.key_guard_sk(write.fact.section.value, write.fact.key)] = write.fact.id
                if write.release_key:
                    rows.pop(keys.key_guard_sk(write.release_key[0].value, write.release_key[1]), None)
            for section_write in changes.sections:
                self._put(
                    user_id, keys.section_sk(section_write.state.section), section_write.state.model_copy()
                )
                rows[keys.history_sk(section_write.event.fact_id, section_write.event.id)] = (
                    section_write.event
                )
            for clarification in changes.clarifications:
                self._put(user_id, keys.clarification_sk(clarification.id), clarification)
            for clarification_id in changes.resolved_clarifications:
                self._pop(user_id, keys.clarification_sk(clarification_id))
            for copied in changes.copied_history:
                rows[keys.history_sk(copied.fact_id, copied.id)] = copied
            if fragment_id is not None:
                row = rows[keys.fragment_sk(fragment_id)]
                row["fragment"].applied.extend(AppliedEvent.model_validate(a) for a in applied)
                if fingerprint:
                    row["done"].add(fingerprint)

    def put_pending(self, user_id: str, mention: PendingMention) -> bool:
        self.calls += 1
        with self._lock:
            if user_id in self._tombstones:
                return False
            self._put(user_id, keys.pending_sk(mention.fragment_id), mention)
        return True

    def mark_active(self, user_id: str, day: str) -> None:
        self.calls += 1
        with self._lock:
            if user_id in self._tombstones:
                return
            self._user(user_id)[keys.active_sk(day)] = {"day": day}

    def get_scheduler_day(self) -> str | None:
        return getattr(self, "_scheduler_day", None)

    def put_scheduler_day(self, day: str) -> None:
        self._scheduler_day = day

    def list_active_users_page(
        self, day: str, cursor: dict | None = None, limit: int = 1000
    ) -> tuple[list[str], dict | None]:
        self.calls += 1
        with self._lock:  # a scan of every user: the stand-in for the sparse GSI
            due = sorted(u for u, rows in self._users.items() if keys.active_sk(day) in rows)
        users = [u for u in due if cursor is None or u > cursor["after"]]
        page = users[:limit]
        return page, ({"after": page[-1]} if len(users) > limit else None)

    # ---------------------------------------------------------------- episodes
    def put_episode(self, user_id: str, episode: Episode) -> None:
        self.calls += 1
        with self._lock:
            if user_id in self._tombstones:
                return
            self._user(user_id)[keys.episode_sk(episode.id)] = episode.model_copy()

    def get_episode(self, user_id: str, episode_id: str) -> Episode | None:
        self.calls += 1
        with self._lock:
            episode = self._rows(user_id).get(keys.episode_sk(episode_id))
            return episode.model_copy() if episode else None

    def delete_episode(self, user_id: str, episode_id: str) -> None:
        self.calls += 1
        with self._lock:
            self._rows(user_id).pop(keys.episode_sk(episode_id), None)

    def list_episodes(self, user_id: str) -> list[Episode]:
        self.calls += 1
        with self._lock:
            return [v for sk, v in sorted(self._rows(user_id).items()) if sk.startswith("EPI#")]

    def recent_episodes(self, user_id: str, limit: int) -> list[Episode]:
        self.calls += 1
        with self._lock:
            rows = sorted(
                ((sk, v) for sk, v in self._rows(user_id).items() if sk.startswith("EPI#")),
                key=lambda r: r[0],
            )
            return [v for _, v in reversed(rows[-limit:])] if limit > 0 else []

    def add_episode_retrievals(self, user_id: str, episode_id: str, count: int, last_at: datetime) -> bool:
        self.calls += 1
        last_at = from_millis(to_millis(last_at))  # the precision DynamoDB keeps
        with self._lock:
            rows = self._rows(user_id)
            stored = rows.get(keys.episode_sk(episode_id))
            if stored is None:
                return False
            previous = stored.last_retrieved_at
            rows[keys.episode_sk(episode_id)] = stored.model_copy(
                update={
                    "retrieval_count": stored.retrieval_count + count,
                    "last_retrieved_at": last_at if previous is None else max(previous, last_at),
                }
            )
            return True

    def update_episode(self, user_id: str, episode: Episode, seen_last_retrieved_at: datetime | None) -> None:
        self.calls += 1
        with self._lock:
            rows = self._rows(user_id)
            stored = rows.get(keys.episode_sk(episode.id))
            if stored is None or stored.last_retrieved_at != seen_last_retrieved_at:
                raise ConflictError("episode changed")
            rows[keys.episode_sk(episode.id)] = episode.model_copy(
                update={
                    "retrieval_count": stored.retrieval_count,
                    "last_retrieved_at": stored.last_retrieved_at,
                }
            )

    # ---------------------------------------------------------------- test and bench helpers
    def put_documented(self, user_id: str, fact: Fact) -> None:
        with self._lock:
            self._put(user_id, keys.documented_sk(fact.section, fact.id), fact.model_copy(deep=True))
            self._put(user_id, keys.current_sk(fact.section, fact.id, documented=True), _current(fact, True))

    def put_summary(self, user_id: str, summary: dict) -> None:
        self.calls += 1
        with self._lock:
            if user_id in self._tombstones:
                return
            self._put(user_id, keys.SUMMARY_SK, dict(summary))

    def get_summary(self, user_id: str) -> dict | None:
        self.calls += 1
        with self._lock:
            value = self._rows(user_id).get(keys.SUMMARY_SK)
            return dict(value) if value else None

    # ---------------------------------------------------------------- export and erasure
    def export(self, user_id: str) -> dict:
        self.calls += 1
        with self._lock:
            rows = copy.deepcopy(dict(self._rows(user_id)))
        out: dict[str, Any] = {
            k: []
            for k in (
                "facts",
                "documented",
                "history",
                "sections",
                "clarifications",
                "pending",
                "fragments",
                "episodes",
            )
        }
        out["summary"] = None
        out["sessions"] = []  # pending turns and recent chat history are held data too
        plural = {"fact": "facts", "section": "sections", "clarification": "clarifications"}
        for sk, value in sorted(rows.items()):  # one ordered pass: every list in key order
            kind = keys.context_kind(sk)
            if type(value) is EndedFact:
                continue  # a brief: the whole fact is exported from the ended block
            if kind == "summary":
                out["summary"] = value
            elif kind is not None:
                out[plural.get(kind, kind)].append(value.model_dump(mode="json"))
            elif sk.startswith("H#"):
                out["history"].append(value.model_dump(mode="json"))
            elif sk.startswith("FRAG#"):
                out["fragments"].append(value["fragment"].model_dump(mode="json"))
            elif sk.startswith("EPI#"):
                out["episodes"].append(value.model_dump(mode="json"))
            elif sk.startswith(keys.session_sk("")):
                out["sessions"].append(value.model_dump(mode="json"))
        return out

    def erase(self, user_id: str) -> int:
        self.calls += 1
        with self._lock:
            self._tombstones.add(user_id)
            return len(self._users.pop(user_id, _Rows()))

    def is_erased(self, user_id: str) -> bool:
        with self._lock:
            return user_id in self._tombstones

    # ---------------------------------------------------------------- chat session buffers (issue 8)
    # Same conditions and outcomes as DynamoRepository's section; the idle lookup needs no index here.
    def get_session(self, user_id: str, session_id: str) -> SessionBuffer | None:
        self.calls += 1
        with self._lock:
            buffer = self._rows(user_id).get(keys.session_sk(session_id))
            return buffer.model_copy(deep=True) if buffer is not None else None

    def put_session(self, user_id: str, buffer: SessionBuffer, expected_version: int) -> bool:
        self.calls += 1
        with self._lock:
            rows = self._user(user_id)
            current = rows.get(keys.session_sk(buffer.session_id))
            if (current.version if current is not None else 0) != expected_version:
                return False
            rows[keys.session_sk(buffer.session_id)] = buffer.model_copy(deep=True)
            return True

    def list_open_sessions(self, user_id: str) -> list[SessionBuffer]:
        self.calls += 1
        prefix = keys.session_sk("")
        with self._lock:
            return [
                v.model_copy(deep=True)
                for sk, v in sorted(self._rows(user_id).items())
                if sk.startswith(prefix) and v.idle_due is not None
            ]

    def list_due_sessions(self, day: str, until: datetime) -> list[tuple[str, str]]:
        self.calls += 1
        prefix = keys.session_sk("")
        with self._lock:
            return [
                (user_id, v.session_id)
                for user_id, rows in sorted(self._users.items())
                for sk, v in sorted(rows.items())
                if sk.startswith(prefix)
                and v.idle_due is not None
                and v.idle_due.astimezone(UTC).date().isoformat() == day
                and v.idle_due <= until
            ]

    def get_session_sweep_day(self) -> str | None:
        return getattr(self, "_session_sweep_day", None)

    def put_session_sweep_day(self, day: str) -> None:
        self._session_sweep_day = day


if TYPE_CHECKING:  # tests stand it in for DynamoRepository: it must fill every role too
    _implements: type[MemoryRepository] = InMemoryRepository
