"""Converters for the messages whose JSON form is not an object of their fields.

Quantity is a string on both sides; IntOrString is (type, intVal, strVal) on the wire and a bare integer or
string in JSON; Time and MicroTime are (seconds, nanos) and RFC 3339 strings, `null` when zero (an empty
message, as metav1.Time marshals its zero value); Duration is nanoseconds and a Go duration string;
RawExtension and FieldsV1 carry embedded JSON bytes (or, in a protobuf watch event, an enveloped protobuf
object) and are that JSON value; a named slice such as ExtraValue is a message of `items` and a bare list.
Each has a `*_to_json(message)` and a `fill_*(message, value)`; both raise ProtobufError on bad input.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

import orjson

from kubelite.apimachinery.protobuf import wellknown
from kubelite.apimachinery.protobuf.errors import MAGIC, ProtobufError

ToJson = Callable[[Any], Any]
Fill = Callable[[Any, Any], None]


def time_to_json(msg: Any) -> str | None:
    if not msg.ListFields():
        return None
    return wellknown.format_time(msg.seconds)


def micro_time_to_json(msg: Any) -> str | None:
    if not msg.ListFields():
        return None
    return wellknown.format_micro_time(msg.seconds, msg.nanos)


def duration_to_json(msg: Any) -> str:
    return wellknown.format_duration(msg.duration)


def quantity_to_json(msg: Any) -> str:
    return msg.string or "0"


def int_or_string_to_json(msg: Any) -> int | str:
    return msg.strVal if msg.type == 1 else msg.intVal


def raw_to_json(raw: bytes) -> Any:
    """Embedded bytes as a JSON value: protobuf when they carry the envelope prefix, JSON otherwise."""
    if not raw:
        return None
    if raw[:4] == MAGIC:
        from kubelite.apimachinery.protobuf.envelope import decode

        return decode(raw)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ProtobufError(f"embedded object is neither protobuf nor JSON: {e}") from e


def raw_extension_to_json(msg: Any) -> Any:
    return raw_to_json(msg.raw)


def fields_v1_to_json(msg: Any) -> Any:
    return raw_to_json(msg.Raw)


def list_to_json(msg: Any) -> list[Any]:
    return list(msg.items)


def bytes_to_json(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def bytes_from_json(value: Any) -> bytes:
    if not isinstance(value, str):
        raise ProtobufError(f"bytes must be a base64 string, not {type(value).__name__}")
    if "\n" in value or "\r" in value:
        value = value.replace("\n", "").replace("\r", "")  # Go's decoder skips line breaks
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ProtobufError(f"illegal base64 data: {e}") from e


def fill_time(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
        return
    if not isinstance(value, str):
        raise ProtobufError(f"a time must be a string, not {type(value).__name__}")
    try:
        seconds, nanos = wellknown.parse_time(value)
    except ValueError as e:
        raise ProtobufError(str(e)) from e
    msg.seconds = seconds
    if nanos:
        msg.nanos = nanos


def fill_duration(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
        return
    if not isinstance(value, str):
        raise ProtobufError(f"a duration must be a string, not {type(value).__name__}")
    try:
        msg.duration = wellknown.parse_duration(value)
    except ValueError as e:
        raise ProtobufError(str(e)) from e


def fill_quantity(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
    elif isinstance(value, str):
        msg.string = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        # Go's Quantity accepts a bare JSON number as well as a string
        msg.string = str(value)
    else:
        raise ProtobufError(f"a quantity must be a string or a number, not {type(value).__name__}")


def fill_int_or_string(msg: Any, value: Any) -> None:
    if isinstance(value, str):
        msg.type = 1
        msg.strVal = value
    elif isinstance(value, int) and not isinstance(value, bool):
        msg.type = 0
        msg.intVal = value
    elif value is None:
        msg.SetInParent()
    else:
        raise ProtobufError(f"an int-or-string must be an integer or a string, not {type(value).__name__}")


def fill_raw_extension(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
    else:
        msg.raw = orjson.dumps(value)


def fill_fields_v1(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
    else:
        msg.Raw = orjson.dumps(value)


def fill_list(msg: Any, value: Any) -> None:
    if value is None:
        msg.SetInParent()
    elif isinstance(value, list):
        msg.items.extend(value)
    else:
        raise ProtobufError(f"expected a list, not {type(value).__name__}")


TO_JSON: dict[str, ToJson] = {
    "time": time_to_json,
    "microtime": micro_time_to_json,
    "duration": duration_to_json,
    "quantity": quantity_to_json,
    "intorstring": int_or_string_to_json,
    "rawextension": raw_extension_to_json,
    "fieldsv1": fields_v1_to_json,
    "list": list_to_json,
}

FILL: dict[str, Fill] = {
    "time": fill_time,
    "microtime": fill_time,
    "duration": fill_duration,
    "quantity": fill_quantity,
    "intorstring": fill_int_or_string,
    "rawextension": fill_raw_extension,
    "fieldsv1": fill_fields_v1,
    "list": fill_list,
}
