"""Encodings over raw HTTP: YAML request bodies and YAML responses, the server-side Table that `kubectl get`
prints (with includeObject None, Metadata or Object), PartialObjectMetadata for metadata-only clients
(garbage collector, namespace controller), and the plain-text health endpoints.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
import yaml

from tests.e2e.server import KubeliteProcess

_COUNTER = itertools.count()

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
#: what kubectl get sends: Table v1, then v1beta1, then plain JSON
KUBECTL_TABLE_ACCEPT = f"{TABLE},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
PARTIAL = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io"
PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"


@pytest.fixture
def ns(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    """A namespace of the test's own, so tests sharing the module's server never see each other's objects."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().removeprefix("test_"))
    name = f"n{next(_COUNTER)}-{slug}"[:63].strip("-")
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


def cm_path(ns: str, name: str = "") -> str:
    base = f"/api/v1/namespaces/{ns}/configmaps"
    return f"{base}/{name}" if name else base


def mine(ns: str) -> str:
    """The namespace's configmaps this test made (a controller adds kube-root-ca.crt to every namespace)."""
    return f"/api/v1/namespaces/{ns}/configmaps?labelSelector=mine"


def create_cm(server: KubeliteProcess, ns: str, name: str, data: dict[str, str]) -> dict[str, Any]:
    result = server.http(
        "POST",
        cm_path(ns),
        {"metadata": {"name": name, "labels": {"app": name, "mine": "yes"}}, "data": data},
    )
    assert result.status == 201, result.body
    return result.json()  # type: ignore[no-any-return]


def get(server: KubeliteProcess, path: str, accept: str) -> tuple[int, str, Any]:
    result = server.http("GET", path, headers={"Accept": accept})
    content_type = result.headers.get("content-type", "")
    body = yaml.safe_load(result.body) if content_type == "application/yaml" else result.json()
    return result.status, content_type, body


# -- YAML ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", ["application/yaml", "application/yaml; charset=utf-8"])
def test_yaml_request_body(server: KubeliteProcess, ns: str, content_type: str) -> None:
    body = (
        b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels: {tier: web}\n"
        b"data:\n  k: v\n  n: '1'\n"
    )
    result = server.http("POST", cm_path(ns), body, headers={"Content-Type": content_type})
    assert result.status == 201, result.body
    assert result.headers["content-type"] == "application/json"  # the answer follows Accept, not Content-Type
    created = result.json()
    assert (created["metadata"]["labels"], created["data"]) == ({"tier": "web"}, {"k": "v", "n": "1"})


def test_yaml_update_body(server: KubeliteProcess, ns: str) -> None:
    created = create_cm(server, ns, "a", {"k": "v"})
    rv = created["metadata"]["resourceVersion"]
    body = f"metadata:\n  name: a\n  resourceVersion: '{rv}'\ndata:\n  k: w\n".encode()
    result = server.http("PUT", cm_path(ns, "a"), body, headers={"Content-Type": "application/yaml"})
    assert (result.status, result.json()["data"]) == (200, {"k": "w"})


@pytest.mark.parametrize("path", ["one", "list"])
def test_yaml_responses(server: KubeliteProcess, ns: str, path: str) -> None:
    created = create_cm(server, ns, "a", {"k": "v"})
    target = cm_path(ns, "a") if path == "one" else mine(ns)
    as_json = server.http("GET", target).json()
    result = server.http("GET", target, headers={"Accept": "application/yaml"})
    assert (result.status, result.headers["content-type"]) == (200, "application/yaml")
    from_yaml = yaml.safe_load(result.body)
    if path == "list":  # a list's resourceVersion is the store's, which other writers move on meanwhile
        from_yaml["metadata"].pop("resourceVersion")
        as_json["metadata"].pop("resourceVersion")
    assert from_yaml == as_json
    if path == "one":
        assert as_json == created
    # kube writes YAML from the JSON document with its keys sorted
    top_keys = [
        line.split(":")[0] for line in result.body.decode().splitlines() if re.match(r"^[a-zA-Z]", line)
    ]
    assert top_keys == sorted(top_keys)


def test_yaml_error_status(server: KubeliteProcess, ns: str) -> None:
    status, content_type, body = get(server, cm_path(ns, "ghost"), "application/yaml")
    assert (status, content_type) == (404, "application/yaml")
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'configmaps "ghost" not found',
        "reason": "NotFound",
        "details": {"name": "ghost", "kind": "configmaps"},
        "code": 404,
    }


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/json, */*", "application/json"),
        ("*/*", "application/json"),
        ("application/yaml, application/json", "application/yaml"),
        ("application/xml, application/yaml", "application/yaml"),
    ],
    ids=["json-first", "anything", "yaml-first", "skip-unknown"],
)
def test_accept_negotiation(server: KubeliteProcess, ns: str, accept: str, content_type: str) -> None:
    create_cm(server, ns, "a", {"k": "v"})
    status, got, body = get(server, cm_path(ns, "a"), accept)
    assert (status, got, body["kind"]) == (200, content_type, "ConfigMap")


# -- Table ---------------------------------------------------------------------------------------------------


def test_table_for_a_list(server: KubeliteProcess, ns: str) -> None:
    create_cm(server, ns, "a", {"k": "v"})
    create_cm(server, ns, "b", {"k": "v", "j": "w"})
    status, content_type, table = get(server, mine(ns), KUBECTL_TABLE_ACCEPT)
    assert (status, content_type) == (200, "application/json")
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert set(table["metadata"]) == {"resourceVersion"}
    assert [(c["name"], c["type"], c["format"], c["priority"]) for c in table["columnDefinitions"]] == [
        ("Name", "string", "name", 0),
        ("Data", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert table["columnDefinitions"][0]["description"].startswith("Name must be unique within a namespace.")
    assert [row["cells"][:2] for row in table["rows"]] == [["a", 1], ["b", 2]]
    assert all(re.fullmatch(r"\d+s", row["cells"][2]) for row in table["rows"])


@pytest.mark.parametrize("include", ["", "Metadata", "None", "Object"])
def test_table_include_object(server: KubeliteProcess, ns: str, include: str) -> None:
    created = create_cm(server, ns, "a", {"k": "v"})
    query = f"includeObject={include}" if include else ""
    for path in (f"{mine(ns)}&{query}", f"{cm_path(ns, 'a')}?{query}"):
        _, _, table = get(server, path, TABLE)
        (row,) = table["rows"]
        if include in ("", "Metadata"):  # Metadata is the default
            assert row["object"] == {
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": created["metadata"],
            }
        elif include == "None":
            assert row["object"] is None
        else:
            assert row["object"] == created


def test_table_for_one_object_carries_its_resource_version(server: KubeliteProcess, ns: str) -> None:
    created = create_cm(server, ns, "a", {"k": "v"})
    create_cm(server, ns, "b", {"k": "v"})
    _, _, table = get(server, cm_path(ns, "a"), TABLE)
    assert (table["metadata"], [row["cells"][0] for row in table["rows"]]) == (
        {"resourceVersion": created["metadata"]["resourceVersion"]},
        ["a"],
    )


def test_table_of_a_paginated_list_keeps_the_continue_token(server: KubeliteProcess, ns: str) -> None:
    secrets = f"/api/v1/namespaces/{ns}/secrets"  # no controller adds secrets: the count is ours alone
    for name in "abc":
        assert server.http("POST", secrets, {"metadata": {"name": name}}).status == 201
    _, _, table = get(server, secrets + "?limit=2", TABLE)
    assert [row["cells"][0] for row in table["rows"]] == ["a", "b"]
    assert (table["metadata"]["remainingItemCount"], bool(table["metadata"]["continue"])) == (1, True)


def test_table_with_an_unknown_include_object_is_bad_request(server: KubeliteProcess, ns: str) -> None:
    status, _, body = get(server, cm_path(ns) + "?includeObject=Everything", TABLE)
    assert (status, body["reason"], body["message"]) == (
        400,
        "BadRequest",
        'includeObject: Unsupported value: "Everything": supported values: "Metadata", "None", "Object"',
    )


def test_table_of_pods_has_kubectl_columns(server: KubeliteProcess, ns: str) -> None:
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    assert server.http("POST", f"/api/v1/namespaces/{ns}/pods", pod).status == 201
    _, _, table = get(server, f"/api/v1/namespaces/{ns}/pods", TABLE)
    columns = [(c["name"], c["priority"]) for c in table["columnDefinitions"]]
    assert columns == [
        ("Name", 0),
        ("Ready", 0),
        ("Status", 0),
        ("Restarts", 0),
        ("Age", 0),
        ("IP", 1),
        ("Node", 1),
        ("Nominated Node", 1),
        ("Readiness Gates", 1),
    ]
    assert table["rows"][0]["cells"][:4] == ["p", "0/1", "Pending", "0"]


# -- PartialObjectMetadata ---------------------------------------------------------------------------------


def test_partial_object_metadata_list(server: KubeliteProcess, ns: str) -> None:
    first, second = create_cm(server, ns, "a", {"k": "v"}), create_cm(server, ns, "b", {"k": "v"})
    status, _, listed = get(server, mine(ns), PARTIAL_LIST)
    assert status == 200
    assert (listed["kind"], listed["apiVersion"]) == ("PartialObjectMetadataList", "meta.k8s.io/v1")
    assert listed["items"] == [
        {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj["metadata"]}
        for obj in (first, second)
    ]
    assert int(listed["metadata"]["resourceVersion"]) >= int(second["metadata"]["resourceVersion"])


def test_partial_object_metadata_get(server: KubeliteProcess, ns: str) -> None:
    created = create_cm(server, ns, "a", {"k": "v"})
    status, _, partial = get(server, cm_path(ns, "a"), PARTIAL)
    assert (status, partial) == (
        200,
        {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": created["metadata"]},
    )


@pytest.mark.parametrize(
    ("which", "accept", "message"),
    [
        (
            "list",
            PARTIAL,
            "you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)",
        ),
        (
            "one",
            PARTIAL_LIST,
            "you requested PartialObjectMetadataList, but the requested object is not a list "
            "(*core.ConfigMap)",
        ),
    ],
    ids=["single-for-list", "list-for-single"],
)
def test_partial_metadata_of_the_wrong_shape_is_406(
    server: KubeliteProcess, ns: str, which: str, accept: str, message: str
) -> None:
    create_cm(server, ns, "a", {"k": "v"})
    status, _, body = get(server, cm_path(ns, "a") if which == "one" else cm_path(ns), accept)
    assert (status, body) == (
        406,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": "NotAcceptable",
            "code": 406,
        },
    )


def test_metadata_client_accept_header(server: KubeliteProcess, ns: str) -> None:
    """client-go's metadata client asks for protobuf first, then JSON, then anything: JSON wins."""
    create_cm(server, ns, "a", {"k": "v"})
    accept = (
        "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
        f"{PARTIAL_LIST},application/json"
    )
    status, content_type, listed = get(server, cm_path(ns), accept)
    assert (status, content_type, listed["kind"]) == (200, "application/json", "PartialObjectMetadataList")


# -- health -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/healthz", "/livez", "/readyz"])
def test_health_endpoints_answer_ok(server: KubeliteProcess, path: str) -> None:
    result = server.http("GET", path)
    assert (result.status, result.body) == (200, b"ok")
    assert result.headers["content-type"] == "text/plain; charset=utf-8"
    assert result.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("kind", ["healthz", "livez", "readyz"])
def test_verbose_health_lists_every_check(server: KubeliteProcess, kind: str) -> None:
    result = server.http("GET", f"/{kind}?verbose")
    lines = result.body.decode().splitlines()
    assert result.status == 200
    assert lines[-1] == f"{kind} check passed"
    assert lines[:3] == ["[+]ping ok", "[+]log ok", "[+]etcd ok"]
    assert all(re.fullmatch(r"\[\+\][a-z0-9/-]+ ok", line) for line in lines[:-1]), lines
    assert result.body.endswith(b"\n")


def test_excluded_check_is_reported_as_excluded(server: KubeliteProcess) -> None:
    lines = server.http("GET", "/readyz?verbose&exclude=etcd").body.decode().splitlines()
    assert "[+]etcd excluded: ok" in lines
    assert lines[-1] == "readyz check passed"


@pytest.mark.parametrize(
    ("path", "code", "body"),
    [
        ("/healthz/ping", 200, b"ok"),
        ("/livez/etcd", 200, b"ok"),
        ("/readyz/nonexistent", 404, b"404 page not found\n"),
    ],
)
def test_single_health_check(server: KubeliteProcess, path: str, code: int, body: bytes) -> None:
    result = server.http("GET", path)
    assert (result.status, result.body) == (code, body)


def test_managed_fields_of_cached_objects_in_every_encoding(server: KubeliteProcess, ns: str) -> None:
    """The watch cache keeps managedFields pre-encoded; gets and lists answered from it show them the same in
    JSON, YAML and protobuf as the object the create returned."""
    import json

    from kubelite.apimachinery import protobuf

    created = server.http("POST", cm_path(ns), {"metadata": {"name": "mf"}, "data": {"k": "v"}})
    assert created.status == 201
    expected = json.loads(created.body)["metadata"]["managedFields"]
    assert expected[0]["fieldsV1"] == {"f:data": {".": {}, "f:k": {}}}
    as_json = json.loads(server.http("GET", cm_path(ns, "mf")).body)
    as_yaml = yaml.safe_load(server.http("GET", cm_path(ns, "mf"), headers={"Accept": "application/yaml"}).body)
    as_proto = protobuf.decode(
        server.http("GET", cm_path(ns, "mf"), headers={"Accept": "application/vnd.kubernetes.protobuf"}).body
    )
    listed = [i for i in json.loads(server.http("GET", cm_path(ns)).body)["items"] if i["metadata"]["name"] == "mf"]
    listed_yaml = yaml.safe_load(server.http("GET", cm_path(ns), headers={"Accept": "application/yaml"}).body)
    listed_yaml_items = [i for i in listed_yaml["items"] if i["metadata"]["name"] == "mf"]
    assert [
        as_json["metadata"]["managedFields"],
        as_yaml["metadata"]["managedFields"],
        as_proto["metadata"]["managedFields"],
        listed[0]["metadata"]["managedFields"],
        listed_yaml_items[0]["metadata"]["managedFields"],
    ] == [expected] * 5
