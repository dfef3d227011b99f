"""The simulated cluster at scale: N nodes Ready, then a Deployment of R replicas Running, end to end.

    .venv/bin/python -m bench.cluster_scale [--nodes 1000] [--replicas 10000] [--secure]

One kubelite process runs everything, as `kubelite serve --nodes N` does: the API, the controller manager,
the scheduler and N kubelets, each component over HTTP as its own user. This process (on the other CPU)
only watches: a node informer until every node is Ready, then it creates the Deployment and follows a pod
informer until every replica is Running. It prints the time of each phase and the server's CPU seconds and
RSS at its end.

The baseline, measured in the same run: an API server alone (no nodes, no scheduler, no workload
controllers) receiving the same number of pods as plain creates, 64 at a time. Its CPU per pod is what
the API costs for one write of a pod; the ratio says how many such writes' worth of work the whole flow
(ReplicaSet creates, scheduler binds, kubelet status updates, events, watches) takes per pod.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import procs
from kubelite.client import Config
from kubelite.client.component import ComponentClient

CREATE_CONCURRENCY = 64


def pod_template(name: str) -> dict[str, Any]:
    return {
        "metadata": {"labels": {"app": name}},
        "spec": {
            "containers": [
                {"name": "web", "image": "nginx:1.27", "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}
            ]
        },
    }


async def wait_count(informer: Any, predicate: Any, want: int, timeout: float) -> float:
    """Seconds until `want` objects of the informer's cache satisfy `predicate`."""
    started = time.perf_counter()
    deadline = started + timeout
    while True:
        have = sum(1 for obj in informer.indexer.list() if predicate(obj))
        if have >= want:
            return time.perf_counter() - started
        if time.perf_counter() > deadline:
            raise TimeoutError(f"{have} of {want} after {timeout:.0f} s")
        await asyncio.sleep(0.2)


def node_ready(node: Any) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in node["status"].get("conditions") or [])


def pod_running(pod: Any) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running"


async def cluster_run(port: int, nodes: int, replicas: int, timeout: float, cpu: Any = None) -> dict[str, float]:
    """Each phase's seconds, printed as it ends (with the server's CPU so far when `cpu` reads it), so a run cut
    short by its timeout still says how far it got."""
    clients = ComponentClient("bench", Config(host=f"http://127.0.0.1:{port}", timeout=None))
    node_informer = clients.informers.for_resource(("", "v1", "nodes")).informer
    pod_informer = clients.informers.for_resource(("", "v1", "pods")).informer
    clients.start_informers()

    def progress(what: str) -> None:
        print(f"  ... {what}" + (f" (server CPU {cpu():.1f} s so far)" if cpu is not None else ""), flush=True)

    try:
        nodes_ready = await wait_count(node_informer, node_ready, nodes, timeout)
        progress(f"{nodes} nodes Ready in {nodes_ready:.1f} s")
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "scale", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "scale"}},
                     "template": pod_template("scale")},
        }  # fmt: skip
        await clients.resource("apps", "v1", "deployments").namespace("default").create(deployment)
        try:
            pods_running = await wait_count(pod_informer, pod_running, replicas, timeout)
        except TimeoutError as exc:
            progress(f"pods Running: {exc}")
            raise
        return {"nodes_ready_s": nodes_ready, "pods_running_s": pods_running}
    finally:
        await clients.close()


async def baseline_run(port: int, replicas: int) -> float:
    """Seconds to create `replicas` pods through the API alone."""
    clients = ComponentClient("bench", Config(host=f"http://127.0.0.1:{port}", timeout=None))
    pods = clients.resource("", "v1", "pods").namespace("default")
    template = pod_template("base")
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(replicas):
        queue.put_nowait(index)

    async def creator() -> None:
        while not queue.empty():
            index = queue.get_nowait()
            meta = {"name": f"base-{index:05}", **template["metadata"]}
            await pods.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": template["spec"]})

    started = time.perf_counter()
    try:
        await asyncio.gather(*(creator() for _ in range(CREATE_CONCURRENCY)))
    finally:
        await clients.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--replicas", type=int, default=10000)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--no-baseline", action="store_true", help="skip the API-server-alone baseline")
    parser.add_argument("--profile", choices=("cprofile", "pyinstrument"), help="profile the cluster's server")
    parser.add_argument("--profile-out", type=Path, help="where the profile goes (with --profile)")
    args = parser.parse_args()
    where = procs.placement()
    procs.pin_self(where)
    print(f"cluster scale: {args.nodes} nodes, a Deployment of {args.replicas} replicas; {where.describe()}")
    with tempfile.TemporaryDirectory() as tmp:
        base_seconds = base_cpu = float("nan")
        if not args.no_baseline:
            base_cmd = where.pin_server() + procs.kubelite_cmd(Path(tmp) / "base")
            base = procs.Server("kubelite-api-only", base_cmd, Path(tmp) / "base.log").start()
            try:
                cpu0 = base.cpu()
                base_seconds = asyncio.run(baseline_run(base.port, args.replicas))
                base_cpu = base.cpu() - cpu0
            finally:
                base.stop()
            print(f"  ... baseline: {args.replicas} pod creates in {base_seconds:.1f} s, server CPU {base_cpu:.1f} s",
                  flush=True)  # fmt: skip
        cluster_flags = (f"--nodes={args.nodes}",)
        cmd = where.pin_server() + procs.kubelite_cmd(
            Path(tmp) / "cluster", args.profile, args.profile_out, cluster=cluster_flags
        )
        server = procs.Server("kubelite-cluster", cmd, Path(tmp) / "cluster.log").start(timeout=args.timeout)
        try:
            cpu0 = server.cpu()
            phases = asyncio.run(
                cluster_run(server.port, args.nodes, args.replicas, args.timeout, lambda: server.cpu() - cpu0)
            )
            cpu = server.cpu() - cpu0
            rss = server.rss()
        finally:
            server.stop()
    per_pod_base = base_cpu / args.replicas * 1e3
    per_pod = cpu / args.replicas * 1e3
    print(f"  baseline: {args.replicas} pod creates in {base_seconds:.1f} s, server CPU {base_cpu:.1f} s "
          f"({per_pod_base:.2f} ms per pod)")  # fmt: skip
    print(f"  cluster: {args.nodes} nodes Ready in {phases['nodes_ready_s']:.1f} s; {args.replicas} pods Running "
          f"{phases['pods_running_s']:.1f} s after the Deployment")  # fmt: skip
    print(f"  cluster: server CPU {cpu:.1f} s ({per_pod:.2f} ms per pod, {per_pod / per_pod_base:.1f}x a plain "
          f"create), RSS {rss / 2**20:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
