"""Conversion between upb protobuf messages and kubelite's dict objects, with Go's JSON rules.

Kubernetes' protobuf and JSON forms are two encodings of the same Go structs. A Go client that sends
protobuf would have sent, in JSON, exactly what `encoding/json` writes for the struct its protobuf decodes
to, so decoding mimics that: keys in Go struct order; a non-pointer scalar with `omitempty` that is zero
left out; `omitzero` leaving out the zero value (metadata.creationTimestamp); structs never "empty"
(`resources: {}` stays); a list or map without `omitempty` that is absent is `null`, as a nil Go slice
marshals (but a `*List`'s `items` is `[]`, as kube-apiserver's lists print); map keys sorted. Go's
protobuf encoder writes every non-pointer field, zero or not, so for Go's bytes this reproduces Go's JSON
exactly. Encoding writes what the dict holds and nothing more (proto2 presence keeps `replicas: 0` apart
from no replicas), so a dict read back from our own bytes is the dict we wrote, up to the rules above.

Each message gets a plan on first use: per field a mode saying how to convert it, chosen once so that the
per-object walks are a flat loop over `ListFields()` (decode) or the dict's items (encode).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from kubelite.apimachinery.protobuf import specialtypes
from kubelite.apimachinery.protobuf.descriptors import message_classes
from kubelite.apimachinery.protobuf.errors import ProtobufError
from kubelite.apimachinery.protobuf.schema import load

_SCALARS = frozenset({"string", "bool", "int32", "int64", "uint32", "uint64", "double"})

# decode modes: how a present field's value becomes JSON
(
    D_VALUE,
    D_VALUE_OMIT,
    D_MESSAGE,
    D_MESSAGE_LIST,
    D_INLINE,
    D_CONVERT,
    D_CONVERT_OMIT,
    D_LIST,
    D_STRING_MAP,
) = range(9)
# encode modes: how a JSON value is put into the message
E_SCALAR, E_MESSAGE, E_MESSAGE_LIST, E_SCALAR_LIST, E_STRING_MAP, E_CALL = range(6)

Setter = Callable[[Any, str, Any], None]


class MessagePlan:
    """How one message's fields map to JSON keys, in both directions."""

    __slots__ = ("absent", "by_fd", "by_json", "cls", "full", "inline", "key_rank", "ordered")

    def __init__(self, full: str, cls: Any) -> None:
        self.full = full
        self.cls = cls
        #: field descriptor -> (JSON key, decode mode, sub-plan or converter)
        self.by_fd: dict[Any, tuple[str, int, Any]] = {}
        #: JSON key -> (encode mode, protobuf field name, sub-plan or setter, name of the inline holder or "")
        self.by_json: dict[str, tuple[int, str, Any, str]] = {}
        #: (JSON key, value) for list/map fields Go prints even when the wire lacks them
        self.absent: list[tuple[str, Any]] = []
        #: JSON key -> position in Go struct order (inlined keys follow their holder's position)
        self.key_rank: dict[str, tuple[int, int]] = {}
        #: Go struct order is field-number order (ListFields' order), so output needs no sorting
        self.ordered = True
        self.inline: list[tuple[str, str]] = []


_plans: dict[str, MessagePlan] | None = None


def plans() -> dict[str, MessagePlan]:
    """Conversion plans for every schema message (built with the message classes, on first use)."""
    global _plans
    if _plans is None:
        built = {full: MessagePlan(full, cls) for full, cls in message_classes().items()}
        for plan in built.values():
            _complete(plan, built)
        for plan in built.values():
            for holder, typ in plan.inline:
                _route_inline_keys(plan, holder, built[typ])
        _plans = built
    return _plans


def _complete(plan: MessagePlan, built: dict[str, MessagePlan]) -> None:
    descriptor = plan.cls.DESCRIPTOR
    last_number = 0
    for rank, row in enumerate(load().messages[plan.full]):
        # interned, as Python's own identifiers are: attribute and dict lookups compare them by identity
        key, number, typ, mods = sys.intern(row[0]), row[1], row[2], row[3]
        name = sys.intern(row[4]) if len(row) > 4 else key
        if number < last_number:
            plan.ordered = False
        last_number = number
        repeated, is_map, pointer = "r" in mods, "m" in mods, "p" in mods
        fd = descriptor.fields_by_number[number]
        if "i" in mods:
            plan.by_fd[fd] = (key, D_INLINE, built[typ])
            plan.inline.append((name, typ))
            plan.key_rank[name] = (rank, 0)
            continue
        plan.key_rank[key] = (rank, 0)
        omit = ("o" in mods or "z" in mods) and not (pointer or repeated or is_map)
        if (repeated or is_map) and "o" not in mods:
            plan.absent.append((key, [] if plan.full.endswith("List") and key == "items" else None))
        plan.by_fd[fd] = (key, *_decoder(typ, repeated, is_map, omit, "z" in mods, built))
        plan.by_json[key] = _encoder(typ, name, repeated, is_map, pointer, built)


def _route_inline_keys(plan: MessagePlan, holder: str, sub: MessagePlan) -> None:
    """The JSON keys of an inlined struct (Volume's `secret`, `configMap`, ...) belong to the holder field."""
    if sub.inline:
        raise ProtobufError(f"{plan.full}.{holder}: only one level of inlined structs is supported")
    rank = plan.key_rank.pop(holder)[0]
    for key, (mode, name, extra, _) in sub.by_json.items():
        plan.by_json.setdefault(key, (mode, name, extra, holder))
        plan.key_rank.setdefault(key, (rank, sub.key_rank[key][0]))


def _decoder(
    typ: str, repeated: bool, is_map: bool, omit: bool, omitzero: bool, built: dict[str, Any]
) -> tuple[int, Any]:
    """(decode mode, sub-plan or converter) of a field."""
    special = load().special.get(typ)
    if typ in _SCALARS:
        if is_map:
            return (D_STRING_MAP, None) if typ == "string" else (D_CONVERT, _map_of(None))
        if repeated:
            return (D_LIST, None)
        return (D_VALUE_OMIT if omit else D_VALUE, None)
    element: specialtypes.ToJson
    if typ == "bytes":
        element = specialtypes.bytes_to_json
    elif special is not None:
        element = specialtypes.TO_JSON[special]
    else:
        sub = built[typ]
        if repeated:
            return (D_MESSAGE_LIST, sub)
        if not is_map:
            return (D_MESSAGE, sub)
        return (D_CONVERT, _map_of(lambda m: to_dict(m, sub)))
    if is_map:
        return (D_CONVERT, _map_of(element))
    if repeated:
        return (D_CONVERT, lambda values, _el=element: [_el(v) for v in values])
    # omitempty drops an empty byte slice but never a struct; omitzero drops a zero Time (decoded as None)
    return (D_CONVERT_OMIT if (omit and typ == "bytes") or omitzero else D_CONVERT, element)


def _map_of(element: Callable[[Any], Any] | None) -> Callable[[Any], dict[str, Any]]:
    if element is None:
        return lambda m: dict(sorted(m.items()))
    return lambda m: {k: element(m[k]) for k in sorted(m)}


def _encoder(
    typ: str, name: str, repeated: bool, is_map: bool, pointer: bool, built: dict[str, Any]
) -> tuple[int, str, Any, str]:
    """(encode mode, protobuf field name, sub-plan or setter, "") of a field."""
    special = load().special.get(typ)
    if typ in _SCALARS:
        if is_map:
            return (
                (E_STRING_MAP, name, None, "")
                if typ == "string"
                else (E_CALL, name, _scalar_map_setter(None), "")
            )
        return (E_SCALAR_LIST if repeated else E_SCALAR, name, None, "")
    if typ == "bytes":
        convert = specialtypes.bytes_from_json
        if is_map:
            return (E_CALL, name, _scalar_map_setter(convert), "")
        if repeated:
            return (E_CALL, name, lambda msg, n, v: getattr(msg, n).extend(convert(x) for x in v), "")
        return (E_CALL, name, lambda msg, n, v: setattr(msg, n, convert(v)) if v is not None else None, "")
    fill: specialtypes.Fill
    if special is not None:
        fill = specialtypes.FILL[special]
    else:
        sub = built[typ]
        if repeated:
            return (E_MESSAGE_LIST, name, sub, "")
        if not is_map:
            return (E_MESSAGE, name, sub, "")
        fill = lambda msg, value: _fill_message(msg, value, sub)  # noqa: E731
    if is_map:
        return (E_CALL, name, _message_map_setter(fill), "")
    if repeated:
        return (E_CALL, name, _message_list_setter(fill), "")
    if pointer:
        # null is a nil pointer, absent on the wire; a struct value's null is its zero value, which Go writes
        return (
            E_CALL,
            name,
            lambda msg, n, v, _fill=fill: None if v is None else _fill(getattr(msg, n), v),
            "",
        )
    return (E_CALL, name, lambda msg, n, v, _fill=fill: _fill(getattr(msg, n), v), "")


def _scalar_map_setter(convert: Callable[[Any], Any] | None) -> Setter:
    def setter(msg: Any, name: str, value: Any) -> None:
        if value:
            items = {k: v if convert is None else convert(v) for k, v in value.items() if v is not None}
            getattr(msg, name).update(items)

    return setter


def _message_map_setter(fill: Callable[[Any, Any], None]) -> Setter:
    def setter(msg: Any, name: str, value: Any) -> None:
        if value:
            target = getattr(msg, name)
            for k, v in value.items():
                fill(target[k], v)

    return setter


def _message_list_setter(fill: Callable[[Any, Any], None]) -> Setter:
    def setter(msg: Any, name: str, value: Any) -> None:
        if value:
            target = getattr(msg, name)
            for v in value:
                fill(target.add(), v)

    return setter


def _fill_message(msg: Any, value: Any, plan: MessagePlan) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        raise ProtobufError(f"{plan.full} must be an object, not {type(value).__name__}")
    if value:
        from_dict(msg, value, plan)
    else:
        msg.SetInParent()


# --- the walks -----------------------------------------------------------------------------------------


def to_dict(msg: Any, plan: MessagePlan) -> dict[str, Any]:
    """A message as the dict Go's encoding/json writes for the struct it decodes to."""
    by_fd = plan.by_fd
    out: dict[str, Any] = {}
    for fd, value in msg.ListFields():
        key, mode, extra = by_fd[fd]
        if mode == D_VALUE:
            out[key] = value
        elif mode == D_MESSAGE:
            out[key] = to_dict(value, extra)
        elif mode == D_VALUE_OMIT:
            if value:
                out[key] = value
        elif mode == D_MESSAGE_LIST:
            out[key] = [to_dict(v, extra) for v in value]
        elif mode == D_CONVERT:
            out[key] = extra(value)
        elif mode == D_LIST:
            out[key] = list(value)
        elif mode == D_STRING_MAP:
            out[key] = dict(sorted(value.items()))
        elif mode == D_CONVERT_OMIT:
            converted = extra(value)
            if converted:
                out[key] = converted
        else:  # D_INLINE
            out.update(to_dict(value, extra))
    reorder = not plan.ordered
    for key, default in plan.absent:
        if key not in out:
            out[key] = [] if default == [] else default
            reorder = True
    if reorder and len(out) > 1:
        return {key: out[key] for key in sorted(out, key=plan.key_rank.__getitem__)}
    return out


def from_dict(msg: Any, obj: dict[str, Any], plan: MessagePlan) -> None:
    """Fill a message from a dict, skipping keys the schema does not know (kind, apiVersion, newer fields)."""
    by_json = plan.by_json
    for key, value in obj.items():
        entry = by_json.get(key)
        if entry is None or (value is None and entry[0] != E_CALL):
            continue
        mode, name, extra, holder = entry
        target = getattr(msg, holder) if holder else msg
        try:
            if mode == E_SCALAR:
                setattr(target, name, value)
            elif mode == E_MESSAGE:
                if not isinstance(value, dict):
                    raise ProtobufError(f"must be an object, not {type(value).__name__}")
                if value:
                    from_dict(getattr(target, name), value, extra)
                else:
                    getattr(target, name).SetInParent()
            elif mode == E_MESSAGE_LIST:
                container = getattr(target, name)
                for item in value:
                    if not isinstance(item, dict):
                        raise ProtobufError(f"items must be objects, not {type(item).__name__}")
                    element = container.add()
                    if item:
                        from_dict(element, item, extra)
            elif mode == E_SCALAR_LIST:
                getattr(target, name).extend(value)
            elif mode == E_STRING_MAP:
                if None in value.values():
                    value = {k: v for k, v in value.items() if v is not None}
                getattr(target, name).update(value)
            else:
                extra(target, name, value)
        except ProtobufError as e:
            raise e.under(key) from None
        except (TypeError, ValueError, AttributeError) as e:
            raise ProtobufError(str(e), (key,)) from e
