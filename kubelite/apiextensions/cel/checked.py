"""The checked expression a compiled rule serializes to, read back as a small Python tree.

cel-expr-python compiles to cel-cpp's checked AST (`cel.expr.CheckedExpr` wrapped in a `google.protobuf.Any`)
and exposes it only as bytes. Cost estimation and the `oldSelf` check walk that tree, so this module declares the
few messages of cel-spec's syntax.proto/checked.proto it needs (by their public field numbers; the other fields
are skipped by the parser) and turns a parsed message into `Node`s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="kubelite_cel_checked.proto", package="kubelite.celast")

    def message(name: str, fields: list[tuple[str, int, int, str, bool]], parent: Any = None) -> Any:
        msg = (parent.nested_type if parent is not None else fdp.message_type).add(name=name)
        for fname, number, ftype, type_name, repeated in fields:
            fd = msg.field.add(name=fname, number=number, type=ftype)
            fd.label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
            if type_name:
                fd.type_name = type_name
        return msg

    e = ".kubelite.celast.Expr"
    message(
        "Constant",
        [
            ("null_value", 1, _F.TYPE_INT32, "", False),
            ("bool_value", 2, _F.TYPE_BOOL, "", False),
            ("int64_value", 3, _F.TYPE_INT64, "", False),
            ("uint64_value", 4, _F.TYPE_UINT64, "", False),
            ("double_value", 5, _F.TYPE_DOUBLE, "", False),
            ("string_value", 6, _F.TYPE_STRING, "", False),
            ("bytes_value", 7, _F.TYPE_BYTES, "", False),
        ],
    )
    expr = message(
        "Expr",
        [
            ("id", 2, _F.TYPE_INT64, "", False),
            ("const_expr", 3, _F.TYPE_MESSAGE, ".kubelite.celast.Constant", False),
            ("ident_expr", 4, _F.TYPE_MESSAGE, e + ".Ident", False),
            ("select_expr", 5, _F.TYPE_MESSAGE, e + ".Select", False),
            ("call_expr", 6, _F.TYPE_MESSAGE, e + ".Call", False),
            ("list_expr", 7, _F.TYPE_MESSAGE, e + ".CreateList", False),
            ("struct_expr", 8, _F.TYPE_MESSAGE, e + ".CreateStruct", False),
            ("comprehension_expr", 9, _F.TYPE_MESSAGE, e + ".Comprehension", False),
        ],
    )
    message("Ident", [("name", 1, _F.TYPE_STRING, "", False)], expr)
    message(
        "Select",
        [("operand", 1, _F.TYPE_MESSAGE, e, False), ("field", 2, _F.TYPE_STRING, "", False),
         ("test_only", 3, _F.TYPE_BOOL, "", False)],
        expr,
    )
    message(
        "Call",
        [("target", 1, _F.TYPE_MESSAGE, e, False), ("function", 2, _F.TYPE_STRING, "", False),
         ("args", 3, _F.TYPE_MESSAGE, e, True)],
        expr,
    )
    message("CreateList", [("elements", 1, _F.TYPE_MESSAGE, e, True)], expr)
    struct = message(
        "CreateStruct",
        [("message_name", 1, _F.TYPE_STRING, "", False),
         ("entries", 2, _F.TYPE_MESSAGE, e + ".CreateStruct.Entry", True)],
        expr,
    )
    message(
        "Entry",
        [("field_key", 2, _F.TYPE_STRING, "", False), ("map_key", 3, _F.TYPE_MESSAGE, e, False),
         ("value", 4, _F.TYPE_MESSAGE, e, False)],
        struct,
    )
    message(
        "Comprehension",
        [
            ("iter_var", 1, _F.TYPE_STRING, "", False),
            ("iter_range", 2, _F.TYPE_MESSAGE, e, False),
            ("accu_var", 3, _F.TYPE_STRING, "", False),
            ("accu_init", 4, _F.TYPE_MESSAGE, e, False),
            ("loop_condition", 5, _F.TYPE_MESSAGE, e, False),
            ("loop_step", 6, _F.TYPE_MESSAGE, e, False),
            ("result", 7, _F.TYPE_MESSAGE, e, False),
            ("iter_var2", 8, _F.TYPE_STRING, "", False),
        ],
        expr,
    )
    message("Reference", [("name", 1, _F.TYPE_STRING, "", False), ("overload_id", 3, _F.TYPE_STRING, "", True)])
    source = message(
        "SourceInfo",
        [("positions", 4, _F.TYPE_MESSAGE, ".kubelite.celast.SourceInfo.PositionsEntry", True)],
    )
    positions = message(
        "PositionsEntry", [("key", 1, _F.TYPE_INT64, "", False), ("value", 2, _F.TYPE_INT32, "", False)], source
    )
    positions.options.map_entry = True
    t = ".kubelite.celast.Type"
    message("Empty", [])
    ctype = message(
        "Type",
        [
            ("dyn", 1, _F.TYPE_MESSAGE, ".kubelite.celast.Empty", False),
            ("null", 2, _F.TYPE_INT32, "", False),
            ("primitive", 3, _F.TYPE_INT32, "", False),
            ("wrapper", 4, _F.TYPE_INT32, "", False),
            ("well_known", 5, _F.TYPE_INT32, "", False),
            ("list_type", 6, _F.TYPE_MESSAGE, t + ".ListType", False),
            ("map_type", 7, _F.TYPE_MESSAGE, t + ".MapType", False),
            ("message_type", 9, _F.TYPE_STRING, "", False),
            ("type_param", 10, _F.TYPE_STRING, "", False),
            ("error", 12, _F.TYPE_MESSAGE, ".kubelite.celast.Empty", False),
            ("abstract_type", 14, _F.TYPE_MESSAGE, t + ".AbstractType", False),
        ],
    )
    message("ListType", [("elem_type", 1, _F.TYPE_MESSAGE, t, False)], ctype)
    message("MapType", [("key_type", 1, _F.TYPE_MESSAGE, t, False), ("value_type", 2, _F.TYPE_MESSAGE, t, False)],
            ctype)
    message("AbstractType", [("name", 1, _F.TYPE_STRING, "", False),
                             ("parameter_types", 2, _F.TYPE_MESSAGE, t, True)], ctype)
    checked = message(
        "CheckedExpr",
        [("reference_map", 2, _F.TYPE_MESSAGE, ".kubelite.celast.CheckedExpr.ReferenceMapEntry", True),
         ("type_map", 3, _F.TYPE_MESSAGE, ".kubelite.celast.CheckedExpr.TypeMapEntry", True),
         ("expr", 4, _F.TYPE_MESSAGE, e, False),
         ("source_info", 5, _F.TYPE_MESSAGE, ".kubelite.celast.SourceInfo", False)],
    )
    type_entry = message(
        "TypeMapEntry", [("key", 1, _F.TYPE_INT64, "", False), ("value", 2, _F.TYPE_MESSAGE, t, False)], checked
    )
    type_entry.options.map_entry = True
    entry = message(
        "ReferenceMapEntry",
        [("key", 1, _F.TYPE_INT64, "", False), ("value", 2, _F.TYPE_MESSAGE, ".kubelite.celast.Reference", False)],
        checked,
    )
    entry.options.map_entry = True
    return fdp


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())
_CheckedExpr = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("kubelite.celast.CheckedExpr"))


@dataclass(slots=True)
class Node:
    """One expression node: kind is const, ident, select, has, call, list, map, struct or comprehension."""

    id: int
    kind: str
    name: str = ""  # ident name, selected field, function name
    value: Any = None  # a constant's value
    target: Node | None = None  # select operand, receiver of a member call
    args: list[Node] = field(default_factory=list)  # call arguments, list elements, map/struct values
    keys: list[Node] = field(default_factory=list)  # a map literal's keys
    overloads: tuple[str, ...] = ()
    # comprehension parts
    iter_var: str = ""
    accu_var: str = ""
    iter_range: Node | None = None
    accu_init: Node | None = None
    loop_condition: Node | None = None
    loop_step: Node | None = None
    result: Node | None = None


_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}


@dataclass(frozen=True, slots=True)
class CelType:
    """A checked type: kind is bool, int, uint, double, string, bytes, timestamp, duration, list, map,
    message (name), abstract (name, e.g. optional_type), dyn, null, type_param or error."""

    kind: str
    name: str = ""
    params: tuple[CelType, ...] = ()


DYN = CelType("dyn")


def _type(proto: Any) -> CelType:
    if proto.HasField("primitive"):
        return CelType(_PRIMITIVES.get(proto.primitive, "dyn"))
    if proto.HasField("wrapper"):
        return CelType(_PRIMITIVES.get(proto.wrapper, "dyn"))
    if proto.HasField("well_known"):
        return CelType(_WELL_KNOWN.get(proto.well_known, "dyn"))
    if proto.HasField("list_type"):
        return CelType("list", params=(_type(proto.list_type.elem_type),))
    if proto.HasField("map_type"):
        return CelType("map", params=(_type(proto.map_type.key_type), _type(proto.map_type.value_type)))
    if proto.HasField("message_type"):
        return CelType("message", proto.message_type)
    if proto.HasField("abstract_type"):
        return CelType("abstract", proto.abstract_type.name,
                       tuple(_type(p) for p in proto.abstract_type.parameter_types))
    if proto.HasField("null"):
        return CelType("null")
    if proto.HasField("type_param"):
        return CelType("type_param", proto.type_param)
    if proto.HasField("error"):
        return CelType("error")
    return DYN


@dataclass(slots=True)
class Checked:
    """A parsed checked expression: its root, reference map (id -> (name, overload ids)), the checked type of
    each node and each node's offset in the source."""

    root: Node
    refs: dict[int, tuple[str, tuple[str, ...]]]
    positions: dict[int, int]
    types: dict[int, CelType]


def parse_checked(serialized: bytes) -> Checked:
    """The tree, references and node offsets (in code points of the source) of a serialized checked expression."""
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    checked: Any = _CheckedExpr()
    checked.ParseFromString(wrapper.value)
    refs = {key: (ref.name, tuple(ref.overload_id)) for key, ref in checked.reference_map.items()}
    positions = dict(checked.source_info.positions.items())
    types = {key: _type(value) for key, value in checked.type_map.items()}
    return Checked(_node(checked.expr, refs), refs, positions, types)


def parse(serialized: bytes) -> tuple[Node, dict[int, tuple[str, tuple[str, ...]]]]:
    """The root node of a serialized checked expression, and its reference map (id -> (name, overload ids))."""
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    checked: Any = _CheckedExpr()
    checked.ParseFromString(wrapper.value)
    refs = {key: (ref.name, tuple(ref.overload_id)) for key, ref in checked.reference_map.items()}
    return _node(checked.expr, refs), refs


def _node(expr: Any, refs: dict[int, tuple[str, tuple[str, ...]]]) -> Node:
    node_id = expr.id
    if expr.HasField("const_expr"):
        const = expr.const_expr
        which = [f.name for f, _ in const.ListFields()]
        value = getattr(const, which[0]) if which else None
        return Node(node_id, "const", value=value)
    if expr.HasField("ident_expr"):
        return Node(node_id, "ident", name=expr.ident_expr.name)
    if expr.HasField("select_expr"):
        sel = expr.select_expr
        operand = _node(sel.operand, refs)
        return Node(node_id, "has" if sel.test_only else "select", name=sel.field, target=operand)
    if expr.HasField("call_expr"):
        call = expr.call_expr
        target = _node(call.target, refs) if call.HasField("target") else None
        overloads = refs.get(node_id, ("", ()))[1]
        return Node(node_id, "call", name=call.function, target=target,
                    args=[_node(a, refs) for a in call.args], overloads=overloads)
    if expr.HasField("list_expr"):
        return Node(node_id, "list", args=[_node(a, refs) for a in expr.list_expr.elements])
    if expr.HasField("struct_expr"):
        st = expr.struct_expr
        values = [_node(entry.value, refs) for entry in st.entries]
        keys = [_node(entry.map_key, refs) for entry in st.entries if entry.HasField("map_key")]
        return Node(node_id, "struct" if st.message_name else "map", name=st.message_name, args=values, keys=keys)
    if expr.HasField("comprehension_expr"):
        c = expr.comprehension_expr
        return Node(
            node_id, "comprehension", iter_var=c.iter_var, accu_var=c.accu_var,
            iter_range=_node(c.iter_range, refs), accu_init=_node(c.accu_init, refs),
            loop_condition=_node(c.loop_condition, refs), loop_step=_node(c.loop_step, refs),
            result=_node(c.result, refs),
        )
    return Node(node_id, "const", value=None)


def rewrite_calls(serialized: bytes, rewrites: Mapping[str, tuple[str, str, bool]]) -> bytes | None:
    """The checked expression with each call resolved to an overload in `rewrites` replaced by a call of the
    hidden function (receiver first), wrapped in `optional.ofNonZeroValue(...)` where the rewrite says so;
    None when there is no such call.

    Fields this module does not declare (types, macro calls, offsets) survive the round trip as unknown fields.
    """
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    checked: Any = _CheckedExpr()
    checked.ParseFromString(wrapper.value)
    refs = checked.reference_map
    next_id = [max([*refs.keys(), *_ids(checked.expr)], default=0) + 1]
    changed = False

    def walk(expr: Any) -> None:
        nonlocal changed
        for child in _children(expr):
            walk(child)
        if not expr.HasField("call_expr") or expr.id not in refs:
            return
        overloads = list(refs[expr.id].overload_id)
        if not overloads or overloads[0] not in rewrites:
            return
        hidden, hidden_overload, wrap = rewrites[overloads[0]]
        call = expr.call_expr
        if not wrap:
            if call.HasField("target"):
                _prepend(call, call.target)
                call.ClearField("target")
            call.function = hidden
            refs[expr.id].name = hidden
            del refs[expr.id].overload_id[:]
            refs[expr.id].overload_id.append(hidden_overload)
            changed = True
            return
        inner = type(expr)(id=next_id[0])
        next_id[0] += 1
        inner.call_expr.function = hidden
        if call.HasField("target"):
            inner.call_expr.args.add().CopyFrom(call.target)
        for arg in call.args:
            inner.call_expr.args.add().CopyFrom(arg)
        call.ClearField("target")
        del call.args[:]
        call.function = "optional.ofNonZeroValue"
        call.args.add().CopyFrom(inner)
        refs[expr.id].name = "optional.ofNonZeroValue"
        del refs[expr.id].overload_id[:]
        refs[expr.id].overload_id.append("optional_ofNonZeroValue")
        refs[inner.id].name = hidden
        refs[inner.id].overload_id.append(hidden_overload)
        changed = True

    walk(checked.expr)
    if not changed:
        return None
    wrapper.value = checked.SerializeToString()
    return wrapper.SerializeToString()


def _prepend(call: Any, first: Any) -> None:
    rest = [type(first)() for _ in call.args]
    for copy, arg in zip(rest, call.args, strict=True):
        copy.CopyFrom(arg)
    del call.args[:]
    call.args.add().CopyFrom(first)
    for arg in rest:
        call.args.add().CopyFrom(arg)


def _children(expr: Any) -> list[Any]:
    if expr.HasField("select_expr"):
        return [expr.select_expr.operand]
    if expr.HasField("call_expr"):
        call = expr.call_expr
        return ([call.target] if call.HasField("target") else []) + list(call.args)
    if expr.HasField("list_expr"):
        return list(expr.list_expr.elements)
    if expr.HasField("struct_expr"):
        out = []
        for entry in expr.struct_expr.entries:
            if entry.HasField("map_key"):
                out.append(entry.map_key)
            out.append(entry.value)
        return out
    if expr.HasField("comprehension_expr"):
        c = expr.comprehension_expr
        return [c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result]
    return []


def _ids(expr: Any) -> list[int]:
    out = [expr.id]
    for child in _children(expr):
        out.extend(_ids(child))
    return out
