"""Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go): find and findAll on strings.

Patterns run on RE2 (google-re2), as Go's regexp and cel-cpp's `matches` do: linear time whatever the
pattern, so a rule cannot backtrack for ever."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import re2
from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import T, overload

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> Any:
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        detail = err.args[0].decode() if err.args and isinstance(err.args[0], bytes) else str(err)
        raise ValueError(f"Illegal regex: error parsing regexp: {detail}") from err


def _find(text: str, pattern: str) -> str:
    match = compile_pattern(pattern).search(text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str) -> list[str]:
    return [m.group(0) for m in compile_pattern(pattern).finditer(text)]


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
