"""Name/label format checks, field error rendering and object-metadata validation with kube's exact texts."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.apimachinery.validation import (
    OMITTED,
    FieldError,
    RawValue,
    aggregate_message,
    format_bad_value,
    go_quote,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    is_valid_path_segment_name,
    is_valid_path_segment_prefix,
    validate_object_meta,
    validate_object_meta_update,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    r"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_1123_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
LABEL_1035_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_KEY_MSG = (
    "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
    "(e.g. 'example.com/MyName')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NON_STANDARD_FINALIZER = "name is neither a standard finalizer name nor is it fully qualified"


# -- string formats ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("a", [], id="single-char"),
        pytest.param("example.com", [], id="dotted"),
        pytest.param("a-b.c-d.0", [], id="dashes-and-digits"),
        pytest.param("a" * 253, [], id="at-limit"),
        pytest.param("", [SUBDOMAIN_MSG], id="empty"),
        pytest.param("Foo_", [SUBDOMAIN_MSG], id="upper-and-underscore"),
        pytest.param("-a", [SUBDOMAIN_MSG], id="leading-dash"),
        pytest.param("a-", [SUBDOMAIN_MSG], id="trailing-dash"),
        pytest.param("a..b", [SUBDOMAIN_MSG], id="empty-label"),
        pytest.param("a.", [SUBDOMAIN_MSG], id="trailing-dot"),
        pytest.param("a\n", [SUBDOMAIN_MSG], id="trailing-newline"),
        pytest.param("a" * 254, ["must be no more than 253 characters"], id="too-long"),
        pytest.param(
            "A" * 254, ["must be no more than 253 characters", SUBDOMAIN_MSG], id="too-long-and-bad"
        ),
    ],
)
def test_is_dns1123_subdomain(value: str, expected: list[str]) -> None:
    assert is_dns1123_subdomain(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("default", [], id="plain"),
        pytest.param("0abc", [], id="leading-digit"),
        pytest.param("a" * 63, [], id="at-limit"),
        pytest.param("a.b", ["must not contain dots"], id="dots"),
        pytest.param("", [LABEL_1123_MSG], id="empty"),
        pytest.param("Kube", [LABEL_1123_MSG], id="uppercase"),
        pytest.param("a_b", [LABEL_1123_MSG], id="underscore"),
        pytest.param("a" * 64, ["must be no more than 63 characters"], id="too-long"),
        pytest.param(
            "a." * 40, ["must be no more than 63 characters", LABEL_1123_MSG], id="too-long-bad-dots"
        ),
    ],
)
def test_is_dns1123_label(value: str, expected: list[str]) -> None:
    assert is_dns1123_label(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("my-svc", [], id="plain"),
        pytest.param("a1", [], id="digit-inside"),
        pytest.param("1abc", [LABEL_1035_MSG], id="leading-digit"),
        pytest.param("a.b", [LABEL_1035_MSG], id="dots"),
        pytest.param("b" * 64, ["must be no more than 63 characters"], id="too-long"),
    ],
)
def test_is_dns1035_label(value: str, expected: list[str]) -> None:
    assert is_dns1035_label(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("simple", [], id="simple"),
        pytest.param("Uppercase_Is_OK_123", [], id="mixed-case"),
        pytest.param("example.com/Name", [], id="prefixed"),
        pytest.param("1.2.3.4/5678", [], id="numeric"),
        pytest.param("a" * 253 + "/" + "b" * 63, [], id="both-at-limit"),
        pytest.param("cantend-", [NAME_PART_MSG], id="trailing-dash"),
        pytest.param("", ["name part must be non-empty", NAME_PART_MSG], id="empty"),
        pytest.param("example.com/", ["name part must be non-empty", NAME_PART_MSG], id="empty-name"),
        pytest.param("/simple", ["prefix part must be non-empty"], id="empty-prefix"),
        pytest.param("Example.com/abc", ["prefix part " + SUBDOMAIN_MSG], id="uppercase-prefix"),
        pytest.param("a/b/c", [LABEL_KEY_MSG], id="two-slashes"),
        pytest.param("a" * 64, ["name part must be no more than 63 bytes"], id="name-too-long"),
        pytest.param(
            "a" * 254 + "/abc", ["prefix part must be no more than 253 bytes"], id="prefix-too-long"
        ),
        pytest.param(
            "é" * 32, ["name part must be no more than 63 bytes", NAME_PART_MSG], id="bytes-not-chars"
        ),
    ],
)
def test_is_qualified_name(value: str, expected: list[str]) -> None:
    assert is_qualified_name(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("", [], id="empty"),
        pytest.param("v1.2_3-x", [], id="punctuation-inside"),
        pytest.param("a" * 63, [], id="at-limit"),
        pytest.param("-starts-with-dash", [LABEL_VALUE_MSG], id="leading-dash"),
        pytest.param("ends.with.dot.", [LABEL_VALUE_MSG], id="trailing-dot"),
        pytest.param("a b", [LABEL_VALUE_MSG], id="space"),
        pytest.param("a" * 64, ["must be no more than 63 bytes"], id="too-long"),
    ],
)
def test_is_valid_label_value(value: str, expected: list[str]) -> None:
    assert is_valid_label_value(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("system:admin", [], id="colon-ok"),
        pytest.param("Any Thing", [], id="spaces-ok"),
        pytest.param(".", ["may not be '.'"], id="dot"),
        pytest.param("..", ["may not be '..'"], id="dot-dot"),
        pytest.param("...", [], id="three-dots"),
        pytest.param("a/b", ["may not contain '/'"], id="slash"),
        pytest.param("a%b", ["may not contain '%'"], id="percent"),
        pytest.param("%/", ["may not contain '/'", "may not contain '%'"], id="both"),
    ],
)
def test_is_valid_path_segment_name(value: str, expected: list[str]) -> None:
    assert is_valid_path_segment_name(value) == expected


def test_path_segment_prefix_allows_dots() -> None:
    assert is_valid_path_segment_prefix("..") == []
    assert is_valid_path_segment_prefix("a/") == ["may not contain '/'"]


# -- field errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "printed"),
    [
        pytest.param("Foo_", '"Foo_"', id="string"),
        pytest.param('say "hi"\n', '"say \\"hi\\"\\n"', id="string-escapes"),
        pytest.param("tab\there\x01", '"tab\\there\\x01"', id="control"),
        pytest.param("é\u00a0", '"é\\u00a0"', id="unicode"),
        pytest.param(3, "3", id="int"),
        pytest.param(-1, "-1", id="negative"),
        pytest.param(True, "true", id="bool"),
        pytest.param(1.5, "1.5", id="float"),
        pytest.param(2.0, "2", id="integral-float"),
        pytest.param(None, '"null"', id="nil"),
        pytest.param(["a", "b"], '["a","b"]', id="list"),
        pytest.param({"k": "<v&>"}, '{"k":"\\u003cv\\u0026\\u003e"}', id="map-html-escaped"),
        pytest.param(RawValue("null"), "null", id="raw"),
    ],
)
def test_format_bad_value(value: Any, printed: str) -> None:
    assert format_bad_value(value) == printed


def test_go_quote() -> None:
    assert go_quote("a\\b") == '"a\\\\b"'
    assert go_quote("\U0001f600\U000e0001") == '"\U0001f600\\U000e0001"'


@pytest.mark.parametrize(
    ("error", "reason", "text"),
    [
        pytest.param(
            FieldError.required("metadata.name", "name or generateName is required"),
            "FieldValueRequired",
            "metadata.name: Required value: name or generateName is required",
            id="required-detail",
        ),
        pytest.param(
            FieldError.required("metadata.namespace"),
            "FieldValueRequired",
            "metadata.namespace: Required value",
            id="required",
        ),
        pytest.param(
            FieldError.invalid("metadata.name", "Foo_", SUBDOMAIN_MSG),
            "FieldValueInvalid",
            f'metadata.name: Invalid value: "Foo_": {SUBDOMAIN_MSG}',
            id="invalid-string",
        ),
        pytest.param(
            FieldError.invalid("spec.replicas", -1, "must be greater than or equal to 0"),
            "FieldValueInvalid",
            "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            id="invalid-int",
        ),
        pytest.param(
            FieldError.duplicate("spec.ports[1].name", "http"),
            "FieldValueDuplicate",
            'spec.ports[1].name: Duplicate value: "http"',
            id="duplicate",
        ),
        pytest.param(
            FieldError.forbidden("metadata.namespace", "not allowed on this type"),
            "FieldValueForbidden",
            "metadata.namespace: Forbidden: not allowed on this type",
            id="forbidden",
        ),
        pytest.param(
            FieldError.too_long("metadata.annotations", "", 262144),
            "FieldValueTooLong",
            "metadata.annotations: Too long: may not be more than 262144 bytes",
            id="too-long",
        ),
        pytest.param(
            FieldError.too_long("x", "ab", 1),
            "FieldValueTooLong",
            "x: Too long: may not be more than 1 byte",
            id="too-long-singular",
        ),
        pytest.param(
            FieldError.too_long("x", "ab", -1),
            "FieldValueTooLong",
            "x: Too long: value is too long",
            id="too-long-no-limit",
        ),
        pytest.param(
            FieldError.not_supported("spec.type", "X", ["A", "B"]),
            "FieldValueNotSupported",
            'spec.type: Unsupported value: "X": supported values: "A", "B"',
            id="not-supported",
        ),
        pytest.param(
            FieldError.not_supported("spec.type", "X", []),
            "FieldValueNotSupported",
            'spec.type: Unsupported value: "X"',
            id="not-supported-no-list",
        ),
        pytest.param(
            FieldError.not_found("spec.volumes[0]", "v"),
            "FieldValueNotFound",
            'spec.volumes[0]: Not found: "v"',
            id="not-found",
        ),
        pytest.param(
            FieldError.too_many("spec.items", 5, 3),
            "FieldValueTooMany",
            "spec.items: Too many: 5: must have at most 3 items",
            id="too-many",
        ),
        pytest.param(
            FieldError.too_many("spec.items", -1, -1),
            "FieldValueTooMany",
            "spec.items: Too many: has too many items",
            id="too-many-unknown",
        ),
        pytest.param(
            FieldError.internal("metadata.name", "boom"),
            "InternalError",
            "metadata.name: Internal error: boom",
            id="internal",
        ),
        pytest.param(
            FieldError("Invalid value", "spec", OMITTED, "detail only"),
            "FieldValueInvalid",
            "spec: Invalid value: detail only",
            id="omitted-value",
        ),
    ],
)
def test_field_error_rendering(error: FieldError, reason: str, text: str) -> None:
    assert error.reason == reason
    assert str(error) == text
    assert error.message == text.split(": ", 1)[1]


@pytest.mark.parametrize(
    ("errors", "text"),
    [
        pytest.param([], "", id="none"),
        pytest.param([FieldError.required("a")], "a: Required value", id="one"),
        pytest.param(
            [FieldError.required("a"), FieldError.forbidden("b", "no")],
            "[a: Required value, b: Forbidden: no]",
            id="two",
        ),
        pytest.param(
            [FieldError.required("a"), FieldError.required("a")],
            "a: Required value",
            id="duplicates-collapse",
        ),
    ],
)
def test_aggregate_message(errors: list[FieldError], text: str) -> None:
    assert aggregate_message(errors) == text


# -- ValidateObjectMeta ------------------------------------------------------------------------------


def _meta(**fields: Any) -> dict[str, Any]:
    return {"name": "web", "namespace": "default", **fields}


@pytest.mark.parametrize(
    ("meta", "namespaced", "name_rule", "expected"),
    [
        pytest.param(_meta(), True, "subdomain", [], id="valid"),
        pytest.param(
            _meta(labels={"app": "web", "example.com/tier": ""}, annotations={"Example.com/Note": "x" * 100}),
            True,
            "subdomain",
            [],
            id="valid-labels-and-annotations",
        ),
        pytest.param(
            {"name": "", "namespace": "default"},
            True,
            "subdomain",
            ["metadata.name: Required value: name or generateName is required"],
            id="missing-name",
        ),
        pytest.param(
            _meta(name="Foo_"),
            True,
            "subdomain",
            [f'metadata.name: Invalid value: "Foo_": {SUBDOMAIN_MSG}'],
            id="bad-subdomain-name",
        ),
        pytest.param(
            {"name": "a.b"},
            False,
            "label",
            ['metadata.name: Invalid value: "a.b": must not contain dots'],
            id="label",
        ),
        pytest.param(
            _meta(name="1svc"),
            True,
            "label1035",
            [f'metadata.name: Invalid value: "1svc": {LABEL_1035_MSG}'],
            id="label1035",
        ),
        pytest.param(_meta(name="system:Admins"), True, "path", [], id="path-allows-anything-else"),
        pytest.param(
            _meta(name=".."),
            True,
            "path",
            ["metadata.name: Invalid value: \"..\": may not be '..'"],
            id="path-dotdot",
        ),
        pytest.param(
            _meta(name="any/thing"),
            False,
            "none",
            ["metadata.namespace: Forbidden: not allowed on this type"],
            id="no-name-rule",
        ),
        pytest.param(_meta(generateName="web-"), True, "subdomain", [], id="generate-name-dash-allowed"),
        pytest.param(
            _meta(generateName="Web-"),
            True,
            "subdomain",
            [f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN_MSG}'],
            id="generate-name-masked-then-checked",
        ),
        pytest.param(_meta(generateName=".-"), True, "path", [], id="generate-name-path-prefix"),
        pytest.param(
            {"name": "web"},
            True,
            "subdomain",
            ["metadata.namespace: Required value"],
            id="namespace-required",
        ),
        pytest.param(
            _meta(),
            False,
            "subdomain",
            ["metadata.namespace: Forbidden: not allowed on this type"],
            id="namespace-forbidden",
        ),
        pytest.param(
            _meta(namespace="Kube_System"),
            True,
            "subdomain",
            [f'metadata.namespace: Invalid value: "Kube_System": {LABEL_1123_MSG}'],
            id="bad-namespace",
        ),
        pytest.param(
            _meta(generation=-1),
            True,
            "subdomain",
            ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"],
            id="negative-generation",
        ),
        pytest.param(
            _meta(labels={"b_": "ok", "a": "-bad"}),
            True,
            "subdomain",
            [
                f'metadata.labels: Invalid value: "-bad": {LABEL_VALUE_MSG}',
                f'metadata.labels: Invalid value: "b_": {NAME_PART_MSG}',
            ],
            id="labels-sorted-by-key",
        ),
        pytest.param(
            _meta(annotations={"A_": "x"}),
            True,
            "subdomain",
            [f'metadata.annotations: Invalid value: "A_": {NAME_PART_MSG}'],
            id="annotation-key-keeps-case-in-value",
        ),
        pytest.param(
            _meta(annotations={"big": "x" * (256 * 1024)}),
            True,
            "subdomain",
            ["metadata.annotations: Too long: may not be more than 262144 bytes"],
            id="annotations-too-big",
        ),
        pytest.param(
            _meta(annotations={"k": "x" * (256 * 1024 - 1)}), True, "subdomain", [], id="annotations-at-limit"
        ),
        pytest.param(
            _meta(finalizers=["example.com/cleanup", "kubernetes", "orphan"]),
            True,
            "subdomain",
            [],
            id="finalizers-valid",
        ),
        pytest.param(
            _meta(finalizers=["cleanup"]),
            True,
            "subdomain",
            [f'metadata.finalizers[0]: Invalid value: "cleanup": {NON_STANDARD_FINALIZER}'],
            id="finalizer-not-standard",
        ),
        pytest.param(
            _meta(finalizers=["a/b/c"]),
            True,
            "subdomain",
            [f'metadata.finalizers: Invalid value: "a/b/c": {LABEL_KEY_MSG}'],
            id="finalizer-not-qualified",
        ),
        pytest.param(
            _meta(finalizers=["orphan", "foregroundDeletion"]),
            True,
            "subdomain",
            [
                'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: '
                "finalizer orphan and foregroundDeletion cannot be both set"
            ],
            id="finalizers-conflict",
        ),
        pytest.param(
            _meta(ownerReferences=[{}]),
            True,
            "subdomain",
            [
                'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
                'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
                'metadata.ownerReferences.name: Invalid value: "": must not be empty',
                'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
            ],
            id="owner-reference-empty",
        ),
        pytest.param(
            _meta(ownerReferences=[{"apiVersion": "apps/", "kind": "ReplicaSet", "name": "rs", "uid": "1"}]),
            True,
            "subdomain",
            ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty'],
            id="owner-reference-group-without-version",
        ),
        pytest.param(
            _meta(ownerReferences=[{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1"}]),
            True,
            "subdomain",
            [
                "metadata.ownerReferences: Invalid value: "
                '{"apiVersion":"v1","kind":"Event","name":"e","uid":"1"}: '
                "/v1, Kind=Event is disallowed from being an owner"
            ],
            id="event-owner",
        ),
        pytest.param(
            _meta(
                ownerReferences=[
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": "a",
                        "uid": "1",
                        "controller": True,
                    },
                    {
                        "apiVersion": "apps/v1",
                        "kind": "ReplicaSet",
                        "name": "b",
                        "uid": "2",
                        "controller": True,
                    },
                ]
            ),
            True,
            "subdomain",
            [
                "metadata.ownerReferences: Invalid value: "
                '[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},'
                '{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"2",'
                '"controller":true}]: Only one reference can have Controller set to true. Found "true" in '
                "references for ReplicaSet/a and ReplicaSet/b"
            ],
            id="two-controllers",
        ),
        pytest.param(
            _meta(managedFields=[{"manager": "m" * 129, "operation": "Patch", "fieldsType": "FieldsV2"}]),
            True,
            "subdomain",
            [
                'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
                'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
                "metadata.managedFields[0].manager: Too long: may not be more than 128 bytes",
            ],
            id="managed-fields",
        ),
        pytest.param(
            _meta(managedFields=[{"manager": "k\x07", "operation": "Apply"}]),
            True,
            "subdomain",
            [
                'metadata.managedFields[0].manager: Invalid value: "k\\a": '
                "invalid character U+0007 (at position 1)"
            ],
            id="manager-not-printable",
        ),
    ],
)
def test_validate_object_meta(
    meta: dict[str, Any], namespaced: bool, name_rule: str, expected: list[str]
) -> None:
    assert [
        str(e) for e in validate_object_meta(meta, namespaced=namespaced, name_rule=name_rule)
    ] == expected


def test_custom_resources_skip_the_standard_finalizer_rule() -> None:
    meta = _meta(finalizers=["cleanup"])
    assert validate_object_meta(meta, namespaced=True, name_rule="subdomain", kube_finalizers=False) == []


def test_object_meta_error_fields_and_reasons() -> None:
    errors = validate_object_meta(
        {"namespace": "x"}, namespaced=False, name_rule="subdomain", path="spec.meta"
    )
    assert [(e.field, e.reason, e.message) for e in errors] == [
        ("spec.meta.name", "FieldValueRequired", "Required value: name or generateName is required"),
        ("spec.meta.namespace", "FieldValueForbidden", "Forbidden: not allowed on this type"),
    ]


# -- ValidateObjectMetaUpdate ------------------------------------------------------------------------

_OLD: dict[str, Any] = {
    "name": "web",
    "namespace": "default",
    "uid": "u-1",
    "resourceVersion": "7",
    "generation": 2,
    "creationTimestamp": "2024-01-01T00:00:00Z",
}


def _new(**changes: Any) -> dict[str, Any]:
    meta = {**_OLD, **changes}
    return {k: v for k, v in meta.items() if v is not None}


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(_new(), _OLD, [], id="unchanged"),
        pytest.param(_new(labels={"a": "b"}, generation=3), _OLD, [], id="allowed-changes"),
        pytest.param(
            _new(creationTimestamp="2024-01-01T00:00:00+00:00"), _OLD, [], id="same-instant-other-spelling"
        ),
        pytest.param(
            _new(resourceVersion=None),
            _OLD,
            ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
            id="resource-version-required",
        ),
        pytest.param(
            _new(generation=1),
            _OLD,
            ["metadata.generation: Invalid value: 1: must not be decremented"],
            id="generation-decremented",
        ),
        pytest.param(
            _new(name="other", namespace="ns2", uid="u-2"),
            _OLD,
            [
                'metadata.name: Invalid value: "other": field is immutable',
                'metadata.namespace: Invalid value: "ns2": field is immutable',
                'metadata.uid: Invalid value: "u-2": field is immutable',
            ],
            id="identity-immutable",
        ),
        pytest.param(
            _new(creationTimestamp=None),
            _OLD,
            ["metadata.creationTimestamp: Invalid value: null: field is immutable"],
            id="creation-timestamp-dropped",
        ),
        pytest.param(
            _new(creationTimestamp="2025-01-01T00:00:00Z"),
            _OLD,
            ['metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable'],
            id="creation-timestamp-changed",
        ),
        pytest.param(
            _new(deletionTimestamp="2024-02-02T00:00:00Z", deletionGracePeriodSeconds=30),
            _OLD,
            [
                'metadata.deletionTimestamp: Invalid value: "2024-02-02T00:00:00Z": field is immutable',
                "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable",
            ],
            id="deletion-fields-set",
        ),
        pytest.param(
            _new(),
            {**_OLD, "deletionTimestamp": "2024-02-02T00:00:00Z", "deletionGracePeriodSeconds": 0},
            [
                'metadata.deletionTimestamp: Invalid value: "null": field is immutable',
                'metadata.deletionGracePeriodSeconds: Invalid value: "null": field is immutable',
            ],
            id="deletion-fields-cleared",
        ),
        pytest.param(
            _new(finalizers=["a.io/x", "b.io/y", "c.io/z"], deletionTimestamp="2024-02-02T00:00:00Z"),
            {**_OLD, "finalizers": ["b.io/y"], "deletionTimestamp": "2024-02-02T00:00:00Z"},
            [
                "metadata.finalizers: Forbidden: no new finalizers can be added "
                "if the object is being deleted, "
                'found new finalizers []string{"a.io/x", "c.io/z"}'
            ],
            id="no-new-finalizers-while-deleting",
        ),
        pytest.param(_new(finalizers=["a.io/x"]), _OLD, [], id="new-finalizers-fine-when-not-deleting"),
        pytest.param(
            _new(labels={"a": "b c"}, finalizers=["cleanup"]),
            _OLD,
            [
                f'metadata.labels: Invalid value: "b c": {LABEL_VALUE_MSG}',
                f'metadata.finalizers[0]: Invalid value: "cleanup": {NON_STANDARD_FINALIZER}',
            ],
            id="new-metadata-checked",
        ),
    ],
)
def test_validate_object_meta_update(new: dict[str, Any], old: dict[str, Any], expected: list[str]) -> None:
    assert [str(e) for e in validate_object_meta_update(new, old)] == expected
