"""The scale subresource (autoscaling/v1 Scale) over any workload with spec.replicas."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.meta import Obj
from kubelite.registry.apps.workloads import scale_selector
from kubelite.registry.options import WriteParams
from kubelite.registry.store import Store, UpdateFunc


def to_scale(obj: Obj) -> Obj:
    meta = obj["metadata"]
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta
        },
        "spec": {"replicas": int((obj.get("spec") or {}).get("replicas") or 0)},
        "status": {"replicas": int((obj.get("status") or {}).get("replicas") or 0), "selector": scale_selector(obj)},
    }


async def update_scale(store: Store, namespace: str, name: str, change: UpdateFunc, params: WriteParams) -> Obj:
    """Apply `change` to the current Scale, then write its replicas (and resourceVersion) into the workload."""

    async def update(current: Obj | None) -> Obj:
        if current is None:
            raise errors.not_found(store.spec.group_resource, name)
        scale = await change(to_scale(current))
        # ScaleSpec.replicas is a plain int32 with omitempty: absent or null decodes as 0, which scales to zero
        replicas: Any = (scale.get("spec") or {}).get("replicas")
        if replicas is None:
            replicas = 0
        if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
            raise errors.invalid(
                "autoscaling",
                "Scale",
                name,
                [
                    errors.Cause(
                        "FieldValueInvalid",
                        f"Invalid value: {replicas}: must be greater than or equal to 0",
                        "spec.replicas",
                    )
                ],
            )
        rv = (scale.get("metadata") or {}).get("resourceVersion")
        current.setdefault("spec", {})["replicas"] = replicas
        if rv:
            current["metadata"]["resourceVersion"] = rv
        return current

    result, _ = await store.update(namespace, name, update, params, allow_create=False)
    return to_scale(result)
