"""Creates' managedFields kept by shape: always what the field manager itself records, for every kind the
tests create, and for objects that differ only in what the field manager strips."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import objects
from kubelite.apimachinery.apply.created import MAX_SHAPE_BYTES, CreateRecorder
from kubelite.apimachinery.apply.fieldmanager import FieldManager
from kubelite.endpoints.handlers.apply_schema import reset_fields, root_node
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.spec import ResourceSpec

MANIFESTS = Path(__file__).parents[1] / "e2e" / "manifests"
TIME = "2026-01-02T03:04:05Z"


def manager_for(spec: ResourceSpec) -> FieldManager:
    return FieldManager(
        root_node(spec.group, spec.version, spec.kind),
        spec.group,
        spec.version,
        spec.kind,
        reset_fields=reset_fields(spec, ""),
        clock=lambda: TIME,
    )


def spec_of(obj: dict[str, Any]) -> ResourceSpec:
    group, _, version = obj["apiVersion"].rpartition("/")
    return next(s for s in BUILTIN_RESOURCES if (s.group, s.version, s.kind) == (group, version, obj["kind"]))


def manifests() -> list[dict[str, Any]]:
    found = [doc for path in sorted(MANIFESTS.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]
    return [*found, objects.pod("web-1", "shop"), objects.configmap("cm-1", "shop")]


def recorded_both_ways(obj: dict[str, Any], manager: str = "kubectl-create") -> tuple[bytes, bytes, bytes]:
    """The field manager's result, and the recorder's on a miss and on a hit (as JSON, so order counts)."""
    spec = spec_of(obj)
    expected = manager_for(spec).update(None, copy.deepcopy(obj), manager)
    recorder = CreateRecorder(manager_for(spec))
    missed = recorder.record(copy.deepcopy(obj), manager)
    hit = recorder.record(copy.deepcopy(obj), manager)
    return orjson.dumps(expected), orjson.dumps(missed), orjson.dumps(hit)


@pytest.mark.parametrize("obj", manifests(), ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_every_kind_records_what_the_field_manager_records(obj: dict[str, Any]) -> None:
    expected, missed, hit = recorded_both_ways(obj)
    assert missed == expected
    assert hit == expected


def test_the_kinds_above_record_fields() -> None:
    """Those with more than stripped fields (a name alone records nothing)."""
    recorded = [b'"managedFields"' in recorded_both_ways(obj)[0] for obj in manifests()]
    assert sum(recorded) >= len(recorded) - 3


def test_the_time_is_the_clock_of_each_create() -> None:
    ticks = iter(["2026-01-01T00:00:00Z", "2026-01-01T00:00:07Z"])
    spec = spec_of(objects.pod("a", "ns"))
    recorder = CreateRecorder(
        FieldManager(
            root_node("", "v1", "Pod"), "", "v1", "Pod", reset_fields=reset_fields(spec, ""), clock=lambda: next(ticks)
        )
    )
    first = recorder.record(objects.pod("a", "ns"), "m")["metadata"]["managedFields"]
    second = recorder.record(objects.pod("b", "ns"), "m")["metadata"]["managedFields"]
    assert [e["time"] for e in first + second] == ["2026-01-01T00:00:00Z", "2026-01-01T00:00:07Z"]
    assert [{**e, "time": ""} for e in first] == [{**e, "time": ""} for e in second]
    assert list(second[0]) == ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1"]
    assert len(recorder) == 1  # the two pods differ in their names only


def test_a_different_manager_or_field_is_another_shape() -> None:
    recorder = CreateRecorder(manager_for(spec_of(objects.configmap("a", "ns"))))
    base = objects.configmap("a", "ns")
    recorder.record(copy.deepcopy(base), "m")
    recorder.record(copy.deepcopy(base), "other")
    labelled = copy.deepcopy(base)
    labelled["metadata"]["labels"] = {"tier": "web"}
    got = recorder.record(labelled, "m")["metadata"]["managedFields"][0]["fieldsV1"]
    assert got["f:metadata"] == {"f:labels": {".": {}, "f:tier": {}}}
    assert len(recorder) == 3


def test_objects_with_managed_fields_of_their_own_take_the_field_managers_path() -> None:
    obj = objects.configmap("a", "ns")
    obj["metadata"]["managedFields"] = [
        {
            "manager": "importer",
            "operation": "Update",
            "apiVersion": "v1",
            "time": "2025-01-01T00:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {}},
        }
    ]
    expected, missed, hit = recorded_both_ways(obj)
    assert missed == hit == expected
    recorder = CreateRecorder(manager_for(spec_of(obj)))
    recorder.record(copy.deepcopy(obj), "m")
    assert len(recorder) == 0


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=20)
_stripped = st.fixed_dictionaries(
    {},
    optional={
        "name": _names,
        "generation": st.integers(0, 5),
        "uid": _names,
        "resourceVersion": st.from_regex(r"[0-9]{1,6}", fullmatch=True),
        "creationTimestamp": st.just("2026-11-30T12:00:00Z"),
        "namespace": _names,
    },
)
_labels = st.dictionaries(st.sampled_from(["app", "tier", "pod-template-hash"]), _names, max_size=3)


@settings(max_examples=60, deadline=None)
@given(stripped=_stripped, labels=_labels, containers=st.integers(1, 3), replicas_of_stripped=_stripped)
def test_objects_that_differ_in_stripped_fields_share_a_shape_and_a_result(
    stripped: dict[str, Any], labels: dict[str, str], containers: int, replicas_of_stripped: dict[str, Any]
) -> None:
    template = objects.pod("web", "shop")
    template["metadata"] = {"labels": labels} if labels else {}
    template["spec"]["containers"] = [{**template["spec"]["containers"][0], "name": f"c{i}"} for i in range(containers)]
    recorder = CreateRecorder(manager_for(spec_of(template)))
    for meta in (stripped, replicas_of_stripped):
        obj = copy.deepcopy(template)
        obj["metadata"].update(meta)
        expected = manager_for(spec_of(obj)).update(None, copy.deepcopy(obj), "m")
        assert orjson.dumps(recorder.record(obj, "m")) == orjson.dumps(expected)


def test_large_objects_are_not_kept() -> None:
    big = objects.configmap("big", "ns")
    big["data"] = {"blob": "x" * (MAX_SHAPE_BYTES + 1)}
    expected, missed, hit = recorded_both_ways(big)
    assert missed == hit == expected
    recorder = CreateRecorder(manager_for(spec_of(big)))
    recorder.record(big, "m")
    assert len(recorder) == 0


def event(name: str, message: str, count: int, *, reason: str = "Pulled", note: str = "") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "namespace": "shop", "name": name.split(".")[0], "uid": name[::-1]},
        "reason": reason,
        "message": message,
        "source": {"component": "kubelet", "host": "node-0"},
        "firstTimestamp": "2026-01-02T03:04:05Z",
        "lastTimestamp": "2026-01-02T03:04:05Z",
        "count": count,
        "type": "Normal",
        "reportingComponent": note,
    }


def test_objects_that_differ_in_scalar_values_share_a_shape_and_a_result() -> None:
    spec = spec_of(event("a.1", "m", 1))
    recorder = CreateRecorder(manager_for(spec))
    for obj in (event("a.1", "pulled a", 1), event("b.2", "pulled image b", 7, reason="Started")):
        expected = manager_for(spec).update(None, copy.deepcopy(obj), "kubelet")
        assert orjson.dumps(recorder.record(obj, "kubelet")) == orjson.dumps(expected)
    assert len(recorder) == 1


def test_a_zero_value_is_another_shape() -> None:
    """omitempty fields holding their zero value are no fields: "" and 0 are not any string or number."""
    spec = spec_of(event("a.1", "m", 1))
    recorder = CreateRecorder(manager_for(spec))
    for obj in (event("a.1", "m", 1), event("a.2", "m", 0), event("a.3", "", 1), event("a.4", "m", 1, note="k")):
        expected = manager_for(spec).update(None, copy.deepcopy(obj), "kubelet")
        assert orjson.dumps(recorder.record(obj, "kubelet")) == orjson.dumps(expected)
    assert len(recorder) == 4


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.sampled_from(["", "x", "80"]))


@settings(max_examples=80, deadline=None)
@given(first=st.lists(_scalars, min_size=4, max_size=4), second=st.lists(_scalars, min_size=4, max_size=4))
def test_any_two_scalar_values_record_what_the_field_manager_records(first: list[Any], second: list[Any]) -> None:
    """Values of every JSON type in struct fields, maps and IntOrString fields, one after the other."""
    recorder = CreateRecorder(manager_for(spec_of(objects.pod("web", "shop"))))
    for values in (first, second):
        obj = objects.pod("web", "shop")
        obj["metadata"]["annotations"] = {"a": values[0]}
        obj["spec"]["activeDeadlineSeconds"] = values[1]
        obj["spec"]["hostname"] = values[2]
        obj["spec"]["strategy"] = {"rollingUpdate": {"maxSurge": values[3]}}
        obj["spec"]["containers"][0]["tty"] = values[3]
        expected = manager_for(spec_of(obj)).update(None, copy.deepcopy(obj), "m")
        assert orjson.dumps(recorder.record(obj, "m")) == orjson.dumps(expected)
