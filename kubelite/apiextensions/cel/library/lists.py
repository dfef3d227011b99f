"""Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max, indexOf,
lastIndexOf on lists; and the functions of cel-go's lists extension (version 3) that kube loads and cel-cpp
lacks: lists.range, slice, flatten, distinct, reverse, sort (first and last come with cel-cpp's optionals;
sortBy is a macro, which a Python extension cannot add)."""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import T, overload

_LIST = T.List(T.DYN)


def _is_sorted(items: list[Any]) -> bool:
    return all(not (items[i + 1] < items[i]) for i in range(len(items) - 1))


def _sum(items: list[Any]) -> Any:
    if not items:
        return 0
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def _min(items: list[Any]) -> Any:
    if not items:
        raise ValueError("min called on empty list")
    return min(items)


def _max(items: list[Any]) -> Any:
    if not items:
        raise ValueError("max called on empty list")
    return max(items)


def _index_of(items: list[Any], value: Any) -> int:
    for i, item in enumerate(items):
        if _equal(item, value):
            return i
    return -1


def _last_index_of(items: list[Any], value: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if _equal(items[i], value):
            return i
    return -1


def _equal(a: Any, b: Any) -> bool:
    # CEL keeps bools apart from numbers, which Python's == does not
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _range(count: int) -> list[int]:
    return list(range(count))


def _slice(items: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < 0:
        raise ValueError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise ValueError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if end > len(items):
        raise ValueError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return items[start:end]


def _flatten(items: list[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise ValueError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            out.extend(_flatten(item, depth - 1))
        else:
            out.append(item)
    return out


def _distinct(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if not any(_equal(item, seen) for seen in out):
            out.append(item)
    return out


def _sort(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError as err:
        raise ValueError("list elements must have the same type") from err


EXTENSION = cel.CelExtension(
    "kubernetes.lists",
    [
        cel.FunctionDecl("isSorted", [overload("list_is_sorted", T.BOOL, [_LIST], _is_sorted, member=True)]),
        cel.FunctionDecl("sum", [overload("list_sum", T.DYN, [_LIST], _sum, member=True)]),
        cel.FunctionDecl("min", [overload("list_min", T.DYN, [_LIST], _min, member=True)]),
        cel.FunctionDecl("max", [overload("list_max", T.DYN, [_LIST], _max, member=True)]),
        cel.FunctionDecl("indexOf", [overload("list_index_of", T.INT, [_LIST, T.DYN], _index_of, member=True)]),
        cel.FunctionDecl("lastIndexOf",
                         [overload("list_last_index_of", T.INT, [_LIST, T.DYN], _last_index_of, member=True)]),
        cel.FunctionDecl("lists.range", [overload("lists_range", T.List(T.INT), [T.INT], _range)]),
        cel.FunctionDecl("slice", [overload("list_slice", _LIST, [_LIST, T.INT, T.INT], _slice, member=True)]),
        cel.FunctionDecl("flatten", [
            overload("list_flatten", _LIST, [_LIST], _flatten, member=True),
            overload("list_flatten_int", _LIST, [_LIST, T.INT], _flatten, member=True),
        ]),
        cel.FunctionDecl("distinct", [overload("list_distinct", _LIST, [_LIST], _distinct, member=True)]),
        cel.FunctionDecl("reverse", [overload("list_reverse", _LIST, [_LIST], lambda items: items[::-1],
                                              member=True)]),
        cel.FunctionDecl("sort", [overload("list_sort", _LIST, [_LIST], _sort, member=True)]),
    ],
)
