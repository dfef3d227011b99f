"""Quantities as kube prints them: `resource.Quantity.String()` of a parsed quantity string.

Table cells such as a volume's capacity or a quota's `used/hard` are the canonical form of the quantity, not
the text a client sent: `1000m` prints as `1`, `1024Mi` as `1Gi`, `0.5` as `500m`. kube keeps the original
text only when its parser's fast path judges it already canonical, and rounds anything finer than a nano up.
This module repeats that parse (`ParseQuantity`) and that formatting (`CanonicalizeBytes`) on Python integers.
"""

from __future__ import annotations

import re
from fractions import Fraction

_QUANTITY = re.compile(r"^([+-]?)0*(\d*)(?:\.(\d*))?([eEinumkKMGTP][-+]?\d*|[a-zA-Z]*)$")

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_NAMES = {exponent: suffix for suffix, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_BINARY_NAMES = {exponent // 10: suffix for suffix, exponent in _BINARY_SUFFIXES.items()}
_BINARY_NAMES[0] = ""

_INT64_MAX = 2**63 - 1
_NANO = 10**9


def _interpret(suffix: str) -> tuple[int, int, str] | None:
    """Base, exponent and format (`DecimalSI`, `BinarySI`, `DecimalExponent`) of a suffix."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], "DecimalSI"
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], "BinarySI"
    if len(suffix) > 1 and suffix[0] in "eE":
        try:
            return 10, int(suffix[1:]), "DecimalExponent"
        except ValueError:
            return None
    return None


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    negative, value, times = value < 0, abs(value), 0
    while value >= base and value % base == 0:
        value //= base
        times += 1
    return (-value if negative else value), times


def _decimal(value: Fraction, fmt: str) -> str:
    # value has been rounded to nano precision, so value * 1e9 is whole
    mantissa, exponent = _remove_factors(int(value * _NANO), 10)
    exponent -= 9
    shift = exponent % 3
    mantissa, exponent = mantissa * 10**shift, exponent - shift
    if fmt == "DecimalSI" and exponent in _DECIMAL_NAMES:
        suffix = _DECIMAL_NAMES[exponent]
    else:
        suffix = "" if exponent == 0 else f"e{exponent}"
    return f"{mantissa}{suffix}"


def _canonical(value: Fraction, fmt: str) -> str:
    if value == 0:
        return "0"
    if fmt == "BinarySI" and (-1024 < value < 1024 or value.denominator != 1):
        fmt = "DecimalSI"
    if fmt != "BinarySI":
        return _decimal(value, fmt)
    mantissa, exponent = _remove_factors(int(value), 1024)
    if exponent not in _BINARY_NAMES:
        return _decimal(value, "DecimalSI")
    return f"{mantissa}{_BINARY_NAMES[exponent]}"


def _round_up_to_nano(value: Fraction) -> Fraction:
    scaled = abs(value) * _NANO
    whole = -(-scaled.numerator // scaled.denominator)
    return Fraction(whole if value >= 0 else -whole, _NANO)


def canonical_quantity(raw: object) -> str:
    """`Quantity.String()` of `raw`; text kube could not parse is returned unchanged."""
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        return "<nil>" if raw is None else str(raw)
    text = str(raw).strip()
    if text == "0":
        return text
    match = _QUANTITY.match(text)
    interpreted = _interpret(match.group(4)) if match else None
    if match is None or interpreted is None or not any(ch.isdigit() for ch in text[: match.start(4)]):
        return text
    sign, num, denom, _suffix = match.groups()
    num, denom = num or "0", denom or ""
    base, exponent, fmt = interpreted
    cached = _fast_path_keeps_text(num, denom, exponent, fmt)
    if cached:
        return text
    digits = Fraction(int(num + denom), 10 ** len(denom))
    value = digits * (Fraction(10) ** exponent if base == 10 else Fraction(2) ** exponent)
    if sign == "-":
        value = -value
    value = _round_up_to_nano(value)
    if fmt == "BinarySI" and 0 < abs(value) < 1:
        fmt = "DecimalSI"
    return _canonical(value, fmt)


def _fast_path_keeps_text(num: str, denom: str, exponent: int, fmt: str) -> bool:
    """Whether kube's parser keeps the original text as the quantity's cached string form."""
    if fmt == "BinarySI":
        if exponent < 0 or denom:
            return False
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision = 18 - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return False
    scale -= len(denom)
    if scale < -9:
        return False
    shifted = num + denom
    value = int(shifted)
    if value * (2**exponent if fmt == "BinarySI" else 1) > _INT64_MAX:
        return False
    if fmt == "BinarySI":
        return exponent % 10 == 0 and value & 0x07 != 0
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
