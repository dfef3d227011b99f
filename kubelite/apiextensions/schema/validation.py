"""OpenAPI v3 value validation of custom resources, as kube-openapi's validate.SchemaValidator does it, with the
errors converted to field errors as apiextensions-apiserver converts them.

A schema is compiled once into a tree of `SchemaNode`s; validating a value walks the value and its nodes
together, appending kube-openapi-shaped errors `(code, name, message, value, extra)` to a list that
`to_field_errors` turns into `FieldError`s at the end:

- names are kube-openapi's paths (`spec.ports[0].name`, with a leading dot under a root-level map);
- per node the validators run in kube-openapi's order: type, composition (anyOf, oneOf, allOf, not),
  string (maxLength, minLength, pattern: the first failure only), format, number, array, enum, object
  (minProperties, maxProperties, properties, required);
- anyOf and oneOf report the errors of the "best" failing branch, the one with the highest match count
  (kube-openapi's Result.MatchCount), so every validation returns that count;
- identical messages are reported once (Result.AddErrors deduplicates).

kube iterates Go maps in random order; here properties are visited in the object's own order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

from kubelite.apiextensions.schema import formats, patterns
from kubelite.apimachinery import gofmt
from kubelite.apimachinery.validation import FieldError, RawValue

__all__ = ["SchemaNode", "compile_schema", "to_field_errors", "validate_value"]

# error codes: kube maps the first five to their own field.Error types, the rest are Invalid
REQUIRED: Final = 0
ENUM: Final = 1
TOO_LONG: Final = 2
TOO_MANY: Final = 3
TYPE: Final = 4
INVALID: Final = 5
COMPOSITE: Final = 6  # not an errors.Validation: reported at the validator's root with an empty value

RawError = tuple[int, str, str, Any, Any]

# `validate` without an old value
_PLAIN: Final = object()
# the root's fields that ratcheting never pairs
_TYPE_META: Final = frozenset({"apiVersion", "kind"})

_TYPE_NAMES: Final[dict[type, tuple[str, str]]] = {
    bool: ("boolean", ""),
    str: ("string", ""),
    int: ("integer", "int64"),
    float: ("number", "float64"),
    list: ("array", ""),
    dict: ("object", ""),
}

_MAX_JSON_FLOAT: Final = float(2**53)
_INT32_RANGE: Final = (-(2**31), 2**31 - 1)
_INT64_RANGE: Final = (-(2**63), 2**63 - 1)
_FLOAT32_MAX: Final = 3.4028234663852886e38


def _is_json_integer(value: float) -> bool:
    """swag.IsFloat64AJSONInteger: integral within 2^53, or within a relative 1e-9 of its truncation."""
    if math.isnan(value) or math.isinf(value) or value < -_MAX_JSON_FLOAT or value > _MAX_JSON_FLOAT:
        return False
    truncated = float(math.trunc(value))
    if value == truncated:
        return True
    diff = abs(value - truncated)
    if truncated == 0:
        return diff < 5e-324 * 1e-9
    return diff / (abs(value) + abs(truncated)) < 1e-9


def _go_float(value: float) -> str:
    return gofmt.float_v(value)


def _format_float_f(value: float) -> str:
    # strconv.FormatFloat(f, 'f', -1, 64)
    text = repr(value)
    if "e" in text or "E" in text:
        text = f"{value:f}" if abs(value) >= 1 else format(value, ".400f").rstrip("0")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    elif text.endswith(".0"):
        text = text[:-2]
    return text


def _range_error(value: int | float, type_name: str, format_name: str, prefix: str, name: str) -> str | None:
    """IsValueValidAgainstRange: does a value (or a bound) fit the schema's integer or float format?"""
    text = str(value) if isinstance(value, int) else _format_float_f(value)
    failed = False
    if type_name == "integer":
        try:
            number = int(text)
        except ValueError:
            failed = True
        else:
            low, high = _INT32_RANGE if format_name == "int32" else _INT64_RANGE
            failed = not low <= number <= high
    elif format_name == "float":
        failed = abs(float(text)) > _FLOAT32_MAX
    if not failed:
        return None
    if format_name:
        return f"{prefix} value must be of type {type_name} with format {format_name} in {name}"
    return f"{prefix} value must be of type {type_name} (default format) in {name}"


def _count(schema: Mapping[str, Any], keyword: str) -> int | None:
    # the int64 limits of JSONSchemaProps (a JSON 3.0 reads as 3)
    value = schema.get(keyword)
    return None if value is None else int(value)


def _rune(code: int) -> str:
    # Go's string(rune(i)): invalid code points become U+FFFD
    if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
        return chr(code)
    return "\ufffd"


def _deep_equal(left: Any, right: Any) -> bool:
    # reflect.DeepEqual of decoded JSON: types must match exactly (int64 is not float64, bool is not int)
    if type(left) is not type(right):
        return False
    if type(left) is dict:
        return left.keys() == right.keys() and all(_deep_equal(v, right[k]) for k, v in left.items())
    if type(left) is list:
        return len(left) == len(right) and all(_deep_equal(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def _enum_equal(value: Any, allowed: Any) -> bool:
    # basicCommonValidator: the value converted to the enum value's type (numbers convert, with int64()
    # truncating; an integer converts to the string of its rune), then reflect.DeepEqual
    allowed_type, value_type = type(allowed), type(value)
    if allowed_type is value_type:
        return _deep_equal(value, allowed)
    if allowed_type in (int, float) and value_type in (int, float):
        return bool(allowed_type(value) == allowed)
    if allowed_type is str and value_type is int:
        return _rune(value) == allowed
    return False


def go_bad_value(value: Any) -> Any:
    """A bad value as field.Error prints an unstructured one: a float64 with `%v` (`2e+06`, where FieldError
    alone would print an integral float as an integer), maps as JSON with their keys sorted."""
    if type(value) is float:
        return RawValue(gofmt.float_v(value))
    if type(value) is dict:
        return _sorted_keys(value)
    if type(value) is list:
        return [_sorted_keys(item) for item in value]
    return value


def _sorted_keys(value: Any) -> Any:
    if type(value) is dict:
        return {k: _sorted_keys(value[k]) for k in sorted(value)}
    if type(value) is list:
        return [_sorted_keys(item) for item in value]
    return value


class SchemaNode:
    """One compiled schema node; `validate` appends raw errors and returns kube-openapi's match count."""

    __slots__ = (
        "additional",
        "all_of",
        "any_of",
        "enum",
        "enum_strings",
        "exclusive_maximum",
        "exclusive_minimum",
        "format",
        "format_check",
        "items",
        "list_map_keys",
        "list_type",
        "max_items",
        "max_length",
        "max_properties",
        "maximum",
        "maximum_error",
        "min_items",
        "min_length",
        "min_properties",
        "minimum",
        "minimum_error",
        "multiple_of",
        "multiple_of_error",
        "not_",
        "nullable",
        "number_format",
        "number_type",
        "one_of",
        "pattern",
        "pattern_error",
        "pattern_match",
        "properties",
        "required",
        "type_applies",
        "type_kinds",
        "type_text",
        "types",
        "unique_items",
    )

    def __init__(self, schema: Mapping[str, Any], *, converted: bool = True) -> None:
        """`converted`: the form kube validates custom resources with (ConvertJSONSchemaProps: an
        int-or-string node typed `integer,string`, unsupported formats stripped); otherwise the structural
        schema's own form (ToKubeOpenAPI, used for `default` values: int-or-string untyped, formats kept)."""
        schema_type = schema.get("type") or ""
        if converted and schema.get("x-kubernetes-int-or-string"):
            self.types: tuple[str, ...] = ("integer", "string")
        else:
            self.types = (schema_type,) if schema_type else ()
        self.type_text = ",".join(self.types)
        single_type = self.types[0] if len(self.types) == 1 else ""
        self.nullable = bool(schema.get("nullable"))
        format_name = schema.get("format") or ""
        self.format = formats.effective_format(single_type, format_name) if converted else format_name
        self.format_check = formats.checker(self.format) if self.format else None
        self.type_applies = bool(self.types) or bool(self.format)
        # the Python types that pass the type check outright (floats need a look at their value)
        self.type_kinds = frozenset(kind for kind, (name, _) in _TYPE_NAMES.items() if name in self.types)
        if "number" in self.types:
            self.type_kinds |= {int}

        enum = schema.get("enum")
        self.enum: list[Any] | None = list(enum) if enum else None
        self.enum_strings: frozenset[str] | None = None
        if self.enum is not None and all(type(v) is str for v in self.enum):
            self.enum_strings = frozenset(self.enum)

        self.max_length: int | None = _count(schema, "maxLength")
        self.min_length: int | None = _count(schema, "minLength")
        self.pattern: str = schema.get("pattern") or ""
        self.pattern_match: patterns.Matcher | None = None
        self.pattern_error = ""
        if self.pattern:
            try:
                self.pattern_match = patterns.compile_pattern(self.pattern)
            except patterns.PatternError as err:
                self.pattern_error = str(err)

        # the number validator checks ranges only for a single integer or number type
        self.number_type = single_type if single_type in ("integer", "number") else ""
        self.number_format = formats.effective_format(self.number_type, self.format) if self.number_type else ""
        self.multiple_of: float | None = schema.get("multipleOf")
        self.maximum: float | None = schema.get("maximum")
        self.minimum: float | None = schema.get("minimum")
        self.exclusive_maximum = bool(schema.get("exclusiveMaximum"))
        self.exclusive_minimum = bool(schema.get("exclusiveMinimum"))
        self.multiple_of_error = self._bound_error(self.multiple_of, "MultipleOf")
        self.maximum_error = self._bound_error(self.maximum, "Maximum boundary")
        self.minimum_error = self._bound_error(self.minimum, "Minimum boundary")

        self.max_items: int | None = _count(schema, "maxItems")
        self.min_items: int | None = _count(schema, "minItems")
        self.unique_items = bool(schema.get("uniqueItems"))
        items = schema.get("items")
        self.items = SchemaNode(items, converted=converted) if isinstance(items, Mapping) else None
        # what ratcheting needs to pair the items of a new map list with the old ones
        self.list_type = schema.get("x-kubernetes-list-type") if schema_type == "array" else None
        self.list_map_keys: tuple[str, ...] = tuple(schema.get("x-kubernetes-list-map-keys") or ())

        self.max_properties: int | None = _count(schema, "maxProperties")
        self.min_properties: int | None = _count(schema, "minProperties")
        self.required: tuple[str, ...] = tuple(schema.get("required") or ())
        self.properties: dict[str, SchemaNode] = {
            key: SchemaNode(sub, converted=converted) for key, sub in (schema.get("properties") or {}).items()
        }
        additional = schema.get("additionalProperties")
        self.additional: SchemaNode | bool | None
        if isinstance(additional, Mapping):
            self.additional = SchemaNode(additional, converted=converted)
        elif isinstance(additional, bool):
            self.additional = additional
        else:
            self.additional = None

        self.all_of = tuple(SchemaNode(sub, converted=converted) for sub in schema.get("allOf") or ())
        self.any_of = tuple(SchemaNode(sub, converted=converted) for sub in schema.get("anyOf") or ())
        self.one_of = tuple(SchemaNode(sub, converted=converted) for sub in schema.get("oneOf") or ())
        not_schema = schema.get("not")
        self.not_ = SchemaNode(not_schema, converted=converted) if isinstance(not_schema, Mapping) else None

    def _bound_error(self, bound: float | None, prefix: str) -> bool:
        # a bound that does not fit the type's format is an error in itself, and turns the check to floats
        if bound is None:
            return False
        return _range_error(bound, self.number_type, self.number_format, prefix, "") is not None

    # -- the walk ---------------------------------------------------------------------------------------

    def validate(self, value: Any, name: str, errs: list[RawError], old: Any = _PLAIN) -> int:
        """Validate `value` at kube-openapi path `name`; with `old`, the children of objects and map
        lists are validated against their old counterparts (ratcheting, see `validate_correlated`)."""
        if value is None:
            return self._validate_null(name, errs)
        kind = type(value)
        # the final Inc, and the composition and enum validators, which always apply
        count = 3
        if self.type_applies:
            if kind in self.type_kinds or self._check_type(value, kind, name, errs):
                count += 2
            else:
                count += 1
        if self.any_of or self.one_of or self.all_of or self.not_ is not None:
            count += self._validate_composition(value, name, errs)
        count += 1
        if kind is str:
            count += 1
            self._validate_string(value, name, errs)
            if self.format_check is not None:
                count += 1
                if not self.format_check(value):
                    message = f"{name} in body must be of type {self.format}: {gofmt.quote(value)}"
                    errs.append((TYPE, name, message, value, None))
        elif kind is int or kind is float:
            count += 2
            self._validate_number(value, name, errs)
        elif kind is list:
            count += 2 + self._validate_array(value, name, errs, old)
        if self.enum is not None:
            self._validate_enum(value, kind, name, errs)
        if kind is dict:
            count += 1 + self._validate_object(value, name, errs, old)
        return count

    def _validate_null(self, name: str, errs: list[RawError]) -> int:
        count = 1
        if self.types and not self.nullable:
            message = f'{name} in body must be of type {self.type_text}: "null"'
            errs.append((TYPE, name, message, "null", None))
            count = 0
        if self.enum is not None:
            errs.append(self._enum_error(name, None))
        return count

    def _check_type(self, value: Any, kind: type, name: str, errs: list[RawError]) -> bool:
        value_type, value_format = _TYPE_NAMES.get(kind, ("", ""))
        types = self.types
        is_float_int = value_type == "number" and "integer" in types and _is_json_integer(value)
        is_int_float = value_type == "integer" and "number" in types
        if self.format and kind is not str and kind is not list:
            if not (value_type in types or value_format == self.format or is_float_int or is_int_float):
                message = f"{name} in body must be of type {self.format}: {gofmt.quote(value_format)}"
                errs.append((TYPE, name, message, value_format, None))
                return False
        if self.format and (kind is str or kind is list) and "number" not in types and "integer" not in types:
            return True
        if not (value_type in types or is_float_int or is_int_float):
            message = f"{name} in body must be of type {self.type_text}: {gofmt.quote(value_type)}"
            errs.append((TYPE, name, message, value_type, None))
            return False
        return True

    def _validate_composition(self, value: Any, name: str, errs: list[RawError]) -> int:
        count = 0
        if self.any_of:
            best: list[RawError] | None = None
            best_count = 0
            success_count: int | None = None
            for node in self.any_of:
                branch: list[RawError] = []
                branch_count = node.validate(value, name, branch)
                if not branch:
                    success_count = branch_count
                    best = None
                    break
                if best is None or branch_count > best_count:
                    best, best_count = branch, branch_count
            if success_count is None:
                errs.append((COMPOSITE, name, f"{gofmt.quote(name)} must validate at least one schema (anyOf)", "", 0))
            if best is not None:
                errs.extend(best)
                count += best_count
            elif success_count is not None:
                count += success_count
        if self.one_of:
            best = None
            best_count = 0
            first_success: int | None = None
            valid = 0
            for node in self.one_of:
                branch = []
                branch_count = node.validate(value, name, branch)
                if not branch:
                    valid += 1
                    best = None
                    if first_success is None:
                        first_success = branch_count
                    continue
                if valid == 0 and (best is None or branch_count > best_count):
                    best, best_count = branch, branch_count
            if valid != 1:
                found = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                message = f"{gofmt.quote(name)} must validate one and only one schema (oneOf). {found}"
                errs.append((COMPOSITE, name, message, "", 0))
                if best is not None:
                    errs.extend(best)
                    count += best_count
            elif first_success is not None:
                count += first_success
        if self.all_of:
            valid = 0
            for node in self.all_of:
                branch = []
                count += node.validate(value, name, branch)
                if not branch:
                    valid += 1
                errs.extend(branch)
            if valid != len(self.all_of):
                suffix = ". None validated" if valid == 0 else ""
                message = f"{gofmt.quote(name)} must validate all the schemas (allOf){suffix}"
                errs.append((COMPOSITE, name, message, "", 0))
        if self.not_ is not None:
            branch = []
            self.not_.validate(value, name, branch)
            if not branch:
                errs.append((COMPOSITE, name, f"{gofmt.quote(name)} must not validate the schema (not)", "", 0))
        return count

    def _validate_string(self, value: str, name: str, errs: list[RawError]) -> None:
        if self.max_length is not None and len(value) > self.max_length:
            message = f"{name} in body should be at most {self.max_length} chars long"
            errs.append((TOO_LONG, name, message, value, self.max_length))
        elif self.min_length is not None and len(value) < self.min_length:
            message = f"{name} in body should be at least {self.min_length} chars long"
            errs.append((INVALID, name, message, value, None))
        elif self.pattern:
            if self.pattern_match is None:
                shown = f"{self.pattern}, but pattern is invalid: {self.pattern_error}"
                errs.append((INVALID, name, f"{name} in body should match '{shown}'", value, None))
            elif not self.pattern_match(value):
                errs.append((INVALID, name, f"{name} in body should match '{self.pattern}'", value, None))

    def _validate_number(self, value: int | float, name: str, errs: list[RawError]) -> None:
        if self.number_type:
            if type(value) is int and self.number_type == "integer":
                low, high = _INT32_RANGE if self.number_format == "int32" else _INT64_RANGE
                error = None if low <= value <= high else self._bound_text("Checked", name)
            else:
                error = _range_error(value, self.number_type, self.number_format, "Checked", name)
            if error is not None:
                errs.append((COMPOSITE, name, error, "", 0))
        native = type(value) is int
        if self.multiple_of is not None:
            self._check_multiple_of(value, self.multiple_of, name, errs, native and not self.multiple_of_error)
        if self.minimum is not None:
            if self.minimum_error:
                errs.append((COMPOSITE, name, self._bound_text("Minimum boundary", name), "", 0))
            self._check_minimum(value, self.minimum, name, errs, native and not self.minimum_error)
        if self.maximum is not None:
            if self.maximum_error:
                errs.append((COMPOSITE, name, self._bound_text("Maximum boundary", name), "", 0))
            self._check_maximum(value, self.maximum, name, errs, native and not self.maximum_error)

    def _bound_text(self, prefix: str, name: str) -> str:
        if self.number_format:
            return f"{prefix} value must be of type {self.number_type} with format {self.number_format} in {name}"
        return f"{prefix} value must be of type {self.number_type} (default format) in {name}"

    def _check_multiple_of(
        self, value: int | float, factor: float, name: str, errs: list[RawError], native: bool
    ) -> None:
        if self.multiple_of_error:
            errs.append((COMPOSITE, name, self._bound_text("MultipleOf", name), "", 0))
        if native:
            int_factor = math.trunc(factor)
            if int_factor <= 0:
                message = f"factor MultipleOf declared for {name} must be positive: {int_factor}"
                errs.append((INVALID, name, message, int_factor, None))
            elif int(value) % int_factor != 0:
                message = f"{name} in body should be a multiple of {int_factor}"
                errs.append((INVALID, name, message, value, None))
            return
        data = float(value)
        if factor <= 0:
            message = f"factor MultipleOf declared for {name} must be positive: {_go_float(factor)}"
            errs.append((INVALID, name, message, factor, None))
            return
        ratio = (1 / factor * data) if factor < 1 else (data / factor)
        if not _is_json_integer(ratio):
            message = f"{name} in body should be a multiple of {_go_float(factor)}"
            errs.append((INVALID, name, message, value, None))

    def _check_minimum(self, value: int | float, bound: float, name: str, errs: list[RawError], native: bool) -> None:
        exclusive = self.exclusive_minimum
        limit: int | float = math.trunc(bound) if native else bound
        data: int | float = value if native else float(value)
        if (not exclusive and data < limit) or (exclusive and data <= limit):
            shown = str(limit) if native else _go_float(float(limit))
            relation = "greater than" if exclusive else "greater than or equal to"
            errs.append((INVALID, name, f"{name} in body should be {relation} {shown}", value, None))

    def _check_maximum(self, value: int | float, bound: float, name: str, errs: list[RawError], native: bool) -> None:
        exclusive = self.exclusive_maximum
        limit: int | float = math.trunc(bound) if native else bound
        data: int | float = value if native else float(value)
        if (not exclusive and data > limit) or (exclusive and data >= limit):
            shown = str(limit) if native else _go_float(float(limit))
            relation = "less than" if exclusive else "less than or equal to"
            errs.append((INVALID, name, f"{name} in body should be {relation} {shown}", value, None))

    def _validate_array(self, value: list[Any], name: str, errs: list[RawError], old: Any) -> int:
        count = 0
        items = self.items
        if items is not None:
            old_items = self._old_map_list(old) if old is not _PLAIN else None
            for index, item in enumerate(value):
                old_item = old_items(item) if old_items is not None else None
                if old_item is None:
                    count += items.validate(item, f"{name}[{index}]", errs)
                else:
                    count += items.validate_correlated(item, old_item, f"{name}[{index}]", errs)
        size = len(value)
        if self.min_items is not None and size < self.min_items:
            message = f"{name} in body should have at least {self.min_items} items"
            errs.append((INVALID, name, message, size, None))
        if self.max_items is not None and size > self.max_items:
            message = f"{name} in body should have at most {self.max_items} items"
            errs.append((TOO_MANY, name, message, size, self.max_items))
        if self.unique_items:
            for index, item in enumerate(value):
                if any(_deep_equal(item, earlier) for earlier in value[:index]):
                    errs.append((INVALID, name, f"{name} in body shouldn't contain duplicates", "", None))
                    break
        return count

    def _validate_enum(self, value: Any, kind: type, name: str, errs: list[RawError]) -> None:
        strings = self.enum_strings
        if strings is not None:
            if (kind is str and value in strings) or (kind is int and _rune(value) in strings):
                return
        elif any(_enum_equal(value, allowed) for allowed in self.enum or ()):
            return
        errs.append(self._enum_error(name, value))

    def _enum_error(self, name: str, value: Any) -> RawError:
        allowed = self.enum or []
        message = f"{name} in body should be one of {gofmt.v(allowed)}"
        return (ENUM, name, message, value, allowed)

    def _validate_object(self, value: dict[str, Any], name: str, errs: list[RawError], old: Any) -> int:
        count = 0
        size = len(value)
        if self.min_properties is not None and size < self.min_properties:
            message = f"{name} in body should have at least {self.min_properties} properties"
            errs.append((INVALID, name, message, size, None))
        if self.max_properties is not None and size > self.max_properties:
            message = f"{name} in body should have at most {self.max_properties} properties"
            errs.append((TOO_MANY, name, message, size, self.max_properties))
        properties = self.properties
        additional = self.additional
        prefix = name + "." if name else ""
        # ratcheting pairs a field with its old value (never the root's apiVersion and kind)
        olds = old if type(old) is dict else None
        for key, item in value.items():
            node = properties.get(key)
            if node is not None:
                child_name = prefix + key
            elif additional is False:
                errs.append((INVALID, name, f"{name}.{key} in body is a forbidden property", key, None))
                continue
            elif additional is not None and additional is not True:
                node = additional
                child_name = f"{name}.{key}"
            else:
                continue
            if olds is not None and key in olds and (name or key not in _TYPE_META):
                count += node.validate_correlated(item, olds[key], child_name, errs)
            else:
                count += node.validate(item, child_name, errs)
        for key in self.required:
            if key not in value:
                errs.append((REQUIRED, f"{name}.{key}", f"{name}.{key} in body is required", None, None))
        return count

    # -- ratcheting -----------------------------------------------------------------------------------

    def validate_correlated(self, value: Any, old: Any, name: str, errs: list[RawError]) -> int:
        """kube's ratcheting validator: the errors of a value equal to its old value are dropped (they are
        warnings in kube), so an update need not fix what it did not touch."""
        local: list[RawError] = []
        count = self.validate(value, name, local, old)
        if local and not self._correlated_equal(value, old):
            errs.extend(local)
        return count

    def _old_map_list(self, old: Any) -> Callable[[Any], Any] | None:
        # CorrelatedObject.Index: only the items of a map list pair up, by their key values (the first
        # old item with the same keys); sets and atomic lists do not
        if self.list_type != "map" or not self.list_map_keys or type(old) is not list or not old:
            return None
        keys = self.list_map_keys
        by_key: dict[Any, Any] = {}
        for item in old:
            if type(item) is dict:
                key = _map_list_key(item, keys)
                if key is not None:
                    by_key.setdefault(key, item)

        def lookup(item: Any) -> Any:
            if type(item) is not dict:
                return None
            key = _map_list_key(item, keys)
            return by_key.get(key) if key is not None else None

        return lookup

    def _correlated_equal(self, value: Any, old: Any) -> bool:
        """CorrelatedObject.CachedDeepEqual: equal along the schema (an object's fields must all be known
        to the schema, map lists compare item by paired item), reflect.DeepEqual elsewhere."""
        if value is None or old is None:
            return value is None and old is None
        kind = type(value)
        if kind is list and type(old) is list:
            if len(value) != len(old):
                return False
            if self.list_type != "map":
                return _deep_equal(value, old)
            lookup = self._old_map_list(old)
            items = self.items
            if lookup is None or items is None:
                return False
            for item in value:
                old_item = lookup(item)
                if old_item is None or not items._correlated_equal(item, old_item):
                    return False
            return True
        if kind is dict and type(old) is dict:
            if len(value) != len(old):
                return False
            additional = self.additional if isinstance(self.additional, SchemaNode) else None
            for key, item in value.items():
                node = self.properties.get(key) or additional
                if node is None or key not in old or not node._correlated_equal(item, old[key]):
                    return False
            return True
        if kind is list or kind is dict or type(old) is list or type(old) is dict:
            return False
        return _deep_equal(value, old)


def _map_list_key(item: dict[str, Any], keys: tuple[str, ...]) -> Any:
    # the composite key of a map-list item: scalar values only, their types kept apart (1 is not 1.0)
    values = []
    for key in keys:
        if key not in item:
            return None
        value = item[key]
        if type(value) not in (bool, int, float, str):
            return None
        values.append((type(value), value))
    return tuple(values)


def compile_schema(schema: Mapping[str, Any]) -> SchemaNode:
    """Compile a JSONSchemaProps dict (a CRD version's openAPIV3Schema, or any node of one)."""
    return SchemaNode(schema)


def _field(base: str, name: str) -> str:
    # kubeOpenAPIResultToFieldErrors: the error's name (without its leading dot) under the caller's path
    if not name or name == ".":
        return base or "<nil>"
    child = name[1:] if name.startswith(".") else name
    return f"{base}.{child}" if base else child


def to_field_errors(raw: list[RawError], base: str = "") -> list[FieldError]:
    """kube's conversion of kube-openapi's errors, duplicates (by message) dropped."""
    out: list[FieldError] = []
    seen: set[str] = set()
    for code, name, message, value, extra in raw:
        if message in seen:
            continue
        seen.add(message)
        if code == COMPOSITE:
            out.append(FieldError.invalid(base or "<nil>", "", message))
            continue
        field = _field(base, name)
        if code == REQUIRED:
            out.append(FieldError.required(field, ""))
        elif code == ENUM:
            allowed = [v if type(v) is str else gofmt.json(v) for v in extra]
            shown = RawValue("null") if value is None else go_bad_value(value)
            out.append(FieldError.not_supported(field, shown, allowed))
        elif code == TOO_LONG:
            out.append(FieldError.too_long(field, "", extra))
        elif code == TOO_MANY:
            out.append(FieldError.too_many(field, value, extra))
        elif code == TYPE:
            out.append(FieldError.type_invalid(field, "" if value is None else value, message))
        else:
            out.append(FieldError.invalid(field, "" if value is None else go_bad_value(value), message))
    return out


def validate_value(value: Any, schema: Mapping[str, Any] | SchemaNode, path: str) -> list[FieldError]:
    """Validate one value against one schema node, errors under `path`: kube's check of a `default` value
    (ValidateCustomResource with a field path, against the structural schema's OpenAPI form)."""
    node = schema if isinstance(schema, SchemaNode) else SchemaNode(schema, converted=False)
    raw: list[RawError] = []
    node.validate(value, "", raw)
    return to_field_errors(raw, path) if raw else []
