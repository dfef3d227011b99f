"""The schema model: definitions compiled once into typed nodes, references resolved to shared nodes, cycles
closed, extensions read, and a registry by group/version/kind that takes a custom resource's schema while
the server runs, which every layer (field validation, apply, strategic merge) then uses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from kubelite.apimachinery.apply.schema import DEDUCED, NUMERIC, STRING
from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.patch.strategic import apply_strategic_merge_patch
from kubelite.apimachinery.schema import NO_DEFAULT, SchemaRegistry, SchemaSet, builtin_set, is_dangling, registry
from kubelite.endpoints.handlers import field_validation
from kubelite.endpoints.handlers.apply_schema import field_manager, root_node
from kubelite.endpoints.handlers.patch_schema import default_lookup, schema_for
from kubelite.registry.spec import ResourceSpec

# -- references and cycles -----------------------------------------------------------------------------


def test_references_resolve_to_one_shared_definition_node() -> None:
    pod = builtin_set().definition("io.k8s.api.core.v1.Pod")
    deployment_spec = builtin_set().definition("io.k8s.api.apps.v1.DeploymentSpec")
    assert pod is not None and deployment_spec is not None
    template_spec = deployment_spec.property("template")
    assert template_spec is not None
    pod_spec_from_pod = pod.property("spec")
    pod_spec_from_template = template_spec.target.property("spec")
    assert pod_spec_from_pod is not None and pod_spec_from_template is not None
    assert pod_spec_from_pod.target is pod_spec_from_template.target
    assert pod_spec_from_pod.target.name == "io.k8s.api.core.v1.PodSpec"
    assert builtin_set().definition("io.k8s.api.core.v1.Pod") is pod  # compiled once


def test_a_definition_that_contains_itself_is_one_node() -> None:
    props = builtin_set().definition("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps")
    assert props is not None
    nested = props.property("properties")
    assert nested is not None and nested.additional is not None
    assert nested.additional.target is props
    not_ = props.property("not")
    assert not_ is not None and not_.target is props


DEFINITIONS: dict[str, dict[str, Any]] = {
    "Node": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": ["string", "null"], "default": "root", "enum": ["root", "leaf"]},
            "next": {"$ref": "#/$defs/Node", "x-kubernetes-map-type": "atomic", "description": "beside"},
            "children": {
                "type": "array",
                "items": {"$ref": "#/definitions/Node"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "name",
            },
            "wrapped": {"allOf": [{"$ref": "#/components/schemas/Leaf"}], "description": "v3 style"},
            "missing": {"$ref": "#/$defs/Nowhere"},
        },
    },
    "Leaf": {
        "type": "object",
        "x-kubernetes-map-type": "granular",
        "x-kubernetes-preserve-unknown-fields": True,
        "x-kubernetes-embedded-resource": True,
        "additionalProperties": False,
        "properties": {
            "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "count": {"type": "integer", "format": "int32", "nullable": True},
        },
    },
}


def test_every_reference_flavour_and_the_siblings_beside_it() -> None:
    schemas = SchemaSet(DEFINITIONS)
    node = schemas.definition("Node")
    leaf = schemas.definition("Leaf")
    assert node is not None and leaf is not None
    properties = node.properties or {}
    assert properties["next"].ref is node and properties["next"].target is node
    assert (properties["next"].map_type, properties["next"].source["description"]) == ("atomic", "beside")
    assert node.map_type == ""  # the sibling stays at the use site
    children = properties["children"]
    assert children.items is not None and children.items.target is node
    assert properties["wrapped"].target is leaf
    missing = properties["missing"].target
    assert is_dangling(missing) and missing.name == "Nowhere"
    assert schemas.references("Node") == {"Node", "Leaf", "Nowhere"}


def test_keywords_and_extensions() -> None:
    schemas = SchemaSet(DEFINITIONS)
    node = schemas.definition("Node")
    leaf = schemas.definition("Leaf")
    assert node is not None and leaf is not None
    name = (node.properties or {})["name"]
    assert (name.types, name.nullable, name.default) == (frozenset({"string"}), True, "root")
    assert name.enum == ("root", "leaf")
    assert node.required == ("name",)
    children = (node.properties or {})["children"]
    assert (children.types, children.list_type, children.list_map_keys) == (frozenset({"array"}), "map", ("name",))
    assert (children.patch_strategy, children.patch_merge_key) == ("merge", "name")
    assert (leaf.map_type, leaf.preserve_unknown_fields, leaf.embedded_resource) == ("granular", True, True)
    assert (leaf.additional, leaf.additional_allowed) == (None, False)
    port = (leaf.properties or {})["port"]
    assert (port.int_or_string, port.composite, port.types) == (True, True, frozenset({"integer", "string"}))
    count = (leaf.properties or {})["count"]
    assert (count.format, count.nullable, count.default) == ("int32", True, NO_DEFAULT)
    assert not count.has_default


# -- the registry: built-in kinds, and schemas that arrive at run time --------------------------------------

GROUP, VERSION, KIND = "stable.example.com", "v1", "CronTab"
CRONTABS = ResourceSpec(GROUP, VERSION, "crontabs", KIND, "crontab", True)

#: a CustomResourceDefinition's structural schema, as a CRD version carries it
CRONTAB_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "properties": {
                "cronSpec": {"type": "string"},
                "replicas": {"type": "integer", "format": "int32"},
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name"],
                    "x-kubernetes-patch-strategy": "merge",
                    "x-kubernetes-patch-merge-key": "name",
                    "items": {
                        "type": "object",
                        "required": ["name"],
                        "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                    },
                },
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        },
    },
}


@pytest.fixture
def crontab() -> Iterator[None]:
    registry().add(GROUP, VERSION, KIND, CRONTAB_SCHEMA)
    try:
        yield
    finally:
        registry().remove(GROUP, VERSION, KIND)


def test_builtin_kinds_are_found_by_group_version_kind() -> None:
    model = registry().model("apps", "v1", "Deployment")
    assert model is not None and model.name == "io.k8s.api.apps.v1.Deployment"
    assert registry().model(GROUP, VERSION, KIND) is None


def test_a_schema_added_at_run_time_is_a_model_like_any_other(crontab: None) -> None:
    model = registry().model(GROUP, VERSION, KIND)
    assert model is not None
    spec = model.property("spec")
    assert spec is not None
    replicas = spec.property("replicas")
    assert replicas is not None and (replicas.types, replicas.format) == (frozenset({"integer"}), "int32")
    assert registry().added() == [(GROUP, VERSION, KIND)]


def test_field_validation_prunes_and_checks_against_an_added_schema(crontab: None) -> None:
    obj = {"spec": {"cronSpec": "* * * * */5", "nope": 1, "extra": {"kept": True}}}
    assert field_validation.prune_unknown_fields(CRONTABS, obj) == ["spec.nope"]
    assert obj == {"spec": {"cronSpec": "* * * * */5", "extra": {"kept": True}}}
    with pytest.raises(StatusError, match="cannot unmarshal number 2147483648 into Go struct field"):
        field_validation.check(CRONTABS, {"spec": {"replicas": 2**31}}, b"", None, False)


def test_apply_and_strategic_merge_read_an_added_schema(crontab: None) -> None:
    node = root_node(GROUP, VERSION, KIND)
    assert node.map is not None
    spec = node.map.fields["spec"]
    assert spec.map is not None
    ports = spec.map.fields["ports"].list
    assert ports is not None and (ports.atomic, ports.keys) == (False, ("name",))
    assert spec.map.fields["replicas"].scalar == NUMERIC
    assert spec.map.fields["cronSpec"].scalar == STRING

    original = {"spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}}
    patch = {"spec": {"ports": [{"name": "b", "port": 3}]}}
    merged = apply_strategic_merge_patch(original, patch, schema_for(GROUP, VERSION, KIND), default_lookup())
    assert merged == {"spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 3}]}}


def test_a_removed_schema_is_gone() -> None:
    registry().add(GROUP, VERSION, KIND, CRONTAB_SCHEMA)
    assert registry().remove(GROUP, VERSION, KIND) is True
    assert registry().remove(GROUP, VERSION, KIND) is False
    assert registry().model(GROUP, VERSION, KIND) is None
    assert root_node(GROUP, VERSION, KIND) is DEDUCED
    obj = {"spec": {"anything": 1}}
    assert field_validation.prune_unknown_fields(CRONTABS, obj) == []


def test_an_added_schema_shadows_a_builtin_one_until_removed() -> None:
    own = SchemaRegistry()
    builtin = own.model("", "v1", "ConfigMap")
    added = own.add("", "v1", "ConfigMap", {"type": "object", "properties": {"data": {"type": "object"}}})
    assert own.model("", "v1", "ConfigMap") is added and added is not builtin
    own.remove("", "v1", "ConfigMap")
    assert own.model("", "v1", "ConfigMap") is builtin


def test_an_added_schema_may_refer_to_builtin_and_own_definitions() -> None:
    own = SchemaRegistry()
    model = own.add(
        GROUP,
        VERSION,
        KIND,
        {
            "type": "object",
            "properties": {
                "metadata": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                "spec": {"$ref": "#/definitions/Spec"},
            },
            "definitions": {"Spec": {"type": "object", "properties": {"size": {"type": "integer"}}}},
        },
    )
    metadata = model.property("metadata")
    assert metadata is not None and metadata.target is builtin_set().definition(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    )
    spec = model.property("spec")
    assert spec is not None and spec.target.name == "Spec"
    size = spec.property("size")
    assert size is not None and size.types == frozenset({"integer"})


def test_a_replaced_schema_gets_a_field_manager_of_its_own() -> None:
    registry().add(GROUP, VERSION, KIND, CRONTAB_SCHEMA)
    try:
        first = field_manager(CRONTABS)
        assert field_manager(CRONTABS) is first
        registry().add(GROUP, VERSION, KIND, {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
        assert field_manager(CRONTABS) is not first
    finally:
        registry().remove(GROUP, VERSION, KIND)


def test_a_schema_must_be_an_object() -> None:
    with pytest.raises(TypeError, match=re.escape("the schema of CronTab.v1.stable.example.com must be an object")):
        SchemaRegistry().add(GROUP, VERSION, KIND, [])  # type: ignore[arg-type]
