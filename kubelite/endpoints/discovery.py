"""Discovery documents: /api, /apis, /apis/{group}, the per group-version resource lists, and aggregated
discovery (apidiscovery.k8s.io/v2), which kubectl 1.3x asks for first and which saves it a request per group.

The documents are built from the installed routes' `APIResource`s on each request, so a resource installed
while the server runs is listed at once; their verbs are what each path's storage implements.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from kubelite.endpoints.api_resource import APIResource, APISubresource

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"


def storage_version_hash(spec: APIResource) -> str:
    """kube's discovery hash of the storage version: base64 of the first 8 bytes of sha256("group/version/kind"),
    which changes when a resource's storage version does (clients use it to know when to migrate)."""
    digest = hashlib.sha256(f"{spec.group}/{spec.version}/{spec.kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


class Discovery:
    """Discovery documents of the resources `resources` returns (the installed routes', read per request)."""

    def __init__(
        self,
        resources: Callable[[], Sequence[APIResource]] | Sequence[APIResource],
        group_order: Sequence[str],
        server_address: str,
    ) -> None:
        self._resources = resources if callable(resources) else (lambda: resources)
        self.group_order = tuple(group_order)
        self.server_address = server_address

    @property
    def resources(self) -> Sequence[APIResource]:
        return self._resources()

    @property
    def group_names(self) -> list[str]:
        """The groups in kube's priority order, then any other (custom resources' groups) by name."""
        groups = {r.group for r in self.resources if r.group}
        return [g for g in self.group_order if g in groups] + sorted(groups - set(self.group_order))

    def _versions(self, group: str) -> list[str]:
        seen: list[str] = []
        for r in self.resources:
            if r.group == group and r.version not in seen:
                seen.append(r.version)
        return seen

    def _resources_of(self, group: str, version: str) -> list[APIResource]:
        return [r for r in self.resources if r.group == group and r.version == version]

    # -- legacy documents ---------------------------------------------------------------------------

    def api_versions(self) -> dict[str, Any]:
        return {
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": self.server_address}],
        }

    def api_group(self, group: str) -> dict[str, Any] | None:
        versions = self._versions(group) if group else []  # the core group is /api, not an APIGroup
        if not versions:
            return None
        gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs, "preferredVersion": gvs[0]}

    def api_group_list(self) -> dict[str, Any]:
        groups = []
        for name in self.group_names:
            group = self.api_group(name)
            if group is not None:
                group = {k: v for k, v in group.items() if k not in ("kind", "apiVersion")}
                groups.append(group)
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def resource_list(self, group: str, version: str) -> dict[str, Any] | None:
        specs = self._resources_of(group, version)
        if not specs:
            return None
        entries: list[dict[str, Any]] = []
        for spec in sorted(specs, key=lambda s: s.resource):
            entry: dict[str, Any] = {
                "name": spec.resource,
                "singularName": spec.singular,
                "namespaced": spec.namespaced,
                "kind": spec.kind,
                "verbs": list(spec.verbs),
            }
            if spec.short_names:
                entry["shortNames"] = list(spec.short_names)
            if spec.categories:
                entry["categories"] = list(spec.categories)
            if "get" in spec.verbs:  # persisted resources name the version they are stored in
                entry["storageVersionHash"] = storage_version_hash(spec)
            entries.append(entry)
            for sub in _by_name(spec.subresources):
                sub_entry: dict[str, Any] = {
                    "name": f"{spec.resource}/{sub.name}",
                    "singularName": "",
                    "namespaced": spec.namespaced,
                    "kind": sub.kind,
                    "verbs": list(sub.verbs),
                }
                if (sub.group, sub.version) != (spec.group, spec.version):
                    sub_entry["group"] = sub.group
                    sub_entry["version"] = sub.version
                entries.append(sub_entry)
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": entries,
        }

    # -- aggregated documents -------------------------------------------------------------------------

    def aggregated(self, legacy: bool) -> dict[str, Any]:
        names = [""] if legacy else self.group_names
        items = []
        for group in names:
            versions = []
            for version in self._versions(group):
                versions.append(
                    {
                        "version": version,
                        "resources": [
                            self._aggregated_resource(s)
                            for s in sorted(self._resources_of(group, version), key=lambda s: s.resource)
                        ],
                        "freshness": "Current",
                    }
                )
            items.append({"metadata": {"name": group, "creationTimestamp": None}, "versions": versions})
        return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}

    @staticmethod
    def _aggregated_resource(spec: APIResource) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resource": spec.resource,
            "responseKind": {"group": spec.group, "version": spec.version, "kind": spec.kind},
            "scope": "Namespaced" if spec.namespaced else "Cluster",
            "singularResource": spec.singular,
            "verbs": list(spec.verbs),
        }
        if spec.short_names:
            out["shortNames"] = list(spec.short_names)
        if spec.categories:
            out["categories"] = list(spec.categories)
        if spec.subresources:
            out["subresources"] = [
                {
                    "subresource": sub.name,
                    "responseKind": {"group": sub.group, "version": sub.version, "kind": sub.kind},
                    "verbs": list(sub.verbs),
                }
                for sub in _by_name(spec.subresources)
            ]
        return out


def _by_name(subresources: Sequence[APISubresource]) -> list[APISubresource]:
    """kube installs a resource's paths sorted, so its subresources are listed by name."""
    return sorted(subresources, key=lambda sub: sub.name)
