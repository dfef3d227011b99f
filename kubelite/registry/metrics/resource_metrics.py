"""metrics.k8s.io/v1beta1 `pods` and `nodes` (metrics-server's PodMetrics and NodeMetrics), read-only.

On a real cluster metrics-server scrapes every kubelet and serves the samples through an aggregated APIService.
kubelite's kubelets are simulated and their usage is a rule on the pod (an annotation), so the samples are
computed on each request from the stored pods: no scrape loop, no state, and nothing on any other path. The
rule comes from the simulation (`usage`), which the server hands in, so this layer does not import the cluster.

As metrics-server does: a pod with no running container has no sample (a get answers 404
`podmetrics.metrics.k8s.io "<namespace>/<name>" not found`, a list leaves it out); a list's label selector
selects the pods or nodes; a node's usage is the sum of the running pods bound to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from kubelite.apimachinery.cached import expanded
from kubelite.apimachinery.errors import GroupResource, StatusError, not_found
from kubelite.apimachinery.meta import Obj
from kubelite.registry.options import ListParams
from kubelite.registry.spec import ResourceSpec
from kubelite.util.clock import Clock

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"
#: the span a sample's rate covers: the simulated usage is a constant rate, so one second is exact and keeps the
#: autoscaler's "one window since the pod turned ready" rule short
WINDOW = "1s"

POD_METRICS = ResourceSpec(GROUP, VERSION, "pods", "PodMetrics", "", True, verbs=("get", "list"))
NODE_METRICS = ResourceSpec(GROUP, VERSION, "nodes", "NodeMetrics", "", False, verbs=("get", "list"))


class ContainerSample(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def cpu_nanocores(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...


UsageRule = Callable[[Obj], Sequence[ContainerSample]]


class _Reader(Protocol):
    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj: ...
    async def list(self, namespace: str, params: ListParams) -> Obj: ...


def cpu_quantity(nanocores: int) -> str:
    """metrics-server prints CPU in nanocores."""
    return f"{nanocores}n"


def memory_quantity(size: int) -> str:
    """metrics-server prints memory in Ki when it divides evenly, else in bytes."""
    return f"{size // 1024}Ki" if size % 1024 == 0 else str(size)


def _usage(cpu: int, memory: int) -> dict[str, str]:
    return {"cpu": cpu_quantity(cpu), "memory": memory_quantity(memory)}


def _timestamp(now: datetime) -> str:
    return now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _metadata(obj: Obj, now: datetime) -> Obj:
    meta = obj.get("metadata") or {}
    out: Obj = {"name": meta.get("name", "")}
    if meta.get("namespace"):
        out["namespace"] = meta["namespace"]
    out["creationTimestamp"] = _timestamp(now)
    if meta.get("labels"):
        out["labels"] = dict(meta["labels"])
    return out


def _not_found(resource: str, name: str) -> StatusError:
    """metrics-server's answer for an object it has no sample of, whether the object exists or not."""
    return not_found(GroupResource(GROUP, resource), name)


async def _get_or_none(reader: _Reader, namespace: str, name: str) -> Obj | None:
    try:
        return await reader.get(namespace, name, shared=True)
    except StatusError as exc:
        if exc.code == 404:
            return None
        raise


class PodMetricsStorage:
    """metrics.k8s.io/v1beta1 pods (kube's Getter and Lister only: discovery lists get and list)."""

    def __init__(self, pods: _Reader, usage: UsageRule, clock: Clock) -> None:
        self._pods, self._usage, self._clock = pods, usage, clock

    def _metrics(self, pod: Obj, now: datetime) -> Obj | None:
        samples = self._usage(expanded(pod))
        if not samples:
            return None
        return {
            "kind": "PodMetrics",
            "apiVersion": API_VERSION,
            "metadata": _metadata(pod, now),
            "timestamp": _timestamp(now),
            "window": WINDOW,
            "containers": [{"name": s.name, "usage": _usage(s.cpu_nanocores, s.memory_bytes)} for s in samples],
        }

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj:
        pod = await _get_or_none(self._pods, namespace, name)
        found = None if pod is None else self._metrics(pod, self._clock.now())
        if found is None:
            raise _not_found("podmetrics", f"{namespace}/{name}")
        return found

    async def list(self, namespace: str, params: ListParams) -> Obj:
        pods = await self._pods.list(
            namespace, ListParams(label_selector=params.label_selector, field_selector=params.field_selector)
        )
        now = self._clock.now()
        items = [m for pod in pods["items"] if (m := self._metrics(pod, now)) is not None]
        return {"kind": "PodMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


class NodeMetricsStorage:
    """metrics.k8s.io/v1beta1 nodes: each Ready node's usage, the sum of its running pods'."""

    def __init__(self, nodes: _Reader, pods: _Reader, usage: UsageRule, clock: Clock) -> None:
        self._nodes, self._pods, self._usage, self._clock = nodes, pods, usage, clock

    async def _usage_by_node(self) -> dict[str, tuple[int, int]]:
        totals: dict[str, tuple[int, int]] = {}
        for pod in (await self._pods.list("", ListParams()))["items"]:
            node = (pod.get("spec") or {}).get("nodeName")
            if not node:
                continue
            cpu, memory = totals.get(node, (0, 0))
            for sample in self._usage(expanded(pod)):
                cpu, memory = cpu + sample.cpu_nanocores, memory + sample.memory_bytes
            totals[node] = (cpu, memory)
        return totals

    def _metrics(self, node: Obj, totals: dict[str, tuple[int, int]], now: datetime) -> Obj | None:
        if not _ready(node):
            return None
        cpu, memory = totals.get(node["metadata"]["name"], (0, 0))
        return {
            "kind": "NodeMetrics",
            "apiVersion": API_VERSION,
            "metadata": _metadata(node, now),
            "timestamp": _timestamp(now),
            "window": WINDOW,
            "usage": _usage(cpu, memory),
        }

    async def get(self, namespace: str, name: str, *, shared: bool = False) -> Obj:
        node = await _get_or_none(self._nodes, "", name)
        found = None if node is None else self._metrics(node, await self._usage_by_node(), self._clock.now())
        if found is None:
            raise _not_found("nodemetrics", name)
        return found

    async def list(self, namespace: str, params: ListParams) -> Obj:
        nodes = await self._nodes.list(
            "", ListParams(label_selector=params.label_selector, field_selector=params.field_selector)
        )
        totals, now = await self._usage_by_node(), self._clock.now()
        items = [m for node in nodes["items"] if (m := self._metrics(node, totals, now)) is not None]
        return {"kind": "NodeMetricsList", "apiVersion": API_VERSION, "metadata": {}, "items": items}


def _ready(node: Any) -> bool:
    conditions = (expanded(node).get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
