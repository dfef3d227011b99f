"""Integers of int32 and int64 fields, as decoding into kube's Go types checks them: a number its field cannot
hold, or a float where an integer belongs, is a 400 with encoding/json's unmarshal text, whether it comes in
a JSON or YAML body, a patch or an applied configuration, and nothing is stored.

Raw HTTP, so the exact Status on the wire is what is asserted.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from tests.e2e.server import HTTPResult, KubeliteProcess

JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}
MERGE = {"Content-Type": "application/merge-patch+json"}
STRATEGIC = {"Content-Type": "application/strategic-merge-patch+json"}
JSON_PATCH = {"Content-Type": "application/json-patch+json"}
APPLY = {"Content-Type": "application/apply-patch+yaml"}

_COUNTER = itertools.count()

#: 2**70, far beyond int32 and int64
HUGE = "1180591620717411303424"


def _handled(kind: str, why: str) -> str:
    return f'{kind} in version "v1" cannot be handled as a {kind}: {why}'


def _replicas_error(number: str) -> str:
    return _handled(
        "Deployment",
        f"json: cannot unmarshal number {number} into Go struct field DeploymentSpec.spec.replicas of type int32",
    )


def _bad_request(message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "BadRequest",
        "code": 400,
    }


def _assert_bad_request(result: HTTPResult, message: str) -> None:
    assert (result.status, result.json()) == (400, _bad_request(message))


@pytest.fixture
def ns(server: KubeliteProcess) -> str:
    name = f"typed-ints-{next(_COUNTER)}"
    result = server.http("POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    assert result.status == 201, result.body
    return name


def _deployments(ns: str, name: str = "") -> str:
    base = f"/apis/apps/v1/namespaces/{ns}/deployments"
    return f"{base}/{name}" if name else base


def _deployment_json(name: str, replicas: str) -> bytes:
    # the number goes in as text, so its literal form reaches the server
    template = json.dumps(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name},
            "spec": {
                "replicas": "REPLICAS",
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                },
            },
        },
        separators=(",", ":"),
    )
    return template.replace('"REPLICAS"', replicas).encode()


def _deployment_yaml(name: str, replicas: str) -> bytes:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: web}}
  template:
    metadata:
      labels: {{app: web}}
    spec:
      containers:
      - name: web
        image: nginx
""".encode()


@pytest.mark.parametrize(
    ("replicas", "number"),
    [
        (HUGE, HUGE),
        ("2147483648", "2147483648"),
        ("-2147483649", "-2147483649"),
        ("9223372036854775808", "9223372036854775808"),
        ("1.5", "1.5"),
        # Go's decoder reads the number's text: 2.0 and 1e3 are no integers in JSON
        ("2.0", "2.0"),
        ("1e3", "1e3"),
    ],
    ids=["2^70", "int32-max+1", "int32-min-1", "int64-max+1", "fraction", "float-syntax", "exponent"],
)
def test_json_create_refuses_what_int32_cannot_hold(
    server: KubeliteProcess, ns: str, replicas: str, number: str
) -> None:
    result = server.http("POST", _deployments(ns), _deployment_json("web", replicas), headers=JSON)
    _assert_bad_request(result, _replicas_error(number))
    assert server.http("GET", _deployments(ns, "web")).status == 404


def test_json_update_refuses_what_int32_cannot_hold(server: KubeliteProcess, ns: str) -> None:
    assert server.http("POST", _deployments(ns), _deployment_json("web", "1"), headers=JSON).status == 201
    result = server.http("PUT", _deployments(ns, "web"), _deployment_json("web", HUGE), headers=JSON)
    _assert_bad_request(result, _replicas_error(HUGE))
    assert server.http("GET", _deployments(ns, "web")).json()["spec"]["replicas"] == 1


@pytest.mark.parametrize(
    ("replicas", "number"),
    [
        # YAML reaches kube's decoder converted to JSON: an integer beyond 64 bits has become a float64
        (HUGE, "1.1805916207174113e+21"),
        ("9223372036854775808", "9223372036854775808"),
        ("2147483648", "2147483648"),
        ("1.5", "1.5"),
    ],
    ids=["2^70", "int64-max+1", "int32-max+1", "fraction"],
)
def test_yaml_create_refuses_what_int32_cannot_hold(
    server: KubeliteProcess, ns: str, replicas: str, number: str
) -> None:
    result = server.http("POST", _deployments(ns), _deployment_yaml("web", replicas), headers=YAML)
    _assert_bad_request(result, _replicas_error(number))
    assert server.http("GET", _deployments(ns, "web")).status == 404


def test_in_range_integers_pass(server: KubeliteProcess, ns: str) -> None:
    result = server.http("POST", _deployments(ns), _deployment_json("web", "2147483647"), headers=JSON)
    assert result.status == 201, result.body
    assert result.json()["spec"]["replicas"] == 2147483647


def test_int64_field(server: KubeliteProcess, ns: str) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], "activeDeadlineSeconds": 0},
    }
    body = json.dumps(pod).replace('"activeDeadlineSeconds": 0', '"activeDeadlineSeconds": 9223372036854775808')
    result = server.http("POST", f"/api/v1/namespaces/{ns}/pods", body.encode(), headers=JSON)
    _assert_bad_request(
        result,
        _handled(
            "Pod",
            "json: cannot unmarshal number 9223372036854775808 into Go struct field "
            "PodSpec.spec.activeDeadlineSeconds of type int64",
        ),
    )


@pytest.mark.parametrize(
    ("headers", "patch", "number"),
    [
        # kube merges a merge patch into the object's JSON text, so the number keeps its own text
        (MERGE, b'{"spec":{"replicas":%s}}' % HUGE.encode(), HUGE),
        (MERGE, b'{"spec":{"replicas":1.5}}', "1.5"),
        (MERGE, b'{"spec":{"replicas":2.0}}', "2.0"),
        # a strategic merge patch is decoded into Go values first: beyond 64 bits a number is a float64
        # (kube then converts it unchecked; kubelite refuses what the field cannot hold)
        (STRATEGIC, b'{"spec":{"replicas":%s}}' % HUGE.encode(), "1.1805916207174113e+21"),
        (JSON_PATCH, b'[{"op":"replace","path":"/spec/replicas","value":2147483648}]', "2147483648"),
    ],
    ids=["merge", "merge-fraction", "merge-float-syntax", "strategic", "json-patch"],
)
def test_patches_refuse_what_int32_cannot_hold(
    server: KubeliteProcess, ns: str, headers: dict[str, str], patch: bytes, number: str
) -> None:
    assert server.http("POST", _deployments(ns), _deployment_json("web", "1"), headers=JSON).status == 201
    result = server.http("PATCH", _deployments(ns, "web"), patch, headers=headers)
    _assert_bad_request(result, _replicas_error(number))
    assert server.http("GET", _deployments(ns, "web")).json()["spec"]["replicas"] == 1


def test_apply_refuses_what_int32_cannot_hold(server: KubeliteProcess, ns: str) -> None:
    path = _deployments(ns, "web") + "?fieldManager=test"
    result = server.http("PATCH", path, _deployment_yaml("web", "2147483648"), headers=APPLY)
    _assert_bad_request(result, _replicas_error("2147483648"))
    assert server.http("GET", _deployments(ns, "web")).status == 404


def test_integral_float_from_yaml_is_stored_as_the_integer(server: KubeliteProcess, ns: str) -> None:
    # YAML's 2.0 reaches kube's decoder as the JSON number 2, which an int32 field holds
    result = server.http("POST", _deployments(ns), _deployment_yaml("web", "2.0"), headers=YAML)
    assert result.status == 201, result.body
    assert b'"replicas":2,' in server.http("GET", _deployments(ns, "web")).body
