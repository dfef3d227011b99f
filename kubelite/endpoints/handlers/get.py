"""GET of one object and of a collection (list), with Table and PartialObjectMetadata conversion."""

from __future__ import annotations

from aiohttp import web

from kubelite.apimachinery.errors import StatusError
from kubelite.endpoints.handlers import params
from kubelite.endpoints.handlers.list_encoding import encode_list_json
from kubelite.endpoints.handlers.negotiation import Conversion, negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.handlers.table import include_object_param, partial_metadata, to_table
from kubelite.endpoints.request_info import RequestInfo


async def get(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"))
    params.resource_version_param(request.query)  # served from the latest state, but it must be a revision
    obj = await scope.store.get(info.namespace, info.name, shared=True)  # only encoded below, never changed
    if negotiated.conversion is Conversion.TABLE:
        include = include_object_param(request.query.get("includeObject"))
        meta = {"resourceVersion": obj["metadata"].get("resourceVersion", "")}
        table = to_table(scope.table, [obj], list_meta=meta, include_object=include, printer=scope.encodings.table_row)
        return write_object(table, negotiated)
    if negotiated.conversion is Conversion.PARTIAL:
        return write_object(partial_metadata(obj), negotiated)
    if negotiated.conversion is Conversion.PARTIAL_LIST:
        raise StatusError(
            406,
            "NotAcceptable",
            f"you requested PartialObjectMetadataList, but the requested object is not a list ({_go_type(scope)})",
        )
    return write_object(obj, negotiated)


async def list_(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"))
    listed = await scope.store.list(info.namespace, params.list_params(request.query))
    if negotiated.conversion is Conversion.TABLE:
        include = include_object_param(request.query.get("includeObject"))
        return write_object(
            to_table(
                scope.table,
                listed["items"],
                list_meta=listed["metadata"],
                include_object=include,
                printer=scope.encodings.table_row,
            ),
            negotiated,
        )
    if negotiated.conversion is Conversion.PARTIAL:
        raise StatusError(
            406,
            "NotAcceptable",
            f"you requested PartialObjectMetadata, but the requested object is a list ({_go_type(scope)}List)",
        )
    if negotiated.conversion is Conversion.PARTIAL_LIST:
        partial = {
            "kind": "PartialObjectMetadataList",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": listed["metadata"],
            "items": [partial_metadata(item) for item in listed["items"]],
        }
        return write_object(partial, negotiated)
    if negotiated.content_type == "application/json":
        body = encode_list_json(listed, scope.encodings.json_items)
        return web.Response(body=body, headers={"Content-Type": "application/json"})
    # items of a typed list carry no kind/apiVersion of their own, as kube-apiserver encodes them
    form = scope.encodings.json_items.item_form
    listed["items"] = [form(item) for item in listed["items"]]
    return write_object(listed, negotiated)


def _go_type(scope: RequestScope) -> str:
    """The internal Go type kube names (with %T) when a metadata conversion does not fit, e.g. *core.ConfigMap."""
    group = scope.spec.group
    package = "core" if group in ("", "events.k8s.io") else group.split(".")[0]
    return f"*{package}.{scope.spec.kind}"
