"""What counts as damage to the store, and the integrity check that looks for it before a server serves.

SQLite notices some damage itself (a page that is not a b-tree page: SQLITE_CORRUPT, a file that is not a
database: SQLITE_NOTADB, a key that is not UTF-8) and raises; `corruption` turns those raw errors into
CorruptStoreError, the storage layer's own. Other damage it does not notice while reading: a byte changed in a
value makes JSON that no longer decodes (the reader checks, see queries.py), and a damaged `current` row can
point at no log row, or carry a key outside every resource's range, so that an object silently disappears.

`check` runs, on one read-only connection and under one deadline:
1. `PRAGMA integrity_check`: the b-trees and pages are well formed, and the `(key, rev)` index matches the
   log. quick_check skips that match, and a damaged index page it passes can hide most of the log from lists
   at an old revision (which walk that index); on 100,000 pods the match costs 0.03 s more;
2. every `current` row points at a live log row of that same key. A damaged key or revision breaks this and
   the object vanishes from every list; integrity_check notices only when the key falls out of order, and
   never names the object;
3. with `decode`, every stored value decodes as a JSON object (the start-up check leaves that to the watch
   caches, which decode every object anyway; `kubelite store check` does it).

A `Check` stops at its deadline or when `stop()` is called (from any thread: a server told to stop while it
checks) by interrupting its connection (`sqlite3_interrupt`), and between steps. Not with a progress handler:
that calls into Python every N steps, taking the GIL from a server loading its caches each time, and on a
busy machine a thread descheduled while holding the GIL stalls the loader for a whole time slice. As it is,
the check takes the GIL a handful of times. A check cut short says so in its report: it is not a pass.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from kubelite.storage.errors import CorruptStoreError
from kubelite.storage.sqlite import schema

#: SQLITE_CORRUPT and SQLITE_NOTADB (primary codes: the low byte of an extended code)
_DAMAGE_CODES = {11, 26}
#: how many problems a report keeps; a badly damaged file can have thousands
MAX_PROBLEMS = 20


def read_only_uri(path: Path) -> str:
    """The SQLite URI opening `path` read-only (the check and a backup must never write to what they read)."""
    return f"{path.resolve().as_uri()}?mode=ro"


def is_damage(exc: BaseException) -> bool:
    """Whether a raw SQLite error means the file is damaged (not busy, full, interrupted or misused)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in _DAMAGE_CODES:
        return True
    # raised by Python's sqlite3 itself, without a code: kubelite writes only UTF-8 keys
    return str(exc).startswith("Could not decode to UTF-8")


def corruption(exc: BaseException, path: Path | str) -> BaseException:
    """`exc` as CorruptStoreError (caused by it) when it means the file is damaged, else `exc` unchanged."""
    if not is_damage(exc):
        return exc
    error = CorruptStoreError(f"the store {path} is damaged: {exc}", path=str(path))
    error.__cause__ = exc
    return error


@dataclass
class Report:
    path: Path
    problems: list[str] = field(default_factory=list)
    #: set when the check stopped before the end (its deadline, or `stop`): what it did not reach is unchecked
    incomplete: str = ""
    seconds: float = 0.0
    #: how many current objects and log rows were decoded (with `decode`)
    objects: int = 0
    rows: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, problem: str) -> bool:
        """Record a problem; False once the report holds MAX_PROBLEMS (the caller may stop looking)."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(problem)
        return len(self.problems) < MAX_PROBLEMS

    def summary(self) -> str:
        """The first problems, those naming an object first (what an operator can act on)."""
        ordered = sorted(self.problems, key=lambda problem: not problem.startswith("object "))
        shown = "; ".join(ordered[:3])
        more = f" (and {len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return shown + more


class _Stopped(Exception):
    """Enough problems found: the report is full."""


class _Due(Exception):
    """The deadline passed, or `stop` was set, between two steps."""


def check(path: Path, *, timeout: float | None, decode: bool = False) -> Report:
    """Check the store at `path` (see the module docstring) on this thread; never raises for damage."""
    return Check(path, decode=decode).run(timeout)


class Check:
    """One run of the check, which another thread may `stop`."""

    def __init__(self, path: Path, *, decode: bool = False, mmap: bool = False) -> None:
        self.report = Report(path)
        self._decode = decode
        self._mmap = mmap
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        #: why the check ended early; set once, under the lock
        self._reason = ""
        self._deadline: float | None = None
        self._budget = ""

    def stop(self, reason: str = "was stopped") -> None:
        with self._lock:
            if self._reason:
                return
            self._reason = reason
            if self._conn is not None:
                self._conn.interrupt()  # the running statement fails with "interrupted"

    def _step(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self.stop(self._budget)
        if self._reason:
            raise _Due

    def run(self, timeout: float | None) -> Report:
        report = self.report
        started = time.monotonic()
        try:
            conn = sqlite3.connect(
                read_only_uri(report.path), uri=True, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            report.add(f"cannot open: {exc}")
            return report
        conn.text_factory = bytes  # a damaged key is reported, not a decode error
        if self._mmap:
            # Pages read in place instead of copied: half the CPU (100,000 pods: 0.36 -> 0.13 s). The price:
            # a sector the disk cannot read kills the process (SIGBUS) instead of failing the check.
            conn.execute(f"PRAGMA mmap_size = {max(report.path.stat().st_size * 2, 1 << 26)}")
        with self._lock:
            self._conn = conn
        timer = None
        if timeout:
            self._deadline, self._budget = started + timeout, f"stopped after its {timeout:g} s budget"
            timer = threading.Timer(timeout, self.stop, (self._budget,))
            timer.daemon = True
            timer.start()
        try:
            conn.execute("BEGIN")  # one snapshot for every step, even while a server writes
            _run(conn, report, self._decode, self._step)
            conn.execute("COMMIT")
        except _Stopped:
            pass
        except _Due:
            report.incomplete = self._reason
        except sqlite3.Error as exc:
            if self._reason:
                report.incomplete = self._reason
            else:
                report.add(f"SQLite: {exc}")
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                self._conn = None
            conn.close()
            report.seconds = time.monotonic() - started
        return report


def _run(conn: sqlite3.Connection, report: Report, decode: bool, step: Callable[[], None]) -> None:
    step()
    for (line,) in conn.execute("PRAGMA integrity_check(100)"):
        text = line.decode("utf-8", "backslashreplace") if isinstance(line, bytes) else str(line)
        if text != "ok":
            for problem in text.splitlines():
                if problem.strip() and not report.add(f"integrity_check: {problem.strip()}"):
                    raise _Stopped
    # on: the rows' check names the objects a damaged `current` page has lost, which the pages' check does not
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != schema.SCHEMA_VERSION:
        report.add(f"not a kubelite store (schema version {version})")
        return
    step()
    # in SQL, so that only damaged rows come back: a loop over every row would take the GIL from the loading
    # server once per object
    rows = conn.execute(
        "SELECT c.key, c.rev, l.key FROM current AS c LEFT JOIN log AS l ON l.rev = c.rev "
        "WHERE l.key IS NOT c.key OR l.deleted IS NOT 0"
    )
    for key, rev, log_key in rows:
        name = _name(key)
        if log_key is None:
            problem = f"object {name}: its revision {rev!r} points at no log row (the object is lost to reads)"
        elif log_key != key:
            problem = f"object {name}: its revision {rev!r} points at the log row of {_name(log_key)}"
        else:
            problem = f"object {name}: its revision {rev!r} is a deletion"
        if not report.add(problem):
            raise _Stopped
    if decode:
        step()
        report.objects = conn.execute("SELECT COUNT(*) FROM current").fetchone()[0]
        for rev, key, value in conn.execute("SELECT rev, key, value FROM log"):
            report.rows += 1
            try:
                obj = orjson.loads(value)
            except (orjson.JSONDecodeError, TypeError) as exc:
                problem = f"object {_name(key)} at revision {rev}: the stored value does not decode ({exc})"
            else:
                if isinstance(obj, dict):
                    continue
                problem = f"object {_name(key)} at revision {rev}: the stored value is not a JSON object"
            if not report.add(problem):
                raise _Stopped


def _name(key: object) -> str:
    if isinstance(key, bytes):
        return key.decode("utf-8", "backslashreplace")
    return repr(key)
