"""Every active namespace has a `default` ServiceAccount (kube's serviceaccounts controller) and the
`kube-root-ca.crt` ConfigMap with the cluster CA (kube's root-ca-cert-publisher)."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.base import ensure_exists, run_watch_loop
from kubelite.registry.builtin import Registry
from kubelite.storage.interface import EventType

ROOT_CA_DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
    "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
    "Kubernetes clusters."
)


async def run_serviceaccounts_controller(registry: Registry, ca_pem: str) -> None:
    accounts = registry.store("", "serviceaccounts")
    configmaps = registry.store("", "configmaps")

    async def reconcile(namespace: Obj, event: EventType) -> None:
        if event not in (EventType.ADDED, EventType.MODIFIED):
            return
        meta = namespace["metadata"]
        if meta.get("deletionTimestamp") or (namespace.get("status") or {}).get("phase") != "Active":
            return
        name = meta["name"]
        await ensure_exists(accounts, name, {"metadata": {"name": "default", "namespace": name}})
        await ensure_exists(
            configmaps,
            name,
            {
                "metadata": {
                    "name": "kube-root-ca.crt",
                    "namespace": name,
                    "annotations": {"kubernetes.io/description": ROOT_CA_DESCRIPTION},
                },
                "data": {"ca.crt": ca_pem},
            },
        )

    await run_watch_loop(registry.store("", "namespaces"), reconcile, name="serviceaccounts")
