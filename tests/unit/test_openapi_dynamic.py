"""OpenAPI documents that change while the server runs: custom resources added and removed, what a CRD
publishes (kube's CRD OpenAPI builder), the v2 form of its schemas, and the v2 document in protobuf."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kubelite.apiextensions import openapi as crd_openapi
from kubelite.endpoints.openapi import OpenAPIBuilder, custom_v2, naming, v2_protobuf
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.spec import ResourceSpec, SubresourceSpec
from kubelite.server.nonresource import _v2_encoding

GV = "apis/stable.example.com/v1"
CRONTAB = "com.example.stable.v1.CronTab"
CRONTAB_LIST = "com.example.stable.v1.CronTabList"
OBJECT_META_V3 = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
OBJECT_META_V2 = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
CR_PATCH_TYPES = ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"]

NAMES = {
    "plural": "crontabs",
    "singular": "crontab",
    "kind": "CronTab",
    "listKind": "CronTabList",
    "shortNames": ["ct"],
}


def _crd() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "crontabs.stable.example.com"},
        "spec": {
            "group": "stable.example.com",
            "scope": "Namespaced",
            "names": dict(NAMES),
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {
                        "status": {},
                        "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
                    },
                    "selectableFields": [{"jsonPath": ".spec.cronSpec"}],
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "description": "A cron job of a kind.",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "required": ["cronSpec", "note"],
                                    "properties": {
                                        "cronSpec": {"type": "string", "pattern": "^\\d+$", "default": "5"},
                                        "note": {"type": "string", "nullable": True},
                                        "replicas": {"type": "integer", "minimum": 1, "exclusiveMinimum": False},
                                        "port": {"x-kubernetes-int-or-string": True},
                                        "choice": {"type": "string", "oneOf": [{"pattern": "^a"}, {"pattern": "^b"}]},
                                        "free": {
                                            "type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True,
                                            "properties": {"a": {"type": "string"}},
                                        },
                                        "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                                                     "properties": {"spec": {"type": "object"}}},
                                        "tags": {
                                            "type": "array",
                                            "items": {"type": "string"},
                                            "x-kubernetes-list-type": "set",
                                        },
                                        "anything": {"type": "array", "items": {
                                            "x-kubernetes-preserve-unknown-fields": True}},
                                    },
                                },
                                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                            },
                        }
                    },
                },
                {
                    "name": "v2",
                    "served": True,
                    "storage": False,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                },
                {"name": "v0", "served": False, "storage": False},
            ],
        },
        "status": {"acceptedNames": dict(NAMES), "conditions": [{"type": "Established", "status": "True"}]},
    }


CRD_RESOURCE = ResourceSpec(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
    "customresourcedefinition",
    False,
    short_names=("crd", "crds"),
    subresources=(SubresourceSpec("status"),),
)


@pytest.fixture
def openapi() -> OpenAPIBuilder:
    return OpenAPIBuilder(BUILTIN_RESOURCES)


def _install(builder: OpenAPIBuilder, crd: dict[str, Any]) -> None:
    for spec, definitions in crd_openapi.published(crd):
        builder.add_resource(spec, definitions)


def _doc(builder: OpenAPIBuilder, name: str) -> dict[str, Any]:
    built = builder.v3_document(name)
    assert built is not None, name
    result: dict[str, Any] = json.loads(built[0])
    return result


def _v2(builder: OpenAPIBuilder) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(builder.v2_document()[0])
    return result


# the builder: documents and index change, untouched documents keep their bytes


def test_adding_custom_resources_adds_their_documents_and_leaves_others_untouched(openapi: OpenAPIBuilder) -> None:
    before = openapi.v3_index()["paths"]
    untouched = {name: openapi.v3_document(name) for name in openapi.v3_names}
    v2_before = openapi.v2_document()
    _install(openapi, _crd())
    after = openapi.v3_index()["paths"]
    # one document per served version; no group document for a group of custom resources only
    assert sorted(set(after) - set(before)) == [GV, "apis/stable.example.com/v2"]
    assert "apis/stable.example.com" not in after
    assert {name: after[name] for name in before} == before
    for name, built in untouched.items():
        assert openapi.v3_document(name) is built  # the very same bytes, not rebuilt
    assert openapi.v2_document()[1] != v2_before[1]
    assert openapi.v3_document("apis/stable.example.com/v0") is None


def test_removal_restores_every_document(openapi: OpenAPIBuilder) -> None:
    index_before = openapi.v3_index_document()
    v2_before = openapi.v2_document()
    _install(openapi, _crd())
    assert openapi.v3_index_document() != index_before
    openapi.remove_resource("stable.example.com", "v1", "crontabs")
    assert GV not in openapi.v3_names
    assert "apis/stable.example.com/v2" in openapi.v3_names
    openapi.remove_resource("stable.example.com", "v2", "crontabs")
    openapi.remove_resource("stable.example.com", "v2", "crontabs")  # removing twice is harmless
    assert openapi.v3_index_document() == index_before
    assert openapi.v2_document() == v2_before
    assert openapi.v3_document(GV) is None
    assert openapi.v3_reply(GV, "ABC").status == 404


def test_a_built_in_resource_added_late_gets_its_group_document(openapi: OpenAPIBuilder) -> None:
    assert "apis/apiextensions.k8s.io" not in openapi.v3_names
    openapi.add_resource(CRD_RESOURCE)
    assert {"apis/apiextensions.k8s.io", "apis/apiextensions.k8s.io/v1"} <= set(openapi.v3_names)
    group = _doc(openapi, "apis/apiextensions.k8s.io")
    assert list(group["paths"]) == ["/apis/apiextensions.k8s.io/"]
    doc = _doc(openapi, "apis/apiextensions.k8s.io/v1")
    assert doc["info"] == {"title": "Kubernetes", "version": "v1.36.0"}
    assert list(doc["paths"]) == [
        "/apis/apiextensions.k8s.io/v1/",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}/status",
        "/apis/apiextensions.k8s.io/v1/watch/customresourcedefinitions",
        "/apis/apiextensions.k8s.io/v1/watch/customresourcedefinitions/{name}",
    ]
    patch = doc["paths"]["/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"]["patch"]
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"]
    crd_schema = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"
    assert crd_schema in doc["components"]["schemas"]
    assert crd_schema in _v2(openapi)["definitions"]
    openapi.remove_resource("apiextensions.k8s.io", "v1", "customresourcedefinitions")
    assert "apis/apiextensions.k8s.io" not in openapi.v3_names
    assert "apis/apiextensions.k8s.io/v1" not in openapi.v3_names


def test_replacing_a_resource_rebuilds_its_document_only(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    v1_before = openapi.v3_document(GV)
    v2_doc_before = openapi.v3_document("apis/stable.example.com/v2")
    changed = _crd()
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["image"] = {
        "type": "string"
    }
    spec, definitions = crd_openapi.published(changed)[0]
    openapi.add_resource(spec, definitions)
    assert openapi.v3_document(GV) != v1_before
    assert openapi.v3_document("apis/stable.example.com/v2") is v2_doc_before
    assert "image" in _doc(openapi, GV)["components"]["schemas"][CRONTAB]["properties"]["spec"]["properties"]
    assert "image" in _v2(openapi)["definitions"][CRONTAB]["properties"]["spec"]["properties"]


def test_a_stale_hash_of_a_changed_document_redirects(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    old_tag = openapi.v3_document(GV)[1]  # type: ignore[index]
    changed = _crd()
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "changed"
    openapi.add_resource(*crd_openapi.published(changed)[0])
    new_tag = openapi.v3_document(GV)[1]  # type: ignore[index]
    assert new_tag != old_tag
    reply = openapi.v3_reply(GV, old_tag)
    assert (reply.status, reply.headers) == (301, {"Location": f"/openapi/v3/{GV}?hash={new_tag}"})


def test_documents_built_while_resources_change_end_consistent() -> None:
    builder = OpenAPIBuilder(BUILTIN_RESOURCES)
    published = crd_openapi.published(_crd())
    stop = threading.Event()
    errors: list[BaseException] = []

    def render() -> None:
        try:
            while not stop.is_set():
                builder.v3_index()
                builder.v2_document()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    reader = threading.Thread(target=render)
    reader.start()
    try:
        for _ in range(30):
            for spec, definitions in published:
                builder.add_resource(spec, definitions)
            builder.remove_resource("stable.example.com", "v2", "crontabs")
    finally:
        stop.set()
        reader.join(timeout=30)
    assert not reader.is_alive()
    assert errors == []
    fresh = OpenAPIBuilder(BUILTIN_RESOURCES)
    fresh.add_resource(*published[0])
    assert builder.v3_names == fresh.v3_names
    assert builder.v3_index_document() == fresh.v3_index_document()
    assert builder.v2_document() == fresh.v2_document()


# what a custom resource's v3 document holds


def test_custom_resource_document_paths_and_operations(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    doc = _doc(openapi, GV)
    assert doc["info"] == {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"}
    assert doc["openapi"] == "3.0.0"
    assert "securitySchemes" not in doc["components"]
    base = "/apis/stable.example.com/v1"
    item = f"{base}/namespaces/{{namespace}}/crontabs/{{name}}"
    operations = {path: sorted(k for k in entry if k != "parameters") for path, entry in doc["paths"].items()}
    assert operations == {
        f"{base}/crontabs": ["get"],
        f"{base}/namespaces/{{namespace}}/crontabs": ["delete", "get", "post"],
        item: ["delete", "get", "patch", "put"],
        f"{item}/status": ["get", "patch", "put"],
        f"{item}/scale": ["get", "patch", "put"],
    }
    ids = {
        (path, method): (op["operationId"], op["description"], op["x-kubernetes-action"])
        for path, entry in doc["paths"].items()
        for method, op in entry.items()
        if method != "parameters"
    }
    assert ids == {
        (f"{base}/crontabs", "get"): (
            "listStableExampleComV1CronTabForAllNamespaces",
            "list objects of kind CronTab",
            "list",
        ),
        (f"{base}/namespaces/{{namespace}}/crontabs", "get"): (
            "listStableExampleComV1NamespacedCronTab",
            "list objects of kind CronTab",
            "list",
        ),
        (f"{base}/namespaces/{{namespace}}/crontabs", "post"): (
            "createStableExampleComV1NamespacedCronTab",
            "create a CronTab",
            "post",
        ),
        (f"{base}/namespaces/{{namespace}}/crontabs", "delete"): (
            "deleteStableExampleComV1CollectionNamespacedCronTab",
            "delete collection of CronTab",
            "deletecollection",
        ),
        (item, "get"): ("readStableExampleComV1NamespacedCronTab", "read the specified CronTab", "get"),
        (item, "put"): ("replaceStableExampleComV1NamespacedCronTab", "replace the specified CronTab", "put"),
        (item, "patch"): (
            "patchStableExampleComV1NamespacedCronTab",
            "partially update the specified CronTab",
            "patch",
        ),
        (item, "delete"): ("deleteStableExampleComV1NamespacedCronTab", "delete a CronTab", "delete"),
        (f"{item}/status", "get"): (
            "readStableExampleComV1NamespacedCronTabStatus",
            "read status of the specified CronTab",
            "get",
        ),
        (f"{item}/status", "put"): (
            "replaceStableExampleComV1NamespacedCronTabStatus",
            "replace status of the specified CronTab",
            "put",
        ),
        (f"{item}/status", "patch"): (
            "patchStableExampleComV1NamespacedCronTabStatus",
            "partially update status of the specified CronTab",
            "patch",
        ),
        (f"{item}/scale", "get"): (
            "readStableExampleComV1NamespacedCronTabScale",
            "read scale of the specified CronTab",
            "get",
        ),
        (f"{item}/scale", "put"): (
            "replaceStableExampleComV1NamespacedCronTabScale",
            "replace scale of the specified CronTab",
            "put",
        ),
        (f"{item}/scale", "patch"): (
            "patchStableExampleComV1NamespacedCronTabScale",
            "partially update scale of the specified CronTab",
            "patch",
        ),
    }
    for entry in doc["paths"].values():
        for method, op in entry.items():
            if method == "parameters":
                continue
            # every operation, /scale included, is the custom resource's
            assert op["x-kubernetes-group-version-kind"] == {
                "group": "stable.example.com",
                "version": "v1",
                "kind": "CronTab",
            }
            assert op["tags"] == ["stableExampleCom_v1"]
            for response in op["responses"].values():
                assert sorted(response.get("content", {})) in ([], ["application/json", "application/yaml"])


def _params(doc: dict[str, Any], path: str, method: str) -> list[str]:
    entry = doc["paths"][path]
    return sorted(p["name"] for p in [*entry.get("parameters", []), *entry[method].get("parameters", [])])


def test_custom_resource_patch_is_what_kubectl_checks(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    doc = _doc(openapi, GV)
    item = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"
    patch = doc["paths"][item]["patch"]
    assert sorted(patch["requestBody"]["content"]) == CR_PATCH_TYPES
    assert patch["requestBody"]["required"] is True
    assert patch["requestBody"]["content"]["application/merge-patch+json"]["schema"] == {
        "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
    }
    assert {"name": "fieldValidation", "in": "query"}.items() <= next(
        p for p in patch["parameters"] if p["name"] == "fieldValidation"
    ).items()
    assert sorted(patch["responses"]) == ["200", "401"]
    assert patch["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": f"#/components/schemas/{CRONTAB}"
    }
    scale = doc["paths"][item + "/scale"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert scale == {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"}


def test_custom_resource_parameters_per_verb(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    doc = _doc(openapi, GV)
    collection = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"
    item = collection + "/{name}"
    list_params = [
        "allowWatchBookmarks",
        "continue",
        "fieldSelector",
        "labelSelector",
        "limit",
        "resourceVersion",
        "resourceVersionMatch",
        "sendInitialEvents",
        "shardSelector",
        "timeoutSeconds",
        "watch",
    ]
    assert _params(doc, collection, "get") == sorted(["namespace", "pretty", *list_params])
    # a collection delete takes the list options (watch included) and no body, as kube's CRD builder
    assert _params(doc, collection, "delete") == sorted(["namespace", "pretty", *list_params])
    assert "requestBody" not in doc["paths"][collection]["delete"]
    assert _params(doc, collection, "post") == [
        "dryRun",
        "fieldManager",
        "fieldValidation",
        "namespace",
        "pretty",
    ]
    assert sorted(doc["paths"][collection]["post"]["requestBody"]["content"]) == [
        "application/json",
        "application/yaml",
    ]
    assert _params(doc, item, "get") == ["name", "namespace", "pretty", "resourceVersion"]
    assert _params(doc, item, "put") == ["dryRun", "fieldManager", "fieldValidation", "name", "namespace", "pretty"]
    assert _params(doc, item, "patch") == [
        "dryRun",
        "fieldManager",
        "fieldValidation",
        "force",
        "name",
        "namespace",
        "pretty",
    ]
    assert _params(doc, item, "delete") == [
        "dryRun",
        "gracePeriodSeconds",
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "name",
        "namespace",
        "orphanDependents",
        "pretty",
        "propagationPolicy",
    ]
    delete_body = doc["paths"][item]["delete"]["requestBody"]
    assert "required" not in delete_body
    assert sorted(doc["paths"][collection]["post"]["responses"]) == ["200", "201", "202", "401"]
    assert sorted(doc["paths"][item]["put"]["responses"]) == ["200", "201", "401"]
    assert sorted(doc["paths"][item]["delete"]["responses"]) == ["200", "202", "401"]


def test_cluster_scoped_custom_resource_has_no_namespace_paths(openapi: OpenAPIBuilder) -> None:
    crd = _crd()
    crd["spec"]["scope"] = "Cluster"
    crd["spec"]["versions"] = crd["spec"]["versions"][:1]
    del crd["spec"]["versions"][0]["subresources"]
    _install(openapi, crd)
    doc = _doc(openapi, GV)
    assert list(doc["paths"]) == [
        "/apis/stable.example.com/v1/crontabs",
        "/apis/stable.example.com/v1/crontabs/{name}",
    ]
    ops = doc["paths"]["/apis/stable.example.com/v1/crontabs"]
    assert ops["get"]["operationId"] == "listStableExampleComV1CronTab"
    assert ops["post"]["operationId"] == "createStableExampleComV1CronTab"


@pytest.mark.parametrize(
    ("kind", "description"),
    [("Engine", "create an Engine"), ("Unicorn", "create an Unicorn"), ("Class", "create a Class"),
     ("Settings", "create Settings")],
)
def test_create_description_articles(kind: str, description: str) -> None:
    crd = _crd()
    names = {**NAMES, "kind": kind, "listKind": kind + "List"}
    crd["status"]["acceptedNames"] = names
    builder = OpenAPIBuilder([])
    _install(builder, crd)
    post = _doc(builder, GV)["paths"]["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"]["post"]
    assert post["description"] == description


# what a CRD publishes: definitions


def test_definition_names_are_reverse_domain() -> None:
    assert naming.model_name("stable.example.com", "v1", "CronTab") == CRONTAB
    assert crd_openapi.definition_names(_crd(), "v1") == (CRONTAB, CRONTAB_LIST)
    crd = _crd()
    crd["status"]["acceptedNames"]["listKind"] = "CronTabCollection"
    assert crd_openapi.definition_names(crd, "v1") == (CRONTAB, "com.example.stable.v1.CronTabCollection")


def test_kind_schema_adds_type_and_object_meta() -> None:
    schema = crd_openapi.kind_schema(_crd(), "v1")
    assert schema["description"] == "A cron job of a kind."
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "stable.example.com", "kind": "CronTab", "version": "v1"}
    ]
    assert schema["x-kubernetes-selectable-fields"] == [{"fieldPath": "spec.cronSpec"}]
    properties = schema["properties"]
    assert sorted(properties) == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert properties["metadata"] == {
        "$ref": OBJECT_META_V3,
        "description": "Standard object's metadata. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    }
    assert properties["apiVersion"]["type"] == "string"
    assert properties["apiVersion"]["description"].startswith("APIVersion defines the versioned schema")
    assert properties["kind"]["description"].startswith("Kind is a string value representing the REST resource")
    spec = properties["spec"]["properties"]
    # a structural schema writes no false flags
    assert spec["replicas"] == {"type": "integer", "minimum": 1}
    # int-or-string unfolded
    assert spec["port"] == {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert spec["cronSpec"] == {"type": "string", "pattern": "^\\d+$", "default": "5"}
    embedded = spec["template"]
    assert sorted(embedded["properties"]) == ["apiVersion", "kind", "metadata", "spec"]
    assert embedded["properties"]["apiVersion"]["description"].startswith(
        "apiVersion defines the versioned schema of this representation of an object. More info:"
    )
    assert embedded["properties"]["metadata"]["$ref"] == OBJECT_META_V3
    assert embedded["required"] == ["kind", "apiVersion"]


def test_kind_schema_of_a_version_without_schema() -> None:
    crd = _crd()
    del crd["spec"]["versions"][0]["schema"]
    del crd["spec"]["versions"][0]["selectableFields"]
    assert crd_openapi.kind_schema(crd, "v1") == {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "stable.example.com", "kind": "CronTab", "version": "v1"}],
    }


def test_int_or_string_unfolding_keeps_what_says_it_already() -> None:
    crd = _crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    spec["stated"] = {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]}
    spec["other"] = {"x-kubernetes-int-or-string": True, "anyOf": [{"maxLength": 3}]}
    out = crd_openapi.kind_schema(crd, "v1")["properties"]["spec"]["properties"]
    assert out["stated"] == spec["stated"]
    assert out["other"] == {
        "x-kubernetes-int-or-string": True,
        "anyOf": [{"maxLength": 3}],
        "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}],
    }


def test_list_schema() -> None:
    assert crd_openapi.list_schema(_crd(), "v1") == {
        "description": "CronTabList is a list of CronTab",
        "type": "object",
        "required": ["items"],
        "properties": {
            "apiVersion": crd_openapi.kind_schema(_crd(), "v1")["properties"]["apiVersion"],
            "items": {
                "description": "List of crontabs. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md",
                "type": "array",
                "items": {"$ref": f"#/components/schemas/{CRONTAB}"},
            },
            "kind": crd_openapi.kind_schema(_crd(), "v1")["properties"]["kind"],
            "metadata": {
                "$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
                "description": "Standard list metadata. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
            },
        },
        "x-kubernetes-group-version-kind": [{"group": "stable.example.com", "kind": "CronTabList", "version": "v1"}],
        "x-kubernetes-selectable-fields": [{"fieldPath": "spec.cronSpec"}],
    }


def test_published_covers_served_versions_only() -> None:
    published = crd_openapi.published(_crd())
    assert [(spec.version, sorted(defs)) for spec, defs in published] == [
        ("v1", [CRONTAB, CRONTAB_LIST]),
        ("v2", ["com.example.stable.v2.CronTab", "com.example.stable.v2.CronTabList"]),
    ]
    assert all(spec.custom for spec, _ in published)


def test_sync_follows_a_crd_through_its_life(openapi: OpenAPIBuilder) -> None:
    index = openapi.v3_index_document()
    crd = _crd()
    crd_openapi.sync(openapi, None, crd)
    assert {GV, "apis/stable.example.com/v2"} <= set(openapi.v3_names)
    narrowed = _crd()
    narrowed["spec"]["versions"][1]["served"] = False
    crd_openapi.sync(openapi, crd, narrowed)
    assert GV in openapi.v3_names
    assert "apis/stable.example.com/v2" not in openapi.v3_names
    crd_openapi.sync(openapi, narrowed, None)
    assert openapi.v3_index_document() == index


def test_definitions_do_not_alias_the_crd() -> None:
    crd = _crd()
    original = copy.deepcopy(crd)
    definitions = crd_openapi.definitions(crd, "v1")
    definitions[CRONTAB]["properties"]["spec"]["properties"]["cronSpec"]["pattern"] = "x"
    assert crd == original


# the v2 form


def test_v2_document_holds_custom_definitions_in_v2_form(openapi: OpenAPIBuilder) -> None:
    _install(openapi, _crd())
    v2 = _v2(openapi)
    kind = v2["definitions"][CRONTAB]
    assert kind["properties"]["metadata"]["$ref"] == OBJECT_META_V2
    spec = kind["properties"]["spec"]
    assert spec["required"] == ["cronSpec"]  # the nullable note is no longer required
    props = spec["properties"]
    assert props["note"] == {}
    assert props["choice"] == {"type": "string"}
    assert props["cronSpec"] == {"type": "string", "pattern": "^\\d+$"}  # defaults pruned
    assert props["port"] == {"x-kubernetes-int-or-string": True}
    assert props["free"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert props["anything"] == {"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": True}}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
    assert v2["definitions"][CRONTAB_LIST]["properties"]["items"]["items"] == {"$ref": f"#/definitions/{CRONTAB}"}
    # a kind whose root preserves unknown fields is a bare object in v2 (its v3 form keeps the schema)
    assert v2["definitions"]["com.example.stable.v2.CronTab"] == {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "stable.example.com", "kind": "CronTab", "version": "v2"}],
    }
    v3_root = _doc(openapi, "apis/stable.example.com/v2")["components"]["schemas"]["com.example.stable.v2.CronTab"]
    assert v3_root["x-kubernetes-preserve-unknown-fields"] is True
    assert "metadata" in v3_root["properties"]
    item = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"
    patch = v2["paths"][item]["patch"]
    assert sorted(patch["consumes"]) == CR_PATCH_TYPES
    assert patch["produces"] == ["application/json", "application/yaml"]
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "stable.example.com",
        "kind": "CronTab",
        "version": "v1",
    }
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]


@pytest.mark.parametrize(
    ("v3", "v2"),
    [
        ({"type": "string", "nullable": True}, {}),
        ({"type": "object", "nullable": True, "properties": {"a": {}}, "description": "d"}, {"description": "d"}),
        ({"allOf": [{"minimum": 1}], "anyOf": [{}], "oneOf": [{}], "not": {}, "type": "integer"}, {"type": "integer"}),
        ({"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {"type": "string"}},
         {"x-kubernetes-preserve-unknown-fields": True}),
        ({"type": "object", "additionalProperties": {"type": "string", "nullable": True}, "required": ["a"]},
         {"type": "object", "additionalProperties": {}}),
        ({"type": "object", "required": ["a", "b"], "properties": {"a": {"nullable": True}, "b": {}}},
         {"type": "object", "required": ["b"], "properties": {"a": {}, "b": {}}}),
        ({"type": "object", "required": ["a"], "properties": {"a": {"nullable": True}}},
         {"type": "object", "properties": {"a": {}}}),
        ({"default": {"a": 1}, "type": "object", "properties": {"a": {"type": "integer", "default": 1}}},
         {"type": "object", "properties": {"a": {"type": "integer"}}}),
        ({"$ref": "#/components/schemas/x.Y", "description": "d"}, {"$ref": "#/definitions/x.Y", "description": "d"}),
        ({"type": "object", "x-kubernetes-preserve-unknown-fields": True, "description": "d",
          "x-kubernetes-group-version-kind": [{"group": "g", "kind": "K", "version": "v"}]},
         {"type": "object", "x-kubernetes-group-version-kind": [{"group": "g", "kind": "K", "version": "v"}]}),
    ],
    ids=[
        "nullable-scalar",
        "nullable-object",
        "junctors",
        "preserve-unknown-array",
        "nullable-map-values",
        "nullable-required",
        "nullable-only-required",
        "defaults",
        "ref",
        "preserving-root",
    ],
)
def test_v2_conversion_rules(request: pytest.FixtureRequest, v3: dict[str, Any], v2: dict[str, Any]) -> None:
    original = copy.deepcopy(v3)
    if request.node.callspec.id == "preserving-root":
        assert custom_v2.definition(v3) == v2
    else:
        assert custom_v2.definition({"type": "object", "properties": {"f": v3}}) == {
            "type": "object",
            "properties": {"f": v2},
        }
    assert v3 == original


# v2 in protobuf


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """Walk protobuf wire format: (field number, wire type, value: int, or bytes for length-delimited)."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            yield number, wire, value
        elif wire == 1:
            yield number, wire, data[pos : pos + 8]
            pos += 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            yield number, wire, data[pos : pos + length]
            pos += length
        elif wire == 5:
            yield number, wire, data[pos : pos + 4]
            pos += 4
        else:
            raise AssertionError(f"wire type {wire} at {pos}")


def _first(data: bytes, number: int) -> Any:
    return next(value for n, _, value in _fields(data) if n == number)


def _all(data: bytes, number: int) -> list[Any]:
    return [value for n, _, value in _fields(data) if n == number]


@pytest.fixture(scope="module")
def with_crd() -> tuple[dict[str, Any], bytes]:
    builder = OpenAPIBuilder(BUILTIN_RESOURCES)
    _install(builder, _crd())
    data, tag = builder.v2_protobuf()
    assert tag == builder.v2_document()[1]  # the JSON document's ETag, as kube-openapi
    assert builder.v2_protobuf()[0] is data  # cached
    return json.loads(builder.v2_document()[0]), data


def test_v2_protobuf_has_nothing_gnostic_would_refuse(with_crd: tuple[dict[str, Any], bytes]) -> None:
    document, _ = with_crd
    assert v2_protobuf.to_message(document)[1] == []
    bad = {"swagger": "2.0", "definitions": {"A": {"nullable": True, "oneOf": []}}, "paths": {"x": {}}}
    assert sorted(v2_protobuf.to_message(bad)[1]) == ["Paths.x", "Schema.nullable", "Schema.oneOf"]


def test_v2_protobuf_decodes_with_the_descriptors(with_crd: tuple[dict[str, Any], bytes]) -> None:
    document, data = with_crd
    message = v2_protobuf.message_classes()["Document"].FromString(data)
    assert message.swagger == "2.0"
    assert (message.info.title, message.info.version) == ("Kubernetes", "v1.36.0")
    assert [p.name for p in message.paths.path] == list(document["paths"])
    assert [d.name for d in message.definitions.additional_properties] == list(document["definitions"])
    item = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"
    path = next(p.value for p in message.paths.path if p.name == item)
    assert sorted(path.patch.consumes) == CR_PATCH_TYPES
    assert path.patch.operation_id == "patchStableExampleComV1NamespacedCronTab"
    extensions = {e.name: e.value.yaml for e in path.patch.vendor_extension}
    assert extensions == {
        "x-kubernetes-action": "patch\n",
        "x-kubernetes-group-version-kind": "group: stable.example.com\nkind: CronTab\nversion: v1\n",
    }
    kinds = [p.parameter.non_body_parameter for p in path.patch.parameters]
    assert "fieldValidation" in [k.query_parameter_sub_schema.name for k in kinds]
    body = path.patch.parameters[0].parameter.body_parameter
    # `in` is a Python keyword, and `_ref` the .proto's name for `$ref`
    assert (body.name, getattr(body, "in"), body.required, body.schema._ref) == (
        "body",
        "body",
        True,
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
    )
    common = [p.parameter.non_body_parameter for p in path.parameters]
    assert [(c.WhichOneof("oneof"), getattr(c, c.WhichOneof("oneof")).name) for c in common] == [
        ("path_parameter_sub_schema", "name"),
        ("path_parameter_sub_schema", "namespace"),
        ("query_parameter_sub_schema", "pretty"),
    ]
    assert common[0].path_parameter_sub_schema.required is True
    assert common[0].path_parameter_sub_schema.unique_items is True
    responses = {r.name: r.value.response for r in path.patch.responses.response_code}
    assert sorted(responses) == ["200", "401"]
    assert responses["200"].schema.schema._ref == f"#/definitions/{CRONTAB}"
    crontab = next(d.value for d in message.definitions.additional_properties if d.name == CRONTAB)
    assert list(crontab.type.value) == ["object"]
    spec = next(p.value for p in crontab.properties.additional_properties if p.name == "spec")
    assert list(spec.required) == ["cronSpec"]
    cron = next(p.value for p in spec.properties.additional_properties if p.name == "cronSpec")
    assert (cron.pattern, list(cron.type.value)) == ("^\\d+$", ["string"])
    replicas = next(p.value for p in spec.properties.additional_properties if p.name == "replicas")
    assert replicas.minimum == 1.0
    gvk = next(e.value.yaml for e in crontab.vendor_extension if e.name == "x-kubernetes-group-version-kind")
    assert gvk == "- group: stable.example.com\n  kind: CronTab\n  version: v1\n"
    security = message.security_definitions.additional_properties[0]
    assert security.name == "BearerToken"
    assert security.value.api_key_security.name == "authorization"
    assert message.security[0].additional_properties[0].name == "BearerToken"


def test_v2_protobuf_wire_format(with_crd: tuple[dict[str, Any], bytes]) -> None:
    """The same bytes, read by walking the wire format against OpenAPIv2.proto's field numbers."""
    document, data = with_crd
    assert _first(data, 1) == b"2.0"  # Document.swagger
    info = _first(data, 2)  # Document.info
    assert (_first(info, 1), _first(info, 2)) == (b"Kubernetes", b"v1.36.0")  # Info.title, Info.version
    paths = _all(_first(data, 8), 2)  # Document.paths -> Paths.path (NamedPathItem)
    assert [_first(p, 1).decode() for p in paths] == list(document["paths"])
    definitions = _all(_first(data, 9), 1)  # Document.definitions -> Definitions.additional_properties
    names = [_first(d, 1).decode() for d in definitions]
    assert names == list(document["definitions"])
    crontab = _first(definitions[names.index(CRONTAB)], 2)  # NamedSchema.value (Schema)
    assert _all(_first(crontab, 22), 1) == [b"object"]  # Schema.type -> TypeItem.value
    extensions = {_first(e, 1): _first(_first(e, 2), 2) for e in _all(crontab, 31)}  # vendor_extension
    gvk = extensions[b"x-kubernetes-group-version-kind"]
    assert gvk == b"- group: stable.example.com\n  kind: CronTab\n  version: v1\n"
    item = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"
    path_item = next(_first(p, 2) for p in paths if _first(p, 1) == item.encode())
    patch = _first(path_item, 8)  # PathItem.patch
    assert sorted(_all(patch, 7)) == [t.encode() for t in CR_PATCH_TYPES]  # Operation.consumes
    assert _first(patch, 5) == b"patchStableExampleComV1NamespacedCronTab"  # Operation.operation_id
    query_names = []
    for parameters_item in _all(patch, 8):  # Operation.parameters
        parameter = _first(parameters_item, 1)  # ParametersItem.parameter
        for number, _, value in _fields(parameter):
            if number == 2:  # Parameter.non_body_parameter
                query_names.extend(_first(sub, 4) for n, _, sub in _fields(value) if n == 3)
    assert b"fieldValidation" in query_names
    # a bool field: Schema.unique_items (16) is absent, required (BodyParameter 4) is varint 1
    body = _first(_first(_all(patch, 8)[0], 1), 1)
    assert _first(body, 4) == 1


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, ("application/json", False)),
        ("", ("application/json", False)),
        ("*/*", ("application/json", False)),
        ("application/json", ("application/json", False)),
        ("application/*", ("application/json", False)),
        (v2_protobuf.MEDIA_TYPE, (v2_protobuf.CONTENT_TYPE, True)),
        (v2_protobuf.CONTENT_TYPE, (v2_protobuf.CONTENT_TYPE, True)),
        (f"application/json;q=0.5, {v2_protobuf.MEDIA_TYPE}", (v2_protobuf.CONTENT_TYPE, True)),
        (f"{v2_protobuf.MEDIA_TYPE};q=0.5, application/json", ("application/json", False)),
        ("application/xml", None),
        ("text/*", None),
        ("application/vnd.kubernetes.protobuf", None),
    ],
)
def test_v2_negotiation(accept: str | None, expected: tuple[str, bool] | None) -> None:
    assert _v2_encoding(accept) == expected


def test_any_yaml_of_scalars_has_no_document_end() -> None:
    message, unknown = v2_protobuf.to_message(
        {"swagger": "2.0", "x-a": "text", "x-b": True, "x-c": 3, "x-d": {"k": ["v"]}, "x-e": "", "x-f": "true",
         "paths": {}}
    )
    assert unknown == []
    assert {e.name: e.value.yaml for e in message.vendor_extension} == {
        "x-a": "text\n",
        "x-b": "true\n",
        "x-c": "3\n",
        "x-d": "k:\n- v\n",
        "x-e": '""\n',
        "x-f": '"true"\n',
    }
