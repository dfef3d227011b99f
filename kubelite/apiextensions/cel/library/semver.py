"""Kubernetes' semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go, kube 1.33+): semver(),
isSemver (both with an optional normalize flag), major/minor/patch and comparisons of kubernetes.Semver
values, with the rules of blang/semver: MAJOR.MINOR.PATCH, optional pre-release and build parts, no leading
zeros, pre-releases ordered before their release.

`isLessThan`, `isGreaterThan` and `compareTo` are also quantity functions, and cel-cpp's runtime cannot tell
two message types apart by argument kind, so the semver overloads are declared for the checker alone
(`CHECK_ONLY`) and compile rewrites their calls to hidden functions (see library.REWRITES)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import SEMVER, SemverMessage, T, overload

_IDENT = re.compile(r"[0-9A-Za-z-]+")

Version = tuple[int, int, int, tuple[str, ...]]


def _number(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"Invalid character(s) found in {what} number {text!r}")
    if len(text) > 1 and text[0] == "0":
        raise ValueError(f"{what.capitalize()} number must not contain leading zeroes {text!r}")
    return int(text)


@lru_cache(maxsize=1024)
def parse(text: str) -> Version:
    """blang/semver's Parse."""
    core, plus, build = text.partition("+")
    if plus and not all(_IDENT.fullmatch(part) for part in build.split(".")):
        raise ValueError(f"Invalid character(s) found in build meta data {build!r}")
    core, dash, pre = core.partition("-")
    parts = core.split(".")
    if len(parts) != 3:
        raise ValueError("No Major.Minor.Patch elements found")
    major, minor, patch = (_number(p, w) for p, w in zip(parts, ("major", "minor", "patch"), strict=True))
    prerelease: tuple[str, ...] = ()
    if dash:
        prerelease = tuple(pre.split("."))
        for ident in prerelease:
            if not _IDENT.fullmatch(ident):
                raise ValueError(f"Invalid character(s) found in prerelease {ident!r}")
            if ident.isdigit() and len(ident) > 1 and ident[0] == "0":
                raise ValueError(f"Numeric PreRelease version must not contain leading zeroes {ident!r}")
    return major, minor, patch, prerelease


def _normalize(text: str) -> str:
    """kube's normalizeAndParse: no `v` prefix, no leading zeros, missing minor/patch as 0."""
    parts = text.removeprefix("v").split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            stripped = part.lstrip("0")
            parts[i] = stripped if stripped[:1].isdigit() else "0" + stripped
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise ValueError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def _semver(text: str, normalize: bool = False) -> Any:
    source = _normalize(text) if normalize else text
    parse(source)
    return SemverMessage(value=source)


def _is_semver(text: str, normalize: bool = False) -> bool:
    try:
        parse(_normalize(text) if normalize else text)
    except ValueError:
        return False
    return True


def _pre_key(ident: str) -> tuple[int, int, str]:
    return (0, int(ident), "") if ident.isdigit() else (1, 0, ident)


def compare(a: Any, b: Any) -> int:
    va, vb = parse(a.value), parse(b.value)
    if va[:3] != vb[:3]:
        return -1 if va[:3] < vb[:3] else 1
    pa, pb = va[3], vb[3]
    if pa == pb:
        return 0
    if not pa or not pb:
        return 1 if not pa else -1  # a release ranks after its pre-releases
    for x, y in zip(pa, pb, strict=False):
        if x != y:
            return -1 if _pre_key(x) < _pre_key(y) else 1
    return -1 if len(pa) < len(pb) else 1


LESS_HIDDEN = "__kubernetes_semver_is_less_than"
GREATER_HIDDEN = "__kubernetes_semver_is_greater_than"
COMPARE_HIDDEN = "__kubernetes_semver_compare_to"

#: overload id -> (hidden function, its overload id, wrapped in an optional)
REWRITES = {
    "semver_is_less_than": (LESS_HIDDEN, "semver_is_less_than_hidden", False),
    "semver_is_greater_than": (GREATER_HIDDEN, "semver_is_greater_than_hidden", False),
    "semver_compare_to": (COMPARE_HIDDEN, "semver_compare_to_hidden", False),
}

CHECK_ONLY = cel.CelExtension(
    "kubernetes.semver.check",
    [
        cel.FunctionDecl("isLessThan", [cel.Overload("semver_is_less_than", T.BOOL, [SEMVER, SEMVER],
                                                     is_member=True)]),
        cel.FunctionDecl("isGreaterThan", [cel.Overload("semver_is_greater_than", T.BOOL, [SEMVER, SEMVER],
                                                        is_member=True)]),
        cel.FunctionDecl("compareTo", [cel.Overload("semver_compare_to", T.INT, [SEMVER, SEMVER],
                                                    is_member=True)]),
    ],
)

EXTENSION = cel.CelExtension(
    "kubernetes.semver",
    [
        cel.FunctionDecl("semver", [
            overload("string_to_semver", SEMVER, [T.STRING], _semver),
            overload("string_bool_to_semver", SEMVER, [T.STRING, T.BOOL], _semver),
        ]),
        cel.FunctionDecl("isSemver", [
            overload("is_semver_string", T.BOOL, [T.STRING], _is_semver),
            overload("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], _is_semver),
        ]),
        cel.FunctionDecl("major", [overload("semver_major", T.INT, [SEMVER], lambda v: parse(v.value)[0], True)]),
        cel.FunctionDecl("minor", [overload("semver_minor", T.INT, [SEMVER], lambda v: parse(v.value)[1], True)]),
        cel.FunctionDecl("patch", [overload("semver_patch", T.INT, [SEMVER], lambda v: parse(v.value)[2], True)]),
        cel.FunctionDecl(LESS_HIDDEN, [overload("semver_is_less_than_hidden", T.BOOL, [SEMVER, SEMVER],
                                                lambda a, b: compare(a, b) < 0)]),
        cel.FunctionDecl(GREATER_HIDDEN, [overload("semver_is_greater_than_hidden", T.BOOL, [SEMVER, SEMVER],
                                                   lambda a, b: compare(a, b) > 0)]),
        cel.FunctionDecl(COMPARE_HIDDEN, [overload("semver_compare_to_hidden", T.INT, [SEMVER, SEMVER], compare)]),
    ],
)
