"""Kubernetes' quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): quantity(), isQuantity and
arithmetic and comparisons of kubernetes.Quantity values, on kubelite's exact resource.Quantity."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from cel_expr_python import cel

from kubelite.apiextensions.cel.library.types import QUANTITY, QuantityMessage, T, overload
from kubelite.apimachinery.quantity import Quantity, QuantityError, parse_quantity

_INT64 = (-(2**63), 2**63 - 1)


def _q(message: Any) -> Quantity:
    return parse_quantity(message.value)


def _message(q: Quantity) -> Any:
    return QuantityMessage(value=str(q))


def _quantity(text: str) -> Any:
    try:
        return _message(parse_quantity(text))
    except QuantityError as err:
        raise ValueError(str(err)) from err


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _as_integer(message: Any) -> int:
    value = _q(message).value
    if value.denominator != 1 or not _INT64[0] <= value.numerator <= _INT64[1]:
        raise ValueError("cannot convert value to integer")
    return value.numerator


def _is_integer(message: Any) -> bool:
    value = _q(message).value
    return value.denominator == 1 and _INT64[0] <= value.numerator <= _INT64[1]


def _combine(a: Any, b: Any, sign: int) -> Any:
    qa = _q(a)
    other = Fraction(b) if isinstance(b, int) else _q(b).value
    return _message(Quantity(qa.value + sign * other, qa.format))


def _cmp(a: Any, b: Any) -> int:
    return _q(a).cmp(_q(b))


EXTENSION = cel.CelExtension(
    "kubernetes.quantity",
    [
        cel.FunctionDecl("quantity", [overload("string_to_quantity", QUANTITY, [T.STRING], _quantity)]),
        cel.FunctionDecl("isQuantity", [overload("is_quantity_string", T.BOOL, [T.STRING], _is_quantity)]),
        cel.FunctionDecl("sign", [overload("quantity_sign", T.INT, [QUANTITY], lambda q: _q(q).sign(), True)]),
        cel.FunctionDecl("isInteger", [overload("quantity_is_integer", T.BOOL, [QUANTITY], _is_integer, True)]),
        cel.FunctionDecl("asInteger", [overload("quantity_get_int", T.INT, [QUANTITY], _as_integer, True)]),
        cel.FunctionDecl("asApproximateFloat", [overload("quantity_get_float", T.DOUBLE, [QUANTITY],
                                                         lambda q: float(_q(q).value), True)]),
        cel.FunctionDecl("add", [
            overload("quantity_add", QUANTITY, [QUANTITY, QUANTITY], lambda a, b: _combine(a, b, 1), True),
            overload("quantity_add_int", QUANTITY, [QUANTITY, T.INT], lambda a, b: _combine(a, b, 1), True),
        ]),
        cel.FunctionDecl("sub", [
            overload("quantity_sub", QUANTITY, [QUANTITY, QUANTITY], lambda a, b: _combine(a, b, -1), True),
            overload("quantity_sub_int", QUANTITY, [QUANTITY, T.INT], lambda a, b: _combine(a, b, -1), True),
        ]),
        cel.FunctionDecl("isLessThan", [overload("quantity_less", T.BOOL, [QUANTITY, QUANTITY],
                                                 lambda a, b: _cmp(a, b) < 0, True)]),
        cel.FunctionDecl("isGreaterThan", [overload("quantity_greater", T.BOOL, [QUANTITY, QUANTITY],
                                                    lambda a, b: _cmp(a, b) > 0, True)]),
        cel.FunctionDecl("compareTo", [overload("quantity_compare_to", T.INT, [QUANTITY, QUANTITY], _cmp, True)]),
    ],
)
