"""Every active namespace has the `kube-root-ca.crt` ConfigMap with the cluster CA (kube's
root-ca-cert-publisher), so pods can verify the API server they reach inside the cluster.

Namespace names are the work queue's keys: a namespace that is added or changes is reconciled, and so is the
namespace of a `kube-root-ca.crt` that changes or goes. Reconciling reads the ConfigMap from the shared
informer's lister: missing, it is created; present with other data or without its description annotation, the
data and annotation are put back (anything else a user added to it stays, as kube leaves it). Nothing is
created in a namespace that is not Active, so a namespace being emptied is not refilled.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.controllers.serviceaccounts import is_active, namespace_name, namespace_of
from kubelite.registry.builtin import Registry
from kubelite.registry.options import WriteParams

NAME = "kube-root-ca.crt"
DATA_KEY = "ca.crt"
DESCRIPTION_ANNOTATION = "kubernetes.io/description"
DESCRIPTION = (
    "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints "
    "such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
    "distributions of Kubernetes clusters."
)


def is_root_ca(obj: Any) -> bool:
    return bool((obj.get("metadata") or {}).get("name") == NAME)


class RootCACertPublisher:
    def __init__(
        self, registry: Registry, informers: RegistryInformerFactory, ca_pem: str, *, clock: Clock | None = None
    ) -> None:
        self.ca_pem = ca_pem
        self.store = registry.store("", "configmaps")
        namespaces = informers.for_resource("", "namespaces")
        configmaps = informers.for_resource("", "configmaps")
        self.namespaces: Lister = namespaces.lister
        self.configmaps: Lister = configmaps.lister
        # kube's default: one worker
        self.controller = Controller("root_ca_cert_publisher", self.reconcile, clock=clock)
        self.controller.watch(namespaces.informer, keys=namespace_name)
        self.controller.watch(configmaps.informer, keys=namespace_of, predicate=is_root_ca)

    def _published(self, configmap: Obj) -> bool:
        meta = configmap.get("metadata") or {}
        return configmap.get("data") == {DATA_KEY: self.ca_pem} and bool(
            (meta.get("annotations") or {}).get(DESCRIPTION_ANNOTATION)
        )

    async def reconcile(self, name: str) -> None:
        try:
            namespace = self.namespaces.get(name)
        except NotFound:
            return
        if not is_active(namespace):
            return
        try:
            configmap = self.configmaps.namespace(name).get(NAME)
        except NotFound:
            await self._create(name)
            return
        if not self._published(configmap):
            await self._restore(name)

    async def _create(self, namespace: str) -> None:
        configmap = {
            "metadata": {
                "name": NAME,
                "namespace": namespace,
                "annotations": {DESCRIPTION_ANNOTATION: DESCRIPTION},
            },
            "data": {DATA_KEY: self.ca_pem},
        }
        try:
            await self.store.create(namespace, configmap, WriteParams())
        except StatusError as exc:
            if exc.code != 409:
                raise

    async def _restore(self, namespace: str) -> None:
        async def publish(current: Obj | None) -> Obj:
            assert current is not None  # the Store answers 404 itself when creating is not allowed
            current["data"] = {DATA_KEY: self.ca_pem}
            meta = current["metadata"]
            meta["annotations"] = {**(meta.get("annotations") or {}), DESCRIPTION_ANNOTATION: DESCRIPTION}
            return current

        try:
            await self.store.update(namespace, NAME, publish, WriteParams(), allow_create=False)
        except StatusError as exc:
            if exc.code != 404:  # deleted meanwhile: its deletion brings the namespace back here
                raise

    async def run(self) -> None:
        await self.controller.run()
