"""Name, label and object-metadata validation with kube's exact words.

Clients read validation failures verbatim (kubectl prints `The ConfigMap "x" is invalid: metadata.name:
Invalid value: ...`), and tests match on them, so this module reproduces k8s.io/apimachinery's rules *and*
its texts: the string checks of `util/validation` and `api/validate/content` (DNS names, qualified names,
label values), `api/validation/path`, the `field.Error` type with its `ErrorBody()` rendering, and
`ValidateObjectMeta` / `ValidateObjectMetaUpdate` (plus the built-in types' extra finalizer-name rule from
`pkg/apis/core/validation`).

Two length wordings coexist in kube 1.36 and both are kept: the older DNS helpers say "characters", the newer
`content` package used for label keys and values says "bytes". Lengths are counted in UTF-8 bytes, as Go's
`len()` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from kubelite.apimachinery import gofmt

# -- value rendering ---------------------------------------------------------------------------------


class _Omitted:
    """Marks a FieldError whose value kube does not print (field.omitValue)."""

    _instance: _Omitted | None = None

    def __new__(cls) -> _Omitted:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Final = _Omitted()


@dataclass(frozen=True, slots=True)
class RawValue:
    """A bad value whose printed form is already known (a zero metav1.Time or nil slice prints `null`)."""

    text: str


#: strconv.Quote, the `%q` verb: kube quotes every string bad value this way
go_quote = gofmt.quote


def go_json(value: Any) -> str:
    """encoding/json.Marshal's compact form; a dict keeps its own order (it may stand for a struct)."""
    return gofmt.json(value, sort_keys=False)


def _number_text(value: float) -> str:
    # an integral float is a number decoded into an integer field, which Go prints as the integer
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return gofmt.float_v(value)


def format_bad_value(value: Any) -> str:
    """How field.Error.ErrorBody() prints a bad value: strings %q, scalars bare, anything else as JSON."""
    if isinstance(value, RawValue):
        return value.text
    if value is None:
        # a nil value becomes the *string* "null", which is then quoted like any string
        return '"null"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number_text(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


# -- field errors ------------------------------------------------------------------------------------

REQUIRED: Final = "Required value"
INVALID: Final = "Invalid value"
DUPLICATE: Final = "Duplicate value"
FORBIDDEN: Final = "Forbidden"
TOO_LONG: Final = "Too long"
NOT_FOUND: Final = "Not found"
NOT_SUPPORTED: Final = "Unsupported value"
INTERNAL: Final = "Internal error"
TOO_MANY: Final = "Too many"
#: field.ErrorTypeTypeInvalid: a value not of its schema's type, which prints as "Invalid value"
TYPE_INVALID: Final = "Type invalid"

ErrorType = Literal[
    "Required value",
    "Invalid value",
    "Duplicate value",
    "Forbidden",
    "Too long",
    "Not found",
    "Unsupported value",
    "Internal error",
    "Too many",
    "Type invalid",
]

#: field.ErrorType -> metav1.CauseType, the `reason` of a Status cause
CAUSE_TYPES: Final[dict[str, str]] = {
    REQUIRED: "FieldValueRequired",
    INVALID: "FieldValueInvalid",
    DUPLICATE: "FieldValueDuplicate",
    FORBIDDEN: "FieldValueForbidden",
    TOO_LONG: "FieldValueTooLong",
    NOT_FOUND: "FieldValueNotFound",
    NOT_SUPPORTED: "FieldValueNotSupported",
    INTERNAL: "InternalError",
    TOO_MANY: "FieldValueTooMany",
    TYPE_INVALID: "FieldValueTypeInvalid",
}

# the types whose printed title is not their own name
_TITLES: Final[dict[str, str]] = {TYPE_INVALID: INVALID}

# these types never show the value, whatever it is
_VALUELESS_TYPES: Final = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL})


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field-level validation failure (kube's field.Error)."""

    type: ErrorType
    field: str
    value: Any = OMITTED
    detail: str = ""

    @property
    def reason(self) -> str:
        """The Status cause type clients switch on (`FieldValueInvalid`, ...)."""
        return CAUSE_TYPES[self.type]

    @property
    def message(self) -> str:
        """field.Error.ErrorBody(): the message without the field path."""
        title = _TITLES.get(self.type, self.type)
        if self.type in _VALUELESS_TYPES or self.value is OMITTED:
            body = title
        else:
            body = f"{title}: {format_bad_value(self.value)}"
        if self.detail:
            body += f": {self.detail}"
        return body

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    @classmethod
    def required(cls, field: str, detail: str = "") -> FieldError:
        return cls(REQUIRED, field, "", detail)

    @classmethod
    def invalid(cls, field: str, value: Any, detail: str) -> FieldError:
        return cls(INVALID, field, value, detail)

    @classmethod
    def type_invalid(cls, field: str, value: Any, detail: str) -> FieldError:
        return cls(TYPE_INVALID, field, value, detail)

    @classmethod
    def duplicate(cls, field: str, value: Any) -> FieldError:
        return cls(DUPLICATE, field, value)

    @classmethod
    def forbidden(cls, field: str, detail: str) -> FieldError:
        return cls(FORBIDDEN, field, "", detail)

    @classmethod
    def too_long(cls, field: str, value: Any, max_len: int) -> FieldError:
        if max_len >= 0:
            unit = "byte" if max_len == 1 else "bytes"
            detail = f"may not be more than {max_len} {unit}"
        else:
            detail = "value is too long"
        return cls(TOO_LONG, field, "<value omitted>", detail)

    @classmethod
    def too_many(cls, field: str, actual: int, max_items: int) -> FieldError:
        if max_items >= 0:
            detail = f"must have at most {max_items} {'item' if max_items == 1 else 'items'}"
        else:
            detail = "has too many items"
        return cls(TOO_MANY, field, actual if actual >= 0 else OMITTED, detail)

    @classmethod
    def not_supported(cls, field: str, value: Any, valid: Sequence[str]) -> FieldError:
        detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
        return cls(NOT_SUPPORTED, field, value, detail)

    @classmethod
    def not_found(cls, field: str, value: Any) -> FieldError:
        return cls(NOT_FOUND, field, value)

    @classmethod
    def internal(cls, field: str, detail: str) -> FieldError:
        return cls(INTERNAL, field, None, detail)


required = FieldError.required
invalid = FieldError.invalid
type_invalid = FieldError.type_invalid
duplicate = FieldError.duplicate
forbidden = FieldError.forbidden
too_long = FieldError.too_long
too_many = FieldError.too_many
not_supported = FieldError.not_supported
not_found = FieldError.not_found
internal_error = FieldError.internal


def aggregate_message(errors: Sequence[FieldError]) -> str:
    """ErrorList.ToAggregate().Error(): one message as is, several as `[a, b]`, duplicates dropped."""
    seen: list[str] = []
    for err in errors:
        text = str(err)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]" if seen else ""


# -- string formats ----------------------------------------------------------------------------------


def _byte_len(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def regex_error(msg: str, regex: str, *examples: str) -> str:
    """validation.RegexError: note kube's doubled space before each ` or `."""
    if not examples:
        return f"{msg} (regex used for validation is '{regex}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{regex}')"


def _max_len_characters(length: int) -> str:
    return f"must be no more than {length} characters"


def _max_len_bytes(length: int) -> str:
    return f"must be no more than {length} bytes"


EMPTY_ERROR: Final = "must be non-empty"

DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_MAX_LENGTH: Final = 63
_DNS1123_LABEL_MSG: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_FMT: Final = DNS1123_LABEL_FMT + r"(\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MAX_LENGTH: Final = 253
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1035_LABEL_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_MAX_LENGTH: Final = 63
_DNS1035_LABEL_MSG: Final = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
LABEL_KEY_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_KEY_MAX_LENGTH: Final = 63
_LABEL_KEY_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
LABEL_VALUE_FMT: Final = "(" + LABEL_KEY_FMT + ")?"
LABEL_VALUE_MAX_LENGTH: Final = 63
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

# Go anchors with ^...$ on the whole text; fullmatch is the equivalent (Python's `$` allows a final newline)
_DNS1123_LABEL_RE: Final = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE: Final = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE: Final = re.compile(DNS1035_LABEL_FMT)
_LABEL_KEY_RE: Final = re.compile(LABEL_KEY_FMT)
_LABEL_VALUE_RE: Final = re.compile(LABEL_VALUE_FMT)


def is_dns1123_label(value: str) -> list[str]:
    """validation.IsDNS1123Label (namespace names, most 'label' names)."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(_max_len_characters(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            # a valid subdomain that is not a label can only be failing on its dots
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """validation.IsDNS1123Subdomain (the default object-name rule)."""
    errs: list[str] = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_max_len_characters(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1035_label(value: str) -> list[str]:
    """validation.IsDNS1035Label (Service names)."""
    errs: list[str] = []
    if _byte_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(_max_len_characters(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def _content_dns1123_subdomain(value: str) -> list[str]:
    # the `content` package's copy of the subdomain check, which words its length limit in bytes
    errs: list[str] = []
    if _byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_max_len_bytes(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """content.IsLabelKey (a.k.a. IsQualifiedName): `[prefix/]name`, used for label keys, finalizers, ..."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + msg for msg in _content_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif _byte_len(name) > LABEL_KEY_MAX_LENGTH:
        errs.append("name part " + _max_len_bytes(LABEL_KEY_MAX_LENGTH))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


is_label_key = is_qualified_name


def is_valid_label_value(value: str) -> list[str]:
    """content.IsLabelValue: empty, or up to 63 bytes of a label-key-like name."""
    errs: list[str] = []
    if _byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(_max_len_bytes(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


_PATH_NAME_MAY_NOT_BE: Final = (".", "..")
_PATH_NAME_MAY_NOT_CONTAIN: Final = ("/", "%")


def is_valid_path_segment_name(value: str) -> list[str]:
    """path.IsValidPathSegmentName: anything that survives as one URL path segment (RBAC names)."""
    for illegal in _PATH_NAME_MAY_NOT_BE:
        if value == illegal:
            return [f"may not be '{illegal}'"]
    return is_valid_path_segment_prefix(value)


def is_valid_path_segment_prefix(value: str) -> list[str]:
    """path.IsValidPathSegmentPrefix: the generateName form, where a suffix will follow."""
    return [f"may not contain '{illegal}'" for illegal in _PATH_NAME_MAY_NOT_CONTAIN if illegal in value]


# -- name rules (ValidateNameFunc) -------------------------------------------------------------------

NameRule = Literal["subdomain", "label", "label1035", "path", "none"]
NameFunc = Callable[[str, bool], list[str]]


def _mask_trailing_dash(name: str) -> str:
    # kube's maskTrailingDash swaps the last *two* characters for "a" (a long-standing quirk, kept)
    if name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def validate_path_segment_name(name: str, prefix: bool) -> list[str]:
    return is_valid_path_segment_prefix(name) if prefix else is_valid_path_segment_name(name)


def _any_name(name: str, prefix: bool) -> list[str]:
    return []


NAME_RULES: Final[dict[str, NameFunc]] = {
    "subdomain": name_is_dns_subdomain,
    "label": name_is_dns_label,
    "label1035": name_is_dns1035_label,
    "path": validate_path_segment_name,
    "none": _any_name,
}

validate_namespace_name = name_is_dns_label


# -- object metadata ---------------------------------------------------------------------------------

FIELD_IMMUTABLE: Final = "field is immutable"
TOTAL_ANNOTATION_SIZE_LIMIT: Final = 256 * 1024
FIELD_MANAGER_MAX_LENGTH: Final = 128
MAX_SUBRESOURCE_NAME_LENGTH: Final = 256
FINALIZER_ORPHAN: Final = "orphan"
FINALIZER_FOREGROUND: Final = "foregroundDeletion"
STANDARD_FINALIZERS: Final = frozenset({"kubernetes", FINALIZER_ORPHAN, FINALIZER_FOREGROUND})


def _str_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def _str_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def _dict_list(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def _text(meta: Mapping[str, Any], key: str) -> str:
    value = meta.get(key)
    return value if isinstance(value, str) else ""


def _int(meta: Mapping[str, Any], key: str) -> int:
    value = meta.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def validate_labels(labels: Any, path: str) -> list[FieldError]:
    """v1validation.ValidateLabels: every key a qualified name, every value a label value."""
    errs: list[FieldError] = []
    for key, value in sorted(_str_map(labels).items()):
        errs.extend(FieldError.invalid(path, key, msg) for msg in is_qualified_name(key))
        errs.extend(FieldError.invalid(path, value, msg) for msg in is_valid_label_value(value))
    return errs


def validate_annotations(annotations: Any, path: str) -> list[FieldError]:
    """ValidateAnnotations: case-insensitive qualified-name keys, 256 KiB in total."""
    errs: list[FieldError] = []
    items = _str_map(annotations)
    for key in sorted(items):
        errs.extend(FieldError.invalid(path, key, msg) for msg in is_qualified_name(key.lower()))
    total = sum(_byte_len(k) + _byte_len(v) for k, v in items.items())
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(FieldError.too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: `v1` is the core group, `g/v` a named one; None where it would fail (more than
    one '/')."""
    if api_version in ("", "/"):
        return "", ""
    slashes = api_version.count("/")
    if slashes == 0:
        return "", api_version
    if slashes == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def _owner_reference_struct(ref: Mapping[str, Any]) -> dict[str, Any]:
    # metav1.OwnerReference as json.Marshal writes it: declaration order, omitempty pointers
    out: dict[str, Any] = {
        "apiVersion": _text(ref, "apiVersion"),
        "kind": _text(ref, "kind"),
        "name": _text(ref, "name"),
        "uid": _text(ref, "uid"),
    }
    for key in ("controller", "blockOwnerDeletion"):
        if isinstance(ref.get(key), bool):
            out[key] = ref[key]
    return out


def validate_owner_references(owner_references: Any, path: str) -> list[FieldError]:
    """ValidateOwnerReferences: required parts, no Event owners, at most one controller."""
    errs: list[FieldError] = []
    refs = _dict_list(owner_references)
    first_controller = ""
    for ref in refs:
        api_version, kind = _text(ref, "apiVersion"), _text(ref, "kind")
        group_version = parse_group_version(api_version)
        group, version = group_version if group_version is not None else ("", "")
        if not version:
            errs.append(FieldError.invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not kind:
            errs.append(FieldError.invalid(f"{path}.kind", kind, "must not be empty"))
        if not _text(ref, "name"):
            errs.append(FieldError.invalid(f"{path}.name", _text(ref, "name"), "must not be empty"))
        if not _text(ref, "uid"):
            errs.append(FieldError.invalid(f"{path}.uid", _text(ref, "uid"), "must not be empty"))
        if (group, version, kind) == ("", "v1", "Event"):
            errs.append(
                FieldError.invalid(
                    path,
                    _owner_reference_struct(ref),
                    f"{group}/{version}, Kind={kind} is disallowed from being an owner",
                )
            )
        if ref.get("controller") is True:
            current = f"{kind}/{_text(ref, 'name')}"
            if first_controller:
                errs.append(
                    FieldError.invalid(
                        path,
                        [_owner_reference_struct(r) for r in refs],
                        'Only one reference can have Controller set to true. Found "true" in references for '
                        f"{first_controller} and {current}",
                    )
                )
            else:
                first_controller = current
    return errs


def validate_finalizers(finalizers: Any, path: str) -> list[FieldError]:
    """ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion."""
    errs: list[FieldError] = []
    names = _str_list(finalizers)
    for name in names:
        errs.extend(FieldError.invalid(path, name, msg) for msg in is_qualified_name(name))
    if FINALIZER_ORPHAN in names and FINALIZER_FOREGROUND in names:
        errs.append(
            FieldError.invalid(
                path, names, f"finalizer {FINALIZER_ORPHAN} and {FINALIZER_FOREGROUND} cannot be both set"
            )
        )
    return errs


def validate_kube_finalizer_names(finalizers: Any, path: str) -> list[FieldError]:
    """Built-in types only: an unqualified finalizer must be one of kube's standard names."""
    return [
        FieldError.invalid(
            f"{path}[{i}]", name, "name is neither a standard finalizer name nor is it fully qualified"
        )
        for i, name in enumerate(_str_list(finalizers))
        if "/" not in name and name not in STANDARD_FINALIZERS
    ]


def validate_field_manager(manager: str, path: str) -> list[FieldError]:
    """ValidateFieldManager: at most 128 bytes, printable characters only."""
    errs: list[FieldError] = []
    if _byte_len(manager) > FIELD_MANAGER_MAX_LENGTH:
        errs.append(FieldError.too_long(path, manager, FIELD_MANAGER_MAX_LENGTH))
    position = 0
    for ch in manager:
        if not ch.isprintable():
            errs.append(
                FieldError.invalid(
                    path, manager, f"invalid character U+{ord(ch):04X} (at position {position})"
                )
            )
        position += _byte_len(ch)
    return errs


def validate_managed_fields(managed_fields: Any, path: str) -> list[FieldError]:
    """ValidateManagedFields: operation, fieldsType, manager and subresource of each entry."""
    errs: list[FieldError] = []
    for i, entry in enumerate(_dict_list(managed_fields)):
        entry_path = f"{path}[{i}]"
        operation = _text(entry, "operation")
        if operation not in ("Apply", "Update"):
            errs.append(
                FieldError.invalid(f"{entry_path}.operation", operation, "must be `Apply` or `Update`")
            )
        fields_type = _text(entry, "fieldsType")
        if fields_type and fields_type != "FieldsV1":
            errs.append(FieldError.invalid(f"{entry_path}.fieldsType", fields_type, "must be `FieldsV1`"))
        errs.extend(validate_field_manager(_text(entry, "manager"), f"{entry_path}.manager"))
        subresource = _text(entry, "subresource")
        if _byte_len(subresource) > MAX_SUBRESOURCE_NAME_LENGTH:
            errs.append(
                FieldError.too_long(f"{entry_path}.subresource", subresource, MAX_SUBRESOURCE_NAME_LENGTH)
            )
    return errs


def validate_object_meta(
    meta: Mapping[str, Any],
    *,
    namespaced: bool,
    name_rule: str,
    path: str = "metadata",
    kube_finalizers: bool = True,
) -> list[FieldError]:
    """ValidateObjectMeta on create, after any generateName has been turned into a name.

    `kube_finalizers` adds the built-in types' rule that unqualified finalizers be standard names (kube's
    core ValidateObjectMeta); custom resources skip it.
    """
    name_fn = NAME_RULES[name_rule]
    errs: list[FieldError] = []
    generate_name = _text(meta, "generateName")
    if generate_name:
        errs.extend(
            FieldError.invalid(f"{path}.generateName", generate_name, msg)
            for msg in name_fn(generate_name, True)
        )
    name = _text(meta, "name")
    if not name:
        errs.append(FieldError.required(f"{path}.name", "name or generateName is required"))
    else:
        errs.extend(FieldError.invalid(f"{path}.name", name, msg) for msg in name_fn(name, False))

    namespace = _text(meta, "namespace")
    if namespaced:
        if not namespace:
            errs.append(FieldError.required(f"{path}.namespace"))
        else:
            errs.extend(
                FieldError.invalid(f"{path}.namespace", namespace, msg)
                for msg in validate_namespace_name(namespace, False)
            )
    elif namespace:
        errs.append(FieldError.forbidden(f"{path}.namespace", "not allowed on this type"))

    generation = _int(meta, "generation")
    if generation < 0:
        errs.append(
            FieldError.invalid(f"{path}.generation", generation, "must be greater than or equal to 0")
        )
    errs.extend(validate_labels(meta.get("labels"), f"{path}.labels"))
    errs.extend(validate_annotations(meta.get("annotations"), f"{path}.annotations"))
    errs.extend(validate_owner_references(meta.get("ownerReferences"), f"{path}.ownerReferences"))
    errs.extend(validate_finalizers(meta.get("finalizers"), f"{path}.finalizers"))
    errs.extend(validate_managed_fields(meta.get("managedFields"), f"{path}.managedFields"))
    if kube_finalizers:
        errs.extend(validate_kube_finalizer_names(meta.get("finalizers"), f"{path}.finalizers"))
    return errs


def _same_time(new: Any, old: Any) -> bool:
    # metav1.Time compares as instants, so "Z" and "+00:00" spellings of one moment are equal
    if new == old:
        return True
    if not (isinstance(new, str) and isinstance(old, str)):
        return False
    try:
        return datetime.fromisoformat(new.replace("Z", "+00:00")) == datetime.fromisoformat(
            old.replace("Z", "+00:00")
        )
    except ValueError:
        return False


def validate_object_meta_update(
    new_meta: Mapping[str, Any],
    old_meta: Mapping[str, Any],
    path: str = "metadata",
    *,
    kube_finalizers: bool = True,
) -> list[FieldError]:
    """ValidateObjectMetaUpdate: immutable identity fields, no new finalizers while deleting, and the
    label/annotation/owner/managedFields checks on the new metadata.

    kube runs this after the update's resourceVersion has been filled in (from the request or, for an
    unconditional update, from the stored object), so an empty one is reported.
    """
    errs: list[FieldError] = []
    if old_meta.get("deletionTimestamp"):
        extra = sorted(
            set(_str_list(new_meta.get("finalizers"))) - set(_str_list(old_meta.get("finalizers")))
        )
        if extra:
            errs.append(
                FieldError.forbidden(
                    f"{path}.finalizers",
                    "no new finalizers can be added if the object is being deleted, found new finalizers "
                    + gofmt.sharp_v_strings(extra),
                )
            )
    resource_version = new_meta.get("resourceVersion")
    if not resource_version:
        errs.append(FieldError.invalid(f"{path}.resourceVersion", "", "must be specified for an update"))
    new_generation = _int(new_meta, "generation")
    if new_generation < _int(old_meta, "generation"):
        errs.append(FieldError.invalid(f"{path}.generation", new_generation, "must not be decremented"))

    for key in ("name", "namespace", "uid"):
        if _text(new_meta, key) != _text(old_meta, key):
            errs.append(FieldError.invalid(f"{path}.{key}", _text(new_meta, key), FIELD_IMMUTABLE))
    new_created, old_created = new_meta.get("creationTimestamp"), old_meta.get("creationTimestamp")
    if not _same_time(new_created or None, old_created or None):
        # a zero metav1.Time marshals to a bare `null`
        shown = new_created if isinstance(new_created, str) and new_created else RawValue("null")
        errs.append(FieldError.invalid(f"{path}.creationTimestamp", shown, FIELD_IMMUTABLE))
    new_deleted, old_deleted = new_meta.get("deletionTimestamp"), old_meta.get("deletionTimestamp")
    if not _same_time(new_deleted or None, old_deleted or None):
        errs.append(FieldError.invalid(f"{path}.deletionTimestamp", new_deleted or None, FIELD_IMMUTABLE))
    new_grace, old_grace = (
        new_meta.get("deletionGracePeriodSeconds"),
        old_meta.get("deletionGracePeriodSeconds"),
    )
    if new_grace != old_grace:
        errs.append(FieldError.invalid(f"{path}.deletionGracePeriodSeconds", new_grace, FIELD_IMMUTABLE))

    errs.extend(validate_labels(new_meta.get("labels"), f"{path}.labels"))
    errs.extend(validate_annotations(new_meta.get("annotations"), f"{path}.annotations"))
    errs.extend(validate_owner_references(new_meta.get("ownerReferences"), f"{path}.ownerReferences"))
    errs.extend(validate_managed_fields(new_meta.get("managedFields"), f"{path}.managedFields"))
    if kube_finalizers:
        errs.extend(validate_kube_finalizer_names(new_meta.get("finalizers"), f"{path}.finalizers"))
    return errs
