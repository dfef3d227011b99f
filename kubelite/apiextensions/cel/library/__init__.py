"""Kubernetes' CEL environment for CRD validation rules (k8s.io/apiserver/pkg/cel/environment/base.go):
cel-cpp's standard definitions, its strings extension at kube's version 2 and optionals, plus kube's own
libraries written here (lists, sets, regex, urls, quantity, ip/cidr, format, semver), on a descriptor pool that
declares kube's object types. kube loads neither cel.bind nor the math or encoder extensions for CRDs, so
neither does this environment."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from kubelite.apiextensions.cel.library import format, lists, net, quantity, regex, semver, sets, urls
from kubelite.apiextensions.cel.library.types import POOL


def extensions() -> list[cel.CelExtensionBase]:
    return [
        ext_strings.ExtStrings(2),
        ext_optional.ExtOptional(),
        lists.EXTENSION,
        sets.EXTENSION,
        regex.EXTENSION,
        urls.EXTENSION,
        quantity.EXTENSION,
        net.EXTENSION,
        format.EXTENSION,
        semver.EXTENSION,
    ]


#: the calls compile rewrites: overload id -> (hidden function, its overload id, whether wrapped in an optional)
REWRITES: dict[str, tuple[str, str, bool]] = {
    **format.REWRITES,
    **semver.REWRITES,
    "cidr_to_string": (net.CIDR_STRING_HIDDEN, "cidr_string_hidden", False),
}


def new_env(variables: Mapping[str, cel.Type]) -> cel.Env:
    """An environment to type-check rules in: `variables` declared, every library loaded, and the declarations
    that only the checker may see (programs run in `runtime_env`)."""
    return cel.NewEnv(POOL, variables=dict(variables), extensions=[*extensions(), net.CHECK_ONLY, semver.CHECK_ONLY])


@functools.cache
def runtime_env() -> cel.Env:
    """The environment every compiled rule runs in (a checked expression needs no declarations to run)."""
    return cel.NewEnv(POOL, variables={}, extensions=extensions())


@functools.cache
def _conversions() -> dict[str, cel.Expression]:
    env = cel.NewEnv(POOL, variables={"text": cel.Type.STRING}, extensions=[])
    return {name: env.compile(f"{name}(text)") for name in ("duration", "timestamp")}


def literal_check(function: str, text: str) -> bool:
    """Whether `duration(text)` / `timestamp(text)` evaluates (cel-go's literal validators run the call)."""
    result = _conversions()[function].eval(data={"text": text})
    return result.type().name() != "ERROR"
