"""Serving the custom resources of established CRDs (kube's crdHandler): routes, storage and schemas
installed while the server runs, rebuilt when a CRD changes, removed when it goes.

For each served CRD there is one watch cache over `/registry/<group>/<plural>/` and, per served version, a
Store with that version's strategy (its schema's defaults and validation, CEL rules, printer columns, scale
paths), installed at `/apis/<group>/<version>/<plural>` through the same route installer as the built-in
kinds. A version whose objects may be stored in another version (or whose schema has defaults, which kube
applies on every read) reads through a `VersionedStorage` that converts and defaults; the others read the
cache directly. The Store of the storage version is what the registry holds for the resource (the namespace
controller and the garbage collector find it there).

`sync(crd)` is idempotent and cheap when nothing changed (it compares resourceVersions); the CRD
controllers call it for every CRD event, and the server calls it for every stored CRD before it opens its
ports, so custom resources are served from the first request after a restart.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubelite.apiextensions import names
from kubelite.apiextensions.conversion import Converter, conversion_settings
from kubelite.apiextensions.registry.customresource import (
    CustomResourceStatusStrategy,
    CustomResourceStore,
    CustomResourceStrategy,
    VersionRules,
)
from kubelite.apiextensions.served_schema import served_schema
from kubelite.apiextensions.versioned_storage import VersionedStorage
from kubelite.apiextensions.versions import by_priority
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.schema.registry import SchemaRegistry
from kubelite.endpoints.handlers.field_validation import prune_unknown_fields
from kubelite.endpoints.installer import ResourceRoutes, ScopeOptions
from kubelite.registry.registration import Registration, Registry, ResourceStorage, StorageContext
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.subresources import StatusStore
from kubelite.registry.tables.base import TableSpec
from kubelite.storage.cacher import Cacher
from kubelite.storage.interface import Storage

log = logging.getLogger(__name__)

#: (crd, version) -> the rules its objects are defaulted and checked with
RulesFactory = Callable[[Obj, str], VersionRules]
#: (crd, version) -> the version's Table
TableFactory = Callable[[Obj, str], TableSpec | None]
#: crd -> the converter between its versions
ConverterFactory = Callable[[Obj], Converter]


class ResourceListener(Protocol):
    """What follows the resources served (the garbage collector, which must watch custom resources too)."""

    def resource_added(self, group: str, resource: str) -> None: ...

    async def resource_removed(self, group: str, resource: str) -> None: ...


class OpenAPISink:
    """Where a served CRD's OpenAPI goes (the OpenAPI documents); the default keeps none."""

    def crd_served(self, crd: Obj) -> None:
        """The CRD's versions are served as `crd` says (added or changed)."""

    def crd_removed(self, crd: Obj) -> None:
        """The CRD's versions are no longer served."""


@dataclass
class _Served:
    """What is installed for one CRD."""

    crd: Obj
    #: what the installed Stores were built from (see `_build_key`): another CRD revision with the same key is
    #: served by them as they are
    key: str
    group: str
    plural: str
    cacher: Cacher
    key_root: str
    converter: Converter
    #: the CRD is being deleted: its objects are being deleted, new ones refused (read by its Stores per request)
    terminating: bool = False
    #: the versions with routes, in discovery's order
    versions: list[str] = field(default_factory=list)
    #: every defined version's resource, served or not (its schema prunes what is converted to it)
    specs: dict[str, ResourceSpec] = field(default_factory=dict)
    #: the Store of the storage version, whether served or not (the finalizer deletes through it)
    main: Any = None


def _build_key(crd: Obj) -> str:
    """What the served Stores depend on: the spec, the accepted names and the stored versions (kube rebuilds a
    CRD's storage when its spec or accepted names change, not on other status writes)."""
    status = crd.get("status") or {}
    return json.dumps(
        [crd.get("spec"), status.get("acceptedNames"), status.get("storedVersions")], sort_keys=True, default=str
    )


class CustomResourceServing:
    def __init__(
        self,
        registry: Registry,
        routes: ResourceRoutes,
        options: ScopeOptions,
        schemas: SchemaRegistry,
        *,
        rules: RulesFactory,
        table: TableFactory,
        converter: ConverterFactory,
        openapi: OpenAPISink | None = None,
    ) -> None:
        self.registry = registry
        self.routes = routes
        self.options = options
        self.schemas = schemas
        self._rules = rules
        self._table = table
        self._converter = converter
        self.openapi = openapi or OpenAPISink()
        self._served: dict[str, _Served] = {}
        self.listeners: list[ResourceListener] = []
        # what is served already (the built-in kinds, and CRDs themselves): a CRD naming one of them is not served,
        # as kube's crdHandler leaves such paths to the built-in server
        self._builtin_resources = {(group, resource) for group, _, resource in routes.installed}
        self._builtin_kinds = {(i.scope.spec.group, i.scope.spec.kind) for i in routes.installed.values()}

    def served(self, name: str) -> Obj | None:
        """The CRD as it is served now, None when it is not."""
        entry = self._served.get(name)
        return entry.crd if entry is not None else None

    def storage_for(self, name: str) -> Any:
        """The Store of a served CRD's storage version (served or not), None when the CRD is not served."""
        entry = self._served.get(name)
        return entry.main if entry is not None else None

    def overlaps_builtin(self, crd: Obj) -> bool:
        """Whether the CRD names a resource or kind a built-in server holds (kube's OverlappingBuiltInResources)."""
        group = str((crd.get("spec") or {}).get("group") or "")
        accepted = names.accepted_names(crd) or (crd.get("spec") or {}).get("names") or {}
        return (group, str(accepted.get("plural") or "")) in self._builtin_resources or (
            group,
            str(accepted.get("kind") or ""),
        ) in self._builtin_kinds

    async def sync(self, crd: Obj) -> None:
        """Serve `crd` as it says: install, rebuild or remove what it serves. A CRD revision that changes nothing
        the Stores depend on only updates whether it is terminating."""
        meta = crd.get("metadata") or {}
        name = str(meta.get("name") or "")
        entry = self._served.get(name)
        terminating = bool(meta.get("deletionTimestamp"))
        servable = names.is_established(crd) and (names.served_versions(crd) or terminating)
        if not servable or self.overlaps_builtin(crd):
            if entry is not None:
                await self.remove(name)
            return
        key = _build_key(crd)
        if entry is not None and entry.key == key:
            entry.crd = crd
            entry.terminating = terminating
            return
        try:
            built = await self._build(crd, key, entry)
        except Exception:
            # nothing half-built stays: the previous Stores are gone too, and the next sync builds afresh
            if self._served.pop(name, None) is not None and entry is not None:
                for listener in self.listeners:
                    await listener.resource_removed(entry.group, entry.plural)
                await entry.converter.close()
            raise
        self._served[name] = built
        try:
            # what is served is served: a CRD the documents cannot take is logged, not retried for ever
            self.openapi.crd_served(crd)
        except Exception:
            log.exception("%s: its OpenAPI could not be published", name)
        for listener in self.listeners:
            listener.resource_added(built.group, built.plural)

    async def remove(self, name: str) -> None:
        """Stop serving the CRD `name` (gone, or no longer established); its objects stay stored."""
        entry = self._served.pop(name, None)
        if entry is None:
            return
        self._uninstall(entry)
        for listener in self.listeners:
            try:
                await listener.resource_removed(entry.group, entry.plural)
            except Exception:
                log.exception("%s: a listener failed as %s.%s went", name, entry.plural, entry.group)
        await self.registry.unregister(entry.group, entry.plural)
        await entry.converter.close()
        try:
            self.openapi.crd_removed(entry.crd)
        except Exception:
            log.exception("%s: its OpenAPI could not be withdrawn", name)

    async def close(self) -> None:
        for name in list(self._served):
            await self.remove(name)

    # -- building ------------------------------------------------------------------------------------

    async def _build(self, crd: Obj, key: str, previous: _Served | None) -> _Served:
        """Build the CRD's watch cache and Stores afresh and swap them in. A new cache (rather than new Stores
        over the old one) ends the watches of the old Stores, as kube tears a CRD's old storage down: their
        clients re-watch and meet the new schema and versions."""
        spec = crd.get("spec") or {}
        group = str(spec.get("group") or "")
        plural = str(names.accepted_names(crd).get("plural") or "")
        if previous is not None and (previous.group, previous.plural) != (group, plural):
            await self.remove(str(crd["metadata"]["name"]))
            previous = None
        built: dict[str, Any] = {}

        def new_storage(ctx: StorageContext) -> ResourceStorage:
            built["cacher"] = ctx.cacher(compact_in_cache=False)
            built["key_root"] = ctx.key_root()
            # the Stores are built once the cache holds the objects (`_install`), from the CRD as it is then
            return ResourceStorage(previous.main if previous is not None else None)

        storage_spec = names.resource_spec(crd, names.storage_version(crd) or names.served_versions(crd)[0])
        registration = Registration(group, plural, new_storage)
        old_cachers = await self.registry.reregister(storage_spec, registration)
        reuse = previous is not None and conversion_settings(previous.crd) == conversion_settings(crd)
        converter = previous.converter if previous is not None and reuse else self._converter(crd)
        entry = _Served(crd, key, group, plural, built["cacher"], built["key_root"], converter)
        entry.terminating = bool((crd.get("metadata") or {}).get("deletionTimestamp"))
        try:
            if previous is not None:
                self._uninstall(previous, keep_schemas=True)
            self._install(entry)
        except Exception:
            self._uninstall(entry)
            await self.registry.unregister(group, plural)
            if not reuse:
                await converter.close()
            raise
        finally:
            for cacher in old_cachers:
                await cacher.close()
        if previous is not None and not reuse:
            await previous.converter.close()
        return entry

    def _uninstall(self, entry: _Served, *, keep_schemas: bool = False) -> None:
        for version in entry.versions:
            self.routes.uninstall(entry.group, version, entry.plural)
        if not keep_schemas:
            for spec in entry.specs.values():
                self.schemas.remove(spec.group, spec.version, spec.kind)

    def _install(self, entry: _Served) -> None:
        crd = entry.crd
        served = by_priority(names.served_versions(crd))
        # every defined version's schema, served or not: objects converted to it are pruned by it
        defined = [str(v.get("name")) for v in names.versions(crd) if v.get("name")]
        for version in defined:
            spec = entry.specs[version] = names.resource_spec(crd, version)
            schema = names.schema(crd, version)
            if schema is not None:
                self.schemas.add(spec.group, spec.version, spec.kind, served_schema(schema))
            else:
                self.schemas.remove(spec.group, spec.version, spec.kind)
        storage_version = names.storage_version(crd) or served[0]
        stored = (crd.get("status") or {}).get("storedVersions") or [storage_version]
        main: ResourceStorage | None = None
        # the storage version's Store exists even when it is not served: the finalizer deletes through it
        for version in dict.fromkeys([*served, storage_version]):
            spec = entry.specs.get(version) or names.resource_spec(crd, version)
            rules = self._rules(crd, version)
            built = self._version_storage(entry, spec, rules, stored, storage_version)
            if version in served:
                self.routes.install(spec, built.main, built.subresources, self.options)
                entry.versions.append(version)
            if version == storage_version:
                main = built
        assert main is not None
        entry.main = main.main
        self.registry.replace_storage(entry.group, entry.plural, main)

    def _prune(self, entry: _Served, obj: Obj) -> None:
        """Prune a converted object by the schema of the version it was converted to."""
        version = str(obj.get("apiVersion") or "").rpartition("/")[2]
        spec = entry.specs.get(version)
        if spec is not None:
            prune_unknown_fields(spec, obj)

    def _version_storage(
        self,
        entry: _Served,
        spec: ResourceSpec,
        rules: VersionRules,
        stored: list[str],
        storage_version: str,
    ) -> ResourceStorage:
        version = spec.version
        storage: Storage = entry.cacher
        if rules.read_default is not None or stored != [version] or storage_version != version:
            group = entry.group
            storage = VersionedStorage(
                entry.cacher,
                spec.api_version,
                lambda: f"{group}/{names.storage_version(entry.crd) or storage_version}",
                entry.converter,
                rules.read_default,
                lambda obj: self._prune(entry, obj),
            )
        strategy = CustomResourceStrategy(spec, rules)
        store = CustomResourceStore(spec, strategy, storage, key_root=entry.key_root, clock=self.registry.clock)
        store.table = self._table(entry.crd, version)
        store.scale_paths = rules.scale
        store.terminating = lambda: entry.terminating
        subresources: dict[str, Any] = {}
        if spec.subresource("status"):
            subresources["status"] = StatusStore(store, CustomResourceStatusStrategy(strategy))
        return ResourceStorage(store, subresources)
