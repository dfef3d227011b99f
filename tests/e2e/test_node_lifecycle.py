"""The node lifecycle and taint eviction controllers, run here on a FakeClock against a real kubelite whose
own copies of them are switched off: a node whose Lease goes unrenewed turns Unknown and tainted, its pods
not Ready and then evicted after their tolerationSeconds; the node's return lifts the taints."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.client.errors import NotFound
from kubelite.cluster.kubelet.lease import build_lease, micro_time
from kubelite.controllers.nodelifecycle.controller import NodeLifecycleController
from kubelite.controllers.nodelifecycle.health import stamp
from kubelite.controllers.nodelifecycle.taint_eviction import TaintEvictionController
from tests.e2e.server import KubeliteProcess

DISABLED = "--controllers=*,-node-lifecycle-controller,-taint-eviction-controller"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(
        Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=0", "--scheduler=false", DISABLED]
    )
    proc.start()
    yield proc
    proc.stop()


def run(body: Callable[[], Any]) -> None:
    with asyncio.Runner() as runner:
        runner.run(asyncio.wait_for(body(), 120))


class Cluster:
    """The controllers under test, their clock, and the hand-made nodes' kubelet side."""

    def __init__(self, clients: ComponentClient, clock: FakeClock) -> None:
        self.clients = clients
        self.clock = clock
        self.nodes = clients.resource("", "v1", "nodes")
        self.pods = clients.resource("", "v1", "pods").namespace("default")
        self.leases = clients.resource("coordination.k8s.io", "v1", "leases").namespace("kube-node-lease")
        self.events = clients.resource("", "v1", "events")
        self.lifecycle = NodeLifecycleController(clients)
        self.eviction = TaintEvictionController(clients)
        self.passes = 0
        monitor = self.lifecycle.monitor

        async def counted() -> None:
            await monitor()
            self.passes += 1

        self.lifecycle.monitor = counted  # type: ignore[method-assign]

    async def until(self, check: Callable[[], Any], *, step: float = 0.0, what: str = "") -> Any:
        """Poll `check` (sync or async) until truthy, stepping the fake clock by `step` between polls."""
        deadline = time.monotonic() + 45
        while True:
            got = check()
            if asyncio.iscoroutine(got):
                got = await got
            if got:
                return got
            assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
            if step:
                self.clock.step(step)
            await asyncio.sleep(0.02)

    async def add_node(self, name: str, **labels: str) -> dict[str, Any]:
        body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
        node = await self.nodes.create(body)
        await self.post_ready(name)
        await self.leases.create(build_lease(name, datetime.now(UTC)))
        return node

    async def post_ready(self, name: str) -> None:
        node = await self.nodes.get(name)
        at = stamp(time.time())
        ready = {"type": "Ready", "status": "True", "reason": "KubeletReady"}
        ready |= {"message": "kubelet is posting ready status", "lastHeartbeatTime": at, "lastTransitionTime": at}
        node["status"] = {"conditions": [ready]}
        await self.nodes.update_status(node)

    async def renew(self, name: str) -> None:
        lease = await self.leases.get(name)
        lease["spec"]["renewTime"] = micro_time(datetime.now(UTC))
        written = await self.leases.update(lease)
        key = f"kube-node-lease/{name}"
        await self.until(
            lambda: (self.lifecycle.leases.informer.indexer.get_by_key(key) or {}).get("metadata", {}).get(
                "resourceVersion"
            )
            == written["metadata"]["resourceVersion"],
            what=f"the informer to see lease {name}",
        )

    async def advance(self, seconds: float, *, alive: tuple[str, ...]) -> None:
        """Step the clock by `seconds` with the `alive` nodes' Leases renewed first, and wait for the monitor
        pass this wakes, if it reaches the next one (they are `monitor_period` apart)."""
        for name in alive:
            await self.renew(name)
        before = self.passes
        self.clock.step(seconds)
        if seconds >= self.lifecycle.monitor_period:
            await self.until(lambda: self.passes > before, what="a monitor pass")
        else:
            await asyncio.sleep(0.2)

    async def pod(self, name: str, node: str, **spec: Any) -> dict[str, Any]:
        body = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}], **spec},
        }
        created = await self.pods.create(body)
        created["status"]["conditions"] = [
            {"type": "Ready", "status": "True", "lastTransitionTime": stamp(time.time())}
        ]
        return await self.pods.update_status(created)

    async def exists(self, name: str) -> dict[str, Any] | None:
        try:
            return await self.pods.get(name)
        except NotFound:
            return None

    async def events_of(self, kind: str, name: str) -> list[tuple[str, str, str, str]]:
        listed = await self.events.list()
        return [
            (e["type"], e["reason"], e["message"], e["source"].get("component", ""))
            for e in sorted(listed["items"], key=lambda e: int(e["metadata"]["resourceVersion"]))
            if e["involvedObject"].get("kind") == kind and e["involvedObject"].get("name") == name
        ]


@asynccontextmanager
async def running(server: KubeliteProcess) -> AsyncIterator[Cluster]:
    clock = FakeClock(wall_offset=time.time() - 1_000.0)
    clients = ComponentClient("kube-controller-manager", Config(host=server.url), clock=clock)
    cluster = Cluster(clients, clock)
    clients.start_informers()
    tasks = [asyncio.create_task(cluster.lifecycle.run()), asyncio.create_task(cluster.eviction.run())]
    try:
        # the caches' sync is polled on the fake clock: step it until the first monitor pass has run
        await cluster.until(lambda: cluster.passes > 0, step=0.1, what="the caches to sync")
        yield cluster
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await clients.close()


def taints_of(node: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((t["key"], t["effect"], t.get("timeAdded", "")) for t in (node.get("spec") or {}).get("taints") or ())


def test_a_silent_node_goes_unknown_is_tainted_its_pods_evicted_and_it_comes_back(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with running(server) as c:
            await c.add_node("lost-node")
            await c.add_node("healthy-node")
            # the other node keeps the zone from looking fully disrupted, where kube stops tainting altogether
            web = await c.pod("web", "lost-node", terminationGracePeriodSeconds=0)
            await c.pods.patch("web", {"metadata": {"finalizers": ["example.com/hold"]}})
            short = [{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                      "tolerationSeconds": 60}]  # fmt: skip
            await c.pod("short", "lost-node", terminationGracePeriodSeconds=0, tolerations=short)
            forever = [{"operator": "Exists"}]
            await c.pod("forever", "lost-node", terminationGracePeriodSeconds=0, tolerations=forever)
            assert [t["tolerationSeconds"] for t in web["spec"]["tolerations"]] == [300, 300]
            await c.advance(5, alive=("healthy-node",))  # every node seen healthy, with its Lease

            # 40 s of silence is not yet too long; past it the node is Unknown
            for _ in range(8):
                await c.advance(5, alive=("healthy-node",))
            assert (await c.nodes.get("lost-node"))["status"]["conditions"][0]["status"] == "True"
            await c.advance(5, alive=("healthy-node",))
            unknown_at = stamp(c.clock.now())
            lost = await c.nodes.get("lost-node")
            conditions = {cond["type"]: cond for cond in lost["status"]["conditions"]}
            ready = conditions["Ready"]
            assert (ready["status"], ready["reason"], ready["message"], ready["lastTransitionTime"]) == (
                "Unknown",
                "NodeStatusUnknown",
                "Kubelet stopped posting node status.",
                unknown_at,
            )
            assert {kind: (cond["status"], cond["reason"], cond["message"]) for kind, cond in conditions.items()} == {
                "Ready": ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."),
                "MemoryPressure": ("Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status."),
                "DiskPressure": ("Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status."),
                "PIDPressure": ("Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status."),
            }
            healthy = await c.nodes.get("healthy-node")
            assert healthy["status"]["conditions"][0]["status"] == "True"
            for name in ("web", "short", "forever"):
                pod = await c.pods.get(name)
                ready_pod = next(x for x in pod["status"]["conditions"] if x["type"] == "Ready")
                assert (ready_pod["status"], ready_pod["lastTransitionTime"]) == ("False", unknown_at), name

            # the NoSchedule taint follows the condition at once; the NoExecute one at the next pass
            await c.until(
                lambda: _has_taint(c, "lost-node", "node.kubernetes.io/unreachable", "NoSchedule"), what="NoSchedule"
            )
            await c.advance(5, alive=("healthy-node",))
            await c.until(
                lambda: _has_taint(c, "lost-node", "node.kubernetes.io/unreachable", "NoExecute"),
                step=0.1,
                what="the NoExecute taint",
            )
            tainted_at = c.clock.monotonic()
            lost = await c.nodes.get("lost-node")
            assert [(k, e) for k, e, _ in taints_of(lost)] == [
                ("node.kubernetes.io/unreachable", "NoExecute"),
                ("node.kubernetes.io/unreachable", "NoSchedule"),
            ]
            no_execute_added, no_schedule_added = (added for _, _, added in taints_of(lost))
            # the NoSchedule one came with the Unknown condition; the NoExecute one a pass (5 s) later
            assert no_schedule_added == unknown_at
            assert no_execute_added >= stamp(c.clock.now() - 0.5) and no_execute_added > no_schedule_added
            assert taints_of(healthy) == []
            await c.until(lambda: "default/short" in c.eviction.evictions, what="the evictions to be scheduled")

            # tolerated for 60 s: still there just before, deleted just after
            await c.advance(tainted_at + 59.5 - c.clock.monotonic(), alive=("healthy-node",))
            assert await c.exists("short") is not None
            await c.advance(1, alive=("healthy-node",))
            await c.until(lambda: _gone(c, "short"), what="short's eviction")
            assert await c.exists("web") is not None

            # the default 300 s: its eviction marks the pod a disruption target, then deletes it
            while c.clock.monotonic() + 20 < tainted_at + 299.5:
                await c.advance(20, alive=("healthy-node",))
            await c.advance(tainted_at + 299.5 - c.clock.monotonic(), alive=("healthy-node",))
            assert "deletionTimestamp" not in (await c.pods.get("web"))["metadata"]
            await c.advance(1, alive=("healthy-node",))
            evicted = await c.until(lambda: _terminating(c, "web"), what="web's eviction")
            target = next(x for x in evicted["status"]["conditions"] if x["type"] == "DisruptionTarget")
            assert (target["status"], target["reason"], target["message"]) == (
                "True",
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            )
            assert await c.exists("forever") is not None

            # the kubelet is back: Lease renewed, Ready posted; the taints go
            await c.post_ready("lost-node")
            await c.advance(5, alive=("healthy-node", "lost-node"))
            await c.until(lambda: _no_taints(c, "lost-node"), what="the taints to go")

            events = await c.events_of("Node", "lost-node")
            assert events == [
                ("Normal", "RegisteredNode", "Node lost-node event: Registered Node lost-node in Controller",
                 "node-controller"),
                ("Normal", "NodeNotReady", "Node lost-node status is now: NodeNotReady", "node-controller"),
            ]  # fmt: skip
            assert await c.events_of("Pod", "short") == [
                ("Warning", "NodeNotReady", "Node is not ready", "node-controller"),
                ("Normal", "TaintManagerEviction", "Marking for deletion Pod default/short",
                 "taint-eviction-controller"),
                ("Normal", "TaintManagerEviction", "Cancelling deletion of Pod default/short",
                 "taint-eviction-controller"),
            ]  # fmt: skip
            await c.until(lambda: _events_count(c, "web", 3), what="web's events")
            assert await c.events_of("Pod", "web") == [
                ("Warning", "NodeNotReady", "Node is not ready", "node-controller"),
                ("Normal", "TaintManagerEviction", "Marking for deletion Pod default/web", "taint-eviction-controller"),
                ("Normal", "TaintManagerEviction", "Cancelling deletion of Pod default/web",
                 "taint-eviction-controller"),
            ]  # fmt: skip
            assert await c.events_of("Pod", "forever") == [
                ("Warning", "NodeNotReady", "Node is not ready", "node-controller")
            ]
            await c.pods.patch("web", {"metadata": {"finalizers": None}})

    run(body)


def test_cordoned_nodes_and_untolerated_taints(server: KubeliteProcess) -> None:
    async def body() -> None:
        async with running(server) as c:
            await c.add_node("cordoned-node")
            await c.pod("plain", "cordoned-node", terminationGracePeriodSeconds=0)
            node = await c.nodes.patch("cordoned-node", {"spec": {"unschedulable": True}})
            await c.until(
                lambda: _has_taint(c, "cordoned-node", "node.kubernetes.io/unschedulable", "NoSchedule"),
                what="the unschedulable taint",
            )
            cordoned = await c.nodes.get("cordoned-node")
            assert taints_of(cordoned)[0][:2] == ("node.kubernetes.io/unschedulable", "NoSchedule")
            # a NoExecute taint the pod does not tolerate: evicted at once
            taints = [*cordoned["spec"]["taints"], {"key": "example.com/dedicated", "effect": "NoExecute"}]
            await c.nodes.patch("cordoned-node", {"spec": {"taints": taints}})
            await c.until(lambda: _gone(c, "plain"), what="the untolerating pod's eviction")
            await c.nodes.patch("cordoned-node", {"spec": {"unschedulable": None}})
            await c.until(
                lambda: _only_taint(c, "cordoned-node", "example.com/dedicated"), what="the unschedulable taint to go"
            )
            assert node["spec"]["unschedulable"] is True

    run(body)


async def _has_taint(c: Cluster, node: str, key: str, effect: str) -> bool:
    found = await c.nodes.get(node)
    return any(t["key"] == key and t["effect"] == effect for t in (found.get("spec") or {}).get("taints") or ())


async def _no_taints(c: Cluster, node: str) -> bool:
    return not ((await c.nodes.get(node)).get("spec") or {}).get("taints")


async def _only_taint(c: Cluster, node: str, key: str) -> bool:
    return [t["key"] for t in ((await c.nodes.get(node)).get("spec") or {}).get("taints") or ()] == [key]


async def _gone(c: Cluster, name: str) -> bool:
    return await c.exists(name) is None


async def _terminating(c: Cluster, name: str) -> dict[str, Any] | None:
    pod = await c.exists(name)
    return pod if pod is not None and pod["metadata"].get("deletionTimestamp") else None


async def _events_count(c: Cluster, name: str, count: int) -> bool:
    return len(await c.events_of("Pod", name)) >= count
