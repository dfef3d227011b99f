"""The compact form of objects kept in memory for long (the watch cache's): parts nobody in the server reads,
held as their JSON.

A JSON value decoded into dicts and lists takes five to six times its size in memory; the same value held as
its encoding (an `orjson.Fragment`) takes about its size, and orjson writes a fragment into a response as it
is. Two forms are used:

- `compact_managed_fields`: every kind's managedFields. For a pod they are 40% of its JSON but half of its
  memory as dicts (a FieldsV1 tree is mostly empty dicts), and only writes, which read storage, look inside.
- `compact_spec_and_status`: also every list or object nested in `spec` and `status`, for kinds whose strategy
  asks for it (pods, the bulk of any cluster). Their scalars stay: field selectors (`spec.nodeName`,
  `status.phase`) and the graceful-deletion checks read those.

This module writes the compact form; `apimachinery.cached` is the one door its readers go through
(`expanded` for readers of nested fields, `plain` for encoders other than orjson).

Each fragment holds a copy of orjson's output made to its exact size. orjson grows its buffer and shrinks it
at the end, and the allocator leaves the cut-off tail as a hole beside the kept bytes: holding its output
directly cost a third more memory than the copy.
"""

from __future__ import annotations

from typing import Any

import orjson

from kubelite.apimachinery.cached import COMPACTED_PARTS, Fragment
from kubelite.apimachinery.meta import Obj


def as_fragment(value: Any) -> orjson.Fragment:
    """`value` as its JSON, in a buffer of its exact size."""
    return Fragment(bytes(memoryview(orjson.dumps(value))))


def compact_managed_fields(obj: Obj) -> None:
    """Hold the object's managedFields as their JSON, in place."""
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        fields = meta.get("managedFields")
        if isinstance(fields, list) and fields:
            meta["managedFields"] = as_fragment(fields)


def compact_spec_and_status(obj: Obj) -> None:
    """Hold the managedFields, and every non-empty list or object inside `spec` and `status`, as JSON, in
    place. The scalars directly in `spec` and `status` stay as they are."""
    compact_managed_fields(obj)
    for part in COMPACTED_PARTS:
        members = obj.get(part)
        if isinstance(members, dict):
            for name, value in members.items():
                if value and isinstance(value, dict | list):
                    members[name] = as_fragment(value)
