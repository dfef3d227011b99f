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
    # the scheduler and the simulated nodes are components of their own: they talk to the API through the API
    "cluster": {"apimachinery", "util", "client"},
    "endpoints": {"apimachinery", "util", "storage", "auth", "registry", "admission"},
    "apiextensions": {
        "apimachinery",
        "util",
        "storage",
        "auth",
        "registry",
        "admission",
        "controllers",
        "client",
        "endpoints",
    },
    "server": {
        "apimachinery",
        "util",
        "storage",
        "auth",
        "registry",
        "admission",
        "controllers",
        "client",
        "endpoints",
        "apiextensions",
        "cluster",
    },
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


# -- the registry's layout: one home per resource (kube's pkg/registry/<group>/<resource>) -------------------

#: homes named otherwise than their resource, and why: namespaces.py holds the strategies, namespace_store.py
#: the storage; events.k8s.io Events are the core/v1 events store seen through a conversion
_HOME_ALIASES = {("", "namespaces"): "core.namespace_store", ("events.k8s.io", "events"): "core.events"}
#: what the route installer and discovery may know of the registry: capabilities and descriptions, no resource
_INSTALLER_MAY_IMPORT = {
    "kubelite.registry.rest",
    "kubelite.registry.spec",
    "kubelite.registry.strategy",
    "kubelite.registry.tables",
}


def _home_of(group: str, resource: str) -> str:
    return _HOME_ALIASES.get((group, resource)) or f"{group.split('.')[0] or 'core'}.{resource}"


def _registry_modules() -> dict[str, object]:
    import importlib

    modules = {}
    for path in sorted((ROOT / "registry").rglob("*.py")):
        dotted = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        modules[dotted.removesuffix(".__init__")] = importlib.import_module(dotted)
    return modules


def test_each_builtin_resource_is_registered_by_its_own_home() -> None:
    from kubelite.registry.builtin import BUILTIN_REGISTRATIONS

    modules = _registry_modules()
    for (group, resource), registration in BUILTIN_REGISTRATIONS.items():
        homes = [
            name
            for name, module in modules.items()
            if name != "kubelite.registry.builtin" and registration in vars(module).values()
        ]
        assert homes == [f"kubelite.registry.{_home_of(group, resource)}"], (group, resource)


def test_strategies_live_in_resource_homes_or_shared_modules() -> None:
    from kubelite.registry.strategy import Strategy

    for name, module in _registry_modules().items():
        defined = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Strategy) and value.__module__ == name
        ]
        if name in ("kubelite.registry.builtin", "kubelite.registry.registration", "kubelite.registry.store"):
            assert not defined, f"{name} defines {defined}: a strategy belongs to its resource's home"


@pytest.mark.parametrize("module", ["installer.py", "api_resource.py", "discovery.py"])
def test_the_installer_and_discovery_know_no_resource(module: str) -> None:
    tree = ast.parse((ROOT / "endpoints" / module).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kubelite.registry"):
            if node.module == "kubelite.registry":  # `from kubelite.registry import rest`
                imported.update(f"kubelite.registry.{alias.name}" for alias in node.names)
            else:
                imported.add(node.module)
    assert imported <= _INSTALLER_MAY_IMPORT, f"endpoints/{module} imports {sorted(imported - _INSTALLER_MAY_IMPORT)}"
    source = (ROOT / "endpoints" / module).read_text()
    assert "spec.resource ==" not in source and "spec.resource !=" not in source
