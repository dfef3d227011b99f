"""Quantities as table cells print them: kube's `Quantity.String()`, with what kube could not parse shown as
it came (a cell never fails), and a missing value as Go prints a nil pointer."""

from __future__ import annotations

from kubelite.apimachinery.quantity import QuantityError, canonical_string


def canonical_quantity(raw: object) -> str:
    """`Quantity.String()` of `raw`; text kube could not parse is returned unchanged."""
    if raw is None:
        return "<nil>"
    try:
        return canonical_string(raw)
    except QuantityError:
        return str(raw).strip() if isinstance(raw, str) else str(raw)
