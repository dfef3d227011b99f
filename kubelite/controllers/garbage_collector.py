"""The garbage collector (kube-controller-manager's): objects whose owners are gone are deleted, and the
`orphan` and `foregroundDeletion` finalizers that DELETE puts on an owner are carried out.

Its graph is fed by event handlers on the shared informer of every resource (kube's collector uses metadata
informers; in-process informers hold the watch cache's own objects, so full objects cost nothing more). The
graph keeps only the objects that take part, not every object:
- `_nodes`: uid -> where an object lives, the uids it names as owners, and whether it carries a garbage
  collector finalizer while being deleted; only objects with owners or such a finalizer have a node;
- `_dependents`: owner uid -> uids of the objects that name it (a dependent may name an owner not yet seen).
Whether an owner exists is answered by its resource's informer cache, and before a dependent is deleted for
want of its owners each missing owner is looked up in storage by name, as kube's collector does, so a
dependent created just before its owner is spared.

The uids of objects to act on go into a rate-limited work queue; workers reconcile one uid at a time from the
informer caches (level-triggered): an object being deleted with `orphan` loses its dependents' references to
it and then the finalizer; one with `foregroundDeletion` has its dependents deleted (foreground too), and the
finalizer goes once none is left; any other object is deleted in the background when none of its owners exist.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.handlers import ResourceEventHandlerFuncs, deleted_object
from kubelite.client.cache.shared_informer import ResourceEventHandlerRegistration
from kubelite.client.cache.store import Indexer
from kubelite.client.cache.wait import wait_for_cache_sync
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.builtin import Registry
from kubelite.registry.options import DeleteParams, WriteParams
from kubelite.registry.store import GC_FOREGROUND, GC_ORPHAN, Store

log = logging.getLogger(__name__)

#: kube-controller-manager's default --concurrent-gc-syncs
WORKERS = 20
GC_FINALIZERS = frozenset((GC_ORPHAN, GC_FOREGROUND))


@dataclass(frozen=True, slots=True)
class _Resource:
    registry: Registry
    key: tuple[str, str]
    indexer: Indexer

    @property
    def store(self) -> Store:
        """The resource's Store now (a custom resource's is rebuilt when its CRD changes)."""
        store: Store = self.registry.store(*self.key)
        return store


@dataclass(slots=True)
class _Node:
    resource: _Resource
    namespace: str
    name: str
    #: uids of the owners it names
    owners: tuple[str, ...]
    #: being deleted with a garbage collector finalizer
    finalizing: bool

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def _owner_uids(meta: Obj) -> tuple[str, ...]:
    return tuple(ref["uid"] for ref in meta.get("ownerReferences") or () if ref.get("uid"))


def _finalizing(meta: Obj) -> bool:
    return bool(meta.get("deletionTimestamp")) and not GC_FINALIZERS.isdisjoint(meta.get("finalizers") or ())


class GarbageCollector:
    def __init__(
        self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None
    ) -> None:
        #: by (group, kind): an owner reference may name any served version of its kind
        self._by_kind: dict[tuple[str, str], _Resource] = {}
        self._nodes: dict[str, _Node] = {}
        self._dependents: dict[str, set[str]] = {}
        self.controller = Controller(
            "garbagecollector", self.reconcile, workers=WORKERS, max_retries=None, clock=clock
        )
        self._registrations: dict[tuple[str, str], ResourceEventHandlerRegistration] = {}
        #: kinds whose resource stopped being served: an owner of such a kind is gone
        self._removed_kinds: set[tuple[str, str]] = set()
        self.registry = registry
        self.informers = informers
        for group, name in list(registry.stores):
            self._monitor(group, name)

    def _monitor(self, group: str, name: str) -> ResourceEventHandlerRegistration | None:
        store = self.registry.stores.get((group, name))
        if not isinstance(store, Store):
            return None  # a view over another resource's store (events.k8s.io events)
        informer = self.informers.for_resource(group, name).informer
        resource = _Resource(self.registry, (group, name), informer.indexer)
        kind = (store.spec.group, store.spec.kind)
        self._by_kind[kind] = resource
        self._removed_kinds.discard(kind)
        registration = informer.add_event_handler(self._handler(resource))
        self._registrations[(group, name)] = registration
        return registration

    def resource_added(self, group: str, name: str) -> None:
        """Follow a resource registered while the server runs (a CRD's): its objects may own others, or be
        owned (kube's garbage collector finds such resources through discovery)."""
        if (group, name) in self._registrations:
            return
        if self._monitor(group, name) is not None:
            self.informers.start()

    async def resource_removed(self, group: str, name: str) -> None:
        """Stop following a resource that is no longer served. Its objects leave the graph as if deleted: their
        dependents are looked at again and find their owners gone."""
        key = (group, name)
        for kind, resource in list(self._by_kind.items()):
            if resource.key == key:
                del self._by_kind[kind]
                self._removed_kinds.add(kind)
        for uid in [uid for uid, node in self._nodes.items() if node.resource.key == key]:
            self._forget_uid(uid)
        self._registrations.pop(key, None)
        await self.informers.remove(group, name)

    def _handler(self, resource: _Resource) -> ResourceEventHandlerFuncs:
        def observe(obj: Any) -> None:
            self._observe(resource, obj)

        return ResourceEventHandlerFuncs(
            add=observe, update=lambda old, new: observe(new), delete=lambda obj: self._forget(obj)
        )

    def has_synced(self) -> bool:
        return all(registration.has_synced() for registration in self._registrations.values())

    async def run(self) -> None:
        """Wait until every resource's cache is in the graph, then reconcile until cancelled."""
        await wait_for_cache_sync(self.has_synced)
        await self.controller.run()

    # -- the graph ------------------------------------------------------------------------------------

    def _observe(self, resource: _Resource, obj: Obj) -> None:
        meta = obj.get("metadata") or {}
        uid = meta.get("uid")
        if not uid:
            return
        owners = _owner_uids(meta)
        finalizing = _finalizing(meta)
        node = self._nodes.get(uid)
        if node is not None:
            for gone in node.owners:
                if gone not in owners:
                    self._unlink(gone, uid)
                    self._wake_if_finalizing(gone)
        if not owners and not finalizing:
            self._nodes.pop(uid, None)
            return
        if node is None:
            self._nodes[uid] = _Node(resource, meta.get("namespace", ""), meta["name"], owners, finalizing)
        else:
            # the resource too: a resource served anew is watched by a new informer
            node.resource, node.owners, node.finalizing = resource, owners, finalizing
        for owner in owners:
            self._dependents.setdefault(owner, set()).add(uid)
        namespace = meta.get("namespace", "")
        refs = [ref for ref in meta.get("ownerReferences") or () if ref.get("uid")]
        if finalizing or not all(self._cached_owner(namespace, ref) for ref in refs):
            self.controller.queue.add(uid)

    def _forget(self, obj: Any) -> None:
        target = deleted_object(obj)
        if target is None:
            return  # a deletion noticed by a relist whose last state is unknown: no uid to forget
        uid = (target.get("metadata") or {}).get("uid")
        if uid:
            self._forget_uid(uid)

    def _forget_uid(self, uid: str) -> None:
        node = self._nodes.pop(uid, None)
        if node is not None:
            for owner in node.owners:
                self._unlink(owner, uid)
                self._wake_if_finalizing(owner)
        for dependent in self._dependents.pop(uid, ()):
            self.controller.queue.add(dependent)

    def _unlink(self, owner: str, dependent: str) -> None:
        dependents = self._dependents.get(owner)
        if dependents is not None:
            dependents.discard(dependent)
            if not dependents:
                del self._dependents[owner]

    def _wake_if_finalizing(self, uid: str) -> None:
        """An owner waiting for its dependents (foreground) lost one: it may be done."""
        node = self._nodes.get(uid)
        if node is not None and node.finalizing:
            self.controller.queue.add(uid)

    def _removed_kind(self, ref: Obj) -> bool:
        group = str(ref.get("apiVersion", "")).rpartition("/")[0]
        return (group, ref.get("kind", "")) in self._removed_kinds

    def _owner_resource(self, ref: Obj) -> _Resource | None:
        group = str(ref.get("apiVersion", "")).rpartition("/")[0]
        return self._by_kind.get((group, ref.get("kind", "")))

    def _owner_key(self, resource: _Resource, namespace: str, ref: Obj) -> tuple[str, str]:
        owner_namespace = namespace if resource.store.spec.namespaced else ""
        return owner_namespace, str(ref.get("name", ""))

    def _cached_owner(self, namespace: str, ref: Obj) -> bool:
        """The owner is in its informer's cache (or of a kind not served here: not ours to judge)."""
        resource = self._owner_resource(ref)
        if resource is None:
            return not self._removed_kind(ref)
        owner_namespace, name = self._owner_key(resource, namespace, ref)
        cached = resource.indexer.get_by_key(f"{owner_namespace}/{name}" if owner_namespace else name)
        return cached is not None and (cached.get("metadata") or {}).get("uid") == ref["uid"]

    # -- the work -------------------------------------------------------------------------------------

    async def reconcile(self, uid: str) -> None:
        node = self._nodes.get(uid)
        if node is None or node.resource.key not in self.registry.stores:
            return
        obj = node.resource.indexer.get_by_key(node.key)
        meta = (obj or {}).get("metadata") or {}
        if meta.get("uid") != uid:
            return  # gone, or replaced by another of its name: its deletion event updates the graph
        if meta.get("deletionTimestamp"):
            finalizers = meta.get("finalizers") or ()
            if GC_ORPHAN in finalizers:
                await self._orphan_dependents(uid, node)
            elif GC_FOREGROUND in finalizers:
                await self._delete_dependents(uid, node)
            return  # otherwise its deletion is under way already
        refs = [ref for ref in meta.get("ownerReferences") or () if ref.get("uid")]
        if not refs:
            return
        for ref in refs:
            if await self._owner_exists(node.namespace, ref):
                return
        await self._delete(node, uid, "Background")

    async def _owner_exists(self, namespace: str, ref: Obj) -> bool:
        if self._cached_owner(namespace, ref):
            return True
        resource = self._owner_resource(ref)
        if resource is None or resource.key not in self.registry.stores:
            return False  # a kind no longer served: its objects are gone
        owner_namespace, name = self._owner_key(resource, namespace, ref)
        try:
            found = await resource.store.get(owner_namespace, name)
        except StatusError as exc:
            if exc.code == 404:
                return False
            raise
        return bool((found.get("metadata") or {}).get("uid") == ref["uid"])

    def _live_dependents(self, uid: str) -> list[tuple[str, _Node]]:
        return [(d, self._nodes[d]) for d in self._dependents.get(uid, ()) if d in self._nodes]

    async def _orphan_dependents(self, uid: str, node: _Node) -> None:
        for dependent_uid, dependent in self._live_dependents(uid):
            await self._drop_owner(dependent, dependent_uid, uid)
        await self._remove_finalizer(node, uid, GC_ORPHAN)

    async def _delete_dependents(self, uid: str, node: _Node) -> None:
        dependents = self._live_dependents(uid)
        if not dependents:
            await self._remove_finalizer(node, uid, GC_FOREGROUND)
            return
        for dependent_uid, dependent in dependents:
            cached = dependent.resource.indexer.get_by_key(dependent.key) or {}
            if (cached.get("metadata") or {}).get("deletionTimestamp"):
                continue  # going already; its deletion wakes the owner
            await self._delete(dependent, dependent_uid, "Foreground")

    async def _delete(self, node: _Node, uid: str, policy: str) -> None:
        """Delete the object of this uid; gone already or replaced by another of its name is fine."""
        try:
            await node.resource.store.delete(
                node.namespace, node.name, DeleteParams(precondition_uid=uid, propagation_policy=policy)
            )
        except StatusError as exc:
            if exc.code not in (404, 409):
                raise

    async def _drop_owner(self, node: _Node, uid: str, owner_uid: str) -> None:
        def without_owner(meta: Obj) -> None:
            refs = [r for r in meta.get("ownerReferences") or [] if r.get("uid") != owner_uid]
            if refs:
                meta["ownerReferences"] = refs
            else:
                meta.pop("ownerReferences", None)

        await self._edit_metadata(node, uid, without_owner)

    async def _remove_finalizer(self, node: _Node, uid: str, finalizer: str) -> None:
        def without(meta: Obj) -> None:
            meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != finalizer]
            if not meta["finalizers"]:
                meta.pop("finalizers")

        await self._edit_metadata(node, uid, without)

    async def _edit_metadata(self, node: _Node, uid: str, edit: Callable[[Obj], None]) -> None:
        """Change the metadata of the object of this uid through the Store; gone already or replaced by
        another of its name is fine."""

        async def update(current: Obj | None) -> Obj:
            assert current is not None  # the Store answers 404 itself when creating is not allowed
            if current["metadata"].get("uid") != uid:
                raise StatusError(409, "Conflict", f"{node.key} is no longer the object of uid {uid}")
            edit(current["metadata"])
            return current

        store = node.resource.store
        try:
            await store.update(node.namespace, node.name, update, WriteParams(), allow_create=False)
        except StatusError as exc:
            if exc.code not in (404, 409):
                raise
