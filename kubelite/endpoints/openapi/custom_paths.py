"""The paths kube's apiextensions-apiserver publishes for a custom resource.

They differ from a built-in resource's (paths.py) in ways clients read: the routes of a CR come from its
CRD's OpenAPI builder, not from the generic installer, so there are no deprecated `/watch/` routes; bodies
and responses are JSON or YAML only (no protobuf); PATCH takes JSON patch, merge patch and apply patch but
not strategic merge patch, which the CR handler refuses with 415 (kubectl reads that list to decide how to
patch); a read takes `resourceVersion`; a collection delete takes the list options and no body; every
operation, `/scale` included, is marked with the custom resource's own group-version-kind.
"""

from __future__ import annotations

from kubelite.endpoints.openapi import naming, params
from kubelite.endpoints.openapi.model import Body, Operation, Param, PathItem, Response, Schema
from kubelite.endpoints.openapi.paths import DELETE_OPTIONS, PATCH, STATUS, api_prefix
from kubelite.registry.spec import ResourceSpec

MEDIA_TYPES = ("application/json", "application/yaml")
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
)
SCALE = "io.k8s.api.autoscaling.v1.Scale"

GET_PARAMS = (params.RESOURCE_VERSION,)

_TEXTS = {200: "OK", 201: "Created", 202: "Accepted"}


def article_for(noun: str) -> str:
    """kube's article before a kind in a description: none for a plural, `an` before a vowel, else `a`."""
    if noun.endswith("s") and not noun.endswith("ss"):
        return " "
    return " an " if noun[:1].lower() in "aeiou" else " a "


def _responses(schema: Schema, *codes: int) -> tuple[Response, ...]:
    return (*(Response(code, _TEXTS[code], schema) for code in codes), Response(401, "Unauthorized"))


class _CustomRoutes:
    def __init__(self, spec: ResourceSpec, object_definition: str, list_definition: str) -> None:
        self.spec = spec
        self.kind = spec.kind
        self.scope = "Namespaced" if spec.namespaced else ""
        self.object = Schema.ref(object_definition)
        self.list = Schema.ref(list_definition)
        self.gvk = {"group": spec.group, "version": spec.version, "kind": spec.kind}
        self.tag = naming.tag(spec.group, spec.version)
        prefix = api_prefix(spec.group, spec.version)
        self.all_namespaces_path = f"{prefix}/{spec.resource}"
        ns_segment = "/namespaces/{namespace}" if spec.namespaced else ""
        self.collection_path = f"{prefix}{ns_segment}/{spec.resource}"
        self.item_path = self.collection_path + "/{name}"
        self.scope_params: tuple[Param, ...] = (params.NAMESPACE,) if spec.namespaced else ()

    def operation(
        self,
        method: str,
        verb: str,
        rest: str,
        description: str,
        action: str,
        op_params: tuple[Param, ...],
        responses: tuple[Response, ...],
        body: Body | None = None,
    ) -> Operation:
        return Operation(
            method=method,
            operation_id=naming.operation_id(verb, self.spec.group, self.spec.version, rest),
            description=description,
            tag=self.tag,
            params=(params.PRETTY, *op_params),
            body=body,
            responses=responses,
            produces=MEDIA_TYPES,
            action=action,
            gvk=self.gvk,
        )

    def build(self) -> list[PathItem]:
        kind, scope = self.kind, self.scope
        items: list[PathItem] = []
        if self.spec.namespaced:
            items.append(
                PathItem(
                    self.all_namespaces_path,
                    [
                        self.operation(
                            "get",
                            "list",
                            f"{kind}ForAllNamespaces",
                            f"list objects of kind {kind}",
                            "list",
                            params.LIST,
                            _responses(self.list, 200),
                        )
                    ],
                )
            )
        collection = self.scope_params
        items.append(
            PathItem(
                self.collection_path,
                [
                    self.operation(
                        "get",
                        "list",
                        f"{scope}{kind}",
                        f"list objects of kind {kind}",
                        "list",
                        (*collection, *params.LIST),
                        _responses(self.list, 200),
                    ),
                    self.operation(
                        "post",
                        "create",
                        f"{scope}{kind}",
                        f"create{article_for(kind)}{kind}",
                        "post",
                        (*collection, *params.CREATE),
                        _responses(self.object, 200, 201, 202),
                        Body(self.object, MEDIA_TYPES, required=True),
                    ),
                    self.operation(
                        "delete",
                        "delete",
                        f"Collection{scope}{kind}",
                        f"delete collection of {kind}",
                        "deletecollection",
                        (*collection, *params.LIST),
                        _responses(Schema.ref(STATUS), 200),
                    ),
                ],
            )
        )
        item = (params.name_param(kind), *self.scope_params)
        items.append(
            PathItem(
                self.item_path,
                [
                    *self.item_operations(item, "", "", self.object),
                    self.operation(
                        "delete",
                        "delete",
                        f"{scope}{kind}",
                        f"delete{article_for(kind)}{kind}",
                        "delete",
                        (*item, *params.DELETE),
                        _responses(Schema.ref(STATUS), 200, 202),
                        Body(Schema.ref(DELETE_OPTIONS), MEDIA_TYPES, required=False),
                    ),
                ],
            )
        )
        for sub in self.spec.subresources:
            if sub.name not in ("status", "scale"):
                continue
            schema = self.object if sub.name == "status" else Schema.ref(SCALE)
            items.append(
                PathItem(
                    f"{self.item_path}/{sub.name}",
                    self.item_operations(item, sub.name, naming.subresource_word(sub.name), schema),
                )
            )
        return items

    def item_operations(self, item: tuple[Param, ...], sub: str, word: str, schema: Schema) -> list[Operation]:
        kind, scope = self.kind, self.scope
        of = f" {sub} of" if sub else ""
        rest = f"{scope}{kind}{word}"
        return [
            self.operation(
                "get",
                "read",
                rest,
                f"read{of} the specified {kind}",
                "get",
                (*item, *GET_PARAMS),
                _responses(schema, 200),
            ),
            self.operation(
                "put",
                "replace",
                rest,
                f"replace{of} the specified {kind}",
                "put",
                (*item, *params.UPDATE),
                _responses(schema, 200, 201),
                Body(schema, MEDIA_TYPES, required=True),
            ),
            self.operation(
                "patch",
                "patch",
                rest,
                f"partially update{of} the specified {kind}",
                "patch",
                (*item, *params.PATCH),
                _responses(schema, 200),
                Body(Schema.ref(PATCH), PATCH_TYPES, required=True),
            ),
        ]


def custom_resource_paths(spec: ResourceSpec, object_definition: str, list_definition: str) -> list[PathItem]:
    """Every path kube publishes for one served version of a custom resource."""
    return _CustomRoutes(spec, object_definition, list_definition).build()
