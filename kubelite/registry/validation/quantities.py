"""Quantities as kube decodes them: every Quantity field of a built-in object, found through the published
schema, is parsed and written back in canonical form, and core/v1 resource lists are rounded up to milli
precision (kube's `SetDefaults_ResourceList`). A quantity that does not parse is the decoder's 400, worded
as kube words it (`Pod in version "v1" cannot be handled as a Pod: quantities must match ...`).

This runs first in a strategy's `default`, where kube's decode (and defaulting) would have run.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, Final

from kubelite.apimachinery import errors
from kubelite.apimachinery import schema_definitions as schemas
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.quantity import QuantityError, quantity_from_json
from kubelite.apimachinery.schema import SchemaNode, builtin_set, registry
from kubelite.registry.spec import ResourceSpec

#: core/v1's ResourceList maps get the milli round-up; other groups' quantity maps do not
_ROUNDED_PREFIX: Final = "io.k8s.api.core.v1."
_MILLI: Final = -3
#: the key of this layer's fact in SchemaNode.compiled: whether a Quantity can appear below the node
_REACHES: Final = "reaches_quantity"


@cache
def _reaching() -> frozenset[str]:
    """Definitions from which a Quantity can be reached (reverse reachability over the references)."""
    definitions = builtin_set()
    users: dict[str, set[str]] = {}
    for name in definitions.definitions:
        for target in definitions.references(name):
            users.setdefault(target, set()).add(name)
    found = {schemas.QUANTITY}
    pending = [schemas.QUANTITY]
    while pending:
        for user in users.get(pending.pop(), ()):
            if user not in found:
                found.add(user)
                pending.append(user)
    return frozenset(found)


def _reaches(node: SchemaNode | None) -> bool:
    """Whether a Quantity can appear below `node`; kept in the node, which lives as long as its schema."""
    if node is None:
        return False
    known: bool | None = node.compiled.get(_REACHES)
    if known is None:
        if node.ref is not None:
            known = node.target.name in _reaching()
        else:
            known = (
                _reaches(node.items)
                or _reaches(node.additional)
                or any(_reaches(sub) for sub in (node.properties or {}).values())
            )
        node.compiled[_REACHES] = known
    return known


Convert = Callable[[Any, bool], str]


def _visit(holder: Any, key: Any, node: SchemaNode, owner: str, convert: Convert, in_list: bool) -> None:
    value = holder[key]
    if value is None:
        return
    if node.ref is not None:
        node = node.target
        if node.name == schemas.QUANTITY:
            holder[key] = convert(value, in_list)
            return
        owner = node.name
    if isinstance(value, dict):
        properties = node.properties
        extra = node.additional
        if properties is not None:
            for child in list(value):
                sub = properties.get(child)
                if sub is not None and _reaches(sub):
                    _visit(value, child, sub, owner, convert, False)
        elif extra is not None and _reaches(extra):
            rounded = extra.target.name == schemas.QUANTITY and owner.startswith(_ROUNDED_PREFIX)
            for child in list(value):
                _visit(value, child, extra, owner, convert, rounded)
    elif isinstance(value, list):
        items = node.items
        if items is not None and _reaches(items):
            for index in range(len(value)):
                _visit(value, index, items, owner, convert, False)


def _canonical(raw: Any, resource_list: bool) -> str:
    if isinstance(raw, dict | list):
        quantity_from_json(raw)  # raises: not a quantity
    return _canonical_scalar(raw, resource_list)


@lru_cache(maxsize=4096, typed=True)  # typed: 1, 1.0 and True are different JSON values here
def _canonical_scalar(raw: Any, resource_list: bool) -> str:
    quantity = quantity_from_json(raw)
    if resource_list:
        quantity = quantity.round_up(_MILLI)
    return str(quantity)


def canonicalize_quantities(obj: dict[str, Any], group: str, version: str, kind: str) -> None:
    """Rewrite every quantity of `obj` in place; raises QuantityError for the first that does not parse."""
    model = registry().model(group, version, kind)
    if model is None or not model.name or model.name not in _reaching():
        return
    holder = {"object": obj}
    _visit(holder, "object", model, model.name, _canonical, False)


def decode_quantities(spec: ResourceSpec, obj: dict[str, Any]) -> None:
    """canonicalize_quantities for a resource, failing as kube's decoder does."""
    try:
        canonicalize_quantities(obj, spec.group, spec.version, spec.kind)
    except QuantityError as exc:
        raise decode_error(spec, str(exc)) from exc


def decode_error(spec: ResourceSpec, message: str) -> StatusError:
    return errors.bad_request(f'{spec.kind} in version "{spec.version}" cannot be handled as a {spec.kind}: {message}')
