"""A damaged store, backups and the store's file permissions, against real kubelite processes.

The damage is done to a stopped server's file the way disks and stray writes do it: a page of random bytes,
a value whose bytes no longer decode, 16 bytes of 0xFF over a `current` row (which SQLite's quick_check does
not notice). Before, the first two left the server relisting forever, never ready, and the third made it
serve every object but one without a word; now each refuses to start, saying which file and what to do.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

PAGE = 4096
CONFIGMAPS = 60
KEY_PREFIX = "/registry/configmaps/default/"


def kubelite(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubelite", *args], capture_output=True, text=True, timeout=timeout
    )


def serve_expecting_refusal(data_dir: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Start a server that must refuse to serve: fails the test if it gets ready or does not exit in time."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubelite", "serve", "--data-dir", str(data_dir), "--insecure-port", "0",
         "--secure-port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        what = "got ready instead of refusing" if "kubelite: ready" in out else f"did not exit in {timeout} s"
        raise AssertionError(f"kubelite {what}:\n{out}\n{err[-3000:]}") from None
    assert "kubelite: ready" not in out, f"kubelite got ready, then exited:\n{err[-3000:]}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stopped server's data dir holding CONFIGMAPS configmaps in `default`, to copy and damage."""
    data_dir = tmp_path_factory.mktemp("populated") / "data"
    server = KubeliteProcess(data_dir).start()
    try:
        for i in range(CONFIGMAPS):
            result = server.http("POST", "/api/v1/namespaces/default/configmaps", configmap(f"cm-{i:03d}", k="v" * 200))
            assert result.status == 201, result.body
    finally:
        server.stop()
    return data_dir


@pytest.fixture
def data_dir(populated: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(populated, copy)
    (copy / "server.log").unlink(missing_ok=True)
    return copy


def db(data_dir: Path) -> Path:
    return data_dir / "kubelite.db"


def query(path: Path, statement: str, *params: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(statement, params).fetchall()
    finally:
        conn.close()


def overwrite(path: Path, offset: int, data: bytes) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        f.write(data)


def pages_of(data_dir: Path, table: str) -> list[int]:
    rows = query(db(data_dir), "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", table)
    return [int(page) for (page,) in rows]


def assert_refusal_names_the_store(result: subprocess.CompletedProcess[str], data_dir: Path) -> None:
    assert result.returncode == 1, result.stderr
    assert f"kubelite: refusing to serve from a damaged store. List every problem with `kubelite store check " \
        f"--data-dir {data_dir}`; restore a backup (with the server stopped) with `kubelite store restore " \
        f"--data-dir {data_dir} BACKUP_FILE`." in result.stderr
    assert "Traceback" not in result.stderr


# -- a damaged store is refused -----------------------------------------------------------------------------


def test_a_page_of_random_bytes_is_refused_at_start(data_dir: Path) -> None:
    page = pages_of(data_dir, "log")[2]
    overwrite(db(data_dir), (page - 1) * PAGE, random.Random(11).randbytes(PAGE))
    started = time.monotonic()
    result = serve_expecting_refusal(data_dir)
    assert time.monotonic() - started < 20
    assert f"kubelite: the store {db(data_dir)} " in result.stderr
    assert_refusal_names_the_store(result, data_dir)


def test_a_value_that_no_longer_decodes_is_refused_naming_the_object(data_dir: Path) -> None:
    (value,) = query(
        db(data_dir), "SELECT l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?", KEY_PREFIX + "cm-017"
    )[0]
    raw = db(data_dir).read_bytes()
    overwrite(db(data_dir), raw.index(value) + 40, b"\xff" * 16)
    result = serve_expecting_refusal(data_dir)
    assert f"kubelite: corrupt object {KEY_PREFIX}cm-017: the stored value does not decode: " in result.stderr
    assert_refusal_names_the_store(result, data_dir)


def damage_current_row(data_dir: Path, name: str) -> None:
    """16 bytes of 0xFF from the 21st byte of a `current` row's key: its tail and its revision's first byte."""
    target = (KEY_PREFIX + name).encode()
    raw = db(data_dir).read_bytes()
    for page in pages_of(data_dir, "current"):
        at = raw.find(target, (page - 1) * PAGE, page * PAGE)
        if at >= 0:
            overwrite(db(data_dir), at + len("/registry/configmaps"), b"\xff" * 16)
            return
    raise AssertionError(f"{target!r} is in no page of current")


def test_sixteen_bytes_of_ff_over_a_current_row_are_refused_not_served_as_one_object_less(data_dir: Path) -> None:
    damage_current_row(data_dir, "cm-033")
    assert query(db(data_dir), "PRAGMA quick_check") == [("ok",)]  # SQLite's quick check sees nothing
    result = serve_expecting_refusal(data_dir)
    assert (
        f"kubelite: the store {db(data_dir)} failed its integrity check: object /registry/configmaps"
        + "\\xff" * 15
        + ": its revision -1 points at no log row (the object is lost to reads); integrity_check: "
    ) in result.stderr
    assert_refusal_names_the_store(result, data_dir)

    checked = kubelite("store", "check", "--data-dir", str(data_dir))
    assert checked.returncode == 1
    assert checked.stdout.startswith(f"{db(data_dir)}: DAMAGED (")
    assert "  object /registry/configmaps" + "\\xff" * 15 + ": its revision -1 points at no log row" in checked.stdout

    # the operator's choice: serve what is left, the damaged object missing
    server = KubeliteProcess(data_dir, extra_args=["--skip-store-check"]).start()
    try:
        items = server.http("GET", "/api/v1/namespaces/default/configmaps").json()["items"]
        names = [item["metadata"]["name"] for item in items]
        assert "cm-033" not in names and "cm-032" in names
    finally:
        server.stop()


def test_a_value_damaged_while_serving_is_a_500_naming_the_object_never_left_out(data_dir: Path) -> None:
    """Damage after start: the watch cache holds the object as it was; a read of the file meets the damage (a
    list at a revision from before the start, which the cache's window does not reach)."""
    (before_start,) = query(db(data_dir), "SELECT MAX(rev) FROM log")[0]
    server = KubeliteProcess(data_dir).start()
    try:
        conn = sqlite3.connect(db(data_dir), timeout=10)
        conn.execute(
            "UPDATE log SET value = x'ffffffffffffffff' WHERE rev = (SELECT rev FROM current WHERE key = ?)",
            (KEY_PREFIX + "cm-005",),
        )
        conn.commit()
        conn.close()
        old = f"resourceVersion={before_start - 1}&resourceVersionMatch=Exact"
        result = server.http("GET", f"/api/v1/namespaces/default/configmaps?{old}")
        assert result.status == 500, result.body[:300]
        status = result.json()
        assert (status["kind"], status["reason"], status["code"]) == ("Status", "InternalError", 500)
        assert f"corrupt object {KEY_PREFIX}cm-005: the stored value does not decode" in status["message"]
        # a list the damaged object is not part of still answers
        assert server.http("GET", f"/api/v1/namespaces/kube-system/configmaps?{old}").status == 200
    finally:
        server.stop()


def test_store_check_passes_a_healthy_store(data_dir: Path) -> None:
    result = kubelite("store", "check", "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"{db(data_dir)}: ok (")
    missing = kubelite("store", "check", "--data-dir", str(data_dir / "nowhere"))
    assert missing.returncode == 1
    assert missing.stderr == f"kubelite: no kubelite store at {data_dir / 'nowhere' / 'kubelite.db'}\n"


def test_a_check_cut_short_by_its_budget_warns_and_serves(data_dir: Path) -> None:
    server = KubeliteProcess(data_dir, extra_args=["--store-check-timeout", "1ns"]).start()
    try:
        assert server.http("GET", "/api/v1/namespaces/default/configmaps/cm-001").status == 200
    finally:
        server.stop()
    log = (data_dir / "server.log").read_text()
    assert f"integrity check of {db(data_dir)} stopped after its 1e-09 s budget: the rest is unchecked" in log


# -- one server per data dir ---------------------------------------------------------------------------------


def test_a_second_server_and_a_restore_are_refused_while_a_server_runs(data_dir: Path, tmp_path: Path) -> None:
    server = KubeliteProcess(data_dir).start()
    try:
        assert server.proc is not None
        second = serve_expecting_refusal(data_dir)
        assert second.returncode == 1
        assert second.stderr.endswith(
            f"kubelite: the data dir {data_dir} is in use: process {server.proc.pid} serving holds its lock "
            f"{data_dir / 'kubelite.lock'} (a kubelite server runs on it, or a restore is under way)\n"
        )
        checked = kubelite("store", "check", "--data-dir", str(data_dir))  # safe beside the server
        assert checked.returncode == 0 and checked.stdout.startswith(f"{db(data_dir)}: ok ("), checked.stdout
        backup = tmp_path / "backup.db"
        assert kubelite("store", "backup", "--data-dir", str(data_dir), str(backup)).returncode == 0
        before = db(data_dir).stat().st_ino
        restore = kubelite("store", "restore", "--data-dir", str(data_dir), str(backup))
        assert restore.returncode == 1
        assert f"kubelite: the data dir {data_dir} is in use: process {server.proc.pid} serving" in restore.stderr
        assert db(data_dir).stat().st_ino == before
        assert server.http("GET", "/api/v1/namespaces/default/configmaps/cm-001").status == 200
    finally:
        server.stop()


# -- backup and restore --------------------------------------------------------------------------------------


@pytest.fixture
def running(data_dir: Path) -> Iterator[KubeliteProcess]:
    server = KubeliteProcess(data_dir).start()
    yield server
    server.stop()


def test_a_backup_under_write_load_restores_to_a_server_serving_the_same_objects(
    running: KubeliteProcess, tmp_path: Path
) -> None:
    written: list[int] = []
    stop = threading.Event()

    def load() -> None:
        for i in range(2000):  # bounded: a few seconds at most
            if stop.is_set():
                return
            result = running.http("POST", "/api/v1/namespaces/default/configmaps", configmap(f"load-{i:04d}", n=str(i)))
            assert result.status == 201, result.body
            written.append(int(result.json()["metadata"]["resourceVersion"]))

    writer = threading.Thread(target=load)
    writer.start()
    try:
        deadline = time.monotonic() + 20
        while len(written) < 50 and time.monotonic() < deadline:
            time.sleep(0.01)
        backup = tmp_path / "backup.db"
        result = kubelite("store", "backup", "--data-dir", str(running.data_dir), str(backup))
        during = len(written)
        while len(written) < during + 50 and time.monotonic() < deadline and writer.is_alive():
            time.sleep(0.01)
    finally:
        stop.set()
        writer.join(30)
    assert result.returncode == 0, result.stderr
    assert len(written) >= during + 50, "the writes did not go on beside the backup"
    objects, revision = result.stdout.split(" objects at revision ")
    revision = revision.split(" ")[0]
    assert result.stdout == f"backed up {objects.split()[-1]} objects at revision {revision} to {backup}\n"
    assert written[0] < int(revision) < written[-1]
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600

    # the original's state at the backup's revision, read through its API
    exact = f"resourceVersion={revision}&resourceVersionMatch=Exact"
    then = running.http("GET", f"/api/v1/configmaps?{exact}").json()["items"]
    namespaces_then = running.http("GET", f"/api/v1/namespaces?{exact}").json()["items"]
    assert {i["metadata"]["name"] for i in then} >= {"cm-000", "load-0000"}

    restored_dir = tmp_path / "restored"
    restored = kubelite("store", "restore", "--data-dir", str(restored_dir), str(backup))
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout == (
        f"restored {objects.split()[-1]} objects at revision {revision} into {restored_dir / 'kubelite.db'}\n"
    )
    # the PKI is not part of the store: the restored server keeps the original's, so nothing is re-signed
    second = KubeliteProcess(restored_dir, extra_args=["--cert-dir", str(running.data_dir / "pki")]).start()
    try:
        now = second.http("GET", "/api/v1/configmaps").json()["items"]
        assert sorted(now, key=_name) == sorted(then, key=_name)
        namespaces = second.http("GET", "/api/v1/namespaces").json()["items"]
        assert sorted(namespaces, key=_name) == sorted(namespaces_then, key=_name)
        created = second.http("POST", "/api/v1/namespaces/default/configmaps", configmap("after-restore"))
        assert created.status == 201
        assert int(created.json()["metadata"]["resourceVersion"]) > int(revision)
    finally:
        second.stop()


def _name(obj: dict[str, Any]) -> str:
    return f"{obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}"


# -- permissions ---------------------------------------------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_dir_and_its_store_and_keys_are_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "new" / "data"  # created by kubelite itself (KubeliteProcess would create it first)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubelite", "serve", "--data-dir", str(data_dir), "--insecure-port", "0",
         "--secure-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line or "kubelite: ready" in line:
                break
        assert mode(data_dir) == 0o700
        for name in ("kubelite.db", "kubelite.db-wal", "kubelite.db-shm", "kubelite.lock", "admin.kubeconfig"):
            assert mode(data_dir / name) == 0o600, name
        for key in ("ca.key", "apiserver.key", "admin.key"):
            assert mode(data_dir / "pki" / key) == 0o600, key
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "readable by other users" not in err


def test_wider_permissions_are_tightened_at_start_with_a_warning_naming_each_file(data_dir: Path) -> None:
    data_dir.chmod(0o755)
    db(data_dir).chmod(0o644)
    (data_dir / "pki" / "ca.key").chmod(0o640)
    server = KubeliteProcess(data_dir).start()
    server.stop()
    assert (mode(data_dir), mode(db(data_dir)), mode(data_dir / "pki" / "ca.key")) == (0o700, 0o600, 0o600)
    log = (data_dir / "server.log").read_text()
    assert f"{db(data_dir)} was readable by other users (mode 0644); changed to 0600" in log
    assert f"{data_dir} was readable by other users (mode 0755); changed to 0700" in log
    assert f"{data_dir / 'pki' / 'ca.key'} was readable by other users (mode 0640); changed to 0600" in log
