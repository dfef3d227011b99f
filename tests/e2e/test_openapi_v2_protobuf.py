"""/openapi/v2 in gnostic's protobuf against a real server: content negotiation as kube-openapi does it, the
bytes decoded with the message descriptors and by walking the wire format, caching by ETag, and kubectl
(whose Go client decodes it with gnostic's generated types) reading it for `explain --output
plaintext-openapiv2`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kubelite.endpoints.openapi import v2_protobuf
from tests.e2e.server import KubeliteProcess

PROTOBUF_ACCEPT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
PROTOBUF_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _length_delimited(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(field number, bytes) of the length-delimited fields of a message; other wire types are skipped."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = _varint(data, pos)
            yield key >> 3, data[pos : pos + length]
            pos += length
        else:
            raise AssertionError(f"wire type {wire}")


def _field(data: bytes, number: int) -> list[bytes]:
    return [value for n, value in _length_delimited(data) if n == number]


@pytest.fixture(scope="module")
def json_document(server: KubeliteProcess) -> tuple[dict[str, Any], str]:
    reply = server.http("GET", "/openapi/v2", headers={"Accept": "application/json"})
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    return json.loads(reply.body), reply.headers["etag"]


def test_protobuf_is_served_when_asked(server: KubeliteProcess, json_document: tuple[dict[str, Any], str]) -> None:
    document, json_etag = json_document
    reply = server.http("GET", "/openapi/v2?timeout=32s", headers={"Accept": PROTOBUF_ACCEPT})
    assert reply.status == 200
    assert reply.headers["content-type"] == PROTOBUF_CONTENT_TYPE
    assert reply.headers["vary"] == "Accept"
    assert reply.headers["etag"] == json_etag  # one ETag for both encodings, as kube-openapi

    message = v2_protobuf.message_classes()["Document"].FromString(reply.body)
    assert message.swagger == "2.0"
    assert message.info.title == "Kubernetes"
    assert [p.name for p in message.paths.path] == list(document["paths"])
    assert [d.name for d in message.definitions.additional_properties] == list(document["definitions"])
    pods = next(p.value for p in message.paths.path if p.name == "/api/v1/namespaces/{namespace}/pods/{name}")
    assert pods.patch.operation_id == "patchCoreV1NamespacedPod"
    assert "application/strategic-merge-patch+json" in pods.patch.consumes
    gvk = {e.name: e.value.yaml for e in pods.patch.vendor_extension}["x-kubernetes-group-version-kind"]
    assert gvk == 'group: ""\nkind: Pod\nversion: v1\n'

    # the same bytes read without the descriptors, by OpenAPIv2.proto's field numbers
    assert _field(reply.body, 1) == [b"2.0"]  # Document.swagger
    paths = _field(_field(reply.body, 8)[0], 2)  # Document.paths -> Paths.path
    assert [_field(p, 1)[0].decode() for p in paths] == list(document["paths"])
    definitions = _field(_field(reply.body, 9)[0], 1)  # Document.definitions -> NamedSchema
    names = [_field(d, 1)[0].decode() for d in definitions]
    assert names == list(document["definitions"])
    pod = _field(definitions[names.index("io.k8s.api.core.v1.Pod")], 2)[0]  # NamedSchema.value
    assert _field(pod, 4)[0].decode() == document["definitions"]["io.k8s.api.core.v1.Pod"]["description"]
    properties = [_field(p, 1)[0].decode() for p in _field(_field(pod, 25)[0], 1)]  # Schema.properties
    assert properties == list(document["definitions"]["io.k8s.api.core.v1.Pod"]["properties"])


def test_protobuf_legacy_spelling_and_caching(
    server: KubeliteProcess, json_document: tuple[dict[str, Any], str]
) -> None:
    _, etag = json_document
    first = server.http("GET", "/openapi/v2", headers={"Accept": PROTOBUF_CONTENT_TYPE})
    assert (first.status, first.headers["content-type"], first.headers["etag"]) == (200, PROTOBUF_CONTENT_TYPE, etag)
    again = server.http("GET", "/openapi/v2", headers={"Accept": PROTOBUF_ACCEPT})
    assert again.body == first.body
    cached = server.http("GET", "/openapi/v2", headers={"Accept": PROTOBUF_ACCEPT, "If-None-Match": etag})
    assert (cached.status, cached.body) == (304, b"")


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        (None, "application/json"),
        ("*/*", "application/json"),
        ("application/*", "application/json"),
        (f"application/json;q=0.5, {PROTOBUF_ACCEPT}", PROTOBUF_CONTENT_TYPE),
        (f"{PROTOBUF_ACCEPT};q=0.5, application/json", "application/json"),
    ],
)
def test_negotiation(server: KubeliteProcess, accept: str | None, content_type: str) -> None:
    reply = server.http("GET", "/openapi/v2", headers={"Accept": accept} if accept is not None else {})
    assert (reply.status, reply.headers["content-type"]) == (200, content_type)


@pytest.mark.parametrize("accept", ["application/xml", "application/vnd.kubernetes.protobuf", "text/*"])
def test_nothing_acceptable_is_a_bare_406(server: KubeliteProcess, accept: str) -> None:
    reply = server.http("GET", "/openapi/v2", headers={"Accept": accept})
    assert (reply.status, reply.body, reply.headers["vary"]) == (406, b"", "Accept")


def test_kubectl_explains_from_the_v2_protobuf(server: KubeliteProcess) -> None:
    out = server.kubectl("explain", "--output=plaintext-openapiv2", "deployments.spec.strategy").stdout
    lines = out.splitlines()
    assert lines[:4] == ["KIND:     Deployment", "VERSION:  apps/v1", "", "RESOURCE: strategy <Object>"]
    assert "   rollingUpdate\t<Object>" in lines
    assert "   type\t<string>" in lines
    pods = server.kubectl("explain", "--output=plaintext-openapiv2", "pods.spec.containers.ports").stdout
    assert pods.splitlines()[:4] == ["KIND:     Pod", "VERSION:  v1", "", "RESOURCE: ports <[]Object>"]
    assert "   containerPort\t<integer> -required-" in pods.splitlines()
