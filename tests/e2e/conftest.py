"""Fixtures: one kubelite process per test module (tests in a module must not interfere), torn down after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server import KubeliteProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite"))).start()
    yield proc
    proc.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[KubeliteProcess]:
    """A server of the test's own, for tests that restart or kill it."""
    proc = KubeliteProcess(tmp_path / "data").start()
    yield proc
    proc.stop()
