"""`kubelite store ...` and the serve flags of the start-up store check: parsing and dispatch, exit codes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from kubelite.cli import main
from kubelite.storage.sqlite import SQLiteStorage
from kubelite.storage.testing.conformance import configmap, key


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--store-check-timeout", "0"],
            "kubelite: --store-check-timeout must be positive (--skip-store-check skips the check)\n",
        ),
        (["--store-check-timeout", "soon"], "kubelite: invalid duration 'soon': use e.g. 5m, 30s or 1h\n"),
    ],
    ids=["zero", "not-a-duration"],
)
def test_bad_store_check_flags_exit_2_before_serving(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", "--data-dir", str(tmp_path), *flags]) == 2
    assert capsys.readouterr().err == message
    assert not (tmp_path / "kubelite.db").exists()


def test_store_commands_dispatch_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "data"

    async def seed() -> None:
        storage = await SQLiteStorage.open(data_dir)
        await storage.create(key("a"), configmap("a"))
        await storage.close()

    asyncio.run(seed())
    assert main(["store", "check", "--data-dir", str(data_dir)]) == 0
    assert capsys.readouterr().out.startswith(f"{data_dir / 'kubelite.db'}: ok (1 objects, 1 log rows, ")
    assert main(["store", "check", "--data-dir", str(data_dir), "--timeout", "later"]) == 2
    assert capsys.readouterr().err == "kubelite: --timeout: invalid duration 'later': use e.g. 5m, 30s or 1h\n"
    backup = tmp_path / "backup.db"
    assert main(["store", "backup", "--data-dir", str(data_dir), str(backup)]) == 0
    assert capsys.readouterr().out == f"backed up 1 objects at revision 1 to {backup}\n"
    assert main(["store", "backup", "--data-dir", str(data_dir), str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"kubelite: {tmp_path} is a directory; name the backup file to write\n"
    assert main(["store", "restore", "--data-dir", str(tmp_path / "other"), str(backup)]) == 0
    assert capsys.readouterr().out == f"restored 1 objects at revision 1 into {tmp_path / 'other' / 'kubelite.db'}\n"
    assert main(["store", "restore", "--data-dir", str(data_dir), str(tmp_path / "none.db")]) == 1
    assert capsys.readouterr().err == f"kubelite: no backup file at {tmp_path / 'none.db'}\n"
    with pytest.raises(SystemExit) as usage:
        main(["store", "backup", "--data-dir", str(data_dir)])
    assert usage.value.code == 2
