"""The Kubernetes protobuf envelope and watch framing around the object messages.

Every protobuf body is the 4 bytes `k8s\\0` followed by a `runtime.Unknown` message: typeMeta (field 1:
apiVersion 1, kind 2), raw (2: the object's own message), contentEncoding (3) and contentType (4), the last
two empty. The envelope is parsed and written by hand: it is four fields, and doing it directly spares a
copy of `raw` through a message object.

A protobuf watch (`application/vnd.kubernetes.protobuf;stream=watch`) is a sequence of frames, each a
4-byte big-endian length and then an envelope holding a `WatchEvent` (type 1, object 2 = RawExtension whose
raw 1 is the event's object, itself a complete envelope). The envelope of the event carries the group
version of the watched resource and kind `WatchEvent`, as kube-apiserver's versioning encoder writes it.
"""

from __future__ import annotations

import struct
from typing import Any

from kubelite.apimachinery.cached import plain
from kubelite.apimachinery.protobuf.convert import from_dict, plans, to_dict
from kubelite.apimachinery.protobuf.errors import MAGIC, ProtobufError, UnsupportedKindError
from kubelite.apimachinery.protobuf.schema import load


def supports(api_version: str, kind: str) -> bool:
    """Whether objects of this apiVersion and kind have a protobuf encoding here."""
    return f"{api_version}/{kind}" in load().kinds


def _message_of(api_version: str, kind: str) -> str:
    full = load().kinds.get(f"{api_version}/{kind}")
    if full is None:
        raise UnsupportedKindError(f"no protobuf encoding for {kind} in {api_version or 'an empty apiVersion'}")
    return full


# --- wire primitives ------------------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _length_delimited(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ProtobufError("truncated protobuf data")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ProtobufError("malformed varint in protobuf data")


def _fields(data: bytes) -> dict[int, bytes]:
    """The length-delimited fields of a flat message (later occurrences win, as protobuf merges scalars)."""
    out: dict[int, bytes] = {}
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 2:
            size, pos = _read_varint(data, pos)
            if pos + size > end:
                raise ProtobufError("truncated protobuf data")
            out[number] = data[pos : pos + size]
            pos += size
        elif wire == 0:
            _, pos = _read_varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise ProtobufError(f"unsupported protobuf wire type {wire}")
    if pos != end:
        raise ProtobufError("truncated protobuf data")
    return out


# --- envelope ----------------------------------------------------------------------------------------------


def wrap(api_version: str, kind: str, raw: bytes) -> bytes:
    """`k8s\\0` + runtime.Unknown{typeMeta, raw, contentEncoding "", contentType ""}."""
    type_meta = _length_delimited(1, api_version.encode()) + _length_delimited(2, kind.encode())
    return MAGIC + _length_delimited(1, type_meta) + _length_delimited(2, raw) + b"\x1a\x00\x22\x00"


def unwrap(data: bytes) -> tuple[str, str, bytes]:
    """(apiVersion, kind, raw) of an envelope."""
    if data[:4] != MAGIC:
        raise ProtobufError("provided data does not start with the Kubernetes protobuf prefix k8s\\x00")
    try:
        fields = _fields(memoryview(data)[4:].tobytes())
        type_meta = _fields(fields.get(1, b""))
        api_version = type_meta.get(1, b"").decode()
        kind = type_meta.get(2, b"").decode()
    except UnicodeDecodeError as e:
        raise ProtobufError(f"typeMeta is not UTF-8: {e}") from e
    if fields.get(3):
        raise ProtobufError(f"unsupported protobuf content encoding {fields[3].decode(errors='replace')!r}")
    return api_version, kind, fields.get(2, b"")


# --- objects -----------------------------------------------------------------------------------------------


def decode(data: bytes) -> dict[str, Any]:
    """An enveloped protobuf object as its JSON dict, with kind and apiVersion from the envelope."""
    api_version, kind, raw = unwrap(data)
    plan = plans()[_message_of(api_version, kind)]
    try:
        msg = plan.cls.FromString(raw)
    except Exception as e:  # upb raises google.protobuf.message.DecodeError
        raise ProtobufError(f"cannot decode {kind}: {e}") from e
    out: dict[str, Any] = {"kind": kind, "apiVersion": api_version}
    out.update(to_dict(msg, plan))
    return out


def encode_raw(obj: dict[str, Any], api_version: str, kind: str) -> bytes:
    """The object's own message bytes (no envelope)."""
    plan = plans()[_message_of(api_version, kind)]
    msg = plan.cls()
    from_dict(msg, obj, plan)
    return msg.SerializeToString(deterministic=True)


def encode(obj: dict[str, Any]) -> bytes:
    """An object, list or Status dict as an enveloped protobuf body, typed by its apiVersion and kind."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise UnsupportedKindError("an object needs a string apiVersion and kind to be encoded as protobuf")
    # cached objects hold parts as pre-encoded JSON (see apimachinery.compact)
    return wrap(api_version, kind, encode_raw(plain(obj), api_version, kind))


# --- watch --------------------------------------------------------------------------------------------------


def encode_watch_event(event_type: str, obj: dict[str, Any]) -> bytes:
    """One frame of a protobuf watch: a 4-byte big-endian length, then a bare `WatchEvent` message.

    kube streams watch events with its raw protobuf serializer: the frame itself has no `k8s\\0` envelope;
    the event's object (a RawExtension) holds the enveloped object, as a non-streamed response would.
    """
    embedded = encode(obj)
    payload = _length_delimited(1, event_type.encode()) + _length_delimited(2, _length_delimited(1, embedded))
    return struct.pack(">I", len(payload)) + payload


def decode_watch_event(payload: bytes) -> tuple[str, dict[str, Any]]:
    """(type, object) of one watch frame's payload (the bytes after the length prefix)."""
    fields = _fields(payload)
    embedded = _fields(fields.get(2, b"")).get(1, b"")
    return fields.get(1, b"").decode(), decode(embedded)


def split_frames(data: bytes) -> tuple[list[bytes], bytes]:
    """Whole length-prefixed frames at the start of `data`, and the incomplete rest."""
    frames: list[bytes] = []
    pos = 0
    while len(data) - pos >= 4:
        (size,) = struct.unpack_from(">I", data, pos)
        if len(data) - pos - 4 < size:
            break
        frames.append(data[pos + 4 : pos + 4 + size])
        pos += 4 + size
    return frames, data[pos:]
