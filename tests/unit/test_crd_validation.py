"""CRD validation against kube's rules and words: one table row per rule, asserting the exact error lines."""

from __future__ import annotations

import base64
import copy
from collections.abc import Callable
from typing import Any

import pytest

from kubelite.apiextensions.validation import is_structural, validate_crd, validate_crd_status, validate_crd_update
from kubelite.apimachinery.validation import FieldError

Obj = dict[str, Any]


def typical_crd() -> Obj:
    """A kubebuilder-style CRD: status and scale, printer columns, list types, int-or-string, preserve-unknown."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {
                "plural": "widgets",
                "singular": "widget",
                "kind": "Widget",
                "listKind": "WidgetList",
                "shortNames": ["wd"],
                "categories": ["all"],
            },
            "conversion": {"strategy": "None"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {
                        "status": {},
                        "scale": {
                            "specReplicasPath": ".spec.replicas",
                            "statusReplicasPath": ".status.replicas",
                            "labelSelectorPath": ".status.selector",
                        },
                    },
                    "additionalPrinterColumns": [
                        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "selectableFields": [{"jsonPath": ".spec.color"}],
                    "schema": {"openAPIV3Schema": _schema()},
                }
            ],
        },
        "status": {"storedVersions": ["v1"], "acceptedNames": {"plural": "", "kind": ""}},
    }


def _schema() -> Obj:
    return {
        "type": "object",
        "description": "Widget is a test kind.",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {
                "type": "object",
                "required": ["color"],
                "properties": {
                    "color": {"type": "string", "enum": ["red", "blue"]},
                    "replicas": {"type": "integer", "format": "int32", "default": 1, "minimum": 0},
                    "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "ports": {
                        "type": "array",
                        "x-kubernetes-list-type": "map",
                        "x-kubernetes-list-map-keys": ["name"],
                        "items": {
                            "type": "object",
                            "required": ["name"],
                            "properties": {"name": {"type": "string"}, "port": {"type": "integer"}},
                        },
                    },
                    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                    "template": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "x-kubernetes-preserve-unknown-fields": True,
                    },
                },
                "x-kubernetes-validations": [
                    {
                        "rule": "self.replicas >= 0",
                        "message": "negative",
                        "reason": "FieldValueInvalid",
                        "fieldPath": ".replicas",
                    }
                ],
            },
            "status": {
                "type": "object",
                "properties": {
                    "replicas": {"type": "integer"},
                    "selector": {"type": "string"},
                    "conditions": {
                        "type": "array",
                        "items": {"type": "object", "x-kubernetes-map-type": "atomic"},
                    },
                },
            },
        },
    }


def lines(errors: list[FieldError]) -> list[str]:
    return [str(e) for e in errors]


def test_typical_crd_is_valid() -> None:
    assert lines(validate_crd(typical_crd())) == []


def test_typical_crd_update_is_valid() -> None:
    old = typical_crd()
    old["status"]["conditions"] = [{"type": "Established", "status": "True"}]
    assert lines(validate_crd_update(typical_crd(), old)) == []


def _v(crd: Obj) -> Obj:
    return crd["spec"]["versions"][0]


def _spec_props(crd: Obj) -> Obj:
    return _v(crd)["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]


def _root(crd: Obj) -> Obj:
    return _v(crd)["schema"]["openAPIV3Schema"]


SP = "spec.validation.openAPIV3Schema.properties[spec].properties"

Mutation = Callable[[Obj], Any]

CASES: list[tuple[str, Mutation, list[str]]] = [
    (
        "name-rule",
        lambda c: c["metadata"].update(name="gadgets.example.com"),
        ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group'],
    ),
    (
        "group-needs-a-dot",
        lambda c: (c["spec"].update(group="example"), c["metadata"].update(name="widgets.example")),
        ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
    ),
    (
        "group-subdomain",
        lambda c: (c["spec"].update(group="Example.com"), c["metadata"].update(name="widgets.Example.com")),
        [
            'spec.group: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case'
            " alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g."
            " 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
            "[a-z0-9])?)*')"
        ],
    ),
    (
        "scope",
        lambda c: c["spec"].update(scope="Global"),
        ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
    ),
    ("scope-required", lambda c: c["spec"].pop("scope"), ["spec.scope: Required value"]),
    (
        "kind-mixed-case",
        lambda c: c["spec"]["names"].update(kind="Wid_get", listKind="Wid_getList"),
        [
            'spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035'
            " label must consist of lower case alphanumeric characters or '-', start with an alphabetic character,"
            " and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is"
            " '[a-z]([-a-z0-9]*[a-z0-9])?')",
            'spec.names.listKind: Invalid value: "Wid_getList": may have mixed case, but should otherwise match: a'
            " DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic"
            " character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for"
            " validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ],
    ),
    (
        "kind-equals-listkind",
        lambda c: c["spec"]["names"].update(listKind="Widget"),
        ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same'],
    ),
    (
        "short-name",
        lambda c: c["spec"]["names"].update(shortNames=["w1", "9w"]),
        [
            'spec.names.shortNames[1]: Invalid value: "9w": a DNS-1035 label must consist of lower case alphanumeric'
            " characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g."
            " 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
        ],
    ),
    (
        "plural-required",
        lambda c: c["spec"]["names"].update(plural=""),
        [
            'metadata.name: Invalid value: "widgets.example.com": must be spec.names.plural+"."+spec.group',
            "spec.names.plural: Required value",
        ],
    ),
    (
        "no-storage-version",
        lambda c: _v(c).update(storage=False),
        [
            'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,'
            '"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,'
            '"SelectableFields":null}]: must have exactly one version marked as storage version'
        ],
    ),
    (
        "version-name",
        lambda c: (_v(c).update(name="V1"), c["status"].update(storedVersions=["V1"])),
        [
            'spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric'
            " characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g."
            " 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            'spec.version: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric'
            " characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g."
            " 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ],
    ),
    (
        "deprecation-warning-not-deprecated",
        lambda c: _v(c).update(deprecationWarning="old"),
        ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
    ),
    (
        "deprecation-warning-too-long",
        lambda c: _v(c).update(deprecated=True, deprecationWarning="x" * 257),
        [f'spec.versions[0].deprecationWarning: Invalid value: "{"x" * 257}": must be <= 256 characters long'],
    ),
    (
        "schema-required",
        lambda c: _v(c).pop("schema"),
        [
            "spec.versions[0].schema.openAPIV3Schema: Required value",
            # one version: its selectableFields are the internal top-level ones
            'spec.selectableFields: Invalid value: "": may only be set when validations.schema is included',
        ],
    ),
    (
        "printer-column-type-and-format",
        lambda c: _v(c)["additionalPrinterColumns"].append(
            {"name": "X", "type": "int", "format": "uuid", "jsonPath": "spec.x"}
        ),
        [
            'spec.additionalPrinterColumns[2].type: Invalid value: "int": must be one of'
            " boolean,date,integer,number,string",
            'spec.additionalPrinterColumns[2].format: Invalid value: "uuid": must be one of'
            " byte,date,date-time,double,float,int32,int64,password",
            'spec.additionalPrinterColumns[2].JSONPath: Invalid value: "spec.x": must be a simple json path'
            " starting with .",
        ],
    ),
    (
        "printer-column-required",
        lambda c: _v(c)["additionalPrinterColumns"].append({}),
        [
            "spec.additionalPrinterColumns[2].name: Required value",
            "spec.additionalPrinterColumns[2].type: Required value: must be one of boolean,date,integer,number,string",
            "spec.additionalPrinterColumns[2].JSONPath: Required value",
        ],
    ),
    (
        "scale-paths",
        lambda c: _v(c)["subresources"]["scale"].update(
            specReplicasPath=".status.replicas", statusReplicasPath="status.replicas", labelSelectorPath=".selector"
        ),
        [
            'spec.subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path'
            " under .spec",
            'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path'
            " starting with .",
            'spec.subresources.scale.labelSelectorPath: Invalid value: ".selector": should be a json path under either'
            " .spec or .status",
        ],
    ),
    (
        "selectable-field-type",
        lambda c: _v(c)["selectableFields"].extend([{"jsonPath": ".spec.extra"}, {"jsonPath": ".spec.color"}]),
        [
            'spec.selectableFields[1].jsonPath: Invalid value: ".spec.extra": must point to a field of type string,'
            " boolean or integer. Enum string fields and strings with formats are allowed.",
            'spec.selectableFields[2].jsonPath: Duplicate value: ".spec.color"',
        ],
    ),
    (
        "selectable-field-path",
        lambda c: _v(c)["selectableFields"].extend(
            [{"jsonPath": ".spec.nope"}, {"jsonPath": ".metadata.name"}, {"jsonPath": ".spec['color']"}]
        ),
        [
            'spec.selectableFields[1].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a'
            " valid field",
            'spec.selectableFields[2].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer'
            " to a valid field",
            "spec.selectableFields[3].jsonPath: Invalid value: \".spec['color']\": is an invalid path: array notation"
            " is not allowed",
        ],
    ),
    (
        "too-many-selectable-fields",
        lambda c: (
            _spec_props(c).update({f"f{i}": {"type": "string"} for i in range(9)}),
            _v(c).update(selectableFields=[{"jsonPath": f".spec.f{i}"} for i in range(9)]),
        ),
        ["spec.selectableFields: Too many: 9: must have at most 8 items"],
    ),
    (
        "webhook-needs-config",
        lambda c: c["spec"].update(conversion={"strategy": "Webhook"}),
        [
            "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
            "spec.conversion.conversionReviewVersions: Required value",
        ],
    ),
    (
        "webhook-url",
        lambda c: c["spec"].update(
            conversion={
                "strategy": "Webhook",
                "webhook": {
                    "conversionReviewVersions": ["v2", "v2"],
                    "clientConfig": {"url": "http://u:p@example.com/x?a=b#frag"},
                },
            }
        ),
        [
            "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme;"
            " desired format: https://host[/path]",
            'spec.conversion.webhookClientConfig.url: Invalid value: "u:p": user information is not permitted in'
            " the URL",
            'spec.conversion.webhookClientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
            'spec.conversion.webhookClientConfig.url: Invalid value: "a=b": query parameters are not permitted'
            " in the URL",
            'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
            'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of'
            " v1, v1beta1",
        ],
    ),
    (
        "webhook-service",
        lambda c: c["spec"].update(
            conversion={
                "strategy": "Webhook",
                "webhook": {
                    "conversionReviewVersions": ["v1"],
                    "clientConfig": {"service": {"name": "", "namespace": "ns", "port": 0, "path": "/a//B"}},
                },
            }
        ),
        [
            "spec.conversion.webhookClientConfig.service.name: Required value",
            "spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1"
            " and 65535, inclusive",
            'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty',
            'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[2]: a lowercase RFC'
            " 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end"
            " with an alphanumeric character (e.g. 'example.com', regex used for validation is"
            " '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ],
    ),
    (
        "webhook-both-url-and-service",
        lambda c: c["spec"].update(
            conversion={
                "strategy": "Webhook",
                "webhook": {
                    "conversionReviewVersions": ["v1"],
                    "clientConfig": {"url": "https://a", "service": {"name": "s", "namespace": "n"}},
                },
            }
        ),
        ["spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required"],
    ),
    (
        "none-strategy-with-webhook",
        lambda c: c["spec"].update(
            conversion={
                "strategy": "None",
                "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://a"}},
            }
        ),
        [
            "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
            "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to"
            " Webhook",
        ],
    ),
    (
        "preserve-unknown-fields-true",
        lambda c: c["spec"].update(preserveUnknownFields=True),
        [
            "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema",
            "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set"
            " x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ],
    ),
    (
        "forbidden-keywords",
        lambda c: _spec_props(c).update(
            bad={
                "type": "null",
                "uniqueItems": True,
                "id": "x",
                "additionalItems": False,
                "patternProperties": {"a": {}},
                "definitions": {"d": {"type": "string"}},
                "dependencies": {"a": ["b"]},
            }
        ),
        [
            f'{SP}[bad].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number",'
            ' "object", "string"',
            f"{SP}[bad].id: Forbidden: id is not supported",
            f"{SP}[bad].additionalItems: Forbidden: additionalItems is not supported",
            f"{SP}[bad].patternProperties: Forbidden: patternProperties is not supported",
            f"{SP}[bad].definitions: Forbidden: definitions is not supported",
            f"{SP}[bad].dependencies: Forbidden: dependencies is not supported",
            f"{SP}[bad].type: Forbidden: type cannot be set to null, use nullable as an alternative",
            f"{SP}[bad].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes"
            " quadratic",
            # the selectable fields are resolved against the schema, which cannot be read as a structural one
            "spec.schema.openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema 'id' is not supported",
        ],
    ),
    (
        "ref",
        lambda c: _spec_props(c).update(bad={"type": "string", "$ref": "#/definitions/x"}),
        [
            f"{SP}[bad].$ref: Forbidden: $ref is not supported",
            "spec.schema.openAPIV3Schema: Invalid value: \"\": OpenAPIV3Schema '$ref' is not supported",
        ],
    ),
    (
        "properties-and-additional-properties",
        lambda c: _spec_props(c).update(
            bad={"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}
        ),
        [f"{SP}[bad].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"],
    ),
    (
        "type-required",
        lambda c: _spec_props(c).update(bad={"description": "no type"}, items={"type": "array", "items": {}}),
        [
            f"{SP}[bad].type: Required value: must not be empty for specified object fields",
            f"{SP}[items].items.type: Required value: must not be empty for specified array items",
        ],
    ),
    (
        "array-needs-items",
        lambda c: _spec_props(c).update(bad={"type": "array"}),
        [f"{SP}[bad].items: Required value: must be specified"],
    ),
    (
        "root-type",
        lambda c: _root(c).update(type="array", items={"type": "string"}),
        [
            'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the'
            " root of the schema if the status subresource is enabled",
            'spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
        ],
    ),
    (
        "nullable-root",
        lambda c: (_v(c)["subresources"].pop("status"), _root(c).update(nullable=True)),
        ["spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root"],
    ),
    (
        "value-validation-not-structural",
        lambda c: _spec_props(c).update(
            bad={"type": "string", "anyOf": [{"type": "string", "default": "x", "description": "d"}]}
        ),
        [
            f"{SP}[bad].anyOf[0].default: Forbidden: must be undefined to be structural",
            f"{SP}[bad].anyOf[0].description: Forbidden: must be empty to be structural",
            f"{SP}[bad].anyOf[0].type: Forbidden: must be empty to be structural",
        ],
    ),
    (
        "value-validation-completeness",
        # kube checks completeness from the root's junctors down
        lambda c: (_v(c)["subresources"].pop("status"), _root(c).update(allOf=[{"properties": {"b": {}}}])),
        [
            "spec.validation.openAPIV3Schema.properties[b]: Required value: because it is defined in"
            " spec.validation.openAPIV3Schema.allOf[0].properties[b]"
        ],
    ),
    (
        "metadata-at-root",
        lambda c: _root(c)["properties"].update(
            metadata={"type": "object", "properties": {"name": {"type": "string"}, "labels": {"type": "object"}}}
        ),
        [
            "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than"
            " name and generateName, but metadata is implicitly specified"
        ],
    ),
    (
        "default-in-metadata",
        lambda c: _root(c)["properties"].update(metadata={"type": "object", "default": {}}),
        [
            "spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in"
            " top-level metadata"
        ],
    ),
    (
        "int-or-string-with-preserve",
        lambda c: _spec_props(c)["port"].update({"x-kubernetes-preserve-unknown-fields": True}),
        [
            f"{SP}[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if"
            " x-kubernetes-int-or-string is true"
        ],
    ),
    (
        "preserve-unknown-false",
        lambda c: _spec_props(c)["extra"].update({"x-kubernetes-preserve-unknown-fields": False}),
        [
            f"{SP}[extra].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
            "spec.schema.openAPIV3Schema: Invalid value: \"\": internal error: 'x-kubernetes-preserve-unknown-fields'"
            " must be true or undefined",
        ],
    ),
    (
        "embedded-resource-not-object",
        lambda c: _spec_props(c)["template"].update(type="string"),
        [f'{SP}[template].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true'],
    ),
    (
        "list-map-keys",
        lambda c: _spec_props(c)["ports"].update({"x-kubernetes-list-map-keys": ["port", "proto"]}),
        [
            f'{SP}[ports].x-kubernetes-list-map-keys: Invalid value: ["port","proto"]: entries must all be names of'
            " item properties",
            f"{SP}[ports].items.properties[port].default: Required value: this property is in"
            " x-kubernetes-list-map-keys, so it must have a default or be a required property",
        ],
    ),
    (
        "list-type-on-object",
        lambda c: _spec_props(c)["labels"].update({"x-kubernetes-list-type": "bag"}),
        [
            f'{SP}[labels].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified',
            f'{SP}[labels].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
        ],
    ),
    (
        "set-of-objects-must-be-atomic",
        lambda c: _spec_props(c)["tags"].update(items={"type": "object"}),
        [
            f"{SP}[tags].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with"
            " x-kubernetes-list-type=set"
        ],
    ),
    (
        "map-type",
        lambda c: _spec_props(c)["color"].update({"x-kubernetes-map-type": "tree"}),
        [
            f'{SP}[color].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified',
            f'{SP}[color].x-kubernetes-map-type: Unsupported value: "tree": supported values: "atomic", "granular"',
        ],
    ),
    (
        "validation-rule-shape",
        lambda c: _v(c)["schema"]["openAPIV3Schema"]["properties"]["spec"].update(
            {
                "x-kubernetes-validations": [
                    {"rule": " "},
                    {"rule": "a\nb"},
                    {"rule": "true", "message": "a\nb", "reason": "Bogus", "fieldPath": ".nope"},
                    {"rule": "true", "messageExpression": " "},
                ]
            }
        ),
        [
            f"{SP[:-11]}.x-kubernetes-validations[0].rule: Required value: rule is not specified",
            f"{SP[:-11]}.x-kubernetes-validations[1].message: Required value: message must be specified if rule"
            " contains line breaks",
            f'{SP[:-11]}.x-kubernetes-validations[2].message: Invalid value: "a\\nb": must not contain line breaks',
            f'{SP[:-11]}.x-kubernetes-validations[2].reason: Unsupported value: "Bogus": supported values:'
            ' "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
            f'{SP[:-11]}.x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": must be a valid path',
            f"{SP[:-11]}.x-kubernetes-validations[3].messageExpression: Required value: messageExpression must be"
            " non-empty if specified",
        ],
    ),
    (
        "stored-versions-missing-storage",
        lambda c: c["status"].update(storedVersions=["v0"]),
        [
            'status.storedVersions: Invalid value: ["v0"]: must have the storage version v1',
            'status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage'
            " version, and must remain in spec.versions until a storage migration ensures no data remains persisted"
            " in v0 and removes v0 from status.storedVersions",
        ],
    ),
    (
        "accepted-names",
        lambda c: c["status"].update(acceptedNames={"plural": "Widgets", "kind": "Widget", "listKind": "Widget"}),
        [
            'status.acceptedNames.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case'
            " alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric"
            " character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            'status.acceptedNames.listKind: Invalid value: "Widget": kind and listKind may not be the same',
        ],
    ),
    (
        "protected-group-needs-approval",
        lambda c: (c["spec"].update(group="example.k8s.io"), c["metadata"].update(name="widgets.example.k8s.io")),
        [
            "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval"
            ' annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'
        ],
    ),
    (
        "pattern",
        lambda c: _spec_props(c)["color"].update(pattern="(a"),
        [
            f'{SP}[color].pattern: Invalid value: "(a": must be a valid regular expression, but isn\'t: error parsing'
            " regexp: missing closing ): `(a`"
        ],
    ),
]


MORE_CASES: list[tuple[str, Mutation, list[str]]] = [
    (
        "embedded-without-properties",
        lambda c: _spec_props(c).update(inner={"type": "object", "x-kubernetes-embedded-resource": True}),
        [
            f"{SP}[inner].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true"
            " without x-kubernetes-preserve-unknown-fields"
        ],
    ),
    (
        "embedded-kind-must-be-string",
        lambda c: _spec_props(c)["template"].update(properties={"kind": {"type": "integer"}}),
        [f'{SP}[template].properties[kind].type: Invalid value: "integer": must be string'],
    ),
    (
        "embedded-inside-meta",
        lambda c: _root(c)["properties"].update(
            kind={
                "type": "string",
                "x-kubernetes-embedded-resource": True,
                "x-kubernetes-preserve-unknown-fields": True,
            }
        ),
        [
            'spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: "string": must be object if'
            " x-kubernetes-embedded-resource is true",
            "spec.validation.openAPIV3Schema.properties[kind].x-kubernetes-embedded-resource: Forbidden: must not be"
            " used inside of resource meta",
        ],
    ),
    (
        "int-or-string-embedded",
        lambda c: _spec_props(c)["port"].update({"x-kubernetes-embedded-resource": True}),
        [
            # structural errors come sorted by their text
            f"{SP}[port].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true"
            " without x-kubernetes-preserve-unknown-fields",
            f"{SP}[port].type: Required value: must be object if x-kubernetes-embedded-resource is true",
            f"{SP}[port].x-kubernetes-embedded-resource: Invalid value: true: must be false if"
            " x-kubernetes-int-or-string is true",
        ],
    ),
    (
        "additional-properties-at-root",
        lambda c: (_v(c)["subresources"].pop("status"), _root(c).update(additionalProperties=False)),
        [
            "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root",
            "spec.validation.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties are"
            " mutual exclusive",
        ],
    ),
    (
        "metadata-in-nested-context",
        lambda c: (_v(c)["subresources"].pop("status"), _root(c).update(anyOf=[{"properties": {"metadata": {}}}])),
        [
            "spec.validation.openAPIV3Schema.anyOf[0].properties[metadata]: Forbidden: must not be specified in a"
            " nested context"
        ],
    ),
    (
        "default-in-metadata-additional-properties",
        lambda c: _root(c)["properties"].update(
            metadata={"type": "object", "additionalProperties": {"type": "string", "default": "x"}}
        ),
        [
            "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than"
            " name and generateName, but metadata is implicitly specified",
            "spec.validation.openAPIV3Schema.properties[metadata].additionalProperties.default: Forbidden: must not"
            " be set inside additionalProperties applying to object metadata",
        ],
    ),
    (
        "list-map-items-not-object",
        lambda c: _spec_props(c)["ports"].update(items={"type": "string"}),
        [
            f'{SP}[ports].items.type: Invalid value: "string": must be object if parent array\'s'
            " x-kubernetes-list-type is map"
        ],
    ),
    (
        "list-map-key-not-scalar",
        lambda c: _spec_props(c)["ports"]["items"]["properties"].update(name={"type": "object"}),
        [
            f'{SP}[ports].items.properties[name].type: Invalid value: "object": must be a scalar type if parent'
            " array's x-kubernetes-list-type is map"
        ],
    ),
    (
        "list-map-keys-without-list-type",
        lambda c: _spec_props(c)["tags"].update({"x-kubernetes-list-map-keys": ["a"], "x-kubernetes-list-type": None}),
        [f"{SP}[tags].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"],
    ),
    (
        "list-map-without-keys",
        lambda c: _spec_props(c)["ports"].pop("x-kubernetes-list-map-keys"),
        [f"{SP}[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"],
    ),
    (
        "set-items-nullable",
        lambda c: _spec_props(c)["tags"]["items"].update(nullable=True),
        [f"{SP}[tags].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set"],
    ),
    (
        "map-key-nullable",
        lambda c: _spec_props(c)["ports"]["items"]["properties"]["name"].update(nullable=True),
        [
            f"{SP}[ports].items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys,"
            " so it cannot be nullable"
        ],
    ),
    (
        "set-of-sets",
        lambda c: _spec_props(c)["tags"].update(
            items={"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}
        ),
        [
            f'{SP}[tags].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with'
            " x-kubernetes-list-type=set"
        ],
    ),
    (
        "conversion-strategy",
        lambda c: c["spec"].update(conversion={"strategy": "Magic"}),
        [
            'spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"',
        ],
    ),
    (
        "conversion-strategy-required",
        lambda c: c["spec"].update(conversion={}),
        ["spec.conversion.strategy: Required value"],
    ),
    (
        "conversion-review-version-name",
        lambda c: c["spec"].update(
            conversion={
                "strategy": "Webhook",
                "webhook": {"conversionReviewVersions": ["v1", "V2"], "clientConfig": {"url": "https://a"}},
            }
        ),
        [
            'spec.conversion.conversionReviewVersions[1]: Invalid value: "V2": a DNS-1035 label must consist of lower'
            " case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric"
            " character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
        ],
    ),
    (
        "webhook-with-preserve-unknown-fields",
        lambda c: (
            c["spec"].update(
                preserveUnknownFields=True,
                conversion={
                    "strategy": "Webhook",
                    "webhook": {"conversionReviewVersions": ["v1"], "clientConfig": {"url": "https://a"}},
                },
            ),
            _spec_props(c)["replicas"].pop("default"),
        ),
        [
            'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
            "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set"
            " x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ],
    ),
    (
        "deprecation-warning-non-printable",
        lambda c: _v(c).update(deprecated=True, deprecationWarning="é\tx"),
        [
            'spec.versions[0].deprecationWarning: Invalid value: "é\\tx": must only contain printable UTF-8'
            " characters; non-printable character found at index 2"
        ],
    ),
]
CASES += MORE_CASES


def test_duplicate_version_names() -> None:
    crd = typical_crd()
    crd["spec"]["versions"].append({"name": "v1", "served": True, "storage": False})
    errs = lines(validate_crd(crd))
    assert errs[0] == "spec.versions[1].schema.openAPIV3Schema: Required value"
    # the versions differ, so each keeps its own fields, printed in full
    assert errs[1].startswith(
        'spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,'
        '"DeprecationWarning":null,"Schema":{"OpenAPIV3Schema":{"ID":"","Schema":"","Ref":null,'
        '"Description":"Widget is a test kind.","Type":"object",'
    )
    assert errs[1].endswith(
        '{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,'
        '"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must contain unique version'
        " names"
    )
    assert len(errs) == 2


@pytest.mark.parametrize(("mutate", "expected"), [(m, e) for _, m, e in CASES], ids=[name for name, _, _ in CASES])
def test_rule(mutate: Mutation, expected: list[str]) -> None:
    crd = typical_crd()
    mutate(crd)
    assert lines(validate_crd(crd)) == expected


def test_root_keyword_with_status_prints_the_internal_schema() -> None:
    crd = typical_crd()
    version = _v(crd)
    version.pop("selectableFields")
    version["subresources"].pop("scale")
    version.pop("additionalPrinterColumns")
    version["schema"] = {"openAPIV3Schema": {"type": "object", "minProperties": 1}}
    fields = (
        '"ID":"","Schema":"","Ref":null,"Description":"","Type":"object","Nullable":false,"Format":"","Title":"",'
        '"Default":null,"Maximum":null,"ExclusiveMaximum":false,"Minimum":null,"ExclusiveMinimum":false,'
        '"MaxLength":null,"MinLength":null,"Pattern":"","MaxItems":null,"MinItems":null,"UniqueItems":false,'
        '"MultipleOf":null,"Enum":null,"MaxProperties":null,"MinProperties":1,"Required":null,"Items":null,'
        '"AllOf":null,"OneOf":null,"AnyOf":null,"Not":null,"Properties":null,"AdditionalProperties":null,'
        '"PatternProperties":null,"Dependencies":null,"AdditionalItems":null,"Definitions":null,"ExternalDocs":null,'
        '"Example":null,"XPreserveUnknownFields":null,"XEmbeddedResource":false,"XIntOrString":false,'
        '"XListMapKeys":null,"XListType":null,"XMapType":null,"XValidations":null'
    )
    assert lines(validate_crd(crd)) == [
        "spec.validation.openAPIV3Schema: Invalid value: {" + fields + "}: only [Description Type Format Title"
        " Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems"
        " UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields"
        " XValidations] fields are allowed at the root of the schema if the status subresource is enabled"
    ]


def test_per_version_fields_that_differ_stay_per_version() -> None:
    crd = typical_crd()
    second = copy.deepcopy(_v(crd))
    second.update(name="v2", storage=False)
    second["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"] = {"type": "integer"}
    crd["spec"]["versions"].append(second)
    # identical selectable fields move to the internal top level, where kube wants a top-level schema
    assert lines(validate_crd(crd)) == [
        'spec.selectableFields: Invalid value: "": may only be set when validations.schema is included'
    ]
    second["selectableFields"] = [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.replicas"}]
    assert lines(validate_crd(crd)) == []
    second["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"] = {}
    assert lines(validate_crd(crd)) == [
        "spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[color].type: Required value: must not"
        " be empty for specified object fields",
        'spec.versions[1].selectableFields[0].jsonPath: Invalid value: ".spec.color": must point to a field of type'
        " string, boolean or integer. Enum string fields and strings with formats are allowed.",
    ]


def test_defaults_go_to_the_checker_once_structural() -> None:
    seen: list[tuple[Any, str]] = []

    def check(value: Any, node: Any, path: str) -> list[FieldError]:
        seen.append((value, path))
        return [FieldError.invalid(path, value, "checked")]

    errs = lines(validate_crd(typical_crd(), check_default=check))
    assert seen == [(1, f"{SP}[replicas].default")]
    assert errs == [f"{SP}[replicas].default: Invalid value: 1: checked"]


def _established(crd: Obj) -> Obj:
    crd["status"]["conditions"] = [{"type": "Established", "status": "True"}]
    return crd


def test_update_immutable_fields() -> None:
    old = _established(typical_crd())
    new = typical_crd()
    new["spec"].update(scope="Cluster", group="example.org")
    new["spec"]["names"].update(kind="Gadget", listKind="GadgetList", plural="gadgets")
    new["metadata"]["name"] = "gadgets.example.org"
    assert lines(validate_crd_update(new, old)) == [
        'spec.scope: Invalid value: "Cluster": field is immutable',
        'spec.names.kind: Invalid value: "Gadget": field is immutable',
        'spec.group: Invalid value: "example.org": field is immutable',
        'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]


def test_update_before_established_may_change_scope_and_kind() -> None:
    new = typical_crd()
    new["spec"]["scope"] = "Cluster"
    new["spec"]["names"].update(kind="Gadget", listKind="GadgetList")
    assert lines(validate_crd_update(new, typical_crd())) == []


def test_update_keeps_what_the_stored_crd_already_broke() -> None:
    old = typical_crd()
    _spec_props(old)["loose"] = {"type": "bogus"}
    _spec_props(old)["ports"]["items"]["required"] = []
    new = copy.deepcopy(old)
    assert lines(validate_crd(new)) == [
        f'{SP}[loose].type: Unsupported value: "bogus": supported values: "array", "boolean", "integer", "number",'
        ' "object", "string"',
        f"{SP}[ports].items.properties[name].default: Required value: this property is in"
        " x-kubernetes-list-map-keys, so it must have a default or be a required property",
    ]
    assert lines(validate_crd_update(new, old)) == []


def test_update_stored_version_must_remain() -> None:
    old = typical_crd()
    new = typical_crd()
    new["status"]["storedVersions"] = ["v1", "v1beta1"]
    assert lines(validate_crd_update(new, old)) == [
        'status.storedVersions[1]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a'
        " storage version, and must remain in spec.versions until a storage migration ensures no data remains"
        " persisted in v1beta1 and removes v1beta1 from status.storedVersions"
    ]


def test_status_update_checks_accepted_names() -> None:
    crd = typical_crd()
    crd["status"]["acceptedNames"] = {"plural": "widgets", "kind": "Widget", "listKind": "WidgetList"}
    assert lines(validate_crd_status(crd)) == []
    crd["status"]["acceptedNames"]["shortNames"] = ["W"]
    assert lines(validate_crd_status(crd)) == [
        'status.acceptedNames.shortNames[0]: Invalid value: "W": a DNS-1035 label must consist of lower case'
        " alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric"
        " character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]


def test_is_structural() -> None:
    assert is_structural(_schema()) == []
    schema = {"type": "object", "properties": {"b": {}, "a": {"type": "string", "allOf": [{"type": "string"}]}}}
    assert lines(is_structural(schema, "spec.validation.openAPIV3Schema")) == [
        "spec.validation.openAPIV3Schema.properties[a].allOf[0].type: Forbidden: must be empty to be structural",
        "spec.validation.openAPIV3Schema.properties[b].type: Required value: must not be empty for specified object"
        " fields",
    ]
    assert lines(is_structural({"type": "object", "items": [{}]})) == [
        ": Invalid value: \"\": OpenAPIV3Schema 'items' must be a schema, but is an array"
    ]


URL_CASES = [
    ("https://a.example.com/convert", []),
    (
        ":foo",
        [
            'url: Required value: url must be a valid URL: parse ":foo": missing protocol scheme; desired format:'
            " https://host[/path]"
        ],
    ),
    (
        "https://host:abc/",
        [
            'url: Required value: url must be a valid URL: parse "https://host:abc/": invalid port ":abc" after host;'
            " desired format: https://host[/path]"
        ],
    ),
    (
        "https://a b/",
        [
            'url: Required value: url must be a valid URL: parse "https://a b/": invalid character " " in host name;'
            " desired format: https://host[/path]"
        ],
    ),
    (
        "https://h/%zz",
        [
            'url: Required value: url must be a valid URL: parse "https://h/%zz": invalid URL escape "%zz"; desired'
            " format: https://host[/path]"
        ],
    ),
    (
        "example.com/x",
        [
            "url: Invalid value: \"\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
            'url: Invalid value: "": host must be specified; desired format: https://host[/path]',
        ],
    ),
    ("https://u@h/", ['url: Invalid value: "u": user information is not permitted in the URL']),
]


@pytest.mark.parametrize(("url", "expected"), URL_CASES, ids=[u for u, _ in URL_CASES])
def test_webhook_url_parsed_as_go_does(url: str, expected: list[str]) -> None:
    from kubelite.apiextensions.validation.webhook import validate_webhook_url

    assert lines(validate_webhook_url("url", url)) == expected


REGEXP_CASES = [
    ("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", None),
    (r"\pL+\z", None),
    ("(?i)abc", None),
    ("[*+]", None),
    ("a)", "error parsing regexp: unexpected ): `a)`"),
    ("[a", "error parsing regexp: missing closing ]: `[a`"),
    ("*a", "error parsing regexp: missing argument to repetition operator: `*`"),
    ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
    ("(?=x)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    (r"(a)\1", r"error parsing regexp: invalid escape sequence: `\1`"),
    ("a{1001}", "error parsing regexp: invalid repeat count: `{1001}`"),
    ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
]


@pytest.mark.parametrize(("pattern", "expected"), REGEXP_CASES, ids=[p for p, _ in REGEXP_CASES])
def test_pattern_compiled_as_go_does(pattern: str, expected: str | None) -> None:
    from kubelite.apiextensions.validation.structural import regexp_error

    assert regexp_error(pattern) == expected


def test_protected_group_approval() -> None:
    crd = typical_crd()
    crd["spec"]["group"] = "example.k8s.io"
    crd["metadata"]["name"] = "widgets.example.k8s.io"
    crd["metadata"]["annotations"] = {"api-approved.kubernetes.io": "https://github.com/kubernetes/kubernetes/pull/1"}
    assert lines(validate_crd(crd)) == []
    crd["metadata"]["annotations"]["api-approved.kubernetes.io"] = "unapproved, experimental"
    assert lines(validate_crd(crd)) == []
    crd["metadata"]["annotations"]["api-approved.kubernetes.io"] = "yes"
    assert lines(validate_crd(crd)) == [
        'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval'
        ' annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see'
        " https://github.com/kubernetes/enhancements/pull/1111"
    ]
    old = copy.deepcopy(crd)
    assert lines(validate_crd_update(crd, old)) == []  # an unchanged approval state never fails


def _with_root_schema(schema: Obj) -> Obj:
    crd = typical_crd()
    version = _v(crd)
    for name in ("selectableFields", "subresources", "additionalPrinterColumns"):
        version.pop(name)
    version["schema"] = {"openAPIV3Schema": schema}
    return crd


RULES = "spec.validation.openAPIV3Schema.x-kubernetes-validations"


def test_rule_field_paths_as_kube_tests_them() -> None:
    # validation_test.go: "x-kubernetes-validations should have valid fieldPath for array"
    paths = [".foo['b.c']['c\\a']", "['a.c']", ".a.c", ".list[0]", "   ", ".", ".."]
    crd = _with_root_schema(
        {
            "type": "object",
            "x-kubernetes-validations": [{"rule": "true", "fieldPath": p} for p in paths],
            "properties": {
                "a.c": {"type": "number"},
                "foo": {
                    "type": "object",
                    "properties": {"b.c": {"type": "object", "properties": {"c\a": {"type": "number"}}}},
                },
                "list": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "number"}}}},
            },
        }
    )
    assert lines(validate_crd(crd)) == [
        f'{RULES}[2].fieldPath: Invalid value: ".a.c": must be a valid path',
        f'{RULES}[3].fieldPath: Invalid value: ".list[0]": must be a valid path',
        f'{RULES}[4].fieldPath: Invalid value: "   ": must be non-empty if specified',
        f'{RULES}[4].fieldPath: Invalid value: "   ": must be a valid path',
        f'{RULES}[5].fieldPath: Invalid value: ".": must be a valid path',
        f'{RULES}[6].fieldPath: Invalid value: "..": must be a valid path',
    ]


CA_PEM = """-----BEGIN CERTIFICATE-----
MIIBBjCBraADAgECAgEBMAoGCCqGSM49BAMCMA0xCzAJBgNVBAMMAmNhMB4XDTI2
MDEwMTAwMDAwMFoXDTM1MTIzMDAwMDAwMFowDTELMAkGA1UEAwwCY2EwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAARSE4QCt2B3ib0B4tk8/O8Svb6F9RBID4d0G66q
NccdtGFqpgQMGXCmketUxeBzA6llHCnuFNsnTBYnj3D+vuYSMAoGCCqGSM49BAMC
A0gAMEUCIGAYjnQm3kOWwaPZysJ2o6w5S8vKPDx6hGlXKJ+tKngFAiEAwwk78BOS
FxM3/vWB+40oR1LUT97+Con7jO/KzJoL+zs=
-----END CERTIFICATE-----"""


def _webhook_crd(ca_bundle: str) -> Obj:
    crd = typical_crd()
    crd["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://convert.example.com/", "caBundle": ca_bundle},
        },
    }
    return crd


def test_ca_bundle_judged_only_once_established_with_a_valid_one() -> None:
    good = base64.b64encode(CA_PEM.encode()).decode()
    bad = base64.b64encode(b"not a certificate").decode()
    assert lines(validate_crd(_webhook_crd(bad))) == []  # not established yet: any bundle goes
    old = _established(_webhook_crd(good))
    assert lines(validate_crd_update(_webhook_crd(good), old)) == []
    assert lines(validate_crd_update(_webhook_crd(bad), old)) == [
        f'spec.conversion.webhookClientConfig.caBundle: Invalid value: "{bad}": unable to load root certificates:'
        " unable to parse bytes as PEM block"
    ]
    # a bundle that was already invalid may stay invalid
    assert lines(validate_crd_update(_webhook_crd(bad), _established(_webhook_crd(bad)))) == []


def test_identical_versions_are_validated_once_at_the_internal_top_level() -> None:
    crd = typical_crd()
    second = copy.deepcopy(_v(crd))
    second.update(name="v1beta1", storage=False)
    crd["spec"]["versions"].append(second)
    for version in crd["spec"]["versions"]:
        version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["color"].pop("type")
        version["additionalPrinterColumns"][0]["type"] = "int"
    assert lines(validate_crd(crd)) == [
        f"{SP}[color].type: Required value: must not be empty for specified object fields",
        'spec.additionalPrinterColumns[0].type: Invalid value: "int": must be one of'
        " boolean,date,integer,number,string",
        'spec.selectableFields[0].jsonPath: Invalid value: ".spec.color": must point to a field of type string,'
        " boolean or integer. Enum string fields and strings with formats are allowed.",
    ]


def test_list_map_with_items_array() -> None:
    crd = typical_crd()
    _spec_props(crd)["ports"]["items"] = [{"type": "object"}]
    errs = lines(validate_crd(crd))
    assert f"{SP}[ports].items: Forbidden: items must be a schema object and not an array" in errs
    single = [e for e in errs if "must only have a single schema" in e]
    assert single == [
        f'{SP}[ports].items: Invalid value: {{"Schema":null,"JSONSchemas":[{{"ID":"","Schema":"","Ref":null,'
        '"Description":"","Type":"object",' + single[0].split('"Type":"object",', 1)[1]
    ]
    assert single[0].endswith('"XValidations":null}]}: must only have a single schema if x-kubernetes-list-type is map')


def test_v1_has_no_top_level_schema_fields() -> None:
    crd = typical_crd()
    crd["spec"]["validation"] = {"openAPIV3Schema": {"type": "string"}}  # unknown to v1: not the internal field
    crd["spec"]["version"] = "BAD"
    assert lines(validate_crd(crd)) == []
