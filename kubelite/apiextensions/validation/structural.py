"""Structural schemas: kube's NewStructural (which schemas can be read as one at all) and ValidateStructural
(pkg/apiserver/schema/validation.go and complete.go), on v1 schema dicts.

A schema is structural when every node of its structural part (properties, items, additionalProperties) says
its type, unless it is int-or-string or preserves unknown fields, and the value validations under
allOf/anyOf/oneOf/not only constrain values, never declare types, defaults or extensions, and only speak of
fields the structural part has. Pruning, defaulting and CEL all need this shape; the `NonStructuralSchema`
condition reports its violations. kube sorts them by their text, since its maps iterate in random order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Literal

from kubelite.apiextensions.validation.internal import as_dict, as_list, as_str
from kubelite.apiextensions.validation.paths import child, key
from kubelite.apimachinery.validation import FieldError

Level = Literal["root", "item", "field"]

_TYPE_REQUIRED: Final[dict[Level, str]] = {
    "root": "must not be empty at the root",
    "item": "must not be empty for specified array items",
    "field": "must not be empty for specified object fields",
}

#: the keys of a v1 JSONSchemaProps that a structural schema node keeps (others fail NewStructural)
_STRUCTURAL_KEYS: Final = (
    "description", "type", "nullable", "format", "title", "default", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf",
    "enum", "maxProperties", "minProperties", "required", "items", "allOf", "oneOf", "anyOf", "not", "properties",
    "additionalProperties", "externalDocs", "example", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string", "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-validations",
)  # fmt: skip
# these are copied by appending, so an empty list stays a nil slice in the structural form
_APPENDED_LISTS: Final = frozenset({"enum", "allOf", "oneOf", "anyOf"})


def _set(node: Mapping[str, Any], name: str) -> bool:
    """Whether `name` holds a non-zero Go value in the structural form of `node`."""
    value = node.get(name)
    if value is None or value is False or value == "":
        return False
    if name in _APPENDED_LISTS and value == []:
        return False
    return not (name == "properties" and value == {})


def _flag(node: Mapping[str, Any], name: str) -> bool:
    return node.get(name) is True


# -- NewStructural --------------------------------------------------------------------------------------


def _unsupported(node: Mapping[str, Any]) -> str | None:
    if as_str(node.get("id")):
        return "OpenAPIV3Schema 'id' is not supported"
    if as_str(node.get("$schema")):
        return "OpenAPIV3Schema 'schema' is not supported"
    if as_str(node.get("$ref")):
        return "OpenAPIV3Schema '$ref' is not supported"
    if as_dict(node.get("patternProperties")):
        return "OpenAPIV3Schema 'patternProperties' is not supported"
    if as_dict(node.get("dependencies")):
        return "OpenAPIV3Schema 'dependencies' is not supported"
    if node.get("additionalItems") is not None:
        return "OpenAPIV3Schema 'additionalItems' is not supported"
    if as_dict(node.get("definitions")):
        return "OpenAPIV3Schema 'definitions' is not supported"
    return None


#: id(schema node) -> its NewStructural error, for the nodes of one CRD being validated
StructuralCache = dict[int, "str | None"]


def structural_error(node: Any, cache: StructuralCache | None = None) -> str | None:
    """The error NewStructural returns for the schema, None when it converts. With a cache (valid while the
    schema is neither changed nor freed), each subtree is converted once however often it is asked about."""
    if not (type(node) is dict or isinstance(node, Mapping)):
        return None
    if cache is not None:
        key_ = id(node)
        if key_ in cache:
            return cache[key_]
        cache[key_] = found = _structural_error(node, cache)
        return found
    return _structural_error(node, None)


def _structural_error(node: Mapping[str, Any], cache: StructuralCache | None) -> str | None:
    if err := _unsupported(node):
        return err
    if err := structural_error(node.get("not"), cache):
        return err
    for junctor in ("allOf", "anyOf", "oneOf"):
        for clause in as_list(node.get(junctor)):
            if err := structural_error(clause, cache):
                return err
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
    items = node.get("items")
    if isinstance(items, list) and items:
        return "OpenAPIV3Schema 'items' must be a schema, but is an array"
    if err := structural_error(items, cache):
        return err
    for name in sorted(as_dict(node.get("properties"))):
        if err := structural_error(node["properties"][name], cache):
            return err
    return structural_error(node.get("additionalProperties"), cache)


# -- ValidateStructural ---------------------------------------------------------------------------------


def validate_structural(schema: Mapping[str, Any], path: str = "") -> list[FieldError]:
    """ValidateStructural of a schema NewStructural accepts, its errors sorted by text as kube sorts them."""
    errs = _invariants(schema, "root", path) + _value_completeness(schema, schema, path, path)
    return sorted(errs, key=str)


def _invariants(node: Any, level: Level, path: str) -> list[FieldError]:
    if not isinstance(node, Mapping):
        return []
    s = node
    errs: list[FieldError] = []
    schema_type = as_str(s.get("type"))
    if schema_type == "array" and s.get("items") is None:
        errs.append(FieldError.required(child(path, "items"), "must be specified"))
    errs += _invariants(s.get("items"), "item", child(path, "items"))
    properties = as_dict(s.get("properties"))
    for name in sorted(properties):
        errs += _invariants(properties[name], "field", key(child(path, "properties"), name))
    additional = s.get("additionalProperties")
    if additional is not None:
        if level == "root":
            errs.append(FieldError.forbidden(child(path, "additionalProperties"), "must not be used at the root"))
        if isinstance(additional, Mapping):
            errs += _invariants(additional, "field", child(path, "additionalProperties"))

    int_or_string = _flag(s, "x-kubernetes-int-or-string")
    preserve = _flag(s, "x-kubernetes-preserve-unknown-fields")
    embedded = _flag(s, "x-kubernetes-embedded-resource")
    if int_or_string and preserve:
        errs.append(
            FieldError.invalid(
                child(path, "x-kubernetes-preserve-unknown-fields"), True,
                "must be false if x-kubernetes-int-or-string is true",
            )
        )  # fmt: skip
    if int_or_string and embedded:
        errs.append(
            FieldError.invalid(
                child(path, "x-kubernetes-embedded-resource"), True,
                "must be false if x-kubernetes-int-or-string is true",
            )
        )  # fmt: skip

    errs += _value_validation(s, _is_int_or_string_any_of(s), _is_int_or_string_all_of(s), level, path)

    check_metadata = level == "root" or embedded
    if embedded and schema_type != "object":
        detail = "must be object if x-kubernetes-embedded-resource is true"
        if not schema_type:
            errs.append(FieldError.required(child(path, "type"), detail))
        else:
            errs.append(FieldError.invalid(child(path, "type"), schema_type, detail))
    elif not schema_type and not int_or_string and not preserve:
        errs.append(FieldError.required(child(path, "type"), _TYPE_REQUIRED[level]))
    if embedded and additional is not None:
        errs.append(
            FieldError.forbidden(
                child(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"
            )
        )
    if level == "root" and schema_type and schema_type != "object":
        errs.append(FieldError.invalid(child(path, "type"), schema_type, "must be object at the root"))
    for meta_field in ("kind", "apiVersion"):
        if meta_field in properties and check_metadata:
            field_type = as_str(as_dict(properties[meta_field]).get("type"))
            if field_type != "string":
                errs.append(
                    FieldError.invalid(
                        child(key(child(path, "properties"), meta_field), "type"), field_type, "must be string"
                    )
                )
    if "metadata" in properties:
        errs += _metadata_invariants(
            as_dict(properties["metadata"]), check_metadata, level, key(child(path, "properties"), "metadata")
        )
    if embedded and not preserve and not properties:
        errs.append(
            FieldError.required(
                child(path, "properties"),
                "must not be empty if x-kubernetes-embedded-resource is true without "
                "x-kubernetes-preserve-unknown-fields",
            )
        )
    return errs


def _metadata_invariants(meta: Mapping[str, Any], check_metadata: bool, level: Level, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    meta_type = as_str(meta.get("type"))
    if check_metadata and meta_type != "object":
        errs.append(FieldError.invalid(child(path, "type"), meta_type, "must be object"))
    if level == "root":
        # only name and generateName may be constrained: the rest of metadata is validated by the server itself
        properties = as_dict(meta.get("properties"))
        names_only = set(properties) in ({"name"}, {"generateName"}, {"name", "generateName"})
        rest = [
            name
            for name in _STRUCTURAL_KEYS
            if name not in ("type", "default")
            and not (name == "properties" and names_only)
            and (meta.get(name) is not None if name == "additionalProperties" else _set(meta, name))
        ]
        if rest:
            errs.append(
                FieldError.forbidden(
                    path,
                    "must not specify anything other than name and generateName, but metadata is implicitly specified",
                )
            )
    return errs


def _only_type(clause: Any, schema_type: str) -> bool:
    if not isinstance(clause, Mapping):
        return False
    return [name for name in _STRUCTURAL_KEYS if _set(clause, name)] == ["type"] and clause.get("type") == schema_type


def _is_int_or_string_any_of(s: Mapping[str, Any]) -> bool:
    any_of = as_list(s.get("anyOf"))
    return len(any_of) == 2 and _only_type(any_of[0], "integer") and _only_type(any_of[1], "string")


def _is_int_or_string_all_of(s: Mapping[str, Any]) -> bool:
    all_of = as_list(s.get("allOf"))
    return bool(all_of) and _is_int_or_string_any_of(as_dict(all_of[0]))


def _value_validation(
    v: Mapping[str, Any], skip_any_of: bool, skip_first_all_of_any_of: bool, level: Level, path: str
) -> list[FieldError]:
    errs: list[FieldError] = []
    if not skip_any_of:
        for i, clause in enumerate(as_list(v.get("anyOf"))):
            errs += _nested(clause, False, level, key(child(path, "anyOf"), i))
    for i, clause in enumerate(as_list(v.get("allOf"))):
        errs += _nested(clause, skip_first_all_of_any_of and i == 0, level, key(child(path, "allOf"), i))
    for i, clause in enumerate(as_list(v.get("oneOf"))):
        errs += _nested(clause, False, level, key(child(path, "oneOf"), i))
    errs += _nested(v.get("not"), False, level, child(path, "not"))
    pattern = as_str(v.get("pattern"))
    if pattern and (problem := regexp_error(pattern)):
        errs.append(
            FieldError.invalid(
                child(path, "pattern"), pattern, f"must be a valid regular expression, but isn't: {problem}"
            )
        )
    return errs


_NESTED_FORBIDDEN: Final = (
    ("default", "must be undefined to be structural"),
    ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"),
    ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
)


def _nested(v: Any, skip_any_of: bool, level: Level, path: str) -> list[FieldError]:
    if not isinstance(v, Mapping):
        return []
    errs = _value_validation(v, skip_any_of, False, level, path)
    errs += _nested(v.get("items"), False, level, child(path, "items"))
    properties = as_dict(v.get("properties"))
    for name in sorted(properties):
        errs += _nested(properties[name], False, "field", key(child(path, "properties"), name))
    if as_str(v.get("type")):
        errs.append(FieldError.forbidden(child(path, "type"), "must be empty to be structural"))
    additional = v.get("additionalProperties")
    if isinstance(additional, Mapping) or additional is True:
        errs.append(FieldError.forbidden(child(path, "additionalProperties"), "must be undefined to be structural"))
    for name, detail in _NESTED_FORBIDDEN:
        if (v.get(name) is not None) if name == "default" else _set(v, name):
            errs.append(FieldError.forbidden(child(path, name), detail))
    if as_list(v.get("x-kubernetes-list-map-keys")):
        errs.append(FieldError.forbidden(child(path, "x-kubernetes-list-map-keys"), "must be empty to be structural"))
    for name in ("x-kubernetes-list-type", "x-kubernetes-map-type"):
        if v.get(name) is not None:
            errs.append(FieldError.forbidden(child(path, name), "must be undefined to be structural"))
    if as_list(v.get("x-kubernetes-validations")):
        errs.append(FieldError.forbidden(child(path, "x-kubernetes-validations"), "must be empty to be structural"))
    if "metadata" in properties:
        errs.append(
            FieldError.forbidden(
                key(child(path, "properties"), "metadata"), "must not be specified in a nested context"
            )
        )
    return errs


# -- completeness: value validations only speak of fields the structural part has -------------------------


def _value_completeness(v: Mapping[str, Any], s: Any, s_path: str, v_path: str) -> list[FieldError]:
    if not isinstance(s, Mapping):
        return [FieldError.required(s_path, f"because it is defined in {v_path}")]
    errs = _nested_completeness(v.get("not"), s, s_path, child(v_path, "not"))
    for junctor in ("allOf", "anyOf", "oneOf"):
        for i, clause in enumerate(as_list(v.get(junctor))):
            errs += _nested_completeness(clause, s, s_path, key(child(v_path, junctor), i))
    return errs


def _nested_completeness(v: Any, s: Any, s_path: str, v_path: str) -> list[FieldError]:
    if not isinstance(v, Mapping):
        return []
    if not isinstance(s, Mapping):
        return [FieldError.required(s_path, f"because it is defined in {v_path}")]
    errs = _value_completeness(v, s, s_path, v_path)
    errs += _nested_completeness(v.get("items"), s.get("items"), child(s_path, "items"), child(v_path, "items"))
    s_properties = as_dict(s.get("properties"))
    v_properties = as_dict(v.get("properties"))
    for name in sorted(v_properties):
        s_name_path = key(child(s_path, "properties"), name)
        v_name_path = key(child(v_path, "properties"), name)
        if name not in s_properties:
            errs.append(FieldError.required(s_name_path, f"because it is defined in {v_name_path}"))
        else:
            errs += _nested_completeness(v_properties[name], s_properties[name], s_name_path, v_name_path)
    return errs


# -- Go's regexp syntax ---------------------------------------------------------------------------------

# lookarounds, atomic groups, named backreferences and comments are Perl, not RE2
_PERL_ONLY_RE: Final = re.compile(r"\(\?(?:=|!|<=|<!|P=|>|#)")
_FLAGS_RE: Final = re.compile(r"\(\?([A-Za-z-]*)\)")
_GO_ESCAPE_LETTERS: Final = frozenset("afnrtvxpPdDsSwWbBAzQEC")
_REPEAT_RE: Final = re.compile(r"\{(\d+)(?:,(\d*))?\}")
_POSSESSIVE_RE: Final = re.compile(r"(?<!\\)([*+?]|\})([*+])")


def _go_escape_error(pattern: str) -> str | None:
    i = 0
    while i < len(pattern) - 1:
        if pattern[i] != "\\":
            i += 1
            continue
        nxt = pattern[i + 1]
        if nxt.isdigit() and nxt != "0" and not (i + 2 < len(pattern) and pattern[i + 2].isdigit()):
            return pattern[i : i + 2]  # a backreference
        if nxt.isalpha() and nxt not in _GO_ESCAPE_LETTERS:
            return pattern[i : i + 2]
        i += 2
    return None


def _for_python(pattern: str) -> str:
    # what Go accepts and Python spells otherwise, so that Python's compile judges the rest
    pattern = pattern.replace("\\z", "\\Z")
    pattern = re.sub(r"\\[pP](\{[^}]*\}|[A-Za-z])", ".", pattern)
    pattern = re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", pattern)
    pattern = re.sub(r"\[:\^?[a-z]+:\]", "a", pattern)
    return _FLAGS_RE.sub("", pattern)


_CLASS_RE: Final = re.compile(r"\[\^?\]?(?:\[:[a-z]+:\]|\\.|[^\]])*\]")


def _outside_classes(pattern: str) -> str:
    return _CLASS_RE.sub("a", pattern)


def regexp_error(pattern: str) -> str | None:
    """regexp.Compile's error for a pattern, in Go's words for the failures kube users meet."""
    prefix = "error parsing regexp: "
    if match := _PERL_ONLY_RE.search(pattern):
        return f"{prefix}invalid or unsupported Perl syntax: `{match.group(0)}`"
    for match in _FLAGS_RE.finditer(pattern):
        if any(flag not in "imsU-" for flag in match.group(1)):
            bad = next(flag for flag in match.group(1) if flag not in "imsU-")
            return f"{prefix}invalid or unsupported Perl syntax: `(?{match.group(1).split(bad)[0]}{bad}`"
    if bad_escape := _go_escape_error(pattern):
        return f"{prefix}invalid escape sequence: `{bad_escape}`"
    if "\\Z" in pattern:
        return f"{prefix}invalid escape sequence: `\\Z`"
    bare = _outside_classes(pattern)
    for match in _REPEAT_RE.finditer(bare):
        low, high = int(match.group(1)), match.group(2)
        if low > 1000 or (high and (int(high) > 1000 or int(high) < low)):
            return f"{prefix}invalid repeat count: `{match.group(0)}`"
    if match := _POSSESSIVE_RE.search(bare):
        return f"{prefix}invalid nested repetition operator: `{match.group(0)}`"
    try:
        re.compile(_for_python(pattern))
    except re.error as exc:
        message = str(exc.msg)
        at = exc.pos or 0
        if "missing )" in message:
            return f"{prefix}missing closing ): `{pattern}`"
        if "unbalanced parenthesis" in message:
            return f"{prefix}unexpected ): `{pattern}`"
        if "unterminated character set" in message:
            return f"{prefix}missing closing ]: `{pattern[at:]}`"
        if "nothing to repeat" in message:
            return f"{prefix}missing argument to repetition operator: `{pattern[at : at + 1]}`"
        if "multiple repeat" in message:
            return f"{prefix}invalid nested repetition operator: `{pattern[max(at - 1, 0) : at + 1]}`"
        if "bad character range" in message:
            return f"{prefix}invalid character class range: `{message.rsplit(' ', 1)[-1]}`"
        return f"{prefix}{message}: `{pattern}`"
    return None
