"""The registrations of the built-in resources, and the Registry holding their storage (kube's list of
RESTStorageProviders in `controlplane/instance.go`): each resource's home says how its storage is built;
this module only lists the homes, in the order they are built (core/v1 events before events.k8s.io's view).
"""

from __future__ import annotations

from kubelite.registry.apps import controllerrevisions, daemonsets, deployments, replicasets, statefulsets
from kubelite.registry.autoscaling import horizontalpodautoscalers
from kubelite.registry.batch import cronjobs, jobs
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.certificates import certificatesigningrequests
from kubelite.registry.coordination import leases
from kubelite.registry.core import (
    configmaps,
    endpoints,
    events,
    limitranges,
    namespace_store,
    nodes,
    persistentvolumeclaims,
    persistentvolumes,
    pods,
    podtemplates,
    replicationcontrollers,
    resourcequotas,
    secrets,
    serviceaccounts,
    services,
)
from kubelite.registry.core.pod_eviction import PodEviction
from kubelite.registry.discovery import endpointslices
from kubelite.registry.networking import ingressclasses, ingresses, networkpolicies
from kubelite.registry.policy import poddisruptionbudgets
from kubelite.registry.rbac import clusterrolebindings, clusterroles, rolebindings, roles
from kubelite.registry.registration import Registration, Registry, RegistryOptions
from kubelite.registry.scheduling import priorityclasses
from kubelite.registry.spec import ResourceSpec
from kubelite.registry.storage import storageclasses
from kubelite.storage.interface import Storage
from kubelite.util.clock import Clock

#: every stored built-in resource's registration, in build order; bindings and the reviews are computed by
#: their handlers and have no storage of their own
BUILTIN_REGISTRATIONS: dict[tuple[str, str], Registration] = {
    (r.group, r.resource): r
    for r in (
        configmaps.REGISTRATION,
        endpoints.REGISTRATION,
        events.REGISTRATION,
        limitranges.REGISTRATION,
        namespace_store.REGISTRATION,
        nodes.REGISTRATION,
        persistentvolumeclaims.REGISTRATION,
        persistentvolumes.REGISTRATION,
        pods.REGISTRATION,
        podtemplates.REGISTRATION,
        replicationcontrollers.REGISTRATION,
        resourcequotas.REGISTRATION,
        secrets.REGISTRATION,
        serviceaccounts.REGISTRATION,
        services.REGISTRATION,
        controllerrevisions.REGISTRATION,
        daemonsets.REGISTRATION,
        deployments.REGISTRATION,
        replicasets.REGISTRATION,
        statefulsets.REGISTRATION,
        horizontalpodautoscalers.REGISTRATION,
        cronjobs.REGISTRATION,
        jobs.REGISTRATION,
        certificatesigningrequests.REGISTRATION,
        leases.REGISTRATION,
        endpointslices.REGISTRATION,
        events.EVENTS_V1_REGISTRATION,
        ingressclasses.REGISTRATION,
        ingresses.REGISTRATION,
        networkpolicies.REGISTRATION,
        poddisruptionbudgets.REGISTRATION,
        clusterrolebindings.REGISTRATION,
        clusterroles.REGISTRATION,
        rolebindings.REGISTRATION,
        roles.REGISTRATION,
        priorityclasses.REGISTRATION,
        storageclasses.REGISTRATION,
    )
}


async def build_registry(
    storage: Storage,
    resources: tuple[ResourceSpec, ...] = BUILTIN_RESOURCES,
    options: RegistryOptions | None = None,
    *,
    clock: Clock | None = None,
) -> Registry:
    """The Registry of every stored resource among `resources`, its watch caches started; `clock` is what its
    caches and Stores read (the real one by default)."""
    registry = Registry(storage, options, clock=clock)
    specs = {(spec.group, spec.resource): spec for spec in resources}
    for key, registration in BUILTIN_REGISTRATIONS.items():
        spec = specs.get(key)
        if spec is not None:
            await registry.register(spec, registration)
    pods, pdbs = registry.stores.get(("", "pods")), registry.stores.get(("policy", "poddisruptionbudgets"))
    if pods is not None and pdbs is not None:
        # an eviction reads and writes the budgets: it is the pods' subresource over both stores
        pdb_status = registry.subresources[("policy", "poddisruptionbudgets")]["status"]
        registry.subresources[("", "pods")]["eviction"] = PodEviction(pods, pdbs, pdb_status, now=registry.clock.now)
    return registry


__all__ = ["BUILTIN_REGISTRATIONS", "Registry", "RegistryOptions", "build_registry"]
