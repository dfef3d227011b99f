"""One component's connection to the API: what the scheduler, a kubelet or the controller manager holds.

kube's components each build the same few things from their kubeconfig: a client set for their identity,
a shared informer factory on it, event recorders, and (in kube-controller-manager) a `ControllerContext`
handing them to every controller. `ComponentClient` is that bundle for kubelite.client: everything a
component reads and writes goes through the API as its own user, and every wait runs on one injected clock,
so a test drives a component's time with a `FakeClock`.

    clients = ComponentClient("kube-scheduler", config)
    pods = clients.informers.for_resource(("", "v1", "pods"))
    ...
    await clients.close()
"""

from __future__ import annotations

from typing import Any

from kubelite.client.cache.factory import SharedInformerFactory
from kubelite.client.clock import Clock, RealClock
from kubelite.client.config import Config
from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.record.recorder import EventRecorder
from kubelite.client.rest import RESTClient


class ComponentClient:
    def __init__(self, name: str, config: Config, *, clock: Clock | None = None) -> None:
        #: the component's name, as its events' source and its user agent say it
        self.name = name
        self.config = config
        self.clock = clock or RealClock()
        self.rest = RESTClient(config, clock=self.clock)
        self.dynamic = DynamicClient(self.rest)
        #: the component's shared informers: one watch per resource, whatever number of its loops read it
        self.informers = SharedInformerFactory(self.dynamic, clock=self.clock)
        self._factories: list[SharedInformerFactory] = [self.informers]
        self._recorders: list[EventRecorder] = []

    def resource(self, group: str, version: str, resource: str) -> ResourceClient:
        return self.dynamic.resource((group, version, resource))

    def informer_factory(self, **options: Any) -> SharedInformerFactory:
        """Another factory, for informers with selectors of their own (a kubelet's pods, by its node name);
        stopped with the component."""
        factory = SharedInformerFactory(self.dynamic, clock=self.clock, **options)
        self._factories.append(factory)
        return factory

    def recorder(self, component: str | None = None, host: str = "") -> EventRecorder:
        """An event recorder reporting as `component` (the component's name by default) on `host`."""
        recorder = EventRecorder(self.dynamic, component=component or self.name, host=host, clock=self.clock)
        self._recorders.append(recorder)
        return recorder

    def start_informers(self) -> None:
        for factory in self._factories:
            factory.start()

    async def close(self) -> None:
        for factory in self._factories:
            await factory.shutdown()
        for recorder in self._recorders:
            await recorder.close()
        await self.rest.close()
