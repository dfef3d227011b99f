"""The simulated kubelets on a real kubelite cluster (two nodes, no scheduler: the tests bind pods by hand),
seen through kubectl and raw HTTP: Nodes and Leases, pods through their lifecycle, events, graceful deletion,
crash loops, Job pods, and a restart that keeps every pod's address. One kubelet also runs in the test
process on a FakeClock, for what takes minutes on a real one (lease renewals, node status reports)."""

from __future__ import annotations

import asyncio
import ipaddress
import re
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.client.errors import NotFound
from kubelite.cluster.kubelet import identity
from kubelite.cluster.kubelet.kubelet import Kubelet
from kubelite.cluster.kubelet.node import NodeConfig
from kubelite.controllers.catalog import known_names
from tests.e2e.server import KubeliteProcess

T = TypeVar("T")

NODES = {"kubelite-node-0": ("172.18.0.2", "10.244.0.0/24"), "kubelite-node-1": ("172.18.0.3", "10.244.1.0/24")}
IMAGE = "nginx:1.27"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(
        Path(tmp_path_factory.mktemp("kubelet")), cluster=True, extra_args=["--nodes=2", "--scheduler=false"]
    ).start()
    try:
        _wait(lambda: _ready_nodes(proc) == sorted(NODES) or None, "both nodes Ready")
        yield proc
    finally:
        proc.stop()


def _wait(check: Callable[[], T | None], what: str, *, deadline: float = 45.0) -> T:
    """The first answer of `check` that is something: not None, False or an empty list (0 counts)."""
    end = time.monotonic() + deadline
    while True:
        found = check()
        if found is not None and found is not False and found != []:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _ready_nodes(proc: KubeliteProcess) -> list[str]:
    result = proc.http("GET", "/api/v1/nodes")
    if result.status != 200:
        return []
    ready = []
    for node in result.json()["items"]:
        conditions = {c["type"]: c["status"] for c in (node.get("status") or {}).get("conditions") or []}
        if conditions.get("Ready") == "True":
            ready.append(node["metadata"]["name"])
    return sorted(ready)


def _get(proc: KubeliteProcess, path: str) -> dict[str, Any] | None:
    result = proc.http("GET", path)
    if result.status == 404:
        return None
    assert result.status == 200, result.body
    return dict(result.json())


def _pod(proc: KubeliteProcess, name: str, namespace: str = "default") -> dict[str, Any] | None:
    return _get(proc, f"/api/v1/namespaces/{namespace}/pods/{name}")


def _create_pod(
    proc: KubeliteProcess,
    name: str,
    *,
    node: str,
    annotations: dict[str, str] | None = None,
    restart_policy: str = "Always",
    owner: dict[str, Any] | None = None,
    grace: int | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations:
        metadata["annotations"] = annotations
    if owner:
        metadata["ownerReferences"] = [owner]
    spec: dict[str, Any] = {
        "containers": [{"name": "app", "image": IMAGE}],
        "restartPolicy": restart_policy,
        "automountServiceAccountToken": False,
    }
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    created = proc.http("POST", "/api/v1/namespaces/default/pods", {"apiVersion": "v1", "kind": "Pod",
                                                                     "metadata": metadata, "spec": spec})
    assert created.status == 201, created.body
    _bind(proc, name, node)
    return dict(created.json())


def _bind(proc: KubeliteProcess, name: str, node: str) -> None:
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
               "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
    result = proc.http("POST", f"/api/v1/namespaces/default/pods/{name}/binding", binding)
    assert result.status == 201, result.body


def _phase(proc: KubeliteProcess, name: str, phase: str) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        pod = _pod(proc, name)
        return pod if pod and (pod.get("status") or {}).get("phase") == phase else None

    return _wait(check, f"pod {name} {phase}")


def _events(proc: KubeliteProcess, name: str, namespace: str = "default") -> list[dict[str, Any]]:
    found = _get(proc, f"/api/v1/namespaces/{namespace}/events?fieldSelector=involvedObject.name%3D{name}")
    assert found is not None
    return sorted(found["items"], key=lambda e: (e["firstTimestamp"], e["metadata"]["name"]))


def _events_with(proc: KubeliteProcess, name: str, reason: str) -> list[dict[str, Any]]:
    """The pod's events once one has `reason`: the kubelet writes its events beside its status, not before."""
    return _wait(lambda: (found := _events(proc, name)) and any(e["reason"] == reason for e in found) and found,
                 f"a {reason} event about {name}")


def _describe_events(proc: KubeliteProcess, *target: str) -> list[list[str]]:
    """The Events table of `kubectl describe`: each row as (Type, Reason, From, Message), the age dropped."""
    text = proc.kubectl("describe", *target).stdout
    rows = text.split("\nEvents:\n", 1)[1].splitlines()[2:]
    parsed = []
    for row in rows:
        if not row.startswith("  "):
            break
        kind, reason, _age, source, message = row.split(None, 4)
        parsed.append([kind, reason, source, message])
    return parsed


def _columns(text: str) -> list[dict[str, str]]:
    """kubectl's table output, cut at the header's column starts (values may hold spaces)."""
    lines = text.splitlines()
    header = lines[0]
    found = list(re.finditer(r"\S+(?: \S+)*", header))
    names = [match.group() for match in found]
    starts = [match.start() for match in found]
    rows = []
    for line in lines[1:]:
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
        rows.append(dict(zip(names, cells, strict=True)))
    return rows


# -- nodes and leases ------------------------------------------------------------------------------------------


def test_nodes_registered_ready_with_kubes_conditions_and_node_info(cluster: KubeliteProcess) -> None:
    rows = _columns(cluster.kubectl("get", "nodes", "-o", "wide").stdout)
    assert [{k: v for k, v in row.items() if k != "AGE"} for row in rows] == [
        {"NAME": name, "STATUS": "Ready", "ROLES": "<none>", "VERSION": "v1.36.0", "INTERNAL-IP": ip,
         "EXTERNAL-IP": "<none>", "OS-IMAGE": "Debian GNU/Linux 12 (bookworm)", "KERNEL-VERSION": "6.8.0-kubelite",
         "CONTAINER-RUNTIME": "containerd://2.1.4"}
        for name, (ip, _cidr) in NODES.items()
    ]
    node = _get(cluster, "/api/v1/nodes/kubelite-node-1")
    assert node is not None
    assert node["spec"] == {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]}
    assert node["metadata"]["labels"] == {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": "kubelite-node-1", "kubernetes.io/os": "linux",
    }
    status = node["status"]
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    assert status["addresses"] == [
        {"type": "InternalIP", "address": "172.18.0.3"}, {"type": "Hostname", "address": "kubelite-node-1"},
    ]
    assert status["capacity"] == status["allocatable"] == {
        "cpu": "8", "ephemeral-storage": "100Gi", "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": "32Gi",
        "pods": "110",
    }
    assert status["nodeInfo"] == {
        "machineID": identity.machine_id("kubelite-node-1"),
        "systemUUID": identity.system_uuid("kubelite-node-1"),
        "bootID": identity.boot_id("kubelite-node-1"),
        "kernelVersion": "6.8.0-kubelite",
        "osImage": "Debian GNU/Linux 12 (bookworm)",
        "containerRuntimeVersion": "containerd://2.1.4",
        "kubeletVersion": "v1.36.0",
        "kubeProxyVersion": "",
        "operatingSystem": "linux",
        "architecture": "amd64",
    }
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    _events_with(cluster, "kubelite-node-1", "NodeReady")
    _events_with(cluster, "kubelite-node-1", "RegisteredNode")
    described = _describe_events(cluster, "node", "kubelite-node-1")
    # the node lifecycle controller registers the node at its own pace: its one event may come anywhere
    assert [row for row in described if row[2] == "node-controller"] == [
        ["Normal", "RegisteredNode", "node-controller",
         "Node kubelite-node-1 event: Registered Node kubelite-node-1 in Controller"],
    ]
    assert [row for row in described if row[2] != "node-controller"] == [
        ["Normal", "Starting", "kubelet", "Starting kubelet."],
        ["Normal", "NodeHasSufficientMemory", "kubelet", "Node kubelite-node-1 status is now: NodeHasSufficientMemory"],
        ["Normal", "NodeHasNoDiskPressure", "kubelet", "Node kubelite-node-1 status is now: NodeHasNoDiskPressure"],
        ["Normal", "NodeHasSufficientPID", "kubelet", "Node kubelite-node-1 status is now: NodeHasSufficientPID"],
        ["Normal", "NodeAllocatableEnforced", "kubelet", "Updated Node Allocatable limit across pods"],
        ["Normal", "NodeReady", "kubelet", "Node kubelite-node-1 status is now: NodeReady"],
    ]


def test_node_lease_owned_by_the_node_and_renewed(cluster: KubeliteProcess) -> None:
    node = _get(cluster, "/api/v1/nodes/kubelite-node-0")
    path = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kubelite-node-0"
    lease = _get(cluster, path)
    assert node is not None and lease is not None
    assert lease["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Node", "name": "kubelite-node-0", "uid": node["metadata"]["uid"]}
    ]
    assert lease["spec"]["holderIdentity"] == "kubelite-node-0"
    assert lease["spec"]["leaseDurationSeconds"] == 40
    first = lease["spec"]["renewTime"]

    def renewed() -> str | None:
        again = _get(cluster, path)
        return again["spec"]["renewTime"] if again and again["spec"]["renewTime"] != first else None

    # every 10 s
    later = _wait(renewed, "the lease to be renewed", deadline=30)
    assert later > first


# -- pods ------------------------------------------------------------------------------------------------------


def test_bound_pod_runs_with_the_kubelets_status_and_events(cluster: KubeliteProcess) -> None:
    created = _create_pod(cluster, "web", node="kubelite-node-1")
    uid = created["metadata"]["uid"]
    pod = _wait(
        lambda: (p := _pod(cluster, "web")) and p["status"].get("containerStatuses", [{}])[0].get("ready") and p,
        "web ready",
    )
    status = pod["status"]
    # the first pod of node 1 gets the first address after the gateway
    assert status["podIP"] == "10.244.1.2"
    assert ipaddress.ip_address(status["podIP"]) in ipaddress.ip_network(NODES["kubelite-node-1"][1])
    assert status["podIPs"] == [{"ip": "10.244.1.2"}]
    assert status["hostIP"] == "172.18.0.3"
    assert status["hostIPs"] == [{"ip": "172.18.0.3"}]
    assert status["phase"] == "Running"
    assert status["qosClass"] == "BestEffort"
    started_at = status["containerStatuses"][0]["state"]["running"]["startedAt"]
    assert status["containerStatuses"] == [{
        "name": "app",
        "state": {"running": {"startedAt": started_at}},
        "lastState": {},
        "ready": True,
        "restartCount": 0,
        "image": "docker.io/library/nginx:1.27",
        "imageID": identity.image_id(IMAGE),
        "containerID": identity.container_id(uid, "app", 0),
        "started": True,
    }]
    assert [(c["type"], c["status"]) for c in status["conditions"]] == [
        ("PodReadyToStartContainers", "True"), ("Initialized", "True"), ("Ready", "True"),
        ("ContainersReady", "True"), ("PodScheduled", "True"),
    ]
    assert status["startTime"] <= started_at
    events = _events_with(cluster, "web", "Started")
    assert [(e["reason"], e["involvedObject"].get("fieldPath"), e["source"]) for e in events] == [
        (reason, "spec.containers{app}", {"component": "kubelet", "host": "kubelite-node-1"})
        for reason in ("Pulling", "Pulled", "Created", "Started")
    ]
    assert {e["reportingComponent"] for e in events} == {"kubelet"}
    assert {e["reportingInstance"] for e in events} == {"kubelite-node-1"}
    size = identity.image_size(IMAGE)
    assert _describe_events(cluster, "pod", "web") == [
        ["Normal", "Pulling", "kubelet", 'spec.containers{app}: Pulling image "nginx:1.27"'],
        ["Normal", "Pulled", "kubelet", 'spec.containers{app}: Successfully pulled image "nginx:1.27" in 0s '
         f"(0s including waiting). Image size: {size} bytes."],
        ["Normal", "Created", "kubelet", "spec.containers{app}: Created container: app"],
        ["Normal", "Started", "kubelet", "spec.containers{app}: Started container app"],
    ]
    row = _columns(cluster.kubectl("get", "pod", "web", "-o", "wide").stdout)[0]
    assert (row["READY"], row["STATUS"], row["RESTARTS"], row["IP"], row["NODE"]) == (
        "1/1", "Running", "0", "10.244.1.2", "kubelite-node-1"
    )


def test_kubectl_delete_returns_promptly(cluster: KubeliteProcess) -> None:
    _create_pod(cluster, "short", node="kubelite-node-0")
    _phase(cluster, "short", "Running")
    began = time.monotonic()
    # kubectl waits until the pod is gone: the kubelet stops it and deletes it at once
    result = cluster.kubectl("delete", "pod", "short")
    assert result.stdout == 'pod "short" deleted from default namespace\n'
    assert time.monotonic() - began < 10
    assert _pod(cluster, "short") is None
    killing = _events_with(cluster, "short", "Killing")[-1]
    assert (killing["reason"], killing["message"]) == ("Killing", "Stopping container app")


def test_containers_ignoring_sigterm_hold_the_pod_for_its_grace_period(cluster: KubeliteProcess) -> None:
    _create_pod(cluster, "stubborn", node="kubelite-node-0", grace=3,
                annotations={"sim.kubelite.io/ignore-sigterm": "true"})
    _phase(cluster, "stubborn", "Running")
    began = time.monotonic()
    cluster.kubectl("delete", "pod", "stubborn", "--wait=false")
    def asked_to_stop() -> dict[str, Any] | None:
        pod = _pod(cluster, "stubborn")
        return pod if pod and any(e["reason"] == "Killing" for e in _events(cluster, "stubborn")) else None

    terminating = _wait(asked_to_stop, "the kubelet asking the container to stop")
    assert "running" in terminating["status"]["containerStatuses"][0]["state"]
    assert terminating["metadata"]["deletionGracePeriodSeconds"] == 3
    _wait(lambda: _pod(cluster, "stubborn") is None, "stubborn gone")
    # not before the grace period is over: its deletionTimestamp (whole seconds, so up to 1 s short of 3 s)
    assert time.time() >= _seconds(terminating["metadata"]["deletionTimestamp"])
    assert time.monotonic() - began >= 2


def test_crash_looping_pod_backs_off(cluster: KubeliteProcess) -> None:
    created = _create_pod(cluster, "crash", node="kubelite-node-0", annotations={"sim.kubelite.io/crash-loop": "true"})
    uid = created["metadata"]["uid"]

    def backing_off() -> dict[str, Any] | None:
        pod = _pod(cluster, "crash")
        statuses = (pod or {}).get("status", {}).get("containerStatuses") or [{}]
        waiting = statuses[0].get("state", {}).get("waiting") or {}
        return pod if waiting.get("reason") == "CrashLoopBackOff" else None

    pod = backing_off() or _wait(backing_off, "CrashLoopBackOff")
    container = pod["status"]["containerStatuses"][0]
    assert container["state"] == {"waiting": {
        "reason": "CrashLoopBackOff",
        "message": f"back-off 10s restarting failed container=app pod=crash_default({uid})",
    }}
    assert container["restartCount"] == 1
    assert container["ready"] is False and container["started"] is False
    last = container["lastState"]["terminated"]
    assert (last["exitCode"], last["reason"], last["containerID"]) == (1, "Error", identity.container_id(uid, "app", 1))
    assert pod["status"]["phase"] == "Running"
    ready = next(c for c in pod["status"]["conditions"] if c["type"] == "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False", "ContainersNotReady", "containers with unready status: [app]"
    )
    row = _columns(cluster.kubectl("get", "pod", "crash").stdout)[0]
    assert (row["READY"], row["STATUS"]) == ("0/1", "CrashLoopBackOff")
    assert row["RESTARTS"].startswith("1 (") and row["RESTARTS"].endswith(" ago)")
    back_off = [e for e in _events_with(cluster, "crash", "BackOff") if e["reason"] == "BackOff"]
    assert [(e["type"], e["message"], e["count"]) for e in back_off] == [
        ("Warning", f"Back-off restarting failed container app in pod crash_default({uid})", 1)
    ]
    started = [e for e in _events(cluster, "crash") if e["reason"] == "Started"]
    # the same event twice is one Event counted twice
    assert [(e["message"], e["count"]) for e in started] == [("Started container app", 2)]


def test_job_owned_pod_completes(cluster: KubeliteProcess) -> None:
    job_manifest = {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "namespace": "default"},
        "spec": {"template": {"spec": {
            "restartPolicy": "Never", "automountServiceAccountToken": False,
            "containers": [{"name": "app", "image": IMAGE}],
        }}},
    }
    created = cluster.http("POST", "/apis/batch/v1/namespaces/default/jobs", job_manifest)
    assert created.status == 201, created.body
    job = created.json()
    if "job-controller" in known_names()[0]:
        # the Job controller makes the pod; this test schedules it
        pods = _wait(
            lambda: (_get(cluster, "/api/v1/namespaces/default/pods?labelSelector=job-name%3Donce") or {}).get("items")
            or None,
            "the Job's pod",
        )
        name = pods[0]["metadata"]["name"]
        _bind(cluster, name, "kubelite-node-1")
    else:
        name = "once-by-hand"
        _create_pod(cluster, name, node="kubelite-node-1", restart_policy="Never", owner={
            "apiVersion": "batch/v1", "kind": "Job", "name": "once", "uid": job["metadata"]["uid"],
            "controller": True, "blockOwnerDeletion": True,
        })
    pod = _phase(cluster, name, "Succeeded")
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (terminated["exitCode"], terminated["reason"]) == (0, "Completed")
    # a Job's container runs one simulated second
    assert terminated["finishedAt"] > terminated["startedAt"]
    conditions = {c["type"]: (c["status"], c.get("reason")) for c in pod["status"]["conditions"]}
    assert conditions == {
        "PodReadyToStartContainers": ("False", None), "Initialized": ("True", "PodCompleted"),
        "Ready": ("False", "PodCompleted"), "ContainersReady": ("False", "PodCompleted"),
        "PodScheduled": ("True", None),
    }
    # the completed pod keeps its address in its status, but the node has it back
    assert ipaddress.ip_address(pod["status"]["podIP"]) in ipaddress.ip_network("10.244.1.0/24")


# -- a kubelet on a FakeClock, in this process -------------------------------------------------------------


def test_lease_renewals_and_status_reports_on_the_kubelets_clock(cluster: KubeliteProcess) -> None:
    async def scenario() -> None:
        clock = FakeClock(wall_offset=time.time() - 1_000.0)
        clients = ComponentClient("kubelet", Config(host=cluster.url), clock=clock)
        node = NodeConfig(name="clocked", node_ip="172.18.9.9", pod_cidr="10.250.0.0/24")
        start = clock.now()
        task = asyncio.create_task(Kubelet(clients, node).run())
        leases = clients.resource("coordination.k8s.io", "v1", "leases").namespace("kube-node-lease")
        nodes = clients.resource("", "v1", "nodes")

        async def renew_time() -> float | None:
            try:
                lease = await leases.get("clocked")
            except NotFound:
                return None
            return _seconds(lease["spec"]["renewTime"])

        async def heartbeat() -> str:
            return str((await nodes.get("clocked"))["status"]["conditions"][3]["lastHeartbeatTime"])

        async def until(check: Callable[[], Any], what: str, *, tick: float = 0.0) -> Any:
            end = time.monotonic() + 30
            while time.monotonic() < end:
                found = await check()
                if found:
                    return found
                # the kubelet's waits for its caches poll on its clock
                clock.step(tick)
                await asyncio.sleep(0.02)
            raise AssertionError(f"timed out waiting for {what}")

        try:
            created = await until(renew_time, "the lease", tick=0.1)
            registered = await heartbeat()
            assert registered == _rfc3339(start)
            # nothing moves while the clock does not, and the renewal waits its 10 s
            clock.step(created + 9.9 - clock.now())
            await asyncio.sleep(0.3)
            assert await renew_time() == created
            clock.step(0.11)

            async def renewed() -> float | None:
                when = await renew_time()
                return when if when is not None and when > created else None

            # (the creation's reply may have come a few polls after its renewTime: the 10 s count from it)
            at = await until(renewed, "the renewal", tick=0.05)
            assert created + 10 <= at <= clock.now() + 1e-5
            # the node status is computed every 10 s but posted only every 5 minutes: the lease is the heartbeat
            last = at
            while clock.now() < start + 290:
                clock.step(10)

                async def next_renewal(previous: float = last) -> float | None:
                    when = await renew_time()
                    return when if when is not None and when > previous else None

                last = await until(next_renewal, "a renewal")
                assert last == pytest.approx(clock.now(), abs=1e-5)
            assert await heartbeat() == registered
            clock.step(start + 300.01 - clock.now())

            async def reported() -> str | None:
                beat = await heartbeat()
                if beat != registered:
                    return beat
                clock.step(1)
                return None

            beat = await until(reported, "the node status report")
            assert _rfc3339(start + 300) <= beat <= _rfc3339(start + 320)
            ready = (await nodes.get("clocked"))["status"]["conditions"][3]
            assert (ready["status"], ready["lastTransitionTime"]) == ("True", registered)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await clients.close()

    asyncio.run(scenario())
    cluster.http("DELETE", "/api/v1/nodes/clocked")


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _rfc3339(seconds: float) -> str:
    return _utc(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- a restart (last: it restarts the module's server) ---------------------------------------------------------


def test_restart_keeps_pod_addresses_and_history(cluster: KubeliteProcess) -> None:
    _create_pod(cluster, "keeper", node="kubelite-node-1")
    before = _wait(
        lambda: (p := _pod(cluster, "keeper")) and p["status"].get("containerStatuses", [{}])[0].get("ready") and p,
        "keeper ready",
    )
    # (what the kubelet had not yet written of its events is lost with it, as a real kubelet's are)
    _wait(lambda: len(_events(cluster, "keeper")) == 4, "keeper's events")
    cluster.restart()
    _wait(lambda: _ready_nodes(cluster) == sorted(NODES) or None, "both nodes Ready again")
    on_node = _get(cluster, "/api/v1/pods?fieldSelector=spec.nodeName%3Dkubelite-node-1")
    assert on_node is not None
    held = {
        p["status"].get("podIP") for p in on_node["items"] if p["status"].get("phase") not in ("Succeeded", "Failed")
    }
    assert before["status"]["podIP"] in held
    lowest_free = next(str(ip) for ip in ipaddress.ip_network("10.244.1.0/24").hosts() if ip.packed[-1] >= 2
                       and str(ip) not in held)
    _create_pod(cluster, "after", node="kubelite-node-1")
    after = _phase(cluster, "after", "Running")
    # the restarted kubelet holds the running pods' addresses again: the new pod gets the lowest free one
    assert after["status"]["podIP"] == lowest_free
    keeper = _pod(cluster, "keeper")
    assert keeper is not None
    for field in ("podIP", "podIPs", "hostIP", "startTime", "containerStatuses", "conditions", "phase"):
        assert keeper["status"][field] == before["status"][field], field
    # nothing happened to it again: one Started, one Pulling
    assert [(e["reason"], e["count"]) for e in _events(cluster, "keeper")] == [
        ("Pulling", 1), ("Pulled", 1), ("Created", 1), ("Started", 1)
    ]
    _wait(lambda: len([e for e in _events(cluster, "kubelite-node-1") if e["reason"] == "Starting"]) == 2,
          "the restarted kubelet's Starting")
