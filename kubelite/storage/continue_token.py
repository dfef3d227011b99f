"""Continue tokens for paginated lists, in kube's format: base64url of {"v","rv","start"}.

The token carries the revision of the first page, so every later page reads the same snapshot; `start` is
the key (relative to the list's prefix) to resume from.
"""

from __future__ import annotations

import base64
import binascii

import orjson

_VERSION = "meta.k8s.io/v1"


class InvalidContinueToken(ValueError):
    pass


def encode(revision: int, next_key_suffix: str) -> str:
    raw = orjson.dumps({"v": _VERSION, "rv": revision, "start": next_key_suffix + "\x00"})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str) -> tuple[int, str]:
    """(revision, key suffix to start strictly after)."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = orjson.loads(raw)
    except (binascii.Error, ValueError) as exc:
        raise InvalidContinueToken("continue key is not valid: illegal base64 data") from exc
    if not isinstance(data, dict) or data.get("v") != _VERSION:
        raise InvalidContinueToken(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        )
    start = data.get("start")
    revision = data.get("rv")
    if not isinstance(start, str) or not isinstance(revision, int) or not start or ".." in start.split("/"):
        raise InvalidContinueToken("continue key is not valid: invalid start key")
    return revision, start.removesuffix("\x00")
