"""Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll on strings.

Patterns are RE2 in kube; Python's re agrees on the syntax rules write in practice."""

from __future__ import annotations

import re
from functools import lru_cache

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import T, overload


@lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"error parsing regexp: {err}") from err


def _find(text: str, pattern: str) -> str:
    match = _compile(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str) -> list[str]:
    return [m.group(0) for m in _compile(pattern).finditer(text)]


def _find_all_n(text: str, pattern: str, limit: int) -> list[str]:
    if limit == 0:
        return []
    found = _find_all(text, pattern)
    return found if limit < 0 else found[:limit]


EXTENSION = cel.CelExtension(
    "kubernetes.regex",
    [
        cel.FunctionDecl("find", [overload("string_find_string", T.STRING, [T.STRING, T.STRING], _find, True)]),
        cel.FunctionDecl("findAll", [
            overload("string_find_all_string", T.List(T.STRING), [T.STRING, T.STRING], _find_all, True),
            overload("string_find_all_string_int", T.List(T.STRING), [T.STRING, T.STRING, T.INT], _find_all_n, True),
        ]),
    ],
)
