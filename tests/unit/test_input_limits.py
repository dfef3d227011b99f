"""The pure logic behind kubelite's input limits: alias expansion and nesting depth in decoding, int64
query parameters, JSON patch copy sizes, and the quoting of warning headers."""

from __future__ import annotations

import codecs
import itertools

import pytest

from kubelite.apimachinery import serializers
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.patch.json_patch import CopySizeError, apply_json_patch
from kubelite.endpoints.handlers import params
from kubelite.endpoints.handlers.warnings import TOTAL_RUNES, safe_warning, warning_headers


def alias_levels(levels: int, width: int = 9) -> bytes:
    lines = ["l0: &l0 [" + ",".join(['"lol"'] * width) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"l{level}: &l{level} [" + ",".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines).encode()


@pytest.mark.parametrize("levels", [4, 5, 8, 9, 20])
def test_alias_bombs_are_refused(levels: int) -> None:
    with pytest.raises(serializers.DecodeError, match=r"^document contains excessive aliasing$"):
        serializers.loads_yaml(alias_levels(levels))


def test_few_levels_of_aliases_are_decoded_and_unshared() -> None:
    decoded = serializers.loads_yaml(alias_levels(2))
    assert len(decoded["l2"]) == 9 and decoded["l2"][0] == [["lol"] * 9] * 9
    decoded["l2"][0][0][0] = "changed"  # aliases decode into copies: a change stays where it is made
    assert decoded["l2"][1][0][0] == "lol"
    assert decoded["l1"][0][0] == "lol"


def test_many_aliases_of_small_values_in_a_large_document_are_decoded() -> None:
    # 2,000 plain entries and 200 aliases: far from go-yaml's aliased share
    document = "base: &b {x: 1}\n" + "".join(f"k{i}: v{i}\n" for i in range(2000))
    document += "".join(f"a{i}: *b\n" for i in range(200))
    decoded = serializers.loads_yaml(document.encode())
    assert decoded["a199"] == {"x": 1} and decoded["k1999"] == "v1999"


def test_merge_keys_still_merge() -> None:
    decoded = serializers.loads_yaml(b"base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n")
    assert decoded["d"] == {"x": 1, "y": 3}


def test_an_anchor_containing_itself_is_refused() -> None:
    with pytest.raises(serializers.DecodeError, match=r"^anchor value contains itself$"):
        serializers.loads_yaml(b"a: &a [1, *a]\n")


def test_a_star_in_a_plain_value_is_no_alias() -> None:
    assert serializers.loads_yaml(b"a: '*x'\nb: 2 * 3\n") == {"a": "*x", "b": "2 * 3"}


@pytest.mark.parametrize("loads", [serializers.loads_json, serializers.loads_yaml])
def test_depth_up_to_the_limit_is_decoded(loads: object) -> None:
    depth = serializers.MAX_DEPTH
    value = loads(b"[" * depth + b"]" * depth)  # type: ignore[operator]
    for _ in range(depth - 1):
        value = value[0]
    assert value == []


@pytest.mark.parametrize("loads", [serializers.loads_json, serializers.loads_yaml])
@pytest.mark.parametrize("depth", [serializers.MAX_DEPTH + 1, 1024, 1025, 50_000])
def test_deeper_nesting_is_refused(loads: object, depth: int) -> None:
    with pytest.raises(serializers.DecodeError, match="exceeded max"):
        loads(b'{"a":' * depth + b"1" + b"}" * depth)  # type: ignore[operator]


def test_depth_is_counted_in_objects_and_arrays_alike() -> None:
    half = serializers.MAX_DEPTH // 2
    serializers.loads_json(b'[{"a":' * half + b"0" + b"}]" * half)
    with pytest.raises(serializers.DecodeError):
        serializers.loads_json(b'[{"a":' * (half + 1) + b"0" + b"}]" * (half + 1))


def test_dumps_json_holds_what_orjson_cannot() -> None:
    assert serializers.dumps_json({"n": 1 << 70}) == b'{"n":1180591620717411303424}'


@pytest.mark.parametrize(
    ("text", "number"),
    [("0", 0), ("-1", -1), ("+7", 7), ("9223372036854775807", (1 << 63) - 1), ("-9223372036854775808", -(1 << 63))],
)
def test_int64_parameters(text: str, number: int) -> None:
    assert params.parse_int64(text) == number


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("9223372036854775808", "value out of range"),
        ("-9223372036854775809", "value out of range"),
        ("9" * 5000, "value out of range"),
        ("", "invalid syntax"),
        ("-", "invalid syntax"),
        ("1_0", "invalid syntax"),
        (" 1", "invalid syntax"),
        ("1.0", "invalid syntax"),
        ("\u0661", "invalid syntax"),  # an Arabic-Indic digit: int() takes it, Go does not
    ],
)
def test_int64_parameter_errors(text: str, reason: str) -> None:
    with pytest.raises(StatusError) as caught:
        params.parse_int64(text)
    assert (caught.value.code, caught.value.message) == (400, f'strconv.ParseInt: parsing "{text}": {reason}')


def test_copies_add_up_to_the_limit() -> None:
    document = {"x": "a" * 100}
    operations = [{"op": "copy", "from": "/x", "path": f"/y{i}"} for i in range(10)]
    # each copy adds the JSON of the string: 102 bytes
    assert len(apply_json_patch(document, operations, copy_size_limit=1020)) == 11
    with pytest.raises(CopySizeError) as caught:
        apply_json_patch(document, operations, copy_size_limit=1019)
    assert str(caught.value) == (
        "Unable to complete the copy, the accumulated size increase of copy is 1020, exceeding the limit 1019"
    )


def test_a_doubling_copy_chain_stops_at_the_limit() -> None:
    operations = [{"op": "add", "path": "/x", "value": {"a": "b"}}]
    operations += [{"op": "copy", "from": "/x", "path": f"/x/k{i}"} for i in range(40)]
    with pytest.raises(CopySizeError):
        apply_json_patch({}, operations, copy_size_limit=3 * 1024 * 1024)


def test_move_keeps_the_value_and_copy_does_not_share_it() -> None:
    document = {"a": {"list": [1]}}
    moved = apply_json_patch(document, [{"op": "move", "from": "/a", "path": "/b"}])
    assert moved == {"b": {"list": [1]}}
    assert document == {"a": {"list": [1]}}  # the input is never changed
    copied = apply_json_patch(
        document, [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "add", "path": "/b/list/-", "value": 2}]
    )
    assert copied == {"a": {"list": [1]}, "b": {"list": [1, 2]}}


@pytest.mark.parametrize(
    ("header", "sent"),
    [
        ('299 - "plain"', '299 - "plain"'),
        ('299 - "unknown field \\"\x01\\""', '299 - "unknown field \\"\\x01\\""'),
        ('299 - "tab\there"', '299 - "tab\\there"'),
        ('299 - "line\r\nbreak"', '299 - "line\\r\\nbreak"'),
        ('299 - "del\x7f c1\x85"', '299 - "del\\x7f c1\\u0085"'),
        ('299 - "café ✓"', '299 - "café ✓"'),
    ],
)
def test_warning_headers_carry_no_control_characters(header: str, sent: str) -> None:
    assert safe_warning(header) == sent


def test_every_control_character_is_escaped() -> None:
    for code in itertools.chain(range(0x20), range(0x7F, 0xA0)):
        escaped = safe_warning(f'299 - "{chr(code)}"')
        assert escaped.isascii() and escaped.isprintable(), (code, escaped)
        assert codecs.decode(escaped[7:-1], "unicode_escape") == chr(code)


def test_array_shifts_are_bounded() -> None:
    from kubelite.apimachinery.patch.json_patch import MAX_ARRAY_SHIFTS, ArrayShiftError

    head_inserts = [{"op": "add", "path": "/x/0", "value": 1}] * 20
    with pytest.raises(ArrayShiftError):
        apply_json_patch({"x": [0] * (MAX_ARRAY_SHIFTS // 10)}, head_inserts)
    appended = apply_json_patch({"x": [0] * 1000}, [{"op": "add", "path": "/x/-", "value": 1}] * 100)
    assert len(appended["x"]) == 1100  # appends move nothing


def test_warnings_are_written_once_and_in_full_within_the_budget() -> None:
    warnings = ['299 - "a"', '299 - "b \\"quoted\\""', '299 - "a"']
    assert warning_headers(warnings) == ['299 - "a"', '299 - "b \\"quoted\\""']


def test_warnings_over_the_budget_are_cut_as_kube_cuts_them() -> None:
    texts = [f"{i:02d}" + "x" * 998 for i in range(40)]  # 40 texts of 1,000 runes: 40,000 in all
    headers = warning_headers([f'299 - "{text}"' for text in texts])
    # past 4,096 runes every text is cut to 256, and texts stop once 4,096 runes are written again
    assert headers == [f'299 - "{text[:256]}"' for text in texts[:16]]
    assert sum(len(header) - len('299 - ""') for header in headers) == TOTAL_RUNES


def test_a_few_long_warnings_that_fit_are_not_cut() -> None:
    texts = ["é" * 2000, "ü" * 2000]
    assert warning_headers([f'299 - "{text}"' for text in texts]) == [f'299 - "{text}"' for text in texts]


def test_yaml_decodes_into_what_kube_converts_it_to() -> None:
    decoded = serializers.loads_yaml(
        b"keys: {1: a, true: b, false: c, 1.5: d, 0.1: e}\nwhen: 2020-01-01\nstamp: 2001-12-14t21:59:43.10-05:00\n"
        b"raw: !!binary aGVsbG8=\nmerged: {<<: {x: 1}, y: 2}\n"
    )
    assert decoded == {
        "keys": {"1": "a", "true": "b", "false": "c", "1.5": "d", "0.1": "e"},
        "when": "2020-01-01",
        "stamp": "2001-12-14t21:59:43.10-05:00",
        "raw": "hello",
        "merged": {"x": 1, "y": 2},
    }


@pytest.mark.parametrize(
    ("document", "message"),
    [(b"{null: 1}", "unsupported map key of type: <nil>"), (b"? [a]\n: 1\n", "found unhashable key")],
)
def test_yaml_keys_json_cannot_hold_are_refused(document: bytes, message: str) -> None:
    with pytest.raises(serializers.DecodeError, match=message):
        serializers.loads_yaml(document)
