"""JSON patch (RFC 6902): add, remove, replace, move, copy and test on JSON pointers (RFC 6901).

`copy` is the one operation whose result can outgrow the patch: each copy may double the document, so
twenty small operations reach gigabytes. As evanphx/json-patch does for kube, the sizes (as JSON) of
everything copied add up, and a patch whose copies pass `copy_size_limit` fails before it copies more.

Inserting into or removing from the middle of an array moves the elements after it; a patch may move
MAX_ARRAY_SHIFTS of them in all. kube has no such bound (its Go patcher does not hold an event loop).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from kubelite.apimachinery.meta import deep_copy


class JSONPatchError(ValueError):
    pass


class CopySizeError(JSONPatchError):
    """The accumulated size of a patch's copies passed the limit."""

    def __init__(self, limit: int, accumulated: int) -> None:
        super().__init__(
            "Unable to complete the copy, the accumulated size increase of copy is "
            f"{accumulated}, exceeding the limit {limit}"
        )


#: array elements that inserts and removals in the middle of arrays may move, over one patch. A few dozen
#: milliseconds of memmove: 10,000 inserts at the head of a million-element array would hold the event
#: loop for seconds, while real patches move a few thousand at most
MAX_ARRAY_SHIFTS = 50_000_000


class ArrayShiftError(JSONPatchError):
    """A patch whose inserts and removals would move more array elements than MAX_ARRAY_SHIFTS."""


class _ShiftBudget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_ARRAY_SHIFTS

    def spend(self, moved: int) -> None:
        self.left -= moved
        if self.left < 0:
            raise ArrayShiftError(f"the patch moves more than {MAX_ARRAY_SHIFTS} array elements")


def _encoded(value: Any) -> tuple[bytes, bool]:
    """The JSON of a value, and whether orjson (rather than the standard library) wrote it."""
    try:
        return orjson.dumps(value), True
    except orjson.JSONEncodeError:  # integers beyond 64 bits (from YAML): the standard library holds them
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(), False


def _decoded(encoded: bytes, by_orjson: bool) -> Any:
    # orjson would read integers beyond 64 bits as floats: what it did not write, it does not read
    return orjson.loads(encoded) if by_orjson else json.loads(encoded)


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise JSONPatchError(f'invalid JSON pointer: "{pointer}"')
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container: list[Any], token: str, *, for_add: bool) -> int:
    if for_add and token == "-":
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise JSONPatchError(f"invalid array index: {token}")
    index = int(token)
    limit = len(container) if for_add else len(container) - 1
    if index > limit:
        raise JSONPatchError(f"array index out of bounds: {index}")
    return index


def _parent(doc: Any, pointer: str) -> tuple[Any, str]:
    tokens = _tokens(pointer)
    if not tokens:
        raise JSONPatchError("cannot operate on the document root")
    node = doc
    for token in tokens[:-1]:
        node = _child(node, token, pointer)
    return node, tokens[-1]


def _child(node: Any, token: str, pointer: str) -> Any:
    if isinstance(node, dict):
        if token not in node:
            raise JSONPatchError(f'doc is missing path: "{pointer}": missing value')
        return node[token]
    if isinstance(node, list):
        return node[_index(node, token, for_add=False)]
    raise JSONPatchError(f'doc is missing path: "{pointer}": missing value')


def _get(doc: Any, pointer: str) -> Any:
    node = doc
    for token in _tokens(pointer):
        node = _child(node, token, pointer)
    return node


def _add(doc: Any, pointer: str, value: Any, budget: _ShiftBudget) -> Any:
    if pointer == "":
        return value
    parent, token = _parent(doc, pointer)
    if isinstance(parent, dict):
        parent[token] = value
    elif isinstance(parent, list):
        index = _index(parent, token, for_add=True)
        budget.spend(len(parent) - index)
        parent.insert(index, value)
    else:
        raise JSONPatchError(f'doc is missing path: "{pointer}"')
    return doc


def _remove(doc: Any, pointer: str, budget: _ShiftBudget) -> Any:
    parent, token = _parent(doc, pointer)
    if isinstance(parent, dict):
        if token not in parent:
            raise JSONPatchError(f"unable to remove nonexistent key: {token}: missing value")
        del parent[token]
    elif isinstance(parent, list):
        index = _index(parent, token, for_add=False)
        budget.spend(len(parent) - index)
        del parent[index]
    else:
        raise JSONPatchError(f'doc is missing path: "{pointer}"')
    return doc


def _json_equal(a: Any, b: Any) -> bool:
    """RFC 6902 equality: numbers compare by value, but a boolean is never a number (Python says True == 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(b, (dict, list)):
        return False
    return bool(a == b)


def apply_json_patch(document: Any, operations: Any, *, copy_size_limit: int = 0) -> Any:
    """The patched copy of `document`; `copy_size_limit` (bytes of JSON, 0 for none) bounds what copies add."""
    if not isinstance(operations, list):
        raise JSONPatchError("json patch must be an array of operations")
    doc = deep_copy(document)
    copied = 0
    budget = _ShiftBudget()
    for op in operations:
        if not isinstance(op, dict) or not isinstance(op.get("op"), str):
            raise JSONPatchError("invalid operation: missing op")
        kind, path = op["op"], op.get("path")
        if not isinstance(path, str):
            raise JSONPatchError(f"operation {kind} is missing path")
        if kind in ("add", "replace", "test") and "value" not in op:
            raise JSONPatchError(f"missing value for operation {kind}")
        if kind == "add":
            doc = _add(doc, path, deep_copy(op["value"]), budget)
        elif kind == "remove":
            doc = _remove(doc, path, budget)
        elif kind == "replace":
            _get(doc, path)  # must exist
            if path == "":
                doc = deep_copy(op["value"])
            else:
                doc = _add(_remove(doc, path, budget), path, deep_copy(op["value"]), budget)
        elif kind in ("move", "copy"):
            source = op.get("from")
            if not isinstance(source, str):
                raise JSONPatchError(f"operation {kind} is missing from")
            if kind == "move":  # the value leaves its place: nothing to copy, nothing grows
                value = _get(doc, source)
                doc = _remove(doc, source, budget)
            else:
                encoded, by_orjson = _encoded(_get(doc, source))
                copied += len(encoded)
                if copy_size_limit and copied > copy_size_limit:
                    raise CopySizeError(copy_size_limit, copied)
                value = _decoded(encoded, by_orjson)
            doc = _add(doc, path, value, budget)
        elif kind == "test":
            if not _json_equal(_get(doc, path), op["value"]):
                raise JSONPatchError(f"testing value {path} failed: test failed")
        else:
            raise JSONPatchError(f"Unexpected kind: {kind}")
    return doc
