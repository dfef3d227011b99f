"""Continue tokens for paginated lists, in kube's format: base64url of {"v","rv","start"}.

The token carries the revision of the first page, so every later page reads the same snapshot; `start` is
the key (relative to the list's prefix) to resume from.
"""

from __future__ import annotations

import base64
import string

import orjson

_VERSION = "meta.k8s.io/v1"
_B64_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")


class InvalidContinueToken(ValueError):
    pass


def encode(revision: int, next_key_suffix: str) -> str:
    raw = orjson.dumps({"v": _VERSION, "rv": revision, "start": next_key_suffix + "\x00"})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _clean(start: str) -> bool:
    """Whether Go's path.Clean leaves "/" + start as it is: no empty, "." or ".." segment."""
    relative = start.removeprefix("/")
    return relative == "" or all(part not in ("", ".", "..") for part in relative.split("/"))


def _b64decode(token: str) -> bytes:
    """base64.RawURLEncoding: the URL alphabet, no padding, nothing else tolerated."""
    illegal = "continue key is not valid: illegal base64 data at input byte"
    for index, char in enumerate(token):
        if char not in _B64_ALPHABET:
            raise InvalidContinueToken(f"{illegal} {index}")
    if len(token) % 4 == 1:
        raise InvalidContinueToken(f"{illegal} {len(token) - 1}")
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def decode(token: str) -> tuple[int, str]:
    """(revision, key suffix to start strictly after), checked as kube's DecodeContinue checks it.

    A negative revision is kube's "continue at the latest revision" (an inconsistent continuation).
    """
    raw = _b64decode(token)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidContinueToken(f"continue key is not valid: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidContinueToken("continue key is not valid: the token is not a JSON object")
    version, start, revision = data.get("v", ""), data.get("start", ""), data.get("rv", 0)
    if not isinstance(start, str) or not isinstance(revision, int) or isinstance(revision, bool):
        raise InvalidContinueToken("continue key is not valid: rv must be an integer and start a string")
    if version != _VERSION:
        raise InvalidContinueToken(
            f"continue key is not valid: server does not recognize this encoded version {version}"
        )
    if revision == 0:
        raise InvalidContinueToken(
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        )
    if not start:
        raise InvalidContinueToken(
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)"
        )
    if not _clean(start):
        raise InvalidContinueToken(f"continue key is not valid: {start}")
    return revision, start.removeprefix("/").removesuffix("\x00")
