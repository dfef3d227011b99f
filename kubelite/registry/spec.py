"""ResourceSpec: the description of a served resource (names, scope, kind, subresources) that routing,
OpenAPI and the resource's storage are built from. Its `verbs` are what OpenAPI publishes; the route
installer checks them against what the storage implements (`registry.rest`), which is what discovery lists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kubelite.apimachinery.errors import GroupResource

#: the verbs a full CRUD resource supports, in discovery's (sorted) order
ALL_VERBS: tuple[str, ...] = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")

NameRule = Literal["subdomain", "label", "label1035", "path"]


@dataclass(frozen=True, slots=True)
class SubresourceSpec:
    name: str
    #: the kind a request to the subresource answers with, when it is not the parent's
    group: str | None = None
    version: str | None = None
    kind: str | None = None
    verbs: tuple[str, ...] = ("get", "patch", "update")


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    group: str
    version: str
    resource: str
    kind: str
    singular: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    subresources: tuple[SubresourceSpec, ...] = ()
    #: which name syntax objects of this kind must have (kube's per-kind ValidateName func)
    name_rule: NameRule = "subdomain"
    #: a Warning kube sends with every request to this resource (e.g. for v1 Endpoints since 1.33)
    warning: str = ""
    #: a custom resource (served from a CRD): schema-driven, JSON and YAML only, no strategic merge patch
    custom: bool = False

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def list_kind(self) -> str:
        return self.kind + "List"

    @property
    def group_resource(self) -> GroupResource:
        return GroupResource(self.group, self.resource)

    def subresource(self, name: str) -> SubresourceSpec | None:
        for sub in self.subresources:
            if sub.name == name:
                return sub
        return None
