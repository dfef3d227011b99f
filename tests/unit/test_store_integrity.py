"""A damaged SQLite store: what the reader raises, what the integrity check finds, and the data dir's files.

Damage is made the way it happens: bytes overwritten in the file of a stopped store (a page of random bytes,
16 bytes of 0xFF over a `current` row), or a value that no longer decodes. The server-level behaviour (refusing
to start, the messages, exit codes) is in tests/e2e/test_hardening_store.py.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import sqlite3
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from kubelite.storage.cacher.cacher import Cacher
from kubelite.storage.errors import CorruptObjectError, CorruptStoreError, StoreInUse
from kubelite.storage.interface import ListOptions
from kubelite.storage.sqlite import SQLiteStorage, datadir, integrity, maintenance
from kubelite.storage.testing.conformance import configmap, key

PREFIX = "/registry/configmaps/"
PAGE = 4096


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(fn(), 30))


def seed(data_dir: Path, count: int = 40) -> None:
    async def main() -> None:
        storage = await SQLiteStorage.open(data_dir)
        for i in range(count):
            await storage.create(key(f"cm-{i:03d}"), configmap(f"cm-{i:03d}", k="v" * 200))
        await storage.close()

    run(main)


def db(data_dir: Path) -> Path:
    return data_dir / "kubelite.db"


def sql(data_dir: Path, statement: str, *params: object) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db(data_dir), isolation_level=None)
    try:
        return conn.execute(statement, params).fetchall()
    finally:
        conn.close()


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(data)


def damage_current_key(data_dir: Path, name: str) -> None:
    """16 bytes of 0xFF over a `current` row, as found in the field: the key's tail and the first byte of its
    revision, so the key leaves every resource's range and the revision becomes -1."""
    target = key(name).encode()
    pages = sql(data_dir, "SELECT pageno FROM dbstat WHERE name = 'current'")
    raw = db(data_dir).read_bytes()
    for (pageno,) in pages:
        start = (int(pageno) - 1) * PAGE  # type: ignore[call-overload]
        at = raw.find(target, start, start + PAGE)
        if at >= 0:
            overwrite(db(data_dir), at + len("/registry/configmaps"), b"\xff" * 16)
            return
    raise AssertionError(f"{target!r} not found in the pages of current")


def spoil_value(data_dir: Path, name: str) -> None:
    """Overwrite the first bytes of the stored JSON of `name` in the file (the row's own bytes)."""
    value = sql(data_dir, "SELECT l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?", key(name))[0][0]
    assert isinstance(value, bytes)
    raw = db(data_dir).read_bytes()
    at = raw.find(value)
    assert at >= 0 and raw.find(value, at + 1) < 0
    overwrite(db(data_dir), at, b"\xff" * 16)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    data_dir = tmp_path / "data"
    seed(data_dir)
    return data_dir


# -- what the reader raises ---------------------------------------------------------------------------------
def test_a_value_that_is_json_but_no_object_is_a_corrupt_object_in_a_list(store: Path) -> None:
    value = sql(store, "SELECT l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?", key("cm-003"))[0][0]
    assert isinstance(value, bytes)
    raw = db(store).read_bytes()
    at = raw.find(value)
    overwrite(db(store), at, b"[1]" + b" " * (len(value) - 3))  # the same length, so the page stays well formed

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptObjectError) as listed:
                await storage.get_list(PREFIX, ListOptions())
            assert listed.value.key == key("cm-003")
            assert "the stored value is a JSON list, not an object" in str(listed.value)
        finally:
            await storage.close()

    asyncio.run(main())




def test_a_value_that_does_not_decode_is_a_corrupt_object_on_get_and_list(store: Path) -> None:
    spoil_value(store, "cm-007")

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptObjectError) as got:
                await storage.get(key("cm-007"))
            assert got.value.key == key("cm-007")
            assert got.value.path == str(db(store))
            assert "the stored value does not decode" in str(got.value)
            assert (await storage.get(key("cm-006")))["metadata"]["name"] == "cm-006"
            with pytest.raises(CorruptObjectError) as listed:
                await storage.get_list(PREFIX, ListOptions())
            assert listed.value.key == key("cm-007")
            assert listed.value.others == []
            # a page that stops before it still answers
            page = await storage.get_list(PREFIX, ListOptions(limit=5))
            assert [item["metadata"]["name"] for item in page.items] == [f"cm-{i:03d}" for i in range(5)]
            with pytest.raises(CorruptObjectError):
                await storage.guaranteed_update(key("cm-007"), _unchanged)
        finally:
            await storage.close()

    run(main)


async def _unchanged(obj: object) -> object:
    return obj


def test_a_list_names_every_corrupt_object_it_meets(store: Path) -> None:
    for name in ("cm-003", "cm-020", "cm-031"):
        spoil_value(store, name)

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptObjectError) as listed:
                await storage.get_list(PREFIX, ListOptions())
            assert listed.value.key == key("cm-003")
            assert listed.value.others == [key("cm-020"), key("cm-031")]
            assert str(listed.value).endswith(f"; also corrupt: {key('cm-020')}, {key('cm-031')}")
        finally:
            await storage.close()

    run(main)


def test_a_current_row_pointing_at_no_log_row_is_not_an_absent_object(store: Path) -> None:
    """The join used to drop such a row: the object silently left every list, and a get said 404."""
    sql(store, "UPDATE current SET rev = 99999 WHERE key = ?", key("cm-003"))

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptObjectError) as listed:
                await storage.get_list(PREFIX, ListOptions())
            assert listed.value.key == key("cm-003")
            assert "points at no log row" in str(listed.value)
            with pytest.raises(CorruptObjectError):
                await storage.get(key("cm-003"))
        finally:
            await storage.close()

    run(main)


def test_a_current_row_pointing_at_another_keys_row_is_corrupt(store: Path) -> None:
    other = sql(store, "SELECT rev FROM current WHERE key = ?", key("cm-004"))[0][0]
    sql(store, "UPDATE current SET rev = ? WHERE key = ?", other, key("cm-005"))

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptObjectError) as got:
                await storage.get(key("cm-005"))
            assert got.value.key == key("cm-005")
        finally:
            await storage.close()

    run(main)


def test_a_malformed_page_is_a_corrupt_store_error_not_a_raw_sqlite_error(store: Path) -> None:
    pages = sql(store, "SELECT pageno FROM dbstat WHERE name = 'log' AND pagetype = 'leaf'")
    pageno = int(pages[len(pages) // 2][0])  # type: ignore[call-overload]
    overwrite(db(store), (pageno - 1) * PAGE, random.Random(7).randbytes(PAGE))

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            with pytest.raises(CorruptStoreError) as listed:
                await storage.get_list(PREFIX, ListOptions())
            assert isinstance(listed.value.__cause__, sqlite3.DatabaseError)
            assert listed.value.path == str(db(store))
        finally:
            await storage.close()

    run(main)


def test_is_damage_tells_corruption_from_other_sqlite_errors() -> None:
    corrupt = sqlite3.DatabaseError("database disk image is malformed")
    corrupt.sqlite_errorcode = 11  # type: ignore[attr-defined]
    busy = sqlite3.OperationalError("database is locked")
    busy.sqlite_errorcode = 5  # type: ignore[attr-defined]
    assert integrity.is_damage(corrupt)
    assert not integrity.is_damage(busy)
    assert integrity.is_damage(sqlite3.OperationalError("Could not decode to UTF-8 column 'key' with text 'x'"))
    assert not integrity.is_damage(ValueError("x"))
    assert integrity.corruption(busy, "/x") is busy


def test_the_watch_cache_fails_its_first_list_on_a_corrupt_object_instead_of_relisting(store: Path) -> None:
    spoil_value(store, "cm-010")

    async def main() -> None:
        storage = await SQLiteStorage.open(store)
        cacher = Cacher(storage, PREFIX)
        try:
            with pytest.raises(CorruptObjectError) as got:
                await asyncio.wait_for(cacher.start(), 5)
            assert got.value.key == key("cm-010")
        finally:
            await cacher.close()
            await storage.close()

    run(main)


# -- the integrity check ------------------------------------------------------------------------------------


def test_check_passes_a_healthy_store(store: Path) -> None:
    report = integrity.check(db(store), timeout=None, decode=True)
    assert report.ok and not report.incomplete
    assert (report.objects, report.rows) == (40, 40)


def test_check_finds_the_damaged_key_that_quick_check_passes(store: Path) -> None:
    damage_current_key(store, "cm-021")
    conn = sqlite3.connect(db(store))
    assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    # what the server used to serve: every object but that one, without a word
    listed = conn.execute(
        "SELECT COUNT(*) FROM current c JOIN log l ON l.rev = c.rev WHERE c.key >= ? AND c.key < ?",
        (PREFIX, "/registry/configmaps0"),
    ).fetchone()[0]
    conn.close()
    assert listed < 40  # the damaged key, out of order in its b-tree, can mislead the range scan past others too
    report = integrity.check(db(store), timeout=None)
    assert report.problems[-1] == (
        "object /registry/configmaps" + "\\xff" * 15 + ": its revision -1 points at no log row "
        "(the object is lost to reads)"
    )
    # integrity_check sees the key out of order, without naming it
    assert report.problems[0] == "integrity_check: row not in PRIMARY KEY order for current"


def test_check_finds_index_damage_that_quick_check_passes(store: Path) -> None:
    """The (key, rev) index serves lists at an old revision: a page of it damaged so that quick_check still
    passes can hide most of the log from them."""
    # the stored objects carry random uids, so where such damage can lie moves from run to run; now and then a
    # store has none, and another is seeded
    for attempt in range(5):
        if attempt:
            store = store.with_name(f"data-{attempt}")
            seed(store)
        if _finds_index_damage_quick_check_passes(store):
            return
    raise AssertionError("no damage to the index that quick_check passes")


def _finds_index_damage_quick_check_passes(store: Path) -> bool:
    """Damage every 64 bytes of every page of the index, with two patterns, until quick_check passes what
    integrity_check does not; then the store check must report it."""
    pristine = db(store).read_bytes()
    pages = sql(store, "SELECT pageno FROM dbstat WHERE name = 'log_key_rev'")
    for (pageno,), offset, pattern in itertools.product(pages, range(0, PAGE, 64), (b"\xff", b"\x00")):
        at = (int(pageno) - 1) * PAGE + offset  # type: ignore[call-overload]
        db(store).write_bytes(pristine[:at] + pattern * 16 + pristine[at + 16 :])
        conn = sqlite3.connect(db(store))
        try:
            quick = conn.execute("PRAGMA quick_check").fetchall()
            full = conn.execute("PRAGMA integrity_check").fetchall()
        except sqlite3.DatabaseError:
            continue
        finally:
            conn.close()
        if quick == [("ok",)] and full != [("ok",)]:
            report = integrity.check(db(store), timeout=None)
            assert report.problems and report.problems[0].startswith("integrity_check: ")
            return True
    return False


def test_check_finds_a_page_of_random_bytes(store: Path) -> None:
    pages = sql(store, "SELECT pageno FROM dbstat WHERE name = 'log' AND pagetype = 'leaf'")
    pageno = int(pages[1][0])  # type: ignore[call-overload]
    overwrite(db(store), (pageno - 1) * PAGE, random.Random(3).randbytes(PAGE))
    report = integrity.check(db(store), timeout=None)
    assert not report.ok
    assert report.problems[0].startswith(("integrity_check: ", "SQLite: "))


def test_check_with_decode_names_values_that_do_not_decode(store: Path) -> None:
    spoil_value(store, "cm-030")
    assert integrity.check(db(store), timeout=None).ok  # the pages are well formed
    report = integrity.check(db(store), timeout=None, decode=True)
    assert len(report.problems) == 1
    assert report.problems[0].startswith(f"object {key('cm-030')} at revision 31: the stored value does not decode")


def test_check_stops_when_told_or_at_its_deadline_and_says_so(store: Path) -> None:
    told = integrity.Check(db(store))
    told.stop()
    stopped = told.run(None)
    assert stopped.ok and stopped.incomplete == "was stopped"
    late = integrity.check(db(store), timeout=1e-9)
    assert late.incomplete == "stopped after its 1e-09 s budget"


def test_verify_raises_for_a_store_that_fails_the_check(store: Path) -> None:
    damage_current_key(store, "cm-002")

    async def main() -> None:
        storage = await SQLiteStorage.open(store, check_timeout=10)
        try:
            with pytest.raises(CorruptStoreError) as got:
                await storage.verify()
            assert str(got.value).startswith(
                f"the store {db(store)} failed its integrity check: object /registry/configmaps\\xff"
            )
            assert "; integrity_check: row not in PRIMARY KEY order for current" in str(got.value)
        finally:
            await storage.close()
        healthy = await SQLiteStorage.open(store.parent / "fresh", check_timeout=10)
        try:
            report = await healthy.verify()
            assert report is not None and report.ok
        finally:
            await healthy.close()

    run(main)


# -- the data dir's files -----------------------------------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_store_is_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "new"

    async def main() -> None:
        storage = await SQLiteStorage.open(data_dir)
        try:
            await storage.create(key("a"), configmap("a"))
            assert mode(data_dir) == 0o700
            for path in datadir.store_files(db(data_dir)):
                assert mode(path) == 0o600, path
        finally:
            await storage.close()

    old = os.umask(0)  # even a permissive umask does not open them up
    try:
        run(main)
    finally:
        os.umask(old)


def test_wider_permissions_are_tightened_with_a_warning_naming_the_file(
    store: Path, caplog: pytest.LogCaptureFixture
) -> None:
    os.chmod(store, 0o755)
    os.chmod(db(store), 0o644)
    datadir.prepare(store)
    assert (mode(store), mode(db(store))) == (0o700, 0o600)
    assert f"{db(store)} was readable by other users (mode 0644); changed to 0600" in caplog.text
    assert f"{store} was readable by other users (mode 0755); changed to 0700" in caplog.text


def test_the_lock_refuses_a_second_holder_naming_the_first(tmp_path: Path) -> None:
    first = datadir.DataDirLock(tmp_path)
    first.acquire()
    try:
        with pytest.raises(StoreInUse) as got:
            datadir.DataDirLock(tmp_path).acquire()
        assert f"process {os.getpid()} serving holds its lock {tmp_path / 'kubelite.lock'}" in str(got.value)
    finally:
        first.release()
    again = datadir.DataDirLock(tmp_path)
    again.acquire()
    again.release()


# -- backup and restore -------------------------------------------------------------------------------------


def rows(data_dir: Path) -> list[tuple[object, ...]]:
    return sql(data_dir, "SELECT c.key, l.rev, l.value FROM current c JOIN log l ON l.rev = c.rev ORDER BY c.key")


def test_backup_then_restore_into_a_fresh_dir_gives_the_same_store(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "backup.db"
    copied = maintenance.backup(store, target)
    assert (copied.objects, copied.revision) == (40, 40)
    assert mode(target) == 0o600
    assert not Path(f"{target}-wal").exists()
    restored, kept = maintenance.restore(tmp_path / "fresh", target)
    assert kept == []
    assert (restored.objects, restored.revision) == (40, 40)
    assert rows(tmp_path / "fresh") == rows(store)
    assert mode(db(tmp_path / "fresh")) == 0o600


def test_restore_keeps_the_replaced_store_and_starts_above_its_revision(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "backup.db"
    maintenance.backup(store, target)
    seed(store, 0)

    async def more() -> None:
        storage = await SQLiteStorage.open(store)
        await storage.create(key("later"), configmap("later"))
        await storage.close()

    run(more)
    restored, kept = maintenance.restore(store, target)
    assert restored.revision == 42  # the replaced store was at 41
    assert kept[0].name.startswith("kubelite.db.replaced-")
    assert all(p.name.startswith(kept[0].name) for p in kept)  # its WAL files keep its name
    old = sqlite3.connect(kept[0])
    assert old.execute("SELECT COUNT(*) FROM current").fetchone() == (41,)
    old.close()
    assert ("compacted", 42) in sql(store, "SELECT name, value FROM meta")

    async def reopened() -> None:
        storage = await SQLiteStorage.open(store)
        try:
            assert await storage.current_revision() == 42
            created = await storage.create(key("after"), configmap("after"))
            assert created["metadata"]["resourceVersion"] == "43"
        finally:
            await storage.close()

    run(reopened)


def test_restore_is_refused_while_the_data_dir_is_locked(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "backup.db"
    maintenance.backup(store, target)
    lock = datadir.DataDirLock(store)
    lock.acquire()
    try:
        with pytest.raises(StoreInUse):
            maintenance.restore(store, target)
    finally:
        lock.release()
    assert rows(store)  # untouched


def test_restore_refuses_a_damaged_backup(store: Path, tmp_path: Path) -> None:
    target = tmp_path / "backup.db"
    maintenance.backup(store, target)
    before = rows(store)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "kubelite.db").write_bytes(target.read_bytes())
    spoil_value(damaged, "cm-001")
    with pytest.raises(maintenance.MaintenanceError) as got:
        maintenance.restore(store, damaged / "kubelite.db")
    assert "is damaged, not restoring it" in str(got.value)
    assert rows(store) == before
