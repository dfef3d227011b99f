"""The one door to objects the watch cache holds: shared, read-only and compact.

The watch cache keeps some parts of its objects as their JSON, `orjson.Fragment`s (`apimachinery.compact`
writes them: every kind's managedFields, and for pods every list and object inside `spec` and `status`). A
`CompactObject` is such an object, as storage reads through the cache hand it out (GET, lists, watch events,
admission's reads of namespaces and ServiceAccounts, the controllers' informers). What is safe to read on it
directly, without this module: `metadata` except managedFields, and the scalars directly inside `spec` and
`status` (field selectors, graceful deletion, the namespace phase, owner references). Everything else goes
through one of:

- `expanded(obj)`: the object with its nested parts decoded, sharing what was not encoded. For readers of
  nested fields: the Table printers (`endpoints.handlers.table.to_table` hands every printer this), controllers
  reading deeper than the scalars. As read-only as the cached object.
- `plain(obj)`: a private copy with every fragment decoded. For the encoders other than orjson (YAML,
  protobuf) and for anything that will change it.
- orjson itself, which writes a fragment as it is: the JSON responses and the encoded list items.

`has_fragments` finds out whether a value still holds encoded parts, for tests and assertions.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import orjson

from kubelite.apimachinery.meta import Obj, deep_copy

Fragment = orjson.Fragment

#: an object as the watch cache holds it: parts may be `Fragment`s (read it through `expanded` or `plain`)
CompactObject: TypeAlias = Obj

#: the top-level members whose nested lists and objects may be held as JSON (apimachinery.compact)
COMPACTED_PARTS = ("spec", "status")


def _decoded(fragment: orjson.Fragment) -> Any:
    return orjson.loads(orjson.dumps(fragment))


def expanded(obj: CompactObject) -> Obj:
    """`obj` with what `compact_spec_and_status` encoded decoded again: `obj` itself when nothing was, else a
    copy sharing every part that was not (metadata included, its managedFields still JSON). The result is as
    read-only as the cached object."""
    copy: Obj | None = None
    for part in COMPACTED_PARTS:
        members = obj.get(part)
        if not isinstance(members, dict):
            continue
        decoded: dict[str, Any] | None = None
        for name, value in members.items():
            if isinstance(value, Fragment):
                if decoded is None:
                    decoded = dict(members)
                decoded[name] = _decoded(value)
        if decoded is not None:
            if copy is None:
                copy = dict(obj)
            copy[part] = decoded
    return obj if copy is None else copy


def plain(value: Any) -> Any:
    """`value` with every `orjson.Fragment` in it decoded (a private copy), for encoders other than orjson and
    for writers."""
    return deep_copy(value)


def has_fragments(value: Any) -> bool:
    """Whether `value` holds an encoded part anywhere inside."""
    if isinstance(value, Fragment):
        return True
    if isinstance(value, dict):
        return any(has_fragments(v) for v in value.values())
    if isinstance(value, list):
        return any(has_fragments(v) for v in value)
    return False
