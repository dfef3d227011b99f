"""The object alias has one home: every layer names `Obj` from kubelite.apimachinery.meta, never a copy of its own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "kubelite"


def _defines_obj(path: Path) -> bool:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "Obj" for t in node.targets):
            return True
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "Obj":
            return True
    return False


def test_obj_is_defined_once() -> None:
    homes = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if _defines_obj(p))
    assert homes == ["apimachinery/meta.py"]


def test_obj_is_imported_from_its_home() -> None:
    elsewhere = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and any(alias.name == "Obj" for alias in node.names):
                if node.module != "kubelite.apimachinery.meta":
                    elsewhere.append(f"{path.relative_to(ROOT)}: from {node.module}")
    assert elsewhere == []
