"""The pod-template hash: FNV-32a, SafeEncodeString, the collisionCount bytes, and go-spew's `%#v` rendering
of the Go v1.PodTemplateSpec that the hash is taken over (field order, types, nil, quantities, int-or-string)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubelite.apimachinery.meta import Obj
from kubelite.controllers.workloads.template_hash import (
    compute_hash,
    fnv32a,
    safe_encode_string,
    spew_template,
)

LAYOUT = Path("kubelite/controllers/workloads/pod_template_layout.json")
PROTOBUF_SCHEMA = Path("kubelite/apimachinery/protobuf/schema.json")

# kube's hash_test.go template (a container with ports, env, resources and probes)
CATS: Obj = {
    "metadata": {"creationTimestamp": None, "labels": {"app": "cats"}},
    "spec": {
        "containers": [
            {
                "name": "cats",
                "image": "registry/test/cats:v0.@@VERSION@@.0",
                "ports": [{"name": "http", "containerPort": 9077, "protocol": "TCP"}],
                "env": [
                    {"name": "DEPLOYMENT_ENVIRONMENT", "value": "cats-stubbed-functional"},
                    {"name": "APP_NAME", "value": "cats"},
                ],
                "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}},
                "livenessProbe": {
                    "httpGet": {"path": "/private/status", "port": 9077, "scheme": "HTTP"},
                    "initialDelaySeconds": 30,
                    "timeoutSeconds": 1,
                    "periodSeconds": 10,
                    "successThreshold": 1,
                    "failureThreshold": 3,
                },
                "terminationMessagePath": "/dev/termination-log",
                "imagePullPolicy": "IfNotPresent",
            }
        ],
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "securityContext": {},
    },
}


def cats(version: int) -> Obj:
    return json.loads(json.dumps(CATS).replace("@@VERSION@@", str(version)))


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", 0x811C9DC5), (b"a", 0xE40C292C), (b"foobar", 0xBF9CF968)],
    ids=["empty", "a", "foobar"],
)
def test_fnv32a_matches_the_reference_vectors(data: bytes, expected: int) -> None:
    assert fnv32a(data) == expected


def test_safe_encode_string_maps_digits_into_the_alphabet() -> None:
    # '0' is 48, 48 % 27 = 21 -> '4'; '6' is 54 -> 0 -> 'b'
    assert safe_encode_string("0123456789") == "456789bcdf"


def test_compute_hash_is_the_encoded_decimal_sum() -> None:
    rendering = spew_template(CATS).encode()
    assert compute_hash(CATS) == safe_encode_string(str(fnv32a(rendering)))
    # collisionCount: the count as a little-endian uint32 and four zero bytes after the rendering
    with_count = fnv32a(rendering + bytes([2, 0, 0, 0, 0, 0, 0, 0]))
    assert compute_hash(CATS, 2) == safe_encode_string(str(with_count))


def test_collision_count_changes_the_hash_zero_included() -> None:
    hashes = {compute_hash(CATS, count) for count in (None, 0, 1, 2)}
    assert len(hashes) == 4


def test_no_collisions_over_a_hundred_image_versions() -> None:
    # kube's TestPodTemplateSpecHashFnv, over fewer versions
    assert len({compute_hash(cats(i)) for i in range(100)}) == 100


def test_the_rendering_opens_with_object_meta_in_go_field_order() -> None:
    assert spew_template({}).startswith(
        "(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) Namespace:(string) "
        "SelfLink:(string) UID:(types.UID) ResourceVersion:(string) Generation:(int64)0 "
        "CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}} "
        "DeletionTimestamp:(*v1.Time)<nil> DeletionGracePeriodSeconds:(*int64)<nil> "
        "Labels:(map[string]string)<nil> Annotations:(map[string]string)<nil> "
        "OwnerReferences:([]v1.OwnerReference)<nil> Finalizers:([]string)<nil> "
        "ManagedFields:([]v1.ManagedFieldsEntry)<nil>} Spec:(v1.PodSpec){Volumes:([]v1.Volume)<nil> "
        "InitContainers:([]v1.Container)<nil> Containers:([]v1.Container)<nil> "
    )


def test_map_keys_are_sorted_and_elements_carry_no_type() -> None:
    rendering = spew_template({"metadata": {"labels": {"b": "2", "a": "1"}}})
    assert "Labels:(map[string]string)map[a:1 b:2] " in rendering
    rendering = spew_template({"metadata": {"finalizers": ["x", "y"]}})
    assert "Finalizers:([]string)[x y] " in rendering


def test_empty_collections_are_nil_as_after_a_protobuf_round_trip() -> None:
    assert spew_template({"metadata": {"labels": {}, "finalizers": []}}) == spew_template({})


def test_pointers_show_their_type_and_value() -> None:
    rendering = spew_template({"spec": {"terminationGracePeriodSeconds": 30, "hostNetwork": True}})
    assert "TerminationGracePeriodSeconds:(*int64)30 ActiveDeadlineSeconds:(*int64)<nil> " in rendering
    assert "HostNetwork:(bool)true " in rendering
    # a pointer to an empty struct is set, not nil
    assert "SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil> " in spew_template(
        {"spec": {"securityContext": {}}}
    )


def _container(**fields: object) -> Obj:
    return {"spec": {"containers": [{"name": "c", **fields}]}}


@pytest.mark.parametrize(
    ("written", "value", "scale", "cached", "fmt"),
    [
        ("100m", 100, -3, "100m", "DecimalSI"),
        ("0.1", 100, -3, "100m", "DecimalSI"),  # the server stores the canonical text
        ("1000m", 1, 0, "1", "DecimalSI"),
        ("1Gi", 1073741824, 0, "1Gi", "BinarySI"),
        # ParseQuantity keeps a binary text only when the mantissa has a low bit set in its last three
        ("1536Mi", 1610612736, 0, "", "BinarySI"),
        ("1e3", 1, 3, "1e3", "DecimalExponent"),
    ],
    ids=["milli", "decimal", "whole", "binary", "binary-mebi", "exponent"],
)
def test_quantities_render_parse_quantitys_internals(
    written: str, value: int, scale: int, cached: str, fmt: str
) -> None:
    rendering = spew_template(_container(resources={"limits": {"cpu": written}}))
    assert (
        f"Limits:(v1.ResourceList)map[cpu:{{i:(resource.int64Amount){{value:(int64){value} "
        f"scale:(resource.Scale){scale}}} d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){cached} "
        f"Format:(resource.Format){fmt}}}] Requests:(v1.ResourceList)<nil>" in rendering
    )


def test_zero_quantity_keeps_its_text() -> None:
    rendering = spew_template(_container(resources={"requests": {"memory": "0"}}))
    assert "map[memory:{i:(resource.int64Amount){value:(int64)0 scale:(resource.Scale)0} " in rendering
    assert "s:(string)0 Format:(resource.Format)DecimalSI}]" in rendering


def test_int_or_string_renders_type_and_both_values() -> None:
    named = spew_template(_container(livenessProbe={"httpGet": {"port": "http"}}))
    assert "Port:(intstr.IntOrString){Type:(intstr.Type)1 IntVal:(int32)0 StrVal:(string)http}" in named
    numbered = spew_template(_container(livenessProbe={"tcpSocket": {"port": 8080}}))
    assert "Port:(intstr.IntOrString){Type:(intstr.Type)0 IntVal:(int32)8080 StrVal:(string)}" in numbered


def test_an_embedded_struct_reads_the_parents_fields() -> None:
    # Probe embeds ProbeHandler, Volume embeds VolumeSource: their JSON fields sit on the parent object
    rendering = spew_template({"spec": {"volumes": [{"name": "v", "emptyDir": {}}]}})
    assert (
        "Volumes:([]v1.Volume)[{Name:(string)v VolumeSource:(v1.VolumeSource){HostPath:(*v1.HostPathVolumeSource)<nil> "
        in rendering
    )
    assert (
        "EmptyDir:(*v1.EmptyDirVolumeSource){Medium:(v1.StorageMedium) SizeLimit:(*resource.Quantity)<nil>}"
        in rendering
    )


def test_equal_templates_hash_equal_and_any_change_hashes_differently() -> None:
    assert compute_hash(cats(1)) == compute_hash(cats(1))
    changed = cats(1)
    changed["spec"]["containers"][0]["env"][1]["value"] = "dogs"
    assert compute_hash(changed) != compute_hash(cats(1))


def test_the_layout_agrees_with_the_protobuf_schema_from_the_same_binary() -> None:
    """Two generators read one kubectl: every layout struct that is also a protobuf message lists the same
    JSON fields in the same Go order (the layout keeps the unexported and inlined ones too)."""
    layout = json.loads(LAYOUT.read_text())
    schema = json.loads(PROTOBUF_SCHEMA.read_text())["messages"]
    assert layout["kubernetesVersion"].startswith("v1.36")
    checked = 0
    for go_name, full in (
        ("v1.PodSpec", "k8s.io.api.core.v1.PodSpec"),
        ("v1.Container", "k8s.io.api.core.v1.Container"),
    ):
        layout_names = [json_name for _, json_name, _ in layout["types"][go_name]["fields"]]
        schema_names = [row[0] for row in schema[full]]
        assert layout_names == schema_names
        checked += len(layout_names)
    assert checked > 60
