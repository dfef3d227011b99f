"""Controllers run in the test process on a FakeClock, against a real kubelite that runs none of them.

The clock follows real time in small ticks (so retries and polls go on) and a test jumps it ahead with `step`.
Subclasses say which control loops run (`loops`); each is built on one `ComponentClient` of the controller
manager's user."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import Any

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from tests.e2e.server import KubeliteProcess


class FakeTimeLoops(threading.Thread):
    TICK = 0.02

    def __init__(self, server: KubeliteProcess, clock: FakeClock) -> None:
        super().__init__(daemon=True)
        self.server = server
        self.clock = clock
        self.loop = asyncio.new_event_loop()
        self._main: asyncio.Task[None] | None = None

    def loops(self, clients: ComponentClient) -> Sequence[Any]:
        """The control loops to run (objects with `async run()`), built on `clients`."""
        raise NotImplementedError

    def run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._main = self.loop.create_task(self._run())
        with contextlib.suppress(asyncio.CancelledError):
            self.loop.run_until_complete(self._main)
        self.loop.close()

    async def _run(self) -> None:
        clients = ComponentClient("kube-controller-manager", Config(host=self.server.url), clock=self.clock)
        loops = self.loops(clients)
        clients.start_informers()
        try:
            async with asyncio.TaskGroup() as group:
                group.create_task(self._tick())
                for loop in loops:
                    group.create_task(loop.run())
        finally:
            await clients.close()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.TICK)
            self.clock.step(self.TICK)

    def step(self, seconds: float) -> None:
        self.loop.call_soon_threadsafe(self.clock.step, seconds)

    def stop(self) -> None:
        if self._main is not None:
            self.loop.call_soon_threadsafe(self._main.cancel)
        self.join(10)
