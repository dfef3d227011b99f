"""How a resource's storage comes to be: each resource home exposes a `Registration` whose `new_storage` builds
the storage of the resource and of its subresources from a small `StorageContext` (kube's per-resource
`NewStorage(optsGetter)` and the group's `RESTStorageProvider`), and the `Registry` holds what was built.

Registration is data, not a fixed table: `Registry.register` takes any ResourceSpec with any Registration,
while the server runs too (custom resources: `apiextensions.serving`), and starts the watch caches it needs;
`unregister` closes them again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubelite.apimachinery.compact import compact_managed_fields, compact_spec_and_status
from kubelite.apimachinery.meta import Obj
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.registry.strategy import StatusStrategy, Strategy, field_value
from kubelite.registry.subresources import StatusStore
from kubelite.registry.tables.base import TableSpec
from kubelite.storage.cacher import Cacher
from kubelite.storage.interface import Storage
from kubelite.util.clock import Clock, RealClock


@dataclass(frozen=True, slots=True)
class RegistryOptions:
    """Server options some resources' storage depends on."""

    #: the range Service cluster IPs are allocated from (--service-cluster-ip-range)
    service_cluster_ip_range: str = "10.96.0.0/12"


@dataclass(frozen=True, slots=True)
class ResourceStorage:
    """What a resource home built: the resource's storage and its subresources' by name (kube's "pods",
    "pods/status", ...). Subresources served by a handler of their own (scale, binding, log) are the route
    installer's and not listed here."""

    main: Any
    subresources: Mapping[str, Any] = field(default_factory=dict)


class StorageContext:
    """What a resource home builds its storage from: the storage backend behind watch caches, the resource's
    spec, the server's options and the storage already registered (a converting view needs its source)."""

    def __init__(self, registry: Registry, storage: Storage, spec: ResourceSpec) -> None:
        self.registry = registry
        self.storage = storage
        self.spec = spec
        self.options = registry.options
        self.cachers: list[Cacher] = []
        self.start_hooks: list[Callable[[], Awaitable[None]]] = []

    def key_root(self) -> str:
        """Where the resource's objects are kept: /registry/<root>/ (kube's layout: no group for the legacy
        groups, group/resource otherwise)."""
        spec = self.spec
        return spec.resource if spec.group in ("", "apps", "batch") else f"{spec.group}/{spec.resource}"

    def cacher(self, *, compact_in_cache: bool, trigger_field: str | None = None) -> Cacher:
        compact = compact_spec_and_status if compact_in_cache else compact_managed_fields
        trigger = None
        if trigger_field is not None:
            # the very reading of the field that field selectors match, so the index never disagrees with them
            def trigger_value(obj: Obj, path: str = trigger_field) -> str:
                return field_value(obj, path)

            trigger = (trigger_field, trigger_value)
        cacher = Cacher(
            self.storage,
            f"/registry/{self.key_root()}/",
            compact=compact,
            clock=self.registry.clock,
            indexed_trigger=trigger,
        )
        self.cachers.append(cacher)
        return cacher

    def store(
        self, strategy: Strategy, *, table: TableSpec | None = None, store_type: type[Store] = Store, **extra: Any
    ) -> Store:
        """The generic Store of the resource over its own watch cache, printing with `table`."""
        cacher = self.cacher(compact_in_cache=strategy.compact_in_cache, trigger_field=strategy.watch_trigger_field)
        store = store_type(self.spec, strategy, cacher, key_root=self.key_root(), clock=self.registry.clock, **extra)
        store.table = table
        return store

    def with_status(self, store: Store, **subresources: Any) -> ResourceStorage:
        """The store, its /status when the spec has one, and any other subresources given."""
        subs: dict[str, Any] = {}
        if self.spec.subresource("status"):
            subs["status"] = StatusStore(store, StatusStrategy(store.strategy))
        subs.update(subresources)
        return ResourceStorage(store, subs)

    def after_start(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run `hook` once the resource's watch caches hold its objects (e.g. marking allocated addresses)."""
        self.start_hooks.append(hook)


NewStorage = Callable[[StorageContext], ResourceStorage]


@dataclass(frozen=True, slots=True)
class Registration:
    """A resource home's entry: which resource it serves and how its storage is built."""

    group: str
    resource: str
    new_storage: NewStorage
    #: the strategy of the resource's objects, for what needs it without a Store (e.g. checks in tests)
    new_strategy: Callable[[ResourceSpec], Strategy] | None = None


def stored(
    group: str,
    resource: str,
    strategy: Callable[[ResourceSpec], Strategy],
    *,
    table: TableSpec | None = None,
) -> Registration:
    """The registration of a resource served by the generic Store with `strategy` (and /status if any)."""

    def new_storage(ctx: StorageContext) -> ResourceStorage:
        return ctx.with_status(ctx.store(strategy(ctx.spec), table=table))

    return Registration(group, resource, new_storage, strategy)


class Registry:
    """Every registered resource's storage, by (group, resource), and the watch caches behind them."""

    def __init__(self, storage: Storage, options: RegistryOptions | None = None, *, clock: Clock | None = None) -> None:
        self.storage = storage
        self.options = options or RegistryOptions()
        #: the time every watch cache and Store of the registry reads
        self.clock: Clock = clock or RealClock()
        #: the storage of each persisted resource (kube's "pods" entries)
        self.stores: dict[tuple[str, str], Any] = {}
        #: the storage of each resource's registry-served subresources (kube's "pods/status" entries)
        self.subresources: dict[tuple[str, str], dict[str, Any]] = {}
        self.cachers: list[Cacher] = []
        self._cachers_of: dict[tuple[str, str], list[Cacher]] = {}

    def store(self, group: str, resource: str) -> Any:
        return self.stores[(group, resource)]

    @property
    def status_strategies(self) -> dict[tuple[str, str], dict[str, Strategy]]:
        """The write strategy of each subresource that has one (status, finalize)."""
        return {
            key: {
                name: sub.strategy for name, sub in subs.items() if isinstance(getattr(sub, "strategy", None), Strategy)
            }
            for key, subs in self.subresources.items()
        }

    async def register(self, spec: ResourceSpec, registration: Registration) -> ResourceStorage:
        """Build the storage of `spec` with `registration`, start its watch caches, and hold it."""
        if (spec.group, spec.resource) != (registration.group, registration.resource):
            raise ValueError(
                f"registration of {registration.resource}.{registration.group} cannot serve "
                f"{spec.resource}.{spec.group}: register the resource's own"
            )
        if (spec.group, spec.resource) in self.stores:
            raise ValueError(f"{spec.resource}.{spec.group or 'core'} is registered already")
        ctx = StorageContext(self, self.storage, spec)
        built = registration.new_storage(ctx)
        for cacher in ctx.cachers:
            await cacher.start()
        self.cachers.extend(ctx.cachers)
        for hook in ctx.start_hooks:
            await hook()
        key = (spec.group, spec.resource)
        self.stores[key] = built.main
        self.subresources[key] = dict(built.subresources)
        self._cachers_of[key] = list(ctx.cachers)
        return built

    async def reregister(self, spec: ResourceSpec, registration: Registration) -> list[Cacher]:
        """Register `spec` anew: build its storage over new watch caches, start them, and hold it in place of
        what was registered (a CRD whose schema or versions changed). Returns the replaced watch caches, for the
        caller to close once nothing is routed to them; none when the resource was not registered."""
        key = (spec.group, spec.resource)
        if key not in self.stores:
            await self.register(spec, registration)
            return []
        ctx = StorageContext(self, self.storage, spec)
        built = registration.new_storage(ctx)
        started: list[Cacher] = []
        try:
            for cacher in ctx.cachers:
                await cacher.start()
                started.append(cacher)
            for hook in ctx.start_hooks:
                await hook()
        except BaseException:
            for cacher in ctx.cachers:
                await cacher.close()
            raise
        old = self._cachers_of.get(key, [])
        for cacher in old:
            self.cachers.remove(cacher)
        self.cachers.extend(ctx.cachers)
        self._cachers_of[key] = list(ctx.cachers)
        self.stores[key] = built.main
        self.subresources[key] = dict(built.subresources)
        return old

    def replace_storage(self, group: str, resource: str, built: ResourceStorage) -> None:
        """Hold new storage objects for a registered resource over the same watch caches (a CRD that changed
        rebuilds its Stores, not its caches)."""
        key = (group, resource)
        if key not in self.stores:
            raise ValueError(f"{resource}.{group or 'core'} is not registered")
        self.stores[key] = built.main
        self.subresources[key] = dict(built.subresources)

    async def unregister(self, group: str, resource: str) -> bool:
        """Forget a resource's storage and close its watch caches (a CRD that is gone); False when the resource
        was not registered. Its stored objects stay in storage."""
        key = (group, resource)
        if key not in self.stores:
            return False
        del self.stores[key]
        self.subresources.pop(key, None)
        for cacher in self._cachers_of.pop(key, []):
            self.cachers.remove(cacher)
            await cacher.close()
        return True
