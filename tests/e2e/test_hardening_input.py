"""Hostile and malformed request input over raw HTTP: nothing a client sends may stall the server, exhaust
its memory, answer a 5xx, or leave a committed write unacknowledged.

YAML alias bombs and deep nesting are refused in milliseconds; JSON patches are bounded in operations,
copies and result size; every served resource takes malformed bodies with a 4xx Status; DeleteOptions,
integer query parameters and resourceVersions of the wrong form get kube's 400 texts; a PUT must name the
URL's object; a warning text with a control character still reaches the client.
"""

from __future__ import annotations

import itertools
import json
import socket
import time
from typing import Any

import pytest

from tests.e2e.server import HTTPResult, KubeliteProcess

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}
STRATEGIC_PATCH = {"Content-Type": "application/strategic-merge-patch+json"}

_COUNTER = itertools.count()


@pytest.fixture
def ns(server: KubeliteProcess) -> str:
    name = f"hardening-{next(_COUNTER)}"
    assert server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}}).status == 201
    return name


def status_of(result: HTTPResult) -> dict[str, Any]:
    body = result.json()
    assert body["kind"] == "Status", body
    assert body["apiVersion"] == "v1"
    assert body["status"] == "Failure"
    assert body["code"] == result.status
    return dict(body)


def bad_request(message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "BadRequest",
        "code": 400,
    }


def alias_bomb(levels: int) -> str:
    """The billion laughs: each level a list of nine aliases of the level before."""
    lines = ["a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    names = "abcdefghijklmnopqrstuvwxyz"
    for previous, name in itertools.pairwise(names[: levels + 1]):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def timed(call: Any) -> tuple[HTTPResult, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


# --- YAML aliases and nesting depth --------------------------------------------------------------------


@pytest.mark.parametrize("levels", [8, 9])
def test_yaml_alias_bomb_is_refused_quickly(server: KubeliteProcess, ns: str, levels: int) -> None:
    document = "metadata:\n  name: bomb\n" + alias_bomb(levels)
    result, elapsed = timed(lambda: server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", document, headers=YAML))
    summary = document.encode()[:30].hex() + " ..."
    assert (result.status, result.json()) == (
        400,
        bad_request(
            "the object provided is unrecognized (must be of type ConfigMap): yaml: document contains "
            f"excessive aliasing ({summary})"
        ),
    )
    assert elapsed < 2.0
    assert server.http("GET", f"/api/v1/namespaces/{ns}/configmaps/bomb").status == 404


def test_yaml_with_modest_aliases_is_accepted(server: KubeliteProcess, ns: str) -> None:
    document = (
        "metadata:\n  name: anchors\n  labels: &labels {app: web, tier: front}\n"
        "  annotations: *labels\ndata:\n  a: &value shared\n  b: *value\n"
    )
    result = server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", document, headers=YAML)
    assert result.status == 201, result.body
    created = result.json()
    assert created["metadata"]["annotations"] == {"app": "web", "tier": "front"}
    assert created["data"] == {"a": "shared", "b": "shared"}


def test_yaml_anchor_containing_itself_is_refused(server: KubeliteProcess, ns: str) -> None:
    document = "metadata: {name: loop}\ndata: &d {a: *d}\n"
    result = server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", document, headers=YAML)
    assert result.status == 400
    assert "yaml: anchor value contains itself" in status_of(result)["message"]


def test_yaml_alias_bomb_in_server_side_apply_is_refused(server: KubeliteProcess, ns: str) -> None:
    document = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n" + alias_bomb(9)
    result, elapsed = timed(
        lambda: server.http(
            "PATCH",
            f"/api/v1/namespaces/{ns}/configmaps/applied?fieldManager=test",
            document,
            headers={"Content-Type": "application/apply-patch+yaml"},
        )
    )
    assert result.status == 400
    assert "excessive aliasing" in status_of(result)["message"]
    assert elapsed < 2.0


def test_yaml_keys_and_timestamps_decode_as_kube_converts_them(server: KubeliteProcess, ns: str) -> None:
    document = "metadata: {name: keys, labels: {1: x}}\ndata: {1: a, true: b, when: 2020-01-01}\n"
    result = server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", document, headers=YAML)
    assert result.status == 201, result.body
    created = result.json()
    assert created["metadata"]["labels"] == {"1": "x"}
    assert created["data"] == {"1": "a", "true": "b", "when": "2020-01-01"}
    result = server.http(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", "metadata: {name: k}\ndata: {null: a}\n", headers=YAML
    )
    assert result.status == 400
    assert "yaml: unsupported map key of type: <nil>" in status_of(result)["message"]


@pytest.mark.parametrize("depth", [201, 1025, 100_000])
def test_deeply_nested_json_is_refused(server: KubeliteProcess, ns: str, depth: int) -> None:
    body = '{"metadata":{"name":"deep"},"x":' + "[" * depth + "]" * depth + "}"
    result, elapsed = timed(lambda: server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", body, headers=JSON))
    assert (result.status, result.json()) == (
        400,
        bad_request(
            "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; "
            'json parse error: exceeded max depth ({"metadata":{"name":"deep"},"x ...)'
        ),
    )
    assert elapsed < 2.0


def test_nesting_up_to_the_limit_is_decoded(server: KubeliteProcess, ns: str) -> None:
    # an unknown field is dropped after decoding: the depth itself is what is tested
    body = '{"metadata":{"name":"shallow"},"x":' + "[" * 190 + "]" * 190 + "}"
    result = server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", body, headers=JSON)
    assert result.status == 201, result.body


def test_deeply_nested_yaml_is_refused(server: KubeliteProcess, ns: str) -> None:
    body = "metadata: {name: deep}\nx: " + "[" * 300 + "]" * 300 + "\n"
    result = server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", body, headers=YAML)
    assert result.status == 400
    assert status_of(result)["message"].startswith(
        "the object provided is unrecognized (must be of type ConfigMap): yaml: exceeded max depth ("
    )


def test_deeply_nested_patch_is_refused(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "p"}}).status == 201
    body = '{"x":' + "[" * 5000 + "]" * 5000 + "}"
    result = server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/p", body, headers=MERGE_PATCH)
    assert (result.status, result.json()) == (
        400,
        bad_request("error decoding request body: exceeded max depth"),
    )


# --- JSON patch limits ---------------------------------------------------------------------------------


def test_json_patch_copy_bomb_is_refused(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "c"}}).status == 201
    operations: list[dict[str, Any]] = [{"op": "add", "path": "/x", "value": {"a": "b"}}]
    operations += [{"op": "copy", "from": "/x", "path": f"/x/k{i}"} for i in range(22)]
    body = json.dumps(operations)
    assert len(body) < 1200
    result, elapsed = timed(
        lambda: server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c", body, headers=JSON_PATCH)
    )
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
    assert elapsed < 2.0


def test_json_patch_copies_within_the_limit_apply(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "c"}}).status == 201
    operations = [
        {"op": "add", "path": "/data", "value": {"a": "x" * 1000}},
        {"op": "copy", "from": "/data/a", "path": "/data/b"},
        {"op": "move", "from": "/data/a", "path": "/data/c"},
    ]
    result = server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c", json.dumps(operations), headers=JSON_PATCH)
    assert result.status == 200, result.body
    assert result.json()["data"] == {"b": "x" * 1000, "c": "x" * 1000}


def test_json_patch_inserting_at_the_head_of_a_huge_array_is_refused(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "c"}}).status == 201
    operations: list[dict[str, Any]] = [{"op": "add", "path": "/x", "value": [0] * 1_000_000}]
    operations += [{"op": "add", "path": "/x/0", "value": 1}] * 9_999
    body = json.dumps(operations, separators=(",", ":"))
    assert len(body) < 3 * 1024 * 1024
    result, elapsed = timed(
        lambda: server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c", body, headers=JSON_PATCH)
    )
    assert (result.status, result.json()["message"]) == (
        422,
        "the server rejected our request due to an error in our request",
    )
    assert elapsed < 3.0


def test_json_patch_with_too_many_operations_is_refused(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "c"}}).status == 201
    operations = [{"op": "test", "path": "/metadata/name", "value": "c"}] * 10_001
    result = server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c", json.dumps(operations), headers=JSON_PATCH)
    assert (result.status, result.json()) == (
        413,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
            "reason": "RequestEntityTooLarge",
            "code": 413,
        },
    )
    operations = operations[:10_000]
    result = server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/c", json.dumps(operations), headers=JSON_PATCH)
    assert result.status == 200, result.body


TOO_LARGE = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "Request entity too large: limit is 3145728",
    "reason": "RequestEntityTooLarge",
    "code": 413,
}


@pytest.mark.parametrize(
    ("headers", "patch"),
    [
        (
            JSON_PATCH,
            [
                {"op": "add", "path": "/x", "value": "v" * (2 * 1024 * 1024)},
                {"op": "copy", "from": "/x", "path": "/y"},
            ],
        ),
        (MERGE_PATCH, {"x": "v" * (3 * 1024 * 1024 - 100)}),
        (STRATEGIC_PATCH, {"x": "v" * (3 * 1024 * 1024 - 100)}),
    ],
    ids=["json-patch", "merge-patch", "strategic-merge-patch"],
)
def test_patch_results_larger_than_a_body_are_refused(
    server: KubeliteProcess, ns: str, headers: dict[str, str], patch: Any
) -> None:
    big = {"metadata": {"name": "big", "annotations": {"a": "z" * 1000}}}
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", big).status == 201
    result = server.http("PATCH", f"/api/v1/namespaces/{ns}/configmaps/big", json.dumps(patch), headers=headers)
    assert (result.status, result.json()) == (413, TOO_LARGE)


# --- malformed bodies on every served resource ----------------------------------------------------------

SWEEP_BODIES = ["{}", '{"metadata": null}', '{"spec": null}', '{"metadata": 5}', '{"spec": "x"}', "[]", '"x"', "5"]


def discovered(server: KubeliteProcess) -> list[tuple[str, dict[str, Any]]]:
    """(group/version path, discovery entry) of every resource and subresource, as clients walk discovery."""
    versions = ["/api/v1"] + [
        f"/apis/{version['groupVersion']}"
        for group in server.http("GET", "/apis").json()["groups"]
        for version in group["versions"]
    ]
    return [
        (group_version, resource)
        for group_version in versions
        for resource in server.http("GET", group_version).json()["resources"]
    ]


def collection_of(group_version: str, resource: dict[str, Any]) -> str:
    scope = "/namespaces/default" if resource["namespaced"] else ""
    return f"{group_version}{scope}/{resource['name']}"


def served_resources(server: KubeliteProcess) -> list[tuple[str, dict[str, Any]]]:
    """(collection path, discovery entry) of every top-level resource."""
    return [
        (collection_of(group_version, resource), resource)
        for group_version, resource in discovered(server)
        if "/" not in resource["name"]
    ]


def expected_for(body: str, kind: str, version: str) -> tuple[int, str] | None:
    """kube's answer where it does not depend on the resource."""
    find_kind = (
        'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
    )
    summaries = {"[]": "5b5d", '"x"': "227822", "5": "35"}
    json_types = {"[]": "array", '"x"': "string", "5": "number"}
    if body in summaries:
        return 400, (
            f"the object provided is unrecognized (must be of type {kind}): couldn't get version/kind; json parse "
            f"error: json: cannot unmarshal {json_types[body]} into Go value of type {find_kind} ({summaries[body]})"
        )
    if body == '{"metadata": 5}':
        return 400, (
            f'{kind} in version "{version}" cannot be handled as a {kind}: json: cannot unmarshal number into Go '
            f"struct field {kind}.metadata of type v1.ObjectMeta"
        )
    return None


def test_malformed_bodies_on_every_resource_get_a_4xx_status(server: KubeliteProcess) -> None:
    served = served_resources(server)
    assert len(served) > 30
    checked = 0
    for collection, resource in served:
        kind, version = resource["kind"], collection.split("/")[3 if collection.startswith("/apis/") else 2]
        targets: list[tuple[str, str]] = []
        if "create" in resource["verbs"]:
            targets.append(("POST", collection))
        if "update" in resource["verbs"] and "list" in resource["verbs"]:
            items = server.http("GET", collection).json().get("items") or []
            if items:
                meta = items[0]["metadata"]
                base = collection.rsplit("/namespaces/", 1)[0] if resource["namespaced"] else collection
                where = f"/namespaces/{meta['namespace']}" if resource["namespaced"] else ""
                path = f"{base}{where}/{resource['name']}/{meta['name']}" if where else f"{base}/{meta['name']}"
                targets.append(("PUT", path))
        for (method, path), body in itertools.product(targets, SWEEP_BODIES):
            result = server.http(method, path, body, headers=JSON)
            where = f"{method} {path} {body}"
            assert result.status < 500, f"{where}: {result.status} {result.body[:300]!r}"
            if result.status >= 300:
                status_of(result)
            # reviews answer any body, and a create of {} with a generated name is not an error of the body
            if method == "PUT" or not resource["name"].endswith("reviews"):
                assert result.status >= 400, f"{where}: {result.status} {result.body[:300]!r}"
            expected = expected_for(body, kind, version)
            if expected is not None:
                assert (result.status, result.json()["message"], result.json()["reason"]) == (
                    *expected,
                    "BadRequest",
                ), where
            if method == "PUT" and body in ("{}", '{"metadata": null}', '{"spec": null}', '{"spec": "x"}'):
                if body == '{"spec": "x"}' and result.json()["message"].startswith(f"{kind} in version"):
                    continue  # a kind with a typed spec refuses the string before the name is compared
                name = path.rsplit("/", 1)[1]
                assert (result.status, result.json()["message"]) == (
                    400,
                    f"the name of the object () does not match the name on the URL ({name})",
                ), where
            checked += 1
    assert checked > 200


def test_malformed_bodies_on_every_subresource_get_a_4xx_status(server: KubeliteProcess) -> None:
    pod = {"metadata": {"name": "sweep"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    assert server.http("POST", "/api/v1/namespaces/default/pods", pod).status == 201
    labels = {"app": "sweep"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    deployment = {"metadata": {"name": "sweep"}, "spec": {"selector": {"matchLabels": labels}, "template": template}}
    assert server.http("POST", "/apis/apps/v1/namespaces/default/deployments", deployment).status == 201
    covered: set[str] = set()
    entries = discovered(server)
    parents = {(group_version, resource["name"]): resource for group_version, resource in entries}
    for group_version, resource in entries:
        parent_name, _, subresource = resource["name"].partition("/")
        parent = parents.get((group_version, parent_name))
        if subresource and parent is not None:
            collection = collection_of(group_version, parent)
            items = server.http("GET", collection).json().get("items") or []
            if not items:
                continue
            meta = items[0]["metadata"]
            where = collection.replace("/namespaces/default/", f"/namespaces/{meta.get('namespace')}/")
            path = f"{where}/{meta['name']}/{subresource}"
            for verb, method in (("create", "POST"), ("update", "PUT")):
                if verb not in resource["verbs"]:
                    continue
                for body in SWEEP_BODIES:
                    result = server.http(method, path, body, headers=JSON)
                    described = f"{method} {path} {body}: {result.status} {result.body[:300]!r}"
                    assert 400 <= result.status < 500, described
                    status_of(result)
                    if method == "PUT" and body == "{}":
                        assert result.json()["message"] == (
                            f"the name of the object () does not match the name on the URL ({meta['name']})"
                        ), described
                    covered.add(f"{parent_name}/{subresource} {method}")
    assert covered >= {
        "pods/status PUT",
        "pods/binding POST",
        "deployments/scale PUT",
        "deployments/status PUT",
        "namespaces/finalize PUT",
        "namespaces/status PUT",
    }, covered


def test_namespace_with_empty_and_null_bodies(server: KubeliteProcess) -> None:
    for body in ["{}", '{"metadata": null}', '{"spec": null}']:
        result = server.http("POST", "/api/v1/namespaces", body, headers=JSON)
        assert result.status == 422, (body, result.body)
        assert status_of(result)["message"] == (
            'Namespace "" is invalid: metadata.name: Required value: name or generateName is required'
        )
    result = server.http(
        "POST", "/api/v1/namespaces", '{"metadata": {"name": "null-spec"}, "spec": null}', headers=JSON
    )
    assert result.status == 201, result.body
    assert result.json()["spec"] == {"finalizers": ["kubernetes"]}
    result = server.http("PUT", "/api/v1/namespaces/default", "{}", headers=JSON)
    assert (result.status, result.json()) == (
        400,
        bad_request("the name of the object () does not match the name on the URL (default)"),
    )


# --- DeleteOptions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"gracePeriodSeconds": "x"}, "DeleteOptions.gracePeriodSeconds of type int64"),
        ({"gracePeriodSeconds": 1.5}, "DeleteOptions.gracePeriodSeconds of type int64"),
        ({"preconditions": "x"}, "DeleteOptions.preconditions of type v1.Preconditions"),
        ({"preconditions": {"uid": 5}}, "DeleteOptions.preconditions.uid of type types.UID"),
        ({"preconditions": {"resourceVersion": True}}, "DeleteOptions.preconditions.resourceVersion of type string"),
        ({"orphanDependents": "yes"}, "DeleteOptions.orphanDependents of type bool"),
        ({"propagationPolicy": 5}, "DeleteOptions.propagationPolicy of type v1.DeletionPropagation"),
        ({"dryRun": "All"}, "DeleteOptions.dryRun of type []string"),
        ({"dryRun": [5]}, "DeleteOptions.dryRun of type string"),
    ],
)
def test_delete_options_of_the_wrong_type_are_refused(
    server: KubeliteProcess, ns: str, options: dict[str, Any], message: str
) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "d"}}).status == 201
    result = server.http("DELETE", f"/api/v1/namespaces/{ns}/configmaps/d", options)
    value = next(iter(options.values()))
    if isinstance(value, dict):
        value = next(iter(value.values()))
    elif isinstance(value, list):
        value = value[0]
    described = {str: "string", bool: "bool", int: "number", float: "number 1.5", dict: "object"}[type(value)]
    assert (result.status, result.json()) == (
        400,
        bad_request(f"json: cannot unmarshal {described} into Go struct field {message}"),
    )
    assert server.http("GET", f"/api/v1/namespaces/{ns}/configmaps/d").status == 200


def test_delete_options_that_are_not_an_object_are_refused(server: KubeliteProcess, ns: str) -> None:
    result = server.http("DELETE", f"/api/v1/namespaces/{ns}/configmaps/d", "[]", headers=JSON)
    assert result.status == 400
    assert status_of(result)["message"].startswith(
        "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct {"
    )


# --- warnings --------------------------------------------------------------------------------------------


def raw_request(server: KubeliteProcess, method: str, path: str, body: bytes) -> tuple[bytes, bytes]:
    """Head and body of one response, read off the socket: http.client folds repeated headers."""
    request = (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", server.insecure_port), timeout=10) as conn:
        conn.sendall(request)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, rest = received.partition(b"\r\n\r\n")
    return head, rest


def test_unknown_field_with_control_characters_is_acknowledged(server: KubeliteProcess, ns: str) -> None:
    body = b'{"metadata": {"name": "ctl"}, "\\u0001": [], "a\\tb": 1, "caf\\u00e9": 2}'
    head, rest = raw_request(server, "POST", f"/api/v1/namespaces/{ns}/configmaps", body)
    assert head.startswith(b"HTTP/1.1 201 "), head
    assert json.loads(rest)["metadata"]["name"] == "ctl"
    warnings = [line for line in head.split(b"\r\n") if line.lower().startswith(b"warning:")]
    # the field names are quoted with Go's %q, and the warning text then has its `\` and `"` escaped
    assert warnings == [
        b'Warning: 299 - "unknown field \\"\\\\x01\\""',
        b'Warning: 299 - "unknown field \\"a\\\\tb\\""',
        'Warning: 299 - "unknown field \\"café\\""'.encode(),
    ]


def test_strict_field_validation_quotes_field_names_as_go_does(server: KubeliteProcess, ns: str) -> None:
    body = b'{"metadata": {"name": "strict-ctl"}, "\\u0001": [], "a\\\\b": 1}'
    head, rest = raw_request(server, "POST", f"/api/v1/namespaces/{ns}/configmaps?fieldValidation=Strict", body)
    assert head.startswith(b"HTTP/1.1 400 "), head
    status = json.loads(rest)
    assert (status["reason"], status["message"]) == (
        "BadRequest",
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: '
        'unknown field "\\x01", unknown field "a\\\\b"',
    )


# --- integer query parameters and resourceVersions ------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=99999999999999999999", 'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
        ("limit=9223372036854775808", 'strconv.ParseInt: parsing "9223372036854775808": value out of range'),
        ("limit=abc", 'strconv.ParseInt: parsing "abc": invalid syntax'),
        ("limit=1_000", 'strconv.ParseInt: parsing "1_000": invalid syntax'),
        ("limit=%EF%BC%91", 'strconv.ParseInt: parsing "\uff11": invalid syntax'),  # a fullwidth digit
        ("watch=1&timeoutSeconds=" + "9" * 400, f'strconv.ParseInt: parsing "{"9" * 400}": value out of range'),
        ("watch=1&timeoutSeconds=1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
    ],
)
def test_integer_query_parameters_are_int64(server: KubeliteProcess, query: str, message: str) -> None:
    result = server.http("GET", f"/api/v1/namespaces/default/configmaps?{query}")
    assert (result.status, result.json()) == (400, bad_request(message))


def test_negative_limit_lists_everything(server: KubeliteProcess) -> None:
    everything = server.http("GET", "/api/v1/namespaces").json()
    result = server.http("GET", "/api/v1/namespaces?limit=-1")
    assert result.status == 200
    listed = result.json()
    assert [item["metadata"]["name"] for item in listed["items"]] == [
        item["metadata"]["name"] for item in everything["items"]
    ]
    assert "continue" not in listed["metadata"]


def test_delete_grace_period_in_query_is_int64(server: KubeliteProcess, ns: str) -> None:
    result = server.http("DELETE", f"/api/v1/namespaces/{ns}/configmaps/x?gracePeriodSeconds=1e3")
    assert (result.status, result.json()) == (400, bad_request('strconv.ParseInt: parsing "1e3": invalid syntax'))


@pytest.mark.parametrize(
    ("value", "reason"),
    [("abc", "invalid syntax"), ("-1", "invalid syntax"), ("18446744073709551616", "value out of range")],
)
def test_get_refuses_a_resource_version_that_is_not_a_revision(
    server: KubeliteProcess, ns: str, value: str, reason: str
) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "r"}}).status == 201
    result = server.http("GET", f"/api/v1/namespaces/{ns}/configmaps/r?resourceVersion={value}")
    assert (result.status, result.json()) == (
        400,
        bad_request(f'resourceVersion: Invalid value: "{value}": strconv.ParseUint: parsing "{value}": {reason}'),
    )
    for good in ("0", "1", "99999"):
        assert server.http("GET", f"/api/v1/namespaces/{ns}/configmaps/r?resourceVersion={good}").status == 200


def test_list_and_watch_refuse_a_resource_version_that_is_not_a_revision(server: KubeliteProcess) -> None:
    message = 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'
    for query in ("resourceVersion=abc", "watch=1&resourceVersion=abc"):
        result = server.http("GET", f"/api/v1/namespaces/default/configmaps?{query}")
        assert (result.status, result.json()) == (400, bad_request(message)), query


def test_delete_precondition_resource_version_is_compared_as_text(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "p"}}).status == 201
    result = server.http(
        "DELETE", f"/api/v1/namespaces/{ns}/configmaps/p", {"preconditions": {"resourceVersion": "abc"}}
    )
    assert result.status == 409
    assert "the ResourceVersion in the precondition (abc) does not match" in status_of(result)["message"]


# --- PUT names the URL's object --------------------------------------------------------------------------


def test_put_must_name_the_object_of_the_url(server: KubeliteProcess, ns: str) -> None:
    path = f"/api/v1/namespaces/{ns}/configmaps/x"
    created = server.http(
        "POST", f"/api/v1/namespaces/{ns}/configmaps", {"metadata": {"name": "x"}, "data": {"k": "v"}}
    )
    assert created.status == 201
    for body, name in [({}, ""), ({"metadata": {"name": "y"}}, "y"), ({"metadata": {}, "data": {}}, "")]:
        result = server.http("PUT", path, body)
        assert (result.status, result.json()) == (
            400,
            bad_request(f"the name of the object ({name}) does not match the name on the URL (x)"),
        )
    result = server.http("PUT", path, {"metadata": {"name": "y", "namespace": "elsewhere"}})
    assert (result.status, result.json()) == (
        400,
        bad_request("the namespace of the provided object does not match the namespace sent on the request"),
    )
    assert server.http("GET", path).json()["data"] == {"k": "v"}
    assert server.http("PUT", path, {"metadata": {"name": "x"}, "data": {"k": "w"}}).status == 200


def test_server_is_responsive_after_the_hostile_input(server: KubeliteProcess) -> None:
    result, elapsed = timed(lambda: server.http("GET", "/api/v1/namespaces/default"))
    assert result.status == 200
    assert elapsed < 1.0


def test_scale_subresource_applies_the_same_limits(server: KubeliteProcess, ns: str) -> None:
    labels = {"app": "s"}
    deployment = {
        "metadata": {"name": "s"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    assert server.http("POST", f"/apis/apps/v1/namespaces/{ns}/deployments", deployment).status == 201
    scale = f"/apis/apps/v1/namespaces/{ns}/deployments/s/scale"
    result = server.http("PUT", scale, {"spec": {"replicas": 3}})
    assert (result.status, result.json()) == (
        400,
        bad_request("the name of the object () does not match the name on the URL (s)"),
    )
    bomb: list[dict[str, Any]] = [{"op": "add", "path": "/x", "value": {"a": "b"}}]
    bomb += [{"op": "copy", "from": "/x", "path": f"/x/k{i}"} for i in range(22)]
    result, elapsed = timed(lambda: server.http("PATCH", scale, json.dumps(bomb), headers=JSON_PATCH))
    assert (result.status, result.json()["reason"]) == (422, "Invalid")
    assert elapsed < 2.0
    many = [{"op": "test", "path": "/spec/replicas", "value": 1}] * 10_001
    result = server.http("PATCH", scale, json.dumps(many), headers=JSON_PATCH)
    assert (result.status, result.json()["message"]) == (
        413,
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    )
    result = server.http("PATCH", scale, json.dumps({"x": "v" * (3 * 1024 * 1024 - 100)}), headers=MERGE_PATCH)
    assert (result.status, result.json()) == (413, TOO_LARGE)
    result = server.http("PUT", scale, {"metadata": {"name": "s"}, "spec": {"replicas": 2}})
    assert result.status == 200, result.body
    assert result.json()["spec"]["replicas"] == 2


def test_warnings_for_many_long_unknown_fields_stay_within_kube_budget(server: KubeliteProcess, ns: str) -> None:
    fields = {f"{i:03d}" + "u" * 2000: i for i in range(100)}
    body = json.dumps({"metadata": {"name": "many"}, **fields}).encode()
    head, rest = raw_request(server, "POST", f"/api/v1/namespaces/{ns}/configmaps", body)
    assert head.startswith(b"HTTP/1.1 201 "), head[:200]
    assert json.loads(rest)["metadata"]["name"] == "many"
    warnings = [line for line in head.split(b"\r\n") if line.lower().startswith(b"warning:")]
    # 4,096 runes of text in all, each cut to 256 once the texts outgrow that
    assert 0 < len(warnings) <= 16
    assert all(len(line) < 300 for line in warnings)
    assert len(head) < 8 * 1024


# -- computed kinds are decoded as typed as stored ones (found by `make fuzz`) ------------------------------------


@pytest.mark.parametrize("path", ["/bindings", "/pods/web/binding"], ids=["bindings", "pods-binding"])
def test_a_binding_of_the_wrong_shape_is_a_bad_request(server: KubeliteProcess, ns: str, path: str) -> None:
    result = server.http("POST", f"/api/v1/namespaces/{ns}{path}", {"kind": "Binding", "target": [{"a": ""}]})
    assert result.status == 400
    assert result.json() == bad_request(
        'Binding in version "v1" cannot be handled as a Binding: json: cannot unmarshal array into Go struct '
        "field Binding.target of type v1.ObjectReference"
    )


def test_a_review_of_the_wrong_shape_is_a_bad_request(server: KubeliteProcess, ns: str) -> None:
    review = {"spec": {"user": "x", "resourceAttributes": 12}}
    path = f"/apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews"
    result = server.http("POST", path, review)
    assert result.status == 400
    assert result.json() == bad_request(
        'LocalSubjectAccessReview in version "v1" cannot be handled as a LocalSubjectAccessReview: json: cannot '
        "unmarshal number into Go struct field SubjectAccessReviewSpec.spec.resourceAttributes of type "
        "v1.ResourceAttributes"
    )
