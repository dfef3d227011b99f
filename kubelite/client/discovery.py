"""Discovery: which groups, versions and resources a server serves, and the mapping from kinds to resources.

Aggregated discovery (`apidiscovery.k8s.io/v2`, two requests for the whole server) is asked for first; a server
that does not offer it answers the same URLs with the legacy documents, and the per group-version resource lists
are then fetched concurrently. The result is cached until `invalidate()`; a lookup that misses refreshes once,
because a CRD established a moment ago is a resource the cache has not seen yet (client-go's
DeferredDiscoveryRESTMapper does the same).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kubelite.client.errors import ApiError, NotFound
from kubelite.client.rest import RESTClient
from kubelite.client.schema import GroupVersionKind, GroupVersionResource, split_api_version

log = logging.getLogger(__name__)

AGGREGATED_ACCEPT = ",".join(
    (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        "application/json",
    )
)


@dataclass(frozen=True, slots=True)
class APIResource:
    """One resource of one group/version, as discovery describes it."""

    gvr: GroupVersionResource
    kind: str
    namespaced: bool
    singular: str = ""
    verbs: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    #: this version is the group's preferred one
    preferred: bool = False

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.gvr.group, self.gvr.version, self.kind)


def _no_match(what: str) -> NotFound:
    return NotFound(
        {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
         "message": f"the server doesn't have a resource type \"{what}\""}
    )  # fmt: skip


def parse_aggregated(document: dict[str, Any]) -> list[APIResource]:
    """Resources of an APIGroupDiscoveryList (its versions are listed in preference order)."""
    out: list[APIResource] = []
    for group_doc in document.get("items") or []:
        group = (group_doc.get("metadata") or {}).get("name") or ""
        for index, version_doc in enumerate(group_doc.get("versions") or []):
            version = version_doc.get("version") or ""
            for res in version_doc.get("resources") or []:
                kind = (res.get("responseKind") or {}).get("kind") or ""
                out.append(
                    APIResource(
                        gvr=GroupVersionResource(group, version, res.get("resource") or ""),
                        kind=kind,
                        namespaced=res.get("scope") == "Namespaced",
                        singular=res.get("singularResource") or "",
                        verbs=tuple(res.get("verbs") or ()),
                        short_names=tuple(res.get("shortNames") or ()),
                        categories=tuple(res.get("categories") or ()),
                        subresources=tuple(
                            sub.get("subresource") or "" for sub in res.get("subresources") or ()
                        ),
                        preferred=index == 0,
                    )
                )
    return out


def parse_resource_list(document: dict[str, Any], *, preferred: bool) -> list[APIResource]:
    """Resources of a legacy APIResourceList (`pods/status` entries become subresources of `pods`)."""
    group, version = split_api_version(document.get("groupVersion") or "")
    subresources: dict[str, list[str]] = {}
    main: list[dict[str, Any]] = []
    for res in document.get("resources") or []:
        name = res.get("name") or ""
        if "/" in name:
            parent, _, sub = name.partition("/")
            subresources.setdefault(parent, []).append(sub)
        else:
            main.append(res)
    return [
        APIResource(
            gvr=GroupVersionResource(group, version, res["name"]),
            kind=res.get("kind") or "",
            namespaced=bool(res.get("namespaced")),
            singular=res.get("singularName") or "",
            verbs=tuple(res.get("verbs") or ()),
            short_names=tuple(res.get("shortNames") or ()),
            categories=tuple(res.get("categories") or ()),
            subresources=tuple(subresources.get(res["name"], ())),
            preferred=preferred,
        )
        for res in main
    ]


class DiscoveryClient:
    def __init__(self, rest: RESTClient) -> None:
        self.rest = rest
        self._resources: list[APIResource] | None = None
        self._lock = asyncio.Lock()

    def invalidate(self) -> None:
        self._resources = None

    async def server_version(self) -> dict[str, Any]:
        return dict(await self.rest.get("/version"))

    async def resources(self, *, refresh: bool = False) -> list[APIResource]:
        """Every resource of every served group/version (subresources folded into their resource)."""
        async with self._lock:
            if self._resources is None or refresh:
                self._resources = await self._discover()
            return self._resources

    async def _discover(self) -> list[APIResource]:
        headers = {"Accept": AGGREGATED_ACCEPT}
        legacy_doc, groups_doc = await asyncio.gather(
            self.rest.get("/api", headers=headers), self.rest.get("/apis", headers=headers)
        )
        if (
            legacy_doc.get("kind") == "APIGroupDiscoveryList"
            and groups_doc.get("kind") == "APIGroupDiscoveryList"
        ):
            return parse_aggregated(legacy_doc) + parse_aggregated(groups_doc)
        paths: list[tuple[str, bool]] = [
            (f"/api/{v}", i == 0) for i, v in enumerate(legacy_doc.get("versions") or [])
        ]
        for group in groups_doc.get("groups") or []:
            preferred = (group.get("preferredVersion") or {}).get("groupVersion")
            for entry in group.get("versions") or []:
                paths.append((f"/apis/{entry['groupVersion']}", entry["groupVersion"] == preferred))
        documents = await asyncio.gather(*(self.rest.get(path) for path, _ in paths), return_exceptions=True)
        out: list[APIResource] = []
        for (path, preferred), document in zip(paths, documents, strict=True):
            if isinstance(document, ApiError):
                # an aggregated API server that is down must not hide every other group
                log.warning("discovery of %s failed: %s", path, document)
                continue
            if isinstance(document, BaseException):
                raise document
            out.extend(parse_resource_list(document, preferred=preferred))
        return out

    async def _lookup(self, match: Any, what: str) -> APIResource:
        for refresh in (False, True):
            found = [res for res in await self.resources(refresh=refresh) if match(res)]
            if found:
                return _most_preferred(found)
        raise _no_match(what)

    async def resource_for_kind(self, api_version: str, kind: str) -> APIResource:
        """The resource that serves `kind` in `api_version` (`apps/v1`, `Deployment`)."""
        group, version = split_api_version(api_version)
        return await self._lookup(
            lambda r: r.kind == kind and r.gvr.group == group and r.gvr.version == version,
            f"{kind}.{api_version}",
        )

    async def resource_for_group_kind(self, group: str, kind: str) -> APIResource:
        """The resource of `kind` in `group` at the group's preferred version."""
        return await self._lookup(
            lambda r: r.kind == kind and r.gvr.group == group, f"{kind}.{group}" if group else kind
        )

    async def resolve(self, name: str) -> APIResource:
        """A resource named as kubectl accepts it: plural, singular, short name or kind, optionally `.group` or
        `.version.group` qualified (`deploy`, `deployments.apps`, `jobs.v1.batch`)."""
        lowered = name.lower()

        def names(res: APIResource) -> Iterable[str]:
            yield res.gvr.resource
            if res.singular:
                yield res.singular
            yield res.kind.lower()
            yield from res.short_names

        def qualified(res: APIResource) -> bool:
            for base in names(res):
                if (lowered == base and res.gvr.group == "") or lowered in (
                    f"{base}.{res.gvr.group}",
                    f"{base}.{res.gvr.version}.{res.gvr.group}",
                ):
                    return True
            return False

        for refresh in (False, True):
            resources = await self.resources(refresh=refresh)
            exact = [res for res in resources if qualified(res)]
            if exact:
                return _most_preferred(exact)
            # an unqualified name of a non-core group (`deployments`): the first group that serves it
            loose = [res for res in resources if lowered in set(names(res))]
            if loose:
                return _most_preferred(loose)
        raise _no_match(name)


def _most_preferred(candidates: list[APIResource]) -> APIResource:
    for res in candidates:
        if res.preferred:
            return res
    return candidates[0]
