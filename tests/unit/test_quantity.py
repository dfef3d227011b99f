"""resource.Quantity: parsing with kube's errors, the canonical string kube writes back, comparisons and the
scaled values validation uses."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubelite.apimachinery.quantity import (
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    QuantityError,
    canonical_string,
    parse_quantity,
    quantity_from_json,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        pytest.param("0", "0", id="zero"),
        pytest.param("00", "0", id="zeros"),
        pytest.param("1", "1", id="one"),
        pytest.param("100m", "100m", id="canonical-milli-kept"),
        pytest.param("1000m", "1", id="milli-to-whole"),
        pytest.param("1500m", "1500m", id="milli-not-whole"),
        pytest.param("0.5", "500m", id="fraction-to-milli"),
        pytest.param(".5", "500m", id="leading-dot"),
        pytest.param("1.5", "1500m", id="one-and-a-half"),
        pytest.param("1.0", "1", id="trailing-zero-fraction"),
        pytest.param("0.1", "100m", id="tenth"),
        pytest.param("0.0001", "100u", id="micro"),
        pytest.param("1n", "1n", id="nano"),
        pytest.param("0.000000001", "1n", id="nano-as-fraction"),
        pytest.param("1e-10", "1e-9", id="below-nano-rounds-up"),
        pytest.param("1.23456789012345678901", "1234567891n", id="long-fraction-rounds-up"),
        pytest.param("3000", "3k", id="thousands-to-k"),
        pytest.param("300", "300", id="hundreds-kept"),
        pytest.param("1000k", "1M", id="k-to-M"),
        pytest.param("1Gi", "1Gi", id="binary-kept"),
        pytest.param("1024Mi", "1Gi", id="binary-carried-up"),
        pytest.param("1536Mi", "1536Mi", id="binary-not-whole-Gi"),
        pytest.param("1.5Gi", "1536Mi", id="binary-fraction"),
        pytest.param("0.5Gi", "512Mi", id="binary-half"),
        pytest.param("5Ki", "5Ki", id="kibi"),
        pytest.param("1023", "1023", id="decimal-below-1024"),
        pytest.param("2e3", "2e3", id="exponent-kept"),
        pytest.param("12e-3", "12e-3", id="negative-exponent-kept"),
        pytest.param("1e1000", "10e999", id="huge-exponent"),
        pytest.param("1000E", "1e21", id="beyond-exa"),
        pytest.param("-1", "-1", id="negative"),
        pytest.param("-1.5", "-1500m", id="negative-fraction"),
        pytest.param("+1", "+1", id="explicit-plus-kept"),
        pytest.param("8Ei", "9223372036854775807", id="binary-capped-at-int64"),
        pytest.param("Mi", "0", id="suffix-only-is-zero"),
    ],
)
def test_canonical_string(text: str, canonical: str) -> None:
    assert canonical_string(text) == canonical


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        pytest.param(1, "1", id="json-int"),
        pytest.param(0.5, "500m", id="json-float"),
        pytest.param(2048, "2048", id="json-int-not-binary"),
        pytest.param(" 100m ", "100m", id="trimmed-string"),
    ],
)
def test_from_json(raw: object, canonical: str) -> None:
    assert str(quantity_from_json(raw)) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", ERR_FORMAT_WRONG, id="empty"),
        pytest.param("abc", ERR_FORMAT_WRONG, id="letters"),
        pytest.param("1x", ERR_FORMAT_WRONG, id="unknown-letter"),
        pytest.param("1 Gi", ERR_FORMAT_WRONG, id="space"),
        pytest.param("1Mib", ERR_FORMAT_WRONG, id="trailing-letter"),
        pytest.param("1.2.3", ERR_FORMAT_WRONG, id="two-dots"),
        pytest.param("e", ERR_SUFFIX, id="bare-e"),
        pytest.param("--1", ERR_SUFFIX, id="double-sign"),
        pytest.param("1KiB", ERR_FORMAT_WRONG, id="bytes-suffix"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert str(caught.value) == message


def test_error_texts() -> None:
    assert ERR_FORMAT_WRONG == (
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    assert (ERR_NUMERIC, ERR_SUFFIX) == (
        "unable to parse numeric part of quantity",
        "unable to parse quantity's suffix",
    )


@pytest.mark.parametrize(
    ("a", "b", "cmp"),
    [
        pytest.param("1", "1000m", 0, id="equal-across-suffixes"),
        pytest.param("1Gi", "1024Mi", 0, id="equal-binary"),
        pytest.param("1G", "1Gi", -1, id="decimal-below-binary"),
        pytest.param("2", "1500m", 1, id="greater"),
        pytest.param("-1", "0", -1, id="negative"),
    ],
)
def test_compare(a: str, b: str, cmp: int) -> None:
    assert parse_quantity(a).cmp(parse_quantity(b)) == cmp


@pytest.mark.parametrize(
    ("text", "milli", "whole"),
    [
        pytest.param("1.5", 1500, 2, id="rounds-up"),
        pytest.param("1n", 1, 1, id="tiny-rounds-up"),
        pytest.param("-1.5m", -2, -1, id="negative-away-from-zero"),
        pytest.param("2Ki", 2048000, 2048, id="binary"),
    ],
)
def test_scaled_values(text: str, milli: int, whole: int) -> None:
    quantity = parse_quantity(text)
    assert (quantity.milli_value(), quantity.int_value()) == (milli, whole)


@pytest.mark.parametrize(
    ("text", "rounded"),
    [
        pytest.param("0.0001", "1m", id="up-to-a-milli"),
        pytest.param("100m", "100m", id="already-milli"),
        pytest.param("1u", "1m", id="micro-up"),
        pytest.param("1Gi", "1Gi", id="whole-kept"),
    ],
)
def test_round_up_to_milli(text: str, rounded: str) -> None:
    assert str(parse_quantity(text).round_up(-3)) == rounded


def test_values_are_exact() -> None:
    assert parse_quantity("1.5Gi").value == Fraction(3 * 2**29)
    assert parse_quantity("0.5").value == Fraction(1, 2)
