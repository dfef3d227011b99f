"""The in-process controller manager: every control loop built on one shared informer factory, as
kube-controller-manager builds its controllers on one SharedInformerFactory.

All controllers are constructed first, each asking the factory for the informers it needs and adding its
handlers; then the factory starts the informers, so each resource is listed and watched once, however many
controllers read it, and no handler misses the initial list. Stopping (cancelling `run_controllers`) stops
the controllers' workers and then the informers. The controllers share one injected clock
(`kubelite.client.clock`: the real one unless a test passes a `FakeClock`).
"""

from __future__ import annotations

import asyncio
import logging

from kubelite.client.clock import Clock
from kubelite.controllers.catalog import ControlLoop
from kubelite.controllers.certificates.signer import CertificateAuthority
from kubelite.controllers.certificates.signer_controller import CSRSigningController
from kubelite.controllers.garbage_collector import GarbageCollector
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.controllers.namespace import NamespaceController
from kubelite.controllers.podtermination import PodTerminationController
from kubelite.controllers.rootcacert import RootCACertPublisher
from kubelite.controllers.selection import ALL, ControllerSelection
from kubelite.controllers.serviceaccounts import ServiceAccountsController
from kubelite.registry.builtin import Registry

log = logging.getLogger(__name__)


def build_controllers(
    registry: Registry,
    informers: RegistryInformerFactory,
    *,
    root_ca: str,
    clock: Clock | None = None,
    selection: ControllerSelection = ALL,
    signing_ca: CertificateAuthority | None = None,
) -> list[ControlLoop]:
    """Every selected in-process controller, its informers requested and its handlers added (nothing runs
    yet). `clock` is what the controllers wait on (their work queues' delays and retries, the pods' grace
    periods); the informers keep their factory's. Without `signing_ca` no CSR is signed."""
    loops: list[ControlLoop] = []
    if selection.enabled("namespace-controller"):
        loops.append(NamespaceController(registry, informers, clock=clock))
    if selection.enabled("serviceaccount-controller"):
        loops.append(ServiceAccountsController(registry, informers, clock=clock))
    if selection.enabled("root-ca-certificate-publisher-controller"):
        loops.append(RootCACertPublisher(registry, informers, root_ca, clock=clock))
    if selection.enabled("pod-termination-controller"):
        loops.append(PodTerminationController(registry, informers, clock=clock))
    if selection.enabled("garbage-collector-controller"):
        loops.append(GarbageCollector(registry, informers, clock=clock))
    if signing_ca is not None and selection.enabled("csrsigning-controller"):
        loops.append(CSRSigningController(registry, informers, signing_ca, clock=clock))
    return loops


async def run_controllers(
    registry: Registry,
    informers: RegistryInformerFactory,
    *,
    root_ca: str,
    clock: Clock | None = None,
    loops: list[ControlLoop] | None = None,
) -> None:
    """Build every controller (or take `loops`, built by `build_controllers` on `informers`), start the
    shared informers, and run until cancelled."""
    if loops is None:
        loops = build_controllers(registry, informers, root_ca=root_ca, clock=clock)
    informers.start()
    try:
        async with asyncio.TaskGroup() as group:
            for loop in loops:
                group.create_task(loop.run())
    except Exception:
        # reconcile errors are retried inside each controller: reaching here is a bug, and the server would
        # only see it when it stops
        log.exception("the controllers stopped")
        raise
    finally:
        await informers.shutdown()
