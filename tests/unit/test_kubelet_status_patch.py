"""The kubelet's status patches: the two-way strategic diff, and that kube's patch rules turn old into new."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import deep_copy
from kubelite.apimachinery.patch.strategic import apply_strategic_merge_patch
from kubelite.cluster.kubelet.status_patch import node_status_patch, pod_status_patch
from kubelite.endpoints.handlers.patch_schema import default_lookup, schema_for


def _condition(kind: str, status: str, at: str = "2024-01-01T00:00:00Z") -> dict[str, Any]:
    return {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": at}


PENDING: dict[str, Any] = {
    "phase": "Pending",
    "conditions": [_condition("PodReadyToStartContainers", "False"), _condition("PodScheduled", "True")],
    "hostIP": "172.18.0.2",
    "hostIPs": [{"ip": "172.18.0.2"}],
    "containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "ContainerCreating"}}, "ready": False}],
}
RUNNING: dict[str, Any] = {
    "phase": "Running",
    "conditions": [
        _condition("PodReadyToStartContainers", "True", "2024-01-01T00:00:01Z"),
        _condition("Ready", "True", "2024-01-01T00:00:01Z"),
        _condition("PodScheduled", "True"),
    ],
    "hostIP": "172.18.0.2",
    "hostIPs": [{"ip": "172.18.0.2"}],
    "podIP": "10.244.0.2",
    "podIPs": [{"ip": "10.244.0.2"}],
    "containerStatuses": [
        {"name": "app", "state": {"running": {"startedAt": "2024-01-01T00:00:01Z"}}, "ready": True}
    ],
}


def _apply(kind: str, obj: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    return apply_strategic_merge_patch(obj, patch, schema_for("", "v1", kind), default_lookup())


def test_pod_patch_carries_uid_and_only_what_changed() -> None:
    patch = pod_status_patch("uid-1", PENDING, RUNNING)
    assert patch == {
        "metadata": {"uid": "uid-1"},
        "status": {
            "phase": "Running",
            "$setElementOrder/conditions": [
                {"type": "PodReadyToStartContainers"}, {"type": "Ready"}, {"type": "PodScheduled"}
            ],
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": "2024-01-01T00:00:01Z"},
                _condition("Ready", "True", "2024-01-01T00:00:01Z"),
            ],
            "containerStatuses": RUNNING["containerStatuses"],
            "podIP": "10.244.0.2",
            "podIPs": [{"ip": "10.244.0.2"}],
        },
    }


def _nulls_dropped(status: dict[str, Any]) -> dict[str, Any]:
    conditions = [{k: v for k, v in c.items() if v is not None} for c in status["conditions"]]
    return {**status, "conditions": conditions}


def test_pod_patch_applied_by_kube_rules_gives_the_new_status() -> None:
    pod = {"metadata": {"name": "p", "uid": "uid-1"}, "status": deep_copy(PENDING)}
    for new in (RUNNING, PENDING, RUNNING):
        patch = pod_status_patch("uid-1", pod["status"], new)
        assert patch is not None
        pod = _apply("Pod", pod, patch)
        # a condition the patch adds loses its null lastProbeTime (Go's decoding would restore it)
        assert _nulls_dropped(pod["status"]) == _nulls_dropped(new)
        assert pod["metadata"] == {"name": "p", "uid": "uid-1"}
        # and that is no reason to patch again
        assert pod_status_patch("uid-1", pod["status"], new) is None


def test_removed_condition_and_key_are_deleted() -> None:
    old = {"phase": "Running", "podIP": "10.244.0.2", "conditions": [_condition("A", "True"), _condition("B", "True")]}
    new = {"phase": "Running", "conditions": [_condition("B", "True")]}
    patch = pod_status_patch("u", old, new)
    assert patch == {"metadata": {"uid": "u"}, "status": {
        "$setElementOrder/conditions": [{"type": "B"}],
        "conditions": [{"$patch": "delete", "type": "A"}],
        "podIP": None,
    }}
    assert _apply("Pod", {"status": old}, patch)["status"] == new


def test_reordered_conditions_send_only_the_order() -> None:
    old = {"conditions": [_condition("A", "True"), _condition("B", "True")]}
    new = {"conditions": [_condition("B", "True"), _condition("A", "True")]}
    patch = pod_status_patch("u", old, new)
    order = [{"type": "B"}, {"type": "A"}]
    assert patch == {"metadata": {"uid": "u"}, "status": {"$setElementOrder/conditions": order}}
    assert _apply("Pod", {"status": old}, patch)["status"] == new


def test_equal_statuses_need_no_patch() -> None:
    assert pod_status_patch("u", RUNNING, deep_copy(RUNNING)) is None
    assert node_status_patch({"capacity": {"cpu": "8"}}, {"capacity": {"cpu": "8"}}) is None


def test_node_heartbeat_patch() -> None:
    def status(beat: str) -> dict[str, Any]:
        return {
            "capacity": {"cpu": "8"},
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": beat,
                 "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "KubeletHasSufficientMemory"},
                {"type": "Ready", "status": "True", "lastHeartbeatTime": beat,
                 "lastTransitionTime": "2024-01-01T00:00:00Z", "reason": "KubeletReady"},
            ],
            "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}, {"type": "Hostname", "address": "n"}],
        }

    old, new = status("2024-01-01T00:00:00Z"), status("2024-01-01T00:05:00Z")
    patch = node_status_patch(old, new)
    assert patch == {"status": {
        "$setElementOrder/conditions": [{"type": "MemoryPressure"}, {"type": "Ready"}],
        "conditions": [
            {"type": "MemoryPressure", "lastHeartbeatTime": "2024-01-01T00:05:00Z"},
            {"type": "Ready", "lastHeartbeatTime": "2024-01-01T00:05:00Z"},
        ],
    }}
    assert _apply("Node", {"status": old}, patch)["status"] == new
