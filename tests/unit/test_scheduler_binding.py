"""What the scheduler writes back: the Binding, the Scheduled and FailedScheduling events, PodScheduled=False."""

from __future__ import annotations

from datetime import UTC, datetime

from kubelite.cluster.scheduler import binding
from kubelite.cluster.scheduler.testing import make_pod

NOW = datetime(2026, 12, 2, 3, 4, 5, 678901, UTC)


def test_binding_names_the_pod_with_its_uid_and_the_node() -> None:
    assert binding.binding(make_pod("web", namespace="shop"), "node-1") == {
        "apiVersion": "v1", "kind": "Binding",
        "metadata": {"name": "web", "namespace": "shop", "uid": "uid-shop-web"},
        "target": {"kind": "Node", "name": "node-1"},
    }


def test_scheduled_event() -> None:
    pod = make_pod("web", namespace="shop")
    pod["metadata"]["resourceVersion"] = "42"
    event = binding.scheduled_event(pod, "node-1", now=NOW, instance=binding.reporting_instance("host-a"))
    nanos = int(NOW.timestamp()) * 1_000_000_000 + 678901000
    assert event == {
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": f"web.{nanos:x}", "namespace": "shop"},
        "eventTime": "2026-12-02T03:04:05.678901Z",
        "reportingController": "default-scheduler", "reportingInstance": "default-scheduler-host-a",
        "action": "Binding", "reason": "Scheduled",
        "regarding": {"kind": "Pod", "namespace": "shop", "name": "web", "apiVersion": "v1", "uid": "uid-shop-web",
                      "resourceVersion": "42"},
        "note": "Successfully assigned shop/web to node-1", "type": "Normal",
    }


def test_failed_scheduling_event_and_condition() -> None:
    message = "0/1 nodes are available: 1 Insufficient cpu."
    event = binding.failed_scheduling_event(make_pod("web"), message, now=NOW, instance="default-scheduler-host")
    assert (event["type"], event["reason"], event["action"], event["note"], event["reportingInstance"]) == (
        "Warning", "FailedScheduling", "Scheduling", message, "default-scheduler-host")
    condition = binding.unschedulable_condition(message, now=NOW)
    assert condition == {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                         "lastTransitionTime": "2026-12-02T03:04:05Z", "reason": "Unschedulable",
                         "message": message}


def test_condition_patch_is_skipped_when_nothing_changes_and_keeps_the_transition_time() -> None:
    message = "0/1 nodes are available: 1 Insufficient cpu."
    pod = make_pod("web")
    first = binding.unschedulable_condition(message, now=NOW)
    assert binding.pod_condition_patch(pod, first) == {"status": {"conditions": [first]}}
    pod["status"]["conditions"] = [first]
    later = datetime(2026, 12, 2, 4, 0, 0, tzinfo=UTC)
    assert binding.pod_condition_patch(pod, binding.unschedulable_condition(message, now=later)) is None
    changed = binding.unschedulable_condition("0/2 nodes are available: 2 Insufficient cpu.", now=later)
    patch = binding.pod_condition_patch(pod, changed)
    assert patch is not None
    assert patch["status"]["conditions"][0]["lastTransitionTime"] == "2026-12-02T03:04:05Z"
    assert patch["status"]["conditions"][0]["message"] == "0/2 nodes are available: 2 Insufficient cpu."


def test_a_long_message_is_cut_in_the_event_but_not_in_the_condition() -> None:
    message = "0/2000 nodes are available: " + ", ".join(f"1 reason {i}" for i in range(300)) + "."
    event = binding.failed_scheduling_event(make_pod("web"), message, now=NOW)
    assert len(event["note"]) == 1024 and event["note"].endswith(" ...")
    assert event["note"][:1020] == message[:1020]
    assert event["reportingInstance"].startswith("default-scheduler-")
    assert binding.unschedulable_condition(message, now=NOW)["message"] == message
