"""Every controller kubelite runs, by kube-controller-manager's name, and how to build the ones that talk to
the API over HTTP.

Two kinds live here. The in-process ones (namespace, service accounts, root CA, pod termination, garbage
collection: `manager.build_controllers`) read and write through the registry, as kube-apiserver's own
loops do. The workload controllers are kube-controller-manager's: each is built on a `ComponentClient` of
the user `system:kube-controller-manager` and reaches the API only through HTTP, its informers, its writes
and its events, so authorization and admission see them as they see kube's. `--controllers` selects among
both (`selection.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from kubelite.client.component import ComponentClient
from kubelite.client.controller import Controller


class ControlLoop(Protocol):
    """One controller: its work queue and workers (`controller`), run until cancelled."""

    controller: Controller

    async def run(self) -> None: ...


@dataclass(frozen=True)
class ControllerDescriptor:
    #: kube's name (`deployment-controller`)
    name: str
    #: the older names kube still accepts in `--controllers` (`deployment`)
    aliases: tuple[str, ...]
    #: the controller, its informers requested and its handlers added (nothing runs until `run()`)
    build: Callable[[ComponentClient], ControlLoop]
    enabled_by_default: bool = True


#: the in-process controllers, by kube's name, with their aliases (`manager.build_controllers` builds them)
IN_PROCESS: dict[str, tuple[str, ...]] = {
    "namespace-controller": ("namespace",),
    "serviceaccount-controller": ("serviceaccount",),
    "root-ca-certificate-publisher-controller": ("root-ca-cert-publisher",),
    # kubelite's: finishes graceful deletion of pods no kubelet of kubelite runs (their grace period ends)
    "pod-termination-controller": ("podtermination",),
    "garbage-collector-controller": ("garbagecollector",),
    # signs with the cluster CA's key, which stays in the API server's process
    "csrsigning-controller": ("csrsigning",),
}


#: kubelite's simulated provisioner; the default StorageClass exists only where it runs
PROVISIONER_CONTROLLER = "volume-provisioner-controller"


def api_controllers() -> list[ControllerDescriptor]:
    """The controllers that run as `system:kube-controller-manager` over HTTP, in kube's start order."""
    from kubelite.controllers.batch import cronjob_controller, job_controller, ttl_after_finished_controller
    from kubelite.controllers.daemonset import controller as daemonset
    from kubelite.controllers.disruption.controller import DisruptionController
    from kubelite.controllers.endpoints.endpoints_controller import EndpointsController
    from kubelite.controllers.endpoints.endpointslice_controller import EndpointSliceController
    from kubelite.controllers.nodelifecycle.controller import NodeLifecycleController
    from kubelite.controllers.nodelifecycle.taint_eviction import TaintEvictionController
    from kubelite.controllers.podautoscaler.controller import build_horizontal_pod_autoscaler_controller
    from kubelite.controllers.podgc.controller import build_pod_gc_controller
    from kubelite.controllers.resourcequota.controller import ResourceQuotaController
    from kubelite.controllers.statefulset import controller as statefulset
    from kubelite.controllers.volume.binder_controller import PersistentVolumeBinder
    from kubelite.controllers.volume.provisioner_controller import VolumeProvisioner
    from kubelite.controllers.workloads.deployment_controller import build_deployment_controller
    from kubelite.controllers.workloads.replicaset_controller import (
        build_replica_set_controller,
        build_replication_controller_manager,
    )

    return [
        ControllerDescriptor("endpoints-controller", ("endpoint",), EndpointsController),
        ControllerDescriptor("endpointslice-controller", ("endpointslice",), EndpointSliceController),
        ControllerDescriptor(
            "replicationcontroller-controller", ("replicationcontroller",), build_replication_controller_manager
        ),
        ControllerDescriptor("pod-garbage-collector-controller", ("podgc",), build_pod_gc_controller),
        ControllerDescriptor("resourcequota-controller", ("resourcequota",), ResourceQuotaController),
        ControllerDescriptor("daemonset-controller", ("daemonset",), daemonset.build),
        ControllerDescriptor("job-controller", ("job",), job_controller.build),
        ControllerDescriptor("deployment-controller", ("deployment",), build_deployment_controller),
        ControllerDescriptor("replicaset-controller", ("replicaset",), build_replica_set_controller),
        ControllerDescriptor(
            "horizontal-pod-autoscaler-controller",
            ("horizontalpodautoscaling",),
            build_horizontal_pod_autoscaler_controller,
        ),
        ControllerDescriptor("disruption-controller", ("disruption",), DisruptionController),
        ControllerDescriptor("statefulset-controller", ("statefulset",), statefulset.build),
        ControllerDescriptor("cronjob-controller", ("cronjob",), cronjob_controller.build),
        ControllerDescriptor("node-lifecycle-controller", ("nodelifecycle",), NodeLifecycleController),
        ControllerDescriptor("taint-eviction-controller", (), TaintEvictionController),
        ControllerDescriptor(
            "persistentvolume-binder-controller", ("persistentvolume-binder",), PersistentVolumeBinder
        ),
        # kubelite's: the provisioner of the default StorageClass (an external one on a real cluster)
        ControllerDescriptor(PROVISIONER_CONTROLLER, ("volume-provisioner",), VolumeProvisioner),
        ControllerDescriptor(
            "ttl-after-finished-controller", ("ttl-after-finished",), ttl_after_finished_controller.build
        ),
    ]


def known_names() -> tuple[list[str], dict[str, str], set[str]]:
    """Every controller's name, the aliases (alias -> name), and the names that are off by default."""
    names = list(IN_PROCESS)
    aliases = {alias: name for name, found in IN_PROCESS.items() for alias in found}
    disabled: set[str] = set()
    for descriptor in api_controllers():
        names.append(descriptor.name)
        aliases.update({alias: descriptor.name for alias in descriptor.aliases})
        if not descriptor.enabled_by_default:
            disabled.add(descriptor.name)
    return names, aliases, disabled
