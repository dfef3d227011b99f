"""Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max, indexOf,
lastIndexOf on lists."""

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
        raise ValueError("min(list) called on empty list")
    return min(items)


def _max(items: list[Any]) -> Any:
    if not items:
        raise ValueError("max(list) called on empty list")
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
    ],
)
