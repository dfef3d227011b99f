"""Helpers shared by the client's unit tests: running coroutines, letting the loop settle, stepping fake time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from kubelite.client.clock import FakeClock


def run(body: Callable[[], Awaitable[Any]], *, timeout: float = 20.0) -> Any:
    return asyncio.run(asyncio.wait_for(body(), timeout))


async def settle(rounds: int = 30) -> None:
    """Let every runnable task run until the loop is quiet (a bounded number of passes)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


async def until(
    condition: Callable[[], bool], clock: FakeClock | None = None, *, step: float = 1.0, limit: int = 500
) -> None:
    """Run the loop (stepping fake time if given) until `condition` holds."""
    for _ in range(limit):
        await settle()
        if condition():
            return
        if clock is not None:
            clock.step(step)
    raise AssertionError("condition not reached")


class InstantClock(FakeClock):
    """A fake clock whose sleeps return at once, moving time forward by their length and recording them."""

    def __init__(self) -> None:
        super().__init__()
        self.sleeps: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.step(max(seconds, 0.0))
        await asyncio.sleep(0)


def cm(name: str, namespace: str = "default", rv: str = "1", **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "resourceVersion": rv, "labels": dict(labels)},
    }
