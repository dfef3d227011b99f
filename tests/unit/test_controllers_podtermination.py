"""The pod termination controller: reconciling a pod's key against what the lister holds (the deadline, the
finalizers, the uid precondition), and a gracefully deleted pod going once its grace period is over."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from kubelite.apimachinery.meta import Obj, now, parse_rfc3339, rfc3339
from kubelite.client.cache.store import Indexer
from kubelite.client.clock import FakeClock
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.controllers.podtermination import PodTerminationController
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams, WriteParams
from tests.unit.test_controller_informers import eventually, run, running_loops


def pod(name: str) -> Obj:
    # scheduled: an unscheduled pod is deleted at once, whatever the grace period
    spec = {"nodeName": "node-1", "containers": [{"name": "c", "image": "i"}]}
    return {"metadata": {"name": name}, "spec": spec}


def due_in(seconds: int) -> Callable[[Obj], None]:
    def mark(cached: Obj) -> None:
        cached["metadata"]["deletionTimestamp"] = rfc3339(now() + timedelta(seconds=seconds))

    return mark


def held(cached: Obj) -> None:
    due_in(-5)(cached)
    cached["metadata"]["finalizers"] = ["example.com/hold"]


def other_uid(cached: Obj) -> None:
    due_in(-5)(cached)
    cached["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"


def not_terminating(cached: Obj) -> None:
    pass


@pytest.mark.parametrize(
    ("cached_as", "again", "stays"),
    [
        (not_terminating, None, True),
        (due_in(60), 60, True),
        (due_in(-5), None, False),
        (held, None, True),
        (other_uid, None, True),
        (None, None, True),
    ],
    ids=["not-terminating", "before-its-deadline", "after-its-deadline", "held-by-a-finalizer",
         "a-new-pod-of-its-name", "not-in-the-lister"],
)  # fmt: skip
def test_reconcile(
    tmp_path: Path, cached_as: Callable[[Obj], None] | None, again: int | None, stays: bool
) -> None:
    """The lister's pod is the stored one as `cached_as` changes it (None: the lister lacks it)."""

    async def body(registry: Registry) -> None:
        pods = registry.store("", "pods")
        stored = await pods.create("default", pod("p"), WriteParams())
        controller = PodTerminationController(registry, RegistryInformerFactory(registry))
        controller.pods = Indexer()
        if cached_as is not None:
            cached = {**stored, "metadata": dict(stored["metadata"])}
            cached_as(cached)
            controller.pods.add(cached)
        result = await controller.reconcile("default/p")
        remaining = (
            pods.peek("default", "p") is not None,
            None if result is None else math.ceil(result),  # the deadline has second precision
        )
        assert remaining == (stays, again)

    run(tmp_path, body)


def test_a_gracefully_deleted_pod_goes_after_its_grace_period(tmp_path: Path) -> None:
    """The controllers' clock is a fake one, stepped past the grace period: no sleeping through it."""

    async def body(registry: Registry) -> None:
        pods = registry.store("", "pods")
        # an hour behind the wall clock that stamps deletionTimestamp: however long the controllers take to
        # start (the clock is stepped while they wait for their caches), the deadline is still ahead of it
        clock = FakeClock(start=0.0, wall_offset=time.time() - 3600)
        async with running_loops(registry, clock=clock) as (_, reconciles):
            termination = reconciles["pod-termination"]
            await pods.create("default", pod("p"), WriteParams())
            marked, deleted = await pods.delete("default", "p", DeleteParams(grace_period_seconds=2))
            grace = marked["metadata"]["deletionGracePeriodSeconds"]
            deadline = parse_rfc3339(marked["metadata"]["deletionTimestamp"]).timestamp()
            assert (deleted, grace) == (False, 2)

            async def waiting_for_its_deadline() -> bool:
                return termination.controller.queue.waiting() == 1 and termination.in_flight == 0

            # the controller has seen the pod marked and put it off until its deadline, not deleted it
            await eventually(waiting_for_its_deadline, timeout=5)
            assert "default/p" in termination.finished
            assert pods.peek("default", "p") is not None
            # just before the deadline, the key still waits
            clock.step(deadline - clock.now() - 0.25)
            await asyncio.sleep(0)
            assert await waiting_for_its_deadline()
            assert pods.peek("default", "p") is not None
            clock.step(0.5)

            async def gone() -> bool:
                return pods.peek("default", "p") is None

            await eventually(gone, timeout=5)
            assert clock.now() >= deadline

    run(tmp_path, body)
