"""Builds the Store of every built-in resource: its strategy, its key root, its status strategy."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubelite.apimachinery.compact import compact_managed_fields, compact_spec_and_status
from kubelite.registry.apps.workloads import (
    CronJobStrategy,
    DaemonSetStrategy,
    DeploymentStrategy,
    JobStrategy,
    ReplicaSetStrategy,
    ReplicationControllerStrategy,
    StatefulSetStrategy,
    WorkloadStrategy,
)
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.core.configmaps import ConfigMapStrategy
from kubelite.registry.core.event_conversion import EventsV1Store
from kubelite.registry.core.events import EventStrategy
from kubelite.registry.core.namespaces import NamespaceFinalizeStrategy, NamespaceStrategy, mark_terminating
from kubelite.registry.core.persistentvolumes import (
    NodeStrategy,
    PersistentVolumeClaimStrategy,
    PersistentVolumeStrategy,
)
from kubelite.registry.core.pods import PodStrategy, PodTemplateStrategy
from kubelite.registry.core.quotas import LimitRangeStrategy, ResourceQuotaStrategy
from kubelite.registry.core.secrets import SecretStrategy
from kubelite.registry.core.services import ServiceStore, ServiceStrategy
from kubelite.registry.options import DeleteParams
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.store import Store
from kubelite.registry.strategy import StatusStrategy, Strategy
from kubelite.storage.cacher import Cacher
from kubelite.storage.interface import Storage
from kubelite.util.clock import Clock


class SpecStrategy(Strategy):
    """Kinds with a spec whose changes bump metadata.generation."""

    tracks_generation = True


class PlainStrategy(Strategy):
    """Kinds without generation tracking (data objects: leases, RBAC, endpoints, ...)."""

    tracks_generation = False


class ServiceAccountStrategy(PlainStrategy):
    return_deleted_object = True


class PriorityClassStrategy(PlainStrategy):
    def default(self, obj: dict) -> None:  # type: ignore[type-arg]
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


class StorageClassStrategy(PlainStrategy):
    return_deleted_object = True


class DeletedObjectStrategy(PlainStrategy):
    """Kinds whose DELETE answers with the object (kube's ReturnDeletedObject): PVs, PVCs,
    quotas, pod templates."""

    return_deleted_object = True


class EndpointSliceStrategy(Strategy):
    """kube bumps an EndpointSlice's generation on any change outside metadata, and on label changes."""

    tracks_generation = True

    def spec_changed(self, new: dict, old: dict) -> bool:  # type: ignore[type-arg]
        new_meta, old_meta = new.get("metadata") or {}, old.get("metadata") or {}
        labels_changed = new_meta.get("labels") != old_meta.get("labels")
        return labels_changed or super().spec_changed(new, old)


_STRATEGIES: dict[tuple[str, str], type[Strategy]] = {
    ("", "pods"): PodStrategy,
    ("", "namespaces"): NamespaceStrategy,
    ("", "secrets"): SecretStrategy,
    ("", "configmaps"): ConfigMapStrategy,
    ("", "services"): ServiceStrategy,
    ("", "events"): EventStrategy,
    ("", "nodes"): NodeStrategy,
    ("", "serviceaccounts"): ServiceAccountStrategy,
    ("", "replicationcontrollers"): ReplicationControllerStrategy,
    ("", "podtemplates"): PodTemplateStrategy,
    ("", "persistentvolumeclaims"): PersistentVolumeClaimStrategy,
    ("", "persistentvolumes"): PersistentVolumeStrategy,
    ("", "resourcequotas"): ResourceQuotaStrategy,
    ("", "limitranges"): LimitRangeStrategy,
    ("discovery.k8s.io", "endpointslices"): EndpointSliceStrategy,
    ("apps", "deployments"): DeploymentStrategy,
    ("apps", "replicasets"): ReplicaSetStrategy,
    ("apps", "statefulsets"): StatefulSetStrategy,
    ("apps", "daemonsets"): DaemonSetStrategy,
    ("batch", "jobs"): JobStrategy,
    ("batch", "cronjobs"): CronJobStrategy,
    ("autoscaling", "horizontalpodautoscalers"): SpecStrategy,
    ("policy", "poddisruptionbudgets"): SpecStrategy,
    ("networking.k8s.io", "ingresses"): SpecStrategy,
    ("networking.k8s.io", "networkpolicies"): SpecStrategy,
    ("networking.k8s.io", "ingressclasses"): SpecStrategy,
    ("storage.k8s.io", "storageclasses"): StorageClassStrategy,
    ("scheduling.k8s.io", "priorityclasses"): PriorityClassStrategy,
}

#: resources whose objects live under another resource's keys
_NOT_STORED = {
    ("", "bindings"),
    ("events.k8s.io", "events"),  # stored as core/v1 events, converted
    ("authentication.k8s.io", "selfsubjectreviews"),
    ("authorization.k8s.io", "localsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectaccessreviews"),
    ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ("authorization.k8s.io", "subjectaccessreviews"),
}


class NamespaceStore(Store):
    """Namespaces are deleted in two steps: the first delete makes them Terminating while spec.finalizers
    remain; the namespace controller empties them, clears the finalizers and deletes again."""

    def on_deleting(self, obj: dict) -> None:  # type: ignore[type-arg]
        mark_terminating(obj)

    def finalizers_pending(self, obj: dict) -> bool:  # type: ignore[type-arg]
        return super().finalizers_pending(obj) or bool((obj.get("spec") or {}).get("finalizers"))

    async def delete(self, namespace: str, name: str, params: DeleteParams) -> tuple[dict, bool]:  # type: ignore[type-arg]
        current = await self.get(namespace, name)
        if (current.get("spec") or {}).get("finalizers"):
            return await self._mark_deleting(namespace, name, 0, params), False
        return await super().delete(namespace, name, params)


@dataclass
class Registry:
    stores: dict[tuple[str, str], Store] = field(default_factory=dict)
    status_strategies: dict[tuple[str, str], dict[str, Strategy]] = field(default_factory=dict)
    cachers: list[Cacher] = field(default_factory=list)

    def store(self, group: str, resource: str) -> Store:
        return self.stores[(group, resource)]


def key_root(spec: ResourceSpec) -> str:
    return spec.resource if spec.group in ("", "apps", "batch") else f"{spec.group}/{spec.resource}"


async def build_registry(
    storage: Storage, resources: tuple[ResourceSpec, ...] = BUILTIN_RESOURCES, *, clock: Clock | None = None
) -> Registry:
    """A Store per resource, each behind its watch cache; `clock` is theirs (the real one by default)."""
    registry = Registry()
    for spec in resources:
        if (spec.group, spec.resource) in _NOT_STORED:
            continue
        strategy_type = _STRATEGIES.get((spec.group, spec.resource))
        if strategy_type is None:
            strategy_type = PlainStrategy
        strategy = strategy_type(spec)
        root = key_root(spec)
        compact = compact_spec_and_status if strategy.compact_in_cache else compact_managed_fields
        cacher = Cacher(storage, f"/registry/{root}/", compact=compact, clock=clock)
        registry.cachers.append(cacher)
        store_type: type[Store] = Store
        if spec.resource == "services" and spec.group == "":
            store_type = ServiceStore
        elif spec.resource == "namespaces" and spec.group == "":
            store_type = NamespaceStore
        registry.stores[(spec.group, spec.resource)] = store_type(spec, strategy, cacher, key_root=root, clock=clock)
        subs: dict[str, Strategy] = {}
        if spec.subresource("status"):
            subs["status"] = StatusStrategy(strategy)
        if spec.subresource("finalize"):
            subs["finalize"] = NamespaceFinalizeStrategy(strategy)
        registry.status_strategies[(spec.group, spec.resource)] = subs
    for spec in resources:
        if (spec.group, spec.resource) == ("events.k8s.io", "events"):
            registry.stores[(spec.group, spec.resource)] = EventsV1Store(spec, registry.store("", "events"))  # type: ignore[assignment]
            registry.status_strategies[(spec.group, spec.resource)] = {}
    for cacher in registry.cachers:
        await cacher.start()
    return registry


__all__ = ["Registry", "WorkloadStrategy", "build_registry", "key_root"]
