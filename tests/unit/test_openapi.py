"""OpenAPI documents: schema conversion, paths and operations per catalog resource, index, hashes, replies."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubelite.endpoints.openapi import OpenAPIBuilder, builder, naming, schemas, swagger_ui
from kubelite.endpoints.openapi.paths import PATCH_TYPES
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.spec import ResourceSpec, SubresourceSpec

POD = "io.k8s.api.core.v1.Pod"
V3 = "#/components/schemas/"
V2 = "#/definitions/"


@pytest.fixture(scope="module")
def openapi() -> OpenAPIBuilder:
    return OpenAPIBuilder(BUILTIN_RESOURCES)


@pytest.fixture(scope="module")
def v3_docs(openapi: OpenAPIBuilder) -> dict[str, dict[str, Any]]:
    docs = {}
    for name in openapi.v3_names:
        built = openapi.v3_document(name)
        assert built is not None
        docs[name] = json.loads(built[0])
    return docs


@pytest.fixture(scope="module")
def v2_doc(openapi: OpenAPIBuilder) -> dict[str, Any]:
    return json.loads(openapi.v2_document()[0])


def _gv_name(spec: ResourceSpec) -> str:
    return f"apis/{spec.group}/{spec.version}" if spec.group else f"api/{spec.version}"


def _prefix(spec: ResourceSpec) -> str:
    return "/" + _gv_name(spec)


def _collection(spec: ResourceSpec) -> str:
    ns = "/namespaces/{namespace}" if spec.namespaced else ""
    return f"{_prefix(spec)}{ns}/{spec.resource}"


def _ids(specs: tuple[ResourceSpec, ...]) -> list[str]:
    return [f"{s.resource}.{s.group or 'core'}" for s in specs]


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


# schema conversion


@pytest.mark.parametrize(
    ("source", "v3", "v2"),
    [
        ({"type": ["string", "null"]}, {"type": "string"}, {"type": "string"}),
        (
            {"type": "integer", "format": "int32"},
            {"type": "integer", "format": "int32"},
            {"type": "integer", "format": "int32"},
        ),
        ({"$ref": "#/$defs/a.B"}, {"$ref": V3 + "a.B"}, {"$ref": V2 + "a.B"}),
        (
            {"$ref": "#/$defs/a.B", "description": "d"},
            {"allOf": [{"$ref": V3 + "a.B"}], "description": "d"},
            {"$ref": V2 + "a.B", "description": "d"},
        ),
        (
            {
                "type": ["array", "null"],
                "items": {"$ref": "#/$defs/a.B"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
            {
                "type": "array",
                "items": {"$ref": V3 + "a.B"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
            {
                "type": "array",
                "items": {"$ref": V2 + "a.B"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-merge-key": "name",
                "x-kubernetes-patch-strategy": "merge",
            },
        ),
        (
            {
                "type": ["object", "null"],
                "additionalProperties": {"type": ["string", "null"]},
                "x-kubernetes-map-type": "atomic",
            },
            {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
            {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
        ),
        (
            {
                "properties": {
                    "apiVersion": {"type": ["string", "null"], "enum": ["v1"]},
                    "kind": {"type": ["string", "null"], "enum": ["Pod"]},
                    "policy": {"type": "string", "enum": ["A", "B"]},
                },
                "required": ["policy"],
            },
            {
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "policy": {"type": "string", "enum": ["A", "B"]},
                },
                "required": ["policy"],
            },
            {
                "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "policy": {"type": "string", "enum": ["A", "B"]},
                },
                "required": ["policy"],
            },
        ),
        (
            {"$ref": "#/$defs/a.B", "description": "d", "x-kubernetes-patch-strategy": "merge"},
            {"allOf": [{"$ref": V3 + "a.B"}], "description": "d", "x-kubernetes-patch-strategy": "merge"},
            {"$ref": V2 + "a.B", "description": "d", "x-kubernetes-patch-strategy": "merge"},
        ),
    ],
    ids=[
        "nullable",
        "plain",
        "ref",
        "ref-with-siblings",
        "list-extensions",
        "map",
        "pinned-enums",
        "ref-with-extension",
    ],
)
def test_convert(source: dict[str, Any], v3: dict[str, Any], v2: dict[str, Any]) -> None:
    assert schemas.convert(source, "v3") == v3
    assert schemas.convert(source, "v2") == v2


@pytest.mark.parametrize(
    ("name", "flavour", "expected"),
    [
        (
            schemas.INT_OR_STRING,
            "v3",
            {"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]},
        ),
        (schemas.INT_OR_STRING, "v2", {"format": "int-or-string", "type": "string"}),
        (schemas.QUANTITY, "v3", {"oneOf": [{"type": "string"}, {"type": "number"}]}),
        (schemas.QUANTITY, "v2", {"type": "string"}),
    ],
    ids=["int-or-string-v3", "int-or-string-v2", "quantity-v3", "quantity-v2"],
)
def test_special_scalars(name: str, flavour: schemas.Flavour, expected: dict[str, Any]) -> None:
    converted = dict(schemas.converted(name, flavour))
    assert converted.pop("description")
    assert converted == expected


def test_pod_schema_as_kube_publishes_it() -> None:
    pod = schemas.converted(POD, "v3")
    assert pod["type"] == "object"
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["apiVersion"] == {
        "description": schemas.definitions()[POD]["properties"]["apiVersion"]["description"],
        "type": "string",
    }
    assert pod["properties"]["metadata"]["allOf"] == [
        {"$ref": V3 + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    ]
    containers = schemas.converted("io.k8s.api.core.v1.PodSpec", "v3")["properties"]["containers"]
    assert {k: v for k, v in containers.items() if k != "description"} == {
        "items": {"$ref": V3 + "io.k8s.api.core.v1.Container"},
        "type": "array",
        "x-kubernetes-list-map-keys": ["name"],
        "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-patch-strategy": "merge",
    }


@pytest.mark.parametrize("spec", BUILTIN_RESOURCES, ids=_ids(BUILTIN_RESOURCES))
def test_every_catalog_kind_has_a_definition(spec: ResourceSpec) -> None:
    assert schemas.definition_for(spec.group, spec.version, spec.kind) is not None
    if "list" in spec.verbs:
        assert schemas.definition_for(spec.group, spec.version, spec.list_kind) is not None


def test_definitions_are_not_read_at_construction() -> None:
    code = (
        "from kubelite.endpoints.openapi import OpenAPIBuilder, schemas\n"
        "from kubelite.registry.catalog import BUILTIN_RESOURCES\n"
        "b = OpenAPIBuilder(BUILTIN_RESOURCES)\n"
        "print(schemas.definitions.cache_info().currsize, len(b.v3_names))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert out.stdout.split() == ["0", "32"]


# naming


@pytest.mark.parametrize(
    ("verb", "group", "version", "rest", "expected"),
    [
        ("list", "", "v1", "NamespacedPod", "listCoreV1NamespacedPod"),
        ("patch", "apps", "v1", "NamespacedDeployment", "patchAppsV1NamespacedDeployment"),
        (
            "delete",
            "rbac.authorization.k8s.io",
            "v1",
            "CollectionClusterRole",
            "deleteRbacAuthorizationV1CollectionClusterRole",
        ),
        ("get", "coordination.k8s.io", None, "APIGroup", "getCoordinationAPIGroup"),
        ("get", "autoscaling", "v2", "APIResources", "getAutoscalingV2APIResources"),
    ],
    ids=["core", "apps", "dotted-group", "group-only", "resources"],
)
def test_operation_id(verb: str, group: str, version: str | None, rest: str, expected: str) -> None:
    assert naming.operation_id(verb, group, version, rest) == expected


@pytest.mark.parametrize(
    ("group", "version", "expected"),
    [
        ("", "v1", "core_v1"),
        ("rbac.authorization.k8s.io", "v1", "rbacAuthorization_v1"),
        ("apps", None, "apps"),
    ],
    ids=["core", "dotted", "group"],
)
def test_tag(group: str, version: str | None, expected: str) -> None:
    assert naming.tag(group, version) == expected


# index and hashes


def test_index_shape(openapi: OpenAPIBuilder) -> None:
    index = openapi.v3_index()
    assert list(index) == ["paths"]
    assert sorted(index["paths"]) == [
        "api",
        "api/v1",
        "apis",
        "apis/apps",
        "apis/apps/v1",
        "apis/authentication.k8s.io",
        "apis/authentication.k8s.io/v1",
        "apis/authorization.k8s.io",
        "apis/authorization.k8s.io/v1",
        "apis/autoscaling",
        "apis/autoscaling/v2",
        "apis/batch",
        "apis/batch/v1",
        "apis/certificates.k8s.io",
        "apis/certificates.k8s.io/v1",
        "apis/coordination.k8s.io",
        "apis/coordination.k8s.io/v1",
        "apis/discovery.k8s.io",
        "apis/discovery.k8s.io/v1",
        "apis/events.k8s.io",
        "apis/events.k8s.io/v1",
        "apis/networking.k8s.io",
        "apis/networking.k8s.io/v1",
        "apis/policy",
        "apis/policy/v1",
        "apis/rbac.authorization.k8s.io",
        "apis/rbac.authorization.k8s.io/v1",
        "apis/scheduling.k8s.io",
        "apis/scheduling.k8s.io/v1",
        "apis/storage.k8s.io",
        "apis/storage.k8s.io/v1",
        "version",
    ]
    for name, entry in index["paths"].items():
        built = openapi.v3_document(name)
        assert built is not None
        assert entry == {"serverRelativeURL": f"/openapi/v3/{name}?hash={built[1]}"}


def test_hash_is_uppercase_sha512_of_bytes_and_stable(openapi: OpenAPIBuilder) -> None:
    data, tag = openapi.v3_document("api/v1") or (b"", "")
    assert tag == hashlib.sha512(data).hexdigest().upper()
    assert len(tag) == 128
    again = OpenAPIBuilder(BUILTIN_RESOURCES)
    assert again.v3_document("api/v1") == (data, tag)
    assert again.v2_document() == openapi.v2_document()
    assert openapi.v3_document("api/v1")[0] is data  # type: ignore[index]
    index_bytes, index_tag = openapi.v3_index_document()
    assert index_tag == builder.etag(index_bytes)
    assert json.loads(index_bytes) == openapi.v3_index()


@pytest.mark.parametrize(
    "name",
    ["api/v2", "apis/apps/v1beta1", "apis/example.com/v1", "", "apis/"],
    ids=["core-v2", "old-version", "unknown-group", "empty", "apis-slash"],
)
def test_unknown_document(openapi: OpenAPIBuilder, name: str) -> None:
    assert openapi.v3_document(name) is None


def test_reply_with_current_hash_is_immutable(openapi: OpenAPIBuilder) -> None:
    data, tag = openapi.v3_document("apis/apps/v1") or (b"", "")
    reply = openapi.v3_reply("apis/apps/v1", tag)
    assert (reply.status, reply.body) == (200, data)
    assert reply.headers["Etag"] == f'"{tag}"'
    assert reply.headers["Cache-Control"] == "public, immutable"
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.headers["Expires"].endswith(" GMT")


@pytest.mark.parametrize(
    ("name", "requested", "status", "location"),
    [
        ("apis/apps/v1", "STALE", 301, "current"),
        ("apis/apps/v1", None, 200, None),
        ("apis/nope/v1", None, 404, None),
    ],
    ids=["stale-hash-redirects", "no-hash", "unknown"],
)
def test_reply(
    openapi: OpenAPIBuilder, name: str, requested: str | None, status: int, location: str | None
) -> None:
    reply = openapi.v3_reply(name, requested)
    assert reply.status == status
    if location:
        tag = (openapi.v3_document(name) or (b"", ""))[1]
        assert reply.headers == {"Location": f"/openapi/v3/{name}?hash={tag}"}
    elif status == 200:
        assert "Cache-Control" not in reply.headers


# documents


def test_v3_document_header(v3_docs: dict[str, dict[str, Any]]) -> None:
    doc = v3_docs["api/v1"]
    assert doc["openapi"] == "3.0.0"
    assert doc["info"] == {"title": "Kubernetes", "version": "v1.36.0"}
    assert sorted(doc) == ["components", "info", "openapi", "paths"]
    assert list(doc["components"]["securitySchemes"]) == ["BearerToken"]


@pytest.mark.parametrize(
    "name", [*sorted({_gv_name(s) for s in BUILTIN_RESOURCES}), "api", "apis", "version"]
)
def test_v3_refs_resolve_within_document(v3_docs: dict[str, dict[str, Any]], name: str) -> None:
    doc = v3_docs[name]
    refs = set(_refs(doc))
    assert refs
    assert {ref.removeprefix(V3) for ref in refs} <= set(doc["components"]["schemas"])
    assert all(ref.startswith(V3) for ref in refs)
    # nothing unreachable is carried along
    assert set(doc["components"]["schemas"]) == set(
        schemas.closure(ref.removeprefix(V3) for ref in _refs(doc["paths"]))
    )


def test_v2_refs_resolve(v2_doc: dict[str, Any]) -> None:
    refs = set(_refs(v2_doc))
    assert all(ref.startswith(V2) for ref in refs)
    assert {ref.removeprefix(V2) for ref in refs} <= set(v2_doc["definitions"])


_OPERATIONS = [
    ("api/v1", "/api/v1/namespaces/{namespace}/pods", "get", "listCoreV1NamespacedPod", "list", "Pod"),
    ("api/v1", "/api/v1/pods", "get", "listCoreV1PodForAllNamespaces", "list", "Pod"),
    ("api/v1", "/api/v1/namespaces/{namespace}/pods", "post", "createCoreV1NamespacedPod", "post", "Pod"),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods",
        "delete",
        "deleteCoreV1CollectionNamespacedPod",
        "deletecollection",
        "Pod",
    ),
    ("api/v1", "/api/v1/namespaces/{namespace}/pods/{name}", "get", "readCoreV1NamespacedPod", "get", "Pod"),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods/{name}",
        "put",
        "replaceCoreV1NamespacedPod",
        "put",
        "Pod",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods/{name}",
        "delete",
        "deleteCoreV1NamespacedPod",
        "delete",
        "Pod",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods/{name}/status",
        "get",
        "readCoreV1NamespacedPodStatus",
        "get",
        "Pod",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods/{name}/log",
        "get",
        "readCoreV1NamespacedPodLog",
        "get",
        "Pod",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/pods/{name}/binding",
        "post",
        "createCoreV1NamespacedPodBinding",
        "post",
        "Binding",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{namespace}/bindings",
        "post",
        "createCoreV1NamespacedBinding",
        "post",
        "Binding",
    ),
    (
        "api/v1",
        "/api/v1/namespaces/{name}/finalize",
        "put",
        "replaceCoreV1NamespaceFinalize",
        "put",
        "Namespace",
    ),
    ("api/v1", "/api/v1/nodes/{name}/status", "patch", "patchCoreV1NodeStatus", "patch", "Node"),
    (
        "api/v1",
        "/api/v1/watch/namespaces/{namespace}/pods",
        "get",
        "watchCoreV1NamespacedPodList",
        "watchlist",
        "Pod",
    ),
    (
        "api/v1",
        "/api/v1/watch/namespaces/{namespace}/pods/{name}",
        "get",
        "watchCoreV1NamespacedPod",
        "watch",
        "Pod",
    ),
    ("api/v1", "/api/v1/watch/pods", "get", "watchCoreV1PodListForAllNamespaces", "watchlist", "Pod"),
    ("api/v1", "/api/v1/watch/nodes", "get", "watchCoreV1NodeList", "watchlist", "Node"),
    (
        "apis/apps/v1",
        "/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
        "patch",
        "patchAppsV1NamespacedDeployment",
        "patch",
        "Deployment",
    ),
    (
        "apis/apps/v1",
        "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
        "patch",
        "patchAppsV1NamespacedDeploymentScale",
        "patch",
        "Scale",
    ),
    (
        "apis/rbac.authorization.k8s.io/v1",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "delete",
        "deleteRbacAuthorizationV1CollectionClusterRole",
        "deletecollection",
        "ClusterRole",
    ),
]


@pytest.mark.parametrize(
    ("name", "path", "method", "operation_id", "action", "gvk"),
    _OPERATIONS,
    ids=[row[3] for row in _OPERATIONS],
)
def test_operation(
    v3_docs: dict[str, dict[str, Any]],
    name: str,
    path: str,
    method: str,
    operation_id: str,
    action: str,
    gvk: str,
) -> None:
    op = v3_docs[name]["paths"][path][method]
    assert op["operationId"] == operation_id
    assert op["x-kubernetes-action"] == action
    assert op["x-kubernetes-group-version-kind"]["kind"] == gvk


@pytest.mark.parametrize("spec", BUILTIN_RESOURCES, ids=_ids(BUILTIN_RESOURCES))
def test_resource_paths(v3_docs: dict[str, dict[str, Any]], spec: ResourceSpec) -> None:
    paths = v3_docs[_gv_name(spec)]["paths"]
    verbs = set(spec.verbs)
    collection, item = _collection(spec), _collection(spec) + "/{name}"
    expected_collection = {
        m for v, m in (("list", "get"), ("create", "post"), ("deletecollection", "delete")) if v in verbs
    }
    assert set(paths[collection]) - {"parameters"} == expected_collection
    expected_item = {
        m
        for v, m in (("get", "get"), ("update", "put"), ("patch", "patch"), ("delete", "delete"))
        if v in verbs
    }
    assert set(paths.get(item, {})) - {"parameters"} == expected_item
    if spec.namespaced and "list" in verbs:
        assert set(paths[f"{_prefix(spec)}/{spec.resource}"]) == {"get", "parameters"}
    if "watch" in verbs:
        ns = "/namespaces/{namespace}" if spec.namespaced else ""
        assert f"{_prefix(spec)}/watch{ns}/{spec.resource}" in paths
        assert f"{_prefix(spec)}/watch{ns}/{spec.resource}/{{name}}" in paths
    for sub in spec.subresources:
        assert f"{item}/{sub.name}" in paths
    list_schema = schemas.definition_for(spec.group, spec.version, spec.list_kind)
    if "list" in verbs:
        content = paths[collection]["get"]["responses"]["200"]["content"]
        assert content["application/json;stream=watch"] == {"schema": {"$ref": V3 + str(list_schema)}}


@pytest.mark.parametrize(
    "spec",
    [s for s in BUILTIN_RESOURCES if "patch" in s.verbs],
    ids=_ids(tuple(s for s in BUILTIN_RESOURCES if "patch" in s.verbs)),
)
def test_patch_operation_satisfies_kubectl(v3_docs: dict[str, dict[str, Any]], spec: ResourceSpec) -> None:
    """kubectl's fieldValidation check and client-side apply read exactly these parts of the PATCH op."""
    op = v3_docs[_gv_name(spec)]["paths"][_collection(spec) + "/{name}"]["patch"]
    assert op["x-kubernetes-group-version-kind"] == {
        "group": spec.group,
        "version": spec.version,
        "kind": spec.kind,
    }
    query = {p["name"]: p["schema"]["type"] for p in op["parameters"] if p["in"] == "query"}
    assert query == {
        "dryRun": "string",
        "fieldManager": "string",
        "fieldValidation": "string",
        "force": "boolean",
    }
    assert op["requestBody"] == {
        "content": {
            t: {"schema": {"$ref": V3 + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}} for t in PATCH_TYPES
        },
        "required": True,
    }
    assert "application/strategic-merge-patch+json" in op["requestBody"]["content"]
    definition = schemas.definition_for(spec.group, spec.version, spec.kind)
    assert op["responses"]["200"]["content"]["application/json"] == {"schema": {"$ref": V3 + str(definition)}}
    assert set(op["responses"]) == {"200", "201", "401"}


def test_parameters_shared_by_all_operations_sit_on_the_path(v3_docs: dict[str, dict[str, Any]]) -> None:
    paths = v3_docs["api/v1"]["paths"]
    item = paths["/api/v1/namespaces/{namespace}/pods/{name}"]
    assert [(p["name"], p["in"], p.get("required", False)) for p in item["parameters"]] == [
        ("name", "path", True),
        ("namespace", "path", True),
        ("pretty", "query", False),
    ]
    assert "parameters" not in item["get"]
    assert [p["name"] for p in item["delete"]["parameters"]] == [
        "dryRun",
        "gracePeriodSeconds",
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "orphanDependents",
        "propagationPolicy",
    ]
    all_namespaces = paths["/api/v1/pods"]
    assert [p["name"] for p in all_namespaces["parameters"]] == [
        "allowWatchBookmarks",
        "continue",
        "fieldSelector",
        "labelSelector",
        "limit",
        "pretty",
        "resourceVersion",
        "resourceVersionMatch",
        "sendInitialEvents",
        "shardSelector",
        "timeoutSeconds",
        "watch",
    ]
    assert all_namespaces["parameters"][4] == {
        "description": all_namespaces["parameters"][4]["description"],
        "in": "query",
        "name": "limit",
        "schema": {"type": "integer", "uniqueItems": True},
    }
    log = paths["/api/v1/namespaces/{namespace}/pods/{name}/log"]
    assert [p["name"] for p in log["parameters"]] == [
        "container",
        "follow",
        "insecureSkipTLSVerifyBackend",
        "limitBytes",
        "name",
        "namespace",
        "pretty",
        "previous",
        "sinceSeconds",
        "stream",
        "tailLines",
        "timestamps",
    ]
    assert log["get"]["responses"]["200"]["content"]["text/plain"] == {"schema": {"type": "string"}}


@pytest.mark.parametrize(
    ("path", "schema"),
    [
        ("/api/v1/namespaces/{namespace}/pods/{name}", POD),
        ("/api/v1/namespaces/{namespace}/services/{name}", "io.k8s.api.core.v1.Service"),
        ("/api/v1/namespaces/{namespace}/configmaps/{name}", "io.k8s.apimachinery.pkg.apis.meta.v1.Status"),
        ("/api/v1/nodes/{name}", "io.k8s.apimachinery.pkg.apis.meta.v1.Status"),
    ],
    ids=["pod-returns-object", "service-returns-object", "configmap-returns-status", "node-returns-status"],
)
def test_delete_response(v3_docs: dict[str, dict[str, Any]], path: str, schema: str) -> None:
    op = v3_docs["api/v1"]["paths"][path]["delete"]
    assert op["responses"]["200"]["content"]["application/json"] == {"schema": {"$ref": V3 + schema}}
    assert op["requestBody"] == {
        "content": {"*/*": {"schema": {"$ref": V3 + "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"}}}
    }


@pytest.mark.parametrize(
    ("name", "path", "operation_id", "schema"),
    [
        ("api", "/api/", "getCoreAPIVersions", "io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions"),
        ("apis", "/apis/", "getAPIVersions", "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList"),
        ("apis/apps", "/apis/apps/", "getAppsAPIGroup", "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup"),
        ("version", "/version/", "getCodeVersion", "io.k8s.apimachinery.pkg.version.Info"),
        (
            "api/v1",
            "/api/v1/",
            "getCoreV1APIResources",
            "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList",
        ),
    ],
    ids=["api", "apis", "group", "version", "group-version"],
)
def test_discovery_roots(
    v3_docs: dict[str, dict[str, Any]], name: str, path: str, operation_id: str, schema: str
) -> None:
    op = v3_docs[name]["paths"][path]["get"]
    assert op["operationId"] == operation_id
    assert op["responses"]["200"]["content"]["application/json"] == {"schema": {"$ref": V3 + schema}}
    assert "x-kubernetes-action" not in op


def test_explain_sees_gvk_on_schemas(v3_docs: dict[str, dict[str, Any]]) -> None:
    schemas_ = v3_docs["apis/apps/v1"]["components"]["schemas"]
    assert schemas_["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    strategy = schemas_["io.k8s.api.apps.v1.RollingUpdateDeployment"]["properties"]["maxSurge"]
    assert strategy["allOf"] == [{"$ref": V3 + schemas.INT_OR_STRING}]
    assert "format" in schemas_[schemas.INT_OR_STRING]


def test_v2_document(v2_doc: dict[str, Any]) -> None:
    assert v2_doc["swagger"] == "2.0"
    assert v2_doc["info"] == {"title": "Kubernetes", "version": "v1.36.0"}
    assert v2_doc["security"] == [{"BearerToken": []}]
    op = v2_doc["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert op["consumes"] == list(PATCH_TYPES)
    assert op["parameters"][0] == {
        "in": "body",
        "name": "body",
        "required": True,
        "schema": {"$ref": V2 + "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"},
    }
    assert [p["name"] for p in op["parameters"][1:]] == ["dryRun", "fieldManager", "fieldValidation", "force"]
    assert op["parameters"][3]["type"] == "string"
    assert op["x-kubernetes-group-version-kind"] == {"group": "", "kind": "Pod", "version": "v1"}
    assert op["responses"]["200"] == {"description": "OK", "schema": {"$ref": V2 + POD}}
    assert op["schemes"] == ["https"]
    metadata = v2_doc["definitions"][POD]["properties"]["metadata"]
    assert metadata["$ref"] == V2 + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    assert "allOf" not in metadata
    assert {k: v for k, v in v2_doc["definitions"][schemas.INT_OR_STRING].items() if k != "description"} == {
        "format": "int-or-string",
        "type": "string",
    }
    every_path = {p for doc_paths in [v2_doc["paths"]] for p in doc_paths}
    assert {
        "/api/",
        "/apis/",
        "/version/",
        "/apis/apps/v1/",
        "/apis/apps/v1/namespaces/{namespace}/deployments",
    } <= every_path


# subresources beyond the catalog's: connect routes, token, eviction


def test_connect_and_create_subresources() -> None:
    pods = ResourceSpec(
        "",
        "v1",
        "pods",
        "Pod",
        "pod",
        True,
        subresources=(
            SubresourceSpec("exec", verbs=("create", "get")),
            SubresourceSpec("proxy"),
            SubresourceSpec("eviction", group="policy", version="v1", kind="Eviction", verbs=("create",)),
        ),
    )
    doc = json.loads((OpenAPIBuilder([pods]).v3_document("api/v1") or (b"", ""))[0])
    paths = doc["paths"]
    exec_ = paths["/api/v1/namespaces/{namespace}/pods/{name}/exec"]
    assert sorted(exec_) == ["get", "parameters", "post"]
    assert exec_["post"]["operationId"] == "connectCoreV1PostNamespacedPodExec"
    assert exec_["post"]["x-kubernetes-group-version-kind"] == {
        "group": "",
        "kind": "PodExecOptions",
        "version": "v1",
    }
    assert exec_["post"]["responses"]["200"] == {
        "content": {"*/*": {"schema": {"type": "string"}}},
        "description": "OK",
    }
    assert [p["name"] for p in exec_["parameters"]] == [
        "command",
        "container",
        "name",
        "namespace",
        "stderr",
        "stdin",
        "stdout",
        "tty",
    ]
    proxy_path = paths["/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}"]
    assert sorted(proxy_path) == ["delete", "get", "head", "options", "parameters", "patch", "post", "put"]
    assert proxy_path["head"]["operationId"] == "connectCoreV1HeadNamespacedPodProxyWithPath"
    assert [(p["name"], p["in"]) for p in proxy_path["parameters"]] == [
        ("name", "path"),
        ("namespace", "path"),
        ("path", "path"),
        ("path", "query"),
    ]
    eviction = paths["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"]
    assert eviction["operationId"] == "createCoreV1NamespacedPodEviction"
    assert eviction["requestBody"]["content"]["*/*"] == {
        "schema": {"$ref": V3 + "io.k8s.api.policy.v1.Eviction"}
    }
    assert "io.k8s.api.policy.v1.Eviction" in doc["components"]["schemas"]


# swagger UI


def test_swagger_ui_page() -> None:
    page = swagger_ui.page().decode()
    assert page.startswith("<!DOCTYPE html>")
    for needle in (
        'src="/swagger-ui/swagger-ui-bundle.js"',
        'href="/swagger-ui/swagger-ui.css"',
        'fetch("/openapi/v3"',
        '"/openapi/v2"',
    ):
        assert needle in page


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("swagger-ui.css", (b"css", "text/css; charset=utf-8")),
        ("swagger-ui-bundle.js", (b"js", "text/javascript; charset=utf-8")),
        ("favicon-32x32.png", (b"png", "image/png")),
        ("index.html", None),
        ("../swagger-ui.css", None),
        ("swagger-ui-standalone-preset.js", None),
    ],
    ids=["css", "js", "png", "unlisted", "traversal", "listed-but-absent"],
)
def test_swagger_ui_assets(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, expected: tuple[bytes, str] | None
) -> None:
    for file, body in (
        ("swagger-ui.css", b"css"),
        ("swagger-ui-bundle.js", b"js"),
        ("favicon-32x32.png", b"png"),
        ("index.html", b"html"),
    ):
        (tmp_path / file).write_bytes(body)
    monkeypatch.setattr(swagger_ui, "_asset_dir", lambda: tmp_path)
    assert swagger_ui.asset(name) == expected


def test_swagger_ui_assets_without_a_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swagger_ui, "_asset_dir", lambda: None)
    assert swagger_ui.asset("swagger-ui.css") is None
