"""The embedded storage backend: a revision log in one SQLite file (see store.py, schema.py)."""

from kubelite.storage.sqlite.store import SQLiteStorage
from kubelite.storage.sqlite.watch import SQLiteWatcher

__all__ = ["SQLiteStorage", "SQLiteWatcher"]
