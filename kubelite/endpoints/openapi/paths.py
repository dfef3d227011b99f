"""The paths and operations kube-apiserver publishes for a resource, and for the discovery endpoints.

For every served resource kube-apiserver's installer registers one route per verb: list, create and
deletecollection on the collection; the all-namespaces list; get, replace, patch and delete on the item;
the deprecated `/watch/` routes; and each subresource's routes. Each route is documented with the verb's
option parameters, its request body and the kinds it answers with. This module produces those routes for
a ResourceSpec, in the neutral form of model.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kubelite.endpoints.openapi import naming, params
from kubelite.endpoints.openapi.model import Body, Operation, Param, PathItem, Response, Schema
from kubelite.endpoints.openapi.schemas import definition_for
from kubelite.registry.spec import ResourceSpec, SubresourceSpec

#: what kube can encode a response as (CBOR left out: we do not speak it)
MEDIA_TYPES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
#: lists and watches also stream
STREAM_MEDIA_TYPES = (
    *MEDIA_TYPES,
    "application/json;stream=watch",
    "application/vnd.kubernetes.protobuf;stream=watch",
)
#: the patch types kube accepts for built-in kinds (1.36 adds apply-patch+cbor, which we do not accept)
PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)
ANY = ("*/*",)
LOG_MEDIA_TYPES = ("text/plain", *MEDIA_TYPES)

STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
WATCH_EVENT = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
API_RESOURCE_LIST = "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"
API_GROUP = "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup"
API_GROUP_LIST = "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList"
API_VERSIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions"
VERSION_INFO = "io.k8s.apimachinery.pkg.version.Info"

#: resources whose storage answers a delete with the deleted object rather than a Status
#: (kube's `ReturnDeletedObject`); what DELETE on an item documents as its response
DELETE_RETURNS_OBJECT: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "persistentvolumeclaims"),
        ("", "persistentvolumes"),
        ("", "pods"),
        ("", "podtemplates"),
        ("", "resourcequotas"),
        ("", "serviceaccounts"),
        ("", "services"),
        ("storage.k8s.io", "csidrivers"),
        ("storage.k8s.io", "csinodes"),
        ("storage.k8s.io", "storageclasses"),
        ("storage.k8s.io", "volumeattachments"),
        ("storage.k8s.io", "volumeattributesclasses"),
    }
)


@dataclass(frozen=True, slots=True)
class _Connect:
    """A subresource served by streaming to a backend rather than by storage (exec, attach, proxy...)."""

    options_kind: str
    methods: tuple[str, ...]
    params: tuple[Param, ...]


_CONNECT: dict[str, _Connect] = {
    "attach": _Connect("AttachOptions", ("get", "post"), params.ATTACH),
    "exec": _Connect("ExecOptions", ("get", "post"), params.EXEC),
    "portforward": _Connect("PortForwardOptions", ("get", "post"), params.PORTFORWARD),
    "proxy": _Connect(
        "ProxyOptions", ("delete", "get", "head", "options", "patch", "post", "put"), params.PROXY
    ),
}

_OK = "OK"


def _responses(schema: Schema | None, *codes: int) -> tuple[Response, ...]:
    texts = {200: _OK, 201: "Created", 202: "Accepted"}
    return (*(Response(code, texts[code], schema) for code in codes), Response(401, "Unauthorized"))


def _schema_for(group: str, version: str, kind: str) -> Schema:
    definition = definition_for(group, version, kind)
    # A kind the schema set lacks still gets its operations; only its body is left undescribed.
    return Schema.ref(definition) if definition else Schema.of_type("object")


def api_prefix(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


class _ResourceRoutes:
    """Builds the routes of one resource."""

    def __init__(self, spec: ResourceSpec) -> None:
        self.spec = spec
        self.kind = spec.kind
        self.prefix = api_prefix(spec.group, spec.version)
        self.tag = naming.tag(spec.group, spec.version)
        self.gvk = {"group": spec.group, "version": spec.version, "kind": spec.kind}
        self.scope = "Namespaced" if spec.namespaced else ""
        self.object = _schema_for(spec.group, spec.version, spec.kind)
        self.list = _schema_for(spec.group, spec.version, spec.list_kind)
        self.scope_params: tuple[Param, ...] = (params.NAMESPACE,) if spec.namespaced else ()
        ns_segment = "/namespaces/{namespace}" if spec.namespaced else ""
        self.collection_path = f"{self.prefix}{ns_segment}/{spec.resource}"
        self.item_path = self.collection_path + "/{name}"

    def op_id(self, verb: str, rest: str) -> str:
        return naming.operation_id(verb, self.spec.group, self.spec.version, rest)

    def operation(
        self,
        method: str,
        verb: str,
        rest: str,
        description: str,
        *,
        params: tuple[Param, ...],
        responses: tuple[Response, ...],
        produces: tuple[str, ...],
        action: str,
        body: Body | None = None,
        gvk: dict[str, str] | None = None,
    ) -> Operation:
        return Operation(
            method=method,
            operation_id=self.op_id(verb, rest),
            description=description,
            tag=self.tag,
            params=params,
            body=body,
            responses=responses,
            produces=produces,
            action=action,
            gvk=gvk or self.gvk,
        )

    def build(self) -> list[PathItem]:
        verbs = set(self.spec.verbs)
        items: list[PathItem] = []
        items.append(PathItem(self.collection_path, self.collection_operations(verbs)))
        if self.spec.namespaced and "list" in verbs:
            items.append(PathItem(f"{self.prefix}/{self.spec.resource}", [self.list_all_namespaces()]))
        items.append(PathItem(self.item_path, self.item_operations(verbs)))
        for sub in self.spec.subresources:
            items.extend(self.subresource_items(sub))
        if "watch" in verbs:
            items.extend(self.watch_items())
        return [item for item in items if item.operations]

    # collection

    def collection_operations(self, verbs: set[str]) -> list[Operation]:
        ops: list[Operation] = []
        kind, scope = self.kind, self.scope
        base = (*self.scope_params, params.PRETTY)
        if "deletecollection" in verbs:
            ops.append(
                self.operation(
                    "delete",
                    "delete",
                    f"Collection{scope}{kind}",
                    f"delete collection of {kind}",
                    params=(*base, *params.DELETE_COLLECTION),
                    body=Body(Schema.ref(DELETE_OPTIONS), ANY, required=False),
                    responses=_responses(Schema.ref(STATUS), 200),
                    produces=MEDIA_TYPES,
                    action="deletecollection",
                )
            )
        if "list" in verbs:
            ops.append(
                self.operation(
                    "get",
                    "list",
                    f"{scope}{kind}",
                    f"list or watch objects of kind {kind}",
                    params=(*base, *params.LIST),
                    responses=_responses(self.list, 200),
                    produces=STREAM_MEDIA_TYPES,
                    action="list",
                )
            )
        if "create" in verbs:
            ops.append(
                self.operation(
                    "post",
                    "create",
                    f"{scope}{kind}",
                    f"create a {kind}",
                    params=(*base, *params.CREATE),
                    body=Body(self.object, ANY, required=True),
                    responses=_responses(self.object, 200, 201, 202),
                    produces=MEDIA_TYPES,
                    action="post",
                )
            )
        return ops

    def list_all_namespaces(self) -> Operation:
        return self.operation(
            "get",
            "list",
            f"{self.kind}ForAllNamespaces",
            f"list or watch objects of kind {self.kind}",
            params=(params.PRETTY, *params.LIST),
            responses=_responses(self.list, 200),
            produces=STREAM_MEDIA_TYPES,
            action="list",
        )

    # item

    def item_operations(self, verbs: set[str]) -> list[Operation]:
        ops: list[Operation] = []
        kind, scope = self.kind, self.scope
        base = (params.name_param(kind), *self.scope_params, params.PRETTY)
        if "delete" in verbs:
            returns_object = (self.spec.group, self.spec.resource) in DELETE_RETURNS_OBJECT
            ops.append(
                self.operation(
                    "delete",
                    "delete",
                    f"{scope}{kind}",
                    f"delete a {kind}",
                    params=(*base, *params.DELETE),
                    body=Body(Schema.ref(DELETE_OPTIONS), ANY, required=False),
                    responses=_responses(self.object if returns_object else Schema.ref(STATUS), 200, 202),
                    produces=MEDIA_TYPES,
                    action="delete",
                )
            )
        if "get" in verbs:
            ops.append(
                self.operation(
                    "get",
                    "read",
                    f"{scope}{kind}",
                    f"read the specified {kind}",
                    params=base,
                    responses=_responses(self.object, 200),
                    produces=MEDIA_TYPES,
                    action="get",
                )
            )
        if "patch" in verbs:
            ops.append(
                self.patch_operation(
                    base, f"{scope}{kind}", f"partially update the specified {kind}", self.object, self.gvk
                )
            )
        if "update" in verbs:
            ops.append(
                self.put_operation(
                    base, f"{scope}{kind}", f"replace the specified {kind}", self.object, self.gvk
                )
            )
        return ops

    def patch_operation(
        self, base: tuple[Param, ...], rest: str, description: str, schema: Schema, gvk: dict[str, str]
    ) -> Operation:
        return self.operation(
            "patch",
            "patch",
            rest,
            description,
            params=(*base, *params.PATCH),
            body=Body(Schema.ref(PATCH), PATCH_TYPES, required=True),
            responses=_responses(schema, 200, 201),
            produces=MEDIA_TYPES,
            action="patch",
            gvk=gvk,
        )

    def put_operation(
        self, base: tuple[Param, ...], rest: str, description: str, schema: Schema, gvk: dict[str, str]
    ) -> Operation:
        return self.operation(
            "put",
            "replace",
            rest,
            description,
            params=(*base, *params.UPDATE),
            body=Body(schema, ANY, required=True),
            responses=_responses(schema, 200, 201),
            produces=MEDIA_TYPES,
            action="put",
            gvk=gvk,
        )

    # subresources

    def subresource_items(self, sub: SubresourceSpec) -> list[PathItem]:
        if sub.name in _CONNECT:
            return self.connect_items(sub.name, _CONNECT[sub.name])
        if sub.name == "log":
            return [PathItem(f"{self.item_path}/log", [self.log_operation()])]
        kind, scope, word = self.kind, self.scope, naming.subresource_word(sub.name)
        group = self.spec.group if sub.group is None else sub.group
        version = self.spec.version if sub.version is None else sub.version
        sub_kind = sub.kind or kind
        gvk = {"group": group, "version": version, "kind": sub_kind}
        schema = _schema_for(group, version, sub_kind)
        base = (params.name_param(sub_kind), *self.scope_params, params.PRETTY)
        rest = f"{scope}{kind}{word}"
        ops: list[Operation] = []
        if "create" in sub.verbs:
            ops.append(
                self.operation(
                    "post",
                    "create",
                    rest,
                    f"create {sub.name} of a {kind}",
                    params=(*base, *params.CREATE),
                    body=Body(schema, ANY, required=True),
                    responses=_responses(schema, 200, 201, 202),
                    produces=MEDIA_TYPES,
                    action="post",
                    gvk=gvk,
                )
            )
        if "get" in sub.verbs:
            ops.append(
                self.operation(
                    "get",
                    "read",
                    rest,
                    f"read {sub.name} of the specified {kind}",
                    params=base,
                    responses=_responses(schema, 200),
                    produces=MEDIA_TYPES,
                    action="get",
                    gvk=gvk,
                )
            )
        if "patch" in sub.verbs:
            ops.append(
                self.patch_operation(
                    base, rest, f"partially update {sub.name} of the specified {kind}", schema, gvk
                )
            )
        if "update" in sub.verbs:
            ops.append(
                self.put_operation(base, rest, f"replace {sub.name} of the specified {kind}", schema, gvk)
            )
        return [PathItem(f"{self.item_path}/{sub.name}", ops)]

    def log_operation(self) -> Operation:
        return self.operation(
            "get",
            "read",
            f"{self.scope}{self.kind}Log",
            f"read log of the specified {self.kind}",
            params=(params.name_param(self.kind), *self.scope_params, params.PRETTY, *params.LOG),
            responses=_responses(Schema.of_type("string"), 200),
            produces=LOG_MEDIA_TYPES,
            action="get",
        )

    def connect_items(self, name: str, connect: _Connect) -> list[PathItem]:
        kind, scope, word = self.kind, self.scope, naming.subresource_word(name)
        options_kind = kind + connect.options_kind
        gvk = {"group": self.spec.group, "version": self.spec.version, "kind": options_kind}
        base = (params.name_param(options_kind), *self.scope_params, *connect.params)
        items = [PathItem(f"{self.item_path}/{name}")]
        if name == "proxy":
            items.append(PathItem(f"{self.item_path}/{name}/{{path}}"))
        for index, item in enumerate(items):
            suffix = "WithPath" if index else ""
            extra = (params.PROXY_PATH,) if index else ()
            for method in connect.methods:
                item.operations.append(
                    self.operation(
                        method,
                        "connect",
                        f"{method.capitalize()}{scope}{kind}{word}{suffix}",
                        f"connect {method.upper()} requests to {name} of {kind}",
                        params=(*base, *extra),
                        responses=_responses(Schema.of_type("string"), 200),
                        produces=ANY,
                        action="connect",
                        gvk=gvk,
                    )
                )
        return items

    # the deprecated /watch/ routes

    def watch_items(self) -> list[PathItem]:
        kind, scope, resource = self.kind, self.scope, self.spec.resource
        ns_segment = "/namespaces/{namespace}" if self.spec.namespaced else ""
        collection = f"{self.prefix}/watch{ns_segment}/{resource}"
        list_text = (
            f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter with a "
            "list operation instead."
        )
        item_text = (
            f"watch changes to an object of kind {kind}. deprecated: use the 'watch' parameter with a "
            "list operation instead, filtered to a single item with the 'fieldSelector' parameter."
        )
        items = [
            PathItem(
                collection,
                [self.watch_operation(f"{scope}{kind}List", list_text, "watchlist", (*self.scope_params,))],
            ),
            PathItem(
                collection + "/{name}",
                [
                    self.watch_operation(
                        f"{scope}{kind}", item_text, "watch", (params.name_param(kind), *self.scope_params)
                    )
                ],
            ),
        ]
        if self.spec.namespaced:
            items.append(
                PathItem(
                    f"{self.prefix}/watch/{resource}",
                    [self.watch_operation(f"{kind}ListForAllNamespaces", list_text, "watchlist", ())],
                )
            )
        return items

    def watch_operation(self, rest: str, description: str, action: str, base: tuple[Param, ...]) -> Operation:
        return self.operation(
            "get",
            "watch",
            rest,
            description,
            params=(*base, params.PRETTY, *params.LIST),
            responses=_responses(Schema.ref(WATCH_EVENT), 200),
            produces=STREAM_MEDIA_TYPES,
            action=action,
        )


def resource_paths(spec: ResourceSpec) -> list[PathItem]:
    """Every path kube-apiserver documents for one resource."""
    return _ResourceRoutes(spec).build()


def _discovery(
    path: str, op_id: str, description: str, tag: str, schema: str, produces: tuple[str, ...] = MEDIA_TYPES
) -> PathItem:
    op = Operation(
        method="get",
        operation_id=op_id,
        description=description,
        tag=tag,
        responses=_responses(Schema.ref(schema), 200),
        produces=produces,
        gvk=None,
    )
    return PathItem(path, [op])


def group_version_root(group: str, version: str) -> PathItem:
    """`/apis/<group>/<version>/`: the group-version's APIResourceList."""
    return _discovery(
        api_prefix(group, version) + "/",
        naming.operation_id("get", group, version, "APIResources"),
        "get available resources",
        naming.tag(group, version),
        API_RESOURCE_LIST,
    )


def group_root(group: str) -> PathItem:
    """`/apis/<group>/`: the APIGroup."""
    return _discovery(
        f"/apis/{group}/",
        naming.operation_id("get", group, None, "APIGroup"),
        "get information of a group",
        naming.tag(group),
        API_GROUP,
    )


def core_root() -> PathItem:
    """`/api/`: the APIVersions of the legacy core group."""
    return _discovery("/api/", "getCoreAPIVersions", "get available API versions", "core", API_VERSIONS)


def apis_root() -> PathItem:
    """`/apis/`: the APIGroupList."""
    return _discovery("/apis/", "getAPIVersions", "get available API versions", "apis", API_GROUP_LIST)


def version_root() -> PathItem:
    """`/version/`: the server's version.Info, in JSON only."""
    return _discovery(
        "/version/",
        "getCodeVersion",
        "get the version information for this server",
        "version",
        VERSION_INFO,
        produces=("application/json",),
    )


def group_versions(resources: Iterable[ResourceSpec]) -> dict[str, list[ResourceSpec]]:
    """The resources by OpenAPI v3 document name (`api/v1`, `apis/apps/v1`), in first-seen order."""
    out: dict[str, list[ResourceSpec]] = {}
    for spec in resources:
        out.setdefault(api_prefix(spec.group, spec.version).lstrip("/"), []).append(spec)
    return out
