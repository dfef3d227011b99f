"""The nesting-depth check of decoded bodies at its edges: the shortest JSON texts that can be too deep, the
reused padding arrays the check encodes a value inside, and values orjson cannot encode for other reasons."""

from __future__ import annotations

import pytest

from kubelite.apimachinery import serializers

LIMIT = serializers.MAX_DEPTH


def nested_arrays(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_the_shortest_text_too_deep_is_refused() -> None:
    body = nested_arrays(LIMIT + 1)
    assert len(body) == 2 * (LIMIT + 1)
    with pytest.raises(serializers.DecodeError, match=r"^exceeded max depth$"):
        serializers.loads_json(body)


def test_the_deepest_text_allowed_is_decoded() -> None:
    value = serializers.loads_json(nested_arrays(LIMIT))
    for _ in range(LIMIT - 1):
        (value,) = value
    assert value == []


def test_brackets_inside_strings_do_not_nest() -> None:
    body = b'{"a":"' + b"{[" * 500 + b'","b":["' + b"}]" * 500 + b'"]}'
    assert serializers.loads_json(body) == {"a": "{[" * 500, "b": ["}]" * 500]}


def test_the_check_gives_the_same_answer_every_time() -> None:
    # the padding arrays are reused: a refused value must not stay inside them, nor change the next answer
    for _ in range(3):
        with pytest.raises(serializers.DecodeError):
            serializers.check_depth(_nested_lists(LIMIT + 1))
        serializers.check_depth(_nested_lists(LIMIT))
        serializers.check_depth({"a": _nested_lists(LIMIT - 1)})


def _nested_lists(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_a_yaml_integer_beyond_64_bits_does_not_hide_deep_nesting() -> None:
    # orjson stops encoding at the integer; the depth is then measured by walking the value
    head = b"big: 123456789012345678901234567890\nx: "
    with pytest.raises(serializers.DecodeError, match=r"^exceeded max depth$"):
        serializers.loads_yaml(head + nested_arrays(LIMIT))  # one level more with the document itself
    decoded = serializers.loads_yaml(head + nested_arrays(LIMIT - 1))
    # the float go-yaml makes of it, as a JSON body's is (orjson): not an integer no encoder can write
    assert decoded["big"] == 1.2345678901234568e29


@pytest.mark.parametrize("filler", [0, 5000, 100_000])
def test_depth_is_measured_in_bodies_of_every_length(filler: int) -> None:
    # short bodies are passed by their count of brackets, long ones measured by encoding
    text = b'"' + b"x" * filler + b'"'
    refused = b'{"s":' + text + b',"x":' + nested_arrays(LIMIT) + b"}"
    with pytest.raises(serializers.DecodeError, match=r"^exceeded max depth$"):
        serializers.loads_json(refused)
    allowed = b'{"s":' + text + b',"x":' + nested_arrays(LIMIT - 1) + b"}"
    assert serializers.loads_json(allowed)["s"] == "x" * filler


def test_many_brackets_do_not_make_a_body_too_deep() -> None:
    flat = b"[" + b",".join([b"{}"] * 300) + b"]"  # 301 opening brackets, two levels
    assert len(serializers.loads_json(flat)) == 300
    managed = b'{"a":"' + b"[" * 300 + b'","b":{"f:x":{},"f:y":{"f:z":{}}}}'
    assert serializers.loads_json(managed)["b"]["f:y"] == {"f:z": {}}
