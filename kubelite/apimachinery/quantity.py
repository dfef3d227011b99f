"""resource.Quantity: parse, compare and print quantities exactly as k8s.io/apimachinery does.

A quantity (`500m`, `1.5Gi`, `2e3`) is decoded by kube into a value plus a format (DecimalSI, BinarySI or
DecimalExponent) and is written back as `Quantity.String()`. That string is what clients see after a
write: kube keeps the text that was sent only when its parser judged it already canonical (`100m`, `1Gi`),
and otherwise prints the canonical form (`0.5` -> `500m`, `1000m` -> `1`, `1536Mi` stays, `1.5Gi` ->
`1536Mi`). Values are exact here (`Fraction`), as they are in Go's int64/inf.Dec pair; anything finer than a
nano is rounded up, away from zero, as `ParseQuantity` does.

Parse failures carry kube's three error texts, which the API returns inside its decode errors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final, Literal

from kubelite.apimachinery import gofmt

Format = Literal["DecimalSI", "BinarySI", "DecimalExponent"]

ERR_FORMAT_WRONG: Final = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
ERR_NUMERIC: Final = "unable to parse numeric part of quantity"
ERR_SUFFIX: Final = "unable to parse quantity's suffix"
#: the largest decimal exponent accepted (kube takes any int32; see `_interpret`)
MAX_EXPONENT: Final = 1000

_DECIMAL_SUFFIXES: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_NAMES: Final = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIXES: Final = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BINARY_NAMES: Final = {exponent: suffix for suffix, exponent in _BINARY_SUFFIXES.items()} | {0: ""}
_SUFFIX_CHARS: Final = frozenset("eEinumkKMGTP")
_DIGITS: Final = frozenset("0123456789")

_INT64_MAX: Final = 2**63 - 1
_NANO: Final = 10**9


class QuantityError(ValueError):
    """A quantity kube's parser rejects; str() is kube's message."""


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity: its exact value, its format, and the text kube keeps when it was canonical."""

    value: Fraction
    format: Format = "DecimalSI"
    cached: str | None = None

    def __str__(self) -> str:
        if self.cached is not None:
            return self.cached
        return _canonical(self.value, self.format)

    # -- comparisons (Quantity.Cmp) ------------------------------------------------------------------

    def cmp(self, other: Quantity) -> int:
        return (self.value > other.value) - (self.value < other.value)

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __le__(self, other: Quantity) -> bool:
        return self.value <= other.value

    def __gt__(self, other: Quantity) -> bool:
        return self.value > other.value

    def __ge__(self, other: Quantity) -> bool:
        return self.value >= other.value

    def is_zero(self) -> bool:
        return self.value == 0

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    # -- scaled integers -----------------------------------------------------------------------------

    def scaled_value(self, scale: int) -> int:
        """Quantity.ScaledValue: the value in units of 10^scale, rounded away from zero."""
        return _round_away(self.value / Fraction(10) ** scale)

    def int_value(self) -> int:
        """Quantity.Value()."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Quantity.MilliValue()."""
        return self.scaled_value(-3)

    def round_up(self, scale: int) -> Quantity:
        """Quantity.RoundUp: keep at most `scale` decimal places, rounding away from zero. An unchanged value
        keeps its text; a rounded one is printed canonically."""
        unit = Fraction(10) ** scale
        rounded = _round_away(self.value / unit) * unit
        if rounded == self.value:
            return self
        return Quantity(rounded, self.format)


def _round_away(value: Fraction) -> int:
    whole = value.numerator // value.denominator  # floor, already away from zero for negatives
    return whole + 1 if value > 0 and whole != value else whole


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: sign, numeric text, numerator, denominator and suffix, as kube cuts them."""
    positive = True
    pos, end = 0, len(text)
    if text[0] == "-":
        positive, pos = False, 1
    elif text[0] == "+":
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:] or "0", "", ""
    num = text[start:pos] or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, Format]:
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = _parse_go_int(suffix[1:])
        # kube keeps the exponent as a scale and never expands it; exact fractions here would: an exponent no
        # resource can use (a googol has 100 digits) is refused before it costs seconds and megabytes
        if exponent is not None and abs(exponent) <= MAX_EXPONENT:
            return 10, exponent, "DecimalExponent"
    raise QuantityError(ERR_SUFFIX)


def _parse_go_int(text: str) -> int | None:
    # strconv.ParseInt(s, 10, 64): an optional sign, then at least one digit
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not set(digits) <= _DIGITS:
        return None
    value = int(text)
    return value if -(2**63) <= value <= _INT64_MAX else None


@lru_cache(maxsize=4096)  # quantities are immutable and a cluster writes the same few ("100m", "128Mi") over and over
def parse_quantity(text: str) -> Quantity:
    """resource.ParseQuantity; raises QuantityError with kube's message."""
    if not text:
        raise QuantityError(ERR_FORMAT_WRONG)
    if text == "0":
        return Quantity(Fraction(0), "DecimalSI", "0")
    positive, value_text, num, denom, suffix = _split(text)
    base, exponent, fmt = _interpret(suffix)

    fast = _parse_fast(text, positive, num, denom, exponent, fmt)
    if fast is not None:
        return fast

    try:
        amount = Fraction(value_text.rstrip(".") if value_text.endswith(".") else value_text)
    except (ValueError, ZeroDivisionError) as exc:
        raise QuantityError(ERR_NUMERIC) from exc
    amount *= Fraction(10) ** exponent if base == 10 else Fraction(2) ** exponent
    negative = amount < 0
    amount = abs(amount)
    if amount != 0:
        # anything finer than a nano is rounded up: asking for some resource gets some
        amount = Fraction(-(-amount.numerator * _NANO // amount.denominator), _NANO)
    if fmt == "BinarySI" and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if fmt == "BinarySI" and 0 < amount < 1:
        fmt = "DecimalSI"
    return Quantity(-amount if negative else amount, fmt)


def int64_amount(positive: bool, num: str, denom: str, exponent: int, fmt: Format) -> tuple[int, int, bool] | None:
    """ParseQuantity's int64 path: (value, decimal scale, whether the text is kept as the canonical string), or
    None where kube falls back to its inf.Dec path."""
    mantissa = 1
    if fmt == "BinarySI":
        if exponent < 0 or denom:
            return None
        mantissa = 1 << exponent
        # Go computes float32(exponent)*3/10 and truncates it
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < -9:
        return None
    shifted = num + denom
    digits = int(shifted)
    result = digits * mantissa
    if result > _INT64_MAX:
        return None
    if fmt == "BinarySI":
        canonical = exponent % 10 == 0 and digits & 0x07 != 0
    else:
        canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return (result if positive else -result), scale, canonical


def _parse_fast(text: str, positive: bool, num: str, denom: str, exponent: int, fmt: Format) -> Quantity | None:
    """ParseQuantity's int64 path: the value, and the original text when it is already canonical."""
    amount = int64_amount(positive, num, denom, exponent, fmt)
    if amount is None:
        return None
    result, scale, canonical = amount
    return Quantity(Fraction(result) * Fraction(10) ** scale, fmt, text if canonical else None)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    negative, value, times = value < 0, abs(value), 0
    while value >= base and value % base == 0:
        value //= base
        times += 1
    return (-value if negative else value), times


def _canonical_decimal(value: Fraction, fmt: Format) -> str:
    # every value has been rounded to nanos, so value * 1e9 is whole
    mantissa, exponent = _remove_factors(int(value * _NANO), 10)
    exponent -= 9
    shift = exponent % 3  # down to a multiple of three, as Go's AsCanonicalBytes moves it
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if fmt == "DecimalSI" and exponent in _DECIMAL_NAMES:
        return f"{mantissa}{_DECIMAL_NAMES[exponent]}"
    return f"{mantissa}" if exponent == 0 else f"{mantissa}e{exponent}"


def _canonical(value: Fraction, fmt: Format) -> str:
    """Quantity.CanonicalizeBytes."""
    if value == 0:
        return "0"
    if fmt == "BinarySI" and (-1024 < value < 1024 or value.denominator != 1):
        fmt = "DecimalSI"
    if fmt != "BinarySI":
        return _canonical_decimal(value, fmt)
    mantissa, times = _remove_factors(int(value), 1024)
    if times * 10 not in _BINARY_NAMES:
        return _canonical_decimal(value, "DecimalSI")
    return f"{mantissa}{_BINARY_NAMES[times * 10]}"


def quantity_from_json(raw: object) -> Quantity:
    """Quantity.UnmarshalJSON of a decoded JSON value: a string (trimmed) or a number, read in the text
    encoding/json writes it in (its format, exponent or not, is the quantity's format)."""
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise QuantityError(ERR_FORMAT_WRONG)
    if isinstance(raw, float) and not math.isfinite(raw):
        raise QuantityError(ERR_FORMAT_WRONG)
    text = raw.strip() if isinstance(raw, str) else gofmt.float_json(raw) if isinstance(raw, float) else str(raw)
    return parse_quantity(text)


def canonical_string(raw: object) -> str:
    """How kube writes back a quantity it decoded from `raw`."""
    return str(quantity_from_json(raw))


def must_parse(text: str) -> Quantity:
    """resource.MustParse for constants in code."""
    return parse_quantity(text)


__all__ = [
    "ERR_FORMAT_WRONG",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "Quantity",
    "QuantityError",
    "canonical_string",
    "must_parse",
    "parse_quantity",
    "quantity_from_json",
]
