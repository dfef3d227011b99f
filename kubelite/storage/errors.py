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


class CorruptStoreError(StorageError):
    """The store's file is damaged: SQLite reports it malformed, or its integrity check finds problems.

    Not retryable: reading the same pages again gives the same answer. `path` is the damaged file.
    """

    def __init__(self, message: str, *, path: str = "", key: str = "") -> None:
        super().__init__(message, key=key)
        self.path = path


class CorruptObjectError(CorruptStoreError):
    """A stored object cannot be read back: its value does not decode, or the row it points at is missing or
    belongs to another key (kube's ErrCodeCorruptObj). `key` names the object, `cause` says what is wrong
    with it (`__cause__` is the raw error); `others` names more corrupt objects met by the same read."""

    def __init__(
        self, key: str, cause: BaseException | str, *, path: str = "", others: list[str] | None = None
    ) -> None:
        self.others = others or []
        also = f"; also corrupt: {', '.join(self.others)}" if self.others else ""
        super().__init__(f"corrupt object {key}: {cause}{also}", path=path, key=key)
        self.cause = cause


class StoreInUse(StorageError):
    """Another process holds the data dir's lock: a server is running on it, or a restore is under way."""
