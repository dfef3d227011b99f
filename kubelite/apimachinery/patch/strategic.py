"""Strategic merge patch (application/strategic-merge-patch+json), applied the way kube-apiserver applies it.

kubectl's `patch`, client-side `apply`, `edit`, `set image`, `rollout pause` and friends send strategic merge
patches. They read like JSON merge patches, except that the kind's schema says, field by field, whether a
list is replaced (the default) or merged, and by which key its elements are matched (`containers` by
`name`, `ports` by `containerPort`, `ownerReferences` by `uid`, ...). On top of that the patch may carry
directives:

* `$patch: replace` / `$patch: delete` on a map (replace it whole / empty it); as a list element,
  `{"$patch": "replace"}` replaces the whole list and `{"$patch": "delete", <key>: v}` drops that element;
* `$deleteFromPrimitiveList/<field>: [...]` removes values from a list of scalars;
* `$setElementOrder/<field>: [...]` fixes the order of a merged list (kubectl apply always sends it);
* `$retainKeys: [...]` clears every key of the map that is not listed (deployment `spec.strategy`).

The schema is only consulted through a `SchemaLookup`, so this module does not depend on where schemas
come from. A `None` schema means "no metadata", which is how kube treats unknown fields: maps merge,
lists are replaced.

The algorithm follows k8s.io/apimachinery/pkg/util/strategicpatch (`mergeMap`, `mergeSlice`,
`mergePatchIntoOriginal`) closely, including the order in which merged lists come out. Kube works on Go
slices in place; where that leaks into the result (the live list that orders server-only elements has been
partly overwritten by the time `$setElementOrder` is applied) the same effect is reproduced on purpose, so
the element order matches kube's. Error texts are kube's, including Go's `%v` rendering of maps.

Unlike kube, whose leftover directives inside wholly taken-over values (a replaced list, a new element of a
merged list, a `$patch: replace` map) are only dropped later when the map is decoded into a Go struct, the
result here never contains directives: they are stripped where such values are taken over.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from typing import Any, Final, Protocol

from kubelite.apimachinery import gofmt
from kubelite.apimachinery.meta import deep_copy

Node = Any

DIRECTIVE: Final = "$patch"
DELETE: Final = "delete"
REPLACE: Final = "replace"
MERGE: Final = "merge"
RETAIN_KEYS: Final = "$retainKeys"
DELETE_FROM_PRIMITIVE_LIST: Final = "$deleteFromPrimitiveList"
SET_ELEMENT_ORDER: Final = "$setElementOrder"
_RETAIN_KEYS_STRATEGY: Final = "retainKeys"


class SchemaLookup(Protocol):
    """Patch metadata of a kind's schema; `Node` is whatever sub-schema handle the implementation uses."""

    def field(self, schema: Node, name: str) -> Node | None:
        """The schema of field `name` of a map schema (a struct field or a map value), or None."""
        ...

    def items(self, schema: Node) -> Node | None:
        """The schema of the elements of a list schema, or None."""
        ...

    def patch_meta(self, schema: Node, name: str) -> tuple[str, str | None]:
        """(x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key) of `name`; ("", None) if unset."""
        ...


class StrategicMergeError(ValueError):
    """A patch kube refuses. `code` is the HTTP status kube-apiserver answers with.

    kube-apiserver maps only a few sentinel errors to client errors: a malformed directive list (400
    BadRequest, message as is) and lists of lists (422, reason Invalid, with kube's generic message "the
    server rejected our request due to an error in our request"). Everything else, a missing merge key
    included, reaches the client as a 500 with an empty reason and the error text as its message, which
    kubectl prints as `Error from server: <message>`.
    """

    def __init__(self, message: str, code: int = 500) -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    @property
    def reason(self) -> str:
        """The metav1.Status reason kube reports with `code`."""
        return {400: "BadRequest", 422: "Invalid"}.get(self.code, "")


def apply_strategic_merge_patch(
    original: dict[str, Any], patch: dict[str, Any], schema: Node | None, lookup: SchemaLookup
) -> dict[str, Any]:
    """`original` with `patch` applied; neither argument is modified. Raises StrategicMergeError."""
    if patch is None:
        return deep_copy(original)
    if not isinstance(patch, dict):
        raise StrategicMergeError(
            f"json: cannot unmarshal {gofmt.json_type(patch)} into Go value of type map[string]interface {{}}", 400
        )
    return _Merger(lookup).merge_map(deep_copy(original), deep_copy(patch), schema)


# --- errors, in kube's words --------------------------------------------------------------------------------


def _bad_primitive_list() -> StrategicMergeError:
    return StrategicMergeError("invalid patch format of primitive list", 400)


def _bad_retain_keys() -> StrategicMergeError:
    return StrategicMergeError("invalid patch format of retainKeys", 400)


def _bad_set_element_order() -> StrategicMergeError:
    return StrategicMergeError("invalid patch format of setElementOrder list", 400)


def _no_merge_key(item: Any, key: str) -> StrategicMergeError:
    return StrategicMergeError(f"map: {gofmt.v(item)} does not contain declared merge key: {key}")


def _bad_arg_type(expected: Any, actual: Any) -> StrategicMergeError:
    return StrategicMergeError(f"expected a {_go_type(expected)}, but received a {_go_type(actual)}")


def _bad_patch_type(directive: Any, patch: dict[str, Any]) -> StrategicMergeError:
    return StrategicMergeError(f"unknown patch type: {gofmt.s(directive)} in map: {gofmt.v(patch)}")


# --- Go value semantics -------------------------------------------------------------------------------------
# kube compares decoded JSON values as Go interfaces: int64(1), float64(1) and true are three different
# values, and values print with fmt's %v. Python's 1 == 1.0 == True would blur that.


def _kind(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    return type(value).__name__


def _ident(value: Any) -> tuple[str, Any]:
    """A hashable stand-in for a value that is equal exactly when Go's == says so."""
    if isinstance(value, dict | list):
        return ("unhashable", id(value))
    return (_kind(value), value)


def _go_type(value: Any) -> str:
    # %s of reflect.TypeOf(value): a nil interface has no type
    return gofmt.type_name(value) if value is not None else gofmt.s(None)


# --- directive helpers --------------------------------------------------------------------------------------


_DROP: Final = object()


def _is_parallel_directive(key: str) -> bool:
    return key == RETAIN_KEYS or key.startswith((SET_ELEMENT_ORDER, DELETE_FROM_PRIMITIVE_LIST))


def _taken_over(value: Any) -> Any:
    """A patch value that replaces (or becomes) part of the object, without nulls or directives.

    As in kube, a map that still carries `$patch` is dropped altogether (a `$patch: delete` for something
    that does not exist deletes nothing) and null map values are discarded; null list elements stay.
    Returns _DROP when the value itself must not be kept.
    """
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return _DROP
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if sub is None or _is_parallel_directive(key):
                continue
            cleaned = _taken_over(sub)
            if cleaned is not _DROP:
                out[key] = cleaned
        return out
    if isinstance(value, list):
        return [c for c in (_taken_over(v) for v in value) if c is not _DROP]
    return value


def _strip_prefix(key: str, prefix: str, error: Callable[[], StrategicMergeError]) -> str:
    head, sep, rest = key.partition("/")
    if not sep or head != prefix:
        raise error()
    return rest


def _parse_strategy(raw: str) -> str:
    """The list/map strategy of an x-kubernetes-patch-strategy value, without `retainKeys`."""
    parts = raw.split(",")
    if len(parts) == 1:
        return "" if parts[0] == _RETAIN_KEYS_STRATEGY else parts[0]
    if len(parts) == 2 and _RETAIN_KEYS_STRATEGY in parts:
        return parts[1] if parts[0] == _RETAIN_KEYS_STRATEGY else parts[0]
    raise StrategicMergeError(f"unexpected patch strategy: {gofmt.v(parts)}")


def _element_kind(*lists: list[Any]) -> str:
    """The one kind shared by the elements of all lists (kube's sliceElementType)."""
    found: str | None = None
    for values in lists:
        for value in values:
            kind = _kind(value)
            if found is None:
                found = kind
                if kind == "slice":
                    raise StrategicMergeError("lists of lists are not supported", 422)
            elif kind != found:
                raise StrategicMergeError(f"list element types are not identical: {gofmt.v(list(lists))}")
    if found is None:
        raise StrategicMergeError("no elements in any of the given slices")
    return found


def _merge_key_value(item: Any, merge_key: str) -> Any:
    return item.get(merge_key) if isinstance(item, dict) else None


class _Positions:
    """Index of the first element of `order` matching each value (by merge key for maps, else by value)."""

    def __init__(self, order: Iterable[Any], merge_key: str, kind: str) -> None:
        self._by_key = kind == "map"
        self._merge_key = merge_key
        self._first: dict[tuple[str, Any], int] = {}
        for i, item in enumerate(order):
            self._first.setdefault(_ident(self._value(item)), i)

    def _value(self, item: Any) -> Any:
        return _merge_key_value(item, self._merge_key) if self._by_key else item

    def of(self, item: Any) -> int:
        return self._first.get(_ident(self._value(item)), -1)


class _KeyIndex:
    """Where kube's linear findMapInSliceBasedOnKeyValue would stop in `items`, found once per list.

    The first map carrying the merge key with each value; a non-map met before the match is an error, as
    in the scan it replaces.
    """

    def __init__(self, items: list[Any], merge_key: str) -> None:
        self._first: dict[tuple[str, Any], int] = {}
        self._first_non_map = -1
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                if self._first_non_map < 0:
                    self._first_non_map = i
            elif merge_key in item:
                self._first.setdefault(_ident(item[merge_key]), i)

    def find(self, value: Any) -> int:
        index = self._first.get(_ident(value), -1)
        if self._first_non_map >= 0 and (index < 0 or self._first_non_map < index):
            raise StrategicMergeError(f"value for key {self._first_non_map} is not a map")
        return index


def _check_merge_keys(merge_key: str, *lists: list[Any]) -> None:
    for values in lists:
        for item in values:
            if not isinstance(item, dict):
                raise _bad_arg_type({}, item)
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)


def _is_delete_element(item: dict[str, Any]) -> bool:
    directive = item.get(DIRECTIVE)
    return isinstance(directive, str) and directive == DELETE


def _sort_by(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """`items` stably sorted by their position in `order` (kube's normalizeSliceOrder).

    Elements missing from `order` cannot be compared in kube (its sort callback is inconsistent for them);
    they never occur for well-formed patches and are put first here.
    """
    deletes: list[Any] = []
    if kind == "map":
        _check_merge_keys(merge_key, items, order)
        deletes = [v for v in items if _is_delete_element(v)]
        items = [v for v in items if not _is_delete_element(v)]
    positions = _Positions(order, merge_key, kind)
    return sorted(items, key=positions.of) + deletes


def _merge_sorted(
    left: list[Any], right: list[Any], server_order: list[Any], merge_key: str, kind: str
) -> list[Any]:
    """Interleave server-only items (`left`) into patch items (`right`), keeping both relative orders.

    A server-only item goes first only when both are in the live list and it came first there; anything
    that cannot be compared lets the patch item go first.
    """
    positions = _Positions(server_order, merge_key, kind)
    out: list[Any] = []
    i = j = 0
    while i < len(left) and j < len(right):
        li, ri = positions.of(left[i]), positions.of(right[j])
        if li >= 0 and ri >= 0 and li < ri:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _normalize(
    patch_items: list[Any],
    server_only: list[Any],
    patch_order: list[Any],
    server_order: list[Any],
    merge_key: str,
    kind: str,
) -> list[Any]:
    patch_items = _sort_by(patch_items, patch_order, merge_key, kind)
    server_only = _sort_by(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, patch_items, server_order, merge_key, kind)


def _partition_primitives(items: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    wanted = {_ident(v) for v in by}
    inside = [v for v in items if _ident(v) in wanted]
    outside = [v for v in items if _ident(v) not in wanted]
    return inside, outside


def _partition_maps(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    inside: list[Any] = []
    outside: list[Any] = []
    index = _KeyIndex(by, merge_key)
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type({}, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        (inside if index.find(item[merge_key]) >= 0 else outside).append(item)
    return inside, outside


def _partition(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    if merge_key:
        return _partition_maps(items, by, merge_key)
    return _partition_primitives(items, by)


def _dedupe(values: list[Any]) -> list[Any]:
    seen: set[tuple[str, Any]] = set()
    out: list[Any] = []
    for value in values:
        ident = _ident(value)
        if ident not in seen:
            seen.add(ident)
            out.append(value)
    return out


def _key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _ident(left) == _ident(right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise _bad_arg_type({}, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
    return _ident(left[merge_key]) == _ident(right[merge_key])


def _check_element_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """The patch's elements (deletions aside) must appear in $setElementOrder, in the same relative order."""
    if not order or not patch_list:
        return
    if merge_key:
        for item in patch_list:
            if not isinstance(item, dict):
                raise _bad_arg_type({}, item)
        kept = [v for v in patch_list if not _is_delete_element(v)]
    else:
        kept = patch_list
    p = s = 0
    while p < len(kept) and s < len(order):
        if isinstance(kept[p], dict) and DIRECTIVE in kept[p]:
            p += 1
            continue
        if _key_equal(kept[p], order[s], merge_key):
            p += 1
        s += 1
    if p < len(kept) and s >= len(order):
        raise StrategicMergeError(
            f"the order in patch list:\n{gofmt.v(patch_list)}\n"
            f" doesn't match {SET_ELEMENT_ORDER} list:\n{gofmt.v(order)}"
        )


# --- the merge ----------------------------------------------------------------------------------------------


class _Merger:
    def __init__(self, lookup: SchemaLookup) -> None:
        self._lookup = lookup

    def _meta(self, schema: Node | None, name: str) -> tuple[str, str]:
        if schema is None:
            return "", ""
        strategy, merge_key = self._lookup.patch_meta(schema, name)
        return _parse_strategy(strategy or ""), merge_key or ""

    def _field(self, schema: Node | None, name: str) -> Node | None:
        return None if schema is None else self._lookup.field(schema, name)

    def _items(self, schema: Node | None, name: str) -> Node | None:
        list_schema = self._field(schema, name)
        return None if list_schema is None else self._lookup.items(list_schema)

    def merge_map(
        self, original: dict[str, Any] | None, patch: dict[str, Any], schema: Node | None
    ) -> dict[str, Any]:
        """Merge `patch` into `original` in place (both are this merge's own copies) and return the result."""
        if DIRECTIVE in patch:
            return self._map_directive(patch)
        if original is None:
            original = {}
        self._apply_retain_keys(original, patch)
        self._apply_element_orders(original, patch, schema)

        for raw_key, value in patch.items():
            key, delete_list = raw_key, False
            if raw_key.startswith(DELETE_FROM_PRIMITIVE_LIST):
                key = _strip_prefix(raw_key, DELETE_FROM_PRIMITIVE_LIST, _bad_primitive_list)
                delete_list = True
            if value is None:
                original.pop(key, None)
                continue
            if key not in original or _kind(original[key]) != _kind(value):
                # a deletion list never creates or retypes the field it deletes from
                if not delete_list:
                    taken = _taken_over(value)
                    if taken is _DROP:
                        original.pop(key, None)
                    else:
                        original[key] = taken
                continue
            current = original[key]
            if isinstance(current, dict):
                strategy, _ = self._meta(schema, key)
                sub = self._field(schema, key)
                if strategy == REPLACE:
                    # kube keeps the patch map as is; a `$patch` in it is an unknown field it later drops
                    original[key] = _taken_over({k: v for k, v in value.items() if k != DIRECTIVE})
                else:
                    original[key] = self.merge_map(current, value, sub)
            elif isinstance(current, list):
                strategy, merge_key = self._meta(schema, key)
                if strategy == MERGE or delete_list:
                    items = self._items(schema, key)
                    original[key] = self._merge_list(current, value, items, merge_key, delete_list)[0]
                else:
                    original[key] = _taken_over(value)
            else:
                original[key] = value
        return original

    def _map_directive(self, patch: dict[str, Any]) -> dict[str, Any]:
        directive = patch[DIRECTIVE]
        if isinstance(directive, str) and directive == REPLACE:
            del patch[DIRECTIVE]
            replaced = _taken_over(patch)
            assert isinstance(replaced, dict)
            return replaced
        if isinstance(directive, str) and directive == DELETE:
            return {}
        raise _bad_patch_type(directive, patch)

    def _apply_retain_keys(self, original: dict[str, Any], patch: dict[str, Any]) -> None:
        if RETAIN_KEYS not in patch:
            return
        retained = patch.pop(RETAIN_KEYS)
        if not isinstance(retained, list):
            raise _bad_retain_keys()
        allowed = {_ident(v) for v in retained}
        for key, value in patch.items():
            if value is None or key.startswith((DELETE_FROM_PRIMITIVE_LIST, SET_ELEMENT_ORDER)):
                continue
            if _ident(key) not in allowed:
                raise _bad_retain_keys()
        for key in [k for k in original if _ident(k) not in allowed]:
            del original[key]

    def _apply_element_orders(
        self, original: dict[str, Any], patch: dict[str, Any], schema: Node | None
    ) -> None:
        """Merge each list that has a $setElementOrder, then order it so (kube's mergePatchIntoOriginal).

        Precedence: $setElementOrder, then the order within the patch, then the order in the live list.
        """
        for directive_key in [k for k in patch if k.startswith(SET_ELEMENT_ORDER)]:
            order = patch.pop(directive_key)
            if not isinstance(order, list):
                raise _bad_arg_type([], order)
            key = _strip_prefix(directive_key, SET_ELEMENT_ORDER, _bad_set_element_order)
            in_original, in_patch = key in original, key in patch
            original_list: list[Any] = []
            patch_list: list[Any] = []
            if in_original:
                if not isinstance(original[key], list):
                    raise _bad_arg_type([], original[key])
                original_list = original[key]
            if in_patch:
                if not isinstance(patch[key], list):
                    raise _bad_arg_type([], patch[key])
                patch_list = patch[key]
            strategy, merge_key = self._meta(schema, key)
            _check_element_order(patch_list, order, merge_key)

            live_order = original_list
            if in_original and in_patch:
                if strategy == MERGE:
                    merged, live_order = self._merge_list(
                        original_list, patch_list, self._items(schema, key), merge_key, False
                    )
                else:
                    merged = _taken_over(patch_list)
            elif in_original:
                merged = original_list
            elif in_patch:
                merged = _taken_over(patch_list)
            else:
                continue

            inside, outside = _partition(merged, order, merge_key)
            kind = _element_kind(original_list, patch_list)
            original[key] = _normalize(inside, outside, order, live_order, merge_key, kind)
            patch.pop(key, None)

    def _merge_list(
        self,
        original: list[Any],
        patch: list[Any],
        item_schema: Node | None,
        merge_key: str,
        delete_list: bool,
    ) -> tuple[list[Any], list[Any]]:
        """Merge a list; returns (result, live list as kube's caller sees it afterwards).

        The second value reproduces kube's in-place slice updates: deleting elements shifts the live list
        left inside the same backing array and new elements are then appended into the freed tail, so the
        caller's view of the live list (same length as before) ends with the first appended elements. Kube
        orders server-only elements by that view when it applies $setElementOrder.
        """
        if not original and not patch:
            return original, original
        kind = _element_kind(original, patch)
        if kind != "map":
            if delete_list:
                unwanted = {_ident(v) for v in patch}
                return [v for v in original if _ident(v) not in unwanted], original
            merged = _dedupe(original + patch)
            inside, outside = _partition(merged, patch, merge_key)
            return _normalize(inside, outside, patch, original, merge_key, kind), original
        if not merge_key:
            raise StrategicMergeError("cannot merge lists without merge key for struct")

        backing = list(original)  # kube's backing array; its length never changes
        live = len(backing)  # length of the live list after deletions
        rest: list[Any] = []
        deleted: list[Any] = []
        replace = False
        for element in patch:
            directive = element.get(DIRECTIVE, _DROP)
            if directive is _DROP:
                rest.append(element)
            elif isinstance(directive, str) and directive == DELETE:
                if merge_key not in element:
                    raise _no_merge_key(element, merge_key)
                deleted.append(element[merge_key])
            elif isinstance(directive, str) and directive == REPLACE:
                replace = True  # keep scanning: later deletions still apply to the live list
            elif isinstance(directive, str) and directive == MERGE:
                raise StrategicMergeError("merging lists cannot yet be specified in the patch")
            else:
                raise _bad_patch_type(directive, element)
        if deleted:
            live = _delete_matching(backing, merge_key, deleted)

        if replace:
            replacement = _taken_over(rest)
            inside, outside = _partition(replacement, [], merge_key)
            return _normalize(inside, outside, [], replacement, merge_key, kind), backing

        merged = backing[:live]
        # the positions in `merged` of each merge key value, kept up to date as elements change or are added
        positions: dict[tuple[str, Any], list[int]] = {}
        for i, item in enumerate(merged):
            if merge_key in item:
                positions.setdefault(_ident(item[merge_key]), []).append(i)
        for element in rest:
            if merge_key not in element:
                raise _no_merge_key(element, merge_key)
            wanted = _ident(element[merge_key])
            found = positions.get(wanted)
            if found:
                index = found[0]
                merged[index] = self.merge_map(merged[index], element, item_schema)
                _reindex(positions, merged[index], merge_key, wanted, index)
            else:
                taken = _taken_over(element)
                merged.append(taken)
                index = len(merged) - 1
                if merge_key in taken:
                    positions.setdefault(_ident(taken[merge_key]), []).append(index)
            if index < len(backing):
                backing[index] = merged[index]
        inside, outside = _partition(merged, rest, merge_key)
        return _normalize(inside, outside, rest, merged[:live], merge_key, kind), backing


def _reindex(
    positions: dict[tuple[str, Any], list[int]], merged: dict[str, Any], merge_key: str, was: tuple[str, Any], at: int
) -> None:
    """Move position `at`, the first with merge key value `was`, to wherever its merged element now belongs
    (a patch's null merge key removes the key, and the next duplicate becomes the one to find)."""
    now = _ident(merged[merge_key]) if merge_key in merged else None
    if now == was:
        return
    positions[was].pop(0)
    if now is not None:
        bisect.insort(positions.setdefault(now, []), at)


def _delete_matching(backing: list[Any], merge_key: str, values: list[Any]) -> int:
    """Remove every element whose merge key equals one of `values`, in place; returns the new live length.

    The same backing array as kube's, which deletes one value after another, each element by
    `append(s[:i], s[i+1:]...)`: the live elements shift left, and the slots a value's deletions free keep
    the list's last live element from before that value's turn.
    """
    live = len(backing)
    counts: dict[tuple[str, Any], int] = {}
    for item in backing:
        if merge_key in item:
            ident = _ident(item[merge_key])
            counts[ident] = counts.get(ident, 0) + 1
    gone: set[tuple[str, Any]] = set()
    last = live - 1  # position in the original of the last element still live
    tail: list[Any] = []  # what the freed slots hold, from the highest slot down
    for value in values:
        ident = _ident(value)
        removed = 0 if ident in gone else counts.get(ident, 0)
        if not removed:
            continue
        while merge_key in backing[last] and _ident(backing[last][merge_key]) in gone:
            last -= 1  # deleted by an earlier value
        tail.extend([backing[last]] * removed)
        gone.add(ident)
    if not tail:
        return live
    kept = [item for item in backing if merge_key not in item or _ident(item[merge_key]) not in gone]
    backing[:] = kept + tail[::-1]
    return len(kept)
