"""Small accessors for object metadata, kept in one place so every layer reads objects the same way."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

Obj = dict[str, Any]


def now() -> datetime:
    return datetime.now(UTC)


def rfc3339(when: datetime) -> str:
    """metav1.Time's wire form: second precision, UTC, trailing Z."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def new_uid() -> str:
    return str(uuid.uuid4())


def metadata(obj: Obj) -> dict[str, Any]:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
        obj["metadata"] = meta
    return meta


def name_of(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def namespace_of(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "")


def labels_of(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def resource_version_of(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


def deep_copy(obj: Any) -> Any:
    """A copy of a JSON value. An orjson round trip is several times faster than walking the tree in Python;
    values orjson cannot hold (integers beyond 64 bits, from YAML) take the walk."""
    if isinstance(obj, dict | list):
        try:
            return orjson.loads(orjson.dumps(obj))
        except (orjson.JSONEncodeError, TypeError):
            return _walk_copy(obj)
    return obj


def _walk_copy(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _walk_copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_walk_copy(v) for v in obj]
    return obj
