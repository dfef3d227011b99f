"""The horizontal pod autoscaler controller (kube's pkg/controller/podautoscaler/horizontal.go), over HTTP as
`system:kube-controller-manager`.

Every HorizontalPodAutoscaler is reconciled when it is added or its spec changes, and then every sync period
(--horizontal-pod-autoscaler-sync-period, 15 s). A reconcile reads the target's `scale` subresource, the pods its
selector picks (from the pod informer) and their PodMetrics (metrics.k8s.io), decides (`horizontal.decide`),
writes the scale when the count changes, then the status and the events.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import parse_label_selector
from kubelite.client.cache.keys import meta_namespace_key, split_meta_namespace_key
from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller
from kubelite.client.errors import ApiError, Conflict, NotFound
from kubelite.controllers.podautoscaler.horizontal import decide, finish, scale_failure
from kubelite.controllers.podautoscaler.scaling import History

log = logging.getLogger(__name__)

HPAS = ("autoscaling", "v2", "horizontalpodautoscalers")
PODS = ("", "v1", "pods")
POD_METRICS = ("metrics.k8s.io", "v1beta1", "pods")
#: kube-controller-manager's autoscaler records as this component
EVENT_SOURCE = "horizontal-pod-autoscaler"
SYNC_PERIOD = 15.0


class HorizontalController:
    def __init__(self, clients: ComponentClient, *, sync_period: float = SYNC_PERIOD) -> None:
        self.clients = clients
        self.clock = clients.clock
        self.sync_period = sync_period
        self.hpas = clients.informers.for_resource(HPAS)
        self.pods = clients.informers.for_resource(PODS)
        self.api = clients.resource(*HPAS)
        self.recorder = clients.recorder(EVENT_SOURCE)
        self.histories: dict[str, History] = {}
        self._generations: dict[str, Any] = {}
        self.controller = Controller("horizontalpodautoscaler", self.reconcile, workers=1, clock=self.clock)
        self.controller.watch(self.hpas.informer, predicate=self._changed)

    def _changed(self, hpa: Obj) -> bool:
        """A new, deleted or respecified autoscaler; its own status writes wait for the next sync period."""
        key = meta_namespace_key(hpa)
        namespace, name = split_meta_namespace_key(key)
        try:
            self.hpas.lister.namespace(namespace).get(name)
        except NotFound:
            return True
        return self._generations.get(key) != hpa["metadata"].get("generation")

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now(), UTC)

    async def reconcile(self, key: str) -> float | None:
        namespace, name = split_meta_namespace_key(key)
        try:
            hpa = self.hpas.lister.namespace(namespace).get(name)
        except NotFound:
            self.histories.pop(key, None)
            self._generations.pop(key, None)
            return None
        self._generations[key] = hpa["metadata"].get("generation")
        history = self.histories.setdefault(key, History())
        ref = (hpa.get("spec") or {}).get("scaleTargetRef") or {}
        try:
            target, _ = await self.clients.dynamic.for_kind(
                str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
            )
            target = target.namespace(namespace)
            scale = await target.get(str(ref.get("name") or ""), subresource="scale")
        except (ApiError, ValueError) as exc:
            decision = scale_failure(str(exc))
            return await self._write(hpa, decision, None)
        pods, metrics = await self._observe(namespace, scale)
        decision = decide(hpa, scale, pods, metrics, history, self._now())
        rescale_error = None
        if decision.error is None and decision.rescale:
            try:
                await target.update(
                    {**scale, "spec": {**(scale.get("spec") or {}), "replicas": decision.desired}}, subresource="scale"
                )
            except ApiError as exc:
                rescale_error = str(exc)
            else:
                history.store_scale_event(
                    (hpa.get("spec") or {}).get("behavior"), decision.current, decision.desired, self._now()
                )
        return await self._write(hpa, decision, rescale_error)

    async def _observe(self, namespace: str, scale: Obj) -> tuple[list[Obj], list[Obj] | str]:
        selector_text = (scale.get("status") or {}).get("selector") or ""
        try:
            selector = parse_label_selector(selector_text)
        except ValueError:
            return [], []
        if not selector_text:
            return [], []
        pods = [
            p
            for p in self.pods.lister.namespace(namespace).list()
            if selector.matches(p["metadata"].get("labels") or {})
        ]
        try:
            listed = await self.clients.resource(*POD_METRICS).namespace(namespace).list(label_selector=selector_text)
        except ApiError as exc:
            return pods, f"unable to fetch metrics from resource metrics API: {exc}"
        return pods, list(listed.get("items") or [])

    async def _write(self, hpa: Obj, decision: Any, rescale_error: str | None) -> float:
        status, events = finish(hpa, decision, rescale_error, self._now())
        for event_type, reason, message in events:
            self.recorder.event(hpa, event_type, reason, message)
        if status != (hpa.get("status") or {}):
            try:
                await self.api.namespace(hpa["metadata"]["namespace"]).update_status({**hpa, "status": status})
            except (Conflict, NotFound):
                pass
        if decision.error is not None:
            log.info(
                "horizontal pod autoscaler %s/%s: %s",
                hpa["metadata"]["namespace"],
                hpa["metadata"]["name"],
                decision.error,
            )
        return self.sync_period

    async def run(self) -> None:
        await self.controller.run()


def build_horizontal_pod_autoscaler_controller(clients: ComponentClient) -> HorizontalController:
    return HorizontalController(clients)
