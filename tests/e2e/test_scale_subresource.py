"""The scale subresource given a Scale without spec.replicas: kube's ScaleSpec.replicas is an int32 with
omitempty, so an absent or null value decodes as 0 and the workload is scaled to zero (no error)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.server import KubeliteProcess

MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def _deployment(server: KubeliteProcess, name: str, replicas: int) -> str:
    labels = {"app": name}
    deployment = {
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
        },
    }
    assert server.http("POST", "/apis/apps/v1/namespaces/default/deployments", deployment).status == 201
    return f"/apis/apps/v1/namespaces/default/deployments/{name}"


@pytest.mark.parametrize(
    "body",
    [
        {"metadata": {"name": "NAME"}},
        {"metadata": {"name": "NAME"}, "spec": {}},
        {"metadata": {"name": "NAME"}, "spec": None},
        {"metadata": {"name": "NAME"}, "spec": {"replicas": None}},
    ],
    ids=["no-spec", "empty-spec", "null-spec", "null-replicas"],
)
def test_a_scale_without_replicas_scales_to_zero(server: KubeliteProcess, body: dict[str, Any], request: Any) -> None:
    name = "to-zero-" + request.node.callspec.id
    path = _deployment(server, name, 3)
    sent = json.loads(json.dumps(body).replace("NAME", name))
    result = server.http("PUT", path + "/scale", sent)
    assert result.status == 200, result.body
    assert result.json()["spec"] == {"replicas": 0}
    assert server.http("GET", path).json()["spec"]["replicas"] == 0


def test_a_merge_patch_nulling_replicas_scales_to_zero(server: KubeliteProcess) -> None:
    path = _deployment(server, "patched-to-zero", 2)
    result = server.http("PATCH", path + "/scale", json.dumps({"spec": {"replicas": None}}), headers=MERGE_PATCH)
    assert result.status == 200, result.body
    assert result.json()["spec"] == {"replicas": 0}
    assert server.http("GET", path).json()["spec"]["replicas"] == 0


def test_negative_replicas_are_still_invalid(server: KubeliteProcess) -> None:
    path = _deployment(server, "negative", 1)
    result = server.http("PUT", path + "/scale", {"metadata": {"name": "negative"}, "spec": {"replicas": -1}})
    assert (result.status, result.json()["message"]) == (
        422,
        'Scale.autoscaling "negative" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    )
    assert server.http("GET", path).json()["spec"]["replicas"] == 1


@pytest.mark.parametrize(
    ("spec", "what", "field"),
    [
        ({"replicas": "3"}, "string", "ScaleSpec.spec.replicas of type int32"),
        ({"replicas": True}, "bool", "ScaleSpec.spec.replicas of type int32"),
        ({"replicas": [1]}, "array", "ScaleSpec.spec.replicas of type int32"),
        ({"replicas": 1.5}, "number 1.5", "ScaleSpec.spec.replicas of type int32"),
        ({"replicas": 2**31}, "number 2147483648", "ScaleSpec.spec.replicas of type int32"),
        ("three", "string", "Scale.spec of type v1.ScaleSpec"),
    ],
    ids=["string", "bool", "array", "fraction", "beyond-int32", "spec-string"],
)
def test_replicas_an_int32_cannot_hold_are_refused_as_kubes_decoder_does(
    server: KubeliteProcess, spec: Any, what: str, field: str, request: Any
) -> None:
    name = "mistyped-" + request.node.callspec.id
    path = _deployment(server, name, 1)
    result = server.http("PUT", path + "/scale", {"metadata": {"name": name}, "spec": spec})
    assert (result.status, result.json()["reason"], result.json()["message"]) == (
        400,
        "BadRequest",
        'Scale in version "v1" cannot be handled as a Scale: '
        f"json: cannot unmarshal {what} into Go struct field {field}",
    )
    assert server.http("GET", path).json()["spec"]["replicas"] == 1
