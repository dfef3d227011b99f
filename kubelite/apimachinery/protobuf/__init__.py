"""The Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`) of built-in kinds.

client-go's typed clients, kubectl's generators and `auth` commands among them, send request bodies in
protobuf and prefer protobuf answers. This package converts between those bytes and the dicts kubelite
works with everywhere else (the JSON form), so nothing after the decoding step knows which encoding a
client used. Field numbers and types are Kubernetes' own (schema.json, generated from a kubectl of the
version we mimic); the wire work is done by the `protobuf` package's upb runtime, whose descriptors are
built on first use rather than at start-up.

    decode(body) -> dict                          # k8s\\0 envelope -> object, list or Status
    encode(obj) -> bytes                          # object/list/Status dict -> enveloped bytes
    encode_watch_event(type, obj) -> bytes        # one length-prefixed frame of a protobuf watch
    supports(api_version, kind) -> bool           # False for custom resources, Table, ...
    warm_up()                                     # pay the ~30 ms first-use cost now (e.g. in a thread)
"""

from __future__ import annotations

from kubelite.apimachinery.protobuf.convert import plans
from kubelite.apimachinery.protobuf.envelope import (
    decode,
    decode_watch_event,
    encode,
    encode_watch_event,
    split_frames,
    supports,
    unwrap,
    wrap,
)
from kubelite.apimachinery.protobuf.errors import MAGIC, ProtobufError, UnsupportedKindError

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
#: the Content-Type of a protobuf watch response
STREAM_MEDIA_TYPE = "application/vnd.kubernetes.protobuf;stream=watch"


def warm_up() -> None:
    """Load the protobuf runtime and build every descriptor and conversion plan now rather than on the
    first protobuf request; safe to call from a worker thread after start-up."""
    plans()


__all__ = [
    "MAGIC",
    "MEDIA_TYPE",
    "STREAM_MEDIA_TYPE",
    "ProtobufError",
    "UnsupportedKindError",
    "decode",
    "decode_watch_event",
    "encode",
    "encode_watch_event",
    "split_frames",
    "supports",
    "unwrap",
    "warm_up",
    "wrap",
]
