"""The errors of the protobuf codec, and the envelope prefix both directions need.

Handlers map ProtobufError to 400 (a body that does not decode) and UnsupportedKindError to a JSON answer
or 415/406, as kube-apiserver does for kinds without a protobuf encoding (custom resources, Table).
"""

from __future__ import annotations

#: every Kubernetes protobuf body starts with these four bytes
MAGIC = b"k8s\x00"


class ProtobufError(ValueError):
    """Bytes or a dict that cannot be converted (malformed wire data, wrong value types).

    `path` is the JSON field path of the offending value, when there is one (`spec.replicas`).
    """

    def __init__(self, reason: str, path: tuple[str, ...] = ()) -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{'.'.join(path)}: {reason}" if path else reason)

    def under(self, key: str) -> ProtobufError:
        """The same error seen from the object holding `key`."""
        return type(self)(self.reason, (key, *self.path))


class UnsupportedKindError(ProtobufError):
    """The apiVersion/kind has no protobuf message in the schema (custom resources, Table, ...)."""
