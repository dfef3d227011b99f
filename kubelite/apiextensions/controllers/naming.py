"""Accepting a CRD's names and establishing it (kube's NamingConditionController and
EstablishingController, in one loop as one server needs no wait for its peers).

A CRD's requested names (`spec.names`) are accepted unless another CRD of the same group already holds one
of them; a name the CRD holds already stays its own. The outcome is `status.acceptedNames` and the
`NamesAccepted` condition; once the names are accepted the CRD is `Established` and its resource served.
A change to any CRD of a group re-examines every CRD of that group, so a name freed by one is taken up by
another that was waiting for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kubelite.apiextensions import names
from kubelite.apiextensions.registry.customresourcedefinitions import set_condition
from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.client.cache.listers import Lister
from kubelite.client.clock import Clock
from kubelite.client.controller import Controller
from kubelite.client.errors import NotFound
from kubelite.controllers.informers import RegistryInformerFactory
from kubelite.registry.options import WriteParams
from kubelite.registry.registration import Registry


def _group(crd: Any) -> str:
    return str((crd.get("spec") or {}).get("group") or "")


def _in_use(message_value: str) -> str:
    return f'"{message_value}" is already in use'


def calculate_names(crd: Obj, others: Iterable[Obj]) -> tuple[dict[str, Any], tuple[str, str, str]]:
    """The names to accept and the NamesAccepted condition (status, reason, message), given the other CRDs
    of the group (kube's calculateNamesAndConditions)."""
    requested = (crd.get("spec") or {}).get("names") or {}
    accepted = dict(names.accepted_names(crd))
    resources: set[str] = set()
    kinds: set[str] = set()
    for other in others:
        held = names.accepted_names(other)
        resources.update(str(n) for n in (held.get("plural"), held.get("singular")) if n)
        resources.update(str(n) for n in held.get("shortNames") or [])
        kinds.update(str(n) for n in (held.get("kind"), held.get("listKind")) if n)

    result: dict[str, Any] = dict(accepted)
    condition = ("Unknown", "", "")

    def fresh(key: str, used: set[str], reason: str) -> None:
        nonlocal condition
        value = requested.get(key) or ""
        if value == accepted.get(key) or value not in used:
            if value:
                result[key] = value
            return
        condition = ("False", reason, _in_use(value))

    fresh("plural", resources, "PluralConflict")
    fresh("singular", resources, "SingularConflict")
    short = [str(s) for s in requested.get("shortNames") or []]
    held_short = set(accepted.get("shortNames") or [])
    taken = [s for s in short if s not in held_short and s in resources]
    if taken:
        condition = ("False", "ShortNamesConflict", _in_use(taken[0]))
    elif short:
        result["shortNames"] = short
    else:
        result.pop("shortNames", None)
    fresh("kind", kinds, "KindConflict")
    fresh("listKind", kinds, "ListKindConflict")
    if requested.get("categories"):
        result["categories"] = list(requested["categories"])
    else:
        result.pop("categories", None)
    if condition[0] == "Unknown":
        condition = ("True", "NoConflicts", "no conflicts found")
    return result, condition


class NamingController:
    def __init__(self, registry: Registry, informers: RegistryInformerFactory, *, clock: Clock | None = None) -> None:
        key = (names.GROUP, "customresourcedefinitions")
        self.status = registry.subresources[key]["status"]
        crds = informers.for_resource(*key)
        self.crds: Lister = crds.lister
        self.time = registry.clock
        self.controller = Controller("crd-naming", self.reconcile, clock=clock)
        self.controller.watch(crds.informer, keys=self._group_members)

    def _group_members(self, crd: Any) -> list[str]:
        group = _group(crd)
        members = {str(c["metadata"]["name"]) for c in self.crds.list() if _group(c) == group}
        members.add(str(crd["metadata"]["name"]))
        return sorted(members)

    async def reconcile(self, name: str) -> None:
        try:
            crd = self.crds.get(name)
        except NotFound:
            return
        group = _group(crd)
        others = [c for c in self.crds.list() if _group(c) == group and c["metadata"]["name"] != name]
        accepted, (status, reason, message) = calculate_names(crd, others)
        current_names = dict(names.accepted_names(crd))
        established = names.is_established(crd)
        if current_names == accepted and names.condition_true(crd, "NamesAccepted") == (status == "True") and (
            established or status != "True"
        ):
            return

        async def write_status(current: Obj | None) -> Obj:
            assert current is not None
            now = rfc3339(self.time.now())
            current.setdefault("status", {})["acceptedNames"] = accepted
            set_condition(current, "NamesAccepted", status, reason, message, now)
            if status == "True":
                set_condition(
                    current, "Established", "True", "InitialNamesAccepted", "the initial names have been accepted", now
                )
            elif not names.is_established(current):
                set_condition(current, "Established", "False", "NotAccepted", "not all names are accepted", now)
            return current

        await self.status.update("", name, write_status, WriteParams(), allow_create=False)

    async def run(self) -> None:
        await self.controller.run()
