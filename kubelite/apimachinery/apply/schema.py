"""The shape of a kind as server-side apply sees it (structured-merge-diff's schema atoms).

A node says what a value may be: a scalar (numeric, string, boolean or untyped), a map (a struct with
declared fields and/or arbitrary keys of one element type; granular, or atomic: replaced whole), a list
(atomic; a set of scalars merged by value; or a map-list of objects merged by key fields), or several of
these at once for untyped values, where the value itself decides. Building nodes from OpenAPI is the
adapter's job (kubelite.endpoints.handlers.apply_schema); this module only holds the model, the two
untyped nodes every schema shares, and the Go facts a node carries for comparing objects as kube does:
which struct fields Go always writes (non-pointer structs, fields without omitempty) and with what value,
and the schema defaults of list key fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NUMERIC, STRING, BOOLEAN, UNTYPED = "numeric", "string", "boolean", "untyped"


@dataclass(slots=True, eq=False)
class MapType:
    #: declared fields (a struct); keys not here take `elem`
    fields: dict[str, Node] = field(default_factory=dict)
    #: the type of undeclared keys; None: undeclared keys are not allowed
    elem: Node | None = None
    #: replaced as a whole on apply, owned as one leaf
    atomic: bool = False
    #: fields the Go type always writes, with the value it writes when unset (kube compares Go objects)
    zero: dict[str, Any] = field(default_factory=dict)
    #: fields Go leaves out when they hold this value (omitempty): such a value is no value at all
    omitted: dict[str, Any] = field(default_factory=dict)
    #: schema defaults of fields, as far as they matter here (list key fields)
    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True, eq=False)
class ListType:
    item: Node
    #: replaced as a whole on apply, owned as one leaf
    atomic: bool = True
    #: key fields of a map-list; empty for a set (and for an atomic list)
    keys: tuple[str, ...] = ()


@dataclass(slots=True, eq=False)
class Node:
    """One schema atom; a value picks the part that fits it (an untyped node has several)."""

    scalar: str | None = None
    map: MapType | None = None
    list: ListType | None = None
    name: str = ""

    def __repr__(self) -> str:
        parts = [p for p, v in (("scalar", self.scalar), ("map", self.map), ("list", self.list)) if v]
        return f"Node({self.name or '/'.join(parts)})"


def _untyped_atomic() -> Node:
    node = Node(scalar=UNTYPED, name="__untyped_atomic_")
    node.list = ListType(item=node, atomic=True)
    node.map = MapType(elem=node, atomic=True)
    return node


def _deduced(atomic: Node) -> Node:
    node = Node(scalar=UNTYPED, name="__untyped_deduced_")
    node.list = ListType(item=atomic, atomic=True)
    node.map = MapType(elem=node, atomic=False)
    return node


#: any value, replaced whole (RawExtension, lists without an item schema)
UNTYPED_ATOMIC = _untyped_atomic()
#: any value; maps are granular with deduced values, lists atomic (free-form objects, unknown kinds)
DEDUCED = _deduced(UNTYPED_ATOMIC)
