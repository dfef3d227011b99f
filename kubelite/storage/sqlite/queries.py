"""Read-side SQL: functions of a reader connection, run on a reader thread (see reader.py).

Objects are decoded here, off the event loop, and list predicates run here too, so a large list costs the
loop nothing but the hand-over of the result.

What is read is checked as it is read, so that damage to the file is never served as an absent object: a
`current` row whose log row is missing, belongs to another key or is a deletion comes back with a NULL value
(the `_VALUE` expression below) and, like a value that does not decode, raises CorruptObjectError naming the
key. A join that silently dropped such rows would make the object vanish from lists and gets.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from kubelite.apimachinery.meta import Obj
from kubelite.storage.errors import CorruptObjectError, FutureResourceVersion, TooOldResourceVersion
from kubelite.storage.interface import EventType, ListResult, WatchEvent
from kubelite.storage.keys import prefix_end, range_start
from kubelite.storage.sqlite import schema
from kubelite.storage.sqlite.writer import Row


@dataclass(frozen=True, slots=True)
class ListQuery:
    prefix: str
    #: read the state as of this revision; None reads the current state
    at: int | None
    #: with `at` None: fail unless the current revision is at least this (NotOlderThan)
    min_revision: int
    after: str | None
    limit: int
    predicate: Callable[[Obj], bool] | None
    transform: Callable[[Obj], None] | None = None


#: the value of the log row a `current` row (c) points at (l, LEFT JOINed), NULL unless that row is the key's own
#: live state; one comparison in SQL, so the check costs a list nothing it can measure
_VALUE = "CASE WHEN l.key = c.key AND l.deleted = 0 THEN l.value END"
_CURRENT_JOIN = "current AS c LEFT JOIN log AS l ON l.rev = c.rev"
CURRENT_ROW_SQL = f"SELECT c.rev, {_VALUE} FROM {_CURRENT_JOIN} WHERE c.key = ?"


def decode(key: str, value: bytes | None) -> Obj:
    """The stored JSON of `key` as an object; CorruptObjectError when it is missing or does not decode."""
    if value is None:
        raise CorruptObjectError(key, "its current revision points at no log row of this key")
    try:
        obj = orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        raise CorruptObjectError(key, f"the stored value does not decode: {exc}") from exc
    if not isinstance(obj, dict):
        raise CorruptObjectError(key, f"the stored value is a JSON {type(obj).__name__}, not an object")
    return obj


def get_row(conn: sqlite3.Connection, key: str) -> Row | None:
    row = conn.execute(CURRENT_ROW_SQL, (key,)).fetchone()
    if row is None:
        return None
    if row[1] is None:
        decode(key, None)  # raises
    return Row(int(row[0]), bytes(row[1]))


def get_object(conn: sqlite3.Connection, key: str) -> Obj | None:
    row = conn.execute(CURRENT_ROW_SQL, (key,)).fetchone()
    return None if row is None else decode(key, row[1])


def list_objects(conn: sqlite3.Connection, q: ListQuery) -> ListResult:
    """One consistent snapshot: the revision, the page and the remaining count are read together."""
    conn.execute("BEGIN")
    try:
        revision, compacted = schema.read_revisions(conn)
        at = q.at
        if at is not None:
            if at > revision:
                raise FutureResourceVersion(at, revision)
            if at < compacted:
                raise TooOldResourceVersion(at, compacted)
            if at == revision:
                at = None  # the current table answers the same, faster
        elif q.min_revision > revision:
            raise FutureResourceVersion(q.min_revision, revision)
        read_at = q.at if q.at is not None else revision

        start, inclusive = range_start(q.prefix, q.after)
        end = prefix_end(q.prefix)
        limit = max(q.limit, 0)
        items: list[Obj] = []
        keys: list[str] = []
        last_key: str | None = None
        more = False
        # Without a predicate every row is an item, so SQL can stop one row past the page.
        sql_limit = limit + 1 if limit and q.predicate is None else 0
        rows = _rows(conn, start, inclusive, end, at, sql_limit)
        corrupt: list[CorruptObjectError] = []
        try:
            for key, value in rows:
                try:
                    obj = orjson.loads(value)
                except (orjson.JSONDecodeError, TypeError):  # TypeError: NULL, see _VALUE
                    obj = None
                if type(obj) is not dict:  # undecodable, missing, or JSON that is not an object
                    try:
                        obj = decode(key, value)  # raises, saying which
                    except CorruptObjectError as exc:
                        corrupt.append(exc)  # read on, to name every corrupt object of the list at once
                        continue
                if q.transform is not None:
                    q.transform(obj)
                if q.predicate is not None and not q.predicate(obj):
                    continue
                if limit and len(items) == limit:
                    more = True
                    break
                items.append(obj)
                keys.append(key)
                last_key = key
        finally:
            rows.close()  # a page may stop early; finish the statement before the snapshot ends
        if corrupt:
            first = corrupt[0]
            raise CorruptObjectError(first.key, first.cause, others=[e.key for e in corrupt[1:]]) from first
        if not more:
            return ListResult(items=items, revision=read_at, keys=keys)
        assert last_key is not None
        # Like kube, count what remains only when no predicate filters it: the count would be a guess.
        remaining = _count(conn, last_key, end, at) if q.predicate is None else None
        return ListResult(items=items, revision=read_at, next_key=last_key, remaining=remaining, keys=keys)
    finally:
        conn.execute("COMMIT")


# The state as of revision R: for each key, its newest row at or below R, unless that row is a deletion.
# Walking the (key, rev) index keeps key order, so a page stops after `limit` rows instead of sorting.
_AT_FILTER = (
    "l.key {low} ? AND l.key < ? AND l.rev <= ? AND l.deleted = 0 "
    "AND l.rev = (SELECT MAX(n.rev) FROM log AS n WHERE n.key = l.key AND n.rev <= ?)"
)


def _rows(
    conn: sqlite3.Connection, start: str, inclusive: bool, end: str, at: int | None, limit: int
) -> sqlite3.Cursor:
    """(key, value) rows in key order, streamed: SQLite steps as the caller iterates."""
    low = ">=" if inclusive else ">"
    tail = " LIMIT ?" if limit else ""
    if at is None:
        sql = f"SELECT c.key, {_VALUE} FROM {_CURRENT_JOIN} WHERE c.key {low} ? AND c.key < ? ORDER BY c.key{tail}"
        params: tuple[object, ...] = (start, end)
    else:
        sql = f"SELECT l.key, l.value FROM log AS l WHERE {_AT_FILTER.format(low=low)} ORDER BY l.key{tail}"
        params = (start, end, at, at)
    if limit:
        params = (*params, limit)
    return conn.execute(sql, params)


def _count(conn: sqlite3.Connection, after: str, end: str, at: int | None) -> int:
    if at is None:
        row = conn.execute("SELECT COUNT(*) FROM current WHERE key > ? AND key < ?", (after, end)).fetchone()
    else:
        sql = f"SELECT COUNT(*) FROM log AS l WHERE {_AT_FILTER.format(low='>')}"
        row = conn.execute(sql, (after, end, at, at)).fetchone()
    return int(row[0])


def history(
    conn: sqlite3.Connection, prefix: str, after: int, until: int, limit: int
) -> tuple[list[WatchEvent], int]:
    """Log rows under `prefix` with after < revision <= until, oldest first, at most `limit`.

    Returns the events and the revision up to which the range has been read completely.
    """
    rows = conn.execute(
        "SELECT l.rev, l.key, l.deleted, l.prev_rev, l.value, p.value FROM log AS l "
        "LEFT JOIN log AS p ON p.rev = l.prev_rev "
        "WHERE l.rev > ? AND l.rev <= ? AND l.key >= ? AND l.key < ? ORDER BY l.rev LIMIT ?",
        (after, until, prefix, prefix_end(prefix), limit),
    ).fetchall()
    events: list[WatchEvent] = []
    for rev, key, deleted, prev_rev, value, prev_value in rows:
        if deleted:
            kind = EventType.DELETED
        elif prev_rev is None:
            kind = EventType.ADDED
        else:
            kind = EventType.MODIFIED
        prev = decode(key, prev_value) if prev_value is not None else None
        events.append(WatchEvent(type=kind, key=key, obj=decode(key, value), revision=rev, prev=prev))
    done = until if len(rows) < limit else int(rows[-1][0])
    return events, done
