"""The simulated Node, its conditions and status reporting, and its Lease."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kubelite.cluster.kubelet import identity, lease, node
from kubelite.util.clock import FakeClock


def _config(**overrides: object) -> node.NodeConfig:
    return node.NodeConfig(name="node-1", node_ip="172.18.0.2", pod_cidr="10.244.1.0/24", **overrides)  # type: ignore[arg-type]


def test_registered_node_object() -> None:
    clock = FakeClock()
    built = node.build_node(_config(labels={"topology.kubernetes.io/zone": "zone-a"}), clock.now())
    assert built["metadata"] == {
        "name": "node-1",
        "labels": {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": "node-1",
            "kubernetes.io/os": "linux",
            "topology.kubernetes.io/zone": "zone-a",
        },
        "annotations": {"volumes.kubernetes.io/controller-managed-attach-detach": "true"},
    }
    assert built["spec"] == {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]}
    status = built["status"]
    assert status["capacity"] == {
        "cpu": "8", "ephemeral-storage": "100Gi", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
        "memory": "32Gi", "pods": "110",
    }
    assert status["allocatable"] == status["capacity"]
    assert status["addresses"] == [
        {"type": "InternalIP", "address": "172.18.0.2"},
        {"type": "Hostname", "address": "node-1"},
    ]
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    info = status["nodeInfo"]
    assert info["kubeletVersion"] == "v1.36.0"
    assert info["containerRuntimeVersion"].startswith("containerd://")
    assert (info["operatingSystem"], info["architecture"]) == ("linux", "amd64")
    assert len(info["machineID"]) == 32 and int(info["machineID"], 16) >= 0
    assert info["machineID"] == identity.machine_id("node-1") != identity.machine_id("node-2")
    assert info["systemUUID"] == identity.system_uuid("node-1")
    assert info["bootID"] == identity.boot_id("node-1") != identity.boot_id("node-1", 1)
    assert [handler["name"] for handler in status["runtimeHandlers"]] == ["", "runc"]
    assert status["features"] == {"supplementalGroupsPolicy": True}


def test_conditions_in_kubelet_order_with_kubes_texts() -> None:
    clock = FakeClock()
    conditions = node.build_node(_config(), clock.now())["status"]["conditions"]
    stamp = "2023-11-14T22:30:00Z"
    assert conditions == [
        {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": stamp, "lastTransitionTime": stamp,
         "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available"},
        {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": stamp, "lastTransitionTime": stamp,
         "reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure"},
        {"type": "PIDPressure", "status": "False", "lastHeartbeatTime": stamp, "lastTransitionTime": stamp,
         "reason": "KubeletHasSufficientPID", "message": "kubelet has sufficient PID available"},
        {"type": "Ready", "status": "True", "lastHeartbeatTime": stamp, "lastTransitionTime": stamp,
         "reason": "KubeletReady", "message": "kubelet is posting ready status"},
    ]


def test_heartbeat_moves_transition_only_on_change() -> None:
    clock = FakeClock()
    built = node.build_node(_config(), clock.now())
    clock.step(10)
    same = node.refreshed_status(built, clock.now())
    ready = same["conditions"][3]
    assert (ready["lastHeartbeatTime"], ready["lastTransitionTime"]) == ("2023-11-14T22:30:10Z", "2023-11-14T22:30:00Z")
    assert built["status"]["conditions"][3]["lastHeartbeatTime"] == "2023-11-14T22:30:00Z"
    clock.step(10)
    pressured = node.refreshed_status({"status": same}, clock.now(), health=node.NodeHealth(memory_pressure=True))
    memory = pressured["conditions"][0]
    assert memory == {
        "type": "MemoryPressure", "status": "True", "lastHeartbeatTime": "2023-11-14T22:30:20Z",
        "lastTransitionTime": "2023-11-14T22:30:20Z", "reason": "KubeletHasInsufficientMemory",
        "message": "kubelet has insufficient memory available",
    }
    assert pressured["conditions"][3]["lastTransitionTime"] == "2023-11-14T22:30:00Z"


def test_status_is_posted_on_change_or_every_five_minutes() -> None:
    clock = FakeClock()
    built = node.build_node(_config(), clock.now())
    reported, reported_at = built["status"], clock.now()
    clock.step(10)
    assert not node.status_report_due(reported, node.refreshed_status(built, clock.now()), reported_at, clock.now())
    sick = node.refreshed_status(built, clock.now(), health=node.NodeHealth(disk_pressure=True))
    assert node.status_report_due(reported, sick, reported_at, clock.now())
    clock.step(290 - 0.001)
    assert not node.status_report_due(reported, node.refreshed_status(built, clock.now()), reported_at, clock.now())
    clock.step(0.001)
    assert node.status_report_due(reported, node.refreshed_status(built, clock.now()), reported_at, clock.now())
    assert timedelta(seconds=10) == node.NODE_STATUS_UPDATE_FREQUENCY


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="needs a node IP"):
        node.NodeConfig(name="node-1", node_ip="")


def test_lease_created_and_renewed() -> None:
    clock = FakeClock(start=1_000.25)
    created = lease.build_lease("node-1", clock.now())
    assert created == {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "node-1", "namespace": "kube-node-lease"},
        "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40, "renewTime": "2023-11-14T22:30:00.250000Z"},
    }
    assert lease.next_renewal(clock.now()) - clock.now() == timedelta(seconds=10)
    clock.step(10)
    renewed = lease.renewed_lease(created, clock.now(), node_uid="uid-n1")
    assert renewed["spec"]["renewTime"] == "2023-11-14T22:30:10.250000Z"
    assert renewed["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "uid-n1"}
    ]
    assert created["spec"]["renewTime"] == "2023-11-14T22:30:00.250000Z"
    clock.step(40)
    assert not lease.lease_expired(renewed, clock.now())
    clock.step(0.001)
    assert lease.lease_expired(renewed, clock.now())


def test_lease_retry_backoff() -> None:
    assert [lease.retry_delay(n).total_seconds() for n in range(1, 8)] == [0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 7.0]


def test_cloud_labels_with_their_deprecated_twins() -> None:
    labels = node.node_labels(_config(instance_type="m5.large", zone="eu-west-1a", region="eu-west-1"))
    base = node.node_labels(_config())
    assert {key: value for key, value in labels.items() if key not in base} == {
        "node.kubernetes.io/instance-type": "m5.large",
        "beta.kubernetes.io/instance-type": "m5.large",
        "topology.kubernetes.io/zone": "eu-west-1a",
        "failure-domain.beta.kubernetes.io/zone": "eu-west-1a",
        "topology.kubernetes.io/region": "eu-west-1",
        "failure-domain.beta.kubernetes.io/region": "eu-west-1",
    }
