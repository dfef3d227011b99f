"""What the property-based (hypothesis) tests of the client share: settings, and an event loop that state
machines drive one synchronous step at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from hypothesis import Phase, settings

from tests.unit.client.support import settle

R = TypeVar("R")

#: no example database (nothing is written next to the sources) and no explain phase (it re-runs a
#: failing case under a tracer, which is slow for state machines); no deadline, as loop steps vary in duration
PHASES = [Phase.explicit, Phase.generate, Phase.shrink]

#: loop passes after each step: the longest chain here (fake time wakes the delay loop's sleeper, the loop
#: queues the item, a parked worker takes it) needs three; more only slows the shrinking of a failure
SETTLE_ROUNDS = 8

#: real seconds a single awaited step may take (they take microseconds)
WAIT_LIMIT = 5.0


def machine_settings(max_examples: int, steps: int) -> settings:
    return settings(
        max_examples=max_examples, stateful_step_count=steps, deadline=None, database=None, phases=PHASES
    )


def given_settings(max_examples: int) -> settings:
    return settings(max_examples=max_examples, deadline=None, database=None, phases=PHASES)


class LoopHarness:
    """One event loop per example; every step runs on it and then lets the tasks it woke run."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def call(self, step: Callable[[], R]) -> R:
        async def body() -> R:
            result = step()
            await settle(SETTLE_ROUNDS)
            return result

        return self.loop.run_until_complete(body())

    def wait(self, awaitable: Coroutine[Any, Any, R]) -> R:
        """Run until `awaitable` is done; a queue that wrongly blocks fails the example instead of hanging."""
        return self.loop.run_until_complete(asyncio.wait_for(awaitable, WAIT_LIMIT))

    def close(self) -> None:
        async def cancel_the_rest() -> None:
            pending = asyncio.all_tasks() - {asyncio.current_task()}
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        try:
            self.loop.run_until_complete(cancel_the_rest())
        finally:
            self.loop.close()
