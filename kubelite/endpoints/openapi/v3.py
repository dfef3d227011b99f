"""OpenAPI v3 rendering: one document per group-version (and per discovery root), as kube-openapi serves.

kube-apiserver splits its v3 spec by path prefix: `/api/v1/...` is the document `api/v1`,
`/apis/apps/v1/...` is `apis/apps/v1`, `/apis/apps/` is `apis/apps`. Each document carries the schemas
its paths reach and nothing else. This is what kubectl reads for `explain`, for deciding whether the
server validates fields (`fieldValidation` on the PATCH operation of the object's kind) and for the
merge keys of a client-side apply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kubelite.endpoints.openapi.model import Body, Operation, Param, PathItem, Response, Schema
from kubelite.endpoints.openapi.schemas import REF_PREFIX, component_schemas, references

TITLE = "Kubernetes"
#: what apiextensions-apiserver calls the documents of group-versions served by CRDs alone
CUSTOM_TITLE = "Kubernetes CRD Swagger"
CUSTOM_VERSION = "v0.1.0"

#: the schemas a document's references reach, by definition name
Components = Callable[[Iterable[str]], dict[str, Any]]

SECURITY_SCHEMES = {
    "BearerToken": {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}


def schema(value: Schema) -> dict[str, Any]:
    if value.definition is not None:
        return {"$ref": REF_PREFIX["v3"] + value.definition}
    return {"type": value.type}


def parameter(param: Param) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": param.description,
        "in": param.location,
        "name": param.name,
        "schema": {"type": param.type, "uniqueItems": True},
    }
    if param.required:
        out["required"] = True
    return out


def _content(media_types: Iterable[str], value: Schema) -> dict[str, Any]:
    rendered = schema(value)
    return {media_type: {"schema": rendered} for media_type in media_types}


def _request_body(body: Body) -> dict[str, Any]:
    out: dict[str, Any] = {"content": _content(body.media_types, body.schema)}
    if body.required:
        out["required"] = True
    return out


def _response(response: Response, produces: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"description": response.description}
    if response.schema is not None:
        out["content"] = _content(produces, response.schema)
    return out


def operation(op: Operation, own_params: list[Param]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": op.description,
        "operationId": op.operation_id,
        "responses": {str(r.code): _response(r, op.produces) for r in op.responses},
        "tags": [op.tag],
    }
    if own_params:
        out["parameters"] = [parameter(p) for p in own_params]
    if op.body is not None:
        out["requestBody"] = _request_body(op.body)
    if op.action is not None:
        out["x-kubernetes-action"] = op.action
    if op.gvk is not None:
        out["x-kubernetes-group-version-kind"] = dict(op.gvk)
    return out


def path_item(item: PathItem) -> dict[str, Any]:
    out: dict[str, Any] = {op.method: operation(op, item.operation_params(op)) for op in item.operations}
    common = item.common_params()
    if common:
        out["parameters"] = [parameter(p) for p in common]
    return out


def document(
    items: Iterable[PathItem], version: str, components: Components | None = None, *, custom: bool = False
) -> dict[str, Any]:
    """A complete v3 document for the given paths, with every schema they reach (the built-in ones,
    unless `components` says otherwise). A `custom` document, of custom resources only, is titled and
    versioned as apiextensions-apiserver does, and declares no security schemes."""
    paths = {item.path: path_item(item) for item in items}
    refs = references(paths)
    schemas = components(refs) if components is not None else component_schemas(refs, "v3")
    if custom:
        return {
            "components": {"schemas": schemas},
            "info": {"title": CUSTOM_TITLE, "version": CUSTOM_VERSION},
            "openapi": "3.0.0",
            "paths": paths,
        }
    return {
        "components": {"schemas": schemas, "securitySchemes": SECURITY_SCHEMES},
        "info": {"title": TITLE, "version": version},
        "openapi": "3.0.0",
        "paths": paths,
    }


def server_relative_url(name: str, etag: str) -> str:
    """Where the index points a client for one document: the path plus the hash of its current bytes."""
    return f"/openapi/v3/{name}?hash={etag}"
