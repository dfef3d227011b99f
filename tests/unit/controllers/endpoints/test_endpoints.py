"""The Endpoints object of a selector Service: subsets, their canonical layout, the 1000-address cap, and
when nothing needs writing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubelite.controllers.endpoints.endpoints import (
    OVER_CAPACITY_ANNOTATION,
    desired_subsets,
    plan_endpoints,
    repack_subsets,
    truncate_subsets,
)
from kubelite.controllers.endpoints.pods import TRIGGER_TIME_ANNOTATION
from tests.unit.controllers.endpoints.fixtures import pod, service

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def address(name: str, ip: str, node: str = "node-a") -> dict[str, Any]:
    return {
        "ip": ip,
        "nodeName": node,
        "targetRef": {"kind": "Pod", "namespace": "ns", "name": name, "uid": f"uid-{name}"},
    }


def test_ready_and_not_ready_pods_share_a_subset_of_their_port() -> None:
    pods = [pod("b", "10.0.0.10"), pod("a", "10.0.0.9"), pod("c", "10.0.0.2", ready=False), pod("d", None)]
    subsets, ready, not_ready = desired_subsets(service(), pods)
    assert subsets == [
        {
            # by the bytes of the IP, as kube compares them
            "addresses": [address("b", "10.0.0.10"), address("a", "10.0.0.9")],
            "notReadyAddresses": [address("c", "10.0.0.2")],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
        }
    ]
    assert (ready, not_ready) == (2, 1)


def test_publish_not_ready_addresses_lists_every_pod_as_ready_even_terminating() -> None:
    svc = service(publishNotReadyAddresses=True)
    subsets, _, _ = desired_subsets(svc, [pod("a", "10.0.0.1", ready=False), pod("b", "10.0.0.2", deleting=True)])
    assert [a["ip"] for a in subsets[0]["addresses"]] == ["10.0.0.1", "10.0.0.2"]
    assert "notReadyAddresses" not in subsets[0]
    subsets, _, _ = desired_subsets(service(), [pod("b", "10.0.0.2", deleting=True)])
    assert subsets == []


def test_ports_are_resolved_per_pod_and_repacked_by_the_addresses_serving_them() -> None:
    svc = service(
        ports=[
            {"name": "web", "port": 80, "targetPort": "web", "protocol": "TCP"},
            {"name": "metrics", "port": 9100, "targetPort": 9100, "protocol": "TCP", "appProtocol": "http"},
        ]
    )
    pods = [
        pod("a", "10.0.0.1", ports=[{"name": "web", "containerPort": 8080}]),
        pod("b", "10.0.0.2", ports=[{"name": "web", "containerPort": 8080}]),
        pod("c", "10.0.0.3"),
    ]
    subsets, ready, _ = desired_subsets(svc, pods)
    assert subsets == [
        {
            "addresses": [address("a", "10.0.0.1"), address("b", "10.0.0.2"), address("c", "10.0.0.3")],
            "ports": [{"name": "metrics", "port": 9100, "protocol": "TCP", "appProtocol": "http"}],
        },
        {
            "addresses": [address("a", "10.0.0.1"), address("b", "10.0.0.2")],
            "ports": [{"name": "web", "port": 8080, "protocol": "TCP"}],
        },
    ]
    assert ready == 5


def test_repacking_merges_ports_of_the_same_addresses_and_not_ready_wins() -> None:
    a, b = address("a", "10.0.0.1"), address("b", "10.0.0.2")
    p80, p90 = {"port": 80, "protocol": "TCP"}, {"port": 90, "protocol": "TCP"}
    packed = repack_subsets(
        [
            {"addresses": [a], "ports": [p80]},
            {"addresses": [a, b], "ports": [p90]},
            {"addresses": [b], "ports": [p80]},
            {"notReadyAddresses": [a], "ports": [p90]},
        ]
    )
    assert packed == [
        {"addresses": [a, b], "ports": [p80]},
        {"addresses": [b], "notReadyAddresses": [a], "ports": [p90]},
    ]


def test_a_headless_service_without_ports_publishes_bare_addresses() -> None:
    svc = service(ports=[], cluster_ip="None")
    subsets, _, _ = desired_subsets(svc, [pod("a", "10.0.0.1"), pod("b", "10.0.0.2", ready=False)])
    assert subsets == [{"addresses": [address("a", "10.0.0.1")], "notReadyAddresses": [address("b", "10.0.0.2")]}]
    # a Service with a cluster IP and no ports publishes nothing
    assert desired_subsets(service(ports=[]), [pod("a", "10.0.0.1")])[0] == []


def test_the_hostname_is_published_for_pods_of_the_services_subdomain() -> None:
    subject = pod("a", "10.0.0.1")
    subject["spec"].update(hostname="a-0", subdomain="web")
    subsets, _, _ = desired_subsets(service(), [subject])
    assert subsets[0]["addresses"][0]["hostname"] == "a-0"


def test_an_ipv6_service_takes_the_pods_ipv6_address() -> None:
    dual = pod("a", "10.0.0.1")
    dual["status"]["podIPs"] = [{"ip": "10.0.0.1"}, {"ip": "fd00::1"}]
    subsets, _, _ = desired_subsets(service(cluster_ip="fd00:96::10"), [dual, pod("b", "10.0.0.2")])
    assert [a["ip"] for a in subsets[0]["addresses"]] == ["fd00::1"]


def _many(prefix: str, count: int) -> list[dict[str, Any]]:
    return [{"ip": f"{prefix}.{i // 250}.{i % 250}"} for i in range(count)]


def test_truncation_keeps_ready_addresses_first() -> None:
    subsets = [
        {"addresses": _many("10.1", 600), "notReadyAddresses": _many("10.2", 300)},
        {"addresses": _many("10.3", 300), "notReadyAddresses": _many("10.4", 100)},
    ]
    assert truncate_subsets(subsets)
    assert [len(s["addresses"]) for s in subsets] == [600, 300]
    # the 100 not-ready places left go to each subset by its share: 300/400 and 100/400
    assert [len(s["notReadyAddresses"]) for s in subsets] == [75, 25]


def test_truncation_of_ready_addresses_drops_every_not_ready_one() -> None:
    subsets = [
        {"addresses": _many("10.1", 900), "notReadyAddresses": _many("10.2", 5)},
        {"addresses": _many("10.3", 301)},
    ]
    assert truncate_subsets(subsets)
    # 900/1201 and 301/1201 of 1000, rounded up, the last getting what is left
    assert [len(s["addresses"]) for s in subsets] == [750, 250]
    assert all("notReadyAddresses" not in s for s in subsets)
    assert not truncate_subsets([{"addresses": _many("10.1", 1000)}])


def test_a_new_services_endpoints_are_created_with_its_labels_and_trigger_time() -> None:
    plan = plan_endpoints(service(labels={"tier": "front"}), [pod("a", "10.0.0.1")], None, WHEN)
    assert plan is not None and plan.create
    assert plan.endpoints == {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {
            "name": "web",
            "namespace": "ns",
            "labels": {"tier": "front"},
            "annotations": {TRIGGER_TIME_ANNOTATION: "2026-01-02T03:04:05Z"},
        },
        "subsets": [
            {"addresses": [address("a", "10.0.0.1")], "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}
        ],
    }


def test_nothing_is_written_when_the_endpoints_say_it_all() -> None:
    svc = service(cluster_ip="None")
    first = plan_endpoints(svc, [pod("a", "10.0.0.1")], None, WHEN)
    assert first is not None and first.endpoints["metadata"]["labels"] == {"service.kubernetes.io/headless": ""}
    stored = {**first.endpoints, "metadata": {**first.endpoints["metadata"], "resourceVersion": "5"}}
    # a target's resourceVersion is not a difference
    stored["subsets"][0]["addresses"][0]["targetRef"]["resourceVersion"] = "77"
    assert plan_endpoints(svc, [pod("a", "10.0.0.1")], stored, None) is None
    changed = plan_endpoints(svc, [pod("a", "10.0.0.1", ready=False)], stored, None)
    assert changed is not None and not changed.create
    assert changed.endpoints["metadata"]["resourceVersion"] == "5"
    assert "annotations" not in changed.endpoints["metadata"]  # no new trigger: the annotation goes
    assert "addresses" not in changed.endpoints["subsets"][0]


def test_an_over_capacity_annotation_is_set_and_removed() -> None:
    svc = service()
    pods = [pod(f"p{i}", f"10.0.{i // 250}.{i % 250}") for i in range(1001)]
    plan = plan_endpoints(svc, pods, None, None)
    assert plan is not None
    assert plan.endpoints["metadata"]["annotations"] == {OVER_CAPACITY_ANNOTATION: "truncated"}
    assert len(plan.endpoints["subsets"][0]["addresses"]) == 1000
    stored = {**plan.endpoints, "metadata": {**plan.endpoints["metadata"], "resourceVersion": "9"}}
    back_under = plan_endpoints(svc, pods[:10], stored, None)
    assert back_under is not None and "annotations" not in back_under.endpoints["metadata"]
    # over capacity, the stored object never equals the pods': kube writes it again on every sync
    again = plan_endpoints(svc, pods, stored, None)
    assert again is not None and again.endpoints["metadata"]["annotations"] == {OVER_CAPACITY_ANNOTATION: "truncated"}
