"""A custom resource's Table: the column definitions and cells kube's apiextensions-apiserver computes from a
CRD version's additionalPrinterColumns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest

from kubelite.apiextensions.tableconvertor import (
    DEFAULT_COLUMNS,
    rfc3339_nanoseconds,
    scale_table,
    table_for,
    validate_column_path,
)
from kubelite.endpoints.handlers.table import to_table
from kubelite.registry.tables import descriptions as d

NOW = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)

NAME_DEFINITION = {"name": "Name", "type": "string", "format": "name", "description": d.OBJECT_NAME, "priority": 0}
AGE_DEFINITION = {"name": "Age", "type": "date", "format": "", "description": d.CREATION_TIMESTAMP, "priority": 0}


def ago(seconds: float) -> str:
    return (NOW - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def cell(type_: str, value: Any, *, path: str = ".spec.value") -> Any:
    """The cell of one column of `type_` over an object whose `spec.value` is `value`."""
    table = table_for([{"name": "Value", "type": type_, "jsonPath": path}])
    return table.row({"metadata": {"name": "x"}, "spec": {"value": value}}, NOW)[1]


# -- column definitions -------------------------------------------------------------------------------------


def test_without_columns_kube_prints_name_and_age() -> None:
    table = table_for([])
    assert table.columns == [NAME_DEFINITION, AGE_DEFINITION]
    obj = {"metadata": {"name": "web", "creationTimestamp": ago(300)}}
    assert table.row(obj, NOW) == ["web", "5m"]
    assert DEFAULT_COLUMNS[0]["jsonPath"] == ".metadata.creationTimestamp"


def test_declared_columns_follow_name_with_their_type_format_description_and_priority() -> None:
    table = table_for(
        [
            {"name": "Replicas", "type": "integer", "format": "int32", "jsonPath": ".spec.replicas", "priority": 1},
            {"name": "Phase", "type": "string", "description": "The phase.", "jsonPath": ".status.phase"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
        ]
    )
    assert table.columns == [
        NAME_DEFINITION,
        {
            "name": "Replicas",
            "type": "integer",
            "format": "int32",
            "description": "Custom resource definition column (in JSONPath format): .spec.replicas",
            "priority": 1,
        },
        {"name": "Phase", "type": "string", "format": "", "description": "The phase.", "priority": 0},
        {
            "name": "Age",
            "type": "date",
            "format": "",
            "description": "Custom resource definition column (in JSONPath format): .metadata.creationTimestamp",
            "priority": 0,
        },
    ]
    obj = {"metadata": {"name": "db", "creationTimestamp": ago(7200)}, "spec": {"replicas": 3}}
    # kube prints every column, priority 1 included; kubectl drops those it does not show
    assert table.row(obj, NOW) == ["db", 3, None, "120m"]


def test_declared_columns_replace_the_default_age() -> None:
    table = table_for([{"name": "Size", "type": "string", "jsonPath": ".spec.size"}])
    assert [column["name"] for column in table.columns] == ["Name", "Size"]


def test_columns_stop_at_a_path_that_does_not_compile() -> None:
    table = table_for(
        [
            {"name": "A", "type": "string", "jsonPath": ".spec.a"},
            {"name": "Bad", "type": "string", "jsonPath": ".spec.items["},
            {"name": "C", "type": "string", "jsonPath": ".spec.c"},
        ]
    )
    assert [column["name"] for column in table.columns] == ["Name", "A"]
    assert table.row({"metadata": {"name": "x"}, "spec": {"a": "1", "c": "3"}}, NOW) == ["x", "1"]


def test_a_first_path_that_does_not_compile_leaves_name_alone() -> None:
    table = table_for([{"name": "Bad", "type": "string", "jsonPath": ".spec[?(@.x"}])
    assert table.columns == [NAME_DEFINITION]
    assert table.row({"metadata": {"name": "x"}}, NOW) == ["x"]


def test_column_definitions_encode_as_kube_sends_them() -> None:
    table = table_for([{"name": "Ready", "type": "boolean", "jsonPath": ".status.ready", "priority": 0}])
    assert orjson.loads(orjson.dumps(table.columns))[1] == {
        "name": "Ready",
        "type": "boolean",
        "format": "",
        "description": "Custom resource definition column (in JSONPath format): .status.ready",
        "priority": 0,
    }


def test_scale_table() -> None:
    table = scale_table()
    assert [(c["name"], c["type"], c["description"]) for c in table.columns[1:3]] == [
        ("Desired", "integer", "Number of desired replicas"),
        ("Available", "integer", "Number of actual replicas"),
    ]
    assert table.columns[3] == AGE_DEFINITION
    scale = {"metadata": {"name": "web", "creationTimestamp": ago(60)}, "spec": {"replicas": 3}, "status": {}}
    assert table.row(scale, NOW) == ["web", 3, None, "60s"]


# -- cells -------------------------------------------------------------------------------------------------

CELLS = [
    ("integer", 42, 42),
    ("integer", 3.14, 3),
    ("integer", -3.9, -3),
    ("integer", True, None),
    ("integer", "42", None),
    ("integer", {"a": 1}, None),
    ("integer", 2**70, -(2**63)),
    ("number", 42, 42),
    ("number", 3.14, 3.14),
    ("number", 2.0, 2),
    ("number", 1e300, 1e300),
    ("number", False, None),
    ("number", "3.14", None),
    ("boolean", True, True),
    ("boolean", False, False),
    ("boolean", 1, None),
    ("boolean", "true", None),
    ("string", "foo", "foo"),
    ("string", "", ""),
    ("string", 42, "42"),
    ("string", 3.14, "3.14"),
    ("string", 1e6, "1e+06"),
    ("string", True, "true"),
    ("string", None, "<no value>"),
    ("string", ["foo", "bar"], '["foo","bar"]'),
    ("string", {"b": 1, "a": "<x>"}, '{"a":"\\u003cx\\u003e","b":1}'),
    ("date", 42, None),
    ("date", True, None),
    ("date", None, None),
    ("date", "", "<unknown>"),
    ("date", "null", "<unknown>"),
    ("date", "0001-01-01T00:00:00Z", "<unknown>"),
    ("date", "0001-01-01T01:00:00+01:00", "<unknown>"),
    ("date", "0000-01-01T00:00:00Z", "2026y"),
    ("date", "2025-06-01T11:00:00.Z", "<invalid>"),
    ("date", "2025-06-01T11:00:0\uff10Z", "<invalid>"),
    ("date", "yesterday", "<invalid>"),
    ("date", "2025-06-01", "<invalid>"),
    ("date", "2025-02-30T00:00:00Z", "<invalid>"),
    ("date", "2025-06-01 11:00:00Z", "<invalid>"),
    ("date", "2025-06-01T11:00:00z", "<invalid>"),
    ("date", "2025-06-01T11:00:00", "<invalid>"),
    ("date", "2025-06-01T11:00:00Zjunk", "<invalid>"),
    ("date", "2025-06-01T11:30:00Z", "30m"),
    ("date", "2025-06-01T11:59:30.75Z", "29s"),
    ("date", "2025-06-01T11:59:30,75Z", "29s"),
    ("date", "2025-06-01T9:00:00Z", "3h"),
    ("date", "2025-06-01T13:30:00+02:00", "30m"),
    ("date", "2025-06-01T08:00:00-02:00", "120m"),
    ("date", "2025-06-01T01:00:00-02:00", "9h"),
    ("date", "2025-05-31T23:30:00Z", "12h"),
    ("date", "2025-06-02T00:30:00Z", "<invalid>"),
    ("date", "2025-06-01T12:00:01Z", "0s"),
    ("unknown", "foo", None),
    ("", "foo", None),
]


@pytest.mark.parametrize(("type_", "value", "expected"), CELLS, ids=[f"{c[0]}-{c[1]!r}" for c in CELLS])
def test_cells_are_typed_per_column(type_: str, value: Any, expected: Any) -> None:
    got = cell(type_, value)
    assert got == expected
    assert type(got) is type(expected)


def test_number_cells_encode_as_go_encodes_float64() -> None:
    assert orjson.dumps([cell("number", 3), cell("number", 2.0), cell("number", 0.5)]) == b"[3,2,0.5]"


def test_missing_values_are_null_cells() -> None:
    table = table_for(
        [
            {"name": "S", "type": "string", "jsonPath": ".status.phase"},
            {"name": "I", "type": "integer", "jsonPath": ".spec.replicas"},
            {"name": "D", "type": "date", "jsonPath": ".status.startTime"},
            {"name": "B", "type": "boolean", "jsonPath": ".status.ready"},
        ]
    )
    assert table.row({"metadata": {"name": "x"}}, NOW) == ["x", None, None, None, None]
    assert table.row({"metadata": {"name": "x"}, "status": "odd"}, NOW) == ["x", None, None, None, None]
    assert table.row({}, NOW) == ["", None, None, None, None]


def test_a_path_that_fails_on_the_object_is_a_null_cell() -> None:
    assert cell("string", ["a"], path=".spec.value[3]") is None
    assert cell("string", "text", path=".spec.value[0]") is None
    assert cell("string", [{"x": 1}], path=".spec.value[?(@.x==1.5)]") is None


def test_only_the_first_value_is_printed() -> None:
    obj = {"metadata": {"name": "x"}, "spec": {"servers": [{"hosts": ["foo"]}, {"hosts": ["bar", "baz"]}]}}
    table = table_for(
        [
            {"name": "First", "type": "string", "jsonPath": ".spec.servers[0].hosts[0]"},
            {"name": "One", "type": "string", "jsonPath": ".spec.servers[1].hosts"},
            {"name": "Many", "type": "string", "jsonPath": ".spec.servers[*].hosts"},
            {"name": "Hosts", "type": "string", "jsonPath": ".spec.servers[*].hosts[*]"},
        ]
    )
    assert table.row(obj, NOW) == ["x", "foo", '["bar","baz"]', '["foo"]', "foo"]


def test_filters_pick_conditions() -> None:
    table = table_for(
        [
            {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
            {"name": "Since", "type": "date", "jsonPath": '.status.conditions[?(@.type=="Ready")].lastTransitionTime'},
        ]
    )
    obj = {
        "metadata": {"name": "x"},
        "status": {
            "conditions": [
                {"type": "Synced", "status": "False"},
                {"type": "Ready", "status": "True", "lastTransitionTime": ago(90)},
            ]
        },
    }
    assert table.row(obj, NOW) == ["x", "True", "90s"]


def test_keys_with_dots_are_escaped() -> None:
    obj = {"metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web"}}}
    table = table_for([{"name": "App", "type": "string", "jsonPath": ".metadata.labels.app\\.kubernetes\\.io/name"}])
    assert table.row(obj, NOW) == ["x", "web"]


def test_rows_reuse_compiled_paths() -> None:
    table = table_for([{"name": "N", "type": "integer", "jsonPath": ".spec.n"}])
    rows = [table.row({"metadata": {"name": f"o{i}"}, "spec": {"n": i}}, NOW) for i in range(3)]
    assert rows == [["o0", 0], ["o1", 1], ["o2", 2]]


# -- the Table handler over a custom resource's TableSpec ----------------------------------------------------


def objects() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": ago(600), "uid": name},
            "spec": {"size": size},
        }
        for name, size in (("a", 1), ("b", 2))
    ]


@pytest.mark.parametrize("include_object", ["Metadata", "Object", "None"])
def test_to_table_of_custom_resources(include_object: str) -> None:
    spec = table_for([{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}])
    items = objects()
    table = to_table(spec, list(items), list_meta={"resourceVersion": "7"}, include_object=include_object)
    assert table["kind"] == "Table"
    assert table["apiVersion"] == "meta.k8s.io/v1"
    assert table["metadata"] == {"resourceVersion": "7"}
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Size"]
    assert [row["cells"] for row in table["rows"]] == [["a", 1], ["b", 2]]
    expected = {
        "Metadata": [
            {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
            for obj in items
        ],
        "Object": items,
        "None": [None, None],
    }[include_object]
    assert [row["object"] for row in table["rows"]] == expected


def test_to_table_without_headers() -> None:
    table = to_table(table_for([]), objects(), list_meta=None, include_object="None", with_headers=False)
    assert table["columnDefinitions"] is None
    assert [row["cells"][0] for row in table["rows"]] == ["a", "b"]


# -- the CRD-time check of a printer column's path ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        (".spec.replicas", None),
        (".", None),
        (".metadata.labels['app']", None),
        # kube checks only the leading dot: this is accepted, and prints no column from there on
        (".spec.items[", None),
        ("", "must not be empty"),
        ("spec.replicas", "must be a simple json path starting with ."),
        ("{.spec.replicas}", "must be a simple json path starting with ."),
        ("$.spec", "must be a simple json path starting with ."),
    ],
)
def test_validate_column_path(path: str, detail: str | None) -> None:
    assert validate_column_path(path) == detail


# -- Go's RFC 3339 reading -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:01.5Z", 1_500_000_000),
        ("1970-01-01T00:00:00.1234567891Z", 123_456_789),
        ("1970-01-01T01:00:00+01:00", 0),
        ("1969-12-31T23:59:59Z", -1_000_000_000),
        ("2000-02-29T00:00:00Z", 951_782_400_000_000_000),
        ("0000-01-01T00:00:00Z", -62_167_219_200_000_000_000),
        ("1970-01-01T00:00:00+24:00", -86_400_000_000_000),
        ("1970-01-02T00:00:00-00:60", 90_000_000_000_000),
    ],
)
def test_rfc3339_nanoseconds(text: str, nanoseconds: int) -> None:
    assert rfc3339_nanoseconds(text) == nanoseconds


@pytest.mark.parametrize(
    "text",
    [
        "1970-13-01T00:00:00Z",
        "1970-00-01T00:00:00Z",
        "2001-02-29T00:00:00Z",
        "1970-01-01T24:00:00Z",
        "1970-01-01T00:60:00Z",
        "1970-01-01T00:00:60Z",
        "1970-01-01T00:00:00+25:00",
        "1970-01-01T00:00:00+01",
        "1970-01-01T00:00:00.Z",
        "70-01-01T00:00:00Z",
        "1970-1-01T00:00:00Z",
        "\uff11970-01-01T00:00:00Z",
    ],
)
def test_rfc3339_rejects(text: str) -> None:
    assert rfc3339_nanoseconds(text) is None
