"""What the Endpoints and EndpointSlice controllers share: a pod's change queues the Services that select it
(kube's endpointutil GetPodServiceMemberships and GetServicesToUpdateOnPodChange, on the Service lister)."""

from __future__ import annotations

from typing import Any

from kubelite.client.cache.handlers import deleted_object
from kubelite.client.controller import Controller
from kubelite.controllers.endpoints.pods import services_for_labels, services_to_update_on_pod_change


class StaleCache(Exception):
    """The informer has not yet seen this controller's last write: the sync is retried later."""


def labels_of(obj: Any) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("labels") or {})


class PodServiceQueue:
    """The pod event handlers; the controller provides its Service informer and its `Controller`."""

    services: Any
    controller: Controller

    def _services_of(self, namespace: str) -> list[Any]:
        return list(self.services.lister.namespace(namespace).list())

    def _pod_added(self, pod: Any) -> None:
        namespace = (pod.get("metadata") or {}).get("namespace", "")
        for key in services_for_labels(self._services_of(namespace), labels_of(pod)):
            self.controller.queue.add(key)

    def _pod_updated(self, old: Any, new: Any) -> None:
        namespace = (new.get("metadata") or {}).get("namespace", "")
        for key in services_to_update_on_pod_change(self._services_of(namespace), old, new):
            self.controller.queue.add(key)

    def _pod_deleted(self, obj: Any) -> None:
        pod = deleted_object(obj)
        if pod is not None:
            self._pod_added(pod)
