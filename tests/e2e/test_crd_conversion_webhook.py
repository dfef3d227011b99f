"""Conversion through a real webhook process on loopback: a CRD storing v1 and serving v2 too, converted by a
ConversionReview webhook reached by URL and by Service reference, over TLS checked against the CRD's caBundle."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.auth.certs import ensure_pki
from tests.e2e.server import KubeliteProcess
from tests.e2e.test_crd_serving import apply, crd, establish, version

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def webhook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str]]:
    """The webhook's port and the base64 CA bundle its certificate verifies with."""
    pki = ensure_pki(tmp_path_factory.mktemp("webhook-pki"), hosts=["shapes.default.svc"], ips=["127.0.0.1"])
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.e2e.webhooks.conversion_webhook",
            str(pki.apiserver_cert),
            str(pki.apiserver_key),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    yield port, base64.b64encode(pki.ca_cert.read_bytes()).decode()
    proc.terminate()
    proc.wait(timeout=10)
    proc.stdout.close()


def shapes_crd(group: str, client_config: dict[str, Any]) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }
    return crd(
        group,
        "Shape",
        versions=[version("v1", schema=schema), version("v2", storage=False, schema=schema)],
        conversion={
            "strategy": "Webhook",
            "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": client_config},
        },
    )


def test_objects_convert_through_the_webhook_by_url(server: KubeliteProcess, webhook: tuple[int, str]) -> None:
    port, bundle = webhook
    establish(server, shapes_crd("url.example.com", {"url": f"https://127.0.0.1:{port}/convert", "caBundle": bundle}))
    created = server.http(
        "POST",
        "/apis/url.example.com/v2/namespaces/default/shapes",
        {
            "apiVersion": "url.example.com/v2",
            "kind": "Shape",
            "metadata": {"name": "s"},
            "spec": {"dimensions": {"size": 3}},
        },
    )
    assert created.status == 201, created.body
    assert created.json()["spec"] == {"dimensions": {"size": 3}}
    stored = server.http("GET", "/apis/url.example.com/v1/namespaces/default/shapes/s").json()
    assert stored["apiVersion"] == "url.example.com/v1"
    assert stored["spec"] == {"size": 3}
    # labels are the one part of metadata a webhook may change
    assert stored["metadata"]["labels"] == {"converted-by": "webhook"}
    listed = server.http("GET", "/apis/url.example.com/v2/namespaces/default/shapes").json()
    assert [item["spec"] for item in listed["items"]] == [{"dimensions": {"size": 3}}]
    assert (
        server.kubectl("get", "shapes.v2.url.example.com", "s", "-o", "jsonpath={.spec.dimensions.size}").stdout == "3"
    )


def test_a_refused_conversion_is_reported(server: KubeliteProcess, webhook: tuple[int, str]) -> None:
    port, bundle = webhook
    establish(
        server, shapes_crd("refuse.example.com", {"url": f"https://127.0.0.1:{port}/convert", "caBundle": bundle})
    )
    refused = server.http(
        "POST",
        "/apis/refuse.example.com/v2/namespaces/default/shapes",
        {"apiVersion": "refuse.example.com/v2", "kind": "Shape", "metadata": {"name": "s"}, "spec": {"refuse": True}},
    )
    assert refused.status == 500
    assert refused.json()["message"] == (
        "conversion webhook for refuse.example.com/v2, Kind=Shape failed: refusing to convert"
    )


def test_a_webhook_with_the_wrong_ca_fails_the_request(server: KubeliteProcess, webhook: tuple[int, str]) -> None:
    port, _ = webhook
    other = ensure_pki(server.data_dir / "other-pki", hosts=["x"], ips=["127.0.0.1"])
    bundle = base64.b64encode(other.ca_cert.read_bytes()).decode()
    establish(
        server, shapes_crd("wrongca.example.com", {"url": f"https://127.0.0.1:{port}/convert", "caBundle": bundle})
    )
    failed = server.http(
        "POST",
        "/apis/wrongca.example.com/v2/namespaces/default/shapes",
        {"apiVersion": "wrongca.example.com/v2", "kind": "Shape", "metadata": {"name": "s"}, "spec": {}},
    )
    assert failed.status == 500
    message = failed.json()["message"]
    assert message.startswith(
        "conversion webhook for wrongca.example.com/v2, Kind=Shape failed: "
        f'Post "https://127.0.0.1:{port}/convert?timeout=30s": '
    )
    assert "x509: certificate signed by unknown authority" in message


def test_objects_convert_through_a_service_reference(server: KubeliteProcess, webhook: tuple[int, str]) -> None:
    port, bundle = webhook
    apply(
        server,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "shapes"},
            "spec": {"ports": [{"name": "https", "port": 443, "targetPort": port}]},
        },
        {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": "shapes"},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"name": "https", "port": port}]}],
        },
    )
    service = {"service": {"namespace": "default", "name": "shapes", "path": "/convert"}, "caBundle": bundle}
    establish(server, shapes_crd("svc.example.com", service))
    created = server.http(
        "POST",
        "/apis/svc.example.com/v2/namespaces/default/shapes",
        {
            "apiVersion": "svc.example.com/v2",
            "kind": "Shape",
            "metadata": {"name": "s"},
            "spec": {"dimensions": {"size": 8}},
        },
    )
    assert created.status == 201, created.body
    assert server.http("GET", "/apis/svc.example.com/v1/namespaces/default/shapes/s").json()["spec"] == {"size": 8}
