"""Response negotiation from Accept (kube's NegotiateOutputMediaType with goautoneg), and body encodings."""

from __future__ import annotations

import orjson
import pytest
import yaml

from kubelite.apimachinery import protobuf, serializers
from kubelite.apimachinery.errors import GroupResource, StatusError, conflict, timeout
from kubelite.apimachinery.serializers import MediaType, content_type_of, decode_body, parse_media_types
from kubelite.endpoints.handlers.negotiation import (
    Conversion,
    Negotiated,
    negotiate,
    write_object,
    write_status,
)

PROTOBUF = "application/vnd.kubernetes.protobuf"
JSON = "application/json"
YAML = "application/yaml"

#: the Accept headers kubectl sends (see the kubectl wire notes)
KUBECTL_TABLE = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)
KUBECTL_DISCOVERY = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)
TYPED_CLIENT = "application/vnd.kubernetes.protobuf,application/json"
METRICS_CLIENT = "application/vnd.kubernetes.protobuf, */*"
GENERIC = "application/json, */*"

NOT_ACCEPTABLE = (
    "only the following media types are accepted: application/json, application/yaml, "
    "application/vnd.kubernetes.protobuf"
)


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        pytest.param(None, Negotiated(JSON), id="no-header"),
        pytest.param("", Negotiated(JSON), id="empty-header"),
        pytest.param(JSON, Negotiated(JSON), id="json"),
        pytest.param(GENERIC, Negotiated(JSON), id="kubectl-generic"),
        pytest.param(KUBECTL_TABLE, Negotiated(JSON, Conversion.TABLE), id="kubectl-table"),
        pytest.param(KUBECTL_DISCOVERY, Negotiated(JSON), id="kubectl-discovery-on-a-resource"),
        pytest.param(TYPED_CLIENT, Negotiated(PROTOBUF), id="typed-client-protobuf-first"),
        pytest.param(METRICS_CLIENT, Negotiated(PROTOBUF), id="metrics-client"),
        pytest.param("*/*", Negotiated(JSON), id="anything"),
        pytest.param("application/*", Negotiated(JSON), id="any-application"),
        pytest.param(YAML, Negotiated(YAML), id="yaml"),
        pytest.param("Application/YAML", Negotiated(YAML), id="case-insensitive-type"),
        pytest.param("application/json; charset=utf-8", Negotiated(JSON), id="unrecognized-parameter"),
        pytest.param("application/json;stream=watch", Negotiated(JSON), id="stream-watch"),
        pytest.param(
            "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
            Negotiated(JSON, Conversion.TABLE),
            id="table-v1beta1",
        ),
        pytest.param(
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
            Negotiated(JSON, Conversion.PARTIAL),
            id="partial-object-metadata",
        ),
        pytest.param(
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1",
            Negotiated(JSON, Conversion.PARTIAL_LIST),
            id="partial-object-metadata-list",
        ),
        pytest.param(
            "application/yaml;as=Table;g=meta.k8s.io;v=v1",
            Negotiated(YAML, Conversion.TABLE),
            id="table-as-yaml",
        ),
        pytest.param(
            "*/*;as=Table;g=meta.k8s.io;v=v1", Negotiated(JSON, Conversion.TABLE), id="table-any-type"
        ),
        pytest.param(
            "application/json;as=Table;g=meta.k8s.io;v=v2,application/yaml",
            Negotiated(YAML),
            id="unknown-table-version-skipped",
        ),
        pytest.param(
            "application/json;as=Table;g=example.com;v=v1,application/yaml",
            Negotiated(YAML),
            id="other-group-skipped",
        ),
        pytest.param(
            "application/json;as=Pod;g=meta.k8s.io;v=v1,application/yaml",
            Negotiated(YAML),
            id="unknown-kind-skipped",
        ),
        pytest.param(
            "application/json;g=meta.k8s.io;v=v1,application/yaml",
            Negotiated(YAML),
            id="group-version-without-kind-skipped",
        ),
        # quality values, and goautoneg's preference of concrete types over wildcards at equal quality
        pytest.param("application/json;q=0.5, application/yaml", Negotiated(YAML), id="higher-q-wins"),
        pytest.param("application/yaml;q=0.9, application/json;q=0.95", Negotiated(JSON), id="fractional-q"),
        pytest.param("*/*, application/yaml", Negotiated(YAML), id="concrete-type-before-wildcard"),
        pytest.param(
            "application/*, application/yaml", Negotiated(YAML), id="concrete-subtype-before-wildcard"
        ),
        pytest.param("*/*;q=0.1, application/yaml;q=0.2", Negotiated(YAML), id="wildcard-with-lower-q"),
        pytest.param("application/yaml, application/json", Negotiated(YAML), id="first-of-equals"),
        pytest.param("application/json;q=0, application/yaml;q=0.1", Negotiated(YAML), id="q-zero-dropped"),
        pytest.param("application/json;q=abc, application/yaml;q=0.1", Negotiated(YAML), id="bad-q-is-zero"),
        pytest.param("text/html, application/xhtml+xml, */*;q=0.8", Negotiated(JSON), id="browser"),
    ],
)
def test_negotiate(accept: str | None, expected: Negotiated) -> None:
    assert negotiate(accept) == expected


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        pytest.param(KUBECTL_TABLE, Negotiated(JSON), id="kubectl-table-falls-back"),
        pytest.param(
            "application/json;as=Table;g=meta.k8s.io;v=v1, application/yaml",
            Negotiated(YAML),
            id="table-skipped-for-yaml",
        ),
        pytest.param(GENERIC, Negotiated(JSON), id="generic"),
    ],
)
def test_negotiate_without_conversion(accept: str, expected: Negotiated) -> None:
    assert negotiate(accept, allow_conversion=False) == expected


@pytest.mark.parametrize(
    ("accept", "allow_conversion"),
    [
        pytest.param("text/html", True, id="html"),
        pytest.param("text/*", True, id="any-text"),
        pytest.param("application/json;as=Table;g=meta.k8s.io;v=v1", False, id="table-only-when-not-offered"),
        pytest.param("application/json;as=Foo;g=meta.k8s.io;v=v1", True, id="unknown-conversion-only"),
        pytest.param("application/json;q=0", True, id="only-q-zero"),
        pytest.param("application/xml, text/plain", True, id="nothing-served"),
    ],
)
def test_not_acceptable(accept: str, allow_conversion: bool) -> None:
    with pytest.raises(StatusError) as caught:
        negotiate(accept, allow_conversion=allow_conversion)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": NOT_ACCEPTABLE,
        "reason": "NotAcceptable",
        "code": 406,
    }


@pytest.mark.parametrize(
    ("negotiated", "key"),
    [
        (Negotiated(JSON), "application/json|none"),
        (Negotiated(JSON, Conversion.TABLE), "application/json|Table"),
        (Negotiated(YAML, Conversion.PARTIAL), "application/yaml|PartialObjectMetadata"),
    ],
    ids=["json", "json-table", "yaml-partial"],
)
def test_wire_form_key(negotiated: Negotiated, key: str) -> None:
    assert negotiated.key == key


def test_parse_media_types_orders_and_keeps_parameters() -> None:
    parsed = parse_media_types(
        '*/*;q=0.8, application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml;q=0.9;pretty="1", text/*'
    )
    assert parsed == [
        MediaType("application/json", {"as": "Table", "v": "v1", "g": "meta.k8s.io"}),
        MediaType("text/*"),
        MediaType("application/yaml", {"pretty": "1"}, 0.9),
        MediaType("*/*", {}, 0.8),
    ]
    assert [m.conversion for m in parsed] == ["Table", None, None, None]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, JSON),
        ("", JSON),
        ("application/json", JSON),
        ("application/json; charset=utf-8", JSON),
        ("Application/YAML", YAML),
        ("application/merge-patch+json", serializers.MERGE_PATCH),
        (";charset=utf-8", JSON),
    ],
    ids=["missing", "empty", "json", "with-charset", "upper-case", "merge-patch", "parameters-only"],
)
def test_content_type_of(header: str | None, expected: str) -> None:
    assert content_type_of(header) == expected


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b'{"a": [1, true, null]}', JSON, {"a": [1, True, None]}),
        (b"a:\n- 1\n- true\n", YAML, {"a": [1, True]}),
        (b'{"a": 1}', YAML, {"a": 1}),
        (b"a: 1\n", "text/yaml", {"a": 1}),
        (
            b'{"metadata": {"labels": {"a": null}}}',
            serializers.MERGE_PATCH,
            {"metadata": {"labels": {"a": None}}},
        ),
        (b'[{"op": "remove", "path": "/a"}]', serializers.JSON_PATCH, [{"op": "remove", "path": "/a"}]),
        (b'{"a": 1}', serializers.STRATEGIC_MERGE_PATCH, {"a": 1}),
        (b"apiVersion: v1\nkind: Pod\n", serializers.APPLY_PATCH, {"apiVersion": "v1", "kind": "Pod"}),
    ],
    ids=["json", "yaml", "json-is-yaml", "text-yaml", "merge-patch", "json-patch", "strategic", "apply"],
)
def test_decode_body(body: bytes, content_type: str, expected: object) -> None:
    assert decode_body(body, content_type) == expected


@pytest.mark.parametrize(
    ("body", "content_type", "code", "reason"),
    [
        (b'{"a": ', JSON, 400, "BadRequest"),
        (b"a: [1", YAML, 400, "BadRequest"),
        (b"k8s\x00\n\x02v1", serializers.PROTOBUF, 415, "UnsupportedMediaType"),
        (b"<a/>", "application/xml", 415, "UnsupportedMediaType"),
    ],
    ids=["truncated-json", "truncated-yaml", "protobuf", "xml"],
)
def test_decode_body_errors(body: bytes, content_type: str, code: int, reason: str) -> None:
    with pytest.raises(StatusError) as caught:
        decode_body(body, content_type)
    assert (caught.value.code, caught.value.reason) == (code, reason)
    if code == 400:
        assert caught.value.message.startswith("error decoding request body: ")
    else:
        assert caught.value.message == (
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json, application/yaml, application/vnd.kubernetes.protobuf"
        )


def test_yaml_is_written_as_kube_writes_it() -> None:
    # go-yaml sorts map keys, does not indent sequences under a key, and does not fold long strings
    value = {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "data": {"b": "yes", "a": "x " * 60},
        "list": [{"n": None}],
    }
    text = serializers.dumps_yaml(value).decode()
    assert text == (
        f"apiVersion: v1\ndata:\n  a: '{'x ' * 60}'\n  b: 'yes'\nkind: ConfigMap\nlist:\n- n: null\n"
    )
    assert yaml.safe_load(text) == value


def test_write_object_sets_type_status_and_warnings() -> None:
    warnings = ['299 - "unknown field \\"spec.x\\""', '299 - "two"']
    response = write_object(
        {"kind": "Pod", "b": 1, "a": 2},
        Negotiated(YAML),
        status=201,
        headers={"X-Extra": "1"},
        warnings=warnings,
    )
    headers = response.headers
    assert (response.status, response.content_type, headers.getall("Warning"), headers["X-Extra"]) == (
        201,
        YAML,
        warnings,
        "1",
    )
    assert response.body == b"a: 2\nb: 1\nkind: Pod\n"


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        (None, JSON),
        (YAML, YAML),
        (KUBECTL_TABLE, JSON),
        ("text/html", JSON),
        ("application/vnd.kubernetes.protobuf", PROTOBUF),
    ],
    ids=["default", "yaml", "table-accept-gets-a-plain-status", "unacceptable-still-answers", "protobuf"],
)
def test_write_status(accept: str | None, content_type: str) -> None:
    err = conflict(GroupResource("apps", "deployments"), "web", "the object has been modified")
    response = write_status(err, accept)
    assert (response.status, response.content_type) == (409, content_type)
    if content_type == PROTOBUF:
        body = protobuf.decode(response.body)
        body.pop("metadata", None)  # an empty ListMeta does not survive the trip; the rest must
        body["metadata"] = {}
    else:
        body = orjson.loads(response.body) if content_type == JSON else yaml.safe_load(response.body)
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified',
        "reason": "Conflict",
        "details": {"name": "web", "group": "apps", "kind": "deployments"},
        "code": 409,
    }


def test_write_status_sets_retry_after() -> None:
    err = timeout("Too large resource version: 10, current: 5")
    err.details = {"retryAfterSeconds": 1}
    response = write_status(err)
    assert (response.status, response.headers["Retry-After"]) == (504, "1")
