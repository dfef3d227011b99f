"""The resource quota controller on a fake clock: a pod stuck terminating (its node gone) stops being charged
for compute once its deletion's grace has run out, as kube's QuotaV1Pod says, while count/pods still counts it.

The controller runs in this process on a FakeClock that follows real time in small ticks, against an API
server that runs no resource quota controller, no kubelet and no pod termination (so the pod stays)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.component import ComponentClient
from kubelite.controllers.resourcequota.controller import ResourceQuotaController
from tests.e2e.fake_time import FakeTimeLoops
from tests.e2e.server import KubeliteProcess

CONTROLLERS = "--controllers=namespace-controller,serviceaccount-controller,root-ca-certificate-publisher-controller"
DEADLINE = 60.0


class FakeTimeQuotaController(FakeTimeLoops):
    """The ResourceQuota controller on a FakeClock whose wall time is real time, until stepped."""

    def __init__(self, server: KubeliteProcess) -> None:
        super().__init__(server, FakeClock(start=0.0, wall_offset=time.time()))

    def loops(self, clients: ComponentClient) -> list[Any]:
        return [ResourceQuotaController(clients)]


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KubeliteProcess, FakeTimeQuotaController]]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("quota-time")), extra_args=[CONTROLLERS]).start()
    controller = FakeTimeQuotaController(proc)
    controller.start()
    try:
        yield proc, controller
    finally:
        controller.stop()
        proc.stop()


def used(server: KubeliteProcess) -> Any:
    quota = server.http("GET", "/api/v1/namespaces/default/resourcequotas/q").json()
    return (quota.get("status") or {}).get("used")


def wait_used(server: KubeliteProcess, expected: dict[str, str]) -> None:
    deadline = time.monotonic() + DEADLINE
    while (got := used(server)) != expected:
        assert time.monotonic() < deadline, f"quota used {got}, expected {expected}"
        time.sleep(0.1)


def test_a_pod_stuck_terminating_is_released_when_its_grace_runs_out(
    timed: tuple[KubeliteProcess, FakeTimeQuotaController],
) -> None:
    server, controller = timed
    server.kubectl("create", "quota", "q", "--hard=pods=5,count/pods=5,requests.memory=1Gi")
    wait_used(server, {"count/pods": "0", "pods": "0", "requests.memory": "0"})
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "stuck"},
        # bound to a node no kubelet runs: its deletion waits for a kubelet that never comes
        "spec": {"nodeName": "gone", "terminationGracePeriodSeconds": 30,
                 "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"memory": "256Mi"}}}]},
    }  # fmt: skip
    assert server.http("POST", "/api/v1/namespaces/default/pods", pod).status == 201
    wait_used(server, {"count/pods": "1", "pods": "1", "requests.memory": "256Mi"})
    server.kubectl("delete", "pod", "stuck", "--wait=false")
    assert server.http("GET", "/api/v1/namespaces/default/pods/stuck").json()["metadata"]["deletionTimestamp"]
    time.sleep(0.5)
    # charged until the deletion time (now + 30 s) and its grace again have passed
    assert used(server) == {"count/pods": "1", "pods": "1", "requests.memory": "256Mi"}
    controller.step(40)
    time.sleep(0.5)
    assert used(server) == {"count/pods": "1", "pods": "1", "requests.memory": "256Mi"}
    controller.step(30)
    wait_used(server, {"count/pods": "1", "pods": "0", "requests.memory": "0"})
