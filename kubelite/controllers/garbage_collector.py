"""The garbage collector (kube-controller-manager's): objects whose owners are gone are deleted, and the
`orphan` and `foregroundDeletion` finalizers that DELETE puts on an owner are carried out.

It keeps a graph of every object's ownerReferences, fed by the watch of every resource:
- `_nodes`: uid -> where the object lives and whom it names as owners;
- `_dependents`: owner uid -> uids of the objects that name it (a dependent may name an owner not yet seen).
An owner is absent when no object of its uid exists; before deleting a dependent for that reason, the owner
is looked up by name as kube's collector does, so a dependent created just before its owner is spared.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.controllers.base import run_watch_loop
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams, WriteParams
from kubelite.registry.store import GC_FOREGROUND, GC_ORPHAN, Store
from kubelite.storage.interface import EventType

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Node:
    store: Store
    namespace: str
    name: str
    #: owner uid -> the ownerReference naming it
    owners: dict[str, Obj] = field(default_factory=dict)
    being_deleted: frozenset[str] = frozenset()  # the GC finalizers it carries while deleting


class GarbageCollector:
    def __init__(self, registry: Registry) -> None:
        self.stores = [s for s in registry.stores.values() if isinstance(s, Store)]
        self._by_kind = {(s.spec.api_version, s.spec.kind): s for s in self.stores}
        self._nodes: dict[str, _Node] = {}
        self._dependents: dict[str, set[str]] = {}
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    async def run(self) -> None:
        loops = [
            run_watch_loop(store, self._observer(store), name=f"gc {store.spec.resource}") for store in self.stores
        ]
        await asyncio.gather(self._work(), *loops)

    # -- the graph ------------------------------------------------------------------------------------

    def _observer(self, store: Store):  # type: ignore[no-untyped-def]
        async def observe(obj: Obj, event: EventType) -> None:
            meta = obj.get("metadata") or {}
            uid = meta.get("uid")
            if not uid or event is EventType.BOOKMARK:
                return
            if event is EventType.DELETED:
                self._forget(uid)
                for dependent in self._dependents.get(uid, ()):
                    self._queue.put_nowait(("orphaned?", dependent))
                self._dependents.pop(uid, None)
                return
            owners = {ref["uid"]: ref for ref in meta.get("ownerReferences") or [] if ref.get("uid")}
            finalizers = set(meta.get("finalizers") or ())
            deleting = (
                frozenset(finalizers & {GC_ORPHAN, GC_FOREGROUND}) if meta.get("deletionTimestamp") else frozenset()
            )
            node = self._nodes.get(uid)
            if node is None:
                node = self._nodes[uid] = _Node(store, meta.get("namespace", ""), meta["name"])
            for gone in set(node.owners) - set(owners):
                self._dependents.get(gone, set()).discard(uid)
            for owner in owners:
                self._dependents.setdefault(owner, set()).add(uid)
                if owner not in self._nodes:
                    self._queue.put_nowait(("orphaned?", uid))
            node.owners = owners
            node.being_deleted = deleting
            if deleting:
                self._queue.put_nowait(("finalize", uid))

        return observe

    def _forget(self, uid: str) -> None:
        node = self._nodes.pop(uid, None)
        if node is None:
            return
        for owner in node.owners:
            dependents = self._dependents.get(owner)
            if dependents is not None:
                dependents.discard(uid)
                owner_node = self._nodes.get(owner)
                if owner_node is not None and GC_FOREGROUND in owner_node.being_deleted:
                    self._queue.put_nowait(("finalize", owner))

    # -- the work -------------------------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            action, uid = await self._queue.get()
            try:
                if action == "orphaned?":
                    await self._delete_if_orphaned(uid)
                else:
                    await self._finalize(uid)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("garbage collector: %s %s failed", action, uid)

    async def _owner_exists(self, dependent: _Node, ref: Obj) -> bool:
        if ref["uid"] in self._nodes:
            return True
        store = self._by_kind.get((ref.get("apiVersion"), ref.get("kind")))
        if store is None:
            return True  # a kind we do not serve: not ours to judge
        namespace = dependent.namespace if store.spec.namespaced else ""
        try:
            found = await store.get(namespace, ref.get("name", ""))
        except StatusError as exc:
            if exc.code == 404:
                return False
            raise
        return bool((found.get("metadata") or {}).get("uid") == ref["uid"])

    async def _delete_if_orphaned(self, uid: str) -> None:
        node = self._nodes.get(uid)
        if node is None or not node.owners:
            return
        for ref in list(node.owners.values()):
            if await self._owner_exists(node, ref):
                return
        await self._delete(node, uid, "Background")

    async def _finalize(self, uid: str) -> None:
        node = self._nodes.get(uid)
        if node is None or not node.being_deleted:
            return
        dependents = [d for d in self._dependents.get(uid, ()) if d in self._nodes]
        if GC_ORPHAN in node.being_deleted:
            for dependent in dependents:
                await self._drop_owner(self._nodes[dependent], uid)
            await self._remove_finalizer(node, GC_ORPHAN)
        elif GC_FOREGROUND in node.being_deleted:
            if not dependents:
                await self._remove_finalizer(node, GC_FOREGROUND)
                return
            for dependent in dependents:
                await self._delete(self._nodes[dependent], dependent, "Foreground")

    async def _delete(self, node: _Node, uid: str, policy: str) -> None:
        """Delete the object of this uid; gone already or replaced by another of its name is fine."""
        try:
            await node.store.delete(
                node.namespace, node.name, DeleteParams(precondition_uid=uid, propagation_policy=policy)
            )
        except StatusError as exc:
            if exc.code not in (404, 409):
                raise

    async def _drop_owner(self, node: _Node, owner_uid: str) -> None:
        def without_owner(meta: Obj) -> None:
            refs = [r for r in meta.get("ownerReferences") or [] if r.get("uid") != owner_uid]
            if refs:
                meta["ownerReferences"] = refs
            else:
                meta.pop("ownerReferences", None)

        await self._edit_metadata(node, without_owner)

    async def _remove_finalizer(self, node: _Node, finalizer: str) -> None:
        def without(meta: Obj) -> None:
            meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != finalizer]
            if not meta["finalizers"]:
                meta.pop("finalizers")

        await self._edit_metadata(node, without)

    async def _edit_metadata(self, node: _Node, edit: Callable[[Obj], None]) -> None:
        """Change the object's metadata in place through the Store; an object already gone is fine."""

        async def update(current: Obj | None) -> Obj:
            assert current is not None  # the Store answers 404 itself when creating is not allowed
            edit(current["metadata"])
            return current

        try:
            await node.store.update(node.namespace, node.name, update, WriteParams(), allow_create=False)
        except StatusError as exc:
            if exc.code != 404:
                raise


async def run_garbage_collector(registry: Registry) -> None:
    await GarbageCollector(registry).run()
