"""The names a CRD asks for (`spec.names`) and is granted (`status.acceptedNames`): kube's
ValidateCustomResourceDefinitionNames, with its words.

Every name is a DNS-1035 label; kind and listKind may be mixed case but must otherwise be one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apiextensions.validation.internal import as_list, as_str
from kubelite.apimachinery.validation import FieldError, is_dns1035_label

_MIXED_CASE = "may have mixed case, but should otherwise match: "


def validate_names(names: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for key in ("plural", "singular"):
        value = as_str(names.get(key))
        if value and (problems := is_dns1035_label(value)):
            errs.append(FieldError.invalid(f"{path}.{key}", value, ",".join(problems)))
    for key in ("kind", "listKind"):
        value = as_str(names.get(key))
        if value and (problems := is_dns1035_label(value.lower())):
            errs.append(FieldError.invalid(f"{path}.{key}", value, _MIXED_CASE + ",".join(problems)))
    for i, short_name in enumerate(as_list(names.get("shortNames"))):
        short_name = as_str(short_name)
        if problems := is_dns1035_label(short_name):
            errs.append(FieldError.invalid(f"{path}.shortNames[{i}]", short_name, ",".join(problems)))
    kind, list_kind = as_str(names.get("kind")), as_str(names.get("listKind"))
    if kind and kind == list_kind:
        # a list and an item of the same kind could not be told apart when decoding
        errs.append(FieldError.invalid(f"{path}.listKind", list_kind, "kind and listKind may not be the same"))
    for i, category in enumerate(as_list(names.get("categories"))):
        category = as_str(category)
        if problems := is_dns1035_label(category):
            errs.append(FieldError.invalid(f"{path}.categories[{i}]", category, ",".join(problems)))
    return errs
