"""Storage errors: what backends raise. The registry turns them into API Status errors, once."""

from __future__ import annotations


class StorageError(Exception):
    def __init__(self, message: str, *, key: str = "") -> None:
        super().__init__(message)
        self.key = key


class KeyNotFound(StorageError):
    pass


class KeyExists(StorageError):
    pass


class Conflict(StorageError):
    """A precondition (uid or resourceVersion) did not hold."""


class TooOldResourceVersion(StorageError):
    """The requested revision was compacted away (HTTP 410 Gone)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(f"too old resource version: {requested} ({oldest})")
        self.requested = requested
        self.oldest = oldest


class FutureResourceVersion(StorageError):
    """A revision newer than the store has, that did not arrive in time (kube's 'Too large resource version')."""

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(f"Too large resource version: {requested}, current: {current}")
        self.requested = requested
        self.current = current
