"""Go's value printing, checked against the rules of Go's fmt, strconv and encoding/json documentation
(expected texts are what Go prints for the same values)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kubelite.apimachinery import gofmt


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (-0.0, "-0"),
        (1.0, "1"),
        (100.0, "100"),
        (-3.25, "-3.25"),
        (0.1, "0.1"),
        (999999.0, "999999"),
        (999999.5, "999999.5"),
        # shortest precision: %g decides with precision 6, so exponent 6 is already exponent form
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (123456789.0, "1.23456789e+08"),
        (1e20, "1e+20"),
        (1e21, "1e+21"),
        (2.0**70, "1.1805916207174113e+21"),
        (0.0001, "0.0001"),
        (0.00012, "0.00012"),
        (1e-5, "1e-05"),
        (1.5e-5, "1.5e-05"),
        (1e-7, "1e-07"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
        (math.nan, "NaN"),
    ],
)
def test_float_v(value: float, text: str) -> None:
    assert gofmt.float_v(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0"),
        (1.0, "1"),
        (1.5, "1.5"),
        (1e6, "1000000"),
        (1e20, "100000000000000000000"),
        (2.0**64, "18446744073709552000"),
        # exponent form from 1e21, and below 1e-6, with a short negative exponent
        (1e21, "1e+21"),
        (2.0**70, "1.1805916207174113e+21"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (-2.5e-10, "-2.5e-10"),
    ],
)
def test_float_json(value: float, text: str) -> None:
    assert gofmt.float_json(value) == text


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_float_json_refuses_what_json_cannot_hold(value: float) -> None:
    with pytest.raises(ValueError, match="json: unsupported value"):
        gofmt.float_json(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (7, "7"),
        (2**70, "1180591620717411303424"),
        (1.0, "1"),
        ("a<b>&c", '"a\\u003cb\\u003e\\u0026c"'),
        ("line\nbreak\t\u2028", '"line\\nbreak\\t\\u2028"'),
        ("\x01é", '"\\u0001é"'),
        ("a\ud800b", '"a\ufffdb"'),
        ({"b": 1, "a": [2, None]}, '{"a":[2,null],"b":1}'),
        ([], "[]"),
        ({}, "{}"),
    ],
)
def test_json(value: Any, text: str) -> None:
    assert gofmt.json(value) == text


def test_json_keeps_struct_order_when_asked() -> None:
    assert gofmt.json({"key": "a", "operator": "In"}, sort_keys=False) == '{"key":"a","operator":"In"}'
    assert gofmt.json({"operator": "In", "key": "a"}, sort_keys=False) == '{"operator":"In","key":"a"}'


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", '"plain"'),
        ('say "hi"\\', '"say \\"hi\\"\\\\"'),
        ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
        ("\x00\x7f", '"\\x00\\x7f"'),
        ("\u00a0", '"\\u00a0"'),
        ("\U0001f600\U000e0001", '"\U0001f600\\U000e0001"'),
        ("日本", '"日本"'),
    ],
)
def test_quote(value: str, text: str) -> None:
    assert gofmt.quote(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "<nil>"),
        (True, "true"),
        (3, "3"),
        (1e6, "1e+06"),
        (2.5, "2.5"),
        ("bare", "bare"),
        ([1, "a", None], "[1 a <nil>]"),
        ({"b": {"c": 1}, "a": [1, 2]}, "map[a:[1 2] b:map[c:1]]"),
        ({}, "map[]"),
        ([], "[]"),
    ],
)
def test_v(value: Any, text: str) -> None:
    assert gofmt.v(value) == text


def test_v_with_another_nil_text() -> None:
    assert gofmt.v({"a": None}, nil="null") == "map[a:null]"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("text", "text"),
        (None, "%!s(<nil>)"),
        (1, "%!s(int64=1)"),
        (1.5, "%!s(float64=1.5)"),
        (True, "%!s(bool=true)"),
        ([1], "%!s([]interface {}=[1])"),
        ({"a": 1}, "%!s(map[string]interface {}=map[a:1])"),
    ],
)
def test_s(value: Any, text: str) -> None:
    assert gofmt.s(value) == text


@pytest.mark.parametrize(
    ("value", "go_type", "json_type"),
    [
        (None, "<nil>", "string"),
        (False, "bool", "bool"),
        (1, "int64", "number"),
        (1.5, "float64", "number"),
        ("x", "string", "string"),
        ([], "[]interface {}", "array"),
        ({}, "map[string]interface {}", "object"),
    ],
)
def test_type_names(value: Any, go_type: str, json_type: str) -> None:
    assert gofmt.type_name(value) == go_type
    assert gofmt.json_type(value) == json_type


def test_sharp_v_strings() -> None:
    assert gofmt.sharp_v_strings(["a", 'b"']) == '[]string{"a", "b\\""}'
    assert gofmt.sharp_v_strings([]) == "[]string{}"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("web", '"web"'),
        (80, "80"),
        (1.5, "1.5"),
        (None, "null"),
        ({"name": "a", "port": 80}, 'name="a"port=80'),
        ([1, "b"], '[1,"b"]'),
    ],
)
def test_smd_string(value: Any, text: str) -> None:
    assert gofmt.smd_string(value) == text


@pytest.mark.parametrize(
    ("char", "text"),
    [("x", "'x'"), ("'", "'\\''"), ('"', "'\"'"), ("\x01", "'\\x01'"), ("\n", "'\\n'"), ("é", "'é'")],
)
def test_json_quote_char(char: str, text: str) -> None:
    assert gofmt.json_quote_char(char) == text
