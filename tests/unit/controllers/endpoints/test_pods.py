"""What both controllers read off pods and Services: ports, membership, which Services a change concerns,
and the last-change trigger time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kubelite.controllers.endpoints.pods import (
    TriggerTimeTracker,
    find_port,
    format_trigger_time,
    is_managed,
    services_to_update_on_pod_change,
    should_pod_be_in_endpoints,
)
from tests.unit.controllers.endpoints.fixtures import pod, service

NAMED = [{"name": "http", "containerPort": 8080}, {"name": "dns", "containerPort": 53, "protocol": "UDP"}]


@pytest.mark.parametrize(
    ("service_port", "expected"),
    [
        ({"port": 80, "targetPort": 9000}, 9000),
        ({"port": 80}, 80),  # targetPort defaults to the port
        ({"port": 80, "targetPort": "http"}, 8080),
        ({"port": 80, "targetPort": "http", "protocol": "UDP"}, None),  # a named port of another protocol
        ({"port": 53, "targetPort": "dns", "protocol": "UDP"}, 53),
        ({"port": 80, "targetPort": "missing"}, None),
    ],
)
def test_find_port(service_port: dict[str, Any], expected: int | None) -> None:
    assert find_port(pod("p", "10.0.0.1", ports=NAMED), service_port) == expected


def test_find_port_looks_into_sidecars_only() -> None:
    subject = pod("p", "10.0.0.1")
    subject["spec"]["initContainers"] = [
        {"name": "init", "ports": [{"name": "admin", "containerPort": 7000}]},
        {"name": "proxy", "restartPolicy": "Always", "ports": [{"name": "proxy", "containerPort": 15001}]},
    ]
    assert find_port(subject, {"port": 80, "targetPort": "proxy"}) == 15001
    assert find_port(subject, {"port": 80, "targetPort": "admin"}) is None


def test_which_pods_are_published() -> None:
    assert should_pod_be_in_endpoints(pod("p", "10.0.0.1"), False)
    assert not should_pod_be_in_endpoints(pod("p", None), True)
    assert not should_pod_be_in_endpoints(pod("p", "10.0.0.1", phase="Succeeded"), True)
    assert not should_pod_be_in_endpoints(pod("p", "10.0.0.1", phase="Failed"), True)
    assert not should_pod_be_in_endpoints(pod("p", "10.0.0.1", deleting=True), False)
    assert should_pod_be_in_endpoints(pod("p", "10.0.0.1", deleting=True), True)
    only_pod_ip = pod("p", None)
    only_pod_ip["status"]["podIP"] = "10.0.0.9"
    assert should_pod_be_in_endpoints(only_pod_ip, False)


def test_services_without_a_selector_or_of_type_external_name_are_not_managed() -> None:
    assert is_managed(service())
    assert not is_managed(service(selector={}))
    bare = service()
    del bare["spec"]["selector"]
    assert not is_managed(bare)
    assert not is_managed(service(type="ExternalName"))


def test_services_a_pod_change_concerns() -> None:
    services = [service("web", selector={"app": "web"}), service("all", selector={"tier": "x"}), service("api")]
    old = pod("p", "10.0.0.1", labels={"app": "web"}, resource_version="1")
    assert services_to_update_on_pod_change(services, old, old) == set()  # a resync
    touched = pod("p", "10.0.0.1", labels={"app": "web"}, resource_version="2")
    touched["metadata"]["annotations"] = {"a": "b"}
    assert services_to_update_on_pod_change(services, old, touched) == set()
    unready = pod("p", "10.0.0.1", labels={"app": "web"}, ready=False, resource_version="2")
    assert services_to_update_on_pod_change(services, old, unready) == {"ns/web"}
    moved = pod("p", "10.0.0.1", labels={"app": "api"}, resource_version="2")
    assert services_to_update_on_pod_change(services, old, moved) == {"ns/web", "ns/api"}
    joined = pod("p", "10.0.0.1", labels={"app": "web", "tier": "x"}, resource_version="2")
    assert services_to_update_on_pod_change(services, old, joined) == {"ns/all"}  # web is unchanged for it
    joined_and_unready = pod("p", "10.0.0.1", labels={"app": "web", "tier": "x"}, ready=False, resource_version="2")
    assert services_to_update_on_pod_change(services, old, joined_and_unready) == {"ns/all", "ns/web"}


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_trigger_time_is_the_services_creation_first_then_the_earliest_unseen_change() -> None:
    tracker = TriggerTimeTracker()
    web = service()
    first = pod("a", "10.0.0.1", ready_at="2026-01-02T03:05:00Z")
    assert tracker.compute(web, [first]) == at("2026-01-02T03:04:05Z")
    assert tracker.compute(web, [first]) is None  # nothing new
    second = pod("b", "10.0.0.2", ready_at="2026-01-02T03:07:00Z")
    flipped = pod("a", "10.0.0.1", ready=False, ready_at="2026-01-02T03:06:00Z")
    assert tracker.compute(web, [flipped, second]) == at("2026-01-02T03:06:00Z")
    assert tracker.compute(web, [flipped, second]) is None
    tracker.delete_service("ns", "web")
    assert tracker.compute(web, [flipped, second]) == at("2026-01-02T03:04:05Z")


def test_trigger_time_format_is_gos_rfc3339_nano() -> None:
    assert format_trigger_time(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05Z"
    assert format_trigger_time(datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)) == "2026-01-02T03:04:05.12Z"
