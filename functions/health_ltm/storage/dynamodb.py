"""DynamoDB implementation of the MemoryRepository port (AWS, and moto locally/in tests).

boto3 honours AWS_ENDPOINT_URL, so the same code talks to AWS and to the local emulator.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import cached_property, lru_cache
from typing import Any

from ..domain.models import (
    Episode,
    Fact,
    Fragment,
    FragmentStatus,
    HistoryEvent,
    PendingMention,
    UserMemory,
    is_ended,
    was_ended,
)
from ..domain.sections import Section
from ..domain.sessions import SessionBuffer
from ..errors import ConflictError, FragmentGone
from ..ports import ChangeSet, FactWrite, SectionWrite
from ..schema import ACTIVE_DAY_ATTRIBUTE, ACTIVE_USER_ATTRIBUTE, ACTIVE_USERS_INDEX, TTL_ATTRIBUTE
from . import keys
from .codec import (
    LAST_RETRIEVED,
    RETRIEVALS,
    applied_entries,
    current_item,
    ended_data,
    episode_from_item,
    fact_data,
    fragment_item,
    parse_context_item,
    parse_current_item,
    to_millis,
)

FRAGMENT_TTL = timedelta(days=90)
PENDING_TTL = timedelta(days=2)
# Must outlive the longest policy horizon (policies.json: episodes 180 days): the scheduler looks
# up users active exactly that many days ago.
ACTIVE_MARKER_TTL = timedelta(days=400)
TOMBSTONE_TTL = timedelta(days=15)  # > the DLQ retention (14 days): nothing in flight outlives it


def _s(value: str) -> dict:
    return {"S": value}


def _n(value: int | float) -> dict:
    return {"N": str(value)}


def _epoch(dt: datetime) -> int:
    return int(dt.timestamp())


class DynamoRepository:
    """All access is keyed by USER#<user_id>; there is no code path without a user id."""

    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = client
        self._counter_lock = threading.Lock()
        self.calls = 0  # storage round trips, for tests and benchmarks
        self.items_read = 0  # items returned by reads (Query, GetItem, BatchGetItem)
        # Their size as DynamoDB bills it is metered from outside when wanted (bench/harness.py
        # hooks botocore's events): sizing every item costs half as much again as parsing it.

    @cached_property
    def client(self) -> Any:
        if self._client is not None:
            return self._client
        import boto3

        return boto3.client("dynamodb")

    def _count(self) -> None:
        with self._counter_lock:
            self.calls += 1

    def _call(self, op: str, **kwargs: Any) -> dict:
        self._count()
        response = getattr(self.client, op)(TableName=self.table_name, **kwargs)
        if not response:  # a recording stand-in client (bench/cost.py) answers nothing
            return {}
        if "Items" in response:
            self._read(response["Items"])
        elif response.get("Item"):
            self._read([response["Item"]])
        return response

    def _read(self, items: list[dict]) -> None:
        with self._counter_lock:
            self.items_read += len(items)

    # ---------------------------------------------------------------- read path
    def load_memory(
        self,
        user_id: str,
        sections: Sequence[Section] | None = None,
        ended: bool = True,
        current_state: Collection[Section] = (),
    ) -> UserMemory:
        """Without sections: the whole CTX# range (the write path and maintenance). With sections:
        one Query per key range of ``keys.read_ranges`` (a run of adjacent sections, the small
        always-read items among them), the ranges in parallel; at most ``keys.max_read_ranges()``
        Queries per block, plus pages. ``ended=False`` (a question about the present): ended facts
        come as their briefs (``UserMemory.ended``) and their whole facts are not read.
        ``current_state``: of the asked sections, those read as their current-state copies
        (``CurrentFact``, ``keys.current_ranges``) instead of their whole facts."""
        pk = _s(keys.user_pk(user_id))
        if sections is None:
            condition = "PK = :pk AND begins_with(SK, :lo)"
            return self._query_context(
                {
                    "KeyConditionExpression": condition,
                    "ExpressionAttributeValues": {":pk": pk, ":lo": _s("CTX#")},
                },
                None,
            )
        asked = {s.value if isinstance(s, Section) else s for s in sections}
        light = asked & {s.value if isinstance(s, Section) else s for s in current_state}
        wanted = asked - light
        ranges = keys.read_ranges(wanted)
        if ended:
            ranges = keys.ended_ranges(wanted) + ranges  # in key order: CTX#E# sorts first
        ranges += keys.current_ranges(light)  # CUR# sorts after CTX#
        requests = [
            {
                "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": {":pk": pk, ":lo": _s(lo), ":hi": _s(hi)},
            }
            for lo, hi in ranges
        ]
        briefs = not ended
        self.client  # noqa: B018 - resolve the client once, before the threads share it
        futures = [_read_pool().submit(self._query_context, r, wanted, briefs) for r in requests[1:]]
        parts = [self._query_context(requests[0], wanted, briefs)] + [f.result() for f in futures]
        memory = parts[0]
        for part in parts[1:]:  # in key order, as the in-process twin reads them
            memory.facts.extend(part.facts)
            memory.ended.extend(part.ended)
            memory.documented.extend(part.documented)
            memory.sections.update(part.sections)
            memory.clarifications.extend(part.clarifications)
            memory.pending.extend(part.pending)
            if part.summary is not None or part.summary_fingerprint is not None:
                memory.summary, memory.summary_fingerprint = part.summary, part.summary_fingerprint
        return memory

    def _query_context(
        self, kwargs: dict[str, Any], wanted: set[str] | None, briefs: bool = False
    ) -> UserMemory:
        memory = UserMemory()
        while True:
            page = self._call("query", **kwargs)
            for item in page.get("Items", []):
                if item["SK"]["S"].startswith(keys.CURRENT_PREFIX):
                    parse_current_item(item, memory)
                else:
                    parse_context_item(item, memory, wanted, briefs)
            if "LastEvaluatedKey" not in page:
                return memory
            kwargs = {**kwargs, "ExclusiveStartKey": page["LastEvaluatedKey"]}

    def get_fact(self, user_id: str, fact_id: str) -> Fact | None:
        """By id alone: one BatchGetItem of the fact's possible keys, one per section (at most one
        exists; a missing key costs the minimum read unit and nothing else)."""
        pk = _s(keys.user_pk(user_id))
        candidates = [keys.fact_sk(s, fact_id) for s in Section] + [
            keys.ended_sk(s, fact_id) for s in Section
        ]
        request: dict[str, Any] = {self.table_name: {"Keys": [{"PK": pk, "SK": _s(sk)} for sk in candidates]}}
        found: list[dict] = []
        for _attempt in range(8):
            self._count()
            response = self.client.batch_get_item(RequestItems=request)
            items = response.get("Responses", {}).get(self.table_name, [])
            self._read(items)
            found.extend(i for i in items if i["kind"]["S"] == "fact")  # not an ended fact's brief
            request = response.get("UnprocessedKeys") or {}
            if found or not request:
                break
        return Fact.model_validate_json(found[0]["data"]["S"]) if found else None

    def get_history(self, user_id: str, fact_id: str) -> list[HistoryEvent]:
        events: list[HistoryEvent] = []
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :h)",
            "ExpressionAttributeValues": {
                ":pk": _s(keys.user_pk(user_id)),
                ":h": _s(keys.history_prefix(fact_id)),
            },
        }
        while True:
            page = self._call("query", **kwargs)
            events.extend(HistoryEvent.model_validate_json(i["data"]["S"]) for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return events
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # ---------------------------------------------------------------- fragments
    def create_fragment(
        self, user_id: str, fragment: Fragment, pending: PendingMention | None, new_start: bool = True
    ) -> bool:
        """False when the id exists (a retry) or, with new_start=False (work queued before an
        erasure, e.g. a chat flush), when the user was erased. new_start=True (the user's own POST)
        clears the erasure tombstone."""
        pk = keys.user_pk(user_id)
        items: list[dict] = [
            {
                "Put": {
                    "TableName": self.table_name,
                    "Item": fragment_item(pk, fragment, _epoch(fragment.received_at + FRAGMENT_TTL)),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
            # A new fragment from the user after an erasure is a new start: the tombstone goes.
            {"Delete": {"TableName": self.table_name, "Key": self._tombstone_key(user_id)}}
            if new_start
            else {
                "ConditionCheck": {
                    "TableName": self.table_name,
                    "Key": self._tombstone_key(user_id),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            },
        ]
        if pending is not None:
            items.append(
                {
                    "Put": {
                        "TableName": self.table_name,
                        "Item": {
                            "PK": _s(pk),
                            "SK": _s(keys.pending_sk(fragment.id)),
                            "kind": _s("pending"),
                            "data": _s(pending.model_dump_json()),
                            TTL_ATTRIBUTE: _n(_epoch(fragment.received_at + PENDING_TTL)),
                        },
                    }
                }
            )
        try:
            self._count()
            self.client.transact_write_items(TransactItems=items)
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if "ConditionalCheckFailed" in [reason.get("Code") for reason in reasons[:2]]:
                return False
            raise
        return True

    def get_fragment(self, user_id: str, fragment_id: str) -> Fragment | None:
        item = self._call(
            "get_item",
            Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.fragment_sk(fragment_id))},
            ConsistentRead=True,
        ).get("Item")
        if not item:
            return None
        fragment = Fragment.model_validate_json(item["data"]["S"])
        return fragment.model_copy(
            update={
                "status": FragmentStatus(item["status"]["S"]),
                "applied": applied_entries(item, "applied"),
                "rejected": applied_entries(item, "rejected"),
                "version": int(item["version"]["N"]),
                "done": set(item.get("done", {}).get("SS", [])),
                "reason": item.get("reason", {}).get("S"),
            }
        )

    def transition_fragment(
        self,
        user_id: str,
        fragment: Fragment,
        to: FragmentStatus,
        expected: Sequence[FragmentStatus],
        rejected: Sequence[dict] = (),
        reason: str | None = None,
    ) -> Fragment:
        names = {f":s{i}": _s(s.value) for i, s in enumerate(expected)}
        update = "SET #st = :to, version = version + :one, updated_at = :now"
        values: dict[str, Any] = {**names, ":to": _s(to.value), ":one": _n(1), ":now": _s(_iso_now())}
        if rejected:
            update += ", rejected = list_append(if_not_exists(rejected, :empty), :rej)"
            values[":rej"] = {"L": [_s(json.dumps(r, ensure_ascii=False)) for r in rejected]}
            values[":empty"] = {"L": []}
        if reason:
            update += ", reason = :reason"
            values[":reason"] = _s(reason)
        operations: list[dict] = [
            {
                "Update": {
                    "TableName": self.table_name,
                    "Key": {"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.fragment_sk(fragment.id))},
                    "UpdateExpression": update,
                    "ConditionExpression": f"#st IN ({', '.join(names)})",
                    "ExpressionAttributeNames": {"#st": "status"},
                    "ExpressionAttributeValues": values,
                }
            }
        ]
        if to in (FragmentStatus.APPLIED, FragmentStatus.REJECTED, FragmentStatus.FAILED):
            operations.append(
                {
                    "Delete": {
                        "TableName": self.table_name,
                        "Key": {"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.pending_sk(fragment.id))},
                    }
                }
            )
        try:
            self._count()
            self.client.transact_write_items(TransactItems=operations)
        except self.client.exceptions.TransactionCanceledException as exc:
            raise FragmentGone(fragment.id) from exc
        return fragment.model_copy(update={"status": to, "version": fragment.version + 1})

    # ---------------------------------------------------------------- write path
    def apply(
        self,
        user_id: str,
        fragment_id: str | None,
        changes: ChangeSet,
        applied: Sequence[dict] = (),
        fingerprint: str | None = None,
    ) -> None:
        pk = keys.user_pk(user_id)
        items: list[dict] = []
        for write in changes.facts:
            items += self._fact_items(pk, write)
        for section_write in changes.sections:
            items += self._section_items(pk, section_write)
        items += self._clarification_items(pk, changes)
        for copy in changes.copied_history:
            history_put = self._history_put(pk, copy)
            del history_put["Put"]["ConditionExpression"]  # same key, same content: a retry is harmless
            items.append(history_put)
        if fragment_id is not None:  # last: a failure of the last item is read as FragmentGone
            items.append(self._fragment_guard(pk, fragment_id, applied, fingerprint))
        if not items:
            return
        try:
            self._count()
            self.client.transact_write_items(TransactItems=items)
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if fragment_id is not None and reasons and reasons[-1].get("Code") == "ConditionalCheckFailed":
                raise FragmentGone(fragment_id) from exc
            if any(r.get("Code") in ("ConditionalCheckFailed", "TransactionConflict") for r in reasons):
                raise ConflictError(str([r.get("Code") for r in reasons])) from exc
            raise

    def _fact_items(self, pk: str, write: FactWrite) -> list[dict]:
        """The fact (or its ended brief and whole copy), its history event and its key guards."""
        fact = write.fact
        items: list[dict] = []
        whole = {
            "PK": _s(pk),
            "SK": _s(keys.fact_sk(fact.section, fact.id)),
            "kind": _s("fact"),
            "section": _s(fact.section.value),
            "status": _s(fact.status.value),
            "stage": _s(fact.stage.value),
            "version": _n(fact.version),
            "data": _s(fact_data(fact)),
        }
        ended_key = {"PK": _s(pk), "SK": _s(keys.ended_sk(fact.section, fact.id))}
        if is_ended(fact):
            # The whole fact goes to the ended block; its brief keeps the key the conditions
            # are on. Unconditional: the brief's condition guards the pair.
            items.append({"Put": {"TableName": self.table_name, "Item": {**whole, **ended_key}}})
            fact_item = {**whole, "kind": _s("ended"), "data": _s(ended_data(fact))}
        else:
            fact_item = whole
            if was_ended(write.event.before):  # back on the record ("I'm taking it again")
                items.append({"Delete": {"TableName": self.table_name, "Key": ended_key}})
        items.append(self._versioned_put(fact_item, write.expected_version))
        # Its current-state copy; unconditional: the fact's condition guards the pair.
        items.append({"Put": {"TableName": self.table_name, "Item": current_item(pk, fact)}})
        items.append(self._history_put(pk, write.event))
        if write.new_key:
            guard = {"PK": _s(pk), "SK": _s(keys.key_guard_sk(fact.section.value, fact.key))}
            items.append(self._versioned_put({**guard, "fact_id": _s(fact.id)}, None))
        if write.release_key:
            section, key = write.release_key
            released = {"PK": _s(pk), "SK": _s(keys.key_guard_sk(section.value, key))}
            items.append({"Delete": {"TableName": self.table_name, "Key": released}})
        return items

    def _section_items(self, pk: str, write: SectionWrite) -> list[dict]:
        state = write.state
        state_item = {
            "PK": _s(pk),
            "SK": _s(keys.section_sk(state.section.value)),
            "kind": _s("section"),
            "section": _s(state.section.value),
            "version": _n(state.version),
            "data": _s(state.model_dump_json()),
        }
        # A section state's version 0 means "never stored" (a fact's is None).
        expected = write.expected_version or None
        return [self._versioned_put(state_item, expected), self._history_put(pk, write.event)]

    def _clarification_items(self, pk: str, changes: ChangeSet) -> list[dict]:
        items: list[dict] = []
        for clarification in changes.clarifications:
            item = {
                "PK": _s(pk),
                "SK": _s(keys.clarification_sk(clarification.id)),
                "kind": _s("clarification"),
                "section": _s(clarification.section.value),
                "data": _s(clarification.model_dump_json()),
            }
            items.append(self._versioned_put(item, None))
        for clarification_id in changes.resolved_clarifications:
            resolved = {"PK": _s(pk), "SK": _s(keys.clarification_sk(clarification_id))}
            items.append({"Delete": {"TableName": self.table_name, "Key": resolved}})
        return items

    def _versioned_put(self, item: dict, expected_version: int | None) -> dict:
        """A Put that must create the item (expected None) or find it at ``expected_version``."""
        put: dict[str, Any] = {"TableName": self.table_name, "Item": item}
        if expected_version is None:
            put["ConditionExpression"] = "attribute_not_exists(PK)"
        else:
            put["ConditionExpression"] = "version = :v"
            put["ExpressionAttributeValues"] = {":v": _n(expected_version)}
        return {"Put": put}

    def _history_put(self, pk: str, event: HistoryEvent) -> dict:
        return {
            "Put": {
                "TableName": self.table_name,
                "Item": {
                    "PK": _s(pk),
                    "SK": _s(keys.history_sk(event.fact_id, event.id)),
                    "kind": _s("history"),
                    "data": _s(event.model_dump_json()),
                },
                "ConditionExpression": "attribute_not_exists(PK)",
            }
        }

    def _fragment_guard(
        self, pk: str, fragment_id: str, applied: Sequence[dict], fingerprint: str | None
    ) -> dict:
        """The fragment must still be processing (not erased, not finished elsewhere), and this
        candidate must not have been applied by an earlier delivery of the same fragment."""
        values: dict[str, Any] = {":processing": _s(FragmentStatus.PROCESSING.value)}
        condition = "#st = :processing"
        update = "SET version = version + :one"
        values[":one"] = _n(1)
        if applied:
            update += ", applied = list_append(if_not_exists(applied, :empty), :ev)"
            values[":ev"] = {"L": [_s(json.dumps(a, ensure_ascii=False)) for a in applied]}
            values[":empty"] = {"L": []}
        if fingerprint:
            condition += " AND NOT contains(done, :fp)"
            update += " ADD done :fps"
            values[":fp"] = _s(fingerprint)
            values[":fps"] = {"SS": [fingerprint]}
        return {
            "Update": {
                "TableName": self.table_name,
                "Key": {"PK": _s(pk), "SK": _s(keys.fragment_sk(fragment_id))},
                "UpdateExpression": update,
                "ConditionExpression": condition,
                "ExpressionAttributeNames": {"#st": "status"},
                "ExpressionAttributeValues": values,
            }
        }

    def mark_active(self, user_id: str, day: str) -> None:
        expires = datetime.fromisoformat(day).replace(tzinfo=UTC) + ACTIVE_MARKER_TTL
        self._guarded_put(
            user_id,
            {
                "PK": _s(keys.user_pk(user_id)),
                "SK": _s(keys.active_sk(day)),
                ACTIVE_DAY_ATTRIBUTE: _s(day),
                ACTIVE_USER_ATTRIBUTE: _s(user_id),
                TTL_ATTRIBUTE: _n(_epoch(expires)),
            },
        )

    def put_pending(self, user_id: str, mention: PendingMention) -> bool:
        """A chat turn's mention, stored the moment the turn is buffered (read-your-writes for every
        context call, with or without the session id). Keyed by the fragment the buffer will be
        flushed as: the flush's own pending item replaces it, processing deletes it. Never after an
        erasure (one transaction with the tombstone check)."""
        item = {
            "PK": _s(keys.user_pk(user_id)),
            "SK": _s(keys.pending_sk(mention.fragment_id)),
            "kind": _s("pending"),
            "data": _s(mention.model_dump_json()),
            TTL_ATTRIBUTE: _n(_epoch(mention.received_at + PENDING_TTL)),
        }
        return self._guarded_put(user_id, item)

    # ---------------------------------------------------------------- erasure tombstone (issue 15)
    def _tombstone_key(self, user_id: str) -> dict:
        return {"PK": _s(keys.tombstone_pk(user_id)), "SK": _s(keys.TOMBSTONE_SK)}

    def is_erased(self, user_id: str) -> bool:
        item = self._call("get_item", Key=self._tombstone_key(user_id), ConsistentRead=True).get("Item")
        return item is not None

    def _guarded_put(self, user_id: str, item: dict) -> bool:
        """Put the item unless the user was erased (tombstone present): in one transaction, so an
        erasure that lands meanwhile cannot be undone by it. False when skipped."""
        try:
            self._count()
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self.table_name,
                            "Key": self._tombstone_key(user_id),
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    },
                    {"Put": {"TableName": self.table_name, "Item": item}},
                ]
            )
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False
            raise
        return True

    def get_scheduler_day(self) -> str | None:
        item = self._call(
            "get_item", Key={"PK": _s("SCHEDULER"), "SK": _s("STATE")}, ConsistentRead=True
        ).get("Item")
        return item["day"]["S"] if item else None

    def put_scheduler_day(self, day: str) -> None:
        self._call("put_item", Item={"PK": _s("SCHEDULER"), "SK": _s("STATE"), "day": _s(day)})

    def list_active_users_page(
        self, day: str, cursor: dict | None = None, limit: int = 1000
    ) -> tuple[list[str], dict | None]:
        """One page of the sparse GSI; the cursor (keys only, no health data) resumes it."""
        kwargs: dict[str, Any] = {
            "IndexName": ACTIVE_USERS_INDEX,
            "KeyConditionExpression": "#d = :d",
            "ExpressionAttributeNames": {"#d": ACTIVE_DAY_ATTRIBUTE},
            "ExpressionAttributeValues": {":d": _s(day)},
            "Limit": limit,
        }
        if cursor:
            kwargs["ExclusiveStartKey"] = cursor
        page = self._call("query", **kwargs)
        users = [i[ACTIVE_USER_ATTRIBUTE]["S"] for i in page.get("Items", [])]
        return users, page.get("LastEvaluatedKey")

    def put_summary(self, user_id: str, summary: dict) -> None:
        self._guarded_put(
            user_id,
            {
                "PK": _s(keys.user_pk(user_id)),
                "SK": _s(keys.SUMMARY_SK),
                "kind": _s("summary"),
                "data": _s(json.dumps(summary, ensure_ascii=False)),
            },
        )

    def get_summary(self, user_id: str) -> dict | None:
        item = self._call("get_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.SUMMARY_SK)}).get(
            "Item"
        )
        return json.loads(item["data"]["S"]) if item else None

    def put_documented(self, user_id: str, fact: Fact) -> None:
        pk = keys.user_pk(user_id)
        whole = {
            "PK": _s(pk),
            "SK": _s(keys.documented_sk(fact.section, fact.id)),
            "kind": _s("documented"),
            "section": _s(fact.section.value),
            "data": _s(fact_data(fact)),
        }
        self._count()
        self.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": self.table_name, "Item": item}}
                for item in (whole, current_item(pk, fact, documented=True))
            ]
        )

    # ---------------------------------------------------------------- episodes
    def put_episode(self, user_id: str, episode: Episode) -> None:
        item = {
            "PK": _s(keys.user_pk(user_id)),
            "SK": _s(keys.episode_sk(episode.id)),
            "kind": _s("episode"),
            "data": _s(episode.model_dump_json()),
        }
        if episode.retrieval_count:
            item[RETRIEVALS] = _n(episode.retrieval_count)
        if episode.last_retrieved_at is not None:
            item[LAST_RETRIEVED] = _n(to_millis(episode.last_retrieved_at))
        self._guarded_put(user_id, item)

    def get_episode(self, user_id: str, episode_id: str) -> Episode | None:
        item = self._call(
            "get_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode_id))}
        ).get("Item")
        return episode_from_item(item) if item else None

    def delete_episode(self, user_id: str, episode_id: str) -> None:
        self._call(
            "delete_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode_id))}
        )

    def list_episodes(self, user_id: str) -> list[Episode]:
        return [episode_from_item(i) for i in self._items(user_id, "EPI#")]

    def recent_episodes(self, user_id: str, limit: int) -> list[Episode]:
        page = self._call(
            "query",
            KeyConditionExpression="PK = :pk AND begins_with(SK, :p)",
            ExpressionAttributeValues={":pk": _s(keys.user_pk(user_id)), ":p": _s("EPI#")},
            ScanIndexForward=False,
            Limit=limit,
        )
        return [episode_from_item(i) for i in page.get("Items", [])]

    def add_episode_retrievals(self, user_id: str, episode_id: str, count: int, last_at: datetime) -> bool:
        key = {"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode_id))}
        failed = self.client.exceptions.ConditionalCheckFailedException
        names = {"#n": RETRIEVALS, "#t": LAST_RETRIEVED}
        try:
            self._call(
                "update_item",
                Key=key,
                UpdateExpression="ADD #n :n SET #t = :t",
                ConditionExpression="attribute_exists(PK) AND (attribute_not_exists(#t) OR #t < :t)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={":n": _n(count), ":t": _n(to_millis(last_at))},
            )
            return True
        except failed:
            pass
        try:  # a later time is already there (another container flushed first): count only
            self._call(
                "update_item",
                Key=key,
                UpdateExpression="ADD #n :n",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#n": RETRIEVALS},
                ExpressionAttributeValues={":n": _n(count)},
            )
            return True
        except failed:
            return False

    def update_episode(self, user_id: str, episode: Episode, seen_last_retrieved_at: datetime | None) -> None:
        values = {":data": _s(episode.model_dump_json())}
        if seen_last_retrieved_at is None:
            unchanged = "attribute_not_exists(#t)"
        else:
            unchanged = "#t = :seen"
            values[":seen"] = _n(to_millis(seen_last_retrieved_at))
        try:
            self._call(
                "update_item",
                Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode.id))},
                UpdateExpression="SET #d = :data",
                ConditionExpression=f"attribute_exists(PK) AND {unchanged}",
                ExpressionAttributeNames={"#d": "data", "#t": LAST_RETRIEVED},
                ExpressionAttributeValues=values,
            )
        except self.client.exceptions.ConditionalCheckFailedException as exc:
            raise ConflictError("episode changed") from exc

    # ---------------------------------------------------------------- export and erasure
    def _items(self, user_id: str, prefix: str = "") -> list[dict]:
        out: list[dict] = []
        condition = "PK = :pk" + (" AND begins_with(SK, :p)" if prefix else "")
        values = {":pk": _s(keys.user_pk(user_id))}
        if prefix:
            values[":p"] = _s(prefix)
        kwargs: dict[str, Any] = {"KeyConditionExpression": condition, "ExpressionAttributeValues": values}
        while True:
            page = self._call("query", **kwargs)
            out.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return out
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def export(self, user_id: str) -> dict:
        from .codec import export_items

        items = self._items(user_id)
        exported = export_items(items)
        # chat session buffers (issue 8): pending turns and recent chat history are held data too
        exported["sessions"] = [
            SessionBuffer.model_validate_json(i["data"]["S"]).model_dump(mode="json")
            for i in items
            if i.get("kind", {}).get("S") == "session"
        ]
        return exported

    def erase(self, user_id: str) -> int:
        # The tombstone first: from now on no derived write (activity markers, summaries, episodes,
        # chat flushes) re-creates an item for the user; a new POST /v1/fragments clears it.
        now = datetime.now(UTC)
        self._call(
            "put_item",
            Item={
                "PK": _s(keys.tombstone_pk(user_id)),
                "SK": _s(keys.TOMBSTONE_SK),
                "kind": _s("tombstone"),
                "erased_at": _s(now.isoformat()),
                TTL_ATTRIBUTE: _n(_epoch(now + TOMBSTONE_TTL)),
            },
        )
        deleted = 0
        # Keys only, then batched deletes; re-query until nothing is left (a concurrent writer
        # may add an item while we delete).
        for _ in range(10):
            items = self._items(user_id)
            if not items:
                break
            for start in range(0, len(items), 25):
                batch = [
                    {"DeleteRequest": {"Key": {"PK": i["PK"], "SK": i["SK"]}}}
                    for i in items[start : start + 25]
                ]
                request = {self.table_name: batch}
                for _attempt in range(8):
                    self._count()
                    response = self.client.batch_write_item(RequestItems=request)
                    request = response.get("UnprocessedItems") or {}
                    if not request:
                        break
                deleted += len(batch)
        return deleted

    # ---------------------------------------------------------------- chat session buffers (issue 8)
    # One item per session, SK SESS#<session_id>, replaced whole under a version condition. While
    # anything is pending, the item carries the sparse "idle sessions" marker in the existing
    # active-users GSI (no new index, no CDK change, never a Scan):
    #   active_day  = IDLE#<due day>#<shard>   (IDLE# never collides with the YYYY-MM-DD days of ACT#)
    #   active_user = the due time, UTC, fixed width (sorts like time: "due <= now" is a key condition)
    # The marker is written when a buffer opens and moved only when a sweep re-arms it, not on every
    # turn, so chat turns cost no index writes; shards spread a busy day over several partitions.
    # An empty buffer (chat history only) carries no marker and expires SESSION_TTL after its last turn.
    def get_session(self, user_id: str, session_id: str) -> SessionBuffer | None:
        item = self._call(
            "get_item",
            Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.session_sk(session_id))},
            ConsistentRead=True,
        ).get("Item")
        return SessionBuffer.model_validate_json(item["data"]["S"]) if item else None

    def put_session(self, user_id: str, buffer: SessionBuffer, expected_version: int) -> bool:
        item: dict[str, Any] = {
            "PK": _s(keys.user_pk(user_id)),
            "SK": _s(keys.session_sk(buffer.session_id)),
            "kind": _s("session"),
            "version": _n(buffer.version),
            "data": _s(buffer.model_dump_json()),
        }
        if buffer.idle_due is not None:
            item[ACTIVE_DAY_ATTRIBUTE] = _s(idle_bucket(user_id, buffer.session_id, buffer.idle_due))
            item[ACTIVE_USER_ATTRIBUTE] = _s(idle_sort_key(buffer.idle_due))
        else:
            item[TTL_ATTRIBUTE] = _n(_epoch(buffer.last_activity + SESSION_TTL))
        kwargs: dict[str, Any] = {"Item": item}
        if expected_version == 0:
            kwargs["ConditionExpression"] = "attribute_not_exists(PK)"
        else:
            kwargs["ConditionExpression"] = "version = :v"
            kwargs["ExpressionAttributeValues"] = {":v": _n(expected_version)}
        try:
            self._call("put_item", **kwargs)
        except self.client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def list_open_sessions(self, user_id: str) -> list[SessionBuffer]:
        """The user's buffers with turns pending or claimed: one Query in the user's partition."""
        found: list[SessionBuffer] = []
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :p)",
            "FilterExpression": "attribute_exists(#d)",
            "ExpressionAttributeNames": {"#d": ACTIVE_DAY_ATTRIBUTE},
            "ExpressionAttributeValues": {":pk": _s(keys.user_pk(user_id)), ":p": _s(keys.session_sk(""))},
        }
        while True:
            page = self._call("query", **kwargs)
            found.extend(SessionBuffer.model_validate_json(i["data"]["S"]) for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return found
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def list_due_sessions(self, day: str, until: datetime) -> list[tuple[str, str]]:
        """(user_id, session_id) of the buffers whose idle marker falls on ``day`` at or before
        ``until``: IDLE_SHARDS key-condition queries on the sparse index."""
        due: list[tuple[str, str]] = []
        for shard in range(IDLE_SHARDS):
            kwargs: dict[str, Any] = {
                "IndexName": ACTIVE_USERS_INDEX,
                "KeyConditionExpression": "#d = :d AND #u <= :until",
                "ExpressionAttributeNames": {"#d": ACTIVE_DAY_ATTRIBUTE, "#u": ACTIVE_USER_ATTRIBUTE},
                "ExpressionAttributeValues": {
                    ":d": _s(f"{IDLE_PREFIX}{day}#{shard:02d}"),
                    ":until": _s(idle_sort_key(until)),
                },
            }
            while True:
                page = self._call("query", **kwargs)
                for i in page.get("Items", []):
                    pk, sk = i["PK"]["S"], i["SK"]["S"]
                    due.append((pk.removeprefix(keys.user_pk("")), sk.removeprefix(keys.session_sk(""))))
                if "LastEvaluatedKey" not in page:
                    break
                kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        return due

    def get_session_sweep_day(self) -> str | None:
        item = self._call(
            "get_item", Key={"PK": _s("SCHEDULER"), "SK": _s("SESSIONS")}, ConsistentRead=True
        ).get("Item")
        return item["day"]["S"] if item else None

    def put_session_sweep_day(self, day: str) -> None:
        self._call("put_item", Item={"PK": _s("SCHEDULER"), "SK": _s("SESSIONS"), "day": _s(day)})


# Chat session buffers: see the section in DynamoRepository.
SESSION_TTL = timedelta(days=30)
IDLE_SHARDS = 8
IDLE_PREFIX = "IDLE#"


def idle_bucket(user_id: str, session_id: str, due: datetime) -> str:
    import hashlib

    shard = hashlib.blake2b(f"{user_id}\x1f{session_id}".encode(), digest_size=2).digest()[0] % IDLE_SHARDS
    return f"{IDLE_PREFIX}{due.astimezone(UTC).date().isoformat()}#{shard:02d}"


def idle_sort_key(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@lru_cache(maxsize=1)
def _read_pool() -> ThreadPoolExecutor:
    # The section ranges of one load_memory run side by side (boto3 clients are thread-safe);
    # the caller's thread runs the first range itself.
    return ThreadPoolExecutor(max_workers=keys.max_read_ranges(), thread_name_prefix="ddb-read")


def _iso_now() -> str:
    return datetime.now(UTC).isoformat()
