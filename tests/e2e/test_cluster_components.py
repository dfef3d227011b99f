"""The components kubelite runs beside its API: each reaches it over HTTP as its own user, with a token
minted at start, and the controller manager leads on its Lease, which a restarted server takes back at once."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("kubelite")), cluster=True, extra_args=["--nodes=0"])
    proc.start()
    yield proc
    proc.stop()


def lease(proc: KubeliteProcess, name: str, *, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        got = proc.http("GET", f"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{name}")
        if got.status == 200 and got.json()["spec"].get("holderIdentity"):
            return dict(got.json())
        assert time.monotonic() < deadline, f"no lease {name}: {got.status} {got.body!r}"
        time.sleep(0.1)


def secure_get(proc: KubeliteProcess, path: str, token: str) -> tuple[int, dict[str, Any]]:
    context = ssl.create_default_context(cafile=str(proc.data_dir / "pki" / "ca.crt"))
    conn = http.client.HTTPSConnection("127.0.0.1", proc.secure_port, context=context, timeout=10)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_the_controller_manager_leads_on_its_lease_as_the_host_and_the_data_dirs_id(cluster: KubeliteProcess) -> None:
    found = lease(cluster, "kube-controller-manager")
    instance = (cluster.data_dir / "instance-id").read_text().strip()
    assert found["spec"]["holderIdentity"] == f"{socket.gethostname()}_{instance}"
    assert found["spec"]["leaseDurationSeconds"] == 15


def test_a_token_the_server_did_not_mint_gets_401(cluster: KubeliteProcess) -> None:
    status, body = secure_get(cluster, "/api/v1/namespaces", "not-a-token")
    assert status == 401
    assert (body["reason"], body["code"], body["message"]) == ("Unauthorized", 401, "Unauthorized")
    result = cluster.kubectl("get", "pods", "--kubeconfig", "/dev/null", "--server", cluster.secure_url,
                             "--certificate-authority", str(cluster.data_dir / "pki" / "ca.crt"),
                             "--token", "not-a-token", check=False)  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip().endswith(
        "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
    )


def test_an_unknown_controller_is_refused_at_start(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kubelite", "serve", "--data-dir", str(tmp_path), "--controllers=*,-nope"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr == "kubelite: --controllers: 'nope' is not in the list of known controllers\n"


def test_a_restarted_server_takes_its_lease_back_without_waiting_it_out(tmp_path: Path) -> None:
    proc = KubeliteProcess(tmp_path / "data", cluster=True, extra_args=["--nodes=0"]).start()
    try:
        before = lease(proc, "kube-controller-manager")
        proc.kill()  # no release: the lease stays held for its 15 s
        proc.start()
        deadline = time.monotonic() + 10
        while True:
            after = lease(proc, "kube-controller-manager")
            if after["spec"]["renewTime"] != before["spec"]["renewTime"]:
                break
            assert time.monotonic() < deadline, "the restarted server did not renew its own lease"
            time.sleep(0.1)
        assert after["spec"]["holderIdentity"] == before["spec"]["holderIdentity"]
        assert after["spec"]["acquireTime"] == before["spec"]["acquireTime"]
        assert after["spec"].get("leaseTransitions", 0) == before["spec"].get("leaseTransitions", 0)
    finally:
        proc.stop()
