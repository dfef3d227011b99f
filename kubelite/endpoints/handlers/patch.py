"""PATCH: apply a JSON patch, a JSON merge patch or a strategic merge patch to the stored object, through the
update path; a server-side apply patch (`application/apply-patch+yaml`) goes to `apply.py`. Any other
Content-Type is 415.

The patch is applied inside guaranteed_update, so a lost race re-reads the object and re-applies the patch
(kube's patcher), and the patched object gets its field manager's Update entry in managedFields before
admission. A `metadata.resourceVersion` carried by the patch is a precondition, as in kube.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from kubelite.admission import Attributes
from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.patch.json_patch import JSONPatchError, apply_json_patch
from kubelite.apimachinery.patch.merge import apply_merge_patch
from kubelite.apimachinery.patch.strategic import StrategicMergeError, apply_strategic_merge_patch
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.apply import apply as server_side_apply
from kubelite.endpoints.handlers.field_tracking import manager_of, record_update
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.patch_schema import default_lookup, schema_for
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_context import user_from
from kubelite.endpoints.request_info import RequestInfo
from kubelite.registry.spec import ResourceSpec

_SUPPORTED = (serializers.JSON_PATCH, serializers.MERGE_PATCH, serializers.STRATEGIC_MERGE_PATCH)
_CUSTOM_SUPPORTED = (serializers.JSON_PATCH, serializers.MERGE_PATCH)

#: kube's limit on the operations of one JSON patch
MAX_JSON_PATCH_OPERATIONS = 10_000
#: what the copies of one JSON patch may add, in bytes of JSON (kube's --json-patch-max-copy-bytes default)
JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024


def apply_limited_json_patch(current: Obj, operations: list[Any]) -> Obj:
    """A JSON patch applied within kube's limits: operations, accumulated copies, and the result's size."""
    if len(operations) > MAX_JSON_PATCH_OPERATIONS:  # kube counts them where it applies them
        raise errors.StatusError(
            413,
            "RequestEntityTooLarge",
            "Request entity too large: The allowed maximum operations in a JSON patch is "
            f"{MAX_JSON_PATCH_OPERATIONS}, got {len(operations)}",
        )
    try:
        result = apply_json_patch(current, operations, copy_size_limit=JSON_PATCH_MAX_COPY_BYTES)
    except JSONPatchError as exc:
        raise errors.patch_not_applicable() from exc
    if not isinstance(result, dict):
        raise errors.bad_request("the patch result is not an object")
    return check_result_size(result)


def check_result_size(result: Obj) -> Obj:
    """A patched object larger than a request body could be is refused, as the request it stands for.

    kube leaves this to etcd, which refuses the write with a 500; kubelite answers the 413 a body of that
    size gets. Merge and strategic patches cannot grow past patch plus object; JSON patches are bounded
    by their copy limit; this is the last word on all of them.
    """
    if len(serializers.dumps_json(result)) > params.MAX_BODY_BYTES:
        raise errors.request_entity_too_large(params.MAX_BODY_BYTES)
    return result


def _strategic(spec: ResourceSpec, patch: dict[str, Any]) -> Callable[[Obj], Obj]:
    schema = schema_for(spec.group, spec.version, spec.kind)
    lookup = default_lookup()

    def strategic_patch(current: Obj) -> Obj:
        try:
            return check_result_size(apply_strategic_merge_patch(current, patch, schema, lookup))
        except StrategicMergeError as exc:
            # kube answers some of these with a 500; bad input is the client's error, so it is a 4xx here
            code = exc.code if 400 <= exc.code < 500 else 400
            raise errors.StatusError(code, exc.reason or "BadRequest", exc.message) from exc

    return strategic_patch


def _patcher(content_type: str, patch: Any, spec: ResourceSpec) -> Callable[[Obj], Obj]:
    if content_type == serializers.JSON_PATCH:
        if not isinstance(patch, list):
            raise errors.bad_request(
                f"json: cannot unmarshal {serializers.go_json_type(patch)} into Go value of type jsonpatch.Patch"
            )

        return lambda current: apply_limited_json_patch(current, patch)
    if not isinstance(patch, dict):
        raise errors.bad_request("json: cannot unmarshal array into Go value of type map[string]interface {}")
    if content_type == serializers.STRATEGIC_MERGE_PATCH:
        return _strategic(spec, patch)
    return lambda current: check_result_size(apply_merge_patch(current, patch))


async def patch(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    content_type = serializers.content_type_of(request.headers.get("Content-Type"))
    if content_type == serializers.APPLY_PATCH:
        return await server_side_apply(request, scope, info)
    # custom resources have no Go types to carry patch strategies: kube's CR handler offers no strategic merge
    supported = _CUSTOM_SUPPORTED if scope.spec.custom and info.subresource != "scale" else _SUPPORTED
    if content_type not in supported:
        raise errors.StatusError(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            + ", ".join((*supported, serializers.APPLY_PATCH)),
        )
    if "force" in request.query:
        raise errors.invalid(
            "meta.k8s.io",
            "PatchOptions",
            "",
            [errors.Cause("FieldValueForbidden", "Forbidden: may not be specified for non-apply patch", "force")],
        )
    write = params.write_params(request)
    body = await params.read_body(request)
    apply = _patcher(content_type, serializers.decode_body(body, content_type), scope.spec)
    strategy = scope.write_strategy(info.subresource, info.name)
    attrs = Attributes(
        "UPDATE", scope.spec, info.namespace, info.name, info.subresource, user_from(request), write.dry_run
    )

    warnings: list[str] = []
    directive = request.query.get("fieldValidation")
    manager = manager_of(request, write)

    async def patched(current: Obj | None) -> Obj:
        if current is None:
            raise errors.not_found(scope.spec.group_resource, info.name)
        new = apply(current)
        numbers = body if content_type == serializers.MERGE_PATCH else None  # kube merges JSON text
        warnings[:] = field_validation.check(scope.spec, new, b"", directive, False, numbers=numbers)
        return new

    async def mutate(new: Obj, old: Obj | None) -> Obj:
        assert old is not None  # patches never create
        new = record_update(scope, old, new, manager, info.subresource)
        await scope.admission.admit(attrs, new, old)
        return new

    async def validate(final: Obj, old: Obj | None) -> None:
        await scope.admission.validate(attrs, final, old)

    result, _ = await scope.store.update(
        info.namespace,
        info.name,
        patched,
        write,
        strategy=strategy,
        mutate=mutate,
        validate=validate,
        allow_create=False,
    )
    return write_object(result, negotiated, warnings=warnings)
