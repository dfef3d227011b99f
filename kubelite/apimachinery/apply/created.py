"""The managedFields a create records, remembered by the shape of what was created.

A create by a non-apply write records one `Update` entry whose field set is every field of the new object but
those the field manager strips (name, namespace, uid, creation time and the like). Computing it walks the
object twice against its schema (the set, then its FieldsV1), the largest single cost of a create. Objects
created by the many come from templates (a ReplicaSet's pods, a Job's, the same manifest applied to many
namespaces) and differ only in those stripped fields, so the entries are kept by the object as it is with the
stripped fields' values left out, and only the entry's time is new.

The key is the whole object but those values, so two objects with one key have the same field set: the
result is the field manager's, only faster. Objects that arrive with managedFields of their own take the
field manager's path, as its result then depends on them.
"""

from __future__ import annotations

from collections import OrderedDict

import orjson

from kubelite.apimachinery.apply.fieldmanager import STRIPPED_METADATA, FieldManager
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
        if shape is None or len(shape) > MAX_SHAPE_BYTES:
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
    """The object as JSON with the values of the stripped metadata fields replaced by their types (a value of
    the wrong type makes the field manager give up, so the type stays in the key); None when the object
    carries managedFields or its metadata is not an object."""
    meta = obj.get("metadata")
    if type(meta) is not dict or "managedFields" in meta:
        return None
    shaped = {key: type(value).__name__ if key in STRIPPED_METADATA else value for key, value in meta.items()}
    try:
        return orjson.dumps({**obj, "metadata": shaped})
    except TypeError:  # not JSON (integers beyond 64 bits from YAML): the field manager's path
        return None
