"""`kubelite store check | backup | restore`: looking after a data dir's store from outside the server.

- check: the integrity check (integrity.py) with every stored value decoded, however long it takes; safe
  beside a running server (one read transaction on a read-only connection).
- backup: SQLite's online backup API copies the database in one step, that is inside one read transaction:
  in WAL mode that is a consistent snapshot at one revision while the server goes on committing, and the
  server's writes are not held up. The copy is a single self-contained file (rollback journal mode, no WAL
  beside it), private (0600), written under a temporary name, checked, fsynced and renamed into place.
- restore: refused while the data dir's lock is held (datadir.py: a server runs on it) and for a backup that
  fails the check. The store it replaces is kept beside, renamed `kubelite.db.replaced-<UTC time>` (with its
  WAL files), never deleted: restoring the wrong file must not cost the right one. When the replaced store
  was at a newer revision than the backup, the restored one starts above it, compacted there (etcd's
  `snapshot restore --bump-revision --mark-compacted`): resourceVersions never go back, and clients holding
  one from before the restore get 410 Gone and relist instead of waiting for a revision that means another
  state.

The command functions print what they did and return the process's exit code; cli.py only parses arguments.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kubelite.storage.errors import StorageError
from kubelite.storage.sqlite import datadir, integrity, schema
from kubelite.util.permissions import PRIVATE_DIR, PRIVATE_FILE


class MaintenanceError(StorageError):
    """A maintenance command cannot do what it was asked; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Copied:
    path: Path
    revision: int
    objects: int


def advice(data_dir: Path) -> str:
    """What to do about a damaged store, for the message of a server that refuses to start on it."""
    return (
        "refusing to serve from a damaged store. List every problem with "
        f"`kubelite store check --data-dir {data_dir}`; restore a backup (with the server stopped) with "
        f"`kubelite store restore --data-dir {data_dir} BACKUP_FILE`. "
        "`--skip-store-check` skips the start-up check (not the checks of what is read), to serve what is left."
    )


def backup(data_dir: Path, target: Path) -> Copied:
    """Copy the store of `data_dir` to `target` (see the module docstring); the server may be running."""
    db = _existing_store(data_dir)
    if target.is_dir():
        raise MaintenanceError(f"{target} is a directory; name the backup file to write")
    if not target.parent.is_dir():
        raise MaintenanceError(f"{target.parent} does not exist")
    try:
        source = sqlite3.connect(integrity.read_only_uri(db), uri=True)
    except sqlite3.Error as exc:
        raise MaintenanceError(f"cannot open {db}: {exc}") from exc
    try:
        return _copy(source, target, what=f"the store {db}")
    finally:
        source.close()


def restore(data_dir: Path, backup_file: Path) -> tuple[Copied, list[Path]]:
    """Replace the store of `data_dir` by `backup_file`; returns the copy and where the old files went."""
    if not backup_file.is_file():
        raise MaintenanceError(f"no backup file at {backup_file}")
    report = integrity.check(backup_file, timeout=None, decode=True)
    if not report.ok:
        raise MaintenanceError(f"the backup {backup_file} is damaged, not restoring it: {report.summary()}")
    data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    kept: list[Path] = []
    with datadir.DataDirLock(data_dir) as lock:
        lock.acquire("restoring")
        db = schema.db_path(data_dir)
        previous = _revision_of(db)
        source = sqlite3.connect(integrity.read_only_uri(backup_file), uri=True)
        try:
            # the old store is moved aside only once its replacement is checked and on disk beside it, so a copy
            # that fails leaves the data dir as it was
            copied = _copy(
                source, db, what=f"the backup {backup_file}", before_replace=lambda: kept.extend(_move_aside(db))
            )
        finally:
            source.close()
        if previous is not None and previous > copied.revision:
            copied = _start_above(db, previous, copied)
    return copied, kept


def _revision_of(db: Path) -> int | None:
    """The current revision of the store at `db`, None when there is none or it cannot be read."""
    if not db.is_file() or db.stat().st_size == 0:
        return None
    try:
        conn = sqlite3.connect(integrity.read_only_uri(db), uri=True)
        try:
            return schema.read_revisions(conn)[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def _start_above(db: Path, previous: int, copied: Copied) -> Copied:
    revision = previous + 1
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("UPDATE meta SET value = ? WHERE name = 'compacted'", (revision,))
    finally:
        conn.close()
    return Copied(copied.path, revision, copied.objects)


def _existing_store(data_dir: Path) -> Path:
    db = schema.db_path(data_dir)
    if not db.is_file() or db.stat().st_size == 0:
        raise MaintenanceError(f"no kubelite store at {db}")
    return db


def _copy(
    source: sqlite3.Connection, target: Path, *, what: str, before_replace: Callable[[], None] | None = None
) -> Copied:
    """Copy `source` into a new private file renamed to `target` once checked and on disk; `before_replace`
    runs just before that rename."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    try:
        dest = sqlite3.connect(tmp, isolation_level=None)
        try:
            try:
                source.backup(dest)  # every page in one step: one read transaction, one revision
            except sqlite3.Error as exc:
                raise MaintenanceError(f"cannot copy {what}: {exc}") from integrity.corruption(exc, what)
            # one self-contained file: rollback journal mode, so no WAL is needed beside it
            dest.execute("PRAGMA journal_mode = DELETE")
            copied = _describe(dest, target)
        finally:
            dest.close()
        report = integrity.check(tmp, timeout=None, decode=True)
        if not report.ok:
            raise MaintenanceError(f"the copy of {what} fails the integrity check: {report.summary()}")
        _fsync(tmp)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, target)
        _fsync(target.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return copied


def _describe(conn: sqlite3.Connection, path: Path) -> Copied:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != schema.SCHEMA_VERSION:
        raise MaintenanceError(f"not a kubelite store (schema version {version}, want {schema.SCHEMA_VERSION})")
    revision, _ = schema.read_revisions(conn)
    objects = conn.execute("SELECT COUNT(*) FROM current").fetchone()[0]
    return Copied(path, revision, int(objects))


def _move_aside(db: Path) -> list[Path]:
    """Rename the store's files out of the way, keeping them together: `kubelite.db.replaced-<time>[-wal]`."""
    present = [p for p in datadir.store_files(db) if p.exists()]
    if not present or (present == [db] and db.stat().st_size == 0):
        for path in present:
            path.unlink()
        return []
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    kept = []
    for path in present:
        if path.name.endswith("-shm") or (path != db and path.stat().st_size == 0):
            path.unlink()  # the WAL's index, rebuilt from the WAL on open; an empty WAL holds nothing
            continue
        moved = path.with_name(f"{db.name}.replaced-{stamp}{path.name[len(db.name):]}")
        os.replace(path, moved)
        os.chmod(moved, PRIVATE_FILE)  # it holds the same Secrets
        kept.append(moved)
    _fsync(db.parent)
    return kept


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the commands ---------------------------------------------------------------------------------------------


def check_command(data_dir: Path, *, timeout: float | None) -> int:
    try:
        db = _existing_store(data_dir)
    except MaintenanceError as exc:
        print(f"kubelite: {exc}", file=sys.stderr)
        return 1
    report = integrity.check(db, timeout=timeout, decode=True)
    counted = f"{report.objects} objects, {report.rows} log rows, {report.seconds:.2f} s"
    if not report.ok:
        print(f"{db}: DAMAGED ({counted})")
        for problem in report.problems:
            print(f"  {problem}")
        if len(report.problems) >= integrity.MAX_PROBLEMS:
            print(f"  (the check stopped at {integrity.MAX_PROBLEMS} problems)")
        print(f"Restore a backup with `kubelite store restore --data-dir {data_dir} BACKUP_FILE`.")
        return 1
    if report.incomplete:
        print(f"{db}: INCOMPLETE, {report.incomplete}: no damage found in what was read ({counted})")
        return 1
    print(f"{db}: ok ({counted})")
    return 0


def backup_command(data_dir: Path, target: Path) -> int:
    try:
        copied = backup(data_dir, target)
    except MaintenanceError as exc:
        print(f"kubelite: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {copied.objects} objects at revision {copied.revision} to {copied.path}")
    return 0


def restore_command(data_dir: Path, backup_file: Path) -> int:
    try:
        copied, kept = restore(data_dir, backup_file)
    except StorageError as exc:  # MaintenanceError, StoreInUse
        print(f"kubelite: {exc}", file=sys.stderr)
        return 1
    print(f"restored {copied.objects} objects at revision {copied.revision} into {copied.path}")
    for path in kept:
        print(f"the replaced file is kept as {path}")
    with contextlib.suppress(OSError):
        os.chmod(data_dir, PRIVATE_DIR)
    return 0
