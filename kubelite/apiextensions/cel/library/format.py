"""Kubernetes' format library (k8s.io/apiserver/pkg/cel/library/format.go): the named formats
(`format.dns1123Label()`, ..., `format.named("uuid")`) and `<format>.validate(string)`, which yields the
validation errors as an optional list (none when the string is valid).

cel-expr-python cannot return an optional from a Python function, so `validate` and `format.named` are
declared with their optional results for the checker only, and `rewrite` replaces each call in the checked
AST by `optional.ofNonZeroValue(<a hidden function returning the list / the format>)`: an empty list (a
format without a name) is the zero value and becomes optional.none().
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import FORMAT, FormatMessage, T, overload
from kubelite.apiextensions.cel.library.urls import _parse as parse_url
from kubelite.apimachinery import validation


def _uri(text: str) -> list[str]:
    try:
        parse_url(text)
    except ValueError as err:
        return [str(err).removeprefix("URL parse error during conversion from string: ")]
    return []


def _uuid(text: str) -> list[str]:
    try:
        uuid.UUID(text)
    except ValueError:
        return ["does not match the UUID format"]
    return [] if re.fullmatch(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", text) \
        else ["does not match the UUID format"]


def _byte(text: str) -> list[str]:
    try:
        base64.b64decode(text, validate=True)
    except (ValueError, binascii.Error):
        return ["invalid base64"]
    return []


def _date(text: str) -> list[str]:
    try:
        datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return ["invalid date"]
    return []


def _datetime(text: str) -> list[str]:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return ["invalid datetime"]
    return [] if "T" in text.upper() or " " in text else ["invalid datetime"]


#: the function name after `format.` -> the format's name and its check
FORMATS: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "dns1123Label": ("DNS1123Label", lambda s: validation.name_is_dns_label(s, False)),
    "dns1123Subdomain": ("DNS1123Subdomain", lambda s: validation.name_is_dns_subdomain(s, False)),
    "dns1035Label": ("DNS1035Label", lambda s: validation.name_is_dns1035_label(s, False)),
    "qualifiedName": ("QualifiedName", validation.is_qualified_name),
    "dns1123LabelPrefix": ("DNS1123LabelPrefix", lambda s: validation.name_is_dns_label(s, True)),
    "dns1123SubdomainPrefix": ("DNS1123SubdomainPrefix", lambda s: validation.name_is_dns_subdomain(s, True)),
    "dns1035LabelPrefix": ("DNS1035LabelPrefix", lambda s: validation.name_is_dns1035_label(s, True)),
    "labelValue": ("LabelValue", validation.is_valid_label_value),
    "uri": ("URI", _uri),
    "uuid": ("uuid", _uuid),
    "byte": ("byte", _byte),
    "date": ("date", _date),
    "datetime": ("datetime", _datetime),
}
_BY_NAME = {name: key for key, (name, _) in FORMATS.items()}

VALIDATE_HIDDEN = "__kubernetes_format_validate"
NAMED_HIDDEN = "__kubernetes_format_named"
#: the overload id of the declared call -> (hidden function, its overload id, whether its result is wrapped)
REWRITES = {
    "format_validate": (VALIDATE_HIDDEN, "format_validate_list", True),
    "format_named": (NAMED_HIDDEN, "format_named_message", True),
}


def _validate(fmt: Any, text: str) -> list[str]:
    key = _BY_NAME.get(fmt.value)
    if key is None:
        raise ValueError(f"unknown format {fmt.value!r}")
    return FORMATS[key][1](text)


def _named(name: str) -> Any:
    key = next((k for k, (n, _) in FORMATS.items() if k == name), None)
    return FormatMessage(value=FORMATS[key][0]) if key is not None else FormatMessage()


def _constant(key: str) -> Callable[[], Any]:
    message = FormatMessage(value=FORMATS[key][0])
    return lambda: message


EXTENSION = cel.CelExtension(
    "kubernetes.format",
    [
        *(cel.FunctionDecl(f"format.{key}", [overload(f"format_{key}", FORMAT, [], _constant(key))])
          for key in FORMATS),
        cel.FunctionDecl("validate", [cel.Overload("format_validate",
                                                   T.AbstractType("optional_type", [T.List(T.STRING)]),
                                                   [FORMAT, T.STRING], is_member=True)]),
        cel.FunctionDecl("format.named", [cel.Overload("format_named", T.AbstractType("optional_type", [FORMAT]),
                                                       [T.STRING])]),
        cel.FunctionDecl(VALIDATE_HIDDEN, [overload("format_validate_list", T.List(T.STRING), [FORMAT, T.STRING],
                                                    _validate)]),
        cel.FunctionDecl(NAMED_HIDDEN, [overload("format_named_message", FORMAT, [T.STRING], _named)]),
    ],
)
