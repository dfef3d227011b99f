"""A minimal level-triggered loop over one resource's watch: handle every object, re-list on any break."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.registry.options import ListParams, WriteParams
from kubelite.registry.store import Store
from kubelite.storage.interface import EventType

log = logging.getLogger(__name__)

Reconcile = Callable[[Obj, EventType], Awaitable[None]]


async def run_watch_loop(store: Store, reconcile: Reconcile, *, name: str) -> None:
    """Call `reconcile` for every current object and every later change, forever."""
    while True:
        try:
            watcher = await store.watch("", ListParams())
            try:
                async for event in watcher:
                    try:
                        await reconcile(event.obj, event.type)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("%s: reconcile failed", name)
            finally:
                watcher.stop()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("%s: watch failed; restarting", name)
        await asyncio.sleep(0.1)


async def ensure_exists(store: Store, namespace: str, obj: Obj) -> None:
    """Create `obj` unless an object of its name exists. A lost race (409) or a namespace that is missing or
    going away (404, 403) is not an error: the controller's next pass sees the truth."""
    try:
        await store.get(namespace, obj["metadata"]["name"])
    except StatusError as exc:
        if exc.code != 404:
            raise
        try:
            await store.create(namespace, obj, WriteParams())
        except StatusError as create_exc:
            if create_exc.code not in (409, 403, 404):
                raise
