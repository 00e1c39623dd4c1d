"""DynamoDB implementation of the MemoryRepository port (AWS, and moto locally/in tests).

boto3 honours AWS_ENDPOINT_URL, so the same code talks to AWS and to the local emulator.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import Any

from ..domain.models import (
    Episode,
    Fact,
    Fragment,
    FragmentStatus,
    HistoryEvent,
    PendingMention,
    UserMemory,
)
from ..domain.sections import Section
from ..ports import ChangeSet, ConflictError, FragmentGone
from ..schema import ACTIVE_DAY_ATTRIBUTE, ACTIVE_USER_ATTRIBUTE, ACTIVE_USERS_INDEX, TTL_ATTRIBUTE
from . import keys
from .codec import applied_entries, fragment_item, parse_context_item

FRAGMENT_TTL = timedelta(days=90)
PENDING_TTL = timedelta(days=2)
ACTIVE_MARKER_TTL = timedelta(days=35)


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
        self.calls = 0  # storage round trips, for tests and benchmarks

    @cached_property
    def client(self) -> Any:
        if self._client is not None:
            return self._client
        import boto3

        return boto3.client("dynamodb")

    def _call(self, op: str, **kwargs: Any) -> dict:
        self.calls += 1
        return getattr(self.client, op)(TableName=self.table_name, **kwargs)

    # ---------------------------------------------------------------- read path
    def load_memory(self, user_id: str, sections: Sequence[Section] | None = None) -> UserMemory:
        memory = UserMemory()
        wanted = {s.value for s in sections} if sections is not None else None
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "PK = :pk AND begins_with(SK, :ctx)",
            "ExpressionAttributeValues": {":pk": _s(keys.user_pk(user_id)), ":ctx": _s(keys.CONTEXT_PREFIX)},
        }
        while True:
            page = self._call("query", **kwargs)
            for item in page.get("Items", []):
                parse_context_item(item, memory, wanted)
            if "LastEvaluatedKey" not in page:
                return memory
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def get_fact(self, user_id: str, fact_id: str) -> Fact | None:
        item = self._call(
            "get_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.fact_sk(fact_id))}
        ).get("Item")
        return Fact.model_validate_json(item["data"]["S"]) if item else None

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
    def create_fragment(self, user_id: str, fragment: Fragment, pending: PendingMention | None) -> bool:
        pk = keys.user_pk(user_id)
        items: list[dict] = [
            {
                "Put": {
                    "TableName": self.table_name,
                    "Item": fragment_item(pk, fragment, _epoch(fragment.received_at + FRAGMENT_TTL)),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            }
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
            self.calls += 1
            self.client.transact_write_items(TransactItems=items)
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
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
            self.calls += 1
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
            fact_item = {
                "PK": _s(pk),
                "SK": _s(keys.fact_sk(write.fact.id)),
                "kind": _s("fact"),
                "section": _s(write.fact.section.value),
                "status": _s(write.fact.status.value),
                "stage": _s(write.fact.stage.value),
                "version": _n(write.fact.version),
                "data": _s(write.fact.model_dump_json()),
            }
            if write.expected_version is None:
                condition = "attribute_not_exists(PK)"
                values = None
            else:
                condition = "version = :v"
                values = {":v": _n(write.expected_version)}
            put: dict[str, Any] = {
                "TableName": self.table_name,
                "Item": fact_item,
                "ConditionExpression": condition,
            }
            if values:
                put["ExpressionAttributeValues"] = values
            items.append({"Put": put})
            items.append(self._history_put(pk, write.event))
            if write.new_key:
                items.append(
                    {
                        "Put": {
                            "TableName": self.table_name,
                            "Item": {
                                "PK": _s(pk),
                                "SK": _s(keys.key_guard_sk(write.fact.section.value, write.fact.key)),
                                "fact_id": _s(write.fact.id),
                            },
                            "ConditionExpression": "attribute_not_exists(PK)",
                        }
                    }
                )
            if write.release_key:
                section, key = write.release_key
                items.append(
                    {
                        "Delete": {
                            "TableName": self.table_name,
                            "Key": {"PK": _s(pk), "SK": _s(keys.key_guard_sk(section.value, key))},
                        }
                    }
                )
        for section_write in changes.sections:
            state_item = {
                "PK": _s(pk),
                "SK": _s(keys.section_sk(section_write.state.section.value)),
                "kind": _s("section"),
                "section": _s(section_write.state.section.value),
                "version": _n(section_write.state.version),
                "data": _s(section_write.state.model_dump_json()),
            }
            if section_write.expected_version == 0:
                condition, values = "attribute_not_exists(PK)", None
            else:
                condition, values = "version = :v", {":v": _n(section_write.expected_version)}
            put = {"TableName": self.table_name, "Item": state_item, "ConditionExpression": condition}
            if values:
                put["ExpressionAttributeValues"] = values
            items.append({"Put": put})
            items.append(self._history_put(pk, section_write.event))
        for clarification in changes.clarifications:
            items.append(
                {
                    "Put": {
                        "TableName": self.table_name,
                        "Item": {
                            "PK": _s(pk),
                            "SK": _s(keys.clarification_sk(clarification.id)),
                            "kind": _s("clarification"),
                            "section": _s(clarification.section.value),
                            "data": _s(clarification.model_dump_json()),
                        },
                        "ConditionExpression": "attribute_not_exists(PK)",
                    }
                }
            )
        for clarification_id in changes.resolved_clarifications:
            items.append(
                {
                    "Delete": {
                        "TableName": self.table_name,
                        "Key": {"PK": _s(pk), "SK": _s(keys.clarification_sk(clarification_id))},
                    }
                }
            )
        for copy in changes.copied_history:
            history_put = self._history_put(pk, copy)
            del history_put["Put"]["ConditionExpression"]  # same key, same content: a retry is harmless
            items.append(history_put)
        if fragment_id is not None:
            items.append(self._fragment_guard(pk, fragment_id, applied, fingerprint))
        if not items:
            return
        try:
            self.calls += 1
            self.client.transact_write_items(TransactItems=items)
        except self.client.exceptions.TransactionCanceledException as exc:
            reasons = exc.response.get("CancellationReasons", [])
            if fragment_id is not None and reasons and reasons[-1].get("Code") == "ConditionalCheckFailed":
                raise FragmentGone(fragment_id) from exc
            if any(r.get("Code") in ("ConditionalCheckFailed", "TransactionConflict") for r in reasons):
                raise ConflictError(str([r.get("Code") for r in reasons])) from exc
            raise

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

    def fragment_done(self, user_id: str, fragment_id: str) -> set[str]:
        item = self._call(
            "get_item",
            Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.fragment_sk(fragment_id))},
            ProjectionExpression="done",
            ConsistentRead=True,
        ).get("Item")
        return set(item.get("done", {}).get("SS", [])) if item else set()

    def mark_active(self, user_id: str, day: str) -> None:
        expires = datetime.fromisoformat(day).replace(tzinfo=UTC) + ACTIVE_MARKER_TTL
        self._call(
            "put_item",
            Item={
                "PK": _s(keys.user_pk(user_id)),
                "SK": _s(keys.active_sk(day)),
                ACTIVE_DAY_ATTRIBUTE: _s(day),
                ACTIVE_USER_ATTRIBUTE: _s(user_id),
                TTL_ATTRIBUTE: _n(_epoch(expires)),
            },
        )

    def get_scheduler_day(self) -> str | None:
        item = self._call(
            "get_item", Key={"PK": _s("SCHEDULER"), "SK": _s("STATE")}, ConsistentRead=True
        ).get("Item")
        return item["day"]["S"] if item else None

    def put_scheduler_day(self, day: str) -> None:
        self._call("put_item", Item={"PK": _s("SCHEDULER"), "SK": _s("STATE"), "day": _s(day)})

    def list_active_users(self, day: str) -> list[str]:
        users: list[str] = []
        kwargs: dict[str, Any] = {
            "IndexName": ACTIVE_USERS_INDEX,
            "KeyConditionExpression": "#d = :d",
            "ExpressionAttributeNames": {"#d": ACTIVE_DAY_ATTRIBUTE},
            "ExpressionAttributeValues": {":d": _s(day)},
        }
        while True:
            page = self._call("query", **kwargs)
            users.extend(i[ACTIVE_USER_ATTRIBUTE]["S"] for i in page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return users
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def put_summary(self, user_id: str, summary: dict) -> None:
        self._call(
            "put_item",
            Item={
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
        self._call(
            "put_item",
            Item={
                "PK": _s(keys.user_pk(user_id)),
                "SK": _s(keys.documented_sk(fact.id)),
                "kind": _s("documented"),
                "section": _s(fact.section.value),
                "data": _s(fact.model_dump_json()),
            },
        )

    # ---------------------------------------------------------------- episodes
    def put_episode(self, user_id: str, episode: Episode) -> None:
        self._call(
            "put_item",
            Item={
                "PK": _s(keys.user_pk(user_id)),
                "SK": _s(keys.episode_sk(episode.id)),
                "kind": _s("episode"),
                "data": _s(episode.model_dump_json()),
            },
        )

    def get_episode(self, user_id: str, episode_id: str) -> Episode | None:
        item = self._call(
            "get_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode_id))}
        ).get("Item")
        return Episode.model_validate_json(item["data"]["S"]) if item else None

    def delete_episode(self, user_id: str, episode_id: str) -> None:
        self._call(
            "delete_item", Key={"PK": _s(keys.user_pk(user_id)), "SK": _s(keys.episode_sk(episode_id))}
        )

    def list_episodes(self, user_id: str) -> list[Episode]:
        return [Episode.model_validate_json(i["data"]["S"]) for i in self._items(user_id, "EPI#")]

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

        return export_items(self._items(user_id))

    def erase(self, user_id: str) -> int:
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
                    self.calls += 1
                    response = self.client.batch_write_item(RequestItems=request)
                    request = response.get("UnprocessedItems") or {}
                    if not request:
                        break
                deleted += len(batch)
        return deleted


def _iso_now() -> str:
    return datetime.now(UTC).isoformat()
