"""Go's printing of decoded JSON values, for error messages that must read as kube's do.

kube's messages are built with Go's fmt and encoding/json: `%v` of an `interface{}` value
(`map[a:1 b:[x y]]`), `%s` of a non-string (`%!s(int64=1)`), `%q` (strconv.Quote), `%T` and
`%#v` of a `[]string`, and encoding/json's compact output (map keys sorted, HTML-safe escapes). Every
message in kubelite that shows a value the way Go does prints it through this module, so the rules
live in one place. The float rules, from Go's fmt and strconv documentation:

- `%v` of a float64 is `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits that read back as the
  same float, in exponent form when the decimal exponent is < -4 or >= 6 (with the shortest precision,
  `%g` decides with precision 6), the exponent written with a sign and at least two digits (`1e+06`,
  `1.5e-05`); `+Inf`, `-Inf`, `NaN`.
- encoding/json writes a float64 in the shortest `'f'` form, or `'e'` form when its magnitude is below
  1e-6 or at least 1e21, with a one-digit negative exponent kept short (`1e-7`, `1e+21`).

Values are what a JSON decode gives: None, bool, int (Go's int64), float (float64), str, list, dict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import orjson

__all__ = [
    "float_json",
    "float_v",
    "json",
    "json_quote_char",
    "json_type",
    "quote",
    "s",
    "sharp_v_strings",
    "smd_string",
    "type_name",
    "v",
]

# -- floats ------------------------------------------------------------------------------------------------


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-trip digits of a finite, non-zero |value| and its decimal point position
    (digits `d1 d2 ...` mean 0.d1d2... x 10^point), as strconv's shortest formatting computes them."""
    text = repr(abs(value))  # Python's repr is the shortest round-trip form too
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    shift = int(exponent) if exponent else 0
    whole = whole.lstrip("0")
    if whole:
        point = len(whole) + shift
    else:  # 0.000123: the fraction's leading zeros move the point
        point = shift - (len(fraction) - len(fraction.lstrip("0")))
    digits = (whole + fraction).lstrip("0").rstrip("0") or "0"
    return digits, point


def _fixed(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def _exponent(digits: str, point: int, min_exp_digits: int) -> str:
    exp = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):0{min_exp_digits}d}"


def float_v(value: float) -> str:
    """`%v` of a float64, which is strconv.FormatFloat(value, 'g', -1, 64)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, point = _shortest_digits(value)
    sign = "-" if value < 0 else ""
    exp = point - 1
    if exp < -4 or exp >= 6:
        return sign + _exponent(digits, point, 2)
    return sign + _fixed(digits, point)


def float_json(value: float) -> str:
    """encoding/json's text of a float64; NaN and infinities cannot be marshalled (ValueError)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"json: unsupported value: {float_v(value)}")
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, point = _shortest_digits(value)
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        return sign + _exponent(digits, point, 1)
    return sign + _fixed(digits, point)


# -- strings -----------------------------------------------------------------------------------------------

_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def quote(text: str) -> str:
    """`%q` of a string (strconv.Quote): printable runes as they are, the rest escaped."""
    out = ['"']
    for ch in text:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(escape_rune(ch))
    out.append('"')
    return "".join(out)


def escape_rune(ch: str) -> str:
    """How `%q` writes a rune it does not print as itself: `\\n`, `\\x01`, `\\u0085`, `\\U000e0001`."""
    named = _QUOTE_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x80:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def sharp_v_strings(values: Iterable[str]) -> str:
    """`%#v` of a []string: `[]string{"a", "b"}`."""
    return "[]string{" + ", ".join(quote(value) for value in values) + "}"


# -- JSON --------------------------------------------------------------------------------------------------


def _json_string(text: str) -> str:
    # orjson escapes as encoding/json does (short forms for \b \f \n \r \t, else \u00xx); Go also
    # escapes the HTML characters and the JavaScript line separators
    try:
        quoted = orjson.dumps(text).decode()
    except TypeError:  # a lone surrogate: invalid UTF-8, which encoding/json writes as U+FFFD
        quoted = orjson.dumps("".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)).decode()
    return (
        quoted.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def json(value: Any, *, sort_keys: bool = True) -> str:
    """encoding/json.Marshal's compact text: map keys sorted, HTML characters escaped, Go's floats.
    `sort_keys=False` keeps a dict's own order, for dicts that stand for a Go struct (fields in
    declaration order)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_json(value)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: str(item[0])) if sort_keys else value.items()
        return "{" + ",".join(f"{_json_string(str(k))}:{json(v, sort_keys=sort_keys)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(json(item, sort_keys=sort_keys) for item in value) + "]"
    return _json_string(str(value))


def json_quote_char(ch: str) -> str:
    """How encoding/json quotes the character its syntax errors point at (`invalid character 'x' ...`)."""
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    return "'" + quote(ch)[1:-1] + "'"


def json_type(value: Any) -> str:
    """How encoding/json names a JSON value's type in an UnmarshalTypeError (`cannot unmarshal array ...`)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string"


# -- fmt verbs of interface{} values ----------------------------------------------------------------------


def type_name(value: Any) -> str:
    """`%T` of a decoded JSON value: `int64`, `map[string]interface {}`, ...; `<nil>` for nil."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list | tuple):
        return "[]interface {}"
    return type(value).__name__


def v(value: Any, *, nil: str = "<nil>") -> str:
    """`%v` of a decoded JSON value: `map[a:1 b:[x y]]` (keys sorted), `[1 2]`, strings bare, `<nil>`.
    `nil` replaces the text of nil values (structured-merge-diff prints them as `null`)."""
    if value is None:
        return nil
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return float_v(value)
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{v(value[k], nil=nil)}" for k in sorted(value)) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(v(item, nil=nil) for item in value) + "]"
    return str(value)


def s(value: Any) -> str:
    """`%s` of a decoded JSON value: a string as it is, anything else as fmt's bad-verb form
    (`%!s(int64=1)`, `%!s(<nil>)`)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({type_name(value)}={v(value)})"


def smd_string(value: Any) -> str:
    """structured-merge-diff's value.ToString, which key values in paths and conflicts print with:
    strings quoted, maps as `k=v` pairs in their own order, lists bracketed."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return float_json(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        return "[" + ",".join(smd_string(item) for item in value) + "]"
    if isinstance(value, dict):
        return "".join(f"{key}={smd_string(item)}" for key, item in value.items())
    return str(value)
