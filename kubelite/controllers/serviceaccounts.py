"""Every active namespace has a `default` ServiceAccount (kube's serviceaccounts controller).

Namespace names are the work queue's keys. A namespace that is added or changes is reconciled, and so is
the namespace of a ServiceAccount that changes or goes: a deleted `default` comes back. Reconciling reads
the namespace and its accounts from the shared informers' listers and creates an account only when the
lister lacks it; a create that loses a race (AlreadyExists) is fine. Like kube, nothing is created in a
namespace that is not Active: that also keeps the controller from refilling a namespace the namespace
controller is emptying.
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
from kubelite.registry.builtin import Registry
from kubelite.registry.options import WriteParams

#: the accounts every namespace gets (kube's DefaultServiceAccountsControllerOptions)
ACCOUNTS = ("default",)


def is_active(namespace: Obj) -> bool:
    return bool((namespace.get("status") or {}).get("phase") == "Active")


def namespace_of(obj: Any) -> list[str]:
    """The work queue key of an object inside a namespace: the namespace's name."""
    namespace = (obj.get("metadata") or {}).get("namespace")
    return [namespace] if namespace else []


def namespace_name(obj: Any) -> list[str]:
    return [obj["metadata"]["name"]]


class ServiceAccountsController:
    def __init__(
        self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None
    ) -> None:
        self.store = registry.store("", "serviceaccounts")
        namespaces = informers.for_resource("", "namespaces")
        accounts = informers.for_resource("", "serviceaccounts")
        self.namespaces: Lister = namespaces.lister
        self.accounts: Lister = accounts.lister
        # kube's default: one worker; a reconcile is a lister lookup and at most one create
        self.controller = Controller("serviceaccount", self.reconcile, clock=clock)
        self.controller.watch(namespaces.informer, keys=namespace_name)
        self.controller.watch(accounts.informer, keys=namespace_of)

    async def reconcile(self, name: str) -> None:
        try:
            namespace = self.namespaces.get(name)
        except NotFound:
            return
        if not is_active(namespace):
            return
        for account in ACCOUNTS:
            try:
                self.accounts.namespace(name).get(account)
                continue
            except NotFound:
                pass
            created = {"metadata": {"name": account, "namespace": name}}
            try:
                await self.store.create(name, created, WriteParams())
            except StatusError as exc:
                if exc.code != 409:
                    raise

    async def run(self) -> None:
        await self.controller.run()
