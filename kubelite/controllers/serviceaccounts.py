"""Every active namespace has a `default` ServiceAccount (kube's serviceaccounts controller)."""

from __future__ import annotations

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.controllers.base import run_watch_loop
from kubelite.registry.builtin import Registry
from kubelite.registry.options import WriteParams
from kubelite.storage.interface import EventType


async def run_serviceaccounts_controller(registry: Registry) -> None:
    accounts = registry.store("", "serviceaccounts")

    async def reconcile(namespace: Obj, event: EventType) -> None:
        if event not in (EventType.ADDED, EventType.MODIFIED):
            return
        meta = namespace["metadata"]
        if meta.get("deletionTimestamp") or (namespace.get("status") or {}).get("phase") != "Active":
            return
        name = meta["name"]
        try:
            await accounts.get(name, "default")
        except StatusError as exc:
            if exc.code != 404:
                raise
            try:
                await accounts.create(name, {"metadata": {"name": "default", "namespace": name}}, WriteParams())
            except StatusError as create_exc:
                if create_exc.code not in (409, 403, 404):
                    raise

    await run_watch_loop(registry.store("", "namespaces"), reconcile, name="serviceaccounts")
