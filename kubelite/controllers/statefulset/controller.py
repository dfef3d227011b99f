"""kube-controller-manager's StatefulSet controller, over HTTP as `system:kube-controller-manager`.

Informers on StatefulSets, Pods, PersistentVolumeClaims and ControllerRevisions feed one work queue of set
keys: a set's own changes, and its pods' (through the pod's controller reference, or for an orphan every
set of its namespace whose selector matches, so one may adopt it). A sync reads the set from its lister,
adopts orphaned revisions, claims its pods (adopting orphans that match its selector and name, releasing
owned ones that stopped matching; adoption first re-reads the set live, as kube's RecheckDeletionTimestamp
does), and hands the rest to `control.StatefulSetControl`. A set with minReadySeconds whose members are not
all available yet is synced again after minReadySeconds. A failed sync is retried with the queue's backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import LabelSelector, SelectorError, label_selector_from_spec
from kubelite.client.cache.factory import GenericInformer
from kubelite.client.cache.keys import split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import Invalid, NotFound
from kubelite.client.record.recorder import EventRecorder
from kubelite.controllers.statefulset.control import StatefulSetControl
from kubelite.controllers.statefulset.history import owned_or_orphaned
from kubelite.controllers.statefulset.identity import (
    API_VERSION,
    KIND,
    is_member_of,
    min_ready_seconds,
    replicas_of,
    set_controller_ref,
)
from kubelite.controllers.workloads.controller_utils import owner_controller
from kubelite.controllers.workloads.replicaset import adopt_patch, release_patch

log = logging.getLogger(__name__)

NAME = "statefulset-controller"
STATEFULSETS = ("apps", "v1", "statefulsets")
PODS = ("", "v1", "pods")
CLAIMS = ("", "v1", "persistentvolumeclaims")
REVISIONS = ("apps", "v1", "controllerrevisions")
#: --concurrent-statefulset-syncs
WORKERS = 5


def _meta(obj: Obj) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _cached(informer: GenericInformer, namespace: str, name: str) -> Obj | None:
    try:
        return informer.lister.namespace(namespace).get(name)
    except NotFound:
        return None


class _HTTPObjects:
    """control.Objects over the API: reads from the informers' caches, writes over HTTP."""

    def __init__(self, loop: StatefulSetController) -> None:
        self.loop = loop
        clients = loop.clients
        self.pods = clients.resource(*PODS)
        self.claims = clients.resource(*CLAIMS)
        self.revisions = clients.resource(*REVISIONS)
        self.sets = clients.resource(*STATEFULSETS)

    def get_claim(self, namespace: str, name: str) -> Obj | None:
        return _cached(self.loop.claim_informer, namespace, name)

    def get_pod(self, namespace: str, name: str) -> Obj | None:
        return _cached(self.loop.pod_informer, namespace, name)

    def get_set(self, namespace: str, name: str) -> Obj | None:
        return _cached(self.loop.set_informer, namespace, name)

    async def create_pod(self, pod: Obj) -> Obj:
        return await self.pods.namespace(_meta(pod)["namespace"]).create(pod)

    async def update_pod(self, pod: Obj) -> Obj:
        return await self.pods.namespace(_meta(pod)["namespace"]).update(pod)

    async def delete_pod(self, pod: Obj) -> None:
        await self.pods.namespace(_meta(pod)["namespace"]).delete(_meta(pod)["name"])

    async def create_claim(self, claim: Obj) -> Obj:
        return await self.claims.namespace(_meta(claim)["namespace"]).create(claim)

    async def update_claim(self, claim: Obj) -> Obj:
        return await self.claims.namespace(_meta(claim)["namespace"]).update(claim)

    async def create_revision(self, revision: Obj) -> Obj:
        return await self.revisions.namespace(_meta(revision)["namespace"]).create(revision)

    async def get_revision(self, namespace: str, name: str) -> Obj:
        return await self.revisions.namespace(namespace).get(name)

    async def update_revision(self, revision: Obj) -> Obj:
        return await self.revisions.namespace(_meta(revision)["namespace"]).update(revision)

    async def delete_revision(self, revision: Obj) -> None:
        try:
            await self.revisions.namespace(_meta(revision)["namespace"]).delete(_meta(revision)["name"])
        except NotFound:
            pass

    async def update_status(self, sts: Obj) -> Obj:
        return await self.sets.namespace(_meta(sts)["namespace"]).update_status(sts)


class StatefulSetController:
    def __init__(self, clients: ComponentClient, *, workers: int = WORKERS) -> None:
        self.clients = clients
        self.set_informer = clients.informers.for_resource(STATEFULSETS)
        self.pod_informer = clients.informers.for_resource(PODS)
        self.claim_informer = clients.informers.for_resource(CLAIMS)
        self.revision_informer = clients.informers.for_resource(REVISIONS)
        self.recorder: EventRecorder = clients.recorder(NAME)
        self.objects = _HTTPObjects(self)
        self.control = StatefulSetControl(self.objects, self._record, self._now)
        # kube requeues a failing set with backoff for as long as it fails
        self.controller = Controller(NAME, self.reconcile, workers=workers, max_retries=None, clock=clients.clock)
        self.controller.watch(self.set_informer.informer)
        self.controller.watch(self.pod_informer.informer, keys=self._sets_of_pod)
        # claims and revisions are read from their caches only: kube adds no handlers, only waits for them
        self.controller.watch(self.claim_informer.informer, keys=lambda obj: ())
        self.controller.watch(self.revision_informer.informer, keys=lambda obj: ())

    async def run(self) -> None:
        await self.controller.run()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clients.clock.now(), tz=UTC)

    def _record(self, sts: Obj, event_type: str, reason: str, message: str) -> None:
        self.recorder.event({**sts, "apiVersion": API_VERSION, "kind": KIND}, event_type, reason, message)

    # -- which sets a pod's change concerns ------------------------------------------------------------

    def _sets_of_pod(self, pod: Obj) -> Iterable[str]:
        namespace = str(_meta(pod).get("namespace", ""))
        ref = owner_controller(pod)
        if ref is not None:
            sts = self._resolve(namespace, ref)
            return [f"{namespace}/{_meta(sts)['name']}"] if sts is not None else []
        labels = _meta(pod).get("labels") or {}
        keys = []
        for sts in self.set_informer.lister.namespace(namespace).list():
            selector = _selector(sts)
            if selector is not None and not selector.empty and selector.matches(labels):
                keys.append(f"{namespace}/{_meta(sts)['name']}")
        return keys

    def _resolve(self, namespace: str, ref: Obj) -> Obj | None:
        if ref.get("kind") != KIND or str(ref.get("apiVersion", "")).split("/")[0] != "apps":
            return None
        sts = _cached(self.set_informer, namespace, str(ref.get("name", "")))
        if sts is None or _meta(sts).get("uid") != ref.get("uid"):
            return None
        return sts

    # -- the sync -----------------------------------------------------------------------------------------

    async def reconcile(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        sts = _cached(self.set_informer, namespace, name)
        if sts is None:
            log.info("StatefulSet %s has been deleted", key)
            return None
        selector = _selector(sts)
        if selector is None:
            return None  # a selector that does not convert is not retried
        await self._adopt_orphan_revisions(sts, selector)
        pods = await self._claim_pods(sts, selector)
        revisions = self._revisions(sts, selector)
        status = await self.control.update_stateful_set(sts, pods, revisions)
        mrs = min_ready_seconds(sts)
        if mrs > 0 and status is not None and status.get("availableReplicas") != replicas_of(sts):
            return float(mrs)
        return None

    def _revisions(self, sts: Obj, selector: LabelSelector) -> list[Obj]:
        found = self.revision_informer.lister.namespace(_meta(sts)["namespace"]).list(selector)
        return owned_or_orphaned(found, sts)

    async def _can_adopt(self, sts: Obj) -> None:
        """RecheckDeletionTimestamp over a live read: never adopt for a set that is gone or going."""
        fresh = await self.objects.sets.namespace(_meta(sts)["namespace"]).get(_meta(sts)["name"])
        if _meta(fresh).get("uid") != _meta(sts).get("uid"):
            raise RuntimeError(
                f"original StatefulSet {_meta(sts)['namespace']}/{_meta(sts)['name']} is gone: "
                f"got uid {_meta(fresh).get('uid')}, wanted {_meta(sts).get('uid')}"
            )
        if _meta(fresh).get("deletionTimestamp"):
            raise RuntimeError(f"{_meta(sts)['namespace']}/{_meta(sts)['name']} has just been deleted at "
                               f"{_meta(fresh)['deletionTimestamp']}")  # fmt: skip

    async def _adopt_orphan_revisions(self, sts: Obj, selector: LabelSelector) -> None:
        orphans = [r for r in self._revisions(sts, selector) if owner_controller(r) is None]
        if not orphans:
            return
        try:
            await self._can_adopt(sts)
        except Exception as exc:
            raise RuntimeError(f"can't adopt ControllerRevisions: {exc}") from exc
        ref = set_controller_ref(sts)
        for revision in orphans:
            await self.objects.revisions.namespace(_meta(revision)["namespace"]).patch(
                _meta(revision)["name"], adopt_patch(ref, revision), patch_type="strategic"
            )

    async def _claim_pods(self, sts: Obj, selector: LabelSelector) -> list[Obj]:
        """getPodsForStatefulSet: the pods the set owns or may adopt, claimed (ClaimPods with isMemberOf)."""
        meta = _meta(sts)
        deleting = bool(meta.get("deletionTimestamp"))
        claimed: list[Obj] = []
        adopt: list[Obj] = []
        release: list[Obj] = []
        for pod in self.pod_informer.lister.namespace(meta["namespace"]).list():
            ref = owner_controller(pod)
            if ref is not None and ref.get("uid") != meta.get("uid"):
                continue
            matches = selector.matches(_meta(pod).get("labels") or {}) and is_member_of(sts, pod)
            if ref is not None:
                if matches:
                    claimed.append(pod)
                elif not deleting:
                    release.append(pod)
            elif matches and not deleting and not _meta(pod).get("deletionTimestamp"):
                adopt.append(pod)
        pods = self.objects.pods.namespace(meta["namespace"])
        if adopt:
            await self._can_adopt(sts)
            ref = set_controller_ref(sts)
            for pod in adopt:
                try:
                    claimed.append(await pods.patch(_meta(pod)["name"], adopt_patch(ref, pod), patch_type="strategic"))
                except NotFound:
                    continue
        for pod in release:
            try:
                await pods.patch(_meta(pod)["name"], release_patch(str(meta.get("uid")), pod), patch_type="strategic")
            except (NotFound, Invalid):
                continue
        return claimed


def _selector(sts: Obj) -> LabelSelector | None:
    try:
        return label_selector_from_spec((sts.get("spec") or {}).get("selector"))
    except SelectorError:
        return None


def build(clients: ComponentClient) -> StatefulSetController:
    return StatefulSetController(clients)
