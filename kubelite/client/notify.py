"""A broadcast wake-up for coroutines waiting on a condition that plain (synchronous) code changes.

asyncio.Condition needs its lock held to notify, which synchronous pushers (an informer's handler adding to a
work queue) cannot take. Waiters here re-check their condition after every wake-up, so waking all of them is
always correct and no wake-up is lost: between checking the condition and registering, nothing else runs.
"""

from __future__ import annotations

import asyncio


class Wakeup:
    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def notify(self) -> None:
        """Wake everyone waiting now."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def future(self) -> asyncio.Future[None]:
        """A future the next notify completes, registered now (so no notify between now and awaiting it is
        lost, as could happen with a task that only starts waiting when it first runs)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return waiter

    async def wait(self) -> None:
        """Wait for the next notify (a cancelled waiter just drops out)."""
        await self.future()
