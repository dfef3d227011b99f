"""The Endpoints and EndpointSlice controllers of a whole cluster: a Service selecting pods publishes their
IPs, ready or not, in its EndpointSlice and its Endpoints, with ports named as the Service's and resolved
from the pods' container ports; kubectl shows them as kube's does; selector-less Services and the
API server's own `kubernetes` Endpoints are left alone.

The pods here sit on nodes of the test's own, bound at creation with their status written through
`pods/status`, so what they publish is known exactly whatever kubelets the cluster runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.controllers.endpoints.endpoints_controller import EndpointsController
from kubelite.controllers.endpoints.endpointslice_controller import EndpointSliceController
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import table

NODE = "endpoints-test-node"
ZONE = "zone-a"
MANAGED_BY = "endpointslice-controller.k8s.io"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=2"])
    proc.start()
    created = proc.http(
        "POST",
        "/api/v1/nodes",
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": NODE, "labels": {"topology.kubernetes.io/zone": ZONE}},
        },
    )
    assert created.status == 201, created.body
    yield proc
    proc.stop()


def eventually(check: Callable[[], Any], *, timeout: float = 45.0, what: str = "") -> Any:
    """The first truthy result of `check`, polled quickly."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def namespace(proc: KubeliteProcess, name: str) -> str:
    created = proc.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    assert created.status == 201, created.body
    return name


def service(
    proc: KubeliteProcess, ns: str, name: str, spec: dict[str, Any], labels: dict[str, str] | None = None
) -> Any:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "labels": labels or {}}, "spec": spec}
    created = proc.http("POST", f"/api/v1/namespaces/{ns}/services", body)
    assert created.status == 201, created.body
    return created.json()


def pod(
    proc: KubeliteProcess,
    ns: str,
    name: str,
    ip: str,
    *,
    ready: bool,
    labels: dict[str, str],
    ports: list[Any] | None = None,
) -> Any:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "nodeName": NODE,
            "containers": [{"name": "app", "image": "nginx:1.27", "ports": ports or []}],
        },
    }
    created = proc.http("POST", f"/api/v1/namespaces/{ns}/pods", body)
    assert created.status == 201, created.body
    set_status(proc, ns, name, ip, ready=ready)
    return created.json()


def set_status(proc: KubeliteProcess, ns: str, name: str, ip: str, *, ready: bool) -> None:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    status = "True" if ready else "False"
    patch = {
        "status": {
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "conditions": [
                {"type": "Ready", "status": status, "lastTransitionTime": now},
                {"type": "ContainersReady", "status": status, "lastTransitionTime": now},
            ],
        }
    }
    written = proc.http(
        "PATCH",
        f"/api/v1/namespaces/{ns}/pods/{name}/status",
        json.dumps(patch),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert written.status == 200, written.body


def slices_of(proc: KubeliteProcess, ns: str, service_name: str) -> list[Any]:
    got = proc.http(
        "GET",
        f"/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices?labelSelector=kubernetes.io/service-name={service_name}",
    )
    assert got.status == 200, got.body
    return list(got.json()["items"])


def endpoints_of(proc: KubeliteProcess, ns: str, name: str) -> Any:
    got = proc.http("GET", f"/api/v1/namespaces/{ns}/endpoints/{name}")
    return got.json() if got.status == 200 else None


def addresses(slices: list[Any]) -> list[tuple[str, bool, bool, bool]]:
    found = []
    for slice_ in slices:
        for endpoint in slice_.get("endpoints") or []:
            conditions = endpoint["conditions"]
            found.append(
                (endpoint["addresses"][0], conditions["ready"], conditions["serving"], conditions["terminating"])
            )
    return sorted(found)


def web_service(proc: KubeliteProcess, ns: str) -> Any:
    return service(
        proc,
        ns,
        "web",
        {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
        labels={"tier": "front"},
    )


HTTP_PORT = [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]


def test_a_services_ready_and_not_ready_pods_are_published_in_its_slice_and_endpoints(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-basic")
    svc = web_service(cluster, ns)
    ready = pod(cluster, ns, "web-1", "10.244.7.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    not_ready = pod(cluster, ns, "web-2", "10.244.7.11", ready=False, labels={"app": "web"}, ports=HTTP_PORT)
    pod(cluster, ns, "other", "10.244.7.12", ready=True, labels={"app": "other"}, ports=HTTP_PORT)

    def two_endpoints() -> list[Any]:
        found = slices_of(cluster, ns, "web")
        return found if len(addresses(found)) == 2 else []

    [slice_] = eventually(two_endpoints, what="the slice of web")
    meta = slice_["metadata"]
    assert meta["name"].startswith("web-") and meta["generateName"] == "web-"
    assert meta["labels"] == {
        "tier": "front",
        "kubernetes.io/service-name": "web",
        "endpointslice.kubernetes.io/managed-by": MANAGED_BY,
    }
    assert meta["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "name": "web",
            "uid": svc["metadata"]["uid"],
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["annotations"]["endpoints.kubernetes.io/last-change-trigger-time"]
    )
    assert slice_["addressType"] == "IPv4"
    assert slice_["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert slice_["endpoints"] == [
        {
            "addresses": ["10.244.7.10"],
            "conditions": {"ready": True, "serving": True, "terminating": False},
            "targetRef": {"kind": "Pod", "namespace": ns, "name": "web-1", "uid": ready["metadata"]["uid"]},
            "nodeName": NODE,
            "zone": ZONE,
        },
        {
            "addresses": ["10.244.7.11"],
            "conditions": {"ready": False, "serving": False, "terminating": False},
            "targetRef": {"kind": "Pod", "namespace": ns, "name": "web-2", "uid": not_ready["metadata"]["uid"]},
            "nodeName": NODE,
            "zone": ZONE,
        },
    ]

    endpoints = eventually(lambda: endpoints_of(cluster, ns, "web"), what="the endpoints of web")
    assert endpoints["metadata"]["labels"] == {"tier": "front"}
    # (its last-change-trigger-time may be gone: a sync retried on a stale cache has seen the change, as kube's)
    assert endpoints["subsets"] == [
        {
            "addresses": [
                {
                    "ip": "10.244.7.10",
                    "nodeName": NODE,
                    "targetRef": {"kind": "Pod", "namespace": ns, "name": "web-1", "uid": ready["metadata"]["uid"]},
                }
            ],
            "notReadyAddresses": [
                {
                    "ip": "10.244.7.11",
                    "nodeName": NODE,
                    "targetRef": {"kind": "Pod", "namespace": ns, "name": "web-2", "uid": not_ready["metadata"]["uid"]},
                }
            ],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
        }
    ]

    slices_table = table(cluster.kubectl("get", "endpointslices", "-n", ns).stdout)
    assert slices_table == [
        ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"],
        [meta["name"], "IPv4", "8080", "10.244.7.10,10.244.7.11", "<age>"],
    ]
    endpoints_table = table(cluster.kubectl("get", "endpoints", "-n", ns).stdout)
    assert endpoints_table == [["NAME", "ENDPOINTS", "AGE"], ["web", "10.244.7.10:8080", "<age>"]]
    described = cluster.kubectl("describe", "service", "web", "-n", ns).stdout
    assert re.search(r"^Endpoints:\s+10\.244\.7\.10:8080$", described, re.M), described


def test_readiness_changes_and_deleted_pods_follow(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-changes")
    web_service(cluster, ns)
    pod(cluster, ns, "web-1", "10.244.8.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    pod(cluster, ns, "web-2", "10.244.8.11", ready=False, labels={"app": "web"}, ports=HTTP_PORT)
    eventually(
        lambda: (
            addresses(slices_of(cluster, ns, "web"))
            == [("10.244.8.10", True, True, False), ("10.244.8.11", False, False, False)]
        ),
        what="both pods",
    )

    set_status(cluster, ns, "web-2", "10.244.8.11", ready=True)
    eventually(
        lambda: (
            addresses(slices_of(cluster, ns, "web"))
            == [("10.244.8.10", True, True, False), ("10.244.8.11", True, True, False)]
        ),
        what="web-2 ready in the slice",
    )
    ready_ips = eventually(
        lambda: (
            [a["ip"] for a in (endpoints_of(cluster, ns, "web") or {}).get("subsets", [{}])[0].get("addresses", [])]
            == ["10.244.8.10", "10.244.8.11"]
        ),
        what="web-2 ready in the endpoints",
    )
    assert ready_ips

    deleted = cluster.http("DELETE", f"/api/v1/namespaces/{ns}/pods/web-1?gracePeriodSeconds=0")
    assert deleted.status == 200, deleted.body
    eventually(
        lambda: addresses(slices_of(cluster, ns, "web")) == [("10.244.8.11", True, True, False)],
        what="web-1 gone from the slice",
    )
    subsets = eventually(
        lambda: [
            s
            for s in (endpoints_of(cluster, ns, "web") or {}).get("subsets", [])
            if [a["ip"] for a in s.get("addresses", [])] == ["10.244.8.11"]
        ],
        what="web-1 gone from the endpoints",
    )
    assert len(endpoints_of(cluster, ns, "web")["subsets"]) == 1 and subsets

    relabelled = cluster.http(
        "PATCH",
        f"/api/v1/namespaces/{ns}/pods/web-2",
        json.dumps({"metadata": {"labels": {"app": "elsewhere"}}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert relabelled.status == 200
    [placeholder] = eventually(
        lambda: [s for s in slices_of(cluster, ns, "web") if not s.get("endpoints")], what="the placeholder slice"
    )
    assert placeholder.get("ports") in (None, [])
    eventually(lambda: "subsets" not in (endpoints_of(cluster, ns, "web") or {"subsets": 1}), what="empty endpoints")
    assert table(cluster.kubectl("get", "endpoints", "web", "-n", ns).stdout) == [
        ["NAME", "ENDPOINTS", "AGE"],
        ["web", "<none>", "<age>"],
    ]


def test_ports_are_named_from_the_service_and_resolved_per_pod(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-ports")
    service(
        cluster,
        ns,
        "api",
        {
            "selector": {"app": "api"},
            "ports": [
                {"name": "web", "port": 80, "targetPort": "web"},
                {"name": "metrics", "port": 9100, "targetPort": 9100},
            ],
        },
    )
    pod(
        cluster,
        ns,
        "api-a",
        "10.244.9.10",
        ready=True,
        labels={"app": "api"},
        ports=[{"name": "web", "containerPort": 8080}],
    )
    pod(
        cluster,
        ns,
        "api-b",
        "10.244.9.11",
        ready=True,
        labels={"app": "api"},
        ports=[{"name": "web", "containerPort": 9090}],
    )
    pod(
        cluster,
        ns,
        "api-c",
        "10.244.9.12",
        ready=True,
        labels={"app": "api"},
        ports=[{"name": "other", "containerPort": 7070}],
    )

    def three() -> list[Any]:
        found = slices_of(cluster, ns, "api")
        return found if len(addresses(found)) == 3 else []

    by_ports = {
        json.dumps(sorted((p["name"], p["port"]) for p in s["ports"])): [e["addresses"][0] for e in s["endpoints"]]
        for s in eventually(three, what="the slices of api")
    }
    assert by_ports == {
        json.dumps([["metrics", 9100], ["web", 8080]]): ["10.244.9.10"],
        json.dumps([["metrics", 9100], ["web", 9090]]): ["10.244.9.11"],
        json.dumps([["metrics", 9100]]): ["10.244.9.12"],
    }

    def three_subsets() -> list[Any]:
        found = endpoints_of(cluster, ns, "api") or {}
        return found.get("subsets", []) if len(found.get("subsets", [])) == 3 else []

    subsets = eventually(three_subsets, what="the endpoints of api")
    packed = sorted(
        (sorted((p["name"], p["port"]) for p in s["ports"]), [a["ip"] for a in s["addresses"]]) for s in subsets
    )
    # repacked as kube does: one subset per set of addresses, with every port that set serves
    assert packed == [
        ([("metrics", 9100)], ["10.244.9.10", "10.244.9.11", "10.244.9.12"]),
        ([("web", 8080)], ["10.244.9.10"]),
        ([("web", 9090)], ["10.244.9.11"]),
    ]


def test_publish_not_ready_addresses_and_headless_services(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-headless")
    service(
        cluster,
        ns,
        "db",
        {"clusterIP": "None", "publishNotReadyAddresses": True, "selector": {"app": "db"}, "ports": [{"port": 5432}]},
    )
    pod(cluster, ns, "db-0", "10.244.10.10", ready=False, labels={"app": "db"})
    [slice_] = eventually(
        lambda: [s for s in slices_of(cluster, ns, "db") if s.get("endpoints")], what="the slice of db"
    )
    assert slice_["metadata"]["labels"]["service.kubernetes.io/headless"] == ""
    assert slice_["ports"] == [{"name": "", "port": 5432, "protocol": "TCP"}]
    assert slice_["endpoints"][0]["conditions"] == {"ready": True, "serving": False, "terminating": False}
    endpoints = eventually(lambda: endpoints_of(cluster, ns, "db"), what="the endpoints of db")
    assert endpoints["metadata"]["labels"] == {"service.kubernetes.io/headless": ""}
    assert [a["ip"] for a in endpoints["subsets"][0]["addresses"]] == ["10.244.10.10"]
    assert "notReadyAddresses" not in endpoints["subsets"][0]


def test_services_without_a_selector_and_the_kubernetes_service_are_left_alone(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-manual")
    service(cluster, ns, "external", {"ports": [{"port": 80}]})
    manual = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "external"},
        "subsets": [{"addresses": [{"ip": "192.0.2.1"}], "ports": [{"port": 80, "protocol": "TCP"}]}],
    }
    assert cluster.http("POST", f"/api/v1/namespaces/{ns}/endpoints", manual).status == 201
    # a Service created after selects something, so the controllers have run once the second is published
    web_service(cluster, ns)
    pod(cluster, ns, "web-1", "10.244.11.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    eventually(lambda: addresses(slices_of(cluster, ns, "web")), what="the slice of web")
    eventually(lambda: endpoints_of(cluster, ns, "web"), what="the endpoints of web")
    assert slices_of(cluster, ns, "external") == []
    assert endpoints_of(cluster, ns, "external")["subsets"] == manual["subsets"]

    kubernetes = endpoints_of(cluster, "default", "kubernetes")
    assert kubernetes["metadata"]["labels"] == {"endpointslice.kubernetes.io/skip-mirror": "true"}
    assert kubernetes["subsets"][0]["ports"] == [{"name": "https", "port": cluster.secure_port, "protocol": "TCP"}]
    # the API server's own slice, which no controller manages
    [own] = slices_of(cluster, "default", "kubernetes")
    assert own["metadata"]["name"] == "kubernetes"
    assert own["metadata"]["labels"] == {"kubernetes.io/service-name": "kubernetes"}
    assert own["addressType"] == "IPv4"
    assert own["endpoints"] == [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]
    assert own["ports"] == [{"name": "https", "port": cluster.secure_port, "protocol": "TCP"}]
    described = cluster.kubectl("describe", "service", "kubernetes").stdout
    assert re.search(rf"^Endpoints:\s+127\.0\.0\.1:{cluster.secure_port}$", described, re.M), described


def test_a_deleted_service_takes_its_endpoints_and_slices(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-delete")
    web_service(cluster, ns)
    pod(cluster, ns, "web-1", "10.244.12.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    eventually(lambda: addresses(slices_of(cluster, ns, "web")), what="the slice of web")
    eventually(lambda: endpoints_of(cluster, ns, "web"), what="the endpoints of web")
    assert cluster.http("DELETE", f"/api/v1/namespaces/{ns}/services/web").status == 200
    eventually(lambda: endpoints_of(cluster, ns, "web") is None, what="the endpoints deleted")
    eventually(lambda: slices_of(cluster, ns, "web") == [], what="the slices collected")


def test_a_pod_on_an_unknown_node_is_left_out_with_a_warning_on_the_service(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-nonode")
    web_service(cluster, ns)
    pod(cluster, ns, "web-1", "10.244.13.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "ghost", "labels": {"app": "web"}},
        "spec": {"nodeName": "nowhere", "containers": [{"name": "app", "image": "nginx:1.27", "ports": HTTP_PORT}]},
    }
    assert cluster.http("POST", f"/api/v1/namespaces/{ns}/pods", body).status == 201
    set_status(cluster, ns, "ghost", "10.244.13.11", ready=True)

    def warning() -> list[Any]:
        events = cluster.http("GET", f"/api/v1/namespaces/{ns}/events").json()["items"]
        return [e for e in events if e["reason"] == "FailedToUpdateEndpointSlices"]

    [event] = eventually(warning, what="the warning")[:1]
    assert event["type"] == "Warning"
    assert event["involvedObject"]["kind"] == "Service" and event["involvedObject"]["name"] == "web"
    assert event["source"] == {"component": "endpoint-slice-controller"}
    assert event["message"] == (
        f"Error updating Endpoint Slices for Service {ns}/web: "
        f"skipping Pod ghost for Service {ns}/web: Node nowhere Not Found"
    )
    assert addresses(slices_of(cluster, ns, "web")) == [("10.244.13.10", True, True, False)]
    # the Endpoints controller reads no nodes: both pods are there
    ips = eventually(
        lambda: (
            [
                a["ip"]
                for s in (endpoints_of(cluster, ns, "web") or {}).get("subsets", [])
                for a in s.get("addresses", [])
            ]
            == ["10.244.13.10", "10.244.13.11"]
        ),
        what="both in the endpoints",
    )
    assert ips


def test_pods_scheduled_and_run_by_the_cluster_are_published(cluster: KubeliteProcess) -> None:
    pytest.importorskip("kubelite.cluster.scheduler.component")
    pytest.importorskip("kubelite.cluster.kubelet.kubelet")
    ns = namespace(cluster, "ep-flow")
    web_service(cluster, ns)
    for name in ("run-1", "run-2", "run-3"):
        body = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27", "ports": HTTP_PORT}]},
        }
        assert cluster.http("POST", f"/api/v1/namespaces/{ns}/pods", body).status == 201

    def running() -> list[Any]:
        pods = cluster.http("GET", f"/api/v1/namespaces/{ns}/pods").json()["items"]
        ready = [
            p
            for p in pods
            if p["status"].get("podIP")
            and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
        ]
        return pods if len(ready) == 3 else []

    pods = eventually(running, what="three pods running and ready")
    expected = sorted((p["status"]["podIP"], p["spec"]["nodeName"], p["metadata"]["name"]) for p in pods)
    assert {node for _, node, _ in expected} <= {"kubelite-node-0", "kubelite-node-1"}

    def published() -> list[tuple[str, str, str]]:
        found = sorted(
            (e["addresses"][0], e.get("nodeName", ""), e["targetRef"]["name"])
            for s in slices_of(cluster, ns, "web")
            for e in s.get("endpoints") or []
            if e["conditions"]["ready"]
        )
        return found if found == expected else []

    eventually(published, what="the running pods in the slice")
    eventually(
        lambda: (
            sorted(
                (a["ip"], a["nodeName"], a["targetRef"]["name"])
                for s in (endpoints_of(cluster, ns, "web") or {}).get("subsets", [])
                for a in s.get("addresses", [])
            )
            == expected
        ),
        what="the running pods in the endpoints",
    )


def test_a_deployments_pods_follow_its_scale(cluster: KubeliteProcess) -> None:
    ns = namespace(cluster, "ep-deploy")
    service(
        cluster,
        ns,
        "shop",
        {"selector": {"app": "shop"}, "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
    )
    template = {
        "metadata": {"labels": {"app": "shop"}},
        "spec": {
            "terminationGracePeriodSeconds": 1,
            "containers": [{"name": "app", "image": "nginx:1.27", "ports": HTTP_PORT}],
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "shop"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "shop"}}, "template": template},
    }
    assert cluster.http("POST", f"/apis/apps/v1/namespaces/{ns}/deployments", deployment).status == 201

    def ready_ips() -> list[str]:
        pods = cluster.http("GET", f"/api/v1/namespaces/{ns}/pods").json()["items"]
        return sorted(
            p["status"]["podIP"]
            for p in pods
            if p["status"].get("podIP")
            and not p["metadata"].get("deletionTimestamp")
            and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
        )

    def published() -> list[str]:
        return sorted(a for a, ready, _, _ in addresses(slices_of(cluster, ns, "shop")) if ready)

    def exactly(count: int) -> Callable[[], list[str]]:
        def check() -> list[str]:
            found = ready_ips()
            return found if len(found) == count else []

        return check

    two = eventually(exactly(2), what="two replicas ready")
    eventually(lambda: published() == two, what="both replicas in the slice")
    ports = [s["ports"] for s in slices_of(cluster, ns, "shop")]
    assert ports == [[{"name": "http", "port": 8080, "protocol": "TCP"}]]

    scaled = cluster.http(
        "PATCH",
        f"/apis/apps/v1/namespaces/{ns}/deployments/shop/scale",
        json.dumps({"spec": {"replicas": 1}}),
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert scaled.status == 200, scaled.body
    one = eventually(exactly(1), what="one replica left")
    eventually(lambda: [ip for ip, *_ in addresses(slices_of(cluster, ns, "shop"))] == one, what="the other gone")
    eventually(
        lambda: (
            [
                a["ip"]
                for s in (endpoints_of(cluster, ns, "shop") or {}).get("subsets", [])
                for a in s.get("addresses", [])
            ]
            == one
        ),
        what="the other gone from the endpoints",
    )


# -- the loops in this process, on a clock of the test's ----------------------------------------------------


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    """A cluster whose own Endpoints and EndpointSlice controllers are off: the tests run theirs."""
    off = "--controllers=*,-endpoints-controller,-endpointslice-controller"
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=0", off])
    proc.start()
    yield proc
    proc.stop()


@contextlib.asynccontextmanager
async def in_process(proc: KubeliteProcess, build: Callable[..., Any], clock: FakeClock) -> AsyncIterator[Any]:
    """A controller on a component client of its own, its queue on `clock`, running until the block ends."""
    # the insecure port, as the other in-process component tests: no TLS transports to outlive the loop
    clients = ComponentClient("kube-controller-manager", Config(host=proc.url))
    loop = build(clients, clock=clock)
    clients.start_informers()
    task: asyncio.Task[None] | None = None
    try:
        await clients.informers.wait_for_cache_sync(timeout=30)

        # with its caches and handlers synced before it runs, the controller waits for nothing on `clock`
        async def synced() -> bool:
            return loop.controller.has_synced()

        await until(synced)
        task = asyncio.create_task(loop.run())
        yield loop
    finally:
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        await clients.close()


async def until(check: Callable[[], Awaitable[Any]], timeout: float = 45.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := await check()):
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)
    return result


def test_a_slice_changed_by_someone_else_is_put_back_a_second_later(bare: KubeliteProcess) -> None:
    ns = namespace(bare, "ep-put-back")
    node_created = bare.http(
        "POST", "/api/v1/nodes", {"metadata": {"name": NODE, "labels": {"topology.kubernetes.io/zone": ZONE}}}
    )
    assert node_created.status in (201, 409)
    web_service(bare, ns)
    pod(bare, ns, "web-1", "10.244.20.10", ready=True, labels={"app": "web"}, ports=HTTP_PORT)
    clock = FakeClock()

    async def body() -> None:
        async with in_process(bare, EndpointSliceController, clock) as loop:
            queue = loop.controller.queue

            async def published() -> Any:
                found = await asyncio.to_thread(slices_of, bare, ns, "web")
                return found[0] if found and addresses(found) else None

            slice_ = await until(published)
            emptied = {**slice_, "endpoints": []}
            written = await asyncio.to_thread(
                bare.http,
                "PUT",
                f"/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices/{slice_['metadata']['name']}",
                emptied,
            )
            assert written.status == 200, written.body
            generation = written.json()["metadata"]["generation"]

            async def noticed() -> bool:
                cached = loop.slices.informer.indexer.get_by_key(f"{ns}/{slice_['metadata']['name']}")
                return cached is not None and cached["metadata"]["generation"] == generation and queue.waiting() >= 1

            await until(noticed)
            await asyncio.sleep(0.3)
            assert addresses(await asyncio.to_thread(slices_of, bare, ns, "web")) == []  # not before its second
            clock.step(1.0)
            restored = await until(published)
            # its own write may be seen before the controller knows its generation (as in kube): the sync it then
            # queues writes nothing
            clock.step(1.0)
            await asyncio.sleep(0.3)
            assert (queue.waiting(), len(queue)) == (0, 0)
            again = await asyncio.to_thread(slices_of, bare, ns, "web")
            assert [s["metadata"]["resourceVersion"] for s in again] == [restored["metadata"]["resourceVersion"]]

    asyncio.run(asyncio.wait_for(body(), 90))


def test_a_failed_sync_is_retried_after_its_backoff(bare: KubeliteProcess) -> None:
    ns = namespace(bare, "ep-backoff")
    service(bare, ns, "late", {"selector": {"app": "late"}, "ports": [{"port": 80}]})
    body_ = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "late-1", "labels": {"app": "late"}},
        "spec": {"nodeName": "late-node", "containers": [{"name": "app", "image": "nginx:1.27"}]},
    }
    assert bare.http("POST", f"/api/v1/namespaces/{ns}/pods", body_).status == 201
    set_status(bare, ns, "late-1", "10.244.21.10", ready=True)
    clock = FakeClock()

    async def body() -> None:
        async with in_process(bare, EndpointSliceController, clock) as loop:
            queue = loop.controller.queue

            async def failed_once() -> bool:
                # (the slices of other namespaces' Services, listed at start, queue those a second later too)
                return queue.num_requeues(f"{ns}/late") == 1

            await until(failed_once)
            found = await asyncio.to_thread(slices_of, bare, ns, "late")
            assert [s.get("endpoints") for s in found] == [[]]  # the placeholder, the pod left out
            created = await asyncio.to_thread(bare.http, "POST", "/api/v1/nodes", {"metadata": {"name": "late-node"}})
            assert created.status == 201
            await until(lambda: asyncio.sleep(0, loop.nodes.informer.indexer.get_by_key("late-node")))
            clock.step(0.9)
            await asyncio.sleep(0.3)
            assert addresses(await asyncio.to_thread(slices_of, bare, ns, "late")) == []
            clock.step(0.1)  # the first retry comes 1 s after the failure

            async def published() -> list[Any]:
                return addresses(await asyncio.to_thread(slices_of, bare, ns, "late"))

            assert await until(published) == [("10.244.21.10", True, True, False)]

    asyncio.run(asyncio.wait_for(body(), 90))


def test_endpoints_left_without_their_service_are_deleted_at_start(bare: KubeliteProcess) -> None:
    ns = namespace(bare, "ep-leftover")
    for name, marks in (("orphan", {}), ("lock", {"control-plane.alpha.kubernetes.io/leader": "{}"})):
        body_ = {
            "metadata": {"name": name, "annotations": marks},
            "subsets": [{"addresses": [{"ip": "192.0.2.9"}], "ports": [{"port": 1}]}],
        }
        assert bare.http("POST", f"/api/v1/namespaces/{ns}/endpoints", body_).status == 201

    async def body() -> None:
        async with in_process(bare, EndpointsController, FakeClock()):

            async def orphan_gone() -> bool:
                return (await asyncio.to_thread(endpoints_of, bare, ns, "orphan")) is None

            await until(orphan_gone)
        assert endpoints_of(bare, ns, "lock") is not None  # a leader-election lock has no Service

    asyncio.run(asyncio.wait_for(body(), 90))
