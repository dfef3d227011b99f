"""POST: create an object in a collection (kube's `handlers/create.go`)."""

from __future__ import annotations

from aiohttp import web

from kubelite.admission import Attributes
from kubelite.apimachinery import serializers
from kubelite.apimachinery.meta import Obj
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.field_tracking import manager_of, record_create
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo


async def create(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    write = params.write_params(request)
    obj, body, media_type = await params.read_object_and_body(request, kind=scope.spec.kind, version=scope.spec.version)
    warnings = field_validation.check(
        scope.spec, obj, body, request.query.get("fieldValidation"), media_type == serializers.JSON
    )
    params.drop_null_fields(obj)
    meta = raw_meta if isinstance(raw_meta := obj.get("metadata"), dict) else {}
    attrs = Attributes(
        "CREATE", scope.spec, info.namespace, str(meta.get("name") or ""), "", user_from(request), write.dry_run
    )
    manager = manager_of(request, write)

    async def mutate(defaulted: Obj, old: Obj | None) -> Obj:
        recorded = record_create(scope, defaulted, manager)
        await scope.admission.admit(attrs, recorded)
        return recorded

    async def validate(final: Obj, old: Obj | None) -> None:
        await scope.admission.validate(attrs, final, old)

    created = await scope.store.create(info.namespace, obj, write, mutate=mutate, validate=validate)
    return write_object(created, negotiated, status=201, warnings=warnings)
