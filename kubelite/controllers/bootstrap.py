"""What kube-apiserver creates for itself at start: the system namespaces and the `kubernetes` Service
with its Endpoints pointing at the secure port (kube's bootstrap controller)."""

from __future__ import annotations

from kubelite.apimachinery.errors import StatusError
from kubelite.apimachinery.meta import Obj
from kubelite.registry.builtin import Registry
from kubelite.registry.options import WriteParams
from kubelite.registry.store import Store

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")

#: the priority classes kube-apiserver creates for system-critical pods
SYSTEM_PRIORITY_CLASSES = (
    (
        "system-node-critical",
        2000001000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2000000000,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
)


async def ensure_exists(store: Store, namespace: str, obj: Obj) -> None:
    """Create `obj` unless an object of its name exists; losing a race to create it (409) is fine."""
    try:
        await store.get(namespace, obj["metadata"]["name"])
    except StatusError as exc:
        if exc.code != 404:
            raise
        try:
            await store.create(namespace, obj, WriteParams())
        except StatusError as create_exc:
            if create_exc.code != 409:
                raise


async def bootstrap(registry: Registry, *, service_ip: str, advertise_address: str, secure_port: int) -> None:
    for name in SYSTEM_NAMESPACES:
        await ensure_exists(registry.store("", "namespaces"), "", {"metadata": {"name": name}})
    for name, value, description in SYSTEM_PRIORITY_CLASSES:
        await ensure_exists(
            registry.store("scheduling.k8s.io", "priorityclasses"),
            "",
            {
                "metadata": {"name": name},
                "value": value,
                "description": description,
            },
        )
    labels = {"component": "apiserver", "provider": "kubernetes"}
    await ensure_exists(
        registry.store("", "services"),
        "default",
        {
            "metadata": {"name": "kubernetes", "namespace": "default", "labels": labels},
            "spec": {
                "clusterIP": service_ip,
                "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": secure_port}],
                "sessionAffinity": "None",
                "type": "ClusterIP",
            },
        },
    )
    endpoints = registry.store("", "endpoints")
    desired = [
        {"addresses": [{"ip": advertise_address}], "ports": [{"name": "https", "port": secure_port, "protocol": "TCP"}]}
    ]

    async def point_at_us(current: Obj | None) -> Obj:
        obj = current or {
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"},
            }
        }
        obj["subsets"] = desired
        return obj

    await endpoints.update("default", "kubernetes", point_at_us, WriteParams(), allow_create=True)

    # kube-apiserver publishes itself in an EndpointSlice of the same name too (what kubectl describe reads);
    # without a managed-by label, so the EndpointSlice controller leaves it alone
    slices = registry.store("discovery.k8s.io", "endpointslices")
    endpoint = {"addresses": [advertise_address], "conditions": {"ready": True}}
    slice_ports = [{"name": "https", "port": secure_port, "protocol": "TCP"}]

    async def slice_at_us(current: Obj | None) -> Obj:
        obj = current or {"metadata": {"name": "kubernetes", "namespace": "default"}}
        obj["metadata"]["labels"] = {"kubernetes.io/service-name": "kubernetes"}
        obj.update(addressType="IPv6" if ":" in advertise_address else "IPv4", endpoints=[endpoint], ports=slice_ports)
        return obj

    await slices.update("default", "kubernetes", slice_at_us, WriteParams(), allow_create=True)
