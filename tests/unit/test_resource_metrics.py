"""The simulated containers' usage and metrics.k8s.io's PodMetrics/NodeMetrics built from it."""

from __future__ import annotations

import asyncio

import pytest

from kubelite.apimachinery.errors import GroupResource, StatusError, not_found
from kubelite.apimachinery.selectors import parse_label_selector
from kubelite.cluster.kubelet.simulation import ContainerUsage, container_usage
from kubelite.registry.metrics.resource_metrics import NodeMetricsStorage, PodMetricsStorage
from kubelite.registry.options import ListParams
from kubelite.util.clock import FakeClock


def _pod(name: str, *, annotations: dict | None = None, running: bool = True, labels: dict | None = None) -> dict:
    state = {"running": {}} if running else {"waiting": {"reason": "ContainerCreating"}}
    return {
        "metadata": {"name": name, "namespace": "default", "annotations": annotations or {}, "labels": labels or {}},
        "spec": {"nodeName": "n1", "containers": [{"name": "a"}, {"name": "b"}]},
        "status": {"containerStatuses": [{"name": "a", "state": state}, {"name": "b", "state": {"running": {}}}]},
    }


def test_usage_defaults_and_annotations() -> None:
    assert container_usage(_pod("p")) == [
        ContainerUsage("a", 1_000_000, 1 << 20),
        ContainerUsage("b", 1_000_000, 1 << 20),
    ]
    busy = _pod("p", annotations={"sim.kubelite.io/cpu-usage": "1.5", "sim.kubelite.io/memory-usage": "64Mi"})
    assert container_usage(busy)[0] == ContainerUsage("a", 1_500_000_000, 64 << 20)
    bad = _pod("p", annotations={"sim.kubelite.io/cpu-usage": "lots", "sim.kubelite.io/memory-usage": "-1Mi"})
    assert container_usage(bad)[0] == ContainerUsage("a", 1_000_000, 1 << 20)
    # only running containers have a sample
    assert [u.name for u in container_usage(_pod("p", running=False))] == ["b"]


class _Reader:
    def __init__(self, objects: list[dict]) -> None:
        self.objects = {o["metadata"]["name"]: o for o in objects}

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> dict:
        if name not in self.objects:
            raise not_found(GroupResource("", "pods"), name)
        return self.objects[name]

    async def list(self, namespace: str, params: ListParams) -> dict:
        selector = params.label_selector
        items = [
            o for o in self.objects.values() if selector is None or selector.matches(o["metadata"].get("labels") or {})
        ]
        return {"items": items}


def test_pod_and_node_metrics() -> None:
    clock = FakeClock()
    pods = _Reader([_pod("web", labels={"app": "web"}), _pod("db", annotations={"sim.kubelite.io/cpu-usage": "100m"})])
    node = {
        "metadata": {"name": "n1", "labels": {"zone": "a"}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }
    storage = PodMetricsStorage(pods, container_usage, clock)
    listed = asyncio.run(storage.list("default", ListParams(label_selector=parse_label_selector("app=web"))))
    assert listed["kind"] == "PodMetricsList"
    [web] = listed["items"]
    assert web["metadata"]["labels"] == {"app": "web"}
    assert web["containers"] == [
        {"name": "a", "usage": {"cpu": "1000000n", "memory": "1024Ki"}},
        {"name": "b", "usage": {"cpu": "1000000n", "memory": "1024Ki"}},
    ]
    with pytest.raises(StatusError) as missing:
        asyncio.run(storage.get("default", "nope"))
    assert (missing.value.code, missing.value.message) == (404, 'podmetrics.metrics.k8s.io "default/nope" not found')
    nodes = NodeMetricsStorage(_Reader([node]), pods, container_usage, clock)
    metrics = asyncio.run(nodes.get("", "n1"))
    assert (metrics["kind"], metrics["usage"]) == ("NodeMetrics", {"cpu": "202000000n", "memory": "4096Ki"})
