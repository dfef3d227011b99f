"""Field paths, sets of them, and the FieldsV1 form managedFields store them in.

Server-side apply records which fields each manager owns as a set of paths into the object. A path is a
sequence of elements: a field name (`f:replicas`), a list item picked by its key fields
(`k:{"containerPort":80,"protocol":"TCP"}`), a set item picked by its value (`v:"finalizer"`), or an
index into an atomic list (`i:0`). A set is a trie: each node has the elements that end a path there
(members) and the subtrees below it (children). FieldsV1 writes that trie as nested JSON objects with
each element serialised as its key, `{}` for a leaf, and a `.` key where a path is both a member and has
children. Order matters on the wire, so encoding sorts elements as structured-merge-diff does: field
names first, then keys, then values, then indices.

Field names are plain `str`; the other elements are `Elem` instances, equal when their canonical JSON is.
Sets are values: the operations build new sets and share unchanged subtrees, so a set must not be mutated
once it has been handed to another.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from kubelite.apimachinery import gofmt

_RANK_KEY, _RANK_VALUE, _RANK_INDEX = 1, 2, 3


class FieldsError(ValueError):
    """A FieldsV1 document that does not decode into a set."""


class Elem:
    """A path element that is not a field name: a keyed list item, a set item, or a list index."""

    __slots__ = ("kind", "order", "text", "value")

    kind: str  # "k", "v" or "i"
    text: str  # canonical JSON of the key fields, the value, or the index
    value: Any  # the key fields as ((name, value), ...) sorted by name, the value, or the index
    order: tuple[Any, ...]

    def __init__(self, kind: str, text: str, value: Any, order: tuple[Any, ...]) -> None:
        self.kind = kind
        self.text = text
        self.value = value
        self.order = order

    def __eq__(self, other: object) -> bool:
        if type(other) is not Elem:
            return NotImplemented
        return self.kind == other.kind and self.text == other.text

    def __hash__(self) -> int:
        return hash((self.kind, self.text))

    def __repr__(self) -> str:
        return f"{self.kind}:{self.text}"


PathElement = str | Elem
Path = tuple[PathElement, ...]


def key_elem(fields: Iterable[tuple[str, Any]]) -> Elem:
    """The element of an associative list item with these key field values."""
    ordered = tuple(sorted(fields, key=lambda field: field[0]))
    text = "{" + ",".join(f"{go_json(name)}:{go_json(value)}" for name, value in ordered) + "}"
    order = (_RANK_KEY, tuple((name, value_order(value)) for name, value in ordered))
    return Elem("k", text, ordered, order)


def value_elem(value: Any) -> Elem:
    """The element of a set item (a list of scalars that merges by value)."""
    return Elem("v", go_json(value), value, (_RANK_VALUE, value_order(value)))


def index_elem(index: int) -> Elem:
    return Elem("i", str(index), index, (_RANK_INDEX, index))


def sort_key(pe: PathElement) -> tuple[Any, ...]:
    """structured-merge-diff's order of path elements."""
    return (0, pe) if isinstance(pe, str) else pe.order


def value_order(value: Any) -> tuple[Any, ...]:
    """A sort key giving value.Compare's total order: numbers, strings, booleans, lists, maps, null."""
    if value is None:
        return (5,)
    if type(value) is bool:
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, list):
        return (3, tuple(value_order(item) for item in value))
    if isinstance(value, dict):
        return (4, tuple((key, value_order(item)) for key, item in sorted(value.items())))
    return (6,)


# -- JSON as Go writes it ---------------------------------------------------------------------------------


#: encoding/json's compact text, which keyed and set elements are written in
go_json = gofmt.json


def element_string(pe: PathElement) -> str:
    """How a path element prints in a conflict: `.name`, `[name="x"]`, `[=value]`, `[3]`."""
    if type(pe) is str:
        return "." + pe
    assert isinstance(pe, Elem)
    if pe.kind == "k":
        return "[" + ",".join(f"{name}={gofmt.smd_string(value)}" for name, value in pe.value) + "]"
    if pe.kind == "v":
        return f"[={gofmt.smd_string(pe.value)}]"
    return f"[{pe.value}]"


def path_string(path: Sequence[PathElement]) -> str:
    return "".join(element_string(pe) for pe in path)


def serialize_element(pe: PathElement) -> str:
    """The FieldsV1 key of a path element."""
    if type(pe) is str:
        return "f:" + pe
    assert isinstance(pe, Elem)
    return f"{pe.kind}:{pe.text}"


def deserialize_element(text: str) -> PathElement | None:
    """Parse a FieldsV1 key; None for an element type this version does not know (kept out of the set)."""
    if len(text) < 2:
        raise FieldsError("key must be 2 characters long")
    if text[1] != ":":
        raise FieldsError(f"missing colon: {text}")
    kind, body = text[0], text[2:]
    if kind == "f":
        return body
    if kind == "i":
        try:
            return index_elem(int(body))
        except ValueError as exc:
            raise FieldsError(str(exc)) from exc
    if kind not in ("k", "v"):
        return None
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise FieldsError(str(exc)) from exc
    if kind == "v":
        return value_elem(parsed)
    if not isinstance(parsed, dict):
        raise FieldsError(f"key of a list item must be an object: {text}")
    return key_elem(parsed.items())


# -- sets -------------------------------------------------------------------------------------------------


class Set:
    """A set of paths, as a trie. Children never hold empty sets."""

    __slots__ = ("_json", "children", "members")

    members: set[PathElement]
    children: dict[PathElement, Set]

    def __init__(self, members: set[PathElement] | None = None, children: dict[PathElement, Set] | None = None) -> None:
        self.members = members if members is not None else set()
        self.children = children if children is not None else {}
        #: the FieldsV1 encoding, once computed (sets are values, so it stays right)
        self._json: bytes | None = None

    @classmethod
    def of(cls, *paths: Sequence[PathElement]) -> Set:
        out = cls()
        for path in paths:
            out.insert(path)
        return out

    # building (only on a set nobody else holds)

    def insert(self, path: Sequence[PathElement]) -> None:
        self._json = None
        node = self
        for pe in path[:-1]:
            child = node.children.get(pe)
            if child is None:
                child = node.children[pe] = Set()
            node = child
            node._json = None
        if path:
            node.members.add(path[-1])

    # queries

    def empty(self) -> bool:
        return not self.members and not self.children

    def __bool__(self) -> bool:
        return bool(self.members or self.children)

    def has(self, path: Sequence[PathElement]) -> bool:
        node = self
        for pe in path[:-1]:
            child = node.children.get(pe)
            if child is None:
                return False
            node = child
        return bool(path) and path[-1] in node.members

    def with_prefix(self, pe: PathElement) -> Set:
        return self.children.get(pe) or _EMPTY

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Set):
            return NotImplemented
        return self.members == other.members and self.children == other.children

    # unhashable, as a mutable set is: typeshed declares object.__hash__ a method, hence the ignore
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Set(" + ", ".join(path_string(p) for p in self.paths()) + ")"

    def size(self) -> int:
        return len(self.members) + sum(child.size() for child in self.children.values())

    def paths(self) -> list[Path]:
        """Every path, in the order structured-merge-diff iterates a set: members, then children, sorted."""
        out: list[Path] = []
        self._collect((), out)
        return out

    def _collect(self, prefix: Path, out: list[Path]) -> None:
        for pe in sorted(self.members, key=sort_key):
            out.append((*prefix, pe))
        for pe in sorted(self.children, key=sort_key):
            self.children[pe]._collect((*prefix, pe), out)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.paths())

    # algebra

    def union(self, other: Set) -> Set:
        if other.empty():
            return self
        if self.empty():
            return other
        children = dict(self.children)
        for pe, theirs in other.children.items():
            mine = children.get(pe)
            children[pe] = theirs if mine is None else mine.union(theirs)
        return Set(self.members | other.members, children)

    def intersection(self, other: Set) -> Set:
        children: dict[PathElement, Set] = {}
        small, large = (self.children, other.children)
        if len(small) > len(large):
            small, large = large, small
        for pe, mine in small.items():
            theirs = large.get(pe)
            if theirs is not None:
                both = mine.intersection(theirs)
                if both:
                    children[pe] = both
        return Set(self.members & other.members, children)

    def difference(self, other: Set) -> Set:
        """Paths of self not in other; a parent in other does not remove its children from self."""
        if other.empty() or self.empty():
            return self
        children: dict[PathElement, Set] = {}
        for pe, mine in self.children.items():
            theirs = other.children.get(pe)
            if theirs is None:
                children[pe] = mine
            else:
                rest = mine.difference(theirs)
                if rest:
                    children[pe] = rest
        return Set(self.members - other.members, children)

    def recursive_difference(self, other: Set) -> Set:
        """Paths of self not in other, where a path of other also removes everything below it."""
        if other.empty() or self.empty():
            return self
        children: dict[PathElement, Set] = {}
        for pe, mine in self.children.items():
            if pe in other.members:
                continue
            theirs = other.children.get(pe)
            if theirs is None:
                children[pe] = mine
            else:
                rest = mine.recursive_difference(theirs)
                if rest:
                    children[pe] = rest
        return Set(self.members - other.members, children)

    # FieldsV1

    def to_fields(self) -> dict[str, Any]:
        """The FieldsV1 object of this set, keys in structured-merge-diff's order (a new object each time)."""
        if self._json is not None:
            return orjson.loads(self._json)
        fields = self._emit(include_self=False)
        self._json = orjson.dumps(fields)
        return fields

    def _emit(self, include_self: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if include_self and (self.members or self.children):
            out["."] = {}
        members, children = self.members, self.children
        keys = members | children.keys()
        # field names sort before every other element, among themselves as strings (see sort_key)
        names = sorted(pe for pe in keys if type(pe) is str)
        ordered: Sequence[PathElement] = names
        if len(names) != len(keys):
            ordered = [*names, *sorted((pe for pe in keys if type(pe) is not str), key=sort_key)]
        for pe in ordered:
            child = children.get(pe)
            key = "f:" + pe if type(pe) is str else serialize_element(pe)
            out[key] = {} if child is None else child._emit(include_self=pe in members)
        return out

    @classmethod
    def from_fields(cls, fields: Any) -> Set:
        """Decode a FieldsV1 object (as parsed JSON) into a set; the same document gives the same set."""
        if not isinstance(fields, dict):
            raise FieldsError("FieldsV1 must be an object")
        key = orjson.dumps(fields)
        cached = _decoded.get(key)
        if cached is not None:
            return cached
        children, _ = _read_fields(fields)
        decoded = children or cls()
        if len(_decoded) >= _DECODED_MAX:
            _decoded.pop(next(iter(_decoded)))
        _decoded[key] = decoded
        return decoded


_EMPTY = Set()
#: decoded FieldsV1 documents: every write decodes the stored managedFields, which rarely change
_decoded: dict[bytes, Set] = {}
_DECODED_MAX = 1024


def _read_fields(fields: dict[str, Any]) -> tuple[Set | None, bool]:
    """The set below one FieldsV1 object, and whether its own path is a member."""
    out: Set | None = None
    is_member = False
    for key, value in fields.items():
        if key == ".":
            is_member = True
            continue
        pe = deserialize_element(key)
        if pe is None:
            continue
        if not isinstance(value, dict):
            raise FieldsError(f"value of {key} must be an object")
        below, member = _read_fields(value)
        if member or below is not None:
            if out is None:
                out = Set()
            if member:
                out.members.add(pe)
            if below is not None:
                out.children[pe] = below
    if out is None:
        is_member = True
    return out, is_member
