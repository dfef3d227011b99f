"""kube-controller-manager's workload controllers, as one component of the user `system:kube-controller-manager`.

Every selected controller of `catalog.api_controllers()` is built on one `ComponentClient`, so they share one
informer per resource; then the informers start and every controller runs until cancelled. Leader election
around it (one controller manager among HA replicas) is the caller's (`server/cluster.py`).
"""

from __future__ import annotations

import asyncio
import logging

from kubelite.client.component import ComponentClient
from kubelite.controllers.catalog import ControlLoop, api_controllers
from kubelite.controllers.selection import ControllerSelection

log = logging.getLogger(__name__)


def build_api_controllers(clients: ComponentClient, selection: ControllerSelection) -> list[ControlLoop]:
    return [d.build(clients) for d in api_controllers() if selection.enabled(d.name)]


async def run_controller_manager(clients: ComponentClient, selection: ControllerSelection) -> None:
    loops = build_api_controllers(clients, selection)
    if not loops:
        return
    clients.start_informers()
    try:
        async with asyncio.TaskGroup() as group:
            for loop in loops:
                group.create_task(loop.run(), name=loop.controller.name)
    except Exception:
        log.exception("the controller manager stopped")
        raise
