"""JSON list bodies from items encoded once, and what each resource's serving path keeps of its objects.

A list of 500 pods is mostly the same 500 objects as the last list, so each item's JSON is kept (bounded by
bytes) and a body is the list's metadata around the items joined. An item is identified by its uid and
resourceVersion: storage never gives two contents the same pair, so the bytes stay right without holding on
to the object, whether it came from the watch cache or from SQLite.

The pair identifies the stored content, not its encoding: one stored Event is served as core/v1 and as
events.k8s.io/v1 with the same uid and resourceVersion and different field names. So every cache here is
owned by the serving path of one resource in one group-version (`ResourceEncodings`, held by its
RequestScope) and holds one encoding: two group-versions, or two encodings, never share an entry.

The item caches of a server share one byte budget (`EncodingBudget`, 64 MiB by default): a cache over it
first drops its own least recently used items, then those of the largest other caches.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

from kubelite.apimachinery.meta import Obj, content_identity
from kubelite.endpoints.handlers.table import Row
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.tables import TABLES, TableSpec, default_table

#: items of a typed list carry no kind/apiVersion of their own, as kube-apiserver encodes them
TYPE_META = frozenset({"kind", "apiVersion"})

#: what every list-item cache of one server holds together, in bytes of JSON
DEFAULT_BUDGET_BYTES = 64 << 20


def strip_type_meta(item: Obj) -> Obj:
    return {k: v for k, v in item.items() if k not in TYPE_META}


def _as_is(item: Obj) -> Obj:
    return item


class EncodingBudget:
    """The bytes the item caches sharing it hold together: `used` <= `max_bytes` after every insertion."""

    def __init__(self, max_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.max_bytes = max_bytes
        self.used = 0
        self._caches: list[EncodedItems] = []

    def join(self, cache: EncodedItems) -> None:
        self._caches.append(cache)

    def leave(self, cache: EncodedItems) -> None:
        """Forget a cache no route reads any more (a custom resource reinstalled or gone), and its bytes."""
        if cache in self._caches:
            self._caches.remove(cache)
            self.used -= cache.bytes

    def reclaim(self, inserting: EncodedItems) -> None:
        """Bring `used` within the budget: the inserting cache's own older items go first when it holds more than
        its share, then those of the largest other caches, and the item just inserted last (when it alone is over
        the budget). The share keeps a cache that fills the budget first from starving every later one."""
        if inserting.bytes * len(self._caches) > self.max_bytes:
            inserting.evict_over_budget(keep=1)
            if self.used <= self.max_bytes:
                return
        for cache in sorted(self._caches, key=lambda c: c.bytes, reverse=True):
            if cache is not inserting:
                cache.evict_over_budget()
                if self.used <= self.max_bytes:
                    return
        inserting.evict_over_budget()


class EncodedItems:
    """Least recently used JSON encodings of one group-version's items, within a shared budget."""

    def __init__(self, budget: EncodingBudget | int, *, group_version: str, keep_type_meta: bool = False) -> None:
        #: the apiVersion whose field names the kept bytes carry
        self.group_version = group_version
        #: custom resources' lists are unstructured: their items keep kind and apiVersion, as kube writes them
        self.item_form = _as_is if keep_type_meta else strip_type_meta
        self.budget = budget if isinstance(budget, EncodingBudget) else EncodingBudget(budget)
        self.budget.join(self)
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        #: bytes held here; the budget's `used` is the sum over its caches
        self.bytes = 0

    @property
    def max_bytes(self) -> int:
        return self.budget.max_bytes

    def __len__(self) -> int:
        return len(self._entries)

    def encode(self, item: Obj) -> bytes:
        ident = content_identity(item)
        if ident is None:
            return orjson.dumps(self.item_form(item))
        data = self._entries.get(ident)
        if data is not None:
            self._entries.move_to_end(ident)
            return data
        data = orjson.dumps(self.item_form(item))
        self._entries[ident] = data
        self.bytes += len(data)
        budget = self.budget
        budget.used += len(data)
        if budget.used > budget.max_bytes:
            budget.reclaim(self)
        return data

    def evict_over_budget(self, *, keep: int = 0) -> None:
        """Drop this cache's least recently used items while the budget is exceeded, keeping the newest
        `keep`."""
        budget = self.budget
        while budget.used > budget.max_bytes and len(self._entries) > keep:
            _, evicted = self._entries.popitem(last=False)
            self.bytes -= len(evicted)
            budget.used -= len(evicted)


@dataclass(slots=True)
class ResourceEncodings:
    """What the serving path of one resource in one group-version keeps of its objects' encodings."""

    #: the JSON of list items
    json_items: EncodedItems
    #: the Table printer, with whatever per-object facts it keeps (the pods' printer keeps some)
    table_row: Row

    @classmethod
    def for_resource(
        cls, spec: ResourceSpec, budget: EncodingBudget, table: TableSpec | None = None
    ) -> ResourceEncodings:
        """The encodings of `spec`'s serving path; `table` is its storage's TableConvertor (the kind's entry in
        the printers' index when not given)."""
        table = table or TABLES.get((spec.group, spec.resource)) or default_table()
        items = EncodedItems(budget, group_version=spec.api_version, keep_type_meta=spec.custom)
        return cls(json_items=items, table_row=table.printer())


def encode_list_json(listed: dict[str, Any], items: EncodedItems) -> bytes:
    """`listed` as JSON with its items stripped of kind/apiVersion: the same bytes as encoding the stripped
    list whole (`items` is written last, as the list dict holds it last). `items` must be the cache of the
    group-version `listed` is in."""
    head = orjson.dumps({k: v for k, v in listed.items() if k != "items"})
    body = b",".join([items.encode(item) for item in listed.get("items") or ()])
    if head == b"{}":
        return b'{"items":[' + body + b"]}"
    return head[:-1] + b',"items":[' + body + b"]}"
