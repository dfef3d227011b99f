"""The resource metrics API and the HorizontalPodAutoscaler on a simulated cluster: `kubectl top pod/node` from
the usage annotations, `kubectl autoscale` scaling a Deployment up, `kubectl get/describe hpa`; and, on a
FakeClock in this process (a server with the autoscaler off), the 300 s scale-down stabilization and a metric
type kubelite cannot serve."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kubelite.apimachinery.quantity import parse_quantity
from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.controllers.podautoscaler.controller import HorizontalController
from tests.e2e.server import KubeliteProcess

DEADLINE = 60.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(tmp_path_factory.mktemp("hpa"), cluster=True, extra_args=["--nodes=1"]).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    """A cluster whose autoscaler the test runs itself."""
    proc = KubeliteProcess(
        tmp_path_factory.mktemp("hpa-manual"),
        cluster=True,
        extra_args=["--nodes=1", "--controllers=*,-horizontal-pod-autoscaler-controller"],
    ).start()
    yield proc
    proc.stop()


def _poll(check: Callable[[], Any], what: str, deadline: float = DEADLINE) -> Any:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def _deployment(proc: KubeliteProcess, name: str, namespace: str, replicas: int, cpu_usage: str) -> None:
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}, "annotations": {"sim.kubelite.io/cpu-usage": cpu_usage}},
                "spec": {"containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m"}}}]},
            },
        },
    }
    proc.kubectl("apply", "-f", "-", input=json.dumps(manifest))


def _ready_pods(proc: KubeliteProcess, namespace: str, app: str) -> list[dict[str, Any]]:
    pods = json.loads(proc.kubectl("get", "pods", "-n", namespace, "-l", f"app={app}", "-o", "json").stdout)["items"]
    return [
        p
        for p in pods
        if any(c["type"] == "Ready" and c["status"] == "True" for c in p.get("status", {}).get("conditions", []))
    ]


# -- the resource metrics API ------------------------------------------------------------------------------


def test_kubectl_top_pod_and_node(cluster: KubeliteProcess) -> None:
    cluster.kubectl("create", "namespace", "top")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "busy",
            "namespace": "top",
            "labels": {"tier": "busy"},
            "annotations": {"sim.kubelite.io/cpu-usage": "250m", "sim.kubelite.io/memory-usage": "64Mi"},
        },
        "spec": {"containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "nginx"}]},
    }
    idle = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "idle", "namespace": "top"},
        "spec": {"containers": [{"name": "a", "image": "nginx"}]},
    }
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod, idle]}))
    _poll(
        lambda: cluster.http("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/top/pods").json()["items"].__len__() == 2,
        "both pods' metrics",
    )
    top = cluster.kubectl("top", "pod", "-n", "top").stdout
    # kubectl sorts nothing by default: the API's (name) order
    assert _rows(top) == [["NAME", "CPU(cores)", "MEMORY(bytes)"], ["busy", "500m", "128Mi"], ["idle", "1m", "1Mi"]]
    containers = cluster.kubectl("top", "pod", "busy", "-n", "top", "--containers").stdout
    assert _rows(containers) == [
        ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"],
        ["busy", "a", "250m", "64Mi"],
        ["busy", "b", "250m", "64Mi"],
    ]
    selected = cluster.kubectl("top", "pod", "-n", "top", "-l", "tier=busy").stdout
    assert _rows(selected)[1:] == [["busy", "500m", "128Mi"]]

    metrics = cluster.http("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/top/pods/busy").json()
    assert (metrics["kind"], metrics["apiVersion"], metrics["window"]) == ("PodMetrics", "metrics.k8s.io/v1beta1", "1s")
    assert metrics["metadata"]["labels"] == {"tier": "busy"}
    assert metrics["containers"] == [
        {"name": "a", "usage": {"cpu": "250000000n", "memory": "65536Ki"}},
        {"name": "b", "usage": {"cpu": "250000000n", "memory": "65536Ki"}},
    ]
    missing = cluster.http("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/top/pods/nope")
    assert missing.status == 404
    assert missing.json()["message"] == 'podmetrics.metrics.k8s.io "top/nope" not found'
    assert cluster.http("GET", "/apis/metrics.k8s.io/v1beta1/nodes/nope").json()["message"] == (
        'nodemetrics.metrics.k8s.io "nope" not found'
    )

    # the node's usage is its running pods' (only these two run on it now)
    node = json.loads(cluster.kubectl("get", "node", "kubelite-node-0", "-o", "json").stdout)
    allocatable = node["status"]["allocatable"]
    cpu_pct = 501 * 100 // parse_quantity(allocatable["cpu"]).milli_value()
    memory_pct = 129 * (1 << 20) * 100 // parse_quantity(allocatable["memory"]).int_value()
    assert _rows(cluster.kubectl("top", "node").stdout) == [
        ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"],
        ["kubelite-node-0", "501m", f"{cpu_pct}%", "129Mi", f"{memory_pct}%"],
    ]
    discovery = cluster.http("GET", "/apis/metrics.k8s.io/v1beta1").json()
    assert [(r["name"], r["kind"], r["namespaced"], r["verbs"]) for r in discovery["resources"]] == [
        ("nodes", "NodeMetrics", False, ["get", "list"]),
        ("pods", "PodMetrics", True, ["get", "list"]),
    ]
    cluster.kubectl("delete", "namespace", "top", "--wait=false")


# -- kubectl autoscale, the controller in the server ---------------------------------------------------------


def test_kubectl_autoscale_scales_up(cluster: KubeliteProcess) -> None:
    _deployment(cluster, "web", "default", 1, "160m")
    _poll(lambda: _ready_pods(cluster, "default", "web"), "the pod ready")
    # one window of usage after readiness, so the first sync counts the pod
    time.sleep(1.5)
    cluster.kubectl("autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5")

    def replicas() -> int:
        return int(cluster.kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").stdout)

    # 160% of request on 1 pod at a 50% target: ceil(3.2) = 4, within the doubling (or 4) of one step
    _poll(lambda: replicas() == 4, "the deployment scaled to 4")
    hpa = _poll(
        lambda: (
            (h := json.loads(cluster.kubectl("get", "hpa", "web", "-o", "json").stdout))
            .get("status", {})
            .get("desiredReplicas")
            == 4
            and h
        ),
        "the autoscaler's status",
    )
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["status"]["currentMetrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "current": {"averageValue": "160m", "averageUtilization": 160}},
        }
    ]
    assert hpa["status"]["currentReplicas"] == 1
    assert "lastScaleTime" in hpa["status"]
    table = _rows(cluster.kubectl("get", "hpa").stdout)
    assert table[0] == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]
    assert table[1][:7] == ["web", "Deployment/web", "cpu:", "160%/50%", "1", "5", "1"]

    described = cluster.kubectl("describe", "hpa", "web").stdout
    assert re.search(r"resource cpu on pods\s+\(as a percentage of request\):\s+160% \(160m\) / 50%", described)
    assert re.search(r"Deployment pods:\s+1 current / 4 desired", described)
    conditions = described.split("Conditions:\n", 1)[1].split("Events:", 1)[0]
    assert [" ".join(row) for row in _rows(conditions)[2:]] == [
        "AbleToScale True SucceededRescale the HPA controller was able to update the target scale to 4",
        "ScalingActive True ValidMetricFound the HPA was able to successfully calculate a replica count from "
        "cpu resource utilization (percentage of request)",
        "ScalingLimited False DesiredWithinRange the desired count is within the acceptable range",
    ]
    assert re.search(
        r"Normal\s+SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+"
        r"New size: 4; reason: cpu resource utilization \(percentage of request\) above target",
        described,
    )
    cluster.kubectl("delete", "hpa", "web")
    cluster.kubectl("delete", "deployment", "web")


# -- the controller in this process, on a FakeClock ------------------------------------------------------------


def _hpa(name: str, metrics: list[dict[str, Any]], *, min_replicas: int = 1, max_replicas: int = 5) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": min_replicas,
            "maxReplicas": max_replicas,
            "metrics": metrics,
        },
    }


CPU_50 = [
    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
]


def _run_controller(proc: KubeliteProcess, scenario: Callable[[FakeClock, ComponentClient], Any]) -> None:
    async def main() -> None:
        clock = FakeClock(wall_offset=time.time() - 1_000.0)
        clients = ComponentClient("kube-controller-manager", Config(host=proc.url), clock=clock)
        controller = HorizontalController(clients)
        clients.start_informers()
        task = asyncio.create_task(controller.run())
        try:
            await scenario(clock, clients)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await clients.close()

    asyncio.run(main())


async def _until(check: Callable[[], Any], what: str, clock: FakeClock | None = None) -> Any:
    """Poll `check`; with `clock`, nudge it on (0.1 s a poll): the controller's wait for its caches polls on it."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        found = await check()
        if found:
            return found
        if clock is not None:
            clock.step(0.1)
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _condition(hpa: dict[str, Any], kind: str) -> tuple[str, str, str] | None:
    for c in hpa.get("status", {}).get("conditions", []):
        if c["type"] == kind:
            return c["status"], c["reason"], c["message"]
    return None


def test_scale_down_waits_for_the_stabilization_window(manual: KubeliteProcess) -> None:
    _deployment(manual, "api", "default", 4, "10m")
    _poll(lambda: len(_ready_pods(manual, "default", "api")) == 4, "4 ready pods")
    time.sleep(1.5)
    manual.kubectl("apply", "-f", "-", input=json.dumps(_hpa("api", CPU_50)))

    async def scenario(clock: FakeClock, clients: ComponentClient) -> None:
        hpas = clients.resource("autoscaling", "v2", "horizontalpodautoscalers").namespace("default")
        deployments = clients.resource("apps", "v1", "deployments").namespace("default")

        async def stabilized() -> Any:
            hpa = await hpas.get("api")
            return (
                _condition(hpa, "AbleToScale")
                == (
                    "True",
                    "ScaleDownStabilized",
                    "recent recommendations were higher than current one, applying the highest recent recommendation",
                )
                and hpa
            )

        hpa = await _until(stabilized, "the scale-down held back", clock)
        # 10% against 50% on 4 pods wants 1, but the window still holds the first recommendation (4)
        assert (hpa["status"]["currentReplicas"], hpa["status"]["desiredReplicas"]) == (4, 4)
        assert hpa["status"]["currentMetrics"][0]["resource"]["current"] == {
            "averageValue": "10m",
            "averageUtilization": 10,
        }
        assert "lastScaleTime" not in hpa["status"]
        assert (await deployments.get("api"))["spec"]["replicas"] == 4
        # every sync period (15 s) it decides again; only past the 300 s window does 1 win
        clock.step(15)
        await asyncio.sleep(0.5)
        assert (await deployments.get("api"))["spec"]["replicas"] == 4
        clock.step(290)

        async def scaled() -> bool:
            return (await deployments.get("api"))["spec"]["replicas"] == 1

        await _until(scaled, "the scale-down")
        hpa = await _until(lambda: _status_with(hpas, "api", "desiredReplicas", 1), "the status after the scale-down")
        assert _condition(hpa, "AbleToScale") == (
            "True",
            "SucceededRescale",
            "the HPA controller was able to update the target scale to 1",
        )
        assert _condition(hpa, "ScalingLimited") == (
            "False",
            "DesiredWithinRange",
            "the desired count is within the acceptable range",
        )

    _run_controller(manual, scenario)
    events = _poll(
        lambda: [
            e
            for e in json.loads(
                manual.kubectl(
                    "get",
                    "events",
                    "--field-selector=involvedObject.name=api,involvedObject.kind=HorizontalPodAutoscaler",
                    "-o",
                    "json",
                ).stdout
            )["items"]
            if e["reason"] == "SuccessfulRescale"
        ],
        "the rescale event",
    )
    assert [(e["type"], e["message"], e["source"]["component"]) for e in events] == [
        ("Normal", "New size: 1; reason: All metrics below target", "horizontal-pod-autoscaler")
    ]
    manual.kubectl("delete", "hpa", "api")
    manual.kubectl("delete", "deployment", "api")


async def _status_with(hpas: Any, name: str, field: str, value: Any) -> Any:
    hpa = await hpas.get(name)
    return hpa.get("status", {}).get(field) == value and hpa


def test_unsupported_metric_type_makes_scaling_inactive(manual: KubeliteProcess) -> None:
    _deployment(manual, "queue", "default", 1, "10m")
    _poll(lambda: _ready_pods(manual, "default", "queue"), "the pod ready")
    pods_metric = [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "requests_per_second"},
                "target": {"type": "AverageValue", "averageValue": "10"},
            },
        }
    ]
    manual.kubectl("apply", "-f", "-", input=json.dumps(_hpa("queue", pods_metric)))

    async def scenario(clock: FakeClock, clients: ComponentClient) -> None:
        hpas = clients.resource("autoscaling", "v2", "horizontalpodautoscalers").namespace("default")

        async def inactive() -> Any:
            hpa = await hpas.get("queue")
            return _condition(hpa, "ScalingActive") and hpa

        hpa = await _until(inactive, "ScalingActive", clock)
        assert _condition(hpa, "ScalingActive") == (
            "False",
            "FailedGetPodsMetric",
            "the HPA was unable to compute the replica count: unable to get metric requests_per_second: unable to "
            "fetch metrics from custom metrics API: the server could not find the requested resource "
            "(get pods.custom.metrics.k8s.io)",
        )
        assert _condition(hpa, "AbleToScale") == (
            "True",
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
        )
        assert hpa["status"]["currentReplicas"] == 1
        assert hpa["status"]["currentMetrics"] == [{"type": ""}]

    _run_controller(manual, scenario)
    printed = _rows(manual.kubectl("get", "hpa", "queue").stdout)[1]
    assert printed[:5] == ["queue", "Deployment/queue", "<unknown>/10", "1", "5"]
    manual.kubectl("delete", "hpa", "queue")
    manual.kubectl("delete", "deployment", "queue")
