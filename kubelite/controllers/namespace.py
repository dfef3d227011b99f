"""Namespace deletion (kube's namespace controller): once a namespace is terminating, delete everything in
it, then remove the `kubernetes` finalizer, and the namespace goes."""

from __future__ import annotations

import asyncio
import logging

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.controllers.base import run_watch_loop
from kubelite.registry.builtin import Registry
from kubelite.registry.core.namespaces import FINALIZER
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.storage.interface import EventType

log = logging.getLogger(__name__)


async def run_namespace_controller(registry: Registry) -> None:
    namespaces = registry.store("", "namespaces")
    finalize = registry.status_strategies[("", "namespaces")]["finalize"]
    in_progress: set[str] = set()
    tasks: set[asyncio.Task[None]] = set()

    async def finish(name: str) -> None:
        try:
            for _ in range(600):
                remaining = 0
                for store in registry.stores.values():
                    if not store.spec.namespaced:
                        continue
                    deleted = await store.delete_collection(name, ListParams(), DeleteParams(grace_period_seconds=0))
                    remaining += len([o for o in deleted["items"] if o["metadata"].get("deletionTimestamp")])
                if not remaining:
                    break
                await asyncio.sleep(1)

            async def drop_finalizer(current: Obj | None) -> Obj:
                if current is None:
                    raise StatusError(404, "NotFound", "gone")
                spec = dict(current.get("spec") or {})
                spec["finalizers"] = [f for f in spec.get("finalizers") or [] if f != FINALIZER]
                current["spec"] = spec
                return current

            await namespaces.update("", name, drop_finalizer, WriteParams(), strategy=finalize, allow_create=False)
            await namespaces.delete("", name, DeleteParams())
        except StatusError as exc:
            if exc.code != 404:
                log.warning("deleting namespace %s: %s", name, exc)
        finally:
            in_progress.discard(name)

    async def reconcile(namespace: Obj, event: EventType) -> None:
        meta = namespace["metadata"]
        if event is EventType.DELETED or not meta.get("deletionTimestamp") or meta["name"] in in_progress:
            return
        in_progress.add(meta["name"])
        task = asyncio.create_task(finish(meta["name"]), name=f"delete namespace {meta['name']}")
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    await run_watch_loop(namespaces, reconcile, name="namespace")
