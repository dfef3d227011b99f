"""The example controller (`python -m kubelite.client.examples.configmap_everywhere`) converges on a real
kubelite: every namespace gets the ConfigMap, a deleted one comes back, an edited one is put back."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.server import KubeliteProcess


def eventually(check: Callable[[], bool], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError("did not converge")


@pytest.fixture
def controller(server: KubeliteProcess, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = (tmp_path / "controller.log").open("wb")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "kubelite.client.examples.configmap_everywhere", "--server", server.url]
    proc = subprocess.Popen([*command, "--name", "greeting", "--data", "hello=world"], stderr=log, env=env)
    yield proc
    proc.terminate()
    assert proc.wait(10) == 0  # stops cleanly on SIGTERM
    log.close()


def data_of(server: KubeliteProcess, namespace: str) -> dict[str, str] | None:
    result = server.http("GET", f"/api/v1/namespaces/{namespace}/configmaps/greeting")
    return result.json().get("data") if result.status == 200 else None


def test_configmap_in_every_namespace(server: KubeliteProcess, controller: subprocess.Popen[bytes]) -> None:
    eventually(lambda: data_of(server, "default") == {"hello": "world"})
    eventually(lambda: data_of(server, "kube-system") == {"hello": "world"})
    for name in ("team-a", "team-b"):
        server.http(
            "POST",
            "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
        )
    eventually(lambda: all(data_of(server, ns) == {"hello": "world"} for ns in ("team-a", "team-b")))

    assert server.http("DELETE", "/api/v1/namespaces/team-a/configmaps/greeting").status == 200
    eventually(lambda: data_of(server, "team-a") == {"hello": "world"})

    patch = {"data": {"hello": "tampered", "extra": "x"}}
    result = server.http(
        "PATCH",
        "/api/v1/namespaces/team-b/configmaps/greeting",
        patch,
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert result.status == 200
    eventually(lambda: data_of(server, "team-b") == {"hello": "world"})
    assert controller.poll() is None
