"""APIResource: a served resource as discovery lists it (kube's metav1.APIResource, which its route installer
builds), described by what its storage and its subresources' storage implement (`registry.rest`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kubelite.registry import rest
from kubelite.registry.spec import ResourceSpec


@dataclass(frozen=True, slots=True)
class APISubresource:
    """A subresource as discovery lists it."""

    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class APIResource:
    """A served resource as discovery lists it (kube's metav1.APIResource, which its installer builds)."""

    group: str
    version: str
    resource: str
    kind: str
    singular: str
    namespaced: bool
    verbs: tuple[str, ...]
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[APISubresource, ...] = ()

    @classmethod
    def declared(cls, spec: ResourceSpec) -> APIResource:
        """The resource with the verbs its ResourceSpec declares (what OpenAPI publishes)."""
        subs = tuple(
            APISubresource(
                sub.name,
                sub.group if sub.group is not None else spec.group,
                sub.version or spec.version,
                sub.kind or spec.kind,
                sub.verbs,
            )
            for sub in spec.subresources
        )
        return cls(
            spec.group,
            spec.version,
            spec.resource,
            spec.kind,
            spec.singular,
            spec.namespaced,
            spec.verbs,
            spec.short_names,
            spec.categories,
            subs,
        )


_CUSTOM_VERB_ORDER = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")


def describe(spec: ResourceSpec, storage: object, subresources: Mapping[str, object]) -> APIResource:
    """What `storage` (and its subresources' storage) says of itself, as discovery lists it."""
    subs = []
    for sub in spec.subresources:
        sub_storage = subresources[sub.name]
        if isinstance(sub_storage, rest.GroupVersionKindProvider):
            group, version, kind = sub_storage.group_version_kind()
        else:
            group = sub.group if sub.group is not None else spec.group
            version, kind = sub.version or spec.version, sub.kind or spec.kind
        subs.append(APISubresource(sub.name, group, version, kind, rest.discovery_verbs(sub_storage)))
    verbs = rest.discovery_verbs(storage)
    if spec.custom:  # kube's CRD discovery lists a fixed order, not the installer's sorted one
        verbs = tuple(sorted(verbs, key=_CUSTOM_VERB_ORDER.index))
    return APIResource(
        spec.group,
        spec.version,
        spec.resource,
        spec.kind,
        storage.singular_name() if isinstance(storage, rest.SingularNameProvider) else spec.singular,
        storage.namespace_scoped() if isinstance(storage, rest.Scoper) else spec.namespaced,
        verbs,
        storage.short_names() if isinstance(storage, rest.ShortNamesProvider) else (),
        storage.categories() if isinstance(storage, rest.CategoriesProvider) else (),
        tuple(subs),
    )
