"""CustomResourceDefinitions served live, tried as a user would with real kubectl and raw HTTP: establishing,
discovery, every verb on custom resources, printer columns, status and scale subresources, name conflicts,
several versions, and deletion through the cleanup finalizer. Each test uses a CRD group of its own."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from tests.e2e.server import KubeliteProcess
from tests.e2e.test_kubectl_support import parse_table

APPLY = ("apply", "-f", "-")


def crd(
    group: str,
    kind: str,
    *,
    plural: str | None = None,
    versions: list[dict[str, Any]] | None = None,
    scope: str = "Namespaced",
    short_names: list[str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    plural = plural or kind.lower() + "s"
    names: dict[str, Any] = {"plural": plural, "singular": kind.lower(), "kind": kind}
    if short_names:
        names["shortNames"] = short_names
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {"group": group, "scope": scope, "names": names, "versions": versions or [version("v1")], **spec},
    }


def version(name: str, *, storage: bool = True, served: bool = True, **extra: Any) -> dict[str, Any]:
    schema = extra.pop(
        "schema",
        {
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {"size": {"type": "integer"}, "color": {"type": "string"}},
                },
                "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
            },
        },
    )
    return {"name": name, "served": served, "storage": storage, "schema": {"openAPIV3Schema": schema}, **extra}


def apply(server: KubeliteProcess, *docs: dict[str, Any], check: bool = True) -> Any:
    return server.kubectl(*APPLY, input=yaml.safe_dump_all(docs), check=check)


def establish(server: KubeliteProcess, definition: dict[str, Any]) -> None:
    apply(server, definition)
    server.kubectl("wait", "--for=condition=Established", f"crd/{definition['metadata']['name']}", "--timeout=10s")


def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_crd_is_established_and_its_status_says_so(server: KubeliteProcess) -> None:
    definition = crd("status.example.com", "Gadget", short_names=["gd"])
    establish(server, definition)
    got = server.http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.status.example.com")
    assert got.status == 200
    body = got.json()
    assert body["status"]["acceptedNames"] == {
        "plural": "gadgets",
        "singular": "gadget",
        "shortNames": ["gd"],
        "kind": "Gadget",
        "listKind": "GadgetList",
    }
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in body["status"]["conditions"]] == [
        ("NamesAccepted", "True", "NoConflicts", "no conflicts found"),
        ("Established", "True", "InitialNamesAccepted", "the initial names have been accepted"),
    ]
    assert body["status"]["storedVersions"] == ["v1"]
    # kube's defaults
    assert body["spec"]["conversion"] == {"strategy": "None"}
    assert body["spec"]["names"]["listKind"] == "GadgetList"
    rows = parse_table(server.kubectl("get", "crd", "gadgets.status.example.com").stdout)
    assert rows[0] == ["NAME", "CREATED AT"]
    assert rows[1][0] == "gadgets.status.example.com"


def test_discovery_lists_the_new_resource_and_the_etag_changes(server: KubeliteProcess) -> None:
    aggregated = {"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}
    before = server.http("GET", "/apis", headers=aggregated)
    establish(server, crd("disco.example.com", "Sprocket", short_names=["spr"], versions=[version("v1")]))
    after = server.http("GET", "/apis", headers=aggregated)
    assert before.headers["etag"] != after.headers["etag"]
    groups = {item["metadata"]["name"]: item for item in after.json()["items"]}
    resource = groups["disco.example.com"]["versions"][0]["resources"][0]
    assert resource["resource"] == "sprockets"
    assert resource["responseKind"] == {"group": "disco.example.com", "version": "v1", "kind": "Sprocket"}
    assert resource["scope"] == "Namespaced"
    assert resource["shortNames"] == ["spr"]
    # in the order kube's CRD discovery lists them
    assert resource["verbs"] == ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
    rows = parse_table(server.kubectl("api-resources", "--api-group=disco.example.com").stdout)
    assert rows[1] == ["sprockets", "spr", "disco.example.com/v1", "true", "Sprocket"]
    legacy = server.http("GET", "/apis/disco.example.com/v1").json()
    assert [r["name"] for r in legacy["resources"]] == ["sprockets"]


def test_custom_resources_support_every_verb(server: KubeliteProcess) -> None:
    selectable = [{"jsonPath": ".spec.size"}]
    establish(
        server,
        crd("verbs.example.com", "Thing", short_names=["th"], versions=[version("v1", selectableFields=selectable)]),
    )
    apply(
        server,
        {
            "apiVersion": "verbs.example.com/v1",
            "kind": "Thing",
            "metadata": {"name": "a", "labels": {"x": "1"}},
            "spec": {"size": 1},
        },
        {"apiVersion": "verbs.example.com/v1", "kind": "Thing", "metadata": {"name": "b"}, "spec": {"size": 2}},
    )
    assert server.kubectl("get", "th", "-o", "name").stdout.split() == [
        "thing.verbs.example.com/a",
        "thing.verbs.example.com/b",
    ]
    assert server.kubectl("get", "things", "-l", "x=1", "-o", "name").stdout.split() == ["thing.verbs.example.com/a"]
    assert server.kubectl("get", "things", "--field-selector", "metadata.name=b", "-o", "name").stdout.split() == [
        "thing.verbs.example.com/b"
    ]
    unknown = server.kubectl("get", "things", "--field-selector", "spec.color=1", check=False)
    assert unknown.returncode == 1
    assert "field label not supported: spec.color" in unknown.stderr
    # the CRD's selectableFields are field selector labels
    assert server.kubectl("get", "things", "--field-selector", "spec.size=2", "-o", "name").stdout.split() == [
        "thing.verbs.example.com/b"
    ]
    # unknown fields are pruned
    server.kubectl("patch", "thing", "a", "--type=merge", "-p", '{"spec":{"size":5,"junk":true}}')
    got = json.loads(server.kubectl("get", "thing", "a", "-o", "json").stdout)
    assert got["spec"] == {"size": 5}
    assert got["metadata"]["generation"] == 2
    server.kubectl("patch", "thing", "a", "--type=json", "-p", '[{"op":"replace","path":"/spec/size","value":6}]')
    assert json.loads(server.kubectl("get", "thing", "a", "-o", "json").stdout)["spec"] == {"size": 6}
    smp = server.kubectl("patch", "thing", "a", "--type=strategic", "-p", '{"spec":{"size":7}}', check=False)
    assert smp.returncode == 1
    assert (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    ) in smp.stderr
    raw = server.http(
        "PATCH",
        "/apis/verbs.example.com/v1/namespaces/default/things/a",
        b'{"spec":{"size":7}}',
        headers={"Content-Type": "application/strategic-merge-patch+json"},
    )
    assert raw.status == 415
    assert raw.json()["reason"] == "UnsupportedMediaType"
    # protobuf is not served for custom resources: a client that also takes JSON gets JSON
    proto = server.http(
        "GET",
        "/apis/verbs.example.com/v1/namespaces/default/things/a",
        headers={"Accept": "application/vnd.kubernetes.protobuf,application/json"},
    )
    assert proto.status == 200
    assert proto.headers["content-type"] == "application/json"
    only_proto = server.http(
        "GET",
        "/apis/verbs.example.com/v1/namespaces/default/things/a",
        headers={"Accept": "application/vnd.kubernetes.protobuf"},
    )
    assert only_proto.status == 406
    proto_body = server.http(
        "POST",
        "/apis/verbs.example.com/v1/namespaces/default/things",
        b"k8s\x00",
        headers={"Content-Type": "application/vnd.kubernetes.protobuf"},
    )
    assert proto_body.status == 415
    assert proto_body.json()["message"] == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json, application/yaml"
    )
    server.kubectl("delete", "thing", "b")
    assert server.kubectl("get", "things", "-o", "name").stdout.split() == ["thing.verbs.example.com/a"]
    gone = server.http("DELETE", "/apis/verbs.example.com/v1/namespaces/default/things")
    assert gone.status == 200
    assert [item["metadata"]["name"] for item in gone.json()["items"]] == ["a"]
    missing = server.kubectl("get", "thing", "a", check=False)
    assert missing.stderr.strip() == 'Error from server (NotFound): things.verbs.example.com "a" not found'


def test_a_watch_sees_custom_resources_change(server: KubeliteProcess) -> None:
    establish(server, crd("watch.example.com", "Beacon"))
    listed = server.http("GET", "/apis/watch.example.com/v1/namespaces/default/beacons").json()
    rv = listed["metadata"]["resourceVersion"]
    apply(server, {"apiVersion": "watch.example.com/v1", "kind": "Beacon", "metadata": {"name": "b1"}, "spec": {}})
    server.kubectl("delete", "beacon", "b1")
    watched = server.http(
        "GET", f"/apis/watch.example.com/v1/namespaces/default/beacons?watch=1&resourceVersion={rv}&timeoutSeconds=1"
    )
    events = [json.loads(line) for line in watched.body.splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", "b1"), ("DELETED", "b1")]
    assert events[0]["object"]["apiVersion"] == "watch.example.com/v1"


def test_printer_columns(server: KubeliteProcess) -> None:
    columns = [
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Color", "type": "string", "jsonPath": ".spec.color", "priority": 1},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    ]
    establish(server, crd("print.example.com", "Widget", versions=[version("v1", additionalPrinterColumns=columns)]))
    apply(
        server,
        {
            "apiVersion": "print.example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w"},
            "spec": {"size": 3, "color": "red"},
        },
    )
    narrow = parse_table(server.kubectl("get", "widgets").stdout)
    assert narrow[0] == ["NAME", "SIZE", "AGE"]
    assert narrow[1][:2] == ["w", "3"]
    wide = parse_table(server.kubectl("get", "widgets", "-o", "wide").stdout)
    assert wide[0] == ["NAME", "SIZE", "COLOR", "AGE"]
    assert wide[1][:3] == ["w", "3", "red"]


def test_status_and_scale_subresources(server: KubeliteProcess) -> None:
    subresources = {
        "status": {},
        "scale": {
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".status.selector",
        },
    }
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}, "color": {"type": "string"}}},
            "status": {
                "type": "object",
                "properties": {"replicas": {"type": "integer"}, "selector": {"type": "string"}},
            },
        },
    }
    establish(
        server, crd("sub.example.com", "Pool", versions=[version("v1", schema=schema, subresources=subresources)])
    )
    base = "/apis/sub.example.com/v1/namespaces/default/pools"
    created = server.http(
        "POST",
        base,
        {
            "apiVersion": "sub.example.com/v1",
            "kind": "Pool",
            "metadata": {"name": "p"},
            "spec": {"replicas": 1},
            "status": {"replicas": 9},
        },
    )
    assert created.status == 201
    assert "status" not in created.json()  # the main resource ignores status
    current = created.json()
    current["status"] = {"replicas": 1, "selector": "app=p"}
    current["spec"]["replicas"] = 5
    status = server.http("PUT", f"{base}/p/status", current)
    assert status.status == 200
    assert status.json()["status"] == {"replicas": 1, "selector": "app=p"}
    assert status.json()["spec"] == {"replicas": 1}  # /status writes status only
    assert status.json()["metadata"]["generation"] == 1
    server.kubectl("scale", "pool", "p", "--replicas=3")
    scale = server.http("GET", f"{base}/p/scale").json()
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 3}
    assert scale["status"] == {"replicas": 1, "selector": "app=p"}
    got = server.http("GET", f"{base}/p").json()
    assert got["spec"]["replicas"] == 3
    assert got["metadata"]["generation"] == 2


def test_a_name_in_use_is_not_accepted(server: KubeliteProcess) -> None:
    establish(server, crd("names.example.com", "Alpha", short_names=["al"]))
    clash = crd("names.example.com", "Beta", short_names=["al"])
    apply(server, clash)

    def conditions() -> list[tuple[str, str, str, str]]:
        body = server.http(
            "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/betas.names.example.com"
        ).json()
        found = (body.get("status") or {}).get("conditions") or []
        return [(c["type"], c["status"], c["reason"], c["message"]) for c in found]

    wait_for(lambda: bool(conditions()))
    assert conditions() == [
        ("NamesAccepted", "False", "ShortNamesConflict", '"al" is already in use'),
        ("Established", "False", "NotAccepted", "not all names are accepted"),
    ]
    assert server.http("GET", "/apis/names.example.com/v1/betas").status == 404
    # freeing the name lets the waiting CRD take it
    server.kubectl("delete", "crd", "alphas.names.example.com")
    wait_for(
        lambda: ("Established", "True", "InitialNamesAccepted", "the initial names have been accepted") in conditions()
    )
    assert server.http("GET", "/apis/names.example.com/v1/betas").status == 200


def test_several_versions_convert_and_deprecation_warns(server: KubeliteProcess) -> None:
    preserve = {
        "type": "object",
        "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }
    definition = crd(
        "versions.example.com",
        "Gizmo",
        versions=[
            version("v1beta1", storage=False, schema=preserve, deprecated=True),
            version("v1"),
        ],
    )
    establish(server, definition)
    group = server.http("GET", "/apis/versions.example.com").json()
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"
    created = server.http(
        "POST",
        "/apis/versions.example.com/v1beta1/namespaces/default/gizmos",
        {
            "apiVersion": "versions.example.com/v1beta1",
            "kind": "Gizmo",
            "metadata": {"name": "g"},
            "spec": {"size": 2, "extra": "x"},
        },
    )
    assert created.status == 201
    assert created.headers["warning"] == '299 - "versions.example.com/v1beta1 Gizmo is deprecated"'
    # stored in v1, whose schema prunes what it does not know
    v1 = server.http("GET", "/apis/versions.example.com/v1/namespaces/default/gizmos/g").json()
    assert v1["apiVersion"] == "versions.example.com/v1"
    assert v1["spec"] == {"size": 2}
    beta = server.http("GET", "/apis/versions.example.com/v1beta1/namespaces/default/gizmos").json()
    assert [item["apiVersion"] for item in beta["items"]] == ["versions.example.com/v1beta1"]
    assert beta["apiVersion"] == "versions.example.com/v1beta1"
    # a watch in the other version sees the objects converted
    patched = server.http(
        "PATCH",
        "/apis/versions.example.com/v1/namespaces/default/gizmos/g",
        {"spec": {"size": 3}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status == 200
    watched = server.http(
        "GET",
        "/apis/versions.example.com/v1beta1/namespaces/default/gizmos?watch=1"
        f"&resourceVersion={beta['metadata']['resourceVersion']}&timeoutSeconds=1",
    )
    events = [json.loads(line) for line in watched.body.splitlines()]
    assert [(e["type"], e["object"]["apiVersion"], e["object"]["spec"]) for e in events] == [
        ("MODIFIED", "versions.example.com/v1beta1", {"size": 3})
    ]


def test_deleting_the_crd_deletes_its_objects(server: KubeliteProcess) -> None:
    establish(server, crd("gone.example.com", "Leaf", scope="Cluster"))
    apply(
        server,
        *[{"apiVersion": "gone.example.com/v1", "kind": "Leaf", "metadata": {"name": f"l{i}"}} for i in range(3)],
    )
    server.kubectl("delete", "crd", "leafs.gone.example.com", "--timeout=20s")
    assert (
        server.http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/leafs.gone.example.com").status
        == 404
    )
    assert server.http("GET", "/apis/gone.example.com/v1/leafs").status == 404
    assert server.http("GET", "/apis/gone.example.com").status == 404
    # recreating it starts empty: the objects went with the CRD
    establish(server, crd("gone.example.com", "Leaf", scope="Cluster"))
    assert server.http("GET", "/apis/gone.example.com/v1/leafs").json()["items"] == []


def test_creates_are_refused_while_the_crd_terminates(server: KubeliteProcess) -> None:
    establish(server, crd("term.example.com", "Stone"))
    base = "/apis/term.example.com/v1/namespaces/default/stones"
    held = {
        "apiVersion": "term.example.com/v1",
        "kind": "Stone",
        "metadata": {"name": "s", "finalizers": ["example.com/hold"]},
    }
    assert server.http("POST", base, held).status == 201
    assert (
        server.http("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/stones.term.example.com").status
        == 200
    )

    def terminating() -> list[str]:
        body = server.http(
            "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/stones.term.example.com"
        ).json()
        return [c["reason"] for c in body["status"]["conditions"] if c["type"] == "Terminating"]

    wait_for(lambda: terminating() == ["InstanceDeletionCheck"])
    refused = server.http(
        "POST", base, {"apiVersion": "term.example.com/v1", "kind": "Stone", "metadata": {"name": "t"}}
    )
    assert refused.status == 403
    assert refused.json()["message"] == (
        'stones.term.example.com "t" is forbidden: create not allowed while custom resource definition is terminating'
    )
    assert refused.json()["reason"] == "Forbidden"
    # the object's own finalizer holds the CRD until it is removed
    server.http(
        "PATCH",
        f"{base}/s",
        {"metadata": {"finalizers": None}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    wait_for(
        lambda: (
            server.http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/stones.term.example.com").status
            == 404
        )
    )


def test_custom_resources_survive_a_restart(fresh_server: KubeliteProcess) -> None:
    establish(fresh_server, crd("restart.example.com", "Seed"))
    apply(
        fresh_server,
        {"apiVersion": "restart.example.com/v1", "kind": "Seed", "metadata": {"name": "s"}, "spec": {"size": 4}},
    )
    fresh_server.kill()
    fresh_server.start()
    got = fresh_server.http("GET", "/apis/restart.example.com/v1/namespaces/default/seeds/s")
    assert got.status == 200
    assert got.json()["spec"] == {"size": 4}


@pytest.mark.parametrize("path", ["/apis/nosuch.example.com/v1/things", "/apis/nosuch.example.com"])
def test_an_unknown_group_is_a_plain_404(server: KubeliteProcess, path: str) -> None:
    got = server.http("GET", path)
    assert got.status == 404


VALIDATED = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["engine"],
            "properties": {
                "engine": {"type": "string", "enum": ["postgres", "mysql"]},
                "size": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
                "name": {"type": "string", "maxLength": 5},
                "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string", "enum": ["Ready", "Pending"]}}},
    },
}


def test_invalid_objects_are_refused_with_kubes_messages(server: KubeliteProcess) -> None:
    establish(
        server,
        crd("valid.example.com", "Database", versions=[version("v1", schema=VALIDATED, subresources={"status": {}})]),
    )
    bad = {
        "apiVersion": "valid.example.com/v1",
        "kind": "Database",
        "metadata": {"name": "a"},
        "spec": {"engine": "oracle", "size": "big", "name": "toolong", "tags": ["x", "x"]},
    }
    refused = apply(server, bad, check=False)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        'The Database "a" is invalid: ',
        '* spec.engine: Unsupported value: "oracle": supported values: "postgres", "mysql"',
        "* spec.name: Too long: may not be more than 5 bytes",
        '* spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
        '* spec.tags[1]: Duplicate value: "x"',
    ]
    raw = server.http("POST", "/apis/valid.example.com/v1/namespaces/default/databases", {**bad, "spec": {}})
    assert raw.status == 422
    body = raw.json()
    assert body["reason"] == "Invalid"
    assert body["message"] == 'Database.valid.example.com "a" is invalid: spec.engine: Required value'
    assert body["details"]["causes"] == [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.engine"}
    ]
    apply(server, {**bad, "spec": {"engine": "mysql"}})
    got = server.http("GET", "/apis/valid.example.com/v1/namespaces/default/databases/a").json()
    assert got["spec"] == {"engine": "mysql", "size": 3}  # defaulted
    status = server.kubectl(
        "patch",
        "database",
        "a",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"phase":"Bad"}}',
        check=False,
    )
    assert status.stderr.strip() == (
        'The Database "a" is invalid: status.phase: Unsupported value: "Bad": supported values: "Ready", "Pending"'
    )


def test_a_default_added_to_the_schema_shows_on_stored_objects(server: KubeliteProcess) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"mode": {"type": "string"}}}},
    }
    definition = crd("defaults.example.com", "Knob", versions=[version("v1", schema=schema)])
    establish(server, definition)
    apply(server, {"apiVersion": "defaults.example.com/v1", "kind": "Knob", "metadata": {"name": "k"}, "spec": {}})
    schema["properties"]["spec"]["properties"]["mode"]["default"] = "auto"
    apply(server, definition)
    path = "/apis/defaults.example.com/v1/namespaces/default/knobs/k"
    wait_for(lambda: server.http("GET", path).json()["spec"] == {"mode": "auto"})
    listed = server.http("GET", "/apis/defaults.example.com/v1/namespaces/default/knobs").json()
    assert [item["spec"] for item in listed["items"]] == [{"mode": "auto"}]


def test_unknown_fields_under_strict_and_warn(server: KubeliteProcess) -> None:
    establish(server, crd("strict.example.com", "Lamp"))
    base = "/apis/strict.example.com/v1/namespaces/default/lamps"
    obj = {"apiVersion": "strict.example.com/v1", "kind": "Lamp", "metadata": {"name": "l"}, "spec": {"bogus": 1}}
    strict = server.http("POST", f"{base}?fieldValidation=Strict", obj)
    assert strict.status == 400
    assert strict.json()["message"] == (
        'Lamp in version "v1" cannot be handled as a Lamp: strict decoding error: unknown field "spec.bogus"'
    )
    warned = server.http("POST", f"{base}?fieldValidation=Warn", obj)
    assert warned.status == 201
    assert warned.headers["warning"] == '299 - "unknown field \\"spec.bogus\\""'
    assert warned.json()["spec"] == {}


def test_the_garbage_collector_follows_custom_resources(server: KubeliteProcess) -> None:
    establish(server, crd("gc.example.com", "Parent"))
    base = "/apis/gc.example.com/v1/namespaces/default/parents"
    parent = server.http(
        "POST", base, {"apiVersion": "gc.example.com/v1", "kind": "Parent", "metadata": {"name": "p"}}
    ).json()
    owner = {"apiVersion": "gc.example.com/v1", "kind": "Parent", "name": "p", "uid": parent["metadata"]["uid"]}
    child = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "gc-child", "ownerReferences": [owner]}}
    assert server.http("POST", "/api/v1/namespaces/default/configmaps", child).status == 201
    # a custom resource owned by a built-in object goes with it too
    holder = server.http("POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "gc-holder"}}).json()
    owned = {
        "apiVersion": "gc.example.com/v1",
        "kind": "Parent",
        "metadata": {
            "name": "owned",
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "ConfigMap", "name": "gc-holder", "uid": holder["metadata"]["uid"]}
            ],
        },
    }
    assert server.http("POST", base, owned).status == 201
    time.sleep(0.5)  # the garbage collector has seen both owners alive: nothing is collected
    assert server.http("GET", "/api/v1/namespaces/default/configmaps/gc-child").status == 200
    assert server.http("GET", f"{base}/owned").status == 200
    assert server.http("DELETE", f"{base}/p").status == 200
    assert server.http("DELETE", "/api/v1/namespaces/default/configmaps/gc-holder").status == 200
    wait_for(lambda: server.http("GET", "/api/v1/namespaces/default/configmaps/gc-child").status == 404)
    wait_for(lambda: server.http("GET", f"{base}/owned").status == 404)


def test_deleting_a_namespace_deletes_its_custom_resources(server: KubeliteProcess) -> None:
    establish(server, crd("ns.example.com", "Tenant"))
    server.kubectl("create", "namespace", "tenants")
    created = server.http(
        "POST",
        "/apis/ns.example.com/v1/namespaces/tenants/tenants",
        {"apiVersion": "ns.example.com/v1", "kind": "Tenant", "metadata": {"name": "t"}},
    )
    assert created.status == 201
    server.kubectl("delete", "namespace", "tenants", "--timeout=20s")
    assert server.http("GET", "/api/v1/namespaces/tenants").status == 404
    assert server.http("GET", "/apis/ns.example.com/v1/tenants").json()["items"] == []


def test_an_invalid_crd_is_refused_with_kubes_messages(server: KubeliteProcess) -> None:
    bad = crd("example", "Foo", plural="foos", scope="Regional")
    bad["metadata"]["name"] = "bad.example.com"
    refused = apply(server, bad, check=False)
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        'The CustomResourceDefinition "bad.example.com" is invalid: ',
        '* metadata.name: Invalid value: "bad.example.com": must be spec.names.plural+"."+spec.group',
        '* spec.group: Invalid value: "example": should be a domain with at least one dot',
        '* spec.scope: Unsupported value: "Regional": supported values: "Cluster", "Namespaced"',
    ]
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}},
    }
    refused = apply(server, crd("invalid.example.com", "Foo", versions=[version("v1", schema=schema)]), check=False)
    assert refused.stderr.strip() == (
        'The CustomResourceDefinition "foos.invalid.example.com" is invalid: '
        "spec.validation.openAPIV3Schema.properties[spec].properties[a].default: "
        'Invalid value: "string":  in body must be of type integer: "string"'
    )


CEL_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "x-kubernetes-validations": [
                {"rule": "self.min <= self.max", "message": "min must not exceed max"},
                {"rule": "!has(oldSelf.mode) || self.mode == oldSelf.mode", "message": "mode is immutable"},
                {
                    "rule": "quantity(self.size).compareTo(quantity('1Gi')) <= 0",
                    "messageExpression": "'size ' + self.size + ' is over 1Gi'",
                    "reason": "FieldValueForbidden",
                    "fieldPath": ".size",
                },
            ],
            "properties": {
                "min": {"type": "integer"},
                "max": {"type": "integer"},
                "mode": {"type": "string"},
                "size": {"type": "string"},
            },
        }
    },
}


def test_cel_rules_refuse_objects_with_their_messages(server: KubeliteProcess) -> None:
    establish(server, crd("cel.example.com", "Range", versions=[version("v1", schema=CEL_SCHEMA)]))
    obj = {"apiVersion": "cel.example.com/v1", "kind": "Range", "metadata": {"name": "r"}}
    refused = apply(server, {**obj, "spec": {"min": 5, "max": 1, "mode": "a", "size": "2Gi"}}, check=False)
    assert refused.stderr.splitlines() == [
        'The Range "r" is invalid: ',
        "* spec: Invalid value: min must not exceed max",
        "* spec.size: Forbidden: size 2Gi is over 1Gi",
    ]
    apply(server, {**obj, "spec": {"min": 1, "max": 5, "mode": "a", "size": "1Mi"}})
    # a transition rule runs on update only
    changed = server.kubectl("patch", "range", "r", "--type=merge", "-p", '{"spec":{"mode":"b"}}', check=False)
    assert changed.stderr.strip() == 'The Range "r" is invalid: spec: Invalid value: mode is immutable'
    server.kubectl("patch", "range", "r", "--type=merge", "-p", '{"spec":{"max":9}}')


def test_a_cel_rule_that_does_not_compile_or_costs_too_much_refuses_the_crd(server: KubeliteProcess) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "bad": {"type": "string", "x-kubernetes-validations": [{"rule": "self > 1"}]},
                    "items": {
                        "type": "array",
                        "items": {"type": "string"},
                        "x-kubernetes-validations": [{"rule": "self.all(x, self.all(y, x != y || x == y))"}],
                    },
                },
            }
        },
    }
    refused = apply(server, crd("celbad.example.com", "Costly", versions=[version("v1", schema=schema)]), check=False)
    lines = refused.stderr.splitlines()
    assert lines[0] == 'The CustomResourceDefinition "costlys.celbad.example.com" is invalid: '
    rule_path = "spec.validation.openAPIV3Schema.properties[spec].properties"
    assert lines[1].startswith(f"* {rule_path}[bad].x-kubernetes-validations[0].rule: Invalid value: ")
    assert "compilation failed: ERROR: <input>:1:6: found no matching overload for '_>_'" in lines[1]
    assert (
        f"* {rule_path}[items].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by "
        "factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where "
        "arrays, maps, and strings are declared)"
    ) in lines


LISTED = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "description": "What the Port should be.",
            "properties": {
                "ports": {
                    "type": "array",
                    "description": "The ports, by name.",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": {"type": "string"}, "number": {"type": "integer"}},
                    },
                },
            },
        },
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
    },
}


def test_openapi_explain_server_side_apply_and_edit(server: KubeliteProcess) -> None:
    index = server.http("GET", "/openapi/v3").json()["paths"]
    assert "apis/ssa.example.com/v1" not in index
    establish(
        server, crd("ssa.example.com", "Port", versions=[version("v1", schema=LISTED, subresources={"status": {}})])
    )
    index = server.http("GET", "/openapi/v3").json()["paths"]
    document = server.http("GET", index["apis/ssa.example.com/v1"]["serverRelativeURL"]).json()
    assert "com.example.ssa.v1.Port" in document["components"]["schemas"]
    explained = server.kubectl("explain", "ports.spec.ports").stdout
    assert "GROUP:      ssa.example.com" in explained
    assert "FIELD: ports <[]Object>" in explained
    assert "The ports, by name." in explained
    # server-side apply merges list entries by the schema's map keys, each owned by its manager
    first = {
        "apiVersion": "ssa.example.com/v1",
        "kind": "Port",
        "metadata": {"name": "p"},
        "spec": {"ports": [{"name": "http", "number": 80}]},
    }
    second = {
        "apiVersion": "ssa.example.com/v1",
        "kind": "Port",
        "metadata": {"name": "p"},
        "spec": {"ports": [{"name": "https", "number": 443}]},
    }
    server.kubectl("apply", "--server-side", "--field-manager=one", "-f", "-", input=json.dumps(first))
    server.kubectl("apply", "--server-side", "--field-manager=two", "-f", "-", input=json.dumps(second))
    got = json.loads(server.kubectl("get", "port", "p", "-o", "json", "--show-managed-fields").stdout)
    assert got["spec"]["ports"] == [{"name": "http", "number": 80}, {"name": "https", "number": 443}]
    managers = {entry["manager"]: entry["fieldsV1"] for entry in got["metadata"]["managedFields"]}
    assert managers["two"] == {"f:spec": {"f:ports": {'k:{"name":"https"}': {".": {}, "f:name": {}, "f:number": {}}}}}
    conflict = server.kubectl(
        "apply",
        "--server-side",
        "--field-manager=two",
        "-f",
        "-",
        input=json.dumps({**second, "spec": {"ports": [{"name": "http", "number": 81}]}}),
        check=False,
    )
    assert conflict.returncode == 1
    assert 'conflict with "one": .spec.ports[name="http"].number' in conflict.stderr
    # kubectl edit of status in the main resource: kept as stored (status belongs to /status)
    editor = server.data_dir / "edit.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/^spec:/status:\\n  phase: Edited\\nspec:/' \"$1\"\n")
    editor.chmod(0o755)
    server.kubectl("edit", "port", "p", env={"KUBE_EDITOR": str(editor)})
    assert "status" not in json.loads(server.kubectl("get", "port", "p", "-o", "json").stdout)


def test_a_crd_overlapping_a_built_in_resource_is_not_served_nor_cleaned_up(fresh_server: KubeliteProcess) -> None:
    server = fresh_server
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "mine"}}
    assert server.http("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease).status == 201
    overlap = crd("coordination.k8s.io", "Lease")
    overlap["metadata"]["annotations"] = {"api-approved.kubernetes.io": "unapproved, testing only"}
    establish(server, overlap)
    assert server.http("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/mine").status == 200
    server.restart()  # a stored CRD that cannot be served does not keep the server from starting
    server.kubectl("delete", "crd", "leases.coordination.k8s.io", "--timeout=20s")
    assert server.http("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases/mine").status == 200


def test_the_cleanup_waits_without_spinning(server: KubeliteProcess) -> None:
    establish(server, crd("spin.example.com", "Top"))
    held = {"apiVersion": "spin.example.com/v1", "kind": "Top", "metadata": {"name": "t", "finalizers": ["x.io/hold"]}}
    assert server.http("POST", "/apis/spin.example.com/v1/namespaces/default/tops", held).status == 201
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/tops.spin.example.com"
    assert server.http("DELETE", path).status == 200
    wait_for(lambda: "InstanceDeletionCheck" in json.dumps(server.http("GET", path).json()["status"]))
    before = int(server.http("GET", path).json()["metadata"]["resourceVersion"])
    time.sleep(1.5)
    after = int(server.http("GET", path).json()["metadata"]["resourceVersion"])
    assert after == before  # nothing changed, so nothing was written
    server.http(
        "PATCH",
        "/apis/spin.example.com/v1/namespaces/default/tops/t",
        {"metadata": {"finalizers": None}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    wait_for(lambda: server.http("GET", path).status == 404)


def test_a_schema_change_ends_the_old_watches(server: KubeliteProcess) -> None:
    import threading

    definition = crd("rewatch.example.com", "Wave")
    establish(server, definition)
    result: dict[str, Any] = {}

    def watch() -> None:
        started = time.monotonic()
        result["watch"] = server.http(
            "GET", "/apis/rewatch.example.com/v1/namespaces/default/waves?watch=1&timeoutSeconds=20", timeout=30
        )
        result["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=watch)
    thread.start()
    time.sleep(0.5)
    definition["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["shape"] = {
        "type": "string"
    }
    apply(server, definition)
    thread.join(timeout=25)
    assert result["watch"].status == 200
    assert result["seconds"] < 10  # ended by the change, not by its timeout


def test_status_writes_keep_metadata_and_are_defaulted(server: KubeliteProcess) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
            "status": {
                "type": "object",
                "required": ["phase"],
                "properties": {"phase": {"type": "string", "default": "Pending"}, "count": {"type": "integer"}},
            },
        },
    }
    establish(
        server, crd("stat.example.com", "Job", versions=[version("v1", schema=schema, subresources={"status": {}})])
    )
    base = "/apis/stat.example.com/v1/namespaces/default/jobs"
    server.http("POST", base, {"apiVersion": "stat.example.com/v1", "kind": "Job", "metadata": {"name": "j"}})
    patched = server.http(
        "PATCH",
        f"{base}/j/status",
        {"metadata": {"labels": {"sneak": "yes"}}, "status": {"count": 3}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert patched.status == 200, patched.body
    assert patched.json()["status"] == {"count": 3, "phase": "Pending"}
    assert "labels" not in patched.json()["metadata"]


def test_metadata_is_pruned_under_a_preserving_root(server: KubeliteProcess) -> None:
    schema = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    establish(server, crd("loose.example.com", "Bag", versions=[version("v1", schema=schema)]))
    obj = {"apiVersion": "loose.example.com/v1", "kind": "Bag", "metadata": {"name": "b", "bogus": 1}, "anything": 2}
    created = server.http("POST", "/apis/loose.example.com/v1/namespaces/default/bags", obj)
    assert created.status == 201
    assert "bogus" not in created.json()["metadata"]
    assert created.json()["anything"] == 2
    strict = server.http(
        "POST",
        "/apis/loose.example.com/v1/namespaces/default/bags?fieldValidation=Strict",
        {**obj, "metadata": {"name": "c", "bogus": 1}},
    )
    assert strict.status == 400
    assert 'unknown field "metadata.bogus"' in strict.json()["message"]


def test_field_selectors_match_the_served_version(server: KubeliteProcess) -> None:
    v1 = version("v1", storage=True)
    v2_schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"size": {"type": "string", "default": "big"}}}},
    }
    v2 = version("v2", storage=False, schema=v2_schema, selectableFields=[{"jsonPath": ".spec.size"}])
    establish(server, crd("select.example.com", "Box", plural="boxes", versions=[v1, v2]))
    server.http(
        "POST",
        "/apis/select.example.com/v1/namespaces/default/boxes",
        {"apiVersion": "select.example.com/v1", "kind": "Box", "metadata": {"name": "g"}, "spec": {}},
    )
    listed = server.http("GET", "/apis/select.example.com/v2/namespaces/default/boxes?fieldSelector=spec.size%3Dbig")
    assert [item["metadata"]["name"] for item in listed.json()["items"]] == ["g"]


def test_server_side_apply_cannot_create_while_the_crd_terminates(server: KubeliteProcess) -> None:
    establish(server, crd("ssaterm.example.com", "Rock"))
    base = "/apis/ssaterm.example.com/v1/namespaces/default/rocks"
    held = {"apiVersion": "ssaterm.example.com/v1", "kind": "Rock", "metadata": {"name": "r", "finalizers": ["x.io/h"]}}
    assert server.http("POST", base, held).status == 201
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rocks.ssaterm.example.com"
    assert server.http("DELETE", path).status == 200
    wait_for(lambda: "InstanceDeletionCheck" in json.dumps(server.http("GET", path).json()["status"]))
    applied = server.http(
        "PATCH",
        f"{base}/new?fieldManager=me",
        {"apiVersion": "ssaterm.example.com/v1", "kind": "Rock", "metadata": {"name": "new"}},
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert applied.status == 403
    assert applied.json()["message"] == (
        'rocks.ssaterm.example.com "new" is forbidden: '
        "create not allowed while custom resource definition is terminating"
    )
    server.http(
        "PATCH",
        f"{base}/r",
        {"metadata": {"finalizers": None}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    wait_for(lambda: server.http("GET", path).status == 404)


def test_a_hostile_crd_harms_nobody_else(server: KubeliteProcess) -> None:
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"replicas": {"type": "integer", "maximum": None}},
            }
        },
    }
    exploding = ".spec" + "['a','a','a','a','a','a','a','a','a','a']" * 8
    columns = [{"name": "Boom", "type": "string", "jsonPath": exploding}]
    definition = crd(
        "hostile.example.com", "Slow", versions=[version("v1", schema=schema, additionalPrinterColumns=columns)]
    )
    assert server.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", definition).status == 201
    wait_for(lambda: server.http("GET", "/apis/hostile.example.com/v1/slows").status == 200)
    nested: dict[str, Any] = {}
    for _ in range(8):
        nested = {"a": nested}
    obj = {"apiVersion": "hostile.example.com/v1", "kind": "Slow", "metadata": {"name": "s"}, "spec": nested}
    assert server.http("POST", "/apis/hostile.example.com/v1/namespaces/default/slows", obj).status == 201
    started = time.monotonic()
    table = server.http(
        "GET",
        "/apis/hostile.example.com/v1/namespaces/default/slows",
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"},
    )
    assert table.status == 200
    assert table.json()["rows"][0]["cells"][1] is None  # the path finds too much: an empty cell
    assert time.monotonic() - started < 2
    proto = server.http(
        "GET", "/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}
    )
    assert proto.status == 200
