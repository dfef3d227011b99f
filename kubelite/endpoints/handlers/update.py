"""PUT: replace an object, or its status (kube's `handlers/update.go`); optimistic concurrency on resourceVersion."""

from __future__ import annotations

from aiohttp import web

from kubelite.admission import Attributes
from kubelite.apimachinery import serializers
from kubelite.apimachinery.meta import Obj, deep_copy
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.field_tracking import manager_of, record_create, record_update
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo
from kubelite.storage.interface import Preconditions


async def update(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    write = params.write_params(request)
    obj, body, media_type = await params.read_object_and_body(request, kind=scope.spec.kind, version=scope.spec.version)
    warnings = field_validation.check(
        scope.spec, obj, body, request.query.get("fieldValidation"), media_type == serializers.JSON
    )
    params.drop_null_fields(obj)
    params.check_name(obj, info.namespace, info.name)
    strategy = scope.write_strategy(info.subresource, info.name)
    attrs = Attributes(
        "UPDATE", scope.spec, info.namespace, info.name, info.subresource, user_from(request), write.dry_run
    )

    manager = manager_of(request, write)

    async def replace(current: Obj | None) -> Obj:
        return deep_copy(obj)

    async def mutate(new: Obj, current: Obj | None) -> Obj:
        if current is None:  # a PUT that creates
            new = record_create(scope, new, manager)
        else:
            new = record_update(scope, current, new, manager, info.subresource)
        await scope.admission.admit(attrs, new, current)
        return new

    async def validate(final: Obj, old: Obj | None) -> None:
        await scope.admission.validate(attrs, final, old)

    # kube's defaultUpdatedObjectInfo.Preconditions: a uid in the body must be the stored object's
    body_uid = (obj.get("metadata") or {}).get("uid")
    result, created = await scope.store.update(
        info.namespace,
        info.name,
        replace,
        write,
        strategy=strategy,
        mutate=mutate,
        validate=validate,
        preconditions=Preconditions(uid=body_uid) if isinstance(body_uid, str) and body_uid else None,
    )
    return write_object(result, negotiated, status=201 if created else 200, warnings=warnings)
