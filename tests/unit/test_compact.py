"""The watch cache's compact form of objects: what is held as JSON, what stays, and that every reader gets the
same object back."""

from __future__ import annotations

import copy

import orjson

from kubelite.apimachinery.cached import expanded, plain
from kubelite.apimachinery.compact import compact_managed_fields, compact_spec_and_status
from kubelite.apimachinery.serializers import dumps_yaml

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "web-1",
        "namespace": "shop",
        "labels": {"app": "web"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "u1"}],
        "managedFields": [{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {}}}],
    },
    "spec": {
        "nodeName": "node-1",
        "restartPolicy": "Always",
        "hostNetwork": False,
        "containers": [{"name": "web", "image": "web:1", "ports": [{"containerPort": 80}]}],
        "securityContext": {},
        "tolerations": [],
        "volumes": [{"name": "config", "configMap": {"name": "web"}}],
    },
    "status": {"phase": "Running", "podIP": "10.0.0.7", "conditions": [{"type": "Ready", "status": "True"}]},
}


def compacted(obj):
    held = copy.deepcopy(obj)
    compact_spec_and_status(held)
    return held


def test_nested_lists_and_objects_are_held_as_json_and_scalars_stay():
    held = compacted(POD)
    spec, status = held["spec"], held["status"]
    assert isinstance(spec["containers"], orjson.Fragment)
    assert isinstance(spec["volumes"], orjson.Fragment)
    assert isinstance(status["conditions"], orjson.Fragment)
    assert isinstance(held["metadata"]["managedFields"], orjson.Fragment)
    # what field selectors and deletion read, and empty values (nothing to gain), stay as they are
    assert spec["nodeName"] == "node-1" and spec["hostNetwork"] is False
    assert spec["securityContext"] == {} and spec["tolerations"] == []
    assert status["phase"] == "Running" and status["podIP"] == "10.0.0.7"
    # metadata is read by the controllers and admission: only managedFields are encoded
    assert held["metadata"]["labels"] == {"app": "web"}
    assert held["metadata"]["ownerReferences"] == POD["metadata"]["ownerReferences"]


def test_the_compact_form_encodes_to_the_same_json():
    assert orjson.dumps(compacted(POD)) == orjson.dumps(POD)


def test_expanded_gives_the_object_back_and_shares_what_was_not_encoded():
    held = compacted(POD)
    readable = expanded(held)
    assert readable is not held
    assert readable["spec"]["containers"] == POD["spec"]["containers"]
    assert readable["status"] == POD["status"]
    assert readable["metadata"] is held["metadata"]
    assert isinstance(held["spec"]["containers"], orjson.Fragment)  # the cached object is left as it was


def test_expanded_is_the_object_itself_when_nothing_is_encoded():
    only_managed_fields = copy.deepcopy(POD)
    compact_managed_fields(only_managed_fields)
    assert expanded(only_managed_fields) is only_managed_fields
    assert expanded({"kind": "ConfigMap", "data": {"a": "b"}}) == {"kind": "ConfigMap", "data": {"a": "b"}}


def test_other_encoders_decode_the_fragments():
    held = compacted(POD)
    assert plain(held) == POD
    assert dumps_yaml(held) == dumps_yaml(POD)


def test_objects_without_spec_or_status_are_untouched():
    secret = {"kind": "Secret", "type": "Opaque", "data": {"k": "dg=="}, "metadata": {"name": "s"}}
    held = copy.deepcopy(secret)
    compact_spec_and_status(held)
    assert held == secret
