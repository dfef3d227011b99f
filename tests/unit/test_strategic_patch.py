"""Strategic merge patch: kube's own patch_test.go tables (re-expressed here), errors, and real kinds.

Most cases use a small made-up type in the shape of kube's test `MergeItem`, so that expected results can be
taken from kube's tables; results are compared exactly, list order included. The two-way cases apply a
patch to `original`, the three-way ones to the live (`current`) object; both are plain applications here.
The last part runs the real schema lookup over Pod, Deployment and Service.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import yaml

from kubelite.apimachinery.patch.strategic import StrategicMergeError, apply_strategic_merge_patch
from kubelite.endpoints.handlers.patch_schema import DefinitionsLookup, default_lookup, schema_for


def _list_of(ref: str, **extensions: str) -> dict[str, Any]:
    return {"type": ["array", "null"], "items": {"$ref": f"#/$defs/{ref}"}, **extensions}


_MERGE = {"x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "name"}

# kube's MergeItem / RetainKeysMergeItem test types, as JSON-schema definitions
FAKE_DEFINITIONS: dict[str, dict[str, Any]] = {
    "mergeItem": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "value": {"type": "string"},
            "other": {"type": "string"},
            "mergingList": _list_of("mergeItem", **_MERGE),
            "nonMergingList": _list_of("mergeItem"),
            "mergingIntList": {
                "type": "array",
                "items": {"type": "integer"},
                "x-kubernetes-patch-strategy": "merge",
            },
            "nonMergingIntList": {"type": "array", "items": {"type": "integer"}},
            "mergeItemPtr": _list_of("mergeItem", **_MERGE),
            "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
            "replacingItem": {"type": "object", "x-kubernetes-patch-strategy": "replace"},
            "retainKeysMap": {
                "$ref": "#/$defs/retainKeysMergeItem",
                "x-kubernetes-patch-strategy": "retainKeys",
            },
            "retainKeysMergingList": _list_of(
                "mergeItem",
                **{"x-kubernetes-patch-strategy": "merge,retainKeys", "x-kubernetes-patch-merge-key": "name"},
            ),
        },
    },
    "retainKeysMergeItem": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "value": {"type": "string"},
            "other": {"type": "string"},
            "simpleMap": {"type": "object", "additionalProperties": {"type": "string"}},
            "mergingIntList": {
                "type": "array",
                "items": {"type": "integer"},
                "x-kubernetes-patch-strategy": "merge",
            },
            "mergingList": _list_of("mergeItem", **_MERGE),
            "nonMergingList": _list_of("mergeItem"),
        },
    },
}

FAKE = DefinitionsLookup(FAKE_DEFINITIONS)
ITEM = FAKE.definition("mergeItem")


def y(text: str) -> Any:
    return yaml.safe_load(text)


def smp(original: str, patch: str) -> Any:
    return apply_strategic_merge_patch(y(original), y(patch), ITEM, FAKE)


# (id, original, patch, expected); `2w` cases apply kube's two-way patch to its original, `3w` its three-way
# patch to its live object.
KUBE_CASES = [
    # -- maps ------------------------------------------------------------------------------------------------
    ("nil original", "{}", "{name: 1, value: 1}", "{name: 1, value: 1}"),
    ("add field to map 3w", "{name: 1, other: a}", "{value: 1}", "{name: 1, value: 1, other: a}"),
    (
        "add field and delete field from map 3w",
        "{name: 1, other: a}",
        "{name: null, value: 1}",
        "{value: 1, other: a}",
    ),
    (
        "delete field from nested map 3w",
        "{simpleMap: {key1: 1, key2: 1, other: a}}",
        "{simpleMap: {key2: null}}",
        "{simpleMap: {key1: 1, other: a}}",
    ),
    (
        "delete all fields from map 3w",
        "{name: 1, value: 1, other: a}",
        "{name: null, value: null}",
        "{other: a}",
    ),
    (
        "defined nulls overwrite current fields 3w",
        "{name: a, other: a}",
        "{name: 1, value: 1, other: null}",
        "{name: 1, value: 1}",
    ),
    (
        "delete map from nested map",
        "{simpleMap: {key1: 1, key2: 1}}",
        "{simpleMap: {$patch: delete}}",
        "{simpleMap: {}}",
    ),
    ("delete all keys from map", "{name: 1, value: 1}", "{$patch: replace}", "{}"),
    (
        "add key and delete all keys from map",
        "{name: 1, value: 1}",
        "{other: a, $patch: replace}",
        "{other: a}",
    ),
    (
        "retainKeys map with no change is a plain merge 3w",
        "{name: a, other: c, retainKeysMap: {name: foo}}",
        "{value: b}",
        "{name: a, value: b, other: c, retainKeysMap: {name: foo}}",
    ),
    # -- lists of scalars ------------------------------------------------------------------------------------
    (
        "unique scalars when merging lists",
        "{mergingIntList: [1, 2]}",
        "{mergingIntList: [2, 3]}",
        "{mergingIntList: [1, 2, 3]}",
    ),
    (
        "replace list of scalars 3w",
        "{nonMergingIntList: [1, 4]}",
        "{nonMergingIntList: [2, 3]}",
        "{nonMergingIntList: [2, 3]}",
    ),
    (
        "preserve the order from the patch in a merging int list",
        "{mergingIntList: [1, 2, 3]}",
        "{mergingIntList: [3, 1, 2]}",
        "{mergingIntList: [3, 1, 2]}",
    ),
    (
        "preserve the order from the patch in a merging int list 2",
        "{mergingIntList: [1, 2, 3]}",
        "{mergingIntList: [3, 1]}",
        "{mergingIntList: [2, 3, 1]}",
    ),
    (
        "$deleteFromPrimitiveList of a missing item adds nothing",
        "{mergingIntList: [1, 2]}",
        "{$deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [1, 2]}",
    ),
    (
        "$deleteFromPrimitiveList on a null list",
        "{mergingIntList: null}",
        "{$deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: null}",
    ),
    (
        "$deleteFromPrimitiveList on a missing list",
        "{foo: [bar]}",
        "{$deleteFromPrimitiveList/mergingIntList: [3]}",
        "{foo: [bar]}",
    ),
    (
        "$deleteFromPrimitiveList from a merging list",
        "{mergingIntList: [1, 2, 3]}",
        "{$deleteFromPrimitiveList/mergingIntList: [2]}",
        "{mergingIntList: [1, 3]}",
    ),
    (
        "$deleteFromPrimitiveList from a non-merging list",
        "{nonMergingIntList: [1, 2, 3]}",
        "{$deleteFromPrimitiveList/nonMergingIntList: [2]}",
        "{nonMergingIntList: [1, 3]}",
    ),
    (
        "delete items in lists of scalars 2w",
        "{mergingIntList: [1, 2, 3]}",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [1, 2]}",
    ),
    (
        "delete items in lists of scalars 3w",
        "{mergingIntList: [1, 2, 3, 4]}",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [1, 2, 4]}",
    ),
    (
        "delete all duplicate items in lists of scalars 3w",
        "{mergingIntList: [1, 2, 3, 3, 4]}",
        "{$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [1, 2, 4]}",
    ),
    (
        "add and delete items in lists of scalars 2w",
        "{mergingIntList: [1, 2, 3]}",
        "{$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3],"
        " mergingIntList: [4]}",
        "{mergingIntList: [1, 2, 4]}",
    ),
    (
        "merge lists of scalars 3w",
        "{mergingIntList: [1, 2, 4]}",
        "{$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3]}",
        "{mergingIntList: [1, 2, 3, 4]}",
    ),
    (
        "add an item in a list of primitives and preserve order 3w",
        "{mergingIntList: [1, 4, 2]}",
        "{$setElementOrder/mergingIntList: [3, 1, 2], mergingIntList: [3]}",
        "{mergingIntList: [3, 1, 4, 2]}",
    ),
    (
        "delete an item in a list of primitives and preserve order",
        "{mergingIntList: [1, 2, 3]}",
        "{$setElementOrder/mergingIntList: [2, 1], $deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [2, 1]}",
    ),
    (
        "add multiple items in a int list and preserve order",
        "{mergingIntList: [1, 2]}",
        "{$setElementOrder/mergingIntList: [1, 4, 2, 3], mergingIntList: [4, 3]}",
        "{mergingIntList: [1, 4, 2, 3]}",
    ),
    (
        "add and delete an item in a int list and preserve order",
        "{mergingIntList: [1, 2, 3]}",
        "{$setElementOrder/mergingIntList: [4, 2, 1], mergingIntList: [4],"
        " $deleteFromPrimitiveList/mergingIntList: [3]}",
        "{mergingIntList: [4, 2, 1]}",
    ),
    (
        "set elements order in a int list",
        "{mergingIntList: [1, 3, 4, 2]}",
        "{$setElementOrder/mergingIntList: [4, 2, 3, 1]}",
        "{mergingIntList: [4, 2, 3, 1]}",
    ),
    (
        "set elements order in a int list with server-only items",
        "{mergingIntList: [1, 3, 4, 2, 9]}",
        "{$setElementOrder/mergingIntList: [4, 2, 3, 1]}",
        "{mergingIntList: [4, 2, 3, 1, 9]}",
    ),
    (
        "set elements order in a int list with server-only items 2",
        "{mergingIntList: [1, 2, 9, 3, 4]}",
        "{$setElementOrder/mergingIntList: [2, 1, 4, 3]}",
        "{mergingIntList: [2, 1, 9, 4, 3]}",
    ),
    (
        "set elements order in a int list with server-only items 3",
        "{mergingIntList: [1, 2, 7, 9, 8, 3, 4]}",
        "{$setElementOrder/mergingIntList: [2, 1, 4, 3]}",
        "{mergingIntList: [2, 1, 7, 9, 8, 4, 3]}",
    ),
    (
        "set element order for a merging int list with duplicates",
        "{mergingIntList: [1, 2, 3, 2, 4]}",
        "{$setElementOrder/mergingIntList: [2, 1, 4, 3, 2]}",
        "{mergingIntList: [2, 2, 1, 4, 3]}",
    ),
    (
        "$setElementOrder with an item missing from the int list",
        "{mergingIntList: [1, 3]}",
        "{$setElementOrder/mergingIntList: [3, 2, 1]}",
        "{mergingIntList: [3, 1]}",
    ),
    # -- lists of maps ---------------------------------------------------------------------------------------
    (
        "delete all items from merging list",
        "{mergingList: [{name: 1}, {name: 2}]}",
        "{mergingList: [{$patch: replace}]}",
        "{mergingList: []}",
    ),
    ("merge empty merging lists", "{mergingList: []}", "{mergingList: []}", "{mergingList: []}"),
    (
        "delete all duplicate entries in a merging list",
        "{mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}",
        "{mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]}",
        "{mergingList: [{name: 2, value: a}]}",
    ),
    (
        "delete all maps from merging list with conflict 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, other: b}]}",
        "{mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}",
        "{mergingList: []}",
    ),
    (
        "delete all maps from empty merging list 3w",
        "{mergingList: []}",
        "{mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}",
        "{mergingList: []}",
    ),
    (
        "preserve the order from the patch in a merging list",
        "{mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}",
        "{mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]}",
        "{mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]}",
    ),
    (
        "preserve the order from the patch in a merging list 2",
        "{mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}",
        "{mergingList: [{name: 3, value: c}, {name: 1, value: a}]}",
        "{mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}",
    ),
    (
        "nested patch merge with empty list 2w",
        "{name: hi}",
        "{mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}",
        "{name: hi, mergingList: [{name: hello}]}",
    ),
    (
        "nested patch merge with empty list 3w",
        "{name: hi, mergingList: [{name: hello2}]}",
        "{$setElementOrder/mergingList: [{name: hello}, {name: doesntexist}],"
        " mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}",
        "{name: hi, mergingList: [{name: hello}, {name: hello2}]}",
    ),
    (
        "merge lists of maps 2w",
        "{mergingList: [{name: 1}, {name: 2, value: 2}]}",
        "{$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}],"
        " mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}",
        "{mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}",
    ),
    (
        "merge lists of maps 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}],"
        " mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}",
        "{mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b},"
        " {name: 3, value: 3}]}",
    ),
    (
        "merge lists of maps with conflict 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}],"
        " mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]}",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}",
    ),
    (
        "add field to map in merging list 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}",
        "{mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}",
    ),
    (
        "add field to map in merging list with conflict 3w",
        "{mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}],"
        " mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}",
        "{mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]}",
    ),
    (
        "add an item that already exists in current object 2w",
        "{mergingList: [{name: 1, value: a}, {name: 2}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}], mergingList: [{name: 3}]}",
        "{mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]}",
    ),
    (
        "replace map field value in merging list 3w",
        "{mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: a}]}",
        "{mergingList: [{name: 1, value: a, other: a}, {name: 2, value: 2, other: b}]}",
    ),
    (
        "delete map from merging list 2w",
        "{mergingList: [{name: 1}, {name: 2}]}",
        "{$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 1, $patch: delete}]}",
        "{mergingList: [{name: 2}]}",
    ),
    (
        "delete missing map from merging list 3w",
        "{mergingList: [{name: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 1, $patch: delete}]}",
        "{mergingList: [{name: 2, other: b}]}",
    ),
    (
        "delete missing map from merging list with conflict 3w",
        "{mergingList: [{name: 3, other: a}]}",
        "{$setElementOrder/mergingList: [{name: 2}], mergingList: [{name: 2}, {name: 1, $patch: delete}]}",
        "{mergingList: [{name: 2}, {name: 3, other: a}]}",
    ),
    (
        "add map and delete map from merging list 2w",
        "{mergingList: [{name: 1}, {name: 2}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 3}], mergingList: [{name: 3}, {name: 1, $patch:"
        " delete}]}",
        "{mergingList: [{name: 2}, {name: 3}]}",
    ),
    (
        "add map and delete map from merging list 3w",
        "{mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 3}], mergingList: [{name: 3}, {name: 1, $patch:"
        " delete}]}",
        "{mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]}",
    ),
    (
        "add map and delete map from merging list with conflict 3w",
        "{mergingList: [{name: 1, other: a}, {name: 4, other: c}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 3}],"
        " mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]}",
        "{mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]}",
    ),
    (
        "delete field from map in merging list 3w",
        "{mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: null}]}",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}",
    ),
    (
        "replace non merging list nested in merging list 3w",
        "{mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2,"
        " other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}],"
        " mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]}",
        "{mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}",
    ),
    (
        "add field to map in merging list nested in merging list 3w",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other:"
        " b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1,"
        " $setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}]}",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]},"
        " {name: 2, other: b}]}",
    ),
    (
        "nested merging list with value conflict 3w",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: a, other: c},"
        " {name: 2, value: b, other: d}]}, {name: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1,"
        " $setElementOrder/mergingList: [{name: 1}, {name: 2}],"
        " mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}]}",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1, other: c},"
        " {name: 2, value: 2, other: d}]}, {name: 2, other: b}]}",
    ),
    (
        "nested merging list with deletion conflict 3w",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other:"
        " b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1,"
        " $setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1, value: 1}]}]}",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2, other:"
        " d}]},"
        " {name: 2, other: b}]}",
    ),
    (
        "nested merging list with deletion conflict, reordered 3w",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other:"
        " b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 1,"
        " $setElementOrder/mergingList: [{name: 2}, {name: 1}], mergingList: [{name: 1, value: 1}]}]}",
        "{mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}, {name: 1, value:"
        " 1}]},"
        " {name: 2, other: b}]}",
    ),
    (
        "add map to merging list by pointer 3w",
        "{mergeItemPtr: [{name: 1, other: a}, {name: 3}]}",
        "{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 2}]}",
        "{mergeItemPtr: [{name: 1, other: a}, {name: 2}, {name: 3}]}",
    ),
    (
        "add map to merging list by pointer with conflict 3w",
        "{mergeItemPtr: [{name: 3}]}",
        "{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], mergeItemPtr: [{name: 1}, {name: 2}]}",
        "{mergeItemPtr: [{name: 1}, {name: 2}, {name: 3}]}",
    ),
    (
        "add an item in a list and preserve order 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}], mergingList: [{name: 3, value:"
        " 3}]}",
        "{mergingList: [{name: 3, value: 3}, {name: 1, other: a}, {name: 2, value: 2, other: b}]}",
    ),
    (
        "add multiple items in a list and preserve order 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}],"
        " mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]}",
        "{mergingList: [{name: 1, other: a}, {name: 4, value: 4}, {name: 2, value: 2, other: b},"
        " {name: 3, value: 3}]}",
    ),
    (
        "delete an item in a list and preserve order 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 1}], mergingList: [{name: 3, $patch: delete}]}",
        "{mergingList: [{name: 2, value: 2, other: b}, {name: 1, other: a}]}",
    ),
    (
        "change an item in a list and preserve order 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}], mergingList: [{name: 3, value:"
        " x}]}",
        "{mergingList: [{name: 2, value: 2, other: b}, {name: 3, value: x}, {name: 1, other: a}]}",
    ),
    (
        "add and delete an item in a list and preserve order 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}",
        "{$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}],"
        " mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]}",
        "{mergingList: [{name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 1, other: a}]}",
    ),
    (
        "set elements order in a list with server-only items 3w",
        "{mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2},"
        " {name: 9}]}",
        "{$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}",
        "{mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a},"
        " {name: 9}]}",
    ),
    (
        "set elements order in a list with server-only items 2 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 9}, {name: 3, value: 3},"
        " {name: 4, value: 4}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}",
        "{mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 9}, {name: 4, value: 4},"
        " {name: 3, value: 3}]}",
    ),
    (
        "set elements order in a list with server-only items 3 3w",
        "{mergingList: [{name: 1, other: a}, {name: 2}, {name: 7}, {name: 9}, {name: 8}, {name: 3}, {name:"
        " 4}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}",
        "{mergingList: [{name: 2}, {name: 1, other: a}, {name: 7}, {name: 9}, {name: 8}, {name: 4}, {name:"
        " 3}]}",
    ),
    (
        "set element order for a merging list with duplicates",
        "{mergingList: [{name: 1}, {name: 2, value: dup1}, {name: 3}, {name: 2, value: dup2}, {name: 4}]}",
        "{$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]}",
        "{mergingList: [{name: 2, value: dup1}, {name: 2, value: dup2}, {name: 1}, {name: 4}, {name: 3}]}",
    ),
    (
        "$setElementOrder with an item missing from the list",
        "{mergingList: [{name: 1}, {name: 3}]}",
        "{$setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}],"
        " mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}",
        "{mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}",
    ),
    (
        "delete and reorder in one list, reorder in another",
        "{mergingList: [{name: a, value: a}, {name: b, value: b}],"
        " mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}",
        "{$setElementOrder/mergingList: [{name: b}], $setElementOrder/mergeItemPtr: [{name: d}, {name: c}],"
        " mergingList: [{$patch: delete, name: a}]}",
        "{mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}",
    ),
    # -- retainKeys ------------------------------------------------------------------------------------------
    (
        "retainKeys map can add a field without the directive",
        "{retainKeysMap: {name: foo}}",
        "{retainKeysMap: {value: bar}}",
        "{retainKeysMap: {name: foo, value: bar}}",
    ),
    (
        "retainKeys map can delete a field without the directive",
        "{retainKeysMap: {name: foo, value: a}}",
        "{retainKeysMap: {value: null}}",
        "{retainKeysMap: {name: foo}}",
    ),
    (
        "retainKeys map merge an empty map",
        "{retainKeysMap: {name: foo, value: a}}",
        "{retainKeysMap: {}}",
        "{retainKeysMap: {name: foo, value: a}}",
    ),
    (
        "retainKeys list can change a field without the directive",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}",
        "{retainKeysMergingList: [{name: foo, value: b}]}",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: b}]}",
    ),
    (
        "retainKeys map should clear defaulted field 3w",
        "{retainKeysMap: {value: foo}}",
        "{retainKeysMap: {$retainKeys: [other], other: bar}}",
        "{retainKeysMap: {other: bar}}",
    ),
    (
        "retainKeys map discriminated union 3w",
        "{retainKeysMap: {name: type1, value: foo}}",
        "{retainKeysMap: {$retainKeys: [name, other], name: type2, other: bar}}",
        "{retainKeysMap: {name: type2, other: bar}}",
    ),
    (
        "retainKeys map adds a field and clears a field 3w",
        "{retainKeysMap: {name: foo, other: a}}",
        "{retainKeysMap: {$retainKeys: [name, value], value: bar}}",
        "{retainKeysMap: {name: foo, value: bar}}",
    ),
    (
        "retainKeys map deletes a field and clears a field 3w",
        "{retainKeysMap: {name: foo, value: bar, other: a}}",
        "{retainKeysMap: {$retainKeys: [name], value: null}}",
        "{retainKeysMap: {name: foo}}",
    ),
    (
        "retainKeys map clears a field 3w",
        "{retainKeysMap: {name: foo, value: bar, other: a}}",
        "{retainKeysMap: {$retainKeys: [name, value]}}",
        "{retainKeysMap: {name: foo, value: bar}}",
    ),
    (
        "retainKeys map adds a field in a nested map 3w",
        "{retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key3: c}}}",
        "{retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: b}}}",
        "{retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}",
    ),
    (
        "retainKeys map deletes nested non-merging list 3w",
        "{retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}}",
        "{retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}",
        "{retainKeysMap: {name: foo, value: bar}}",
    ),
    (
        "retainKeys map replaces non-merging list",
        "{retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}",
        "{retainKeysMap: {$retainKeys: [name, nonMergingList, value],"
        " nonMergingList: [{name: a}, {name: c}, {name: b}]}}",
        "{retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: c}, {name: b}]}}",
    ),
    (
        "retainKeys map nested merging int list with no change 3w",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}",
        "{retainKeysMap: {$retainKeys: [mergingIntList, name, value], $setElementOrder/mergingIntList: [1,"
        " 2],"
        " value: bar}}",
        "{retainKeysMap: {name: foo, value: bar, mergingIntList: [1, 2, 3]}}",
    ),
    (
        "retainKeys map adds an item in nested merging int list 3w",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}",
        "{retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name],"
        " mergingIntList: [4]}}",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 4, 3]}}",
    ),
    (
        "retainKeys map deletes an item in nested merging int list 3w",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}",
        "{retainKeysMap: {$retainKeys: [mergingIntList, name], $deleteFromPrimitiveList/mergingIntList: [2],"
        " $setElementOrder/mergingIntList: [1, 3]}}",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 3, 4]}}",
    ),
    (
        "retainKeys map adds and deletes items in nested merging int list 3w",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}",
        "{retainKeysMap: {$retainKeys: [mergingIntList, name], mergingIntList: [5],"
        " $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3, 5]}}",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 3, 5, 4]}}",
    ),
    (
        "retainKeys map deletes nested merging int list",
        "{retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}",
        "{retainKeysMap: {$retainKeys: [name], mergingIntList: null}}",
        "{retainKeysMap: {name: foo}}",
    ),
    (
        "retainKeys map adds an item in nested merging list 3w",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}",
        "{retainKeysMap: {$retainKeys: [mergingList, name],"
        " $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}], mergingList: [{name: c}]}}",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}, {name: x}]}}",
    ),
    (
        "retainKeys map changes an item in nested merging list 3w",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}, {name: x}]}}",
        "{retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name:"
        " b}],"
        " mergingList: [{name: b, value: bar}]}}",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}, {name: x}]}}",
    ),
    (
        "retainKeys map deletes an item in nested merging list 3w",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}",
        "{retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}],"
        " mergingList: [{name: b, $patch: delete}]}}",
        "{retainKeysMap: {name: foo, mergingList: [{name: a}, {name: x}]}}",
    ),
    (
        "retainKeys list of maps clears a field 3w",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}",
        "{$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}],"
        " retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]}",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}",
    ),
    (
        "retainKeys list of maps changes a field and clears a field 3w",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: old, other: x}]}",
        "{$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}],"
        " retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]}",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}",
    ),
    (
        "retainKeys list of maps deletes a field and clears a field 3w",
        "{retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}",
        "{$setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}],"
        " retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]}",
        "{retainKeysMergingList: [{name: bar}, {name: foo}]}",
    ),
    # -- replace strategy (a RawExtension field) -------------------------------------------------------------
    (
        "replace RawExtension field and merge list 3w",
        "{name: my-object, mergingList: [{name: 1}, {name: 3}],"
        " replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}], mergingList: [{name: 2}],"
        " replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}",
        "{name: my-object, mergingList: [{name: 1}, {name: 2}, {name: 3}],"
        " replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}",
    ),
    # -- fields the schema does not know: JSON merge semantics, nulls discarded from new values --------------
    (
        "unknown: null in a new map is discarded",
        "{array: [1, 2, 3], name: foo}",
        "{complex_nullable: {key: null}}",
        "{array: [1, 2, 3], name: foo, complex_nullable: {}}",
    ),
    (
        "unknown: nested nulls discarded, values added",
        "{}",
        "{complex_nullable: {key: {keynotnull: value, keynull: null}}}",
        "{complex_nullable: {key: {keynotnull: value}}}",
    ),
    (
        "unknown: nulls filtered from maps in new lists",
        "{}",
        "{complex_nullable: [{inner_one: {key_one: foo, key_two: null}}]}",
        "{complex_nullable: [{inner_one: {key_one: foo}}]}",
    ),
    (
        "unknown: null list elements are kept",
        "{}",
        "{complex_nullable: [key1, null, key2]}",
        "{complex_nullable: [key1, null, key2]}",
    ),
    (
        "unknown: empty lists are added",
        "{name: foo}",
        "{complex_nullable: []}",
        "{name: foo, complex_nullable: []}",
    ),
    (
        "unknown: nulls in the original stay",
        "{thing: null}",
        "{nested: {value: 5}}",
        "{thing: null, nested: {value: 5}}",
    ),
    (
        "unknown: removed only 3w",
        "{name: foo, scalar: true, complex: {nested: true}, array: [1, 2, 3]}",
        "{complex: null, scalar: null}",
        "{name: foo, array: [1, 2, 3]}",
    ),
    ("unknown: lists are replaced", "{array: [1, 2, 3]}", "{array: [3]}", "{array: [3]}"),
]


@pytest.mark.parametrize(
    ("original", "patch", "expected"), [c[1:] for c in KUBE_CASES], ids=[c[0] for c in KUBE_CASES]
)
def test_kube_cases(original: str, patch: str, expected: str) -> None:
    assert smp(original, patch) == y(expected)


DIRECTIVE_CASES = [
    (
        "a $patch: delete for an absent map key deletes nothing",
        "{name: 1}",
        "{simpleMap: {$patch: delete}}",
        "{name: 1}",
    ),
    (
        "a $patch: replace map keeps no directives from inside",
        "{simpleMap: {a: b}}",
        "{simpleMap: {$patch: replace, c: d, $retainKeys: [c]}}",
        "{simpleMap: {c: d}}",
    ),
    (
        "directives leave no trace in a new subtree",
        "{}",
        "{retainKeysMap: {$retainKeys: [name], name: x, $setElementOrder/mergingList: [{name: a}],"
        " mergingList: [{name: a}, {name: b, $patch: delete}], $deleteFromPrimitiveList/mergingIntList:"
        " [1]}}",
        "{retainKeysMap: {name: x, mergingList: [{name: a}]}}",
    ),
    (
        "directives leave no trace in a new merging-list element",
        "{mergingList: [{name: a}]}",
        "{mergingList: [{name: b, $setElementOrder/mergingList: [{name: c}], mergingList: [{name: c}],"
        " value: null}]}",
        "{mergingList: [{name: b, mergingList: [{name: c}]}, {name: a}]}",
    ),
    (
        "a replaced list drops directive elements",
        "{nonMergingList: [{name: a}]}",
        "{nonMergingList: [{$patch: replace}, {name: b, value: null}]}",
        "{nonMergingList: [{name: b}]}",
    ),
    (
        "$patch: replace in a list keeps later elements only",
        "{mergingList: [{name: 1}, {name: 2}]}",
        "{mergingList: [{name: 3}, {$patch: replace}, {name: 4}]}",
        "{mergingList: [{name: 3}, {name: 4}]}",
    ),
    (
        "new elements of a merged list go before server-only ones",
        "{mergingList: [{name: a}, {name: b}]}",
        "{mergingList: [{name: c}]}",
        "{mergingList: [{name: c}, {name: a}, {name: b}]}",
    ),
    (
        "a changed element keeps its place",
        "{mergingList: [{name: a}, {name: b, value: 1}, {name: c}]}",
        "{mergingList: [{name: b, value: 2}]}",
        "{mergingList: [{name: a}, {name: b, value: 2}, {name: c}]}",
    ),
    (
        "merging primitives unions without duplicates",
        "{mergingIntList: [1, 1, 2]}",
        "{mergingIntList: [2, 3, 3]}",
        "{mergingIntList: [1, 2, 3]}",
    ),
    (
        "a value of another type replaces",
        "{simpleMap: {a: b}, name: x}",
        "{simpleMap: [1], name: {a: 1}}",
        "{simpleMap: [1], name: {a: 1}}",
    ),
    (
        "a $patch map of another type deletes the field",
        "{name: x}",
        "{name: {$patch: delete}}",
        "{}",
    ),
    ("$patch: delete at the top empties the object", "{name: 1, value: 2}", "{$patch: delete}", "{}"),
    (
        "a null $deleteFromPrimitiveList drops the list",
        "{mergingIntList: [1]}",
        "{$deleteFromPrimitiveList/mergingIntList: null}",
        "{}",
    ),
]


@pytest.mark.parametrize(
    ("original", "patch", "expected"), [c[1:] for c in DIRECTIVE_CASES], ids=[c[0] for c in DIRECTIVE_CASES]
)
def test_directives(original: str, patch: str, expected: str) -> None:
    assert smp(original, patch) == y(expected)


ERROR_CASES = [
    (
        "missing merge key",
        "{mergingList: [{name: 1, value: a}]}",
        "{mergingList: [{value: b}]}",
        500,
        "map: map[value:b] does not contain declared merge key: name",
    ),
    (
        "missing merge key, values printed as Go does",
        "{mergingList: [{name: 1}]}",
        '{"mergingList": [{"value": 1.5, "other": 1000000.0, "flag": true,'
        ' "nested": {"b": [1, null, 0.00001]}}]}',
        500,
        "map: map[flag:true nested:map[b:[1 <nil> 1e-05]] other:1e+06 value:1.5]"
        " does not contain declared merge key: name",
    ),
    (
        "missing merge key in a delete element",
        "{mergingList: [{name: 1}]}",
        "{mergingList: [{$patch: delete, value: a}]}",
        500,
        "map: map[$patch:delete value:a] does not contain declared merge key: name",
    ),
    (
        "missing merge key in a new list with $setElementOrder",
        "{}",
        "{$setElementOrder/mergingList: [{name: 1}], mergingList: [{value: a}]}",
        500,
        "map: map[value:a] does not contain declared merge key: name",
    ),
    (
        "patch list out of $setElementOrder order",
        "{mergingList: [{name: 1}, {name: 3}, {name: 2}]}",
        "{$setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}],"
        " mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}",
        500,
        "the order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match"
        " $setElementOrder list:\n"
        "[map[name:1] map[name:2] map[name:3]]",
    ),
    (
        "int patch list out of $setElementOrder order",
        "{mergingIntList: [1, 3, 2]}",
        "{$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}",
        500,
        "the order in patch list:\n[3 1]\n doesn't match $setElementOrder list:\n[1 2 3]",
    ),
    (
        "$patch: merge on a map",
        "{simpleMap: {a: b}}",
        "{simpleMap: {$patch: merge, c: d}}",
        500,
        "unknown patch type: merge in map: map[$patch:merge c:d]",
    ),
    (
        "$patch: merge in a list",
        "{mergingList: [{name: 1}]}",
        "{mergingList: [{$patch: merge}]}",
        500,
        "merging lists cannot yet be specified in the patch",
    ),
    (
        "unknown $patch in a list",
        "{mergingList: [{name: 1}]}",
        "{mergingList: [{$patch: bogus, name: 1}]}",
        500,
        "unknown patch type: bogus in map: map[$patch:bogus name:1]",
    ),
    (
        "non-string $patch",
        "{simpleMap: {a: b}}",
        "{simpleMap: {$patch: 1}}",
        500,
        "unknown patch type: %!s(int64=1) in map: map[$patch:1]",
    ),
    (
        "$retainKeys is not a list",
        "{retainKeysMap: {name: a}}",
        "{retainKeysMap: {$retainKeys: name}}",
        400,
        "invalid patch format of retainKeys",
    ),
    (
        "patch key missing from $retainKeys",
        "{retainKeysMap: {name: a}}",
        "{retainKeysMap: {$retainKeys: [name], value: b}}",
        400,
        "invalid patch format of retainKeys",
    ),
    (
        "$deleteFromPrimitiveList without a field",
        "{mergingIntList: [1]}",
        "{$deleteFromPrimitiveList: [1]}",
        400,
        "invalid patch format of primitive list",
    ),
    (
        "$setElementOrder without a field",
        "{mergingIntList: [1]}",
        "{$setElementOrder: [1]}",
        400,
        "invalid patch format of setElementOrder list",
    ),
    (
        "$setElementOrder that is not a list",
        "{mergingIntList: [1]}",
        "{$setElementOrder/mergingIntList: 1}",
        500,
        "expected a []interface {}, but received a int64",
    ),
    (
        "bools and ints are different types",
        "{mergingIntList: [1]}",
        "{mergingIntList: [true]}",
        500,
        "list element types are not identical: [[1] [true]]",
    ),
    (
        "lists of lists",
        "{mergingIntList: [[1]]}",
        "{mergingIntList: [[2]]}",
        422,
        "lists of lists are not supported",
    ),
    (
        "mixed element types",
        "{mergingIntList: [1]}",
        "{mergingIntList: [a]}",
        500,
        "list element types are not identical: [[1] [a]]",
    ),
    (
        "live element that is not a map",
        "{mergingList: [x]}",
        "{mergingList: [{name: 1}]}",
        500,
        "list element types are not identical: [[x] [map[name:1]]]",
    ),
]


@pytest.mark.parametrize(
    ("original", "patch", "code", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_errors(original: str, patch: str, code: int, message: str) -> None:
    with pytest.raises(StrategicMergeError) as caught:
        smp(original, patch)
    assert (caught.value.code, str(caught.value)) == (code, message)


@pytest.mark.parametrize(
    ("code", "reason"), [(400, "BadRequest"), (422, "Invalid"), (500, "")], ids=["400", "422", "500"]
)
def test_error_reason(code: int, reason: str) -> None:
    assert StrategicMergeError("x", code).reason == reason


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ([1], "json: cannot unmarshal array into Go value of type map[string]interface {}"),
        ("x", "json: cannot unmarshal string into Go value of type map[string]interface {}"),
    ],
    ids=["array", "string"],
)
def test_patch_must_be_an_object(patch: Any, message: str) -> None:
    with pytest.raises(StrategicMergeError) as caught:
        apply_strategic_merge_patch({}, patch, ITEM, FAKE)
    assert (caught.value.code, str(caught.value)) == (400, message)


@pytest.mark.parametrize(
    ("original", "patch", "expected"),
    [
        (
            "{mergingList: [{name: 1, value: a}]}",
            "{mergingList: [{name: 1.0}]}",
            [("float", None), ("int", "a")],
        ),
        ("{mergingList: [{name: 1, value: a}]}", "{mergingList: [{name: 1, other: b}]}", [("int", "a")]),
        (
            "{mergingList: [{name: true, value: a}]}",
            "{mergingList: [{name: 1}]}",
            [("int", None), ("bool", "a")],
        ),
    ],
    ids=["float is not int", "int matches int", "int is not bool"],
)
def test_merge_keys_compare_like_go(original: str, patch: str, expected: list[tuple[str, Any]]) -> None:
    merged = smp(original, patch)["mergingList"]
    assert [(type(e["name"]).__name__, e.get("value")) for e in merged] == expected


def test_inputs_are_not_modified() -> None:
    original = y("{mergingList: [{name: 1}, {name: 2}], simpleMap: {a: b}}")
    patch = y(
        "{$setElementOrder/mergingList: [{name: 2}, {name: 1}], mergingList: [{name: 1, $patch: delete}],"
        " simpleMap: {a: null}}"
    )
    before = (yaml.safe_dump(original), yaml.safe_dump(patch))
    result = apply_strategic_merge_patch(original, patch, ITEM, FAKE)
    assert result == y("{mergingList: [{name: 2}], simpleMap: {}}")
    assert (yaml.safe_dump(original), yaml.safe_dump(patch)) == before


SCHEMALESS_CASES = [
    ("maps merge", "{a: {b: 1, c: 2}}", "{a: {c: 3, d: 4}}", "{a: {b: 1, c: 3, d: 4}}"),
    ("null deletes", "{a: {b: 1, c: 2}}", "{a: {b: null}}", "{a: {c: 2}}"),
    ("lists replace", "{a: [{name: x}, {name: y}]}", "{a: [{name: z}]}", "{a: [{name: z}]}"),
    ("$patch: replace still works", "{a: {b: 1}}", "{a: {$patch: replace, c: 2}}", "{a: {c: 2}}"),
]


@pytest.mark.parametrize(
    ("original", "patch", "expected"), [c[1:] for c in SCHEMALESS_CASES], ids=[c[0] for c in SCHEMALESS_CASES]
)
def test_without_schema(original: str, patch: str, expected: str) -> None:
    assert apply_strategic_merge_patch(y(original), y(patch), None, FAKE) == y(expected)


# --- real kinds, through the kubernetes-validate schemas ----------------------------------------------------

POD = """
metadata:
  name: web
  labels: {app: web, tier: front}
  annotations: {note: a}
  finalizers: [example.com/a]
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: u1}
  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-2, uid: u2}
spec:
  containers:
  - name: app
    image: app:1
    ports: [{containerPort: 80, protocol: TCP}, {containerPort: 8080, protocol: TCP}]
    env: [{name: A, value: "1"}, {name: B, value: "2"}]
    volumeMounts: [{name: data, mountPath: /data}]
  - name: sidecar
    image: side:1
  volumes:
  - name: data
    emptyDir: {}
  - name: config
    configMap: {name: cfg}
  tolerations:
  - {key: a, operator: Exists}
  - {key: b, operator: Exists}
"""

POD_CASES = [
    (
        "set image keeps the other containers and fields",
        {"spec": {"containers": [{"name": "app", "image": "app:2"}]}},
        {
            ("spec", "containers"): [
                {
                    "name": "app",
                    "image": "app:2",
                    "ports": [
                        {"containerPort": 80, "protocol": "TCP"},
                        {"containerPort": 8080, "protocol": "TCP"},
                    ],
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                },
                {"name": "sidecar", "image": "side:1"},
            ]
        },
    ),
    (
        "ports merge by containerPort",
        {
            "spec": {
                "containers": [
                    {"name": "app", "ports": [{"containerPort": 8080, "name": "alt"}, {"containerPort": 443}]}
                ]
            }
        },
        {
            ("spec", "containers", 0, "ports"): [
                {"containerPort": 80, "protocol": "TCP"},
                {"containerPort": 8080, "protocol": "TCP", "name": "alt"},
                {"containerPort": 443},
            ]
        },
    ),
    (
        "env merges by name, and $patch: delete removes one",
        {
            "spec": {
                "containers": [
                    {"name": "app", "env": [{"name": "B", "value": "3"}, {"name": "A", "$patch": "delete"}]}
                ]
            }
        },
        {("spec", "containers", 0, "env"): [{"name": "B", "value": "3"}]},
    ),
    (
        "volumes merge by name and honour $retainKeys",
        {
            "spec": {
                "volumes": [
                    {"$retainKeys": ["hostPath", "name"], "name": "data", "hostPath": {"path": "/srv"}}
                ]
            }
        },
        {
            ("spec", "volumes"): [
                {"name": "data", "hostPath": {"path": "/srv"}},
                {"name": "config", "configMap": {"name": "cfg"}},
            ]
        },
    ),
    (
        "labels and annotations are maps",
        {"metadata": {"labels": {"tier": None, "env": "prod"}, "annotations": {"note": "b"}}},
        {("metadata", "labels"): {"app": "web", "env": "prod"}, ("metadata", "annotations"): {"note": "b"}},
    ),
    (
        "tolerations have no merge key and are replaced",
        {"spec": {"tolerations": [{"key": "c", "operator": "Exists"}]}},
        {("spec", "tolerations"): [{"key": "c", "operator": "Exists"}]},
    ),
    (
        "finalizers are a merged set of strings",
        {"metadata": {"finalizers": ["example.com/b", "example.com/a"]}},
        {("metadata", "finalizers"): ["example.com/b", "example.com/a"]},
    ),
    (
        "$deleteFromPrimitiveList removes a finalizer",
        {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}},
        {("metadata", "finalizers"): []},
    ),
    (
        "ownerReferences merge by uid",
        {"metadata": {"ownerReferences": [{"uid": "u2", "controller": True}]}},
        {
            ("metadata", "ownerReferences"): [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u1"},
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-2",
                    "uid": "u2",
                    "controller": True,
                },
            ]
        },
    ),
    (
        "kubectl apply: reorder containers and change one",
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}],
                "containers": [{"name": "sidecar", "image": "side:2"}],
            }
        },
        {
            ("spec", "containers", 0): {"name": "sidecar", "image": "side:2"},
            ("spec", "containers", 1, "name"): "app",
        },
    ),
    (
        "kubectl apply: add an env var in place",
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                "containers": [
                    {
                        "name": "app",
                        "$setElementOrder/env": [{"name": "A"}, {"name": "C"}, {"name": "B"}],
                        "env": [{"name": "C", "value": "x"}],
                    }
                ],
            }
        },
        {
            ("spec", "containers", 0, "env"): [
                {"name": "A", "value": "1"},
                {"name": "C", "value": "x"},
                {"name": "B", "value": "2"},
            ]
        },
    ),
    (
        "kubectl apply: drop a port",
        {
            "spec": {
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                "containers": [
                    {
                        "name": "app",
                        "$setElementOrder/ports": [{"containerPort": 8080}],
                        "ports": [{"containerPort": 80, "$patch": "delete"}],
                    }
                ],
            }
        },
        {("spec", "containers", 0, "ports"): [{"containerPort": 8080, "protocol": "TCP"}]},
    ),
]


def _at(obj: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        obj = obj[step]
    return obj


@pytest.mark.parametrize(("patch", "expected"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES])
def test_pod(patch: dict[str, Any], expected: dict[tuple[Any, ...], Any]) -> None:
    result = apply_strategic_merge_patch(y(POD), patch, schema_for("", "v1", "Pod"), default_lookup())
    assert {path: _at(result, path) for path in expected} == expected


DEPLOYMENT = """
metadata: {name: web}
spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: app:1, env: [{name: A, value: "1"}]}
      - {name: sidecar, image: side:1}
"""

DEPLOYMENT_CASES = [
    (
        "switching to Recreate with $retainKeys drops rollingUpdate",
        {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
        {("spec", "strategy"): {"type": "Recreate"}},
    ),
    (
        "without $retainKeys the strategy merges",
        {"spec": {"strategy": {"type": "Recreate"}}},
        {
            ("spec", "strategy"): {
                "type": "Recreate",
                "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
            }
        },
    ),
    (
        "set image on the pod template",
        {"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "side:2"}]}}}},
        {
            ("spec", "template", "spec", "containers"): [
                {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}]},
                {"name": "sidecar", "image": "side:2"},
            ]
        },
    ),
    (
        "rollout pause and scale",
        {"spec": {"paused": True, "replicas": 3}},
        {("spec", "paused"): True, ("spec", "replicas"): 3},
    ),
    (
        "rollout restart annotation on the template",
        {"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}}},
        {
            ("spec", "template", "metadata"): {
                "labels": {"app": "web"},
                "annotations": {"kubectl.kubernetes.io/restartedAt": "now"},
            }
        },
    ),
]


@pytest.mark.parametrize(
    ("patch", "expected"), [c[1:] for c in DEPLOYMENT_CASES], ids=[c[0] for c in DEPLOYMENT_CASES]
)
def test_deployment(patch: dict[str, Any], expected: dict[tuple[Any, ...], Any]) -> None:
    schema = schema_for("apps", "v1", "Deployment")
    result = apply_strategic_merge_patch(y(DEPLOYMENT), patch, schema, default_lookup())
    assert {path: _at(result, path) for path in expected} == expected


def test_service_ports_merge_by_port() -> None:
    service = y("{spec: {ports: [{name: http, port: 80, targetPort: 8080}, {name: https, port: 443}]}}")
    patch = {"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}
    result = apply_strategic_merge_patch(service, patch, schema_for("", "v1", "Service"), default_lookup())
    assert result["spec"]["ports"] == [
        {"name": "http", "port": 80, "targetPort": 9090},
        {"name": "https", "port": 443},
    ]


def test_pod_missing_container_name() -> None:
    with pytest.raises(StrategicMergeError) as caught:
        apply_strategic_merge_patch(
            y(POD), {"spec": {"containers": [{"image": "x"}]}}, schema_for("", "v1", "Pod"), default_lookup()
        )
    assert (caught.value.code, str(caught.value)) == (
        500,
        "map: map[image:x] does not contain declared merge key: name",
    )


LOOKUP_CASES = [
    ("pod containers", ("", "v1", "Pod"), ("spec",), "containers", ("merge", "name")),
    ("container ports", ("", "v1", "Pod"), ("spec", "containers", "[]"), "ports", ("merge", "containerPort")),
    ("pod volumes", ("", "v1", "Pod"), ("spec",), "volumes", ("merge,retainKeys", "name")),
    ("pod tolerations", ("", "v1", "Pod"), ("spec",), "tolerations", ("", None)),
    ("finalizers", ("", "v1", "Pod"), ("metadata",), "finalizers", ("merge", None)),
    ("ownerReferences", ("", "v1", "Pod"), ("metadata",), "ownerReferences", ("merge", "uid")),
    ("deployment strategy", ("apps", "v1", "Deployment"), ("spec",), "strategy", ("retainKeys", None)),
    ("service ports", ("", "v1", "Service"), ("spec",), "ports", ("merge", "port")),
    ("unknown field", ("", "v1", "Pod"), ("spec",), "nope", ("", None)),
]


@pytest.mark.parametrize(
    ("gvk", "path", "name", "expected"), [c[1:] for c in LOOKUP_CASES], ids=[c[0] for c in LOOKUP_CASES]
)
def test_lookup_patch_meta(
    gvk: tuple[str, str, str], path: tuple[str, ...], name: str, expected: Any
) -> None:
    lookup = default_lookup()
    node = schema_for(*gvk)
    for step in path:
        node = lookup.items(node) if step == "[]" else lookup.field(node, step)
    assert lookup.patch_meta(node, name) == expected


def test_lookup_map_values_and_unknowns() -> None:
    lookup = default_lookup()
    meta = lookup.field(schema_for("", "v1", "Pod"), "metadata")
    labels = lookup.field(meta, "labels")
    value = lookup.field(labels, "any-key")
    assert (
        value.source if value is not None else None,
        lookup.field(meta, "nope"),
        schema_for("x.io", "v1", "Nope"),
    ) == (
        {"type": ["string", "null"]},
        None,
        None,
    )


# -- large lists: one index per list, not a scan per patch element ---------------------------------------


def test_a_patch_of_5000_containers_merges_in_linear_time() -> None:
    count = 5000
    pod = {"spec": {"containers": [{"name": f"c{i}", "image": "a"} for i in range(count)]}}
    kept = [i for i in range(count) if i % 10]
    patch = {
        "spec": {
            "$setElementOrder/containers": [{"name": f"n{i}"} for i in range(1000)]
            + [{"name": f"c{i}"} for i in reversed(kept)],
            "containers": [{"name": f"n{i}", "image": "n"} for i in range(1000)]
            + [{"name": f"c{i}", "image": "b"} for i in reversed(kept) if i % 2]
            + [{"name": f"c{i}", "$patch": "delete"} for i in range(0, count, 10)],
        }
    }
    started = time.perf_counter()
    result = apply_strategic_merge_patch(pod, patch, schema_for("", "v1", "Pod"), default_lookup())
    elapsed = time.perf_counter() - started
    assert result == {
        "spec": {
            "containers": [{"name": f"n{i}", "image": "n"} for i in range(1000)]
            + [{"name": f"c{i}", "image": "b" if i % 2 else "a"} for i in reversed(kept)]
        }
    }
    assert elapsed < 5  # about 0.1 s; a scan of the list per patch element took minutes


def test_many_deletions_of_duplicated_keys_keep_kubes_order() -> None:
    # every `a` and `b` goes; `z` lands in kube's backing array at position 2, which the live list it orders
    # by still spans, so `x` and `y` go before it (ordered by the original list, `z` would go first)
    original = "{mergingList: [{name: a}, {name: x, value: 1}, {name: b}, {name: a}, {name: y}, {name: b}]}"
    patch = (
        "{$setElementOrder/mergingList: [{name: z}], "
        "mergingList: [{name: a, $patch: delete}, {name: z}, {name: b, $patch: delete}, {name: a, $patch: delete}]}"
    )
    assert smp(original, patch) == y("{mergingList: [{name: x, value: 1}, {name: y}, {name: z}]}")
