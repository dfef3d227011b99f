"""Object keys (`namespace/name`, or `name` for cluster-scoped objects) and the deletion tombstone.

Every store and queue in this package is keyed by a `KeyFunc`; the default is client-go's
`MetaNamespaceKeyFunc`. A `DeletedFinalStateUnknown` stands for an object that was deleted while the watch was
down: the relist no longer has it, so the last state the client saw is all there is, and it may be stale.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.meta import Obj


class KeyFuncError(ValueError):
    """An object a key cannot be made for (no metadata.name)."""


@dataclass(frozen=True, slots=True)
class DeletedFinalStateUnknown:
    """A deletion noticed by a relist. `obj` is the last state seen (None if none is known)."""

    key: str
    obj: Obj | None


KeyFunc = Callable[[Any], str]


def meta_namespace_key(obj: Any) -> str:
    """`namespace/name`, or `name` when the object has no namespace; a plain string is its own key."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, DeletedFinalStateUnknown):
        return obj.key
    try:
        metadata = obj["metadata"]
        name = metadata["name"]
    except (KeyError, TypeError):
        raise KeyFuncError(f"object has no metadata.name: {str(obj)[:200]}") from None
    if not name:
        raise KeyFuncError("object has an empty metadata.name")
    namespace = metadata.get("namespace")
    return f"{namespace}/{name}" if namespace else str(name)


def split_meta_namespace_key(key: str) -> tuple[str, str]:
    """(namespace, name); the namespace is "" for a cluster-scoped key."""
    parts = key.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise KeyFuncError(f"unexpected key format: {key!r}")


def resource_version(obj: Any) -> str:
    if isinstance(obj, dict):
        return str((obj.get("metadata") or {}).get("resourceVersion") or "")
    return ""
