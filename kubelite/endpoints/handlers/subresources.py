"""Handlers of subresources that are not the object itself: scale, binding, eviction, log."""

from __future__ import annotations

from aiohttp import web

from kubelite.apimachinery import errors, serializers
from kubelite.apimachinery.meta import Obj, deep_copy, now, rfc3339
from kubelite.apimachinery.patch.merge import apply_merge_patch
from kubelite.apimachinery.patch.strategic import apply_strategic_merge_patch
from kubelite.endpoints.handlers import field_validation, params
from kubelite.endpoints.handlers.negotiation import negotiate, write_object
from kubelite.endpoints.handlers.patch import apply_limited_json_patch, check_result_size
from kubelite.endpoints.handlers.patch_schema import default_lookup, schema_for
from kubelite.endpoints.handlers.scope import RequestScope
from kubelite.endpoints.request_info import RequestInfo
from kubelite.registry.apps.scale import WORKLOAD_SCALE, ScalePaths, to_scale, update_scale
from kubelite.registry.catalog import BUILTIN_RESOURCES
from kubelite.registry.core.pods import PodBindingStrategy

#: the resource a Binding body is decoded as, whichever path it is posted to
BINDING = next(spec for spec in BUILTIN_RESOURCES if (spec.group, spec.resource) == ("", "bindings"))


async def scale(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    # a custom resource's store says where its CRD keeps the replicas; the built-in workloads keep spec.replicas
    paths: ScalePaths = getattr(scope.store, "scale_paths", None) or WORKLOAD_SCALE
    if info.verb == "get":
        return write_object(to_scale(await scope.store.get(info.namespace, info.name), paths), negotiated)
    write = params.write_params(request)
    if info.verb == "update":
        body = await params.read_object(request, kind="Scale", version="v1")  # autoscaling/v1, whatever the parent

        params.check_name(body, info.namespace, info.name)

        async def replace(current: Obj | None) -> Obj:
            return deep_copy(body)

        return write_object(
            await update_scale(scope.store, info.namespace, info.name, replace, write, paths), negotiated
        )
    if info.verb == "patch":
        content_type = serializers.content_type_of(request.headers.get("Content-Type"))
        patch_body = serializers.decode_body(await params.read_body(request), content_type)

        async def patched(current: Obj | None) -> Obj:
            assert current is not None
            if content_type == serializers.JSON_PATCH:
                if not isinstance(patch_body, list):
                    raise errors.patch_not_applicable()
                return apply_limited_json_patch(current, patch_body)
            if content_type == serializers.STRATEGIC_MERGE_PATCH:
                return check_result_size(
                    apply_strategic_merge_patch(
                        current, patch_body, schema_for("autoscaling", "v1", "Scale"), default_lookup()
                    )
                )
            if content_type == serializers.MERGE_PATCH:
                return check_result_size(apply_merge_patch(current, patch_body))
            raise errors.unsupported_media_type(content_type)

        if scope.spec.custom and content_type == serializers.STRATEGIC_MERGE_PATCH:
            # kube's CRD handler offers a custom resource's /scale the patch types of the resource itself
            raise errors.StatusError(
                415,
                "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                f"{serializers.JSON_PATCH}, {serializers.MERGE_PATCH}, {serializers.APPLY_PATCH}",
            )
        return write_object(
            await update_scale(scope.store, info.namespace, info.name, patched, write, paths), negotiated
        )
    raise errors.method_not_allowed()


async def binding(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    """POST pods/{name}/binding (or the bindings collection): assign a pod to a node, once."""
    if info.verb != "create":
        raise errors.method_not_allowed()
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    write = params.write_params(request)
    body, raw, media_type = await params.read_object_and_body(request, kind="Binding", version="v1")
    # typed as kube decodes a Binding, also on pods/binding (whose scope is the pods')
    warnings = field_validation.check(
        BINDING, body, raw, request.query.get("fieldValidation"), media_type == serializers.JSON
    )
    meta = body.get("metadata") or {}
    name = info.name if info.subresource else str(meta.get("name") or "")
    if info.subresource and meta.get("name") and meta["name"] != info.name:
        raise errors.bad_request("name in URL does not match name in Binding object")
    target = body.get("target") or {}
    node = target.get("name")
    if not node:
        raise errors.invalid("", "Binding", name, [errors.Cause("FieldValueRequired", "Required value", "target.name")])

    # kube's BindingREST reports a missing pod as pods, and a refused binding as a conflict on pods/binding
    pods_resource, binding_resource = errors.GroupResource("", "pods"), errors.GroupResource("", "pods/binding")

    async def bind(current: Obj | None) -> Obj:
        if current is None:
            raise errors.not_found(pods_resource, name)
        if meta.get("uid") and meta["uid"] != current["metadata"].get("uid"):
            # the Binding's uid is a precondition, checked first: a pod recreated under its name is not bound
            raise errors.conflict(
                pods_resource,
                name,
                f"Precondition failed: UID in precondition: {meta['uid']}, "
                f"UID in object meta: {current['metadata'].get('uid')}",
            )
        if current["metadata"].get("deletionTimestamp"):
            raise errors.conflict(binding_resource, name, f"pod {name} is being deleted, cannot be assigned to a host")
        spec = current.setdefault("spec", {})
        if spec.get("nodeName"):
            raise errors.conflict(
                binding_resource, name, f'pod {name} is already assigned to node "{spec["nodeName"]}"'
            )
        spec["nodeName"] = node
        for key, value in (meta.get("annotations") or {}).items():
            current["metadata"].setdefault("annotations", {})[key] = value
        _set_scheduled(current)
        return current

    pods = scope.store
    await pods.update(info.namespace, name, bind, write, allow_create=False, strategy=PodBindingStrategy(pods.spec))
    return write_object(
        {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201},
        negotiated,
        status=201,
        warnings=warnings,
    )


def _set_scheduled(pod: Obj) -> None:
    """kube's assignPod sets PodScheduled=True with the node, in the same write (podutil.UpdatePodCondition)."""
    status = pod.setdefault("status", {})
    conditions = status.setdefault("conditions", [])
    condition = {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": rfc3339(now())}
    for index, existing in enumerate(conditions):
        if isinstance(existing, dict) and existing.get("type") == "PodScheduled":
            if existing.get("status") == "True" and existing.get("lastTransitionTime"):
                condition["lastTransitionTime"] = existing["lastTransitionTime"]
            conditions[index] = condition
            return
    conditions.append(condition)


async def eviction(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    """POST pods/{name}/eviction: delete the pod if its disruption budget allows (registry/core/pod_eviction)."""
    if info.verb != "create":
        raise errors.method_not_allowed()
    negotiated = negotiate(request.headers.get("Accept"), allow_conversion=False)
    query_dry_run = request.query.getall("dryRun", [])
    params.write_params(request)  # the query's own checks
    body = await params.read_object(request, kind="Eviction", version="v1")
    if str((body.get("metadata") or {}).get("name") or "") != info.name:
        raise errors.bad_request("name in URL does not match name in Eviction object")
    raw_options = body.get("deleteOptions")
    body_dry_run = list((raw_options or {}).get("dryRun") or []) if isinstance(raw_options, dict) else []
    if body_dry_run and query_dry_run and body_dry_run != query_dry_run:
        raise errors.bad_request(
            f"Non-matching dry-run options in request and content: [{' '.join(query_dry_run)}] and "
            f"[{' '.join(body_dry_run)}]"
        )
    options = params.delete_params({}, query_dry_run, raw_options)
    evictions = scope.subresource_storages["eviction"]
    result: Obj = await evictions.evict(info.namespace, info.name, options)  # type: ignore[attr-defined]
    return write_object(result, negotiated, status=int(result.get("code") or 201))


async def log(request: web.Request, scope: RequestScope, info: RequestInfo) -> web.StreamResponse:
    """pods/{name}/log: kubelite runs no containers, so a scheduled pod has an empty log."""
    pod = await scope.store.get(info.namespace, info.name)
    containers = [c.get("name") for c in (pod.get("spec") or {}).get("containers") or []]
    container = request.query.get("container")
    if not container and len(containers) > 1:
        raise errors.bad_request(
            f"a container name must be specified for pod {info.name}, choose one of: [{' '.join(containers)}]"
        )
    if container and container not in containers:
        raise errors.bad_request(f"container {container} is not valid for pod {info.name}")
    if not (pod.get("spec") or {}).get("nodeName"):
        raise errors.bad_request(f"pod {info.name} does not have a host assigned")
    return web.Response(body=b"", content_type="text/plain")
