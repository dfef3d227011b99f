"""The disruption controller (kube's pkg/controller/disruption): keeps every PodDisruptionBudget's status current,
over HTTP as `system:kube-controller-manager`.

A budget is reconciled when it changes, when a pod it may select changes (every budget of the pod's namespace
whose selector matches the pod's labels, before or after the change), and again when an entry of its
`disruptedPods` is due to expire. The scale of the pods' controllers, which maxUnavailable and percentages
need, is read from the ReplicaSet, Deployment, StatefulSet and ReplicationController informers (kube's
finders; a custom resource's scale subresource is not consulted).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import label_selector_from_spec
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import Conflict, NotFound
from kubelite.controllers.disruption.budget import budget_status
from kubelite.controllers.workloads.controller_utils import owner_controller

log = logging.getLogger(__name__)

PDBS = ("policy", "v1", "poddisruptionbudgets")
PODS = ("", "v1", "pods")
#: the owners whose scale a budget reads, by kind: (their resource, their own controller's kind or None)
_FINDERS = {
    "ReplicaSet": ("apps", "v1", "replicasets"),
    "Deployment": ("apps", "v1", "deployments"),
    "StatefulSet": ("apps", "v1", "statefulsets"),
    "ReplicationController": ("", "v1", "replicationcontrollers"),
}
#: kube-controller-manager's disruption controller records as this component
EVENT_SOURCE = "controllermanager"


def selects(pdb: Obj, labels: dict[str, str]) -> bool:
    """metav1.LabelSelectorAsSelector's reading: no selector selects nothing, an empty one everything."""
    raw = (pdb.get("spec") or {}).get("selector")
    if raw is None:
        return False
    try:
        return label_selector_from_spec(raw).matches(labels)
    except ValueError:
        return False


class DisruptionController:
    def __init__(self, clients: ComponentClient) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.pdbs = clients.informers.for_resource(PDBS)
        self.pods = clients.informers.for_resource(PODS)
        self.owners = {kind: clients.informers.for_resource(gvr) for kind, gvr in _FINDERS.items()}
        self.api = clients.resource(*PDBS)
        self.recorder = clients.recorder(EVENT_SOURCE)
        self.controller = Controller("disruption", self.reconcile, workers=1, clock=self.clock)
        self.controller.watch(self.pdbs.informer)
        self.controller.watch(self.pods.informer, keys=self._budgets_of)

    def _budgets_of(self, pod: Any) -> list[str]:
        meta = pod.get("metadata") or {}
        namespace, labels = meta.get("namespace", ""), meta.get("labels") or {}
        return [
            meta_namespace_key(pdb) for pdb in self.pdbs.lister.namespace(namespace).list() if selects(pdb, labels)
        ]

    def _scale_of(self, pods: list[Obj]) -> dict[str, int | None]:
        scales: dict[str, int | None] = {}
        for pod in pods:
            ref = owner_controller(pod)
            if ref is None or str(ref.get("uid")) in scales:
                continue
            scales[str(ref["uid"])] = self._scale(pod["metadata"]["namespace"], ref)
        return scales

    def _scale(self, namespace: str, ref: Obj) -> int | None:
        informer = self.owners.get(str(ref.get("kind")))
        if informer is None:
            return None
        try:
            owner = informer.lister.namespace(namespace).get(str(ref.get("name")))
        except NotFound:
            return None
        if owner["metadata"].get("uid") != ref.get("uid"):
            return None
        if ref.get("kind") == "ReplicaSet":
            parent = owner_controller(owner)
            if parent is not None and parent.get("kind") == "Deployment":
                return self._scale(namespace, parent)
        replicas = (owner.get("spec") or {}).get("replicas")
        return 1 if replicas is None else int(replicas)

    async def reconcile(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            pdb = self.pdbs.lister.namespace(namespace).get(name)
        except NotFound:
            return None
        pods = [
            pod for pod in self.pods.lister.namespace(namespace).list()
            if selects(pdb, pod["metadata"].get("labels") or {})
        ]  # fmt: skip
        computed = budget_status(pdb, pods, self._scale_of(pods), datetime.fromtimestamp(self.clock.now(), UTC))
        for event_type, reason, message in computed.events:
            self.recorder.event(pdb, event_type, reason, message)
        if computed.status != (pdb.get("status") or {}):
            try:
                await self.api.namespace(namespace).update_status({**pdb, "status": computed.status})
            except (Conflict, NotFound):
                # a newer budget is on its way through the informer, which requeues it
                return None
        return computed.recheck_after

    async def run(self) -> None:
        await self.controller.run()
