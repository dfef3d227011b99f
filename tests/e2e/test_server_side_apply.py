"""Server-side apply end to end: the real kubectl's `apply --server-side`, its conflicts and
`--force-conflicts`, the managedFields `kubectl get --show-managed-fields` shows, and the raw HTTP answers of
PATCH with `application/apply-patch+yaml`, as kube-apiserver gives them."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
import yaml

from tests.e2e.server import HTTPResult, KubeliteProcess

APPLY = {"Content-Type": "application/apply-patch+yaml"}

#: what kubectl appends to a conflict (its fieldManagerConflictErrorMessage)
KUBECTL_CONFLICT_HELP = """Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
"""

#: what `kubectl apply --server-side` of manifest() owns
APPLIED_FIELDS = {
    "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
            "f:metadata": {"f:labels": {"f:app": {}}},
            "f:spec": {
                "f:containers": {
                    'k:{"name":"nginx"}': {
                        ".": {},
                        "f:image": {},
                        "f:name": {},
                        "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                    }
                }
            },
        },
    }
}

_COUNTER = itertools.count()


@pytest.fixture
def ns(server: KubeliteProcess, request: pytest.FixtureRequest) -> str:
    """A namespace of the test's own, so tests sharing the module's server never see each other's objects."""
    slug = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().removeprefix("test_"))
    name = f"s{next(_COUNTER)}-{slug}"[:63].strip("-")
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


def manifest(
    ns: str, *, replicas: int | None = 2, image: str = "nginx:1.25", labels: dict[str, str] | None = None
) -> str:
    doc: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": ns},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image, "ports": [{"containerPort": 80}]}]},
            },
        },
    }
    if replicas is None:
        del doc["spec"]["replicas"]
    if labels:
        doc["metadata"]["labels"] = labels
    return yaml.safe_dump(doc)


def deployment(server: KubeliteProcess, ns: str) -> dict[str, Any]:
    result = server.http("GET", f"/apis/apps/v1/namespaces/{ns}/deployments/web")
    assert result.status == 200, result.body
    return result.json()


def entries(obj: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(e["manager"], e["operation"], e["apiVersion"]) for e in obj["metadata"].get("managedFields", [])]


def owned(obj: dict[str, Any], manager: str) -> dict[str, Any]:
    return next(e["fieldsV1"] for e in obj["metadata"]["managedFields"] if e["manager"] == manager)


def apply(server: KubeliteProcess, text: str, *args: str, check: bool = True) -> Any:
    return server.kubectl("apply", "--server-side", *args, "-f", "-", input=text, check=check)


# -- kubectl apply --server-side ----------------------------------------------------------------------------


def test_apply_creates_then_updates(server: KubeliteProcess, ns: str) -> None:
    assert apply(server, manifest(ns)).stdout == "deployment.apps/web serverside-applied\n"
    assert apply(server, manifest(ns, replicas=4)).stdout == "deployment.apps/web serverside-applied\n"
    obj = deployment(server, ns)
    assert obj["spec"]["replicas"] == 4
    assert entries(obj) == [("kubectl", "Apply", "apps/v1")]
    entry = obj["metadata"]["managedFields"][0]
    assert list(entry) == ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]
    assert (entry["fieldsType"], entry["fieldsV1"]) == ("FieldsV1", APPLIED_FIELDS)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry["time"])


def test_field_no_longer_applied_is_removed(server: KubeliteProcess, ns: str) -> None:
    apply(server, manifest(ns, labels={"team": "blue", "tier": "web"}))
    apply(server, manifest(ns, labels={"tier": "web"}))
    assert deployment(server, ns)["metadata"]["labels"] == {"tier": "web"}


def test_conflicting_apply_fails_and_force_conflicts_takes_the_field(server: KubeliteProcess, ns: str) -> None:
    apply(server, manifest(ns))
    result = apply(server, manifest(ns, replicas=3), "--field-manager=scaler", check=False)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        'error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas\n' + KUBECTL_CONFLICT_HELP
    )
    assert deployment(server, ns)["spec"]["replicas"] == 2

    forced = apply(server, manifest(ns, replicas=3), "--field-manager=scaler", "--force-conflicts")
    assert forced.stdout == "deployment.apps/web serverside-applied\n"
    obj = deployment(server, ns)
    assert obj["spec"]["replicas"] == 3
    assert entries(obj) == [("kubectl", "Apply", "apps/v1"), ("scaler", "Apply", "apps/v1")]
    assert "f:replicas" not in owned(obj, "kubectl")["f:spec"]
    assert owned(obj, "scaler") == APPLIED_FIELDS


def test_applying_the_same_value_shares_the_field(server: KubeliteProcess, ns: str) -> None:
    apply(server, manifest(ns))
    apply(server, manifest(ns), "--field-manager=twin")
    obj = deployment(server, ns)
    assert owned(obj, "kubectl") == owned(obj, "twin") == APPLIED_FIELDS
    # the object did not change, so kube gives the new entry no time
    twin = next(e for e in obj["metadata"]["managedFields"] if e["manager"] == "twin")
    assert "time" not in twin
    # a field one of two owners stops applying stays: the other still owns it
    apply(server, manifest(ns, replicas=None))
    assert deployment(server, ns)["spec"]["replicas"] == 2


def test_get_show_managed_fields(server: KubeliteProcess, ns: str) -> None:
    apply(server, manifest(ns))
    hidden = yaml.safe_load(server.kubectl("get", "deployment", "web", "-n", ns, "-o", "yaml").stdout)
    assert "managedFields" not in hidden["metadata"]
    shown = yaml.safe_load(
        server.kubectl("get", "deployment", "web", "-n", ns, "-o", "yaml", "--show-managed-fields").stdout
    )
    (entry,) = shown["metadata"]["managedFields"]
    entry.pop("time")
    assert entry == {
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": APPLIED_FIELDS,
        "manager": "kubectl",
        "operation": "Apply",
    }


def test_kubectl_takes_over_fields_of_its_client_side_apply(server: KubeliteProcess, ns: str) -> None:
    """kube lets `kubectl apply --server-side` change what the last-applied annotation says it set."""
    server.kubectl("apply", "-f", "-", input=manifest(ns))
    assert apply(server, manifest(ns, replicas=5)).stdout == "deployment.apps/web serverside-applied\n"
    assert deployment(server, ns)["spec"]["replicas"] == 5


def test_client_side_apply_then_server_side_apply_migrates_ownership(server: KubeliteProcess, ns: str) -> None:
    server.kubectl("apply", "-f", "-", input=manifest(ns))
    assert entries(deployment(server, ns)) == [("kubectl-client-side-apply", "Update", "apps/v1")]
    apply(server, manifest(ns))
    obj = deployment(server, ns)
    # kubectl moved the client-side apply entry into its own, and keeps the annotation under its own manager
    assert sorted(entries(obj)) == [("kubectl", "Apply", "apps/v1"), ("kubectl-last-applied", "Apply", "apps/v1")]
    assert owned(obj, "kubectl") == APPLIED_FIELDS
    assert owned(obj, "kubectl-last-applied") == {
        "f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}
    }


def test_conflict_with_an_update_manager_names_its_version(server: KubeliteProcess, ns: str) -> None:
    server.kubectl("apply", "-f", "-", input=manifest(ns))
    result = apply(server, manifest(ns, replicas=3), "--field-manager=ssa", check=False)
    assert result.stderr == (
        'error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: '
        ".spec.replicas\n" + KUBECTL_CONFLICT_HELP
    )


# -- raw HTTP -----------------------------------------------------------------------------------------------


def cm_path(ns: str, name: str = "cm", query: str = "fieldManager=test") -> str:
    return f"/api/v1/namespaces/{ns}/configmaps/{name}" + (f"?{query}" if query else "")


def configmap(ns: str, name: str = "cm", **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": data}


def status_of(result: HTTPResult) -> tuple[int, dict[str, Any]]:
    return result.status, result.json()


def failure(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details is not None:
        status["details"] = details
    return status


def test_raw_apply_creates_201_then_updates_200(server: KubeliteProcess, ns: str) -> None:
    created = server.http("PATCH", cm_path(ns), json.dumps(configmap(ns, a="1")), headers=APPLY)
    assert created.status == 201
    assert created.json()["data"] == {"a": "1"}
    updated = server.http("PATCH", cm_path(ns), yaml.safe_dump(configmap(ns, b="2")), headers=APPLY)
    assert updated.status == 200
    body = updated.json()
    assert body["data"] == {"b": "2"}  # `a` is no longer applied, and nobody else owns it
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in body["metadata"]["managedFields"]] == [
        ("test", "Apply", {"f:data": {"f:b": {}}})
    ]


def test_raw_apply_without_field_manager_is_422(server: KubeliteProcess, ns: str) -> None:
    result = server.http("PATCH", cm_path(ns, query=""), json.dumps(configmap(ns)), headers=APPLY)
    assert status_of(result) == (
        422,
        failure(
            422,
            "Invalid",
            'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
            {
                "group": "meta.k8s.io",
                "kind": "PatchOptions",
                "causes": [
                    {
                        "reason": "FieldValueRequired",
                        "message": "Required value: is required for apply patch",
                        "field": "fieldManager",
                    }
                ],
            },
        ),
    )


def test_raw_apply_conflict_is_409_with_causes(server: KubeliteProcess, ns: str) -> None:
    server.http(
        "PATCH", cm_path(ns, query="fieldManager=first"), json.dumps(configmap(ns, a="1", b="1")), headers=APPLY
    )
    result = server.http(
        "PATCH", cm_path(ns, query="fieldManager=second"), json.dumps(configmap(ns, a="2", b="2")), headers=APPLY
    )
    assert status_of(result) == (
        409,
        failure(
            409,
            "Conflict",
            'Apply failed with 2 conflicts: conflicts with "first":\n- .data.a\n- .data.b',
            {
                "causes": [
                    {"reason": "FieldManagerConflict", "message": 'conflict with "first"', "field": ".data.a"},
                    {"reason": "FieldManagerConflict", "message": 'conflict with "first"', "field": ".data.b"},
                ]
            },
        ),
    )
    forced = server.http(
        "PATCH",
        cm_path(ns, query="fieldManager=second&force=true"),
        json.dumps(configmap(ns, a="2", b="2")),
        headers=APPLY,
    )
    assert forced.status == 200
    assert [e["manager"] for e in forced.json()["metadata"]["managedFields"]] == ["second"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cm"}},
            "invalid object type: /v1, Kind=Secret",
            id="other-kind",
        ),
        pytest.param(
            {"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "cm"}},
            "invalid object type: apps/v1, Kind=ConfigMap",
            id="other-group",
        ),
        pytest.param({"metadata": {"name": "cm"}}, "invalid object type: /, Kind=", id="no-type"),
        pytest.param(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "managedFields": []}},
            "metadata.managedFields must be nil",
            id="managed-fields",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}},
            "the name of the object (other) does not match the name on the URL (cm)",
            id="other-name",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}},
            "the name of the object (cm based on URL) was undeterminable: name must be provided",
            id="no-name",
        ),
    ],
)
def test_raw_apply_bad_configuration_is_400(
    server: KubeliteProcess, ns: str, body: dict[str, Any], message: str
) -> None:
    result = server.http("PATCH", cm_path(ns), json.dumps(body), headers=APPLY)
    assert status_of(result) == (400, failure(400, "BadRequest", message))


def test_raw_apply_of_an_undeclared_field_is_a_bad_request(server: KubeliteProcess, ns: str) -> None:
    """kube's typed conversion refuses it with a 500; the text is kube's, the code says whose error it is."""
    body = configmap(ns) | {"spec": {"x": 1}}
    result = server.http("PATCH", cm_path(ns), json.dumps(body), headers=APPLY)
    status = result.json()
    assert (result.status, status["code"], status["reason"], status["message"]) == (
        400,
        400,
        "BadRequest",
        f"failed to create typed patch object ({ns}/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema",
    )


def test_raw_apply_yaml_that_does_not_parse_is_400(server: KubeliteProcess, ns: str) -> None:
    result = server.http("PATCH", cm_path(ns), b"metadata: {name: cm\n", headers=APPLY)
    assert status_of(result)[0] == 400
    assert result.json()["message"].startswith("error decoding YAML: error converting YAML to JSON: yaml: line ")


def test_raw_apply_strict_refuses_repeated_keys(server: KubeliteProcess, ns: str) -> None:
    body = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: {ns}\ndata:\n  a: '1'\n  a: '2'\n"
    strict = server.http("PATCH", cm_path(ns, query="fieldManager=test&fieldValidation=Strict"), body, headers=APPLY)
    assert status_of(strict) == (
        400,
        failure(
            400,
            "BadRequest",
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
            '  line 8: key "a" already set in map',
        ),
    )
    lenient = server.http("PATCH", cm_path(ns, query="fieldManager=test&fieldValidation=Ignore"), body, headers=APPLY)
    assert (lenient.status, lenient.json()["data"]) == (201, {"a": "2"})


def test_raw_apply_dry_run_stores_nothing(server: KubeliteProcess, ns: str) -> None:
    result = server.http(
        "PATCH", cm_path(ns, query="fieldManager=test&dryRun=All"), json.dumps(configmap(ns, a="1")), headers=APPLY
    )
    assert result.status == 201
    assert [e["manager"] for e in result.json()["metadata"]["managedFields"]] == ["test"]
    assert server.http("GET", cm_path(ns, query="")).status == 404


def test_raw_apply_to_status_records_the_subresource(server: KubeliteProcess, ns: str) -> None:
    apply(server, manifest(ns))
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "status": {"replicas": 7}}
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/web/status?fieldManager=controller"
    result = server.http("PATCH", path, json.dumps(body), headers=APPLY)
    assert result.status == 200, result.body
    obj = result.json()
    assert obj["status"]["replicas"] == 7
    status_entry = next(e for e in obj["metadata"]["managedFields"] if e["manager"] == "controller")
    assert (status_entry["operation"], status_entry["subresource"], status_entry["fieldsV1"]) == (
        "Apply",
        "status",
        {"f:status": {"f:replicas": {}}},
    )


def test_raw_apply_to_missing_object_through_status_is_404(server: KubeliteProcess, ns: str) -> None:
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nope"}, "status": {"replicas": 1}}
    path = f"/apis/apps/v1/namespaces/{ns}/deployments/nope/status?fieldManager=controller"
    result = server.http("PATCH", path, json.dumps(body), headers=APPLY)
    assert status_of(result) == (
        404,
        failure(
            404,
            "NotFound",
            'deployments.apps "nope" not found',
            {"name": "nope", "group": "apps", "kind": "deployments"},
        ),
    )


def test_patch_415_lists_apply_patch(server: KubeliteProcess, ns: str) -> None:
    result = server.http("PATCH", cm_path(ns), b"{}", headers={"Content-Type": "text/plain"})
    assert status_of(result) == (
        415,
        failure(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
            "application/apply-patch+yaml",
        ),
    )
