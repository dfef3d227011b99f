"""DELETE of one object and of a collection (kube's `handlers/delete.go`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from kubelite.admission import Attributes
from kubelite.apimachinery import serializers
from kubelite.apimachinery.meta import Obj
from kubelite.endpoints.handlers import params
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo


async def _options(request: web.Request) -> params.DeleteParams:
    body = await params.read_body(request)
    decoded: Any = None
    if body.strip():
        decoded = serializers.decode_body(body, serializers.content_type_of(request.headers.get("Content-Type")))
    return params.delete_params(request.query, request.query.getall("dryRun", []), decoded)


def success_status(scope: RequestScope, obj: Obj) -> Obj:
    meta = obj.get("metadata") or {}
    details: dict[str, Any] = {"name": meta.get("name", "")}
    if scope.spec.group:
        details["group"] = scope.spec.group
    details["kind"] = scope.spec.resource
    details["uid"] = meta.get("uid", "")
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}


async def delete(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    options = await _options(request)
    attrs = Attributes("DELETE", scope.spec, info.namespace, info.name, "", user_from(request), options.dry_run)
    await scope.admission.validate(attrs, None, None)
    obj, deleted_now = await scope.store.delete(info.namespace, info.name, options)
    if not deleted_now:
        # kube answers 202 only when the client asked for cascading with orphanDependents=false; finalizers
        # and graceful deletion otherwise keep 200 (changing that would break existing clients, says kube)
        accepted = options.orphan_dependents is False and not options.dry_run
        return write_object(obj, negotiated, status=202 if accepted else 200)
    if scope.store.strategy.return_deleted_object:
        return write_object(obj, negotiated)
    return write_object(success_status(scope, obj), negotiated)


async def delete_collection(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    options = await _options(request)
    attrs = Attributes("DELETE", scope.spec, info.namespace, "", "", user_from(request), options.dry_run)
    await scope.admission.validate(attrs, None, None)
    listed = await scope.store.delete_collection(info.namespace, params.list_params(request.query), options)
    # a typed list's items carry no kind/apiVersion; a custom resource's (unstructured) keep them
    form = scope.encodings.json_items.item_form
    listed["items"] = [form(item) for item in listed["items"]]
    return write_object(listed, negotiated)
