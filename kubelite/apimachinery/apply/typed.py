"""Operations on objects against their schema, as structured-merge-diff's `typed` package does them.

* `validate`: what converting an applied configuration into a typed value refuses (undeclared fields,
  scalars of the wrong type, list items without their key fields, duplicate keys).
* `to_field_set`: the paths a value sets; what an applier owns. A list-map item is owned as its key path
  (`k:{...}`) plus its fields, a set item by value (`v:...`), an atomic list or map as one leaf; a map key
  is owned by itself when its value is null or `{}` or the key is not a declared field.
* `compare`: which paths a change added, modified and removed; what an updater takes over. Like kube,
  which compares Go objects, a struct field Go always writes counts as present with its zero value.
* `merge`: an applied configuration merged into the live object (list-maps by key, keeping order as
  structured-merge-diff does; sets by value; atomic values replaced).
* `remove_items`: a value with the paths of a set taken out (a path that is a member goes with all of it).
* `ensure_named_fields_are_members`: a set that also owns the declared struct fields its paths pass through.

Values are plain JSON values; `ABSENT` stands for a missing value, as distinct from `None` (JSON null).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from kubelite.apimachinery import gofmt
from kubelite.apimachinery.apply.fieldpath import (
    Elem,
    PathElement,
    Set,
    element_string,
    index_elem,
    key_elem,
    value_elem,
)
from kubelite.apimachinery.apply.schema import BOOLEAN, DEDUCED, NUMERIC, STRING, ListType, MapType, Node


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


#: a value that is not there (as opposed to null)
ABSENT: Final[Any] = _Absent()

_SCALAR, _MAP, _LIST = 1, 2, 3
_SCALAR_TYPES = (str, int, float, bool)


class TypedError(Exception):
    """Validation errors, printed as structured-merge-diff's ValidationErrors."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__()
        self.errors = errors

    def __str__(self) -> str:
        texts = [f"{path}: {message}" if path else message for path, message in self.errors]
        if len(texts) == 1:
            return texts[0]
        return "\n".join(["errors:", *("  " + text for text in texts)])


class ItemError(ValueError):
    """A list item that has no path element (a map-list item without its keys, a map in a set...)."""


def _part(node: Node, value: Any) -> int:
    """Which of a node's atoms a value is handled as (deduceAtom, then handleAtom's order)."""
    kind = type(value)
    if kind is dict:
        if node.map is not None:
            return _MAP
    elif kind is list:
        if node.list is not None:
            return _LIST
    elif kind in _SCALAR_TYPES and node.scalar is not None:
        return _SCALAR
    if node.map is not None:
        return _MAP
    if node.scalar is not None:
        return _SCALAR
    return _LIST if node.list is not None else _SCALAR


def _field(mtype: MapType, key: str) -> tuple[Node, bool]:
    """The type of a map key and whether it is a declared field; unknown keys of live objects are deduced."""
    node = mtype.fields.get(key)
    if node is not None:
        return node, True
    return (mtype.elem if mtype.elem is not None else DEDUCED), False


def child_node(node: Node, pe: PathElement) -> Node:
    if type(pe) is str:
        if node.map is not None:
            return _field(node.map, pe)[0]
        return DEDUCED
    return node.list.item if node.list is not None else DEDUCED


@lru_cache(maxsize=4096)
def _cached_key(fields: tuple[tuple[str, type, Any], ...]) -> Elem:
    return key_elem((name, value) for name, _, value in fields)


def item_element(ltype: ListType, item: Any, index: int) -> PathElement:
    """The path element of a list item: its keys, its value, or (atomic lists) its index."""
    if ltype.atomic:
        return index_elem(index)
    if ltype.keys:
        if item is None:
            raise ItemError("associative list with keys may not have a null element")
        if type(item) is not dict:
            raise ItemError("associative list with keys may not have non-map elements")
        defaults = ltype.item.map.defaults if ltype.item.map is not None else {}
        fields: list[tuple[str, type, Any]] = []
        for key in ltype.keys:
            if key in item:
                value = item[key]
            elif key in defaults:
                value = defaults[key]
            else:
                raise ItemError(
                    f"associative list with keys has an element that omits key field {gofmt.quote(key)} "
                    "(and doesn't have default value)"
                )
            fields.append((key, type(value), value))
        try:
            return _cached_key(tuple(fields))
        except TypeError:  # a key value that is a map or a list
            return key_elem((name, value) for name, _, value in fields)
    if type(item) is dict:
        raise ItemError("associative list without keys has an element that's a map type")
    if type(item) is list:
        raise ItemError("associative list without keys has an element that's a list type")
    return value_elem(item)


def _items(ltype: ListType, items: list[Any]) -> Iterator[tuple[PathElement, Any]]:
    for index, item in enumerate(items):
        try:
            yield item_element(ltype, item, index), item
        except ItemError:
            continue


def _equal(a: Any, b: Any) -> bool:
    return a == b and (type(a) is bool) == (type(b) is bool)


# -- validation -------------------------------------------------------------------------------------------


def _go_value(value: Any) -> str:
    # structured-merge-diff prints the value with %v, its nil as null
    return gofmt.v(value, nil="null")


def _scalar_error(scalar: str, value: Any) -> str | None:
    if value is None:
        return None
    if scalar == NUMERIC:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected numeric (int or float), got {gofmt.type_name(value)}"
    elif scalar == STRING:
        if not isinstance(value, str):
            return f"expected string, got {_go_value(value)}"
    elif scalar == BOOLEAN:
        if not isinstance(value, bool):
            return f"expected boolean, got {_go_value(value)}"
    elif not isinstance(value, _SCALAR_TYPES):
        return f"expected any scalar, got {_go_value(value)}"
    return None


def validate(node: Node, value: Any, *, allow_duplicates: bool = False) -> None:
    """Raise TypedError with every problem converting `value` to the node's type finds."""
    errors: list[tuple[str, str]] = []
    _validate(node, value, "", errors, allow_duplicates)
    if errors:
        raise TypedError(errors)


def _validate(node: Node, value: Any, path: str, errors: list[tuple[str, str]], dups: bool) -> None:
    part = _part(node, value)
    if part == _SCALAR:
        problem = _scalar_error(node.scalar or "", value)
        if problem:
            errors.append((path, problem))
        return
    if part == _MAP:
        if value is None:
            return
        if type(value) is not dict:
            errors.append((path, f"expected map, got {_go_value(value)}"))
            return
        mtype = node.map
        assert mtype is not None
        for key, item in value.items():
            child = mtype.fields.get(key)
            if child is None:
                child = mtype.elem
                if child is None:
                    errors.append((f"{path}.{key}", "field not declared in schema"))
                    continue
            _validate(child, item, f"{path}.{key}", errors, dups)
        return
    if value is None:
        return
    if type(value) is not list:
        errors.append((path, f"expected list, got {_go_value(value)}"))
        return
    ltype = node.list
    assert ltype is not None
    seen: set[PathElement] = set()
    for index, item in enumerate(value):
        try:
            pe = item_element(ltype, item, index)
        except ItemError as exc:
            errors.append((path, f"element {index}: {exc}"))
            continue
        if pe in seen and not dups:
            errors.append((path, f"duplicate entries for key {element_string(pe)}"))
        seen.add(pe)
        _validate(ltype.item, item, path + element_string(pe), errors, dups)


# -- field sets -------------------------------------------------------------------------------------------


def to_field_set(node: Node, value: Any) -> Set:
    """The paths `value` sets."""
    _, below = _field_set(node, value)
    return below if below is not None else Set()


def _field_set(node: Node, value: Any) -> tuple[bool, Set | None]:
    """(whether the value is a leaf, the set below it)."""
    part = _part(node, value)
    if part == _SCALAR:
        return True, None
    if part == _MAP:
        mtype = node.map
        assert mtype is not None
        if mtype.atomic:
            return True, None
        if type(value) is not dict or not value:
            return False, None
        members: set[PathElement] = set()
        children: dict[PathElement, Set] = {}
        fields = mtype.fields
        for key, item in value.items():
            child = fields.get(key)
            declared = child is not None
            if child is None:
                child = mtype.elem if mtype.elem is not None else DEDUCED
            leaf, below = _field_set(child, item)
            if leaf or not declared or item is None or (type(item) is dict and not item):
                members.add(key)
            if below is not None:
                children[key] = below
        return False, (Set(members, children) if members or children else None)
    ltype = node.list
    assert ltype is not None
    if ltype.atomic:
        return True, None
    if type(value) is not list or not value:
        return False, None
    pairs = list(_items(ltype, value))
    counts: dict[PathElement, int] = {}
    for pe, _ in pairs:
        counts[pe] = counts.get(pe, 0) + 1
    members = set()
    children = {}
    for pe, item in pairs:
        members.add(pe)
        if counts[pe] > 1:  # duplicated items are owned as a whole
            continue
        _, below = _field_set(ltype.item, item)
        if below is not None:
            children[pe] = below
    return False, Set(members, children)


def ensure_named_fields_are_members(node: Node, fields: Set) -> Set:
    """`fields` plus the declared struct fields that have owned paths below them."""
    if fields.empty():
        return fields
    members = set(fields.members)
    children: dict[PathElement, Set] = {}
    declared = node.map.fields if node.map is not None else {}
    for pe, below in fields.children.items():
        if type(pe) is str and pe in declared:
            members.add(pe)
        children[pe] = ensure_named_fields_are_members(child_node(node, pe), below)
    return Set(members, children)


# -- comparison -------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Comparison:
    added: Set = field(default_factory=Set)
    modified: Set = field(default_factory=Set)
    removed: Set = field(default_factory=Set)

    def is_same(self) -> bool:
        return self.added.empty() and self.modified.empty() and self.removed.empty()

    def exclude(self, ignored: Set | None) -> Comparison:
        if ignored is None or ignored.empty():
            return self
        return Comparison(
            self.added.recursive_difference(ignored),
            self.modified.recursive_difference(ignored),
            self.removed.recursive_difference(ignored),
        )


def compare(node: Node, lhs: Any, rhs: Any) -> Comparison:
    """What changed from `lhs` to `rhs`."""
    result = Comparison()
    _Comparer(result).compare(node, lhs, rhs, _Level(None, None, [result.added, result.modified, result.removed]))
    return result


_ADDED, _MODIFIED, _REMOVED = 0, 1, 2


class _Level:
    """A position in the walk: the path to it (as a parent chain) and, per result set, the node of that set
    at this path once something below it has been recorded. Recording a path is then one `set.add` on the
    parent's node instead of a walk of the result from its root for every changed field."""

    __slots__ = ("parent", "pe", "sets")

    def __init__(self, parent: _Level | None, pe: PathElement | None, sets: list[Set | None]) -> None:
        self.parent = parent
        self.pe = pe
        self.sets = sets

    def node(self, which: int) -> Set:
        found = self.sets[which]
        if found is None:
            # the root level (no parent, no element) holds all three result sets
            assert self.parent is not None and self.pe is not None
            above = self.parent.node(which)
            found = above.children.get(self.pe)
            if found is None:
                found = above.children[self.pe] = Set()
            self.sets[which] = found
        return found


def _all_added(node: Node, value: Any) -> Set | None:
    """What `compare` records below a value that is new as a whole: every path it holds (as Go would write
    it: omitted zero values left out, always-written fields present); None when nothing is below it."""
    part = _part(node, value)
    if part == _SCALAR:
        return None
    if part == _MAP:
        mtype = node.map
        assert mtype is not None
        if mtype.atomic or type(value) is not dict or not value:
            return None
        zero, omitted = mtype.zero, mtype.omitted
        keys: Any = value
        if zero:
            keys = dict.fromkeys(value)
            keys.update(dict.fromkeys(zero))
        members: set[PathElement] = set()
        children: dict[PathElement, Set] = {}
        for key in keys:
            item = value.get(key, ABSENT)
            if omitted and key in omitted:
                empty = omitted[key]
                if type(item) is type(empty) and item == empty:
                    item = ABSENT
            if item is ABSENT:
                if key not in zero:
                    continue
                item = zero[key]
            members.add(key)
            below = _all_added(_field(mtype, key)[0], item)
            if below is not None:
                children[key] = below
        return Set(members, children) if members else None
    ltype = node.list
    assert ltype is not None
    if ltype.atomic or type(value) is not list or not value:
        return None
    groups: dict[PathElement, list[Any]] = {}
    for item_pe, item in _items(ltype, value):
        groups.setdefault(item_pe, []).append(item)
    children = {}
    for item_pe, items in groups.items():
        if len(items) == 1:  # a duplicated item is new as a whole
            below = _all_added(ltype.item, items[0])
            if below is not None:
                children[item_pe] = below
    return Set(set(groups), children)


class _Comparer:
    """The walk behind `compare`. A value is addressed by its parent's level and its own path element
    (`pe` None for the root, which is never recorded itself)."""

    __slots__ = ("result",)

    def __init__(self, result: Comparison) -> None:
        self.result = result

    @staticmethod
    def _record(level: _Level, pe: PathElement | None, which: int) -> None:
        if pe is not None:
            level.node(which).members.add(pe)

    def compare(self, node: Node, lhs: Any, rhs: Any, level: _Level, pe: PathElement | None = None) -> None:
        if lhs is ABSENT and rhs is not ABSENT and pe is not None:
            # all of it is new (most of a create): build its set in one walk and hang it in place
            level.node(_ADDED).members.add(pe)
            below = _all_added(node, rhs)
            if below is not None:
                level.node(_ADDED).children[pe] = below
            return
        if lhs is not ABSENT and rhs is not ABSENT and type(lhs) is type(rhs) and lhs == rhs:
            return
        if rhs is ABSENT:
            in_leaf = self._handle(node, _part(node, lhs), lhs, rhs, level, pe)
        elif lhs is ABSENT:
            in_leaf = self._handle(node, _part(node, rhs), lhs, rhs, level, pe)
        else:
            part = _part(node, rhs)
            if _part(node, lhs) == part:
                in_leaf = self._handle(node, part, lhs, rhs, level, pe)
            else:  # a value of another shape (untyped fields): a modification of the whole
                self._record(level, pe, _MODIFIED)
                in_leaf = True
        if not in_leaf:
            if lhs is ABSENT:
                self._record(level, pe, _ADDED)
            elif rhs is ABSENT:
                self._record(level, pe, _REMOVED)

    def _leaf(self, lhs: Any, rhs: Any, level: _Level, pe: PathElement | None) -> bool:
        if lhs is ABSENT:
            self._record(level, pe, _ADDED)
        elif rhs is ABSENT:
            self._record(level, pe, _REMOVED)
        elif not _equal(lhs, rhs):
            self._record(level, pe, _MODIFIED)
        return True

    def _handle(self, node: Node, part: int, lhs: Any, rhs: Any, level: _Level, pe: PathElement | None) -> bool:
        if part == _SCALAR:
            return self._leaf(lhs, rhs, level, pe)
        if part == _MAP:
            assert node.map is not None  # _part answers a part the node has
            return self._map(node.map, lhs, rhs, level, pe)
        assert node.list is not None
        return self._list(node.list, lhs, rhs, level, pe)

    def _map(self, mtype: MapType, lhs: Any, rhs: Any, level: _Level, pe: PathElement | None) -> bool:
        lmap = lhs if type(lhs) is dict else None
        rmap = rhs if type(rhs) is dict else None
        if mtype.atomic or (not lmap and not rmap):
            return self._leaf(lhs, rhs, level, pe)
        zero, omitted = mtype.zero, mtype.omitted
        keys = dict.fromkeys(lmap or ())
        keys.update(dict.fromkeys(rmap or ()))
        if zero:
            keys.update(dict.fromkeys(zero))
        here = level if pe is None else _Level(level, pe, [None, None, None])
        for key in keys:
            lval = lmap.get(key, ABSENT) if lmap is not None else ABSENT
            rval = rmap.get(key, ABSENT) if rmap is not None else ABSENT
            if omitted and key in omitted:
                # Go drops an omitempty field holding its zero value, so kube never sees it
                empty = omitted[key]
                if type(lval) is type(empty) and lval == empty:
                    lval = ABSENT
                if type(rval) is type(empty) and rval == empty:
                    rval = ABSENT
            if lval is ABSENT and lmap is not None and key in zero:
                lval = zero[key]
            if rval is ABSENT and rmap is not None and key in zero:
                rval = zero[key]
            if lval is ABSENT and rval is ABSENT:
                continue
            self.compare(_field(mtype, key)[0], lval, rval, here, key)
        return False

    def _list(self, ltype: ListType, lhs: Any, rhs: Any, level: _Level, pe: PathElement | None) -> bool:
        llist = lhs if type(lhs) is list else None
        rlist = rhs if type(rhs) is list else None
        if ltype.atomic or (not llist and not rlist):
            return self._leaf(lhs, rhs, level, pe)
        lvalues: dict[PathElement, list[Any]] = {}
        for item_pe, item in _items(ltype, llist or []):
            lvalues.setdefault(item_pe, []).append(item)
        rvalues: dict[PathElement, list[Any]] = {}
        for item_pe, item in _items(ltype, rlist or []):
            rvalues.setdefault(item_pe, []).append(item)
        order = dict.fromkeys(lvalues)
        order.update(dict.fromkeys(rvalues))
        here = level if pe is None else _Level(level, pe, [None, None, None])
        for item_pe in order:
            lvals = lvalues.get(item_pe, [])
            rvals = rvalues.get(item_pe, [])
            if len(lvals) <= 1 and len(rvals) <= 1:
                self.compare(ltype.item, lvals[0] if lvals else ABSENT, rvals[0] if rvals else ABSENT, here, item_pe)
            elif len(lvals) >= 2 and len(rvals) >= 2:  # duplicates on both sides compare as a whole
                if len(lvals) != len(rvals) or not all(map(_equal, lvals, rvals)):
                    self._record(here, item_pe, _MODIFIED)
            elif len(lvals) >= 2:  # no longer duplicated: the item is new, the duplicates are gone
                if rvals:
                    self.compare(ltype.item, ABSENT, rvals[0], here, item_pe)
                self._record(here, item_pe, _REMOVED)
            else:  # newly duplicated
                if lvals:
                    self.compare(ltype.item, lvals[0], ABSENT, here, item_pe)
                self._record(here, item_pe, _ADDED)
        return False


# -- merge ------------------------------------------------------------------------------------------------


def merge(node: Node, lhs: Any, rhs: Any) -> Any:
    """`rhs` (an applied configuration) merged into `lhs` (the live object); shares unchanged subtrees."""
    if rhs is ABSENT:
        return lhs
    if lhs is ABSENT or lhs is rhs:
        return rhs
    part = _part(node, rhs)
    if part == _SCALAR or _part(node, lhs) != part:
        return rhs
    if part == _MAP:
        assert node.map is not None  # _part answers a part the node has
        return _merge_map(node.map, lhs, rhs)
    assert node.list is not None
    return _merge_list(node.list, lhs, rhs)


def _merge_map(mtype: MapType, lhs: Any, rhs: Any) -> Any:
    lmap = lhs if type(lhs) is dict else None
    rmap = rhs if type(rhs) is dict else None
    if mtype.atomic or (not lmap and not rmap):
        return rhs
    if not rmap:  # null or {} applied over a filled map leaves it as it is
        return lhs
    if not lmap:
        return rhs
    out: dict[str, Any] = {}
    for key, lval in lmap.items():
        rval = rmap.get(key, ABSENT)
        out[key] = lval if rval is ABSENT else merge(_field(mtype, key)[0], lval, rval)
    for key, rval in rmap.items():
        if key not in out:
            out[key] = rval
    return out


def _merge_list(ltype: ListType, lhs: Any, rhs: Any) -> Any:
    llist = lhs if type(lhs) is list else None
    rlist = rhs if type(rhs) is list else None
    if ltype.atomic or (not llist and not rlist):
        return rhs
    rpes: list[PathElement] = []
    robserved: dict[PathElement, Any] = {}
    errors: list[tuple[str, str]] = []
    for index, item in enumerate(rlist or []):
        try:
            pe = item_element(ltype, item, index)
        except ItemError as exc:
            errors.append(("", f"element {index}: {exc}"))
            continue
        if pe in robserved:
            errors.append(("", f"duplicate entries for key {element_string(pe)}"))
            continue
        robserved[pe] = item
        rpes.append(pe)
    if errors:
        raise TypedError(errors)
    lpes: list[PathElement] = []
    litems: list[Any] = []
    lobserved: dict[PathElement, Any] = {}
    for index, item in enumerate(llist or []):
        try:
            pe = item_element(ltype, item, index)
        except ItemError:
            continue
        # a duplicated live item has no single value to merge with
        lobserved[pe] = ABSENT if pe in lobserved else item
        lpes.append(pe)
        litems.append(item)

    shared = [pe for pe in rpes if pe in lobserved]
    shared_at = 0
    next_shared = shared[0] if shared else None
    merged_rhs: set[PathElement] = set()
    out: list[Any] = []
    left, right = 0, 0
    while left < len(lpes) or right < len(rpes):
        if left < len(lpes) and right < len(rpes):
            pe = lpes[left]
            if pe == rpes[right]:
                merged_rhs.add(pe)
                out.append(merge(ltype.item, lobserved[pe], robserved[pe]))
                left += 1
                right += 1
                shared_at += 1
                next_shared = shared[shared_at] if shared_at < len(shared) else None
                continue
            if pe in robserved and next_shared is not None and next_shared != pe:
                left += 1  # a shared item, placed where the configuration puts it
                continue
        if left < len(lpes):
            pe = lpes[left]
            if pe not in robserved:
                out.append(litems[left])
                left += 1
                continue
            if pe in merged_rhs:
                left += 1
                continue
        if right < len(rpes):
            pe = rpes[right]
            merged_rhs.add(pe)
            out.append(merge(ltype.item, lobserved.get(pe, ABSENT), robserved[pe]))
            right += 1
            if next_shared is not None and next_shared == pe:
                shared_at += 1
                next_shared = shared[shared_at] if shared_at < len(shared) else None
    return out


# -- removal ----------------------------------------------------------------------------------------------


def remove_items(node: Node, value: Any, paths: Set) -> Any:
    """`value` without the paths of `paths`; a container left empty becomes ABSENT (and is dropped)."""
    if paths.empty():
        return value
    part = _part(node, value)
    if part == _SCALAR:
        return value
    if part == _MAP:
        mtype = node.map
        assert mtype is not None
        if type(value) is not dict or not value or mtype.atomic:
            return ABSENT
        out: dict[str, Any] = {}
        members, children = paths.members, paths.children
        for key, item in value.items():
            if key in members:
                continue
            below = children.get(key)
            if below is not None:
                item = remove_items(_field(mtype, key)[0], item, below)
                if item is ABSENT:
                    continue
            out[key] = item
        return out if out else ABSENT
    ltype = node.list
    assert ltype is not None
    if type(value) is not list or not value or ltype.atomic:
        return ABSENT
    kept: list[Any] = []
    members, children = paths.members, paths.children
    for index, item in enumerate(value):
        try:
            pe = item_element(ltype, item, index)
        except ItemError:
            kept.append(item)
            continue
        if pe in members:
            continue
        below = children.get(pe)
        if below is not None:
            item = remove_items(ltype.item, item, below)
            if item is ABSENT:
                continue
        kept.append(item)
    return kept if kept else ABSENT
