"""The EndpointSlice reconciler: what a sync creates, updates and deletes, and the tracker that tells a
stale cache."""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime
from typing import Any

from kubelite.controllers.endpoints.endpointslices import (
    EndpointSliceTracker,
    SlicePlan,
    address_types,
    reconcile,
)
from tests.unit.controllers.endpoints.fixtures import node, pod, service

NODES = {"node-a": node("node-a", "zone-1"), "node-b": node("node-b", None)}
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
LABELS = {
    "kubernetes.io/service-name": "web",
    "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
}
OWNER = {
    "apiVersion": "v1",
    "kind": "Service",
    "name": "web",
    "uid": "uid-web",
    "controller": True,
    "blockOwnerDeletion": True,
}
HTTP = [{"name": "http", "port": 8080, "protocol": "TCP"}]


def stored(plan_slices: list[dict[str, Any]], *, start: int = 0) -> list[dict[str, Any]]:
    """Slices as the server returns them once created: named, with a uid and a generation."""
    out = []
    for i, slice_ in enumerate(plan_slices, start):
        copied = copy.deepcopy(slice_)
        meta = copied["metadata"]
        meta.setdefault("name", f"web-{i}")
        meta.update(uid=f"slice-{meta['name']}", generation=1, resourceVersion=str(10 + i))
        out.append(copied)
    return out


def ips(slice_: dict[str, Any]) -> list[str]:
    return [e["addresses"][0] for e in slice_["endpoints"]]


def test_a_new_service_gets_one_slice_of_its_pods() -> None:
    plan = reconcile(
        service(labels={"tier": "front"}),
        [pod("a", "10.0.0.1"), pod("b", "10.0.0.2", ready=False, node="node-b"), pod("c", None)],
        [],
        NODES,
        WHEN,
    )
    assert (plan.update, plan.delete, plan.errors) == ([], [], [])
    assert plan.create == [
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "generateName": "web-",
                "namespace": "ns",
                "ownerReferences": [OWNER],
                "labels": {"tier": "front", **LABELS},
                "annotations": {"endpoints.kubernetes.io/last-change-trigger-time": "2026-01-02T03:04:05Z"},
            },
            "addressType": "IPv4",
            "endpoints": [
                {
                    "addresses": ["10.0.0.1"],
                    "conditions": {"ready": True, "serving": True, "terminating": False},
                    "targetRef": {"kind": "Pod", "namespace": "ns", "name": "a", "uid": "uid-a"},
                    "nodeName": "node-a",
                    "zone": "zone-1",
                },
                {
                    "addresses": ["10.0.0.2"],
                    "conditions": {"ready": False, "serving": False, "terminating": False},
                    "targetRef": {"kind": "Pod", "namespace": "ns", "name": "b", "uid": "uid-b"},
                    "nodeName": "node-b",
                },
            ],
            "ports": HTTP,
        }
    ]


def test_terminating_pods_stay_serving_but_not_ready() -> None:
    plan = reconcile(service(), [pod("a", "10.0.0.1", deleting=True)], [], NODES, None)
    assert plan.create[0]["endpoints"][0]["conditions"] == {"ready": False, "serving": True, "terminating": True}
    assert "annotations" not in plan.create[0]["metadata"]
    published = reconcile(
        service(publishNotReadyAddresses=True), [pod("a", "10.0.0.1", deleting=True)], [], NODES, None
    )
    assert published.create[0]["endpoints"][0]["conditions"] == {"ready": True, "serving": True, "terminating": True}


def test_slices_hold_at_most_100_endpoints() -> None:
    pods = [pod(f"p{i}", f"10.0.{i // 200}.{i % 200}") for i in range(250)]
    plan = reconcile(service(), pods, [], NODES, None)
    assert [len(s["endpoints"]) for s in plan.create] == [100, 100, 50]
    assert ips(plan.create[0])[:3] == ["10.0.0.0", "10.0.0.1", "10.0.0.2"]  # placed by address
    assert ips(plan.create[2])[-1] == "10.0.1.49"


def test_an_unchanged_service_writes_nothing() -> None:
    pods = [pod("a", "10.0.0.1"), pod("b", "10.0.0.2")]
    existing = stored(reconcile(service(), pods, [], NODES, WHEN).create)
    # a target's resourceVersion is no difference
    existing[0]["endpoints"][0]["targetRef"]["resourceVersion"] = "123"
    assert reconcile(service(), pods, existing, NODES, None).empty


def test_changes_are_made_in_place_and_new_endpoints_fill_the_slices_being_written() -> None:
    pods = [pod("a", "10.0.0.1"), pod("b", "10.0.0.2")]
    existing = stored(reconcile(service(), pods, [], NODES, None).create)
    now = [pod("a", "10.0.0.1", ready=False), pod("c", "10.0.0.3")]
    plan = reconcile(service(), now, existing, NODES, WHEN)
    assert (plan.create, plan.delete) == ([], [])
    [updated] = plan.update
    assert updated["metadata"]["name"] == "web-0" and updated["metadata"]["resourceVersion"] == "10"
    assert ips(updated) == ["10.0.0.1", "10.0.0.3"]
    assert updated["endpoints"][0]["conditions"]["ready"] is False


def test_new_endpoints_go_to_the_unchanged_slice_they_fill_best() -> None:
    first = stored(reconcile(service(), [pod(f"p{i}", f"10.0.0.{i}") for i in range(1, 96)], [], NODES, None).create)
    second = stored(
        reconcile(service(), [pod(f"q{i}", f"10.0.1.{i}") for i in range(1, 51)], [], NODES, None).create, start=1
    )
    pods = [pod(f"p{i}", f"10.0.0.{i}") for i in range(1, 96)] + [pod(f"q{i}", f"10.0.1.{i}") for i in range(1, 51)]
    pods += [pod(f"r{i}", f"10.0.2.{i}") for i in range(1, 6)]
    plan = reconcile(service(), pods, first + second, NODES, None)
    [updated] = plan.update
    assert updated["metadata"]["name"] == "web-0" and len(updated["endpoints"]) == 100
    assert plan.create == [] and plan.delete == []


def test_a_slice_emptied_is_reused_for_a_new_port_mapping() -> None:
    existing = stored(reconcile(service(), [pod("a", "10.0.0.1")], [], NODES, None).create)
    moved = service(ports=[{"name": "http", "port": 80, "targetPort": 9090, "protocol": "TCP"}])
    plan = reconcile(moved, [pod("a", "10.0.0.1")], existing, NODES, None)
    assert (plan.create, plan.delete) == ([], [])
    [updated] = plan.update
    # a new slice under the old one's name, written over it
    assert updated["metadata"]["name"] == "web-0" and "resourceVersion" not in updated["metadata"]
    assert updated["ports"] == [{"name": "http", "port": 9090, "protocol": "TCP"}]


def test_a_service_selecting_nothing_keeps_one_placeholder() -> None:
    plan = reconcile(service(), [], [], NODES, None)
    [placeholder] = plan.create
    assert (placeholder["endpoints"], placeholder["ports"]) == ([], [])
    assert placeholder["metadata"]["labels"] == LABELS
    existing = stored(plan.create)
    assert reconcile(service(), [], existing, NODES, None).empty
    # the last pod gone: its slice becomes the placeholder
    with_pod = stored(reconcile(service(), [pod("a", "10.0.0.1")], [], NODES, None).create)
    emptied = reconcile(service(), [], with_pod, NODES, None)
    assert [s["metadata"]["name"] for s in emptied.update] == ["web-0"] and emptied.update[0]["endpoints"] == []


def test_label_changes_of_the_service_are_copied() -> None:
    existing = stored(reconcile(service(), [pod("a", "10.0.0.1")], [], NODES, None).create)
    plan = reconcile(service(labels={"team": "x"}, cluster_ip="None"), [pod("a", "10.0.0.1")], existing, NODES, None)
    [updated] = plan.update
    assert updated["metadata"]["labels"] == {"team": "x", **LABELS, "service.kubernetes.io/headless": ""}


def test_a_pod_on_an_unknown_node_is_left_out_and_reported() -> None:
    plan = reconcile(service(), [pod("a", "10.0.0.1"), pod("b", "10.0.0.2", node="gone")], [], NODES, None)
    assert [ips(s) for s in plan.create] == [["10.0.0.1"]]
    assert plan.errors == ["skipping Pod b for Service ns/web: Node gone Not Found"]
    published = reconcile(service(publishNotReadyAddresses=True), [pod("b", "10.0.0.2", node="gone")], [], NODES, None)
    assert [ips(s) for s in published.create] == [["10.0.0.2"]] and published.errors == []


def test_slices_of_another_owner_or_address_type_are_deleted() -> None:
    existing = stored(reconcile(service(), [pod("a", "10.0.0.1")], [], NODES, None).create)
    existing[0]["metadata"]["ownerReferences"][0]["uid"] = "uid-of-an-old-web"
    plan = reconcile(service(), [pod("a", "10.0.0.1")], existing, NODES, None)
    assert [s["metadata"]["name"] for s in plan.delete] == ["web-0"] and len(plan.create) == 1
    v6 = service(cluster_ip="fd00:96::10")
    dual = pod("a", "10.0.0.1")
    dual["status"]["podIPs"].append({"ip": "fd00::1"})
    again = stored(reconcile(service(), [dual], [], NODES, None).create)
    plan = reconcile(v6, [dual], again, NODES, None)
    assert [s["addressType"] for s in plan.create] == ["IPv6"] and ips(plan.create[0]) == ["fd00::1"]
    assert [s["metadata"]["name"] for s in plan.delete] == ["web-0"]


def test_address_types() -> None:
    assert address_types(service()) == ["IPv4"]
    no_families = service(cluster_ip="fd00::1")
    del no_families["spec"]["ipFamilies"]
    assert address_types(no_families) == ["IPv6"]
    headless = service(cluster_ip="None")
    del headless["spec"]["ipFamilies"]
    assert address_types(headless) == ["IPv4", "IPv6"]


def test_a_service_being_deleted_gets_no_new_slices() -> None:
    deleting = service()
    deleting["metadata"]["deletionTimestamp"] = "2026-01-02T03:10:00Z"
    assert reconcile(deleting, [pod("a", "10.0.0.1")], [], NODES, None) == SlicePlan()


def test_the_tracker_tells_a_cache_behind_the_controllers_writes() -> None:
    tracker = EndpointSliceTracker()
    web = service()
    [written] = stored(reconcile(web, [pod("a", "10.0.0.1")], [], NODES, None).create)
    assert tracker.should_sync(written)
    tracker.update({**written, "metadata": {**written["metadata"], "generation": 2}})
    assert not tracker.should_sync({**written, "metadata": {**written["metadata"], "generation": 2}})
    assert tracker.should_sync({**written, "metadata": {**written["metadata"], "generation": 3}})
    assert tracker.stale_slices(web, [written])  # generation 1 in the cache, 2 written
    assert tracker.stale_slices(web, [])  # a slice written is not in the cache yet
    assert not tracker.stale_slices(web, [{**written, "metadata": {**written["metadata"], "generation": 2}}])
    tracker.expect_deletion(written)
    assert tracker.stale_slices(web, [written])
    assert not tracker.stale_slices(web, [])
    assert tracker.handle_deletion(written)  # the controller's own deletion
    tracker.update(written)
    assert not tracker.handle_deletion(written)  # someone else's
    tracker.update(written)
    recreated = service()
    recreated["metadata"]["uid"] = "uid-web-2"
    assert not tracker.stale_slices(web, [written])
    assert not tracker.stale_slices(recreated, [])  # writes for the old Service say nothing of the new one


def test_thousands_of_pods_are_placed_in_one_pass() -> None:
    pods = [pod(f"p{i}", f"10.0.{i // 250}.{i % 250}") for i in range(5_000)]
    started = time.monotonic()
    plan = reconcile(service(), pods, [], NODES, None)
    elapsed = time.monotonic() - started
    assert [len(s["endpoints"]) for s in plan.create] == [100] * 50
    assert ips(plan.create[0])[0] == "10.0.0.0" and ips(plan.create[-1])[-1] == "10.0.19.249"
    assert elapsed < 10, elapsed  # under a second; handing out by a scan of what is left would take far longer
