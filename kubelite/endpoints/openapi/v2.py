"""OpenAPI v2 (swagger 2.0) rendering: the whole API in one document, as `/openapi/v2` serves it.

Same operations and schemas as the v3 documents, in swagger 2.0 syntax: references into
`#/definitions/`, request bodies as `in: body` parameters, `consumes`/`produces` lists instead of
per-media-type content, and parameter types inline rather than under `schema`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kubelite.endpoints.openapi.model import Operation, Param, PathItem, Schema
from kubelite.endpoints.openapi.schemas import REF_PREFIX, component_schemas, references

TITLE = "Kubernetes"

SECURITY_DEFINITIONS = {
    "BearerToken": {
        "description": "Bearer Token authentication",
        "in": "header",
        "name": "authorization",
        "type": "apiKey",
    }
}


def schema(value: Schema) -> dict[str, Any]:
    if value.definition is not None:
        return {"$ref": REF_PREFIX["v2"] + value.definition}
    return {"type": value.type}


def parameter(param: Param) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": param.description,
        "in": param.location,
        "name": param.name,
        "type": param.type,
        "uniqueItems": True,
    }
    if param.required:
        out["required"] = True
    return out


def operation(op: Operation, own_params: list[Param]) -> dict[str, Any]:
    rendered_params = [parameter(p) for p in own_params]
    consumes = ["*/*"]
    if op.body is not None:
        body: dict[str, Any] = {"in": "body", "name": "body", "schema": schema(op.body.schema)}
        if op.body.required:
            body["required"] = True
        rendered_params.insert(0, body)
        consumes = list(op.body.media_types)
    responses: dict[str, Any] = {}
    for response in op.responses:
        rendered: dict[str, Any] = {"description": response.description}
        if response.schema is not None:
            rendered["schema"] = schema(response.schema)
        responses[str(response.code)] = rendered
    out: dict[str, Any] = {
        "consumes": consumes,
        "description": op.description,
        "operationId": op.operation_id,
        "produces": list(op.produces),
        "responses": responses,
        "schemes": ["https"],
        "tags": [op.tag],
    }
    if rendered_params:
        out["parameters"] = rendered_params
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
    items: Iterable[PathItem], version: str, components: Callable[[Iterable[str]], dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The complete swagger 2.0 document for the given paths, with every definition they reach (the
    built-in ones, unless `components` says otherwise)."""
    paths = {item.path: path_item(item) for item in items}
    refs = references(paths)
    return {
        "definitions": components(refs) if components is not None else component_schemas(refs, "v2"),
        "info": {"title": TITLE, "version": version},
        "paths": paths,
        "security": [{"BearerToken": []}],
        "securityDefinitions": SECURITY_DEFINITIONS,
        "swagger": "2.0",
    }
