"""JSON list bodies from items encoded once: a list of 500 pods is mostly the same 500 objects as the last
list, so each item's JSON is kept (bounded by bytes) and a body is the list's metadata around the items joined.

An item is identified by its uid and resourceVersion: storage never gives two contents the same pair, so the
bytes stay right without holding on to the object, whether it came from the watch cache or from SQLite.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from kubelite.apimachinery.meta import Obj, content_identity

#: items of a typed list carry no kind/apiVersion of their own, as kube-apiserver encodes them
TYPE_META = frozenset({"kind", "apiVersion"})


def strip_type_meta(item: Obj) -> Obj:
    return {k: v for k, v in item.items() if k not in TYPE_META}


class EncodedItems:
    """Least recently used item encodings, up to `max_bytes` of JSON."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def encode(self, item: Obj) -> bytes:
        ident = content_identity(item)
        if ident is None:
            return orjson.dumps(strip_type_meta(item))
        data = self._entries.get(ident)
        if data is not None:
            self._entries.move_to_end(ident)
            return data
        data = orjson.dumps(strip_type_meta(item))
        self._entries[ident] = data
        self._bytes += len(data)
        while self._bytes > self.max_bytes and self._entries:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= len(evicted)
        return data


_ITEMS = EncodedItems(64 << 20)


def encode_list_json(listed: dict[str, Any], items: EncodedItems = _ITEMS) -> bytes:
    """`listed` as JSON with its items stripped of kind/apiVersion: the same bytes as encoding the stripped
    list whole (`items` is written last, as the list dict holds it last)."""
    head = orjson.dumps({k: v for k, v in listed.items() if k != "items"})
    body = b",".join([items.encode(item) for item in listed.get("items") or ()])
    if head == b"{}":
        return b'{"items":[' + body + b"]}"
    return head[:-1] + b',"items":[' + body + b"]}"
