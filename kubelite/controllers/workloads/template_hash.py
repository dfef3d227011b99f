"""The pod-template hash: the `pod-template-hash` label and the `<deployment>-<hash>` ReplicaSet name.

kube's `controller.ComputeHash` feeds an FNV-32a hasher with go-spew's `%#v` rendering of the Go
`v1.PodTemplateSpec` (`hashutil.DeepHashObject`: SortKeys, DisableMethods, SpewKeys), then, when the
Deployment has a `status.collisionCount`, eight more bytes (the count as a little-endian uint32, then four
zero bytes), and writes the decimal Sum32 through `rand.SafeEncodeString`.

The rendering is of the Go struct, not of JSON: every field in declaration order whether set or not,
`(type)` before each value not inside a slice or map, strings unquoted, nil pointers, slices and maps as
`<nil>`, map keys sorted, and the unexported internals of resource.Quantity, intstr.IntOrString and
metav1.Time. `pod_template_layout.json` holds that Go layout for Kubernetes v1.36 (generated from a kubectl
binary by tools/gen_pod_template_layout.py); this module walks a template dict along it and rebuilds the
Go value the controller would hold after decoding the object from the API server's protobuf:

- empty lists and maps are nil (protobuf does not carry an empty repeated field or map);
- a quantity is what ParseQuantity makes of the canonical string the server stored (`100m` keeps its text in
  the cache field `s`; `0.1` was stored as `100m` too);
- an int-or-string is {Type, IntVal, StrVal}.

So the hash equals kube's for any template of the v1.36 schema whose quantities fit ParseQuantity's int64
path (every quantity a person writes) and whose metadata has no timestamps. Two cases are not reproduced:
a quantity on ParseQuantity's inf.Dec path (more than 18 digits or a huge binary multiple), whose big.Int
words are rendered as a zero amount, and a set timestamp, whose time.Location is the controller process's
local zone; both only change the name chosen, never which ReplicaSet is found (that compares templates).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from kubelite.apimachinery.quantity import QuantityError, _interpret, _split, canonical_string, int64_amount

_LAYOUT_PATH = Path(__file__).with_name("pod_template_layout.json")
#: rand.SafeEncodeString's alphabet: no vowels, no 0/1/3, so names spell no words
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


class GoValue(dict[str, Any]):
    """A struct value keyed by Go field names (the special types), not by JSON names."""


@cache
def _layout() -> tuple[str, dict[str, dict[str, Any]]]:
    data = json.loads(_LAYOUT_PATH.read_text())
    return data["root"], data["types"]


def fnv32a(data: bytes, value: int = _FNV32_OFFSET) -> int:
    for byte in data:
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


def safe_encode_string(text: str) -> str:
    """rand.SafeEncodeString: each character mapped into the 27-letter alphabet by its code point."""
    return "".join(_SAFE_ALPHABET[ord(ch) % len(_SAFE_ALPHABET)] for ch in text)


def spew_template(template: Mapping[str, Any] | None) -> str:
    """go-spew's `%#v` of the v1.PodTemplateSpec that `template` decodes to."""
    root, _ = _layout()
    out: list[str] = []
    _render(root, template or {}, False, out)
    return "".join(out)


def compute_hash(template: Mapping[str, Any] | None, collision_count: int | None = None) -> str:
    """controller.ComputeHash."""
    value = fnv32a(spew_template(template).encode())
    if collision_count is not None:
        value = fnv32a(struct.pack("<I", collision_count & 0xFFFFFFFF) + b"\0\0\0\0", value)
    return safe_encode_string(str(value))


# -- the walk --------------------------------------------------------------------------------------------


def _render(type_name: str, value: Any, ignore_type: bool, out: list[str]) -> None:
    _, types = _layout()
    entry = types[type_name]
    kind = entry["kind"]
    if kind == "ptr":
        if value is None:
            out.append("<nil>" if ignore_type else f"({type_name})<nil>")
            return
        out.append("<*>" if ignore_type else f"(*{entry['elem']})")
        _render(entry["elem"], value, True, out)
        return
    if not ignore_type:
        out.append(f"({type_name})")
    special = _SPECIAL.get(type_name)
    if special is not None:
        value = special(value)
    if kind == "struct":
        _render_struct(entry["fields"], value, out)
    elif kind in ("slice", "array"):
        if not value:
            out.append("<nil>")
            return
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(" ")
            _render(entry["elem"], item, True, out)
        out.append("]")
    elif kind == "map":
        if not value:
            out.append("<nil>")
            return
        out.append("map[")
        for index, key in enumerate(sorted(value)):
            if index:
                out.append(" ")
            out.append(str(key))
            out.append(":")
            _render(entry["elem"], value[key], True, out)
        out.append("]")
    elif kind == "string":
        out.append(value or "")
    elif kind == "bool":
        out.append("true" if value else "false")
    elif kind.startswith(("int", "uint")):
        out.append(str(int(value or 0)))
    elif kind.startswith("float"):
        out.append(_go_float(float(value or 0)))
    else:  # interface: nothing in a pod template is one
        out.append("<nil>")


def _render_struct(fields: list[list[str]], value: Any, out: list[str]) -> None:
    source: Mapping[str, Any] = value if isinstance(value, Mapping) else {}
    by_go_name = isinstance(value, GoValue)
    out.append("{")
    for index, (go_name, json_name, field_type) in enumerate(fields):
        if index:
            out.append(" ")
        out.append(go_name)
        out.append(":")
        if by_go_name:
            field_value = source.get(go_name)
        elif json_name == ",inline":
            field_value = source  # an embedded struct reads its fields from the parent's object
        else:
            field_value = source.get(json_name)
        _render(field_type, field_value, False, out)
    out.append("}")


def _go_float(value: float) -> str:
    # strconv.FormatFloat(v, 'g', -1, 64) for the values a pod template can hold
    text = repr(value)
    return text[:-2] if text.endswith(".0") else text


# -- the types whose Go value is not their JSON form ----------------------------------------------------


def _quantity(raw: Any) -> GoValue:
    if raw is None:
        return GoValue(i=GoValue(value=0, scale=0), d=GoValue(Dec=None), s="", Format="")
    try:
        stored = canonical_string(raw)
    except QuantityError:
        stored = str(raw)
    zero = GoValue(i=GoValue(value=0, scale=0), d=GoValue(Dec=None), s="", Format="DecimalSI")
    if stored == "0":
        return GoValue(zero, s="0")
    try:
        positive, _, num, denom, suffix = _split(stored)
        _, exponent, fmt = _interpret(suffix)
    except QuantityError:
        return zero
    amount = int64_amount(positive, num, denom, exponent, fmt)
    if amount is None:
        return GoValue(zero, Format=fmt)  # the inf.Dec path, not reproduced (see the module docstring)
    value, scale, canonical = amount
    return GoValue(i=GoValue(value=value, scale=scale), d=GoValue(Dec=None), s=stored if canonical else "", Format=fmt)


def _int_or_string(raw: Any) -> GoValue:
    if isinstance(raw, str):
        return GoValue(Type=1, IntVal=0, StrVal=raw)
    return GoValue(Type=0, IntVal=int(raw or 0), StrVal="")


def _time(raw: Any) -> GoValue:
    # a null timestamp is Go's zero time; a set one is not reproduced (see the module docstring)
    return GoValue(Time=GoValue(wall=0, ext=0, loc=None))


_SPECIAL: dict[str, Callable[[Any], GoValue]] = {
    "resource.Quantity": _quantity,
    "intstr.IntOrString": _int_or_string,
    "v1.Time": _time,
}
