"""The package's layers import only downward (DESIGN.md: handlers -> registry -> storage, never back up)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "kubelite"

#: what each top-level package may import from kubelite, besides itself
ALLOWED: dict[str, set[str]] = {
    "apimachinery": set(),
    "util": {"apimachinery"},
    "storage": {"apimachinery", "util"},
    "auth": {"apimachinery", "util"},
    "registry": {"apimachinery", "util", "storage"},
    "admission": {"apimachinery", "util", "auth", "registry"},
    "controllers": {"apimachinery", "util", "storage", "registry", "client"},
    "client": {"apimachinery", "util"},
    "endpoints": {"apimachinery", "util", "storage", "auth", "registry", "admission"},
    "server": {"apimachinery", "util", "storage", "auth", "registry", "admission", "controllers", "endpoints"},
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubelite."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("kubelite."))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if len(p.relative_to(ROOT).parts) > 1)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_go_downward(path: Path) -> None:
    package = path.relative_to(ROOT).parts[0]
    assert package in ALLOWED, f"kubelite/{package} has no place in the layer table"
    upward = _imports(path) - ALLOWED[package] - {package}
    assert not upward, f"{path.relative_to(ROOT)} imports {sorted(upward)} from above its layer"
