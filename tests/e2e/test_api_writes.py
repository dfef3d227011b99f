"""Writes over raw HTTP: what the server fills in on create (names, uid, timestamps, resourceVersion,
generation), what each write path may change (main resource versus /status), dry runs, merge and JSON
patches with their preconditions, deletion (finalizers, grace periods, DeleteOptions in body or query,
collections), and the resource-specific writes clients rely on (secrets' stringData, service IP and port
allocation, the `kubernetes` service, pod binding).
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import re
from typing import Any

import pytest

from tests.e2e.server import HTTPResult, KubeliteProcess

_COUNTER = itertools.count()

MERGE = {"Content-Type": "application/merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
UID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@pytest.fixture
def ns(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    """A namespace of the test's own, so tests sharing the module's server never see each other's objects."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().removeprefix("test_"))
    name = f"x{next(_COUNTER)}-{slug}"[:63].strip("-")
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


def cm_path(ns: str, name: str = "") -> str:
    base = f"/api/v1/namespaces/{ns}/configmaps"
    return f"{base}/{name}" if name else base


def deployments(ns: str, name: str = "") -> str:
    base = f"/apis/apps/v1/namespaces/{ns}/deployments"
    return f"{base}/{name}" if name else base


def ok(result: HTTPResult, code: int = 200) -> dict[str, Any]:
    assert result.status == code, result.body
    return result.json()  # type: ignore[no-any-return]


def deployment(name: str = "web", replicas: int = 1) -> dict[str, Any]:
    labels = {"app": name}
    return {
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }


def pod(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def conflict(kind: str, name: str, why: str, group: str = "") -> dict[str, Any]:
    details: dict[str, str] = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = kind
    qualified = f"{kind}.{group}" if group else kind
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f'Operation cannot be fulfilled on {qualified} "{name}": {why}',
        "reason": "Conflict",
        "details": details,
        "code": 409,
    }


# -- what create fills in ------------------------------------------------------------------------------------


def test_create_fills_in_server_fields(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}, "data": {"k": "v"}}), 201)
    meta = created["metadata"]
    assert (created["kind"], created["apiVersion"], meta["namespace"]) == ("ConfigMap", "v1", ns)
    assert UID.fullmatch(meta["uid"]) and RFC3339.fullmatch(meta["creationTimestamp"])
    assert int(meta["resourceVersion"]) > 0
    assert "generation" not in meta  # configmaps have no spec, so no generation
    assert ok(server.http("GET", cm_path(ns, "a"))) == created


def test_client_supplied_server_fields_are_replaced(server: KubeliteProcess, ns: str) -> None:
    body = {
        "metadata": {
            "name": "a",
            "uid": "11111111-1111-1111-1111-111111111111",
            "creationTimestamp": "2001-01-01T00:00:00Z",
            "generation": 7,
        },
    }
    meta = ok(server.http("POST", cm_path(ns), body), 201)["metadata"]
    assert meta["uid"] != "11111111-1111-1111-1111-111111111111"
    assert meta["creationTimestamp"] != "2001-01-01T00:00:00Z"


def test_generate_name(server: KubeliteProcess, ns: str) -> None:
    names = set()
    for _ in range(3):
        created = ok(server.http("POST", cm_path(ns), {"metadata": {"generateName": "job-"}}), 201)
        assert created["metadata"]["generateName"] == "job-"
        names.add(created["metadata"]["name"])
    assert len(names) == 3
    assert all(re.fullmatch(r"job-[bcdfghjklmnpqrstvwxz2456789]{5}", n) for n in names), names


def test_generation_starts_at_one_and_counts_spec_changes_only(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", deployments(ns), deployment()), 201)
    assert created["metadata"]["generation"] == 1
    relabelled = ok(
        server.http("PATCH", deployments(ns, "web"), {"metadata": {"labels": {"x": "y"}}}, headers=MERGE)
    )
    assert relabelled["metadata"]["generation"] == 1
    scaled = ok(server.http("PATCH", deployments(ns, "web"), {"spec": {"replicas": 3}}, headers=MERGE))
    assert scaled["metadata"]["generation"] == 2
    same = ok(server.http("PUT", deployments(ns, "web"), scaled))
    assert same["metadata"]["generation"] == 2


def test_status_is_ignored_on_the_main_resource(server: KubeliteProcess, ns: str) -> None:
    body = {**deployment(), "status": {"replicas": 5, "readyReplicas": 5}}
    created = ok(server.http("POST", deployments(ns), body), 201)
    assert created["status"] == {}
    updated = ok(server.http("PUT", deployments(ns, "web"), {**created, "status": {"replicas": 9}}))
    assert (updated["status"], updated["metadata"]["resourceVersion"]) == (
        {},
        created["metadata"]["resourceVersion"],
    )
    patched = ok(server.http("PATCH", deployments(ns, "web"), {"status": {"replicas": 4}}, headers=MERGE))
    assert patched["status"] == {}


def test_status_subresource_changes_only_status(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", deployments(ns), deployment()), 201)
    body = {**created, "spec": {**created["spec"], "replicas": 10}, "status": {"replicas": 1}}
    updated = ok(server.http("PUT", deployments(ns, "web") + "/status", body))
    assert (updated["spec"]["replicas"], updated["status"], updated["metadata"]["generation"]) == (
        1,
        {"replicas": 1},
        1,
    )
    patched = ok(
        server.http(
            "PATCH",
            deployments(ns, "web") + "/status",
            {"status": {"readyReplicas": 1}, "spec": {"replicas": 7}},
            headers=MERGE,
        )
    )
    assert (patched["spec"]["replicas"], patched["status"]) == (1, {"replicas": 1, "readyReplicas": 1})
    assert ok(server.http("GET", deployments(ns, "web") + "/status")) == patched


# -- dry run ------------------------------------------------------------------------------------------------


def test_dry_run_create_persists_nothing(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", cm_path(ns) + "?dryRun=All", {"metadata": {"name": "a"}}), 201)
    assert (created["metadata"]["name"], "resourceVersion" in created["metadata"]) == ("a", False)
    assert UID.fullmatch(created["metadata"]["uid"])
    assert server.http("GET", cm_path(ns, "a")).status == 404
    assert ok(server.http("GET", cm_path(ns) + "?fieldSelector=metadata.name%3Da"))["items"] == []
    assert ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)  # the name is still free


@pytest.mark.parametrize("verb", ["PUT", "merge-PATCH", "json-PATCH", "DELETE"])
def test_dry_run_changes_nothing(server: KubeliteProcess, ns: str, verb: str) -> None:
    stored = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}, "data": {"k": "v"}}), 201)
    path = cm_path(ns, "a") + "?dryRun=All"
    if verb == "PUT":
        result = ok(server.http("PUT", path, {**stored, "data": {"k": "dry"}}))
    elif verb == "merge-PATCH":
        result = ok(server.http("PATCH", path, {"data": {"k": "dry"}}, headers=MERGE))
    elif verb == "json-PATCH":
        patch = [{"op": "replace", "path": "/data/k", "value": "dry"}]
        result = ok(server.http("PATCH", path, json.dumps(patch), headers=JSON_PATCH))
    else:
        result = ok(server.http("DELETE", path))
    if verb == "DELETE":
        assert (result["kind"], result["status"], result["details"]["name"]) == ("Status", "Success", "a")
    else:
        assert result["data"] == {"k": "dry"}  # the answer shows what would have been stored
    assert ok(server.http("GET", cm_path(ns, "a"))) == stored


def test_dry_run_with_an_unknown_value_is_invalid(server: KubeliteProcess, ns: str) -> None:
    result = server.http("POST", cm_path(ns) + "?dryRun=Some", {"metadata": {"name": "a"}})
    assert (result.status, result.json()["message"]) == (
        422,
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"',
    )


# -- patches -------------------------------------------------------------------------------------------------


def test_merge_patch_merges_and_null_deletes(server: KubeliteProcess, ns: str) -> None:
    ok(
        server.http(
            "POST",
            cm_path(ns),
            {"metadata": {"name": "a", "labels": {"x": "1"}}, "data": {"k": "v", "j": "w"}},
        ),
        201,
    )
    patch = {"metadata": {"labels": {"y": "2"}}, "data": {"k": None, "n": "new"}}
    patched = ok(server.http("PATCH", cm_path(ns, "a"), patch, headers=MERGE))
    assert (patched["metadata"]["labels"], patched["data"]) == ({"x": "1", "y": "2"}, {"j": "w", "n": "new"})


def test_json_patch_applies_operations_in_order(server: KubeliteProcess, ns: str) -> None:
    ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}, "data": {"k": "v"}}), 201)
    patch = [
        {"op": "test", "path": "/data/k", "value": "v"},
        {"op": "add", "path": "/data/n", "value": "1"},
        {"op": "move", "from": "/data/k", "path": "/data/m"},
        {"op": "add", "path": "/metadata/labels", "value": {"a": "b"}},
    ]
    patched = ok(server.http("PATCH", cm_path(ns, "a"), json.dumps(patch), headers=JSON_PATCH))
    assert (patched["data"], patched["metadata"]["labels"]) == ({"n": "1", "m": "v"}, {"a": "b"})


@pytest.mark.parametrize(
    "patch",
    [
        [{"op": "test", "path": "/data/k", "value": "other"}],
        [{"op": "remove", "path": "/data/missing"}],
        [{"op": "replace", "path": "/nothing/here", "value": 1}],
    ],
    ids=["failed-test", "remove-missing", "replace-missing-parent"],
)
def test_json_patch_that_cannot_apply_is_422(server: KubeliteProcess, ns: str, patch: list[Any]) -> None:
    stored = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}, "data": {"k": "v"}}), 201)
    result = server.http("PATCH", cm_path(ns, "a"), json.dumps(patch), headers=JSON_PATCH)
    assert (result.status, result.json()) == (
        422,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "the server rejected our request due to an error in our request",
            "reason": "Invalid",
            "details": {},
            "code": 422,
        },
    )
    assert ok(server.http("GET", cm_path(ns, "a"))) == stored


@pytest.mark.parametrize("kind", ["merge", "json"])
def test_patch_with_a_stale_resource_version_is_conflict(server: KubeliteProcess, ns: str, kind: str) -> None:
    stale = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)["metadata"][
        "resourceVersion"
    ]
    ok(server.http("PATCH", cm_path(ns, "a"), {"data": {"k": "1"}}, headers=MERGE))
    if kind == "merge":
        result = server.http(
            "PATCH", cm_path(ns, "a"), {"metadata": {"resourceVersion": stale}}, headers=MERGE
        )
    else:
        patch = [{"op": "replace", "path": "/metadata/resourceVersion", "value": stale}]
        result = server.http("PATCH", cm_path(ns, "a"), json.dumps(patch), headers=JSON_PATCH)
    why = "the object has been modified; please apply your changes to the latest version and try again"
    assert (result.status, result.json()) == (409, conflict("configmaps", "a", why))


def test_patch_with_the_current_resource_version_applies(server: KubeliteProcess, ns: str) -> None:
    current = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)["metadata"][
        "resourceVersion"
    ]
    body = {"metadata": {"resourceVersion": current}, "data": {"k": "1"}}
    assert ok(server.http("PATCH", cm_path(ns, "a"), body, headers=MERGE))["data"] == {"k": "1"}


def test_patch_of_a_missing_object_is_not_found(server: KubeliteProcess, ns: str) -> None:
    result = server.http("PATCH", cm_path(ns, "ghost"), {"data": {"k": "1"}}, headers=MERGE)
    assert (result.status, result.json()["message"]) == (404, 'configmaps "ghost" not found')


# -- deletion ------------------------------------------------------------------------------------------------


def test_finalizers_hold_an_object_until_removed(server: KubeliteProcess, ns: str) -> None:
    body = {"metadata": {"name": "a", "finalizers": ["example.com/hold"]}}
    ok(server.http("POST", cm_path(ns), body), 201)
    first = server.http("DELETE", cm_path(ns, "a"))
    held = ok(first)  # 200 with the object: only orphanDependents=false turns this into a 202
    assert RFC3339.fullmatch(held["metadata"]["deletionTimestamp"])
    assert (held["kind"], held["metadata"]["deletionGracePeriodSeconds"]) == ("ConfigMap", 0)
    assert ok(server.http("GET", cm_path(ns, "a"))) == held
    again = ok(server.http("DELETE", cm_path(ns, "a")))  # deleting again changes nothing
    assert again["metadata"]["deletionTimestamp"] == held["metadata"]["deletionTimestamp"]
    released = ok(server.http("PATCH", cm_path(ns, "a"), {"metadata": {"finalizers": None}}, headers=MERGE))
    assert "finalizers" not in released["metadata"]
    assert server.http("GET", cm_path(ns, "a")).status == 404


def test_finalizers_cannot_be_added_once_deleting(server: KubeliteProcess, ns: str) -> None:
    ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a", "finalizers": ["example.com/a"]}}), 201)
    ok(server.http("DELETE", cm_path(ns, "a")))
    patch = {"metadata": {"finalizers": ["example.com/a", "example.com/b"]}}
    result = server.http("PATCH", cm_path(ns, "a"), patch, headers=MERGE)
    status = result.json()
    assert (result.status, status["reason"]) == (422, "Invalid")
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": "Forbidden: no new finalizers can be added if the object is being deleted, found new "
            'finalizers []string{"example.com/b"}',
            "field": "metadata.finalizers",
        }
    ]


def test_delete_without_finalizers_answers_a_success_status(server: KubeliteProcess, ns: str) -> None:
    uid = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)["metadata"]["uid"]
    assert ok(server.http("DELETE", cm_path(ns, "a"))) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": "a", "kind": "configmaps", "uid": uid},
    }


def test_orphan_dependents_false_answers_202(server: KubeliteProcess, ns: str) -> None:
    ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a", "finalizers": ["example.com/hold"]}}), 201)
    result = server.http("DELETE", cm_path(ns, "a"), {"orphanDependents": False})
    assert (result.status, "deletionTimestamp" in result.json()["metadata"]) == (202, True)


def test_delete_collection_with_a_label_selector(server: KubeliteProcess, ns: str) -> None:
    for name, group in (("a", "1"), ("b", "2"), ("c", "1")):
        ok(server.http("POST", cm_path(ns), {"metadata": {"name": name, "labels": {"g": group}}}), 201)
    deleted = ok(server.http("DELETE", cm_path(ns) + "?labelSelector=g%3D1"))
    assert (deleted["kind"], [i["metadata"]["name"] for i in deleted["items"]]) == (
        "ConfigMapList",
        ["a", "c"],
    )
    left = ok(server.http("GET", cm_path(ns) + "?labelSelector=g"))
    assert [i["metadata"]["name"] for i in left["items"]] == ["b"]


def test_delete_collection_dry_run_deletes_nothing(server: KubeliteProcess, ns: str) -> None:
    for name in "ab":
        ok(server.http("POST", cm_path(ns), {"metadata": {"name": name, "labels": {"mine": "yes"}}}), 201)
    deleted = ok(server.http("DELETE", cm_path(ns) + "?dryRun=All&labelSelector=mine"))
    assert [i["metadata"]["name"] for i in deleted["items"]] == ["a", "b"]
    assert len(ok(server.http("GET", cm_path(ns) + "?labelSelector=mine"))["items"]) == 2


@pytest.mark.parametrize("where", ["body", "query"])
def test_grace_period_of_a_scheduled_pod(server: KubeliteProcess, ns: str, where: str) -> None:
    pods = f"/api/v1/namespaces/{ns}/pods"
    ok(server.http("POST", pods, {**pod("p"), "spec": {**pod("p")["spec"], "nodeName": "n1"}}), 201)
    if where == "body":
        result = server.http(
            "DELETE", f"{pods}/p", {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 7}
        )
    else:
        result = server.http("DELETE", f"{pods}/p?gracePeriodSeconds=7")
    terminating = ok(result)
    assert (terminating["kind"], terminating["metadata"]["deletionGracePeriodSeconds"]) == ("Pod", 7)
    assert ok(server.http("GET", f"{pods}/p"))["metadata"]["deletionTimestamp"]
    gone = ok(server.http("DELETE", f"{pods}/p", {"gracePeriodSeconds": 0}))
    assert gone["metadata"]["name"] == "p"  # pods answer a deletion with the object
    assert server.http("GET", f"{pods}/p").status == 404


def test_unscheduled_pod_is_deleted_at_once(server: KubeliteProcess, ns: str) -> None:
    pods = f"/api/v1/namespaces/{ns}/pods"
    ok(server.http("POST", pods, pod("p")), 201)
    ok(server.http("DELETE", f"{pods}/p"))
    assert server.http("GET", f"{pods}/p").status == 404


def test_uid_precondition_mismatch_is_conflict(server: KubeliteProcess, ns: str) -> None:
    """Preconditions only travel in the DeleteOptions body: the query has no parameter for them."""
    uid = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)["metadata"]["uid"]
    wrong = "00000000-0000-0000-0000-000000000000"
    result = server.http("DELETE", cm_path(ns, "a"), {"preconditions": {"uid": wrong}})
    why = (
        f"the UID in the precondition ({wrong}) does not match the UID in record ({uid}). "
        "The object might have been deleted and then recreated"
    )
    assert (result.status, result.json()) == (409, conflict("ConfigMap", "a", why))
    assert server.http("GET", cm_path(ns, "a")).status == 200


def test_resource_version_precondition_mismatch_is_conflict(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", deployments(ns), deployment()), 201)
    rv = created["metadata"]["resourceVersion"]
    result = server.http("DELETE", deployments(ns, "web"), {"preconditions": {"resourceVersion": "1"}})
    why = (
        f"the ResourceVersion in the precondition (1) does not match the ResourceVersion in record ({rv}). "
        "The object might have been modified"
    )
    assert (result.status, result.json()) == (409, conflict("Deployment", "web", why, group="apps"))


def test_matching_preconditions_delete(server: KubeliteProcess, ns: str) -> None:
    meta = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)["metadata"]
    body = {"preconditions": {"uid": meta["uid"], "resourceVersion": meta["resourceVersion"]}}
    assert ok(server.http("DELETE", cm_path(ns, "a"), body))["status"] == "Success"


@pytest.mark.parametrize("where", ["body", "query"])
def test_unknown_propagation_policy_is_invalid(server: KubeliteProcess, ns: str, where: str) -> None:
    ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}}), 201)
    if where == "body":
        result = server.http("DELETE", cm_path(ns, "a"), {"propagationPolicy": "Sideways"})
    else:
        result = server.http("DELETE", cm_path(ns, "a") + "?propagationPolicy=Sideways")
    message = (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": '
        'supported values: "Foreground", "Background", "Orphan"'
    )
    assert (result.status, result.json()["message"]) == (422, message)
    assert server.http("GET", cm_path(ns, "a")).status == 200


def test_background_propagation_deletes_at_once(server: KubeliteProcess, ns: str) -> None:
    uid = ok(server.http("POST", deployments(ns), deployment()), 201)["metadata"]["uid"]
    assert ok(server.http("DELETE", deployments(ns, "web"), {"propagationPolicy": "Background"})) == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {"name": "web", "group": "apps", "kind": "deployments", "uid": uid},
    }
    assert server.http("GET", deployments(ns, "web")).status == 404


@pytest.mark.parametrize(
    ("policy", "finalizer"),
    [
        pytest.param("Orphan", "orphan"),
        pytest.param("Foreground", "foregroundDeletion"),
    ],
    ids=["orphan", "foreground"],
)
def test_orphan_and_foreground_hand_the_object_to_the_collector(
    server: KubeliteProcess, ns: str, policy: str, finalizer: str
) -> None:
    ok(server.http("POST", deployments(ns), deployment()), 201)
    held = ok(server.http("DELETE", deployments(ns, "web"), {"propagationPolicy": policy}))
    assert (held["kind"], held["metadata"]["finalizers"]) == ("Deployment", [finalizer])
    assert RFC3339.fullmatch(held["metadata"]["deletionTimestamp"])


# -- resource-specific writes --------------------------------------------------------------------------------


def test_secret_string_data_becomes_base64_data(server: KubeliteProcess, ns: str) -> None:
    body = {
        "metadata": {"name": "s"},
        "stringData": {"user": "admin", "k": "over"},
        "data": {"k": "b2xk", "x": "eA=="},
    }
    created = ok(server.http("POST", f"/api/v1/namespaces/{ns}/secrets", body), 201)
    # stringData wins over data for the same key, and is never stored or returned itself
    assert (created["data"], created["type"], "stringData" in created) == (
        {"k": "b3Zlcg==", "user": "YWRtaW4=", "x": "eA=="},
        "Opaque",
        False,
    )


def test_service_ips_and_node_ports_are_allocated_in_range(server: KubeliteProcess, ns: str) -> None:
    services = f"/api/v1/namespaces/{ns}/services"
    body = {
        "metadata": {"name": "np"},
        "spec": {"type": "NodePort", "ports": [{"port": 80}], "selector": {"a": "b"}},
    }
    spec = ok(server.http("POST", services, body), 201)["spec"]
    assert ipaddress.ip_address(spec["clusterIP"]) in ipaddress.ip_network("10.96.0.0/12")
    assert spec["clusterIPs"] == [spec["clusterIP"]]
    assert 30000 <= spec["ports"][0]["nodePort"] <= 32767
    assert (spec["ports"][0]["targetPort"], spec["ports"][0]["protocol"]) == (80, "TCP")
    other = ok(server.http("POST", services, {**body, "metadata": {"name": "np2"}}), 201)["spec"]
    assert other["clusterIP"] != spec["clusterIP"]
    assert other["ports"][0]["nodePort"] != spec["ports"][0]["nodePort"]


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_cluster_ip_is_immutable(server: KubeliteProcess, ns: str, method: str) -> None:
    services = f"/api/v1/namespaces/{ns}/services"
    body = {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}], "selector": {"a": "b"}}}
    created = ok(server.http("POST", services, body), 201)
    network = ipaddress.ip_network("10.96.0.0/12")
    moved = str(
        next(ip for ip in network.hosts() if str(ip) != created["spec"]["clusterIP"] and ip.packed[-1] > 9)
    )
    if method == "PUT":
        spec = {**created["spec"], "clusterIP": moved, "clusterIPs": [moved]}
        result = server.http("PUT", f"{services}/s", {**created, "spec": spec})
    else:
        result = server.http(
            "PATCH", f"{services}/s", {"spec": {"clusterIP": moved, "clusterIPs": [moved]}}, headers=MERGE
        )
    status = result.json()
    assert (result.status, status["reason"]) == (422, "Invalid")
    cause = {
        "reason": "FieldValueInvalid",
        "message": f'Invalid value: ["{moved}"]: may not change once set',
        "field": "spec.clusterIPs[0]",
    }
    assert status["details"]["causes"] == [cause]
    assert (
        status["message"]
        == f'Service "s" is invalid: spec.clusterIPs[0]: Invalid value: ["{moved}"]: may not change once set'
    )


def test_kubernetes_service_in_default(server: KubeliteProcess) -> None:
    service = ok(server.http("GET", "/api/v1/namespaces/default/services/kubernetes"))
    spec = service["spec"]
    assert (spec["clusterIP"], spec["clusterIPs"], spec["type"]) == ("10.96.0.1", ["10.96.0.1"], "ClusterIP")
    assert (spec["ports"][0]["name"], spec["ports"][0]["port"], spec["ports"][0]["protocol"]) == (
        "https",
        443,
        "TCP",
    )
    assert spec["ports"][0]["targetPort"] == server.secure_port
    assert service["metadata"]["labels"] == {"component": "apiserver", "provider": "kubernetes"}


def test_binding_assigns_a_node_once(server: KubeliteProcess, ns: str) -> None:
    pods = f"/api/v1/namespaces/{ns}/pods"
    ok(server.http("POST", pods, pod("p")), 201)
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p"},
        "target": {"kind": "Node", "name": "n1"},
    }
    bound = ok(server.http("POST", f"{pods}/p/binding", binding), 201)
    assert bound == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    assert ok(server.http("GET", f"{pods}/p"))["spec"]["nodeName"] == "n1"
    again = server.http("POST", f"{pods}/p/binding", {**binding, "target": {"kind": "Node", "name": "n2"}})
    assert (again.status, again.json()) == (
        409,
        conflict("pods/binding", "p", 'pod p is already assigned to node "n1"'),
    )
    assert ok(server.http("GET", f"{pods}/p"))["spec"]["nodeName"] == "n1"


def test_binding_of_a_missing_pod_is_not_found(server: KubeliteProcess, ns: str) -> None:
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"name": "n1"}}
    result = server.http("POST", f"/api/v1/namespaces/{ns}/pods/p/binding", binding)
    assert (result.status, result.json()["message"]) == (404, 'pods "p" not found')


def test_binding_collection_binds_the_named_pod(server: KubeliteProcess, ns: str) -> None:
    pods = f"/api/v1/namespaces/{ns}/pods"
    ok(server.http("POST", pods, pod("p")), 201)
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"name": "n1"}}
    ok(server.http("POST", f"/api/v1/namespaces/{ns}/bindings", binding), 201)
    assert ok(server.http("GET", f"{pods}/p"))["spec"]["nodeName"] == "n1"


def _raw_exchange(server: KubeliteProcess, head: bytes, body: bytes) -> tuple[bytes, bytes]:
    """Send a request's head, read what the server says before the body, then send the body and read on."""
    import socket

    with socket.create_connection(("127.0.0.1", server.insecure_port), timeout=5) as sock:
        sock.sendall(head)
        sock.settimeout(2)
        try:
            interim = sock.recv(4096)
        except TimeoutError:
            interim = b""
        sock.sendall(body)
        sock.settimeout(5)
        final = b""
        while b"\r\n\r\n" not in final or not final.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            final += chunk
    return interim, final


def test_expect_100_continue_is_answered_before_the_body(server: KubeliteProcess, ns: str) -> None:
    body = json.dumps({"metadata": {"name": "expect"}, "data": {"k": "v"}}).encode()
    head = (
        f"POST {cm_path(ns)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
    ).encode()
    interim, final = _raw_exchange(server, head, body)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    assert final.startswith(b"HTTP/1.1 201 Created\r\n"), final[:200]


def test_an_unknown_expectation_fails(server: KubeliteProcess, ns: str) -> None:
    result = server.http("POST", cm_path(ns), {"metadata": {"name": "x"}}, headers={"Expect": "party"})
    assert (result.status, result.body) == (417, b"Unknown Expect: party")


def _pod_of(account: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"of-{account}"},
        "spec": {"serviceAccountName": account, "containers": [{"name": "c", "image": "busybox"}]},
    }


def test_service_account_admission_reads_the_account_just_written(server: KubeliteProcess, ns: str) -> None:
    """A pod created right after its ServiceAccount sees it, opt-out included (the cache may be behind: the
    plugin then asks storage), and a pod of an account that opts out gets no token volume."""
    pods = f"/api/v1/namespaces/{ns}/pods"
    accounts = f"/api/v1/namespaces/{ns}/serviceaccounts"
    quiet = {"metadata": {"name": "quiet"}, "automountServiceAccountToken": False}
    ok(server.http("POST", accounts, quiet), 201)
    pod = ok(server.http("POST", pods, _pod_of("quiet")), 201)
    assert "volumes" not in pod["spec"]
    assert "volumeMounts" not in pod["spec"]["containers"][0]

    ok(server.http("POST", accounts, {"metadata": {"name": "chatty"}}), 201)
    pod = ok(server.http("POST", pods, _pod_of("chatty")), 201)
    [volume] = pod["spec"]["volumes"]
    assert re.fullmatch(r"kube-api-access-[a-z0-9]{5}", volume["name"])
    assert pod["spec"]["containers"][0]["volumeMounts"] == [
        {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": volume["name"], "readOnly": True}
    ]

    # the opt-out, updated: the next pod follows the account as stored
    patched = ok(server.http("PATCH", f"{accounts}/chatty", {"automountServiceAccountToken": False}, headers=MERGE))
    assert patched["automountServiceAccountToken"] is False
    second = _pod_of("chatty") | {"metadata": {"name": "of-chatty-2"}}
    pod = ok(server.http("POST", pods, second), 201)
    assert "volumes" not in pod["spec"], "admission read a stale account"


# -- a PUT's body uid is a precondition ------------------------------------------------------------------------


def _uid_precondition_failed(ns: str, name: str, body_uid: str, stored_uid: str) -> str:
    # kube: the body's uid becomes a storage precondition (rest.defaultUpdatedObjectInfo.Preconditions), and
    # its failure is etcd3's invalid-object StorageError inside the Conflict
    return (
        f"StorageError: invalid object, Code: 4, Key: /registry/configmaps/{ns}/{name}, ResourceVersion: 0, "
        f"AdditionalErrorMsg: Precondition failed: UID in precondition: {body_uid}, UID in object meta: {stored_uid}"
    )


def test_put_with_another_uid_is_conflict(server: KubeliteProcess, ns: str) -> None:
    created = ok(server.http("POST", cm_path(ns), {"metadata": {"name": "a"}, "data": {"k": "1"}}), 201)
    stored_uid = created["metadata"]["uid"]
    other = "22222222-2222-2222-2222-222222222222"
    body = {"metadata": {"name": "a", "uid": other}, "data": {"k": "2"}}
    result = server.http("PUT", cm_path(ns, "a"), body)
    why = _uid_precondition_failed(ns, "a", other, stored_uid)
    assert (result.status, result.json()) == (409, conflict("configmaps", "a", why))
    assert ok(server.http("GET", cm_path(ns, "a")))["data"] == {"k": "1"}

    body["metadata"]["uid"] = stored_uid  # the stored object's own uid is no obstacle
    assert ok(server.http("PUT", cm_path(ns, "a"), body))["data"] == {"k": "2"}


def test_put_that_creates_with_a_uid_is_conflict(server: KubeliteProcess, ns: str) -> None:
    uid = "33333333-3333-3333-3333-333333333333"
    result = server.http("PUT", cm_path(ns, "new"), {"metadata": {"name": "new", "uid": uid}})
    why = _uid_precondition_failed(ns, "new", uid, "")
    assert (result.status, result.json()) == (409, conflict("configmaps", "new", why))
    assert server.http("GET", cm_path(ns, "new")).status == 404
