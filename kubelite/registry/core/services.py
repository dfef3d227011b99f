"""Services: kube's defaults and validation (see `registry.validation.services`), ClusterIP and NodePort
allocation around the store's writes."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.allocators import ClusterIPAllocator, NodePortAllocator
from kubelite.registry.options import DeleteParams, ListParams, WriteParams
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext
from kubelite.registry.rest import MutateFunc, ValidateFunc
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import SERVICE_TABLE
from kubelite.registry.validation.services import (
    externally_accessible,
    validate_service,
    validate_service_update,
)
from kubelite.storage.interface import Storage
from kubelite.util.clock import Clock

_DEFAULT_AFFINITY_SECONDS = 10800


def _needs_node_ports(spec: dict[str, Any]) -> bool:
    return spec.get("type") in ("NodePort", "LoadBalancer")


def default_service_spec(spec: dict[str, Any]) -> None:
    """SetDefaults_Service (every type, ExternalName included)."""
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client_ip = config.get("clientIP") if isinstance(config, dict) else None
        if not isinstance(client_ip, dict) or client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": _DEFAULT_AFFINITY_SECONDS}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for port in raw_ports if isinstance(raw_ports := spec.get("ports"), list) else []:
        if not isinstance(port, dict):
            continue
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port", 0)
    if externally_accessible(spec) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and spec["type"] in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if spec["type"] == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        spec["allocateLoadBalancerNodePorts"] = True


class ServiceStrategy(Strategy):
    tracks_generation = False
    return_deleted_object = True
    selectable_fields = ("spec.clusterIP", "spec.type")

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {"loadBalancer": {}}

    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            default_service_spec(spec)
        status = obj.get("status")
        ingress = ((status or {}).get("loadBalancer") or {}).get("ingress") if isinstance(status, dict) else None
        if isinstance(spec, dict) and spec.get("type") == "LoadBalancer" and isinstance(ingress, list):
            for entry in ingress:
                if isinstance(entry, dict) and entry.get("ip") and entry.get("ipMode") is None:
                    entry["ipMode"] = "VIP"

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_service(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        new_spec, old_spec = new.get("spec"), old.get("spec") or {}
        if isinstance(new_spec, dict):
            # a PUT that leaves the allocated addresses out keeps them (kube does the same since 1.20)
            for key in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
                if key not in new_spec and key in old_spec and new_spec.get("type") != "ExternalName":
                    new_spec[key] = old_spec[key]
            old_ports = {(p.get("port"), p.get("protocol")): p.get("nodePort") for p in old_spec.get("ports") or []}
            if _needs_node_ports(new_spec):
                for port in new_spec.get("ports") or []:
                    if isinstance(port, dict) and not port.get("nodePort"):
                        kept = old_ports.get((port.get("port"), port.get("protocol", "TCP")))
                        if kept:
                            port["nodePort"] = kept

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_service_update(new, old)


class ServiceStore(Store):
    """The Store plus address allocation around create, update and delete."""

    def __init__(
        self,
        spec: ResourceSpec,
        strategy: Strategy,
        storage: Storage,
        *,
        key_root: str,
        ips: ClusterIPAllocator,
        node_ports: NodePortAllocator,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(spec, strategy, storage, key_root=key_root, clock=clock)
        self.ips = ips
        self.node_ports = node_ports

    async def repair(self) -> None:
        """Mark what the stored Services hold (kube's repair controller), before any is created."""
        for svc in (await self.list("", ListParams()))["items"]:
            self._mark(svc)

    def _mark(self, svc: Obj) -> None:
        spec = svc.get("spec") or {}
        ip = spec.get("clusterIP")
        if ip and ip != "None":
            self.ips.mark(ip)
        for port in spec.get("ports") or []:
            if port.get("nodePort"):
                self.node_ports.mark(port["nodePort"])

    def _allocate(self, svc: Obj) -> tuple[str | None, list[int]]:
        spec = svc.get("spec")
        if not isinstance(spec, dict) or spec.get("type", "ClusterIP") == "ExternalName":
            return None, []
        ip = None
        wanted = spec.get("clusterIP")
        if wanted != "None":
            if wanted and not self.ips.contains(wanted):
                raise errors.invalid(
                    "",
                    "Service",
                    (svc.get("metadata") or {}).get("name", ""),
                    [
                        errors.Cause(
                            "FieldValueInvalid",
                            f'Invalid value: "{wanted}": failed to allocate IP {wanted}: '
                            f"the provided IP ({wanted}) is not "
                            f"in the valid range. The range of valid IPs is {self.ips.network}",
                            "spec.clusterIPs",
                        )
                    ],
                )
            ip = self.ips.allocate(wanted or None)
            spec["clusterIP"] = ip
            spec["clusterIPs"] = [ip]
        else:
            spec["clusterIPs"] = ["None"]
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        ports: list[int] = []
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            for port in spec.get("ports") or []:
                if isinstance(port, dict):
                    port["nodePort"] = self.node_ports.allocate(port.get("nodePort"))
                    ports.append(port["nodePort"])
        return ip, ports

    def _release(self, ip: str | None, ports: list[int]) -> None:
        if ip:
            self.ips.release(ip)
        for port in ports:
            self.node_ports.release(port)

    async def create(
        self,
        namespace: str,
        obj: Obj,
        params: WriteParams,
        *,
        mutate: MutateFunc | None = None,
        validate: ValidateFunc | None = None,
    ) -> Obj:
        allocated: list[tuple[str | None, list[int]]] = []

        async def mutate_then_allocate(new: Obj, old: Obj | None) -> Obj:
            # addresses go to the defaulted object as admission leaves it
            if mutate is not None:
                new = await mutate(new, old)
            allocated.append(self._allocate(new))
            return new

        try:
            result = await super().create(namespace, obj, params, mutate=mutate_then_allocate, validate=validate)
        except BaseException:
            for ip, ports in allocated:
                self._release(ip, ports)
            raise
        if params.dry_run:
            for ip, ports in allocated:
                self._release(ip, ports)
        return result

    async def update(
        self, namespace: str, name: str, update: Any, params: WriteParams, **kwargs: Any
    ) -> tuple[Obj, bool]:
        before = await self.get(namespace, name)
        result, created = await super().update(namespace, name, update, params, **kwargs)
        if not params.dry_run:
            self._reconcile(before, result)
        return result, created

    def _reconcile(self, before: Obj, after: Obj) -> None:
        old_spec, new_spec = before.get("spec") or {}, after.get("spec") or {}
        old_ports = {p.get("nodePort") for p in old_spec.get("ports") or [] if p.get("nodePort")}
        new_ports = {p.get("nodePort") for p in new_spec.get("ports") or [] if p.get("nodePort")}
        for port in old_ports - new_ports:
            self.node_ports.release(port)
        for port in new_ports - old_ports:
            self.node_ports.mark(port)

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[Obj, bool]:
        obj, deleted = await super().delete(namespace, name, params)
        if deleted and not params.dry_run:
            spec = obj.get("spec") or {}
            ip = spec.get("clusterIP")
            self._release(
                ip if ip != "None" else None, [p["nodePort"] for p in spec.get("ports") or [] if p.get("nodePort")]
            )
        return obj, deleted


def new_storage(ctx: StorageContext) -> ResourceStorage:
    """services and services/status, allocating from the server's service range once the cache holds what
    stored Services already use."""
    store = ctx.store(
        ServiceStrategy(ctx.spec),
        table=SERVICE_TABLE,
        store_type=ServiceStore,
        ips=ClusterIPAllocator(ctx.options.service_cluster_ip_range),
        node_ports=NodePortAllocator(),
    )
    assert isinstance(store, ServiceStore)  # what store_type made
    ctx.after_start(store.repair)
    return ctx.with_status(store)


REGISTRATION = Registration("", "services", new_storage, ServiceStrategy)
