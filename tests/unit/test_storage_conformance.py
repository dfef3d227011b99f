"""The storage conformance suite against every implementation (kubelite.storage.testing.backends)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.register_assert_rewrite("kubelite.storage.testing.conformance")

from kubelite.storage.testing import conformance  # noqa: E402
from kubelite.storage.testing.backends import IMPLEMENTATIONS  # noqa: E402


@pytest.mark.parametrize("backend", sorted(IMPLEMENTATIONS), ids=sorted(IMPLEMENTATIONS))
@pytest.mark.parametrize("name", sorted(conformance.CASES), ids=sorted(conformance.CASES))
def test_conformance(name: str, backend: str, tmp_path: Path) -> None:
    opener = IMPLEMENTATIONS[backend]
    conformance.run(conformance.CASES[name], lambda: opener(tmp_path))
