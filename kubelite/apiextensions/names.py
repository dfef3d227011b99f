"""What a CustomResourceDefinition says of the resource it defines: its versions, names and subresources, read
the way kube's apiextensions-apiserver reads them.

A CRD is served under its *accepted* names (`status.acceptedNames`, set by the naming controller once no other
resource holds them), not the names asked for in its spec; one `ResourceSpec` per served version is what the
route installer, discovery and OpenAPI are built from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.spec import ALL_VERBS, ResourceSpec, SubresourceSpec

GROUP = "apiextensions.k8s.io"
#: the finalizer through which deleting a CRD deletes its custom resources first
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def versions(crd: Obj) -> list[Mapping[str, Any]]:
    """The CRD's version entries, in the order written (objects only)."""
    return [v for v in _list(_dict(crd.get("spec")).get("versions")) if isinstance(v, Mapping)]


def version(crd: Obj, name: str) -> Mapping[str, Any] | None:
    for entry in versions(crd):
        if entry.get("name") == name:
            return entry
    return None


def served_versions(crd: Obj) -> list[str]:
    return [str(v.get("name")) for v in versions(crd) if v.get("served") is True and v.get("name")]


def storage_version(crd: Obj) -> str | None:
    """The version objects are stored in (the one entry with `storage: true`), None for an invalid CRD."""
    for entry in versions(crd):
        if entry.get("storage") is True:
            return str(entry.get("name"))
    return None


def schema(crd: Obj, version_name: str) -> Mapping[str, Any] | None:
    """The version's `schema.openAPIV3Schema`, else the deprecated top-level `spec.validation`'s."""
    entry = version(crd, version_name)
    found = _dict(_dict(entry.get("schema") if entry else None).get("openAPIV3Schema"))
    if not found:
        found = _dict(_dict(_dict(crd.get("spec")).get("validation")).get("openAPIV3Schema"))
    return found or None


def subresources(crd: Obj, version_name: str) -> Mapping[str, Any]:
    entry = version(crd, version_name)
    return _dict(entry.get("subresources") if entry else None) or _dict(_dict(crd.get("spec")).get("subresources"))


def printer_columns(crd: Obj, version_name: str) -> list[Mapping[str, Any]]:
    entry = version(crd, version_name)
    return [c for c in _list(entry.get("additionalPrinterColumns") if entry else None) if isinstance(c, Mapping)]


def selectable_fields(crd: Obj, version_name: str) -> tuple[str, ...]:
    """The field selector labels the version adds (`selectableFields[*].jsonPath` without the leading dot)."""
    entry = version(crd, version_name)
    paths = []
    for field in _list(entry.get("selectableFields") if entry else None):
        path = _dict(field).get("jsonPath")
        if isinstance(path, str) and path.startswith("."):
            paths.append(path[1:])
    return tuple(paths)


def accepted_names(crd: Obj) -> Mapping[str, Any]:
    return _dict(_dict(crd.get("status")).get("acceptedNames"))


def is_established(crd: Obj) -> bool:
    return condition_true(crd, "Established")


def condition_true(crd: Obj, kind: str) -> bool:
    for condition in _list(_dict(crd.get("status")).get("conditions")):
        if _dict(condition).get("type") == kind:
            return _dict(condition).get("status") == "True"
    return False


def deprecation_warning(crd: Obj, version_name: str) -> str:
    """The Warning a request to a deprecated version gets: the version's own text, else kube's default."""
    entry = version(crd, version_name)
    if not entry or entry.get("deprecated") is not True:
        return ""
    text = entry.get("deprecationWarning")
    if isinstance(text, str):
        return text
    names = accepted_names(crd) or _dict(_dict(crd.get("spec")).get("names"))
    return f"{_dict(crd.get('spec')).get('group')}/{version_name} {names.get('kind')} is deprecated"


def resource_spec(crd: Obj, version_name: str) -> ResourceSpec:
    """The served resource of one version of an established CRD, under its accepted names."""
    spec = _dict(crd.get("spec"))
    names = accepted_names(crd) or _dict(spec.get("names"))
    kind = str(names.get("kind") or "")
    subs: list[SubresourceSpec] = []
    declared = subresources(crd, version_name)
    # a null subresource is an unset one, as kube decodes it
    if isinstance(declared.get("status"), Mapping):
        subs.append(SubresourceSpec("status"))
    if isinstance(declared.get("scale"), Mapping):
        subs.append(SubresourceSpec("scale", group="autoscaling", version="v1", kind="Scale"))
    return ResourceSpec(
        group=str(spec.get("group") or ""),
        version=version_name,
        resource=str(names.get("plural") or ""),
        kind=kind,
        singular=str(names.get("singular") or kind.lower()),
        namespaced=spec.get("scope") == "Namespaced",
        short_names=tuple(str(n) for n in _list(names.get("shortNames"))),
        categories=tuple(str(n) for n in _list(names.get("categories"))),
        verbs=ALL_VERBS,
        subresources=tuple(subs),
        warning=deprecation_warning(crd, version_name),
        custom=True,
    )


def resource_specs(crd: Obj) -> list[ResourceSpec]:
    """One ResourceSpec per served version, in the CRD's order."""
    return [resource_spec(crd, name) for name in served_versions(crd)]
