"""Completes graceful pod deletion once the grace period is over.

On a real cluster the kubelet stops a terminating pod's containers and then deletes the pod with a grace
period of zero. kubelite runs no kubelet, so this loop stands in for that last step: a pod marked for
deletion goes when its deletionGracePeriodSeconds have passed (finalizers still hold it, as they would).
"""

from __future__ import annotations

import asyncio

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj, now, parse_rfc3339
from kubelite.controllers.base import run_watch_loop
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams
from kubelite.storage.interface import EventType


async def run_pod_termination_controller(registry: Registry) -> None:
    pods = registry.store("", "pods")
    timers: dict[str, asyncio.TimerHandle] = {}
    tasks: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()

    async def finish(namespace: str, name: str, uid: str) -> None:
        try:
            await pods.delete(namespace, name, DeleteParams(grace_period_seconds=0, precondition_uid=uid))
        except StatusError:
            pass  # already gone, replaced by a new pod of the same name, or still held by finalizers

    def fire(namespace: str, name: str, uid: str) -> None:
        timers.pop(uid, None)
        task = loop.create_task(finish(namespace, name, uid))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    async def reconcile(pod: Obj, event: EventType) -> None:
        meta = pod["metadata"]
        uid = meta.get("uid", "")
        if event is EventType.DELETED:
            timer = timers.pop(uid, None)
            if timer:
                timer.cancel()
            return
        if not meta.get("deletionTimestamp") or meta.get("finalizers") or uid in timers:
            return
        deadline = parse_rfc3339(meta["deletionTimestamp"])
        delay = max((deadline - now()).total_seconds(), 0.0)
        timers[uid] = loop.call_later(delay, fire, meta.get("namespace", ""), meta["name"], uid)

    await run_watch_loop(pods, reconcile, name="pod-termination")
