"""The managedFields a create records, remembered by the shape of what was created.

A create by a non-apply write records one `Update` entry whose field set is every field of the new object but
those the field manager strips (name, namespace, uid, creation time and the like). Computing it walks the
object twice against its schema (the set, then its FieldsV1), the largest single cost of a create. Objects
created by the many come from templates (a ReplicaSet's pods, a Job's, the same manifest applied to many
namespaces, a component's events) and differ only in values, so the entries are kept by the object's shape,
and only the entry's time is new.

The shape is what the field set depends on: every key of every object, and below them, in place of a scalar,
its type and whether it is its type's zero value (the field set looks at a scalar's type alone, but leaves out
an omitempty field holding its zero value). Lists stay whole: the identity of their items is their values (a
set's), their key fields' (a map-list's) or their position. So two objects of one shape have the same field
set: the result is the field manager's, only faster. Objects that arrive with managedFields of their own take
the field manager's path, as its result then depends on them.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from kubelite.apimachinery.apply.fieldmanager import FieldManager
from kubelite.apimachinery.meta import Obj

#: larger objects are rarely made by the many, and would make the kept shapes weigh
MAX_SHAPE_BYTES = 16 * 1024


class CreateRecorder:
    """A field manager's creates, with the entries of the last `max_entries` shapes kept (at most
    `max_entries` x `MAX_SHAPE_BYTES` of keys, and their entries, which are smaller)."""

    def __init__(self, field_manager: FieldManager, max_entries: int = 256) -> None:
        self.field_manager = field_manager
        self.max_entries = max_entries
        #: (manager, shape) -> the managedFields entries as JSON, their times blank; None for none
        self._entries: OrderedDict[tuple[str, bytes], bytes | None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, obj: Obj, manager: str) -> Obj:
        """`FieldManager.update(None, obj, manager)`: obj with its managedFields; returns obj."""
        shape = _shape(obj)
        if shape is None:
            return self.field_manager.update(None, obj, manager)
        ident = (manager, shape)
        if ident in self._entries:
            self._entries.move_to_end(ident)
            kept = self._entries[ident]
            if kept is None:
                obj["metadata"].pop("managedFields", None)
                return obj
            entries = orjson.loads(kept)
            when = self.field_manager.clock()
            for entry in entries:
                if "time" in entry:
                    entry["time"] = when
            obj["metadata"]["managedFields"] = entries
            return obj
        self.field_manager.update(None, obj, manager)
        entries = obj["metadata"].get("managedFields")
        # the time keeps its place among the keys, as the field manager writes them
        self._entries[ident] = (
            None if entries is None else orjson.dumps([{**e, "time": None} if "time" in e else e for e in entries])
        )
        if len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return obj


def _shape(obj: Obj) -> bytes | None:
    """The object's shape as JSON (see the module docstring); None when the object carries managedFields, its
    metadata is not an object, or it is larger than `MAX_SHAPE_BYTES` would let it be as JSON."""
    meta = obj.get("metadata")
    if type(meta) is not dict or "managedFields" in meta:
        return None
    weight = [0]
    shaped = _skeleton(obj, weight)
    try:
        shape = orjson.dumps(shaped)
    except TypeError:  # not JSON (integers beyond 64 bits in a list, from YAML): the field manager's path
        return None
    return shape if weight[0] + len(shape) <= MAX_SHAPE_BYTES else None


#: what stands for a non-zero scalar of each type in a shape; zero values stand for themselves
_MARKS = {str: "\x00str", int: "\x00int", float: "\x00float"}


def _skeleton(value: dict[str, Any], weight: list[int]) -> dict[str, Any]:
    """`value` with its scalars replaced by their marks, lists kept; `weight[0]` grows by the length of the
    strings replaced (a lower bound of what they weigh as JSON)."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        kind = type(item)
        if kind is dict:
            out[key] = _skeleton(item, weight)
        elif kind is str:
            weight[0] += len(item)
            out[key] = _MARKS[str] if item else item
        elif kind is int or kind is float:
            out[key] = _MARKS[kind] if item else item
        else:  # lists, booleans, null, and what is no JSON (which orjson then refuses)
            out[key] = item
    return out
