"""Server-side apply and managedFields: path sets and their FieldsV1 form, field sets of objects against the
published schemas, the apply merge and its pruning, ownership on update, conflicts and force, and the
managedFields entries kube writes, checked against what structured-merge-diff and kube's field manager do."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apimachinery.apply.fieldmanager import (
    FieldManager,
    conflict_error,
    manager_or_user_agent,
)
from kubelite.apimachinery.apply.fieldpath import (
    FieldsError,
    Set,
    go_json,
    index_elem,
    key_elem,
    path_string,
    value_elem,
)
from kubelite.apimachinery.apply.managed import identifier
from kubelite.apimachinery.apply.typed import ABSENT, compare, merge, remove_items, to_field_set
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import deep_copy
from kubelite.endpoints.handlers.apply import decode_configuration, duplicate_keys, force_param
from kubelite.endpoints.handlers.apply_schema import reset_fields, root_node
from kubelite.registry.spec import ResourceSpec, SubresourceSpec

DEPLOYMENT = root_node("apps", "v1", "Deployment")
POD = root_node("", "v1", "Pod")
CONFIGMAP = root_node("", "v1", "ConfigMap")
SERVICE = root_node("", "v1", "Service")

NGINX = key_elem([("name", "nginx")])
PORT_80 = key_elem([("containerPort", 80), ("protocol", "TCP")])


def clock() -> Callable[[], str]:
    ticks = itertools.count()
    return lambda: f"2024-01-01T00:00:{next(ticks):02d}Z"


def cm_manager(**kwargs: Any) -> FieldManager:
    return FieldManager(CONFIGMAP, "", "v1", "ConfigMap", clock=clock(), **kwargs)


def deploy_manager(subresource: str = "") -> FieldManager:
    reset = Set.of(("spec",), ("metadata", "labels")) if subresource == "status" else Set.of(("status",))
    return FieldManager(
        DEPLOYMENT, "apps", "v1", "Deployment", subresource=subresource, reset_fields=reset, clock=clock()
    )


def cm(name: str = "cm", labels: dict[str, str] | None = None, **data: str) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ns"}}
    if labels is not None:
        obj["metadata"]["labels"] = labels
    if data:
        obj["data"] = data
    return obj


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    """What the store makes of a created object: it has a uid from then on."""
    out = deep_copy(obj)
    out["metadata"].setdefault("uid", "uid-1")
    return out


def entries(obj: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (e.get("manager"), e["operation"], e.get("subresource", ""), e["fieldsV1"])
        for e in obj["metadata"].get("managedFields", [])
    ]


def deployment(replicas: int | None = 2, image: str = "nginx:1.25", **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ns"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": image}]},
            },
            **spec,
        },
    }
    if replicas is None:
        del obj["spec"]["replicas"]
    return obj


# -- FieldsV1 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paths", "fields"),
    [
        pytest.param([("a",)], {"f:a": {}}, id="leaf"),
        pytest.param([("a", "b"), ("a", "c")], {"f:a": {"f:b": {}, "f:c": {}}}, id="children-only"),
        pytest.param([("a",), ("a", "b")], {"f:a": {".": {}, "f:b": {}}}, id="member-with-children-has-dot"),
        pytest.param([("z",), ("b",), ("a",)], {"f:a": {}, "f:b": {}, "f:z": {}}, id="names-sorted"),
        pytest.param(
            [("l", index_elem(0)), ("l", value_elem("x")), ("l", NGINX), ("l", "f")],
            {"f:l": {"f:f": {}, 'k:{"name":"nginx"}': {}, 'v:"x"': {}, "i:0": {}}},
            id="fields-keys-values-indices",
        ),
        pytest.param(
            [("p", key_elem([("port", 10)])), ("p", key_elem([("port", 9)]))],
            {"f:p": {'k:{"port":9}': {}, 'k:{"port":10}': {}}},
            id="keys-numeric-order",
        ),
        pytest.param(
            [("s", value_elem(2)), ("s", value_elem("a")), ("s", value_elem(True)), ("s", value_elem(None))],
            {"f:s": {"v:2": {}, 'v:"a"': {}, "v:true": {}, "v:null": {}}},
            id="values-numbers-strings-bools-null",
        ),
        pytest.param(
            [("c", NGINX), ("c", NGINX, "image"), ("c", NGINX, "ports", PORT_80)],
            {
                "f:c": {
                    'k:{"name":"nginx"}': {
                        ".": {},
                        "f:image": {},
                        "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {}},
                    }
                }
            },
            id="keys-sorted-by-name",
        ),
        pytest.param([("a", value_elem("<&>"))], {"f:a": {'v:"\\u003c\\u0026\\u003e"': {}}}, id="html-escaped"),
        pytest.param([], {}, id="empty"),
    ],
)
def test_fields_v1_encoding(paths: list[tuple[Any, ...]], fields: dict[str, Any]) -> None:
    encoded = Set.of(*paths).to_fields()
    assert encoded == fields
    assert json.dumps(encoded) == json.dumps(fields)  # the order too
    assert Set.from_fields(fields) == Set.of(*paths)


@pytest.mark.parametrize(
    ("fields", "paths"),
    [
        pytest.param({"f:a": {".": {}}}, [("a",)], id="only-dot-is-a-member"),
        pytest.param({"f:a": {"x:future": {}}}, [("a",)], id="unknown-element-type-skipped"),
        pytest.param({'k:{"b":2,"a":1}': {}}, [(key_elem([("a", 1), ("b", 2)]),)], id="key-fields-sorted"),
        pytest.param({"v:1.0": {}}, [(value_elem(1),)], id="float-equals-int"),
    ],
)
def test_fields_v1_decoding(fields: dict[str, Any], paths: list[tuple[Any, ...]]) -> None:
    assert Set.from_fields(fields) == Set.of(*paths)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"a": {}}, "key must be 2 characters long", id="short-key"),
        pytest.param({"fa": {}}, "missing colon: fa", id="no-colon"),
        pytest.param({"f:a": []}, "value of f:a must be an object", id="not-an-object"),
        pytest.param({"i:x": {}}, "invalid literal for int() with base 10: 'x'", id="bad-index"),
    ],
)
def test_fields_v1_decoding_errors(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(FieldsError) as info:
        Set.from_fields(fields)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("path", "text"),
    [
        pytest.param(("spec", "replicas"), ".spec.replicas", id="fields"),
        pytest.param(("spec", "containers", NGINX, "image"), '.spec.containers[name="nginx"].image', id="key"),
        pytest.param(("ports", PORT_80), '.ports[containerPort=80,protocol="TCP"]', id="two-keys"),
        pytest.param(("finalizers", value_elem("a/b")), '.finalizers[="a/b"]', id="value"),
        pytest.param(("args", index_elem(3)), ".args[3]", id="index"),
    ],
)
def test_path_string(path: tuple[Any, ...], text: str) -> None:
    assert path_string(path) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (1.5, "1.5"),
        (1e21, "1e+21"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        ({"b": 1, "a": [2]}, '{"a":[2],"b":1}'),
    ],
)
def test_go_json(value: Any, text: str) -> None:
    assert go_json(value) == text


# -- set algebra ------------------------------------------------------------------------------------------

A, AB, ABC, AD = ("a",), ("a", "b"), ("a", "b", "c"), ("a", "d")


@pytest.mark.parametrize(
    ("op", "left", "right", "expected"),
    [
        pytest.param("union", [AB], [AD], [AB, AD], id="union"),
        pytest.param("intersection", [AB, AD], [AD, A], [AD], id="intersection"),
        pytest.param("difference", [A, AB, ABC], [AB], [A, ABC], id="difference-keeps-children"),
        pytest.param("difference", [AB], [A], [AB], id="difference-parent-does-not-remove-child"),
        pytest.param("recursive_difference", [A, AB, ABC], [AB], [A], id="recursive-difference"),
        pytest.param("recursive_difference", [AD, ABC], [A], [], id="recursive-member-takes-subtree"),
        pytest.param("recursive_difference", [AD, ABC], [("a", "x")], [AD, ABC], id="recursive-other-paths-kept"),
    ],
)
def test_set_algebra(op: str, left: list[Any], right: list[Any], expected: list[Any]) -> None:
    assert getattr(Set.of(*left), op)(Set.of(*right)) == Set.of(*expected)


def test_set_paths_iterate_members_then_children() -> None:
    paths = Set.of(("spec", "template", "x"), ("metadata", "labels", "a"), ("spec", "replicas")).paths()
    assert [path_string(p) for p in paths] == [".metadata.labels.a", ".spec.replicas", ".spec.template.x"]


# -- field sets -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node", "value", "fields"),
    [
        pytest.param(
            POD,
            {"spec": {"containers": [{"name": "nginx", "image": "x", "ports": [{"containerPort": 80}]}]}},
            {
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"nginx"}': {
                            ".": {},
                            "f:image": {},
                            "f:name": {},
                            "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}},
                        }
                    }
                }
            },
            id="map-list-by-key-with-defaulted-protocol",
        ),
        pytest.param(
            POD,
            {"metadata": {"finalizers": ["example.com/a", "b"]}},
            {"f:metadata": {"f:finalizers": {'v:"b"': {}, 'v:"example.com/a"': {}}}},
            id="set-by-value",
        ),
        pytest.param(
            POD,
            {"spec": {"containers": [{"name": "c", "command": ["sleep", "1"]}]}},
            {"f:spec": {"f:containers": {'k:{"name":"c"}': {".": {}, "f:command": {}, "f:name": {}}}}},
            id="atomic-list-is-a-leaf",
        ),
        pytest.param(
            DEPLOYMENT,
            {"spec": {"selector": {"matchLabels": {"a": "b"}}}},
            {"f:spec": {"f:selector": {}}},
            id="atomic-map-is-a-leaf",
        ),
        pytest.param(
            CONFIGMAP,
            {"metadata": {"labels": {"a": "1", "b": "2"}}, "data": {"k": "v"}},
            {"f:data": {"f:k": {}}, "f:metadata": {"f:labels": {"f:a": {}, "f:b": {}}}},
            id="granular-maps",
        ),
        pytest.param(
            POD,
            {"spec": {"securityContext": {}, "nodeSelector": None, "volumes": []}},
            {"f:spec": {"f:nodeSelector": {}, "f:securityContext": {}}},
            id="null-and-empty-object-owned-empty-list-not",
        ),
        pytest.param(
            SERVICE,
            {"spec": {"ports": [{"port": 80, "targetPort": 8080}]}},
            {"f:spec": {"f:ports": {'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}, "f:targetPort": {}}}}},
            id="service-port-key",
        ),
    ],
)
def test_to_field_set(node: Any, value: dict[str, Any], fields: dict[str, Any]) -> None:
    assert to_field_set(node, value).to_fields() == fields


def test_duplicated_list_items_are_owned_whole() -> None:
    pod = {"spec": {"containers": [{"name": "a", "image": "1"}, {"name": "a", "image": "2"}]}}
    assert to_field_set(POD, pod).to_fields() == {"f:spec": {"f:containers": {'k:{"name":"a"}': {}}}}


# -- compare and merge ------------------------------------------------------------------------------------


def test_compare_added_modified_removed() -> None:
    old = {"data": {"a": "1", "b": "1"}, "metadata": {"labels": {"x": "1"}}}
    new = {"data": {"a": "2", "c": "1"}, "metadata": {}}
    comparison = compare(CONFIGMAP, old, new)
    assert comparison.added == Set.of(("data", "c"))
    assert comparison.modified == Set.of(("data", "a"))
    assert comparison.removed == Set.of(("data", "b"), ("metadata", "labels"), ("metadata", "labels", "x"))


def test_compare_treats_go_zero_values_as_set() -> None:
    """kube compares Go objects: non-pointer structs exist when empty, omitempty zeros do not."""
    comparison = compare(DEPLOYMENT, {}, {"spec": {"template": {"metadata": {}}, "paused": False, "strategy": {}}})
    assert comparison.is_same()


@pytest.mark.parametrize(
    ("node_path", "live", "config", "merged"),
    [
        pytest.param(
            ("spec", "containers"),
            [{"name": "a"}, {"name": "b"}, {"name": "c"}],
            [{"name": "c"}, {"name": "a"}],
            [{"name": "b"}, {"name": "c"}, {"name": "a"}],
            id="map-list-configuration-order-wins-for-shared-items",
        ),
        pytest.param(
            ("spec", "containers"),
            [{"name": "a", "image": "1", "tty": True}, {"name": "b"}],
            [{"name": "b", "image": "2"}, {"name": "c"}],
            [{"name": "a", "image": "1", "tty": True}, {"name": "b", "image": "2"}, {"name": "c"}],
            id="map-list-merges-items-by-key",
        ),
        pytest.param(("metadata", "finalizers"), ["x", "y"], ["z", "x"], ["z", "x", "y"], id="set-union"),
        pytest.param(("spec", "containers", 0, "command"), ["a", "b"], ["c"], ["c"], id="atomic-list-replaced"),
        pytest.param(("metadata", "labels"), {"a": "1"}, {"b": "2"}, {"a": "1", "b": "2"}, id="granular-map"),
        pytest.param(("metadata", "labels"), {"a": "1"}, None, {"a": "1"}, id="null-keeps-a-filled-map"),
        pytest.param(("spec", "nodeSelector"), {"a": "1"}, {"b": "2"}, {"b": "2"}, id="atomic-map-replaced"),
        pytest.param(("spec", "restartPolicy"), "Always", "Never", "Never", id="scalar"),
    ],
)
def test_merge(node_path: tuple[Any, ...], live: Any, config: Any, merged: Any) -> None:
    node = POD
    for step in node_path:
        node = node.list.item if isinstance(step, int) else node.map.fields[step]  # type: ignore[union-attr]
    assert merge(node, live, config) == merged


def test_merge_keeps_selector_atomic() -> None:
    live = {"spec": {"selector": {"matchLabels": {"a": "1"}, "matchExpressions": []}}}
    config = {"spec": {"selector": {"matchLabels": {"b": "2"}}}}
    assert merge(DEPLOYMENT, live, config) == {"spec": {"selector": {"matchLabels": {"b": "2"}}}}


def test_remove_items() -> None:
    value = {"data": {"a": "1", "b": "2"}, "metadata": {"labels": {"x": "1"}}}
    removed = remove_items(CONFIGMAP, value, Set.of(("data", "a"), ("metadata", "labels", "x")))
    assert removed == {"data": {"b": "2"}}  # containers left empty go, as nulls do when Go decodes them
    assert remove_items(CONFIGMAP, {"data": {"a": "1"}}, Set.of(("data",))) is ABSENT


# -- apply ------------------------------------------------------------------------------------------------


def test_apply_creates_and_records_the_applier() -> None:
    created = cm_manager().apply(None, cm(a="1"), "a")
    assert created["data"] == {"a": "1"}
    assert created["metadata"]["managedFields"] == [
        {
            "manager": "a",
            "operation": "Apply",
            "apiVersion": "v1",
            "time": "2024-01-01T00:00:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
        }
    ]


@pytest.mark.parametrize(
    ("steps", "data"),
    [
        pytest.param([("a", {"x": "1", "y": "1"}), ("a", {"x": "1"})], {"x": "1"}, id="no-longer-applied-removed"),
        pytest.param(
            [("a", {"x": "1", "y": "1"}), ("b", {"y": "1"}), ("a", {"x": "1"})],
            {"x": "1", "y": "1"},
            id="kept-while-another-applier-owns-it",
        ),
        pytest.param(
            [("a", {"x": "1"}), ("b", {"x": "1"}), ("a", {})],
            {"x": "1"},
            id="shared-field-survives-one-owner",
        ),
        pytest.param([("a", {"x": "1"}), ("a", {"x": "2"})], {"x": "2"}, id="own-field-changed-without-conflict"),
    ],
)
def test_apply_sequences(steps: list[tuple[str, dict[str, str]]], data: dict[str, str]) -> None:
    manager = cm_manager()
    obj: dict[str, Any] | None = None
    for who, applied in steps:
        obj = stored(manager.apply(obj, cm(**applied), who))
    assert obj is not None
    assert obj.get("data", {}) == data


def test_apply_removes_list_items_it_no_longer_applies() -> None:
    manager = deploy_manager()
    two = deployment()
    two["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    live = stored(manager.apply(None, two, "a"))
    live = manager.apply(live, deployment(), "a")
    assert [c["name"] for c in live["spec"]["template"]["spec"]["containers"]] == ["nginx"]


def test_apply_keeps_fields_an_updater_took() -> None:
    manager = cm_manager()
    live = stored(manager.apply(None, cm(x="1", y="1"), "a"))
    edited = deep_copy(live)
    edited["data"]["y"] = "2"
    live = manager.update(live, edited, "editor")
    live = manager.apply(live, cm(x="1"), "a")
    assert live["data"] == {"x": "1", "y": "2"}
    assert entries(live) == [
        ("a", "Apply", "", {"f:data": {"f:x": {}}}),
        ("editor", "Update", "", {"f:data": {"f:y": {}}}),
    ]


def test_apply_that_changes_nothing_keeps_times() -> None:
    manager = cm_manager()
    live = stored(manager.apply(None, cm(x="1"), "a"))
    again = manager.apply(live, cm(x="1"), "a")
    assert again == live
    shared = manager.apply(live, cm(x="1"), "b")
    assert [(e["manager"], e.get("time")) for e in shared["metadata"]["managedFields"]] == [
        ("b", None),  # the object did not change: kube records no time for the new co-owner
        ("a", "2024-01-01T00:00:00Z"),
    ]


def test_apply_does_not_own_type_meta_system_fields_or_reset_fields() -> None:
    manager = deploy_manager()
    config = deployment()
    config["metadata"].update(uid="x", resourceVersion="1", generation=3, labels={"app": "web"})
    config["status"] = {"replicas": 5}
    created = manager.apply(None, config, "a")
    fields = created["metadata"]["managedFields"][0]["fieldsV1"]
    assert sorted(fields) == ["f:metadata", "f:spec"]
    assert fields["f:metadata"] == {"f:labels": {"f:app": {}}}


@pytest.mark.parametrize(
    ("owner", "operation", "subresource", "message"),
    [
        pytest.param("a", "apply", "", 'conflict with "a"', id="applier"),
        pytest.param("kubectl-edit", "update", "", 'conflict with "kubectl-edit" using v1', id="updater"),
        pytest.param(
            "kubectl",
            "update",
            "status",
            'conflict with "kubectl" with subresource "status" using v1',
            id="subresource",
        ),
    ],
)
def test_conflict_message(owner: str, operation: str, subresource: str, message: str) -> None:
    ident = identifier(owner, "Apply" if operation == "apply" else "Update", "v1", subresource)
    error = conflict_error([(ident, ("data", "x"))])
    assert (error.code, error.reason, error.message) == (
        409,
        "Conflict",
        f"Apply failed with 1 conflict: {message}: .data.x",
    )
    assert error.details == {"causes": [{"reason": "FieldManagerConflict", "message": message, "field": ".data.x"}]}


def test_conflicts_with_several_managers_are_grouped_by_manager() -> None:
    error = conflict_error(
        [
            (identifier("b", "Apply"), ("data", "x")),
            (identifier("a", "Update", "v1"), ("data", "y")),
            (identifier("a", "Update", "v1"), ("data", "z")),
        ]
    )
    assert error.message == (
        'Apply failed with 3 conflicts: conflicts with "a" using v1:\n- .data.y\n- .data.z\n'
        'conflicts with "b":\n- .data.x'
    )


def test_apply_conflict_and_force() -> None:
    manager = cm_manager()
    live = stored(manager.apply(None, cm(x="1", y="1"), "a"))
    with pytest.raises(StatusError) as info:
        manager.apply(live, cm(x="2", y="2"), "b")
    assert info.value.message == 'Apply failed with 2 conflicts: conflicts with "a":\n- .data.x\n- .data.y'
    assert [cause["field"] for cause in info.value.details["causes"]] == [".data.x", ".data.y"]  # type: ignore[index]
    forced = manager.apply(live, cm(x="2", y="2"), "b", force=True)
    assert forced["data"] == {"x": "2", "y": "2"}
    assert entries(forced) == [("b", "Apply", "", {"f:data": {"f:x": {}, "f:y": {}}})]  # a owns nothing left


def test_conflict_with_an_updater() -> None:
    manager = deploy_manager()
    live = stored(manager.apply(None, deployment(), "a"))
    scaled = deep_copy(live)
    scaled["spec"]["replicas"] = 5
    live = manager.update(live, scaled, "kubectl-scale")
    with pytest.raises(StatusError) as info:
        manager.apply(live, deployment(replicas=2), "a")
    assert info.value.message == (
        'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas'
    )


# -- update -----------------------------------------------------------------------------------------------


def test_create_records_what_kube_records_for_a_defaulted_deployment() -> None:
    obj = deployment()
    spec = obj["spec"]
    spec.update(progressDeadlineSeconds=600, revisionHistoryLimit=10)
    spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}
    spec["template"]["spec"].update(restartPolicy="Always", securityContext={})
    spec["template"]["spec"]["containers"][0].update(resources={}, imagePullPolicy="IfNotPresent")
    obj["metadata"]["labels"] = {"app": "web"}
    created = deploy_manager().update(None, obj, "kubectl-create")
    assert entries(created) == [
        (
            "kubectl-create",
            "Update",
            "",
            {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {
                    "f:progressDeadlineSeconds": {},
                    "f:replicas": {},
                    "f:revisionHistoryLimit": {},
                    "f:selector": {},
                    "f:strategy": {
                        "f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}},
                        "f:type": {},
                    },
                    "f:template": {
                        "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {
                            "f:containers": {
                                'k:{"name":"nginx"}': {
                                    ".": {},
                                    "f:image": {},
                                    "f:imagePullPolicy": {},
                                    "f:name": {},
                                    "f:resources": {},
                                }
                            },
                            "f:restartPolicy": {},
                            "f:securityContext": {},
                        },
                    },
                },
            },
        )
    ]
    assert created["metadata"]["managedFields"][0]["apiVersion"] == "apps/v1"


def test_update_takes_changed_fields_from_their_owners() -> None:
    manager = cm_manager()
    live = stored(manager.apply(None, cm(x="1", y="1"), "a"))
    edited = deep_copy(live)
    edited["data"]["x"] = "2"
    edited["data"]["z"] = "1"
    live = manager.update(live, edited, "editor")
    assert entries(live) == [
        ("a", "Apply", "", {"f:data": {"f:y": {}}}),
        ("editor", "Update", "", {"f:data": {"f:x": {}, "f:z": {}}}),
    ]
    assert [e["time"] for e in live["metadata"]["managedFields"]] == ["2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z"]


def test_updates_of_one_manager_merge_and_empty_entries_go() -> None:
    manager = cm_manager()
    live = stored(manager.update(None, cm(x="1"), "first"))
    step = deep_copy(live)
    step["data"]["y"] = "1"
    live = manager.update(live, step, "second")
    step = deep_copy(live)
    step["data"]["z"] = "1"
    live = manager.update(live, step, "second")
    assert entries(live) == [
        ("first", "Update", "", {"f:data": {".": {}, "f:x": {}}}),
        ("second", "Update", "", {"f:data": {"f:y": {}, "f:z": {}}}),
    ]
    step = deep_copy(live)
    del step["data"]["x"]
    live = manager.update(live, step, "third")
    assert [e[0] for e in entries(live)] == ["first", "second"]  # third changed nothing it could own
    step = deep_copy(live)
    step["data"] = {"w": "1"}
    live = manager.update(live, step, "second")
    # `first` keeps the map it created: kube never takes non-leaf fields away from their owner
    assert entries(live) == [
        ("first", "Update", "", {"f:data": {}}),
        ("second", "Update", "", {"f:data": {"f:w": {}}}),
    ]


def test_update_that_changes_nothing_keeps_time() -> None:
    manager = cm_manager()
    live = stored(manager.update(None, cm(x="1"), "a"))
    again = manager.update(live, deep_copy(live), "a")
    assert again["metadata"]["managedFields"] == live["metadata"]["managedFields"]


@pytest.mark.parametrize(
    ("sent", "managers"),
    [
        pytest.param([], [], id="empty-list-resets"),
        pytest.param([{}], [], id="one-empty-entry-resets"),
        pytest.param(
            [
                {
                    "manager": "x",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {"f:x": {}}},
                }
            ],
            ["x"],
            id="valid-entries-replace",
        ),
        pytest.param([{"manager": "x", "operation": "Patch"}], ["a"], id="invalid-entries-ignored"),
    ],
)
def test_managed_fields_sent_with_an_update(sent: list[Any], managers: list[str]) -> None:
    manager = cm_manager()
    live = stored(manager.apply(None, cm(x="1"), "a"))
    new = deep_copy(live)
    new["metadata"]["managedFields"] = sent
    result = manager.update(live, new, "writer")
    assert [e["manager"] for e in result["metadata"].get("managedFields", [])] == managers


def test_subresource_update_ignores_sent_managed_fields() -> None:
    main, status = deploy_manager(), deploy_manager("status")
    live = stored(main.apply(None, deployment(), "a"))
    new = deep_copy(live)
    new["metadata"]["managedFields"] = []
    new["status"] = {"replicas": 2}
    result = status.update(live, new, "controller")
    assert [(e[0], e[1], e[2]) for e in entries(result)] == [("a", "Apply", ""), ("controller", "Update", "status")]
    # status is a Go struct, present when empty: the writer owns what it set in it, not status itself
    assert result["metadata"]["managedFields"][1]["fieldsV1"] == {"f:status": {"f:replicas": {}}}


def test_untracked_object_stays_untracked_until_applied() -> None:
    manager = cm_manager()
    live = stored(cm(x="1"))
    edited = deep_copy(live)
    edited["data"]["y"] = "1"
    assert "managedFields" not in manager.update(live, edited, "editor")["metadata"]
    applied = manager.apply(stored(edited), cm(x="1", z="1"), "a")
    assert entries(applied) == [
        ("a", "Apply", "", {"f:data": {"f:x": {}, "f:z": {}}}),
        ("before-first-apply", "Update", "", {"f:data": {".": {}, "f:x": {}, "f:y": {}}}),
    ]


def test_update_managers_are_capped_at_ten() -> None:
    manager = cm_manager()
    live = stored(manager.update(None, cm(k0="v"), "m0"))
    for n in range(1, 12):
        step = deep_copy(live)
        step["data"][f"k{n}"] = "v"
        live = manager.update(live, step, f"m{n}")
    managers = [e["manager"] for e in live["metadata"]["managedFields"]]
    assert managers == ["ancient-changes", *(f"m{n}" for n in range(3, 12))]
    assert live["metadata"]["managedFields"][0]["fieldsV1"] == {"f:data": {".": {}, "f:k0": {}, "f:k1": {}, "f:k2": {}}}


# -- kubectl's client-side apply ----------------------------------------------------------------------------

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def client_side_applied(manager: FieldManager, config: dict[str, Any]) -> dict[str, Any]:
    obj = deep_copy(config)
    obj["metadata"]["annotations"] = {LAST_APPLIED: go_json(config) + "\n"}
    return stored(manager.update(None, obj, "kubectl-client-side-apply"))


def test_kubectl_may_take_what_its_last_applied_configuration_set() -> None:
    manager = cm_manager()
    live = client_side_applied(manager, cm(x="1"))
    result = manager.apply(live, cm(x="2"), "kubectl")
    assert result["data"] == {"x": "2"}
    assert json.loads(result["metadata"]["annotations"][LAST_APPLIED]) == cm(x="2")
    with pytest.raises(StatusError) as info:
        manager.apply(live, cm(x="2"), "other")
    assert info.value.message == (
        'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.x'
    )


def test_kubectl_may_not_take_what_changed_since_its_last_apply() -> None:
    manager = cm_manager()
    live = client_side_applied(manager, cm(x="1"))
    edited = deep_copy(live)
    edited["data"]["x"] = "9"
    live = manager.update(live, edited, "kubectl-edit")
    with pytest.raises(StatusError) as info:
        manager.apply(live, cm(x="2"), "kubectl")
    assert info.value.message == 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.x'


def upgrade_client_side_apply(live: dict[str, Any]) -> list[dict[str, Any]]:
    """kubectl's csaupgrade: the kubectl Apply entry takes the client-side apply entry's fields."""
    managed = deep_copy(live["metadata"]["managedFields"])
    csa = next(e for e in managed if e["manager"] == "kubectl-client-side-apply" and e["operation"] == "Update")
    ssa = next(e for e in managed if e["manager"] == "kubectl" and e["operation"] == "Apply")
    ssa["fieldsV1"] = Set.from_fields(ssa["fieldsV1"]).union(Set.from_fields(csa["fieldsV1"])).to_fields()
    return [e for e in managed if e is not csa]


def test_migration_from_client_side_apply_as_kubectl_performs_it() -> None:
    manager = cm_manager()
    config = cm(x="1")
    live = client_side_applied(manager, config)
    live = stored(manager.apply(live, config, "kubectl"))
    annotation_only = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "cm",
            "namespace": "ns",
            "annotations": {LAST_APPLIED: live["metadata"]["annotations"][LAST_APPLIED]},
        },
    }
    live = stored(manager.apply(live, annotation_only, "kubectl-last-applied"))
    patched = deep_copy(live)
    patched["metadata"]["managedFields"] = upgrade_client_side_apply(live)
    live = stored(manager.update(live, patched, "kubectl"))
    live = manager.apply(live, config, "kubectl")
    assert entries(live) == [
        ("kubectl", "Apply", "", {"f:data": {"f:x": {}}}),
        (
            "kubectl-last-applied",
            "Apply",
            "",
            {"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}},
        ),
    ]
    assert live["data"] == {"x": "1"}


# -- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "code", "message"),
    [
        pytest.param({"apiVersion": "v1", "kind": "Secret"}, 400, "invalid object type: /v1, Kind=Secret", id="kind"),
        pytest.param(
            {"apiVersion": "a/b/c", "kind": "ConfigMap"}, 400, "invalid object type: /, Kind=", id="bad-api-version"
        ),
        pytest.param(
            cm() | {"metadata": {"name": "cm", "managedFields": []}},
            400,
            "metadata.managedFields must be nil",
            id="managed-fields",
        ),
        pytest.param(
            cm() | {"spec": {}},
            400,
            "failed to create typed patch object (ns/cm; /v1, Kind=ConfigMap): .spec: field not declared in schema",
            id="undeclared-field",
        ),
        pytest.param(
            cm() | {"data": {"a": 1}},
            400,
            "failed to create typed patch object (ns/cm; /v1, Kind=ConfigMap): .data.a: expected string, got 1",
            id="wrong-scalar",
        ),
        pytest.param(
            cm() | {"metadata": {"name": "cm", "namespace": "ns", "generation": "x"}, "data": {"a": []}},
            400,
            "failed to create typed patch object (ns/cm; /v1, Kind=ConfigMap): errors:\n"
            "  .metadata.generation: expected numeric (int or float), got string\n"
            "  .data.a: expected string, got []",
            id="several",
        ),
    ],
)
def test_apply_refuses(config: dict[str, Any], code: int, message: str) -> None:
    with pytest.raises(StatusError) as info:
        cm_manager().apply(None, config, "a")
    assert (info.value.code, info.value.message) == (code, message)


@pytest.mark.parametrize(
    ("containers", "message"),
    [
        pytest.param(
            [{"image": "x"}],
            ".spec.template.spec.containers: element 0: associative list with keys has an element that omits key "
            'field "name" (and doesn\'t have default value)',
            id="missing-key",
        ),
        pytest.param(
            [{"name": "a"}, {"name": "a"}],
            '.spec.template.spec.containers: duplicate entries for key [name="a"]',
            id="duplicate-key",
        ),
    ],
)
def test_apply_refuses_bad_list_items(containers: list[Any], message: str) -> None:
    config = deployment()
    config["spec"]["template"]["spec"]["containers"] = containers
    with pytest.raises(StatusError) as info:
        deploy_manager().apply(None, config, "a")
    assert info.value.message == (f"failed to create typed patch object (ns/web; apps/v1, Kind=Deployment): {message}")


# -- managers and endpoints -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field_manager", "user_agent", "expected"),
    [
        ("mine", "kubectl/v1.36.4 (linux/amd64) kubernetes/abc", "mine"),
        ("", "kubectl/v1.36.4 (linux/amd64) kubernetes/abc", "kubectl"),
        ("", "OpenAPI-Generator/36.0.3/python", "OpenAPI-Generator"),
        ("", "", ""),
        ("", "a\x07b/1", "ab"),
        ("", "x" * 200, "x" * 128),
    ],
)
def test_manager_or_user_agent(field_manager: str, user_agent: str, expected: str) -> None:
    assert manager_or_user_agent(field_manager, user_agent) == expected


def test_update_without_a_manager_name_is_unknown() -> None:
    created = cm_manager().update(None, cm(x="1"), "")
    assert created["metadata"]["managedFields"][0]["manager"] == "unknown"


@pytest.mark.parametrize(
    ("subresource", "with_status", "resets_labels", "expected"),
    [
        ("", True, False, Set.of(("status",))),
        ("", False, False, Set()),
        ("status", True, False, Set.of(("spec",))),
        ("status", True, True, Set.of(("spec",), ("metadata", "labels"))),
    ],
)
def test_reset_fields(subresource: str, with_status: bool, resets_labels: bool, expected: Set) -> None:
    spec = ResourceSpec(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        "deployment",
        True,
        subresources=(SubresourceSpec("status"),) if with_status else (),
    )
    assert reset_fields(spec, subresource, status_resets_labels=resets_labels) == expected


def test_status_apply_owns_only_status() -> None:
    main, status = deploy_manager(), deploy_manager("status")
    live = stored(main.apply(None, deployment(), "a"))
    config = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"x": "y"}}}
    config["status"] = {"replicas": 3}
    config["spec"] = {"replicas": 9}
    result = status.apply(live, config, "controller")
    controller = next(e for e in result["metadata"]["managedFields"] if e["manager"] == "controller")
    assert (controller["subresource"], controller["fieldsV1"]) == ("status", {"f:status": {"f:replicas": {}}})


# -- request decoding -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"", {}),
        (b"null", {}),
        (b'{"a": 1}', {"a": 1}),
        (b"a: 1\nb: [x]\n", {"a": 1, "b": ["x"]}),
    ],
)
def test_decode_configuration(body: bytes, expected: dict[str, Any]) -> None:
    assert decode_configuration(body) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b"- a\n",
            "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into "
            "Go value of type map[string]interface {}",
        ),
        (
            b"a: b: c\n",
            "error decoding YAML: error converting YAML to JSON: yaml: line 1: "
            "mapping values are not allowed in this context",
        ),
    ],
)
def test_decode_configuration_errors(body: bytes, message: str) -> None:
    with pytest.raises(StatusError) as info:
        decode_configuration(body)
    assert (info.value.code, info.value.message) == (400, message)


@pytest.mark.parametrize(
    ("body", "findings"),
    [
        (b"a: 1\nb: 2\n", []),
        (
            b"a: 1\nb:\n  c: 1\n  c: 2\na: 3\n",
            ['line 4: key "c" already set in map', 'line 5: key "a" already set in map'],
        ),
        (b'{"a": 1, "a": 2}', ['line 1: key "a" already set in map']),
    ],
)
def test_duplicate_keys(body: bytes, findings: list[str]) -> None:
    assert duplicate_keys(body) == findings


@pytest.mark.parametrize(("query", "expected"), [({}, False), ({"force": "true"}, True), ({"force": "false"}, False)])
def test_force_param(query: dict[str, str], expected: bool) -> None:
    assert force_param(query) is expected


def test_force_param_refuses_garbage() -> None:
    with pytest.raises(StatusError) as info:
        force_param({"force": "yes"})
    assert info.value.message == 'invalid value for force: "yes": strconv.ParseBool: parsing "yes": invalid syntax'


# -- large associative lists: matched by key, not by scanning -----------------------------------------------


def test_applying_3000_containers_over_3000_others_takes_linear_time() -> None:
    import time

    def deployment(names: range, image: str) -> dict[str, Any]:
        containers = [{"name": f"c{i}", "image": image} for i in names]
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "default"},
            "spec": {"template": {"spec": {"containers": containers}}},
        }

    manager = deploy_manager()
    # CPU time, not wall time: the bound is on the work done, which other processes on a loaded machine
    # do not change
    started = time.process_time()
    live = manager.apply(None, deployment(range(3000), "a"), "first")
    live = manager.apply(live, deployment(range(1500, 4500), "b"), "second", force=True)
    live = manager.apply(live, deployment(range(0), "a"), "first")  # first gives up all it owned
    elapsed = time.process_time() - started
    containers = live["spec"]["template"]["spec"]["containers"]
    # first's items that second never applied are gone; the shared ones are second's now
    assert containers == [{"name": f"c{i}", "image": "b"} for i in range(1500, 4500)]
    assert elapsed < 5, elapsed  # under a second; a scan of the list per item would take minutes
