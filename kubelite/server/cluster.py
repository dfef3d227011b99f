"""The simulated cluster beside the API: kube-controller-manager, kube-scheduler and one kubelet per node.

Each is a component of its own, as on a real control plane: it reaches the API only over HTTP, as its own
user, with a bearer token minted at start (`auth/authn/tokens.py`, kube-apiserver's loopback token pattern):

    system:kube-controller-manager        the workload controllers (`controllers/catalog.py`)
    system:kube-scheduler                 the scheduler (`cluster/scheduler/component.py`)
    system:node:<name> (system:nodes)     each simulated node's kubelet (`cluster/kubelet/kubelet.py`)

They talk to the secure port when it is on (so authentication and authorization see those users), else to
the insecure one. The controller manager and the scheduler run only while they hold their Lease in
kube-system (`kube-controller-manager`, `kube-scheduler`), as kube's do with `--leader-elect`, so of several
replicas on one store only one runs each; the simulated nodes follow a Lease of their own
(`kubelite-simulated-nodes`), so one replica runs them. The leader identity is the host name and an id kept
in the data directory, so a restarted server takes its own Lease back at once instead of waiting it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from kubelite.auth.authn.tokens import TokenAuthenticator
from kubelite.auth.user import KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, NODES_GROUP, UserInfo
from kubelite.client.clock import Clock, RealClock
from kubelite.client.component import ComponentClient
from kubelite.client.config import Config
from kubelite.client.leaderelection import LeaderCallbacks, LeaderElectionConfig, LeaseLock, run_leader_election
from kubelite.cluster.kubelet.host import simulated_nodes
from kubelite.cluster.kubelet.kubelet import Kubelet
from kubelite.cluster.scheduler.component import SchedulerComponent
from kubelite.controllers.controller_manager import run_controller_manager
from kubelite.server.config import KUBERNETES_VERSION, ClusterConfig

log = logging.getLogger(__name__)

LEADER_NAMESPACE = "kube-system"
NODES_LEASE = "kubelite-simulated-nodes"


def leader_identity(data_dir: Path) -> str:
    """`<hostname>_<id>`, kube's identity format, with the id kept in the data directory across restarts."""
    path = data_dir / "instance-id"
    try:
        instance = path.read_text().strip()
    except FileNotFoundError:
        instance = ""
    if not instance:
        instance = str(uuid.uuid4())
        path.write_text(instance + "\n")
        path.chmod(0o600)
    return f"{socket.gethostname()}_{instance}"


class SimulatedCluster:
    def __init__(
        self,
        config: ClusterConfig,
        *,
        api_url: str,
        ca_pem: bytes | None,
        tokens: TokenAuthenticator | None,
        identity: str,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        self.api_url = api_url
        self.ca_pem = ca_pem
        self.tokens = tokens
        self.identity = identity
        self.clock = clock or RealClock()
        self._clients: list[ComponentClient] = []

    def clients(self, component: str, user: UserInfo) -> ComponentClient:
        """A component's connection to the API as `user`."""
        token = self.tokens.mint(user) if self.tokens is not None else None
        config = Config(
            host=self.api_url,
            ca_data=self.ca_pem if self.api_url.startswith("https://") else None,
            token=token,
            user_agent=f"{component}/{KUBERNETES_VERSION} (linux/amd64) kubelite",
            # a component's requests wait as long as the server takes; a watch is not bounded by this
            timeout=None,
        )
        clients = ComponentClient(component, config, clock=self.clock)
        self._clients.append(clients)
        return clients

    async def run(self) -> None:
        """Every enabled component, until cancelled."""
        selection = self.config.controller_selection()
        manager_user = UserInfo(name=KUBE_CONTROLLER_MANAGER)
        manager = self.clients("kube-controller-manager", manager_user)
        runs: list[tuple[str, UserInfo, Callable[[], Awaitable[None]]]] = [
            ("kube-controller-manager", manager_user, lambda: run_controller_manager(manager, selection))
        ]
        if self.config.scheduler:
            runs.append(("kube-scheduler", UserInfo(name=KUBE_SCHEDULER), self._scheduler()))
        if self.config.nodes > 0:
            runs.append((NODES_LEASE, manager_user, self._kubelets()))
        try:
            async with asyncio.TaskGroup() as group:
                for name, user, run in runs:
                    group.create_task(self._leading(name, user, run), name=name)
        finally:
            for clients in self._clients:
                with contextlib.suppress(Exception):
                    await clients.close()

    def _scheduler(self) -> Callable[[], Awaitable[None]]:
        return SchedulerComponent(self.clients("default-scheduler", UserInfo(name=KUBE_SCHEDULER))).run

    def _kubelets(self) -> Callable[[], Awaitable[None]]:
        nodes = simulated_nodes(
            self.config.nodes, prefix=self.config.node_name_prefix, capacity=dict(self.config.node_capacity)
        )
        kubelets = [
            Kubelet(self.clients("kubelet", UserInfo(name=f"system:node:{node.name}", groups=(NODES_GROUP,))), node)
            for node in nodes
        ]

        async def run_all() -> None:
            async with asyncio.TaskGroup() as group:
                for kubelet in kubelets:
                    group.create_task(kubelet.run())

        return run_all

    async def _leading(self, lease: str, user: UserInfo, run: Callable[[], Awaitable[None]]) -> None:
        """`run` while holding `lease` (or at once without leader election); a leader that loses its Lease
        stops and tries again, as kube's components restart to do. A leader whose work is done (a controller
        manager with every controller switched off) keeps its Lease, so its peers do not take turns at it."""
        if not self.config.leader_elect:
            await run()
            return
        clients = self.clients(f"{lease}-leader-election", user)
        while True:

            async def lead() -> None:
                await run()
                await asyncio.Event().wait()

            lock = LeaseLock.for_client(clients.dynamic, namespace=LEADER_NAMESPACE, name=lease, identity=self.identity)
            election = LeaderElectionConfig(
                lock=lock,
                callbacks=LeaderCallbacks(on_started_leading=lead),
                release_on_cancel=True,
                name=lease,
                clock=self.clock,
            )
            await run_leader_election(election)
            log.warning("%s: lost its lease, starting over", lease)
