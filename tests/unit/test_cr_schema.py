"""Custom resource schema semantics: OpenAPI v3 validation with kube's exact error texts and order,
formats, composition, embedded resources, list types and defaulting."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from kubelite.apiextensions.schema import CustomResourceSchema, pattern_compile_error, validate_value
from kubelite.apiextensions.schema.formats import effective_format

NIL = '<nil>: Invalid value: ""'


def spec_schema(field: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": field}, **spec}}}


def errors_of(field: dict[str, Any], value: Any) -> list[str]:
    return [str(err) for err in CustomResourceSchema(spec_schema(field)).validate({"spec": {"x": value}})]


def type_error(type_name: str, got: str, path: str = "spec.x") -> str:
    return f'{path}: Invalid value: "{got}": {path} in body must be of type {type_name}: "{got}"'


# -- keywords, one value each ------------------------------------------------------------------------------

KEYWORD_CASES: list[tuple[str, dict[str, Any], Any, list[str]]] = [
    # type
    ("integer-ok", {"type": "integer"}, 5, []),
    ("integer-string", {"type": "integer"}, "string", [type_error("integer", "string")]),
    ("integer-integral-float", {"type": "integer"}, 1.0, []),
    (
        "integer-fraction",
        {"type": "integer"},
        1.5,
        [type_error("integer", "number"), f"{NIL}: Checked value must be of type integer (default format) in spec.x"],
    ),
    ("number-int", {"type": "number"}, 3, []),
    ("number-string", {"type": "number"}, "3", [type_error("number", "string")]),
    ("string-int", {"type": "string"}, 5, [type_error("string", "integer")]),
    ("string-bool", {"type": "string"}, True, [type_error("string", "boolean")]),
    ("boolean-string", {"type": "boolean"}, "true", [type_error("boolean", "string")]),
    ("array-object", {"type": "array"}, {}, [type_error("array", "object")]),
    ("object-array", {"type": "object"}, [], [type_error("object", "array")]),
    ("null", {"type": "string"}, None, [type_error("string", "null")]),
    ("null-nullable", {"type": "string", "nullable": True}, None, []),
    ("untyped", {"x-kubernetes-preserve-unknown-fields": True}, {"a": [1]}, []),
    ("int-or-string-int", {"x-kubernetes-int-or-string": True}, 8080, []),
    ("int-or-string-string", {"x-kubernetes-int-or-string": True}, "http", []),
    ("int-or-string-bool", {"x-kubernetes-int-or-string": True}, True, [type_error("integer,string", "boolean")]),
    ("int-or-string-null", {"x-kubernetes-int-or-string": True}, None, [type_error("integer,string", "null")]),
    # integer and number formats
    (
        "int32-overflow",
        {"type": "integer", "format": "int32"},
        2**31,
        [f"{NIL}: Checked value must be of type integer with format int32 in spec.x"],
    ),
    ("int32-ok", {"type": "integer", "format": "int32"}, 2**31 - 1, []),
    (
        "int64-float",
        {"type": "integer", "format": "int64"},
        1.5,
        [type_error("int64", "float64"), f"{NIL}: Checked value must be of type integer with format int64 in spec.x"],
    ),
    (
        "float-overflow",
        {"type": "number", "format": "float"},
        3.5e38,
        [f"{NIL}: Checked value must be of type number with format float in spec.x"],
    ),
    ("double-big", {"type": "number", "format": "double"}, 3.5e38, []),
    ("string-format-int", {"type": "string", "format": "date"}, 5, [type_error("date", "int64")]),
    ("string-format-list", {"type": "string", "format": "date"}, ["x"], []),
    # enum
    (
        "enum-string",
        {"type": "string", "enum": ["a", "b"]},
        "x",
        ['spec.x: Unsupported value: "x": supported values: "a", "b"'],
    ),
    ("enum-string-ok", {"type": "string", "enum": ["a", "b"]}, "b", []),
    (
        "enum-bool-against-strings",
        {"enum": ["a", "b"]},
        True,
        ['spec.x: Unsupported value: true: supported values: "a", "b"'],
    ),
    (
        "enum-int",
        {"type": "integer", "enum": [1, 2]},
        3,
        ['spec.x: Unsupported value: 3: supported values: "1", "2"'],
    ),
    ("enum-int-float", {"type": "integer", "enum": [1, 2]}, 2.0, []),
    (
        "enum-null",
        {"type": "string", "nullable": True, "enum": ["a"]},
        None,
        ['spec.x: Unsupported value: null: supported values: "a"'],
    ),
    (
        "enum-object",
        {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "enum": [{"a": 1}]},
        {"b": 2, "a": 1},
        ['spec.x: Unsupported value: {"a":1,"b":2}: supported values: "{\\"a\\":1}"'],
    ),
    # pattern
    (
        "pattern",
        {"type": "string", "pattern": "^[0-9]+$"},
        "abc",
        ["spec.x: Invalid value: \"abc\": spec.x in body should match '^[0-9]+$'"],
    ),
    ("pattern-ok", {"type": "string", "pattern": "^[0-9]+$"}, "123", []),
    (
        "pattern-dollar-is-end-of-text",
        {"type": "string", "pattern": "^[0-9]+$"},
        "123\n",
        ["spec.x: Invalid value: \"123\\n\": spec.x in body should match '^[0-9]+$'"],
    ),
    ("pattern-unanchored", {"type": "string", "pattern": "b+"}, "abbc", []),
    ("pattern-unicode-class", {"type": "string", "pattern": r"^\p{Lu}"}, "Éa", []),
    (
        "pattern-unicode-class-fails",
        {"type": "string", "pattern": r"^\p{Lu}"},
        "éa",
        ["spec.x: Invalid value: \"éa\": spec.x in body should match '^\\p{Lu}'"],
    ),
    (
        "pattern-ascii-digits",
        {"type": "string", "pattern": r"^\d+$"},
        "١٢",
        ["spec.x: Invalid value: \"١٢\": spec.x in body should match '^\\d+$'"],
    ),
    (
        "pattern-invalid",
        {"type": "string", "pattern": "("},
        "a",
        [
            'spec.x: Invalid value: "a": spec.x in body should match \'(, but pattern is invalid: '
            "error parsing regexp: missing closing ): `(`'"
        ],
    ),
    # numbers
    (
        "maximum",
        {"type": "integer", "maximum": 10},
        11,
        ["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"],
    ),
    ("maximum-ok", {"type": "integer", "maximum": 10}, 10, []),
    (
        "exclusive-maximum",
        {"type": "integer", "maximum": 10, "exclusiveMaximum": True},
        10,
        ["spec.x: Invalid value: 10: spec.x in body should be less than 10"],
    ),
    (
        "minimum",
        {"type": "integer", "minimum": 1},
        0,
        ["spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1"],
    ),
    (
        "exclusive-minimum",
        {"type": "integer", "minimum": 1, "exclusiveMinimum": True},
        1,
        ["spec.x: Invalid value: 1: spec.x in body should be greater than 1"],
    ),
    (
        "number-maximum",
        {"type": "number", "maximum": 1.5},
        2.5,
        ["spec.x: Invalid value: 2.5: spec.x in body should be less than or equal to 1.5"],
    ),
    (
        "maximum-big-float",
        {"type": "number", "maximum": 1e6},
        2e6,
        ["spec.x: Invalid value: 2e+06: spec.x in body should be less than or equal to 1e+06"],
    ),
    (
        "integer-fractional-maximum",
        {"type": "integer", "maximum": 10.5},
        11,
        [
            f"{NIL}: Maximum boundary value must be of type integer (default format) in spec.x",
            "spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10.5",
        ],
    ),
    (
        "multiple-of",
        {"type": "integer", "multipleOf": 3},
        7,
        ["spec.x: Invalid value: 7: spec.x in body should be a multiple of 3"],
    ),
    ("multiple-of-ok", {"type": "integer", "multipleOf": 3}, -9, []),
    ("multiple-of-float-ok", {"type": "number", "multipleOf": 0.1}, 0.3, []),
    (
        "multiple-of-float",
        {"type": "number", "multipleOf": 0.1},
        0.35,
        ["spec.x: Invalid value: 0.35: spec.x in body should be a multiple of 0.1"],
    ),
    (
        "number-order",
        {"type": "integer", "multipleOf": 2, "minimum": 10, "maximum": 0},
        5,
        [
            "spec.x: Invalid value: 5: spec.x in body should be a multiple of 2",
            "spec.x: Invalid value: 5: spec.x in body should be greater than or equal to 10",
            "spec.x: Invalid value: 5: spec.x in body should be less than or equal to 0",
        ],
    ),
    # strings
    ("max-length", {"type": "string", "maxLength": 3}, "abcd", ["spec.x: Too long: may not be more than 3 bytes"]),
    ("max-length-counts-runes", {"type": "string", "maxLength": 3}, "äöü", []),
    (
        "min-length",
        {"type": "string", "minLength": 2},
        "a",
        ['spec.x: Invalid value: "a": spec.x in body should be at least 2 chars long'],
    ),
    (
        "string-first-failure-only",
        {"type": "string", "maxLength": 1, "pattern": "^z"},
        "abc",
        ["spec.x: Too long: may not be more than 1 byte"],
    ),
    # arrays
    (
        "min-items",
        {"type": "array", "minItems": 2},
        [1],
        ["spec.x: Invalid value: 1: spec.x in body should have at least 2 items"],
    ),
    ("max-items", {"type": "array", "maxItems": 2}, [1, 2, 3], ["spec.x: Too many: 3: must have at most 2 items"]),
    ("max-items-one", {"type": "array", "maxItems": 1}, [1, 2], ["spec.x: Too many: 2: must have at most 1 item"]),
    (
        "items",
        {"type": "array", "items": {"type": "integer"}},
        [1, "a", 2, True],
        [type_error("integer", "string", "spec.x[1]"), type_error("integer", "boolean", "spec.x[3]")],
    ),
    (
        "unique-items",
        {"type": "array", "uniqueItems": True},
        [{"a": 1}, {"a": 1}],
        ['spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates'],
    ),
    # objects
    (
        "min-properties",
        {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2},
        {"a": 1},
        ["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ),
    (
        "max-properties",
        {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 1},
        {"a": 1, "b": 2},
        ["spec.x: Too many: 2: must have at most 1 item"],
    ),
    (
        "required",
        {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {},
        ["spec.x.a: Required value", "spec.x.b: Required value"],
    ),
    (
        "required-after-properties",
        {"type": "object", "required": ["b"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {"a": 1},
        [type_error("string", "integer", "spec.x.a"), "spec.x.b: Required value"],
    ),
    (
        "additional-properties-schema",
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"k.example.com/v": "v"},
        [type_error("integer", "string", "spec.x.k.example.com/v")],
    ),
    (
        "additional-properties-false",
        {"type": "object", "properties": {"b": {"type": "string"}}, "additionalProperties": False},
        {"a": 1, "b": "x"},
        ['spec.x: Invalid value: "a": spec.x.a in body is a forbidden property'],
    ),
    (
        "object-key-order",
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {"b": 1, "a": 2},
        [type_error("string", "integer", "spec.x.b"), type_error("string", "integer", "spec.x.a")],
    ),
]


@pytest.mark.parametrize(
    ("field", "value", "expected"), [c[1:] for c in KEYWORD_CASES], ids=[c[0] for c in KEYWORD_CASES]
)
def test_keyword(field: dict[str, Any], value: Any, expected: list[str]) -> None:
    assert errors_of(field, value) == expected


def test_type_error_cause_is_type_invalid() -> None:
    (err,) = CustomResourceSchema(spec_schema({"type": "integer"})).validate({"spec": {"x": "a"}})
    assert err.reason == "FieldValueTypeInvalid"
    assert err.field == "spec.x"


# -- formats -----------------------------------------------------------------------------------------------

FORMAT_CASES: list[tuple[str, list[str], list[str]]] = [
    (
        "date",
        ["2024-02-29", "0001-01-01", "0000-02-29"],
        ["2023-02-29", "2024-13-01", "2024-1-02", "2024-01-02T00:00:00Z"],
    ),
    (
        "date-time",
        ["2024-01-02T03:04:05Z", "2024-01-02t03:04:05.123+02:00"],
        ["2024-01-02 03:04:05", "2024-01-02T24:00:00Z"],
    ),
    (
        "duration",
        ["1h30m", "-1.5s", ".5us", "0", "3 days", "2 weeks", "5 minutes"],
        ["soon", "", "1x", "1 day 99999999999999999999 h"],
    ),
    ("byte", ["aGVsbG8=", "AAAA"], ["not base64!", ""]),
    ("uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"], ["xyz"]),
    ("uuid4", ["123e4567-e89b-42d3-a456-426614174000"], ["123e4567-e89b-12d3-a456-426614174000"]),
    ("email", ["a@b.c", "John Doe <a@b.c>", "first.last+tag@example.com"], ["nope", "a@", "@b"]),
    ("hostname", ["example.com", "a", "xn--bcher-kva.example", "bücher.example"], ["-bad-", "a..b", "a_b.com"]),
    ("ipv4", ["10.0.0.1", "010.0.0.1", "::ffff:1.2.3.4"], ["1.2.3", "::1", "256.0.0.1"]),
    ("ipv6", ["::1", "fe80::1", "::ffff:1.2.3.4"], ["1.2.3.4", "fe80::1%eth0", ":::"]),
    ("cidr", ["10.0.0.0/8", "fd00::/64", "10.0.0.1/32"], ["10.0.0.0/33", "10.0.0.0", "::/129"]),
    ("mac", ["01:23:45:67:89:ab", "01-23-45-67-89-AB", "0123.4567.89ab"], ["01:23:45", "01:23:45:67:89:zz"]),
    (
        "uri",
        ["https://example.com/x?y=1", "/absolute/path", "mailto:a@b.c", "*"],
        ["relative/path", "", "http://host:port/"],
    ),
    ("bsonobjectid", ["507f1f77bcf86cd799439011"], ["507f1f77bcf86cd79943901"]),
    ("isbn", ["0321751043", "978-0321751041"], ["0321751044"]),
    ("creditcard", ["4111 1111 1111 1111"], ["4111 1111 1111 1112"]),
    ("ssn", ["123-45-6789"], ["123456789"]),
    ("hexcolor", ["#fff", "A0B1C2"], ["#ffff"]),
    ("rgbcolor", ["rgb(255, 0, 10)"], ["rgb(256,0,0)"]),
    ("password", ["anything at all"], []),
    ("k8s-short-name", ["my-name", "a1"], ["a-", "My-name", "a" * 64]),
    ("k8s-long-name", ["a.b-c.d"], ["a.-", "A.b"]),
]


@pytest.mark.parametrize(("format_name", "good", "bad"), FORMAT_CASES, ids=[c[0] for c in FORMAT_CASES])
def test_format(format_name: str, good: list[str], bad: list[str]) -> None:
    field = {"type": "string", "format": format_name}
    for value in good:
        assert errors_of(field, value) == [], value
    for value in bad:
        quoted = value.replace("\\", "\\\\").replace('"', '\\"')
        expected = f'spec.x: Invalid value: "{quoted}": spec.x in body must be of type {format_name}: "{quoted}"'
        assert errors_of(field, value) == [expected], value


def test_unsupported_formats_are_not_validated() -> None:
    assert errors_of({"type": "string", "format": "no-such-format"}, "anything") == []
    assert errors_of({"type": "integer", "format": "date"}, 5) == []
    assert errors_of({"type": "boolean", "format": "int32"}, True) == []
    assert effective_format("integer", "uint32") == ""
    assert effective_format("string", "date-time") == "date-time"
    assert effective_format("", "uuid") == "uuid"


def test_int_or_string_keeps_string_formats() -> None:
    field = {"x-kubernetes-int-or-string": True, "format": "k8s-short-name"}
    assert errors_of(field, 5) == []
    assert errors_of(field, "A") == ['spec.x: Invalid value: "A": spec.x in body must be of type k8s-short-name: "A"']


# -- composition -------------------------------------------------------------------------------------------

COMPOSITION_CASES: list[tuple[str, dict[str, Any], Any, list[str]]] = [
    (
        "one-of-none",
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        True,
        [
            f'{NIL}: "spec.x" must validate one and only one schema (oneOf). Found none valid',
            type_error("string", "boolean"),
        ],
    ),
    (
        "one-of-two",
        {"type": "integer", "oneOf": [{"minimum": 1}, {"maximum": 10}]},
        5,
        [f'{NIL}: "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
    ),
    ("one-of-one", {"type": "integer", "oneOf": [{"minimum": 1}, {"maximum": 0}]}, 5, []),
    (
        "any-of-best-failure",
        {"anyOf": [{"type": "string"}, {"type": "object", "required": ["a"]}]},
        {"b": 1},
        [f'{NIL}: "spec.x" must validate at least one schema (anyOf)', "spec.x.a: Required value"],
    ),
    ("any-of-ok", {"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3, []),
    (
        "all-of",
        {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 3}]},
        5,
        [
            "spec.x: Invalid value: 5: spec.x in body should be less than or equal to 3",
            f'{NIL}: "spec.x" must validate all the schemas (allOf)',
        ],
    ),
    (
        "all-of-none-deduplicated",
        {"type": "integer", "allOf": [{"maximum": 3}, {"maximum": 3}]},
        5,
        [
            "spec.x: Invalid value: 5: spec.x in body should be less than or equal to 3",
            f'{NIL}: "spec.x" must validate all the schemas (allOf). None validated',
        ],
    ),
    (
        "not",
        {"type": "string", "not": {"enum": ["forbidden"]}},
        "forbidden",
        [f'{NIL}: "spec.x" must not validate the schema (not)'],
    ),
    ("not-ok", {"type": "string", "not": {"enum": ["forbidden"]}}, "fine", []),
    (
        # kube's own case: nullable int-or-string with a user anyOf, validating a boolean
        "int-or-string-any-of",
        {"x-kubernetes-int-or-string": True, "nullable": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
        True,
        [
            type_error("integer,string", "boolean"),
            f'{NIL}: "spec.x" must validate at least one schema (anyOf)',
            type_error("integer", "boolean"),
        ],
    ),
    (
        "int-or-string-all-of-any-of-number",
        {
            "x-kubernetes-int-or-string": True,
            "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}],
        },
        1.2,
        [
            type_error("integer,string", "number"),
            f'{NIL}: "spec.x" must validate at least one schema (anyOf)',
            type_error("integer", "number"),
            f"{NIL}: Checked value must be of type integer (default format) in spec.x",
            f'{NIL}: "spec.x" must validate all the schemas (allOf). None validated',
        ],
    ),
]


@pytest.mark.parametrize(
    ("field", "value", "expected"), [c[1:] for c in COMPOSITION_CASES], ids=[c[0] for c in COMPOSITION_CASES]
)
def test_composition(field: dict[str, Any], value: Any, expected: list[str]) -> None:
    assert errors_of(field, value) == expected


# -- the root, metadata, validate_value --------------------------------------------------------------------


def test_root_required_and_metadata_name_constraints() -> None:
    schema = {
        "type": "object",
        "required": ["spec"],
        "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 5}}},
            "spec": {"type": "object"},
        },
    }
    crs = CustomResourceSchema(schema)
    obj = {"apiVersion": "a.example.com/v1", "kind": "A", "metadata": {"name": "too-long", "labels": {"a": "b"}}}
    assert [str(e) for e in crs.validate(obj)] == [
        "metadata.name: Too long: may not be more than 5 bytes",
        "spec: Required value",
    ]


def test_root_level_errors_name_no_field() -> None:
    crs = CustomResourceSchema({"type": "object", "minProperties": 3})
    assert [str(e) for e in crs.validate({"a": 1})] == [
        "<nil>: Invalid value: 1:  in body should have at least 3 properties"
    ]


def test_validate_value_puts_errors_under_the_path() -> None:
    path = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].default"
    assert [str(e) for e in validate_value(11, {"type": "integer", "maximum": 10}, path)] == [
        f"{path}: Invalid value: 11:  in body should be less than or equal to 10"
    ]
    assert [
        str(e) for e in validate_value({"a": "x"}, {"type": "object", "properties": {"a": {"type": "integer"}}}, path)
    ] == [f'{path}.a: Invalid value: "string": a in body must be of type integer: "string"']
    assert [str(e) for e in validate_value("x", {"oneOf": [{"type": "integer"}]}, path)] == [
        f'{path}: Invalid value: "": "" must validate one and only one schema (oneOf). Found none valid',
        f'{path}: Invalid value: "string":  in body must be of type integer: "string"',
    ]
    assert validate_value(3, {"type": "integer", "maximum": 10}, path) == []


def test_validate_value_reads_int_or_string_as_the_structural_schema_does() -> None:
    # defaults are checked against the structural schema, where int-or-string has no type of its own
    path = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[port].default"
    schema = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert validate_value("http", schema, path) == []
    assert [str(e) for e in validate_value(True, schema, path)] == [
        f'{path}: Invalid value: "": "" must validate at least one schema (anyOf)',
        f'{path}: Invalid value: "boolean":  in body must be of type integer: "boolean"',
    ]


def test_pattern_compile_errors_read_as_go() -> None:
    assert pattern_compile_error("^[a-z]+$") is None
    assert pattern_compile_error("[a") == "error parsing regexp: missing closing ]: `[a`"
    assert pattern_compile_error("(?=x)") == "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"
    assert pattern_compile_error("a**") == "error parsing regexp: invalid nested repetition operator: `**`"


# -- status ------------------------------------------------------------------------------------------------


def test_status_update_validates_status_alone_under_its_path() -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "required": ["a"]},
            "status": {"type": "object", "properties": {"num": {"type": "integer", "maximum": 10}}},
        },
    }
    crs = CustomResourceSchema(schema)
    new = {"spec": {}, "status": {"num": 15}}
    assert [str(e) for e in crs.validate_status_update(new, {"spec": {}})] == [
        "status.num: Invalid value: 15: num in body should be less than or equal to 10"
    ]
    assert crs.validate_status_update({"spec": {}}, {"spec": {}}) == []


# -- embedded resources ------------------------------------------------------------------------------------

EMBEDDED = spec_schema(
    {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
    additionalProperties=None,
)
EMBEDDED["properties"]["spec"]["properties"]["list"] = {
    "type": "array",
    "items": {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True},
}
EMBEDDED["properties"]["spec"].pop("additionalProperties")

DNS1035 = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)

EMBEDDED_CASES: list[tuple[str, Any, list[str]]] = [
    ("valid", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}}, []),
    ("no-metadata-needed", {"apiVersion": "apps/v1", "kind": "Deployment"}, []),
    ("unnamed", {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}, []),
    ("missing-type-meta", {}, ["spec.x.apiVersion: Required value", "spec.x.kind: Required value"]),
    (
        "wrong-types",
        {"apiVersion": 1, "kind": ""},
        ["spec.x.apiVersion: Invalid value: 1: must be a string", 'spec.x.kind: Invalid value: "": must not be empty'],
    ),
    (
        "bad-group-version",
        {"apiVersion": "a/b/c", "kind": "Pod"},
        ['spec.x.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'],
    ),
    (
        "bad-kind",
        {"apiVersion": "v1", "kind": "My_Kind"},
        [f'spec.x.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: {DNS1035}'],
    ),
    (
        "bad-name",
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a/b"}},
        ["spec.x.metadata.name: Invalid value: \"a/b\": may not contain '/'"],
    ),
    (
        "bad-labels",
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "-x"}}},
        [
            'spec.x.metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of '
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ],
    ),
    (
        "metadata-not-an-object",
        {"apiVersion": "v1", "kind": "Pod", "metadata": "x"},
        ['spec.x.metadata: Invalid value: "x": json: cannot unmarshal string into Go value of type v1.ObjectMeta'],
    ),
]


@pytest.mark.parametrize(("value", "expected"), [c[1:] for c in EMBEDDED_CASES], ids=[c[0] for c in EMBEDDED_CASES])
def test_embedded_resource(value: Any, expected: list[str]) -> None:
    crs = CustomResourceSchema(EMBEDDED)
    assert [str(e) for e in crs.validate({"spec": {"x": value}})] == expected


def test_embedded_resources_in_lists_and_not_at_the_root() -> None:
    crs = CustomResourceSchema(EMBEDDED)
    obj = {"spec": {"list": [{"apiVersion": "v1", "kind": "Pod"}, {"kind": "Pod"}]}}
    assert [str(e) for e in crs.validate(obj)] == ["spec.list[1].apiVersion: Required value"]


# -- list types --------------------------------------------------------------------------------------------


def list_schema(list_type: str, items: dict[str, Any], keys: list[str] | None = None) -> dict[str, Any]:
    field: dict[str, Any] = {"type": "array", "x-kubernetes-list-type": list_type, "items": items}
    if keys:
        field["x-kubernetes-list-map-keys"] = keys
    return spec_schema(field)


def list_errors(schema: dict[str, Any], value: Any) -> list[str]:
    return [str(e) for e in CustomResourceSchema(schema).validate({"spec": {"x": value}})]


OBJECT_ITEMS = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "port": {"type": "integer"}, "v": {"type": "string"}},
}


def test_list_type_set() -> None:
    schema = list_schema("set", {"type": "string"})
    assert list_errors(schema, ["a", "b"]) == []
    assert list_errors(schema, ["a", "b", "a", "a", "b"]) == [
        'spec.x[2]: Duplicate value: "a"',
        'spec.x[4]: Duplicate value: "b"',
    ]


def test_list_type_set_of_numbers_compares_types() -> None:
    schema = list_schema("set", {"type": "number"})
    assert list_errors(schema, [1, 1.0]) == []
    assert list_errors(schema, [1.5, 1.5]) == ["spec.x[1]: Duplicate value: 1.5"]


def test_list_type_set_of_objects() -> None:
    schema = list_schema(
        "set", {"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": True}
    )
    assert list_errors(schema, [{"a": 1, "b": 2}, {"b": 2, "a": 1}]) == ['spec.x[1]: Duplicate value: {"a":1,"b":2}']


def test_list_type_map_single_key() -> None:
    schema = list_schema("map", OBJECT_ITEMS, ["name"])
    assert list_errors(schema, [{"name": "a"}, {"name": "b"}]) == []
    assert list_errors(schema, [{"name": "a", "v": "1"}, {"name": "a", "v": "2"}]) == [
        'spec.x[1]: Duplicate value: {"name":"a"}'
    ]
    assert list_errors(schema, [{"v": "1"}, {"v": "2"}]) == ["spec.x[1]: Duplicate value: {}"]


def test_list_type_map_compound_key() -> None:
    schema = list_schema("map", OBJECT_ITEMS, ["port", "name"])
    assert list_errors(schema, [{"name": "a", "port": 80}, {"name": "a", "port": 81}]) == []
    assert list_errors(schema, [{"name": "a", "port": 80}, {"port": 80, "name": "a", "v": "x"}]) == [
        'spec.x[1]: Duplicate value: {"name":"a","port":80}'
    ]


def test_list_type_map_needs_objects() -> None:
    schema = list_schema("map", OBJECT_ITEMS, ["name"])
    assert list_errors(schema, [{"name": "a"}, "x", 3]) == [
        type_error("object", "string", "spec.x[1]"),
        type_error("object", "integer", "spec.x[2]"),
        'spec.x[1]: Invalid value: "x": must be an object for an array of list-type map',
    ]


def test_list_type_nested_paths_and_atomic() -> None:
    inner = {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}
    schema = spec_schema({"type": "object", "additionalProperties": {"type": "object", "properties": {"tags": inner}}})
    obj = {"spec": {"x": {"k": {"tags": ["a", "a"]}}}}
    assert [str(e) for e in CustomResourceSchema(schema).validate(obj)] == ['spec.x[k].tags[1]: Duplicate value: "a"']
    atomic = list_schema("atomic", {"type": "string"})
    assert list_errors(atomic, ["a", "a"]) == []


def test_list_type_errors_ratchet_on_update() -> None:
    crs = CustomResourceSchema(list_schema("set", {"type": "string"}))
    duplicated = {"spec": {"x": ["a", "a"]}}
    assert [str(e) for e in crs.validate_update(duplicated, {"spec": {"x": []}})] == ['spec.x[1]: Duplicate value: "a"']
    assert crs.validate_update(duplicated, {"spec": {"x": ["b", "b"]}}) == []


# -- defaulting --------------------------------------------------------------------------------------------

DEFAULTING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "default": "auto"},
                "nullableMode": {"type": "string", "nullable": True, "default": "x"},
                "template": {
                    "type": "object",
                    "default": {"labels": {"app": "demo"}},
                    "properties": {
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "size": {"type": "integer", "default": 3},
                    },
                },
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "default": {"port": 0},
                        "properties": {
                            "port": {"type": "integer"},
                            "protocol": {"type": "string", "default": "TCP"},
                        },
                    },
                },
                "limits": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "default": {},
                        "properties": {"max": {"type": "integer", "default": 10}},
                    },
                },
                "plain": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
        }
    },
}


def test_defaulting_fills_missing_fields_top_down() -> None:
    obj: dict[str, Any] = {"apiVersion": "a/v1", "kind": "A"}
    CustomResourceSchema(DEFAULTING_SCHEMA).default(obj)
    assert obj == {
        "apiVersion": "a/v1",
        "kind": "A",
        "spec": {
            "replicas": 1,
            "mode": "auto",
            "nullableMode": "x",
            "template": {"labels": {"app": "demo"}, "size": 3},
        },
    }


def test_defaulting_keeps_given_values() -> None:
    obj: dict[str, Any] = {"spec": {"replicas": 5, "mode": "", "template": {"size": 0}, "plain": {}}}
    CustomResourceSchema(DEFAULTING_SCHEMA).default(obj)
    assert obj["spec"]["replicas"] == 5
    assert obj["spec"]["mode"] == ""
    assert obj["spec"]["template"] == {"size": 0}
    assert obj["spec"]["plain"] == {}


def test_defaulting_replaces_non_nullable_nulls_only() -> None:
    obj: dict[str, Any] = {"spec": {"replicas": None, "nullableMode": None}}
    CustomResourceSchema(DEFAULTING_SCHEMA).default(obj)
    assert obj["spec"]["replicas"] == 1
    assert obj["spec"]["nullableMode"] is None


def test_defaulting_items_and_additional_properties() -> None:
    obj: dict[str, Any] = {
        "spec": {
            "ports": [{"port": 80}, None, {"port": 443, "protocol": "UDP"}],
            "limits": {"cpu": {}, "mem": None, "disk": {"max": 1}},
        }
    }
    CustomResourceSchema(DEFAULTING_SCHEMA).default(obj)
    assert obj["spec"]["ports"] == [
        {"port": 80, "protocol": "TCP"},
        {"port": 0, "protocol": "TCP"},
        {"port": 443, "protocol": "UDP"},
    ]
    assert obj["spec"]["limits"] == {"cpu": {"max": 10}, "mem": {"max": 10}, "disk": {"max": 1}}


def test_defaults_are_deep_copies() -> None:
    crs = CustomResourceSchema(DEFAULTING_SCHEMA)
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    crs.default(first)
    first["spec"]["template"]["labels"]["app"] = "changed"
    crs.default(second)
    assert second["spec"]["template"]["labels"] == {"app": "demo"}


def test_schema_without_defaults_leaves_objects_alone() -> None:
    schema = spec_schema({"type": "string"})
    obj = {"spec": {"x": None}}
    CustomResourceSchema(schema).default(obj)
    assert obj == {"spec": {"x": None}}


def test_prune_nulls_drops_non_nullable_nulls_without_defaults() -> None:
    schema = copy.deepcopy(DEFAULTING_SCHEMA)
    schema["properties"]["spec"]["properties"]["plain"]["properties"]["b"] = {"type": "string", "nullable": True}
    crs = CustomResourceSchema(schema)
    obj: dict[str, Any] = {"spec": {"plain": {"a": None, "b": None}, "replicas": None, "unknown": None}}
    crs.prune_nulls(obj)
    assert obj == {"spec": {"plain": {"b": None}, "replicas": None, "unknown": None}}


# -- cost --------------------------------------------------------------------------------------------------


def bench_schema_and_object() -> tuple[dict[str, Any], dict[str, Any]]:
    properties: dict[str, Any] = {}
    spec: dict[str, Any] = {}
    for i in range(10):
        properties[f"name{i}"] = {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9-]+$"}
        spec[f"name{i}"] = f"value-{i}"
        properties[f"count{i}"] = {"type": "integer", "minimum": 0, "maximum": 1000, "default": 1}
        spec[f"count{i}"] = i
        properties[f"mode{i}"] = {"type": "string", "enum": ["a", "b", "c"]}
        spec[f"mode{i}"] = "b"
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": properties, "required": ["name0"]},
        },
    }
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}
    return schema, obj


def test_validate_and_default_a_create_sized_object_cheaply() -> None:
    schema, obj = bench_schema_and_object()
    crs = CustomResourceSchema(schema)
    assert crs.validate(obj) == []
    rounds = 2000
    start = time.perf_counter()
    for _ in range(rounds):
        crs.default(obj)
        crs.validate(obj)
    per_object = (time.perf_counter() - start) / rounds
    print(f"\n30-field custom resource defaulted and validated: {per_object * 1e6:.1f} µs")


# -- ratcheting on update ----------------------------------------------------------------------------------

RATCHET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string", "maxLength": 1},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "string"},
                "x": {"type": "string", "maxLength": 3},
                "y": {"type": "integer"},
                "atomic": {"type": "array", "items": {"type": "string", "maxLength": 1}},
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "v": {"type": "string", "maxLength": 1}},
                    },
                },
            },
        },
    },
}


def update_errors(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    return [str(e) for e in CustomResourceSchema(RATCHET_SCHEMA).validate_update(new, old)]


def test_ratcheting_drops_errors_of_unchanged_values() -> None:
    old = {"apiVersion": "v", "spec": {"a": "", "x": "abcd", "y": 1}}
    assert update_errors({"apiVersion": "v", "spec": {"a": "", "x": "abcd", "y": 2}}, old) == []
    assert update_errors({"apiVersion": "v", "spec": {"a": "", "x": "abcde", "y": 1}}, old) == [
        "spec.x: Too long: may not be more than 3 bytes"
    ]
    # on create nothing is ratcheted
    assert [str(e) for e in CustomResourceSchema(RATCHET_SCHEMA).validate(old)] == [
        "spec.x: Too long: may not be more than 3 bytes"
    ]


def test_ratcheting_keeps_the_own_errors_of_a_changed_object() -> None:
    old = {"apiVersion": "v", "spec": {"y": 1}}
    assert update_errors({"apiVersion": "v", "spec": {"y": 1}}, old) == []
    assert update_errors({"apiVersion": "v", "spec": {"y": 2}}, old) == ["spec.a: Required value"]


def test_ratcheting_pairs_map_list_items_by_key_but_not_atomic_items() -> None:
    old = {"apiVersion": "v", "spec": {"a": "", "ports": [{"name": "a", "v": "xx"}], "atomic": ["xx"]}}
    moved = {
        "apiVersion": "v",
        "spec": {"a": "", "ports": [{"name": "b", "v": "y"}, {"name": "a", "v": "xx"}], "atomic": ["xx"]},
    }
    assert update_errors(moved, old) == []
    changed = copy.deepcopy(moved)
    changed["spec"]["ports"][1]["v"] = "xxx"
    changed["spec"]["atomic"].append("y")
    assert update_errors(changed, old) == [
        "spec.ports[1].v: Too long: may not be more than 1 byte",
        "spec.atomic[0]: Too long: may not be more than 1 byte",
    ]


def test_ratcheting_never_pairs_the_root_type_meta() -> None:
    old = {"apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "spec": {"a": "", "x": "abcd"}}
    new = {"apiVersion": "v1", "metadata": {"resourceVersion": "2"}, "spec": {"a": "", "x": "abcd"}}
    assert update_errors(new, old) == ["apiVersion: Too long: may not be more than 1 byte"]


def test_status_update_is_ratcheted() -> None:
    schema = {
        "type": "object",
        "properties": {
            "status": {
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 1}, "m": {"type": "integer"}},
            }
        },
    }
    crs = CustomResourceSchema(schema)
    assert crs.validate_status_update({"status": {"n": 5, "m": 2}}, {"status": {"n": 5, "m": 1}}) == []
    assert [str(e) for e in crs.validate_status_update({"status": {"n": 6}}, {"status": {"n": 5}})] == [
        "status.n: Invalid value: 6: n in body should be less than or equal to 1"
    ]


# -- values cannot stall a write ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ({"type": "string", "pattern": "a*b"}, "a" * 100_000),
        ({"type": "string", "pattern": "^(a+)+$"}, "a" * 100_000 + "!"),
        ({"type": "string", "pattern": r"^\d*\d*x"}, "1" * 100_000),
        ({"type": "string", "format": "duration"}, "1" * 100_000),
        ({"type": "string", "format": "email"}, "a " * 50_000 + "<"),
    ],
    ids=["unanchored", "nested-quantifiers", "adjacent-quantifiers", "duration-digits", "email-phrase"],
)
def test_adversarial_values_are_checked_in_linear_time(field: dict[str, Any], value: str) -> None:
    # a backtracking engine takes seconds to hours on these; RE2 and linear scans take milliseconds
    started = time.perf_counter()
    assert len(errors_of(field, value)) == 1
    assert time.perf_counter() - started < 1.0
