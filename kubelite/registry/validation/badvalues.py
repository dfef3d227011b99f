"""Bad values printed as kube prints them.

`field.Error` prints a string bad value with Go's `%q` and a number or bool bare; anything else is
marshalled to JSON (`encoding/json`: map keys sorted, struct fields in declaration order, `omitempty`
honoured, HTML-safe escapes). A label map therefore reads `{"app":"web"}` and a selector
`{"matchLabels":{"app":"web"}}`. The values built here are `RawValue`s that print as they are, for the
shapes kube's messages carry: maps, lists, label selectors, int-or-strings and quantities (which marshal
as their string), and kube's internal structs (which have no JSON tags, so their Go field names show).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubelite.apimachinery.validation import RawValue, go_json

__all__ = [
    "RawValue",
    "int_or_string",
    "json_text",
    "label_selector",
    "quantity",
    "string_map",
    "string_slice",
    "struct",
]


def json_text(value: Any) -> str:
    """encoding/json.Marshal of a plain value, with map keys sorted."""
    if isinstance(value, Mapping):
        return (
            "{"
            + ",".join(f"{go_json(str(k))}:{json_text(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
            + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ",".join(json_text(v) for v in value) + "]"
    return go_json(value)


def string_map(value: Any) -> RawValue:
    """A `map[string]string` (labels, a ReplicationController's selector); a nil map is `null`."""
    return RawValue(json_text(value) if isinstance(value, Mapping) else "null")


def string_slice(values: Any) -> RawValue:
    """A `[]string` (cluster IPs, IP families, access modes); a nil slice is `null`."""
    if not isinstance(values, Sequence) or isinstance(values, str):
        return RawValue("null")
    return RawValue(json_text(list(values)))


def _requirement(req: Any) -> str:
    req = req if isinstance(req, Mapping) else {}
    parts = [f'"key":{go_json(str(req.get("key") or ""))}', f'"operator":{go_json(str(req.get("operator") or ""))}']
    if req.get("values"):
        parts.append(f'"values":{json_text(list(req["values"]))}')
    return "{" + ",".join(parts) + "}"


def label_selector(selector: Any) -> RawValue:
    """A `*metav1.LabelSelector`: its JSON, fields in declaration order, empty ones omitted."""
    if not isinstance(selector, Mapping):
        return RawValue("null")
    parts: list[str] = []
    if selector.get("matchLabels"):
        parts.append(f'"matchLabels":{json_text(selector["matchLabels"])}')
    if selector.get("matchExpressions"):
        parts.append('"matchExpressions":[' + ",".join(_requirement(r) for r in selector["matchExpressions"]) + "]")
    return RawValue("{" + ",".join(parts) + "}")


def int_or_string(value: Any) -> RawValue:
    """An `intstr.IntOrString`, which marshals as the number or the string it holds."""
    if isinstance(value, str):
        return RawValue(go_json(value))
    return RawValue(str(value) if isinstance(value, int) and not isinstance(value, bool) else "0")


def quantity(text: str) -> RawValue:
    """A `resource.Quantity`, which marshals as its canonical string."""
    return RawValue(go_json(text))


def struct(fields: Sequence[tuple[str, str]]) -> RawValue:
    """An internal struct: `{"Field":json,...}` from already marshalled field values."""
    return RawValue("{" + ",".join(f"{go_json(name)}:{shown}" for name, shown in fields) + "}")


def pointer(value: Any) -> Any:
    """An optional field (a Go pointer): `null` when unset; set strings marshal as JSON strings."""
    if value is None:
        return RawValue("null")
    if isinstance(value, str):
        return RawValue(go_json(value))
    return value
