"""The store's files in a data dir, who may read them, and the lock that says a process is using them.

- `kubelite.db` and SQLite's `kubelite.db-wal` and `kubelite.db-shm` beside it: 0600, in a 0700 data dir.
  The database file is created 0600 before SQLite opens it, and SQLite gives the WAL and shared-memory files
  the database file's permissions; files found wider are tightened with a warning (kubelite.util.permissions).
- `kubelite.lock`: an exclusive `flock` held by a serving kubelite for as long as it runs (and by
  `kubelite store restore` while it replaces the files), with the holder's pid written in for the message.
  The kernel drops the lock when the process ends, however it ends, so a `kill -9` leaves no stale lock.
  A second server on the same data dir would keep a revision counter of its own in the same file; a restore
  under a running server would be overwritten by it, or worse: both are refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from kubelite.storage.errors import StoreInUse
from kubelite.storage.sqlite import schema
from kubelite.util.permissions import PRIVATE_DIR, PRIVATE_FILE, tighten

LOCK_FILE = "kubelite.lock"
#: the suffixes of the files SQLite keeps beside the database in WAL mode
SIDE_FILES = ("-wal", "-shm")


def store_files(db: Path) -> list[Path]:
    return [db, *(db.with_name(db.name + suffix) for suffix in SIDE_FILES)]


def prepare(data_dir: Path) -> Path:
    """Create the data dir and the database file, private; tighten what exists. Returns the database path."""
    data_dir.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    tighten(data_dir, PRIVATE_DIR)
    db = schema.db_path(data_dir)
    for path in store_files(db):
        tighten(path, PRIVATE_FILE)
    # O_EXCL: created here, 0600 whatever the umask, or left as it is (tightened above)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(db, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    return db


class DataDirLock:
    """The data dir's lock, taken without waiting: StoreInUse names the holder when another process has it."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self, purpose: str = "serving") -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
            os.close(fd)
            who = f"process {holder}" if holder else "another process"
            raise StoreInUse(
                f"the data dir {self.path.parent} is in use: {who} holds its lock {self.path} "
                "(a kubelite server runs on it, or a restore is under way)"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {purpose}\n".encode("ascii"), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing drops the flock

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
