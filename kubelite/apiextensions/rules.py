"""What a CRD version's objects are defaulted and checked with (`VersionRules`), built from the CRD: its
schema's defaults and validation, its CEL rules, its selectable fields and its scale paths."""

from __future__ import annotations

from typing import Any

from kubelite.apiextensions import names
from kubelite.apiextensions.registry.customresource import VersionRules
from kubelite.apimachinery.meta import Obj
from kubelite.registry.apps.scale import ScalePaths


def _path(json_path: Any) -> tuple[str, ...]:
    return tuple(json_path.lstrip(".").split(".")) if isinstance(json_path, str) and json_path else ()


def _selector_at(path: tuple[str, ...]) -> Any:
    def selector(obj: Obj) -> str:
        value: Any = obj
        for key in path:
            if not isinstance(value, dict):
                return ""
            value = value.get(key)
        return value if isinstance(value, str) else ""

    return selector


def scale_paths(crd: Obj, version: str) -> tuple[ScalePaths | None, str, str]:
    scale = names.subresources(crd, version).get("scale")
    if not isinstance(scale, dict):
        return None, "", ""
    spec_path = str(scale.get("specReplicasPath") or "")
    status_path = str(scale.get("statusReplicasPath") or "")
    selector = _path(scale.get("labelSelectorPath"))
    paths = ScalePaths(_path(spec_path), _path(status_path), _selector_at(selector) if selector else None)
    return paths, spec_path, status_path


def version_rules(crd: Obj, version: str) -> VersionRules:
    scale, spec_replicas, status_replicas = scale_paths(crd, version)
    return VersionRules(
        selectable_fields=names.selectable_fields(crd, version),
        scale=scale,
        spec_replicas_path=spec_replicas,
        status_replicas_path=status_replicas,
    )
