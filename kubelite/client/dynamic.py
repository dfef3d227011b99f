"""The dynamic client: every verb on any resource, objects as plain dicts (client-go's `dynamic.Interface`).

A `ResourceClient` is bound to one group/version/resource and, optionally, one namespace; it builds the URL,
the query and the content type, and nothing else. Which resource serves a kind comes from discovery
(`DynamicClient.for_kind`), so custom resources work as soon as the server serves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.client.discovery import APIResource, DiscoveryClient
from kubelite.client.rest import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, RESTClient
from kubelite.client.schema import GroupVersionResource
from kubelite.client.watch import WatchStream

PATCH_TYPES = {
    "merge": MERGE_PATCH,
    "json": JSON_PATCH,
    "strategic": STRATEGIC_MERGE_PATCH,
    "apply": APPLY_PATCH,
}


def _write_params(dry_run: bool, field_manager: str | None, field_validation: str | None) -> dict[str, Any]:
    return {
        "dryRun": "All" if dry_run else None,
        "fieldManager": field_manager,
        "fieldValidation": field_validation,
    }


class ResourceClient:
    def __init__(self, rest: RESTClient, gvr: GroupVersionResource, *, namespace: str | None = None) -> None:
        self.rest = rest
        self.gvr = gvr
        #: None addresses the resource across namespaces (or a cluster-scoped resource)
        self.namespace_name = namespace

    def namespace(self, namespace: str | None) -> ResourceClient:
        return ResourceClient(self.rest, self.gvr, namespace=namespace)

    def _ns(self, obj: Mapping[str, Any] | None = None) -> str | None:
        if self.namespace_name is not None:
            return self.namespace_name
        if obj is not None:
            return (obj.get("metadata") or {}).get("namespace") or None
        return None

    async def get(
        self, name: str, *, subresource: str | None = None, resource_version: str | None = None
    ) -> Obj:
        path = self.gvr.object_path(name, self._ns(), subresource)
        return dict(await self.rest.get(path, params={"resourceVersion": resource_version}))

    async def list(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        limit: int | None = None,
        continue_token: str | None = None,
        resource_version: str | None = None,
        resource_version_match: str | None = None,
        timeout_seconds: int | None = None,
    ) -> Obj:
        params = {
            "labelSelector": label_selector or None,
            "fieldSelector": field_selector or None,
            "limit": limit or None,
            "continue": continue_token or None,
            "resourceVersion": resource_version,
            "resourceVersionMatch": resource_version_match or None,
            "timeoutSeconds": timeout_seconds,
        }
        return dict(await self.rest.get(self.gvr.collection_path(self._ns()), params=params))

    async def watch(
        self,
        *,
        resource_version: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        timeout_seconds: int | None = None,
        allow_watch_bookmarks: bool = False,
        send_initial_events: bool | None = None,
        resource_version_match: str | None = None,
    ) -> WatchStream:
        params = {
            "resourceVersion": resource_version or None,
            "labelSelector": label_selector or None,
            "fieldSelector": field_selector or None,
            "timeoutSeconds": timeout_seconds,
            "allowWatchBookmarks": True if allow_watch_bookmarks else None,
            "sendInitialEvents": send_initial_events,
            "resourceVersionMatch": resource_version_match or None,
        }
        return await self.rest.watch(
            self.gvr.collection_path(self._ns()), params=params, timeout_seconds=timeout_seconds
        )

    async def create(
        self,
        obj: Mapping[str, Any],
        *,
        subresource: str | None = None,
        name: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: str | None = None,
    ) -> Obj:
        """POST to the collection (or to `name/subresource`, e.g. a binding or an eviction)."""
        ns = self._ns(obj)
        path = (
            self.gvr.object_path(name, ns, subresource)
            if subresource and name
            else self.gvr.collection_path(ns)
        )
        params = _write_params(dry_run, field_manager, field_validation)
        return dict(await self.rest.post(path, dict(obj), params=params))

    async def update(
        self,
        obj: Mapping[str, Any],
        *,
        subresource: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: str | None = None,
    ) -> Obj:
        """PUT the object; its metadata.resourceVersion, when set, makes the write conditional (409 Conflict)."""
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            raise ValueError("update needs metadata.name")
        path = self.gvr.object_path(name, self._ns(obj), subresource)
        params = _write_params(dry_run, field_manager, field_validation)
        return dict(await self.rest.put(path, dict(obj), params=params))

    async def update_status(self, obj: Mapping[str, Any], **kwargs: Any) -> Obj:
        return await self.update(obj, subresource="status", **kwargs)

    async def patch(
        self,
        name: str,
        patch: Any,
        *,
        patch_type: str = "merge",
        subresource: str | None = None,
        dry_run: bool = False,
        field_manager: str | None = None,
        field_validation: str | None = None,
        force: bool | None = None,
    ) -> Obj:
        """PATCH with `patch_type` one of merge, json, strategic, apply (server-side apply)."""
        try:
            content_type = PATCH_TYPES[patch_type]
        except KeyError:
            raise ValueError(f"patch_type must be one of {sorted(PATCH_TYPES)}, not {patch_type!r}") from None
        path = self.gvr.object_path(name, self._ns(), subresource)
        params = {**_write_params(dry_run, field_manager, field_validation), "force": force}
        return dict(await self.rest.patch(path, patch, content_type=content_type, params=params))

    async def apply(
        self,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        subresource: str | None = None,
    ) -> Obj:
        """Server-side apply of a whole object."""
        name = (obj.get("metadata") or {}).get("name")
        if not name:
            raise ValueError("apply needs metadata.name")
        client = self if self.namespace_name is not None else self.namespace(self._ns(obj))
        return await client.patch(
            name,
            dict(obj),
            patch_type="apply",
            field_manager=field_manager,
            force=force or None,
            subresource=subresource,
        )

    async def delete(
        self,
        name: str,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
        preconditions: Mapping[str, str] | None = None,
        dry_run: bool = False,
    ) -> Obj:
        """DELETE; returns what the server returns (the object, or a Success Status)."""
        body = _delete_options(grace_period_seconds, propagation_policy, preconditions, dry_run)
        return dict(await self.rest.delete(self.gvr.object_path(name, self._ns()), body=body) or {})

    async def delete_collection(
        self,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
    ) -> Obj:
        body = _delete_options(grace_period_seconds, propagation_policy, None, False)
        params = {"labelSelector": label_selector or None, "fieldSelector": field_selector or None}
        return dict(
            await self.rest.delete(self.gvr.collection_path(self._ns()), body=body, params=params) or {}
        )


def _delete_options(
    grace: int | None, propagation: str | None, preconditions: Mapping[str, str] | None, dry_run: bool
) -> Obj | None:
    options: Obj = {}
    if grace is not None:
        options["gracePeriodSeconds"] = grace
    if propagation:
        options["propagationPolicy"] = propagation
    if preconditions:
        options["preconditions"] = dict(preconditions)
    if dry_run:
        options["dryRun"] = ["All"]
    if not options:
        return None
    return {"kind": "DeleteOptions", "apiVersion": "v1", **options}


class DynamicClient:
    """Resource clients for any group/version/resource, found by name or by kind through discovery."""

    def __init__(self, rest: RESTClient, discovery: DiscoveryClient | None = None) -> None:
        self.rest = rest
        self.discovery = discovery or DiscoveryClient(rest)

    def resource(self, gvr: GroupVersionResource | tuple[str, str, str]) -> ResourceClient:
        if not isinstance(gvr, GroupVersionResource):
            gvr = GroupVersionResource(*gvr)
        return ResourceClient(self.rest, gvr)

    async def for_kind(self, api_version: str, kind: str) -> tuple[ResourceClient, APIResource]:
        """The client of the resource that serves `kind` in `api_version`, and its discovery entry."""
        found = await self.discovery.resource_for_kind(api_version, kind)
        return ResourceClient(self.rest, found.gvr), found

    async def for_object(self, obj: Mapping[str, Any]) -> ResourceClient:
        """The client for an object's apiVersion/kind, bound to its namespace when the resource is namespaced."""
        client, found = await self.for_kind(str(obj.get("apiVersion") or ""), str(obj.get("kind") or ""))
        namespace = (obj.get("metadata") or {}).get("namespace") if found.namespaced else None
        return client.namespace(namespace)


__all__ = ["DynamicClient", "Obj", "ResourceClient"]
