"""Two changes to moto inside the benchmark's own emulator process, both O(table) artifacts.

moto 5.2.5 does work in proportion to *everything the table holds* where DynamoDB works on one
partition, so emulator timings would depend on what earlier benchmark cases stored, not on our
code:

1. ``transact_write_items`` deep-copies the whole table once per item of every transaction, to
   restore it if the transaction is cancelled (a 100-item transaction into a table of a few
   thousand items takes seconds). Here the rollback keeps copies of just the items the
   transaction touches (their state before it) and puts them back if moto raises; the
   whole-table copy becomes a no-op.
2. A table ``Query`` walks every item of the table to find the partition's items. Here it is
   handed the partition's items only (the same items, in the same order after moto's own sort).

Conditions, cancellation reasons, all-or-nothing behaviour, sorting, paging, filters and
response serialisation stay moto's own. Only the emulator started by
``bench.harness.emulator()`` loads this; the local stack (``ltm run``) and the tests do not.
"""

from __future__ import annotations

import copy
import threading
from typing import Any


def install() -> None:
    import moto.dynamodb.models as models
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    real_deepcopy = copy.deepcopy

    class _CopyModule:
        """Stands in for ``copy`` inside moto.dynamodb.models: a Table is not copied."""

        @staticmethod
        def deepcopy(value: Any, memo: Any = None) -> Any:
            if isinstance(value, Table):
                return value
            return real_deepcopy(value, memo)

        def __getattr__(self, name: str) -> Any:
            return getattr(copy, name)

    models.copy = _CopyModule()  # type: ignore[assignment]
    original = models.DynamoDBBackend.transact_write_items

    def transact_write_items(self, transact_items: list[dict[str, Any]]) -> None:
        saved: list[tuple[Table, DynamoType, DynamoType | None, Any]] = []
        for action in transact_items:
            try:
                ((_, op),) = action.items()
                table = self.tables[op["TableName"]]
                source = op["Key"] if "Key" in op else op["Item"]
                hash_value = DynamoType(source[table.hash_key_attr])
                range_value = DynamoType(source[table.range_key_attr]) if table.range_key_attr else None
                current = table.get_item(hash_value, range_value)
            except Exception:
                continue
            saved.append((table, hash_value, range_value, real_deepcopy(current)))
        try:
            return original(self, transact_items)
        except BaseException:
            for table, hash_value, range_value, item in reversed(saved):
                if range_value is None:
                    if item is None:
                        table.items.pop(hash_value, None)
                    else:
                        table.items[hash_value] = item
                elif item is None:
                    table.items[hash_value].pop(range_value, None)
                else:
                    table.items[hash_value][range_value] = item
            raise

    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _partition_queries(Table)


def _partition_queries(table_class) -> None:
    original = table_class.query
    lock = threading.Lock()  # the instance attribute below is per call: one table query at a time

    def query(self, hash_key, *args: Any, **kwargs: Any):
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name or hash_key is None or self.range_key_attr is None:
            return original(self, hash_key, *args, **kwargs)
        partition = list(self.items[hash_key].values()) if hash_key in self.items else []
        with lock:
            self.all_items = lambda: partition  # read by moto's query to find the partition's items
            try:
                return original(self, hash_key, *args, **kwargs)
            finally:
                self.__dict__.pop("all_items", None)  # the other patch may have removed it already

    table_class.query = query
