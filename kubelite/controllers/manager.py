"""The in-process controller manager: every control loop built on one shared informer factory, as
kube-controller-manager builds its controllers on one SharedInformerFactory.

All controllers are constructed first, each asking the factory for the informers it needs and adding its
handlers; then the factory starts the informers, so each resource is listed and watched once, however many
controllers read it, and no handler misses the initial list. Stopping (cancelling `run_controllers`) stops
the controllers' workers and then the informers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from kubelite.controllers.garbage_collector import GarbageCollector
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.controllers.namespace import NamespaceController
from kubelite.controllers.podtermination import PodTerminationController
from kubelite.controllers.rootcacert import RootCACertPublisher
from kubelite.controllers.serviceaccounts import ServiceAccountsController
from kubelite.registry.builtin import Registry

log = logging.getLogger(__name__)


def build_controllers(
    registry: Registry, informers: RegistryInformerFactory, *, root_ca: str
) -> list[Callable[[], Awaitable[None]]]:
    """Every controller's `run`, its informers requested and its handlers added (nothing runs yet)."""
    return [
        NamespaceController(registry, informers).run,
        ServiceAccountsController(registry, informers).run,
        RootCACertPublisher(registry, informers, root_ca).run,
        PodTerminationController(registry, informers).run,
        GarbageCollector(registry, informers).run,
    ]


async def run_controllers(registry: Registry, informers: RegistryInformerFactory, *, root_ca: str) -> None:
    """Build every controller, start the shared informers, and run until cancelled."""
    runs = build_controllers(registry, informers, root_ca=root_ca)
    informers.start()
    try:
        async with asyncio.TaskGroup() as group:
            for run in runs:
                group.create_task(run())
    except Exception:
        # reconcile errors are retried inside each controller: reaching here is a bug, and the server would
        # only see it when it stops
        log.exception("the controllers stopped")
        raise
    finally:
        await informers.shutdown()
