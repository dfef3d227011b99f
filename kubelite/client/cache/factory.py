"""SharedInformerFactory: at most one informer per resource for a whole program (client-go's
`dynamicinformer.DynamicSharedInformerFactory`). Controllers ask the factory for the resources they need;
those asking for the same resource share its watch and cache. `start()` runs every informer not yet running;
`wait_for_cache_sync()` reports, per resource, whether its cache filled."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from kubelite.client.cache.fifo import TransformFunc
from kubelite.client.cache.listers import Lister
from kubelite.client.cache.listwatch import ListWatch
from kubelite.client.cache.shared_informer import QueueKind, SharedIndexInformer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock, RealClock
from kubelite.client.dynamic import DynamicClient
from kubelite.client.schema import GroupVersionResource


@dataclass
class GenericInformer:
    informer: SharedIndexInformer
    lister: Lister


class SharedInformerFactory:
    def __init__(
        self,
        client: DynamicClient,
        *,
        default_resync: float = 0.0,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        queue: QueueKind = "real",
        use_watch_list: bool = True,
        transform: TransformFunc | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.client = client
        self.default_resync = default_resync
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.queue = queue
        self.use_watch_list = use_watch_list
        self.transform = transform
        self.clock = clock or RealClock()
        self._informers: dict[GroupVersionResource, GenericInformer] = {}
        self._tasks: dict[GroupVersionResource, asyncio.Task[None]] = {}

    async def __aenter__(self) -> SharedInformerFactory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.shutdown()

    def for_resource(
        self,
        gvr: GroupVersionResource | tuple[str, str, str],
        *,
        resync: float | None = None,
        namespaced: bool = True,
    ) -> GenericInformer:
        """The shared informer of a resource (created on first request). `namespaced=False` ignores the
        factory's namespace, for cluster-scoped resources."""
        if not isinstance(gvr, GroupVersionResource):
            gvr = GroupVersionResource(*gvr)
        existing = self._informers.get(gvr)
        if existing is not None:
            return existing
        client = self.client.resource(gvr).namespace(self.namespace if namespaced else None)
        lister_watcher = ListWatch(
            client, label_selector=self.label_selector, field_selector=self.field_selector
        )
        informer = SharedIndexInformer(
            lister_watcher,
            name=str(gvr),
            resync_period=self.default_resync if resync is None else resync,
            queue=self.queue,
            use_watch_list=self.use_watch_list,
            clock=self.clock,
        )
        if self.transform is not None:
            informer.set_transform(self.transform)
        generic = GenericInformer(informer, Lister(informer.indexer, resource=gvr.resource, group=gvr.group))
        self._informers[gvr] = generic
        return generic

    async def for_kind(self, api_version: str, kind: str, *, resync: float | None = None) -> GenericInformer:
        """The shared informer of the resource serving a kind, found through discovery."""
        _, found = await self.client.for_kind(api_version, kind)
        return self.for_resource(found.gvr, resync=resync, namespaced=found.namespaced)

    def start(self) -> None:
        """Run every informer that is not running yet (informers requested later need another start())."""
        for gvr, generic in self._informers.items():
            if gvr not in self._tasks:
                self._tasks[gvr] = generic.informer.start()

    async def wait_for_cache_sync(self, *, timeout: float | None = None) -> dict[GroupVersionResource, bool]:
        started = {gvr: self._informers[gvr].informer for gvr in self._tasks}

        async def one(informer: SharedIndexInformer) -> bool:
            return await wait_for_cache_sync(informer.has_synced, timeout=timeout, clock=self.clock)

        results = await asyncio.gather(*(one(informer) for informer in started.values()))
        return dict(zip(started, results, strict=True))

    async def shutdown(self) -> None:
        """Stop every informer and wait for them to finish."""
        for generic in self._informers.values():
            await generic.informer.stop()
        self._tasks.clear()
