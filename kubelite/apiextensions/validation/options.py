"""What validation tightens or relaxes (kube's validationOptions): a create applies every rule; an update
relaxes those the stored CRD already broke, so an upgrade never rejects what was accepted before."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kubelite.apimachinery.validation import FieldError

#: (default value, the schema node declaring it, the path of the `default`) -> the default's errors
DefaultChecker = Callable[[Any, Mapping[str, Any], str], list[FieldError]]


@dataclass(frozen=True, slots=True)
class Options:
    allow_defaults: bool = True
    require_recognized_conversion_review_version: bool = True
    require_immutable_names: bool = False
    require_openapi_schema: bool = True
    require_valid_property_type: bool = True
    require_structural_schema: bool = True
    require_atomic_set_type: bool = True
    require_map_list_keys_map_set_validation: bool = True
    #: a CA bundle is only judged on an update of an established CRD whose old bundle was valid
    allow_invalid_ca_bundle: bool = True
    #: version name ("" for the top level) -> more than 8 unchanged selectable fields are kept
    allow_too_many_selectable_fields: Mapping[str, bool] = field(default_factory=dict)
    check_default: DefaultChecker | None = None
    #: NewStructural's verdict per schema node of the CRD under validation (shared by every copy of the options)
    structural_cache: dict[int, str | None] = field(default_factory=dict)

    def with_structural_required(self) -> Options:
        return replace(self, require_structural_schema=True)
