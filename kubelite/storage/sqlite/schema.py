"""The on-disk layout of the SQLite store and how its connections are opened.

One file, `<data_dir>/kubelite.db`, in WAL mode with `synchronous=FULL`: a COMMIT returns only after the WAL
is fsynced, so an acknowledged write survives `kill -9` and power loss.

Tables:

- `log(rev, key, deleted, prev_rev, value)`: the revision log, one row per write, keyed by the global
  revision (etcd's MVCC history). `value` is the object as JSON with `metadata.resourceVersion` = `rev`. A
  deletion is a row with `deleted = 1` whose value is the last state carrying the deletion's revision, so a
  watch replayed from the log can send DELETED with that object. `prev_rev` is the key's previous row
  (NULL when the write created the key): it gives watch events their `prev` and tells ADDED from MODIFIED.
  The `(key, rev)` index answers "state of key K at revision R" for lists at an old revision.
- `current(key, rev)`: one row per live key pointing at its newest log row. Gets and current-state lists
  read it (a key range scan plus one primary-key lookup per item), so they cost the same however much
  history is retained; pointing into the log instead of copying the value keeps each write to one copy of
  the object.
- `meta(name, value)`: `compacted`, the revision history was last compacted to.

The current revision is not stored: it is the newest log row, or the compacted revision when compaction
removed a trailing deletion (rows above the compacted revision are never removed).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

DB_FILE = "kubelite.db"
SCHEMA_VERSION = 1

_DDL = """
CREATE TABLE log (
    rev INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    deleted INTEGER NOT NULL,
    prev_rev INTEGER,
    value BLOB NOT NULL
);
CREATE INDEX log_key_rev ON log (key, rev);
CREATE TABLE current (
    key TEXT PRIMARY KEY,
    rev INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (name, value) VALUES ('compacted', 0);
"""


def db_path(data_dir: str | Path) -> Path:
    return Path(data_dir) / DB_FILE


def connect(path: Path, *, writer: bool) -> sqlite3.Connection:
    """Open a connection in autocommit mode; transactions are issued explicitly (BEGIN ... COMMIT)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA cache_size = -32000")
    if writer:
        # journal_mode is persistent in the file; synchronous is per connection and only the writer commits.
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    else:
        conn.execute("PRAGMA query_only = ON")
    return conn


def init(conn: sqlite3.Connection) -> tuple[int, int]:
    """Create the tables on a new file; return (current revision, compacted revision)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 0:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _DDL.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    elif version != SCHEMA_VERSION:
        raise RuntimeError(f"unsupported kubelite database schema version {version} (want {SCHEMA_VERSION})")
    return read_revisions(conn)


def read_revisions(conn: sqlite3.Connection) -> tuple[int, int]:
    """(current revision, compacted revision) as seen by the connection's current snapshot."""
    newest = conn.execute("SELECT MAX(rev) FROM log").fetchone()[0] or 0
    compacted = conn.execute("SELECT value FROM meta WHERE name = 'compacted'").fetchone()[0]
    return max(newest, compacted), compacted
