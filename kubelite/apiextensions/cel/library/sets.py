"""Kubernetes' sets library (k8s.io/apiserver/pkg/cel/library/sets.go, from cel-go's ext.Sets): lists read
as sets by sets.contains, sets.equivalent and sets.intersects."""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.lists import _equal
from kubelite.apiextensions.cel.library.types import T, overload

_LIST = T.List(T.DYN)


def _has(items: list[Any], value: Any) -> bool:
    return any(_equal(item, value) for item in items)


def _contains(items: list[Any], sub: list[Any]) -> bool:
    return all(_has(items, value) for value in sub)


def _equivalent(a: list[Any], b: list[Any]) -> bool:
    return _contains(a, b) and _contains(b, a)


def _intersects(a: list[Any], b: list[Any]) -> bool:
    return any(_has(a, value) for value in b)


EXTENSION = cel.CelExtension(
    "kubernetes.sets",
    [
        cel.FunctionDecl("sets.contains", [overload("list_sets_contains_list", T.BOOL, [_LIST, _LIST], _contains)]),
        cel.FunctionDecl("sets.equivalent",
                         [overload("list_sets_equivalent_list", T.BOOL, [_LIST, _LIST], _equivalent)]),
        cel.FunctionDecl("sets.intersects",
                         [overload("list_sets_intersects_list", T.BOOL, [_LIST, _LIST], _intersects)]),
    ],
)
