"""Kubernetes' CEL environment for CRD validation rules: cel-cpp's standard definitions and extensions
(strings, optionals, cel.bind, math, encoders), plus kube's own libraries written here (lists, sets, regex,
urls, quantity, ip/cidr, format), on a descriptor pool that declares kube's object types."""

from __future__ import annotations

from collections.abc import Mapping

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_encoders, ext_math, ext_optional, ext_strings

from kubelite.apiextensions.cel.library import format, lists, net, quantity, regex, sets, urls
from kubelite.apiextensions.cel.library.types import POOL


def extensions() -> list[cel.CelExtensionBase]:
    return [
        ext_strings.ExtStrings(),
        ext_optional.ExtOptional(),
        ext_bindings.ExtBindings(),
        ext_math.ExtMath(),
        ext_encoders.ExtEncoders(),
        lists.EXTENSION,
        sets.EXTENSION,
        regex.EXTENSION,
        urls.EXTENSION,
        quantity.EXTENSION,
        net.EXTENSION,
        format.EXTENSION,
    ]


def new_env(variables: Mapping[str, cel.Type]) -> cel.Env:
    """An environment declaring `variables` with every library loaded."""
    return cel.NewEnv(POOL, variables=dict(variables), extensions=extensions())
