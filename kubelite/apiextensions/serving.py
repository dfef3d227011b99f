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
    group: str
    plural: str
    cacher: Cacher
    key_root: str
    converter: Converter
    versions: list[str] = field(default_factory=list)
    specs: dict[str, ResourceSpec] = field(default_factory=dict)


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

    def served(self, name: str) -> Obj | None:
        """The CRD as it is served now, None when it is not."""
        entry = self._served.get(name)
        return entry.crd if entry is not None else None

    async def sync(self, crd: Obj) -> None:
        """Serve `crd` as it says: install, rebuild or remove its resource's routes."""
        meta = crd.get("metadata") or {}
        name = str(meta.get("name") or "")
        entry = self._served.get(name)
        if not names.is_established(crd) or not names.served_versions(crd):
            if entry is not None:
                await self.remove(name)
            return
        if entry is not None and (entry.crd.get("metadata") or {}).get("resourceVersion") == meta.get(
            "resourceVersion"
        ):
            return
        spec = crd.get("spec") or {}
        group = str(spec.get("group") or "")
        plural = str(names.accepted_names(crd).get("plural") or "")
        if entry is not None and (entry.group, entry.plural) != (group, plural):
            await self.remove(name)
            entry = None
        if entry is None:
            entry = await self._register(crd, group, plural)
            self._served[name] = entry
        else:
            previous = entry.crd
            entry.crd = crd
            if conversion_settings(previous) != conversion_settings(crd):
                old = entry.converter
                entry.converter = self._converter(crd)
                await old.close()
        self._install(entry)
        self.openapi.crd_served(crd)
        for listener in self.listeners:
            listener.resource_added(group, plural)

    async def remove(self, name: str) -> None:
        """Stop serving the CRD `name` (gone, or no longer established); its objects stay stored."""
        entry = self._served.pop(name, None)
        if entry is None:
            return
        for version in entry.versions:
            self.routes.uninstall(entry.group, version, entry.plural)
        for spec in entry.specs.values():
            self.schemas.remove(spec.group, spec.version, spec.kind)
        for listener in self.listeners:
            await listener.resource_removed(entry.group, entry.plural)
        await self.registry.unregister(entry.group, entry.plural)
        await entry.converter.close()
        self.openapi.crd_removed(entry.crd)

    async def close(self) -> None:
        for name in list(self._served):
            await self.remove(name)

    # -- building ------------------------------------------------------------------------------------

    async def _register(self, crd: Obj, group: str, plural: str) -> _Served:
        built: dict[str, Any] = {}

        def new_storage(ctx: StorageContext) -> ResourceStorage:
            built["cacher"] = ctx.cacher(compact_in_cache=False)
            built["key_root"] = ctx.key_root()
            # the Stores are built once the cache holds the objects (`_install`), from the CRD as it is then
            return ResourceStorage(None)

        storage_version = names.storage_version(crd) or names.served_versions(crd)[0]
        spec = names.resource_spec(crd, storage_version)
        await self.registry.register(spec, Registration(group, plural, new_storage))
        return _Served(crd, group, plural, built["cacher"], built["key_root"], self._converter(crd))

    def _install(self, entry: _Served) -> None:
        crd = entry.crd
        for version in entry.versions:
            self.routes.uninstall(entry.group, version, entry.plural)
        served = by_priority(names.served_versions(crd))
        # every defined version's schema, served or not: objects converted to it are pruned by it
        defined = {str(v.get("name")) for v in names.versions(crd) if v.get("name")}
        for gone in set(entry.specs) - defined:
            spec = entry.specs.pop(gone)
            self.schemas.remove(spec.group, spec.version, spec.kind)
        for version in defined:
            spec = entry.specs[version] = names.resource_spec(crd, version)
            schema = names.schema(crd, version)
            if schema is not None:
                self.schemas.add(spec.group, spec.version, spec.kind, served_schema(schema))
            else:
                self.schemas.remove(spec.group, spec.version, spec.kind)
        storage_version = names.storage_version(crd) or served[0]
        stored = (crd.get("status") or {}).get("storedVersions") or [storage_version]
        terminating = bool((crd.get("metadata") or {}).get("deletionTimestamp"))
        main: ResourceStorage | None = None
        first: ResourceStorage | None = None
        for version in served:
            spec = entry.specs[version]
            rules = self._rules(crd, version)
            built = self._version_storage(entry, spec, rules, stored, storage_version, terminating)
            self.routes.install(spec, built.main, built.subresources, self.options)
            first = first or built
            if version == storage_version:
                main = built
        entry.versions = served
        self.registry.replace_storage(entry.group, entry.plural, main or first)  # type: ignore[arg-type]

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
        terminating: bool,
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
        store.terminating = (lambda: True) if terminating else (lambda: False)
        subresources: dict[str, Any] = {}
        if spec.subresource("status"):
            subresources["status"] = StatusStore(store, CustomResourceStatusStrategy(strategy))
        return ResourceStorage(store, subresources)
