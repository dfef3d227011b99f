"""fieldValidation: unknown fields pruned against the kind's schema, duplicates found in JSON bodies, and what
Strict, Warn, unset and Ignore make of them (kube's test/integration/apiserver/field_validation_test.go)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubelite.apimachinery.errors import StatusError
from kubelite.endpoints.handlers.field_validation import (
    _count_members,
    _may_repeat_keys,
    check,
    json_findings,
    prune_unknown_fields,
)
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.spec import ResourceSpec

SPECS = {(s.group, s.resource): s for s in BUILTIN_RESOURCES}
PODS = SPECS[("", "pods")]
DEPLOYMENTS = SPECS[("apps", "deployments")]
CONFIGMAPS = SPECS[("", "configmaps")]
SERVICES = SPECS[("", "services")]

# kube's invalidBodyJSON: repeated and unknown keys at several depths
INVALID_DEPLOYMENT = b"""{
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "dupename",
        "name": "web",
        "labels": {"app": "nginx"},
        "unknownMeta": "metaVal"
    },
    "spec": {
        "unknown1": "val1",
        "unknownDupe": "valDupe",
        "unknownDupe": "valDupe2",
        "paused": true,
        "paused": false,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {
                "containers": [{
                    "name": "nginx",
                    "image": "nginx:latest",
                    "unknownNested": "val1",
                    "imagePullPolicy": "Always",
                    "imagePullPolicy": "Never"
                }]
            }
        }
    }
}"""

KUBE_FINDINGS = [
    'duplicate field "metadata.name"',
    'unknown field "metadata.unknownMeta"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknownDupe"',
    'duplicate field "spec.paused"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
]

PRUNED_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"app": "nginx"}},
    "spec": {
        "paused": False,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {
            "metadata": {"labels": {"app": "nginx"}},
            "spec": {"containers": [{"name": "nginx", "image": "nginx:latest", "imagePullPolicy": "Never"}]},
        },
    },
}


def pod(**extra: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "nginx", **extra.pop("container", {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", **extra.pop("metadata", {})},
        "spec": {"containers": [container], **extra.pop("spec", {})},
        **extra,
    }


def warning(text: str) -> str:
    return '299 - "' + text.replace('"', '\\"') + '"'


# -- pruning -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "obj", "paths", "pruned"),
    [
        pytest.param(PODS, pod(container={"bogus": 1}), ["spec.containers[0].bogus"], pod(), id="container-field"),
        pytest.param(PODS, pod(bogus=True), ["bogus"], pod(), id="top-level"),
        pytest.param(PODS, pod(metadata={"bogus": "x"}), ["metadata.bogus"], pod(), id="metadata"),
        pytest.param(
            PODS,
            pod(status={"phase": "Running", "bogus": 1}),
            ["status.bogus"],
            pod(status={"phase": "Running"}),
            id="status",
        ),
        pytest.param(
            PODS,
            pod(spec={"zz": 1, "aa": 2}, container={"b": 1, "a": 2}),
            ["spec.aa", "spec.containers[0].a", "spec.containers[0].b", "spec.zz"],
            pod(),
            id="reported-in-key-order",
        ),
        pytest.param(
            DEPLOYMENTS,
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "d"},
                "spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b", "bogus": {"x": 1}}]}}},
            },
            ["spec.template.spec.containers[1].bogus"],
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "d"},
                "spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}},
            },
            id="nested-template",
        ),
        pytest.param(
            PODS,
            pod(
                metadata={
                    "labels": {"any/key": "v", "bogus": "x"},
                    "annotations": {"whatever": "{}"},
                    "creationTimestamp": None,
                }
            ),
            [],
            pod(
                metadata={
                    "labels": {"any/key": "v", "bogus": "x"},
                    "annotations": {"whatever": "{}"},
                    "creationTimestamp": None,
                }
            ),
            id="maps-are-not-flagged",
        ),
        pytest.param(
            PODS,
            pod(
                container={
                    "resources": {"limits": {"cpu": "500m", "example.com/gpu": 1}},
                    "ports": [{"containerPort": 80, "name": "http"}],
                    "livenessProbe": {"httpGet": {"port": "http", "path": "/"}},
                }
            ),
            [],
            pod(
                container={
                    "resources": {"limits": {"cpu": "500m", "example.com/gpu": 1}},
                    "ports": [{"containerPort": 80, "name": "http"}],
                    "livenessProbe": {"httpGet": {"port": "http", "path": "/"}},
                }
            ),
            id="int-or-string-and-quantities",
        ),
        pytest.param(
            SERVICES,
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "s"},
                "spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 81, "targetPort": "web", "bad": 1}]},
            },
            ["spec.ports[1].bad"],
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "s"},
                "spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 81, "targetPort": "web"}]},
            },
            id="service-target-ports",
        ),
        pytest.param(
            CONFIGMAPS,
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "c"},
                "data": {"spec": "x"},
                "spec": {"x": 1},
            },
            ["spec"],
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"spec": "x"}},
            id="configmap-data-keys-are-free",
        ),
    ],
)
def test_prune_unknown_fields(spec: ResourceSpec, obj: dict[str, Any], paths: list[str], pruned: Any) -> None:
    assert prune_unknown_fields(spec, obj) == paths
    assert obj == pruned


def test_pruning_is_not_capped_by_the_report() -> None:
    obj = pod(container={f"bogus{i:03}": i for i in range(150)})
    assert (len(prune_unknown_fields(PODS, obj)), obj) == (100, pod())


# -- findings in a JSON body ---------------------------------------------------------------------------------


def test_json_findings_follow_the_body() -> None:
    assert json_findings(DEPLOYMENTS, INVALID_DEPLOYMENT) == KUBE_FINDINGS


@pytest.mark.parametrize(
    ("body", "findings"),
    [
        (b'{"metadata": {"name": "a"}, "data": {"k": "1", "k": "2"}}', ['duplicate field "data.k"']),
        (
            b'{"metadata": {"name": "a", "name": "b"}, "kind": "ConfigMap", "kind": "ConfigMap"}',
            ['duplicate field "metadata.name"', 'duplicate field "kind"'],
        ),
        (b'{"zz": 1, "metadata": {"name": "a"}, "aa": 1}', ['unknown field "zz"', 'unknown field "aa"']),
        (b'{"metadata": {"name": "a"}, "data": {"k": "1"}}', []),
        (b'{"broken"', None),
        # field names quoted as Go's %q quotes them
        (
            b'{"metadata": {"name": "a"}, "x\\u0001": 1, "q\\"\\\\": 2, "t\\tn\\n": 3, "caf\\u00e9": 4}',
            [
                'unknown field "x\\x01"',
                'unknown field "q\\"\\\\"',
                'unknown field "t\\tn\\n"',
                'unknown field "caf\u00e9"',
            ],
        ),
        (
            b'{"metadata": {"name": "a"}, "data": {"k\\u007f": "1", "k\\u007f": "2"}}',
            ['duplicate field "data.k\\x7f"'],
        ),
        # each message once, as kube's strict decoder keeps them
        (b'{"metadata": {"name": "a"}, "data": {"k": "1", "k": "2", "k": "3"}}', ['duplicate field "data.k"']),
    ],
    ids=["map-key", "in-order", "unknown-in-body-order", "clean", "unreadable", "quoted", "quoted-dup", "once"],
)
def test_json_findings(body: bytes, findings: list[str] | None) -> None:
    assert json_findings(CONFIGMAPS, body) == findings


# -- what each directive makes of them -----------------------------------------------------------------------


def test_strict_is_a_400_with_kubes_message() -> None:
    obj = json.loads(INVALID_DEPLOYMENT)
    with pytest.raises(StatusError) as caught:
        check(DEPLOYMENTS, obj, INVALID_DEPLOYMENT, "Strict", True)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
        + ", ".join(KUBE_FINDINGS),
        "reason": "BadRequest",
        "code": 400,
    }


@pytest.mark.parametrize("directive", ["Warn", None], ids=["warn", "unset-means-warn"])
def test_warn_returns_warning_values(directive: str | None) -> None:
    obj = json.loads(INVALID_DEPLOYMENT)
    assert check(DEPLOYMENTS, obj, INVALID_DEPLOYMENT, directive, True) == [warning(f) for f in KUBE_FINDINGS]
    assert obj == PRUNED_DEPLOYMENT


def test_ignore_says_nothing_but_still_prunes() -> None:
    obj = json.loads(INVALID_DEPLOYMENT)
    assert check(DEPLOYMENTS, obj, INVALID_DEPLOYMENT, "Ignore", True) == []
    assert obj == PRUNED_DEPLOYMENT


def test_warning_header_values_escape_quotes() -> None:
    body = json.dumps(pod(container={"bogus": 1})).encode()
    assert check(PODS, json.loads(body), body, "Warn", True) == ['299 - "unknown field \\"spec.containers[0].bogus\\""']


def test_strict_pod_message() -> None:
    body = json.dumps(pod(container={"bogus": 1})).encode()
    with pytest.raises(StatusError) as caught:
        check(PODS, json.loads(body), body, "Strict", True)
    assert (caught.value.code, caught.value.message) == (
        400,
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].bogus"',
    )


@pytest.mark.parametrize("directive", ["Strict", "Warn", None, "Ignore"])
def test_a_clean_body_passes(directive: str | None) -> None:
    body = json.dumps(pod()).encode()
    obj = json.loads(body)
    assert check(PODS, obj, body, directive, True) == []
    assert obj == pod()


def test_yaml_and_patched_objects_report_unknown_fields_in_key_order() -> None:
    # kube decodes YAML (and patch results) through a map: unknown fields come out sorted by path
    obj = json.loads(INVALID_DEPLOYMENT)
    assert check(DEPLOYMENTS, obj, b"", "Warn", False) == [
        warning('unknown field "metadata.unknownMeta"'),
        warning('unknown field "spec.template.spec.containers[0].unknownNested"'),
        warning('unknown field "spec.unknown1"'),
        warning('unknown field "spec.unknownDupe"'),
    ]
    assert obj == PRUNED_DEPLOYMENT


@pytest.mark.xfail(
    strict=True,
    reason="repeated keys in YAML bodies are not detected (kube: 'line N: key ... already set in map')",
)
def test_yaml_duplicate_keys() -> None:
    body = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}
    assert check(CONFIGMAPS, obj, body, "Warn", False) == [warning('line 5: key "name" already set in map')]


@pytest.mark.parametrize(
    ("spec", "body", "warnings"),
    [
        (CONFIGMAPS, b'{"metadata":{"name":"a"},"data":{"k":"v"}}', []),
        (CONFIGMAPS, b'{"metadata":{"name":"a"},"data":{"k":"v","k":"w"}}', ['299 - "duplicate field \\"data.k\\""']),
        # colons inside strings must not hide a repeated key, nor invent one
        (
            CONFIGMAPS,
            b'{"metadata":{"name":"a"},"data":{"url":"http://x:1","url":"a:b:c"}}',
            ['299 - "duplicate field \\"data.url\\""'],
        ),
        (CONFIGMAPS, b'{"metadata":{"name":"a"},"data":{"k":"a\\":\\"b:c","j":"::"}}', []),
        # managedFields' keys all hold colons: repeated keys are still found, in compact and spaced-out bodies
        (
            CONFIGMAPS,
            b'{"metadata":{"name":"a","managedFields":[{"manager":"m","operation":"Update","time":"2026-01-01T00:00:00Z",'
            b'"fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"v"}}',
            [],
        ),
        (
            CONFIGMAPS,
            b'{"metadata":{"name":"a","managedFields":[{"manager":"m","time":"2026-01-01T00:00:00Z",'
            b'"fieldsV1":{"f:data":{}}}]},"data":{"k":"v","k":"w"}}',
            ['299 - "duplicate field \\"data.k\\""'],
        ),
        (
            CONFIGMAPS,
            b'{"metadata" :{"name"  :"a"},"data":{"t":"1:2:3","t"\t:"x"}}',
            ['299 - "duplicate field \\"data.t\\""'],
        ),
        (
            CONFIGMAPS,
            b'{\n  "metadata": {\n    "name": "a"\n  },\n  "data": {\n    "t": "1:2",\n    "t"\n: "3:4"\n  }\n}',
            ['299 - "duplicate field \\"data.t\\""'],
        ),
        (CONFIGMAPS, b'{"metadata":{"name":"a"},"data":{":k":":v","k:":"v:"}}', []),
        (
            CONFIGMAPS,
            b'{"metadata":{"name":"a","name":"b"},"data":{"t":"12:00:00"}}',
            ['299 - "duplicate field \\"metadata.name\\""'],
        ),
        # a repeated key inside a field that is pruned still counts as written
        (CONFIGMAPS, b'{"metadata":{"name":"a"},"extra":{"x":1,"x":2}}', ['299 - "unknown field \\"extra\\""']),
        (
            PODS,
            b'{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i:1","image":"i:2"}]}}',
            ['299 - "duplicate field \\"spec.containers[0].image\\""'],
        ),
        (
            PODS,
            b'{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i:1",'
            b'"resources":{"limits":{"cpu":"1","cpu":"2"}}}]}}',
            ['299 - "duplicate field \\"spec.containers[0].resources.limits.cpu\\""'],
        ),
    ],
    ids=[
        "clean",
        "repeated",
        "colons-in-values",
        "escaped-quote-colons",
        "managed-fields-clean",
        "managed-fields-repeated",
        "spaced-colons-repeated",
        "pretty-printed-repeated",
        "strings-starting-or-ending-with-colons",
        "repeated-meta-with-times",
        "inside-pruned",
        "repeated-in-list-item",
        "repeated-in-quantity-map",
    ],
)
def test_repeated_keys_are_found_whatever_the_strings_hold(
    spec: ResourceSpec, body: bytes, warnings: list[str]
) -> None:
    assert check(spec, json.loads(body), body, None, True) == warnings


def test_compact_bodies_with_colons_in_strings_are_settled_without_blanking_strings() -> None:
    body = (
        b'{"metadata":{"name":"a","managedFields":[{"manager":"m","time":"2026-01-01T00:00:00Z",'
        b'"fieldsV1":{"f:data":{"f:k":{}}}}]},"data":{"k":"http://x:1"}}'
    )
    members = _count_members(json.loads(body))
    assert body.count(b":") > members  # the first count cannot settle it
    assert body.count(b'":') == members  # the second does: one per key
    assert not _may_repeat_keys(body, members)
    repeated = body.replace(b'"data":{"k"', b'"data":{"k":"x","k"')
    assert json.loads(repeated) == json.loads(body)  # a repeated key leaves the parsed members as they were
    assert _may_repeat_keys(repeated, members)
