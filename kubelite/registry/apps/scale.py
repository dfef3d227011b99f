"""The scale subresource (autoscaling/v1 Scale) over any workload with a replica count: the built-in workloads'
spec.replicas, or the paths a custom resource's CRD names (`subresources.scale`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubelite.apimachinery import errors, gofmt
from kubelite.apimachinery.meta import Obj
from kubelite.registry.apps.workloads import scale_selector
from kubelite.registry.options import WriteParams
from kubelite.registry.rest import UpdateFunc
from kubelite.registry.store import Store


@dataclass(frozen=True, slots=True)
class ScalePaths:
    """Where a kind keeps what its Scale shows: the desired and current replicas and the selector text."""

    spec_replicas: tuple[str, ...] = ("spec", "replicas")
    status_replicas: tuple[str, ...] = ("status", "replicas")
    #: the selector as Scale.status.selector shows it; None: the kind's has none
    selector: Callable[[Obj], str] | None = scale_selector


#: the built-in workloads' (deployments, replica sets, stateful sets, replication controllers)
WORKLOAD_SCALE = ScalePaths()


def _read(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _replicas(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def to_scale(obj: Obj, paths: ScalePaths = WORKLOAD_SCALE) -> Obj:
    meta = obj["metadata"]
    status: dict[str, Any] = {"replicas": _replicas(_read(obj, paths.status_replicas))}
    selector = paths.selector(obj) if paths.selector is not None else ""
    if selector:  # omitted when empty, as Go's omitempty writes Scale.status.selector
        status["selector"] = selector
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if k in meta
        },
        "spec": {"replicas": _replicas(_read(obj, paths.spec_replicas))},
        "status": status,
    }


_INT32 = (-(2**31), 2**31 - 1)


def _decoded_replicas(value: Any) -> int:
    """spec.replicas as decoding into autoscaling/v1 ScaleSpec (an int32 with omitempty) leaves it: absent or
    null is 0, which scales to zero; a value the int32 cannot hold is the decoder's 400."""
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 2.0 from YAML or a patch result: encoding/json writes it as 2
    if isinstance(value, int) and not isinstance(value, bool) and _INT32[0] <= value <= _INT32[1]:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        what = f"number {value}"
    else:
        what = gofmt.json_type(value)
    raise errors.bad_request(
        'Scale in version "v1" cannot be handled as a Scale: '
        f"json: cannot unmarshal {what} into Go struct field ScaleSpec.spec.replicas of type int32"
    )


async def update_scale(
    store: Store,
    namespace: str,
    name: str,
    change: UpdateFunc,
    params: WriteParams,
    paths: ScalePaths = WORKLOAD_SCALE,
) -> Obj:
    """Apply `change` to the current Scale, then write its replicas (and resourceVersion) into the workload."""

    async def update(current: Obj | None) -> Obj:
        if current is None:
            raise errors.not_found(store.spec.group_resource, name)
        scale = await change(to_scale(current, paths))
        spec = scale.get("spec")
        if spec is not None and not isinstance(spec, dict):
            raise errors.bad_request(
                'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal '
                f"{gofmt.json_type(spec)} into Go struct field Scale.spec of type v1.ScaleSpec"
            )
        replicas = _decoded_replicas((spec or {}).get("replicas"))
        if replicas < 0:
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
        target = current
        for key in paths.spec_replicas[:-1]:
            child = target.get(key)
            if not isinstance(child, dict):
                child = target[key] = {}
            target = child
        target[paths.spec_replicas[-1]] = replicas
        if rv:
            current["metadata"]["resourceVersion"] = rv
        return current

    result, _ = await store.update(namespace, name, update, params, allow_create=False)
    return to_scale(result, paths)
