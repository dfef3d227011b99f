"""Integer fields as Go's decoder fills them: ranges, float text, and where a number's text comes from."""

from __future__ import annotations

import json
import time

import orjson
import pytest

from kubelite.apimachinery.errors import StatusError
from kubelite.endpoints.handlers.field_validation import check, refuse_unfit_integers
from kubelite.registry.catalog import BUILTIN_RESOURCES

DEPLOYMENTS = next(s for s in BUILTIN_RESOURCES if (s.group, s.resource) == ("apps", "deployments"))
PREFIX = 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number '


def _replicas(number: str) -> str:
    return PREFIX + f"{number} into Go struct field DeploymentSpec.spec.replicas of type int32"


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (2**31, "2147483648"),
        (-(2**31) - 1, "-2147483649"),
        (2**64, "18446744073709552000"),
        (2**70, "1.1805916207174113e+21"),
        (1.5, "1.5"),
    ],
)
def test_decoded_values_are_named_as_encoding_json_writes_them(value: int | float, number: str) -> None:
    with pytest.raises(StatusError) as caught:
        check(DEPLOYMENTS, {"spec": {"replicas": value}}, b"", None, False)
    assert caught.value.message == _replicas(number)


def test_bounds_are_inclusive() -> None:
    obj = {"spec": {"replicas": 2**31 - 1, "template": {"spec": {"activeDeadlineSeconds": 2**63 - 1}}}}
    assert check(DEPLOYMENTS, obj, b"", "Strict", False) == []


def test_an_integral_float_becomes_the_integer() -> None:
    obj = {"spec": {"replicas": 3.0}}
    check(DEPLOYMENTS, obj, b"", None, False)
    assert type(obj["spec"]["replicas"]) is int


def test_a_float_not_written_in_the_patch_text_is_not_refused() -> None:
    # the stored object's 3.0 is no number the merge patch wrote
    obj = {"spec": {"replicas": 3.0, "paused": True}}
    check(DEPLOYMENTS, obj, b"", None, False, numbers=b'{"spec":{"paused":true}}')
    assert obj["spec"]["replicas"] == 3


def test_a_float_written_in_the_patch_text_is_refused() -> None:
    with pytest.raises(StatusError) as caught:
        check(DEPLOYMENTS, {"spec": {"replicas": 3.0}}, b"", None, False, numbers=b'{"spec":{"replicas":3.0}}')
    assert caught.value.message == _replicas("3.0")


def test_many_floats_cost_one_reading_of_the_body() -> None:
    ports = [{"containerPort": 80.0} for _ in range(5000)]
    obj = {"spec": {"template": {"spec": {"containers": [{"name": "c", "ports": ports}]}}}}
    body = json.dumps(obj).encode()
    started = time.perf_counter()
    with pytest.raises(StatusError) as caught:
        check(DEPLOYMENTS, orjson.loads(body), body, None, True)
    assert time.perf_counter() - started < 10
    assert caught.value.message == (
        PREFIX + "80.0 into Go struct field ContainerPort.spec.template.spec.containers[0].ports[0].containerPort "
        "of type int32"
    )


def test_an_applied_configuration_is_checked_for_its_integers_only() -> None:
    # type mistakes and unknown fields are the typed conversion's to report
    config = {"spec": {"replicas": "three", "nope": 1, "minReadySeconds": 2.0}}
    refuse_unfit_integers(DEPLOYMENTS, config)
    assert config == {"spec": {"replicas": "three", "nope": 1, "minReadySeconds": 2}}
    assert type(config["spec"]["minReadySeconds"]) is int
    with pytest.raises(StatusError) as caught:
        refuse_unfit_integers(DEPLOYMENTS, {"spec": {"replicas": 2**31}})
    assert caught.value.message == _replicas("2147483648")
