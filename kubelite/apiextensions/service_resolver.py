"""Where a webhook's Service reference is dialed (kube's ServiceResolver).

kube-apiserver dials a Service's cluster IP, or with --enable-aggregator-routing an endpoint; kubelite has no
cluster network, so a Service is reached through its endpoints: the first ready address of the Endpoints of
the same name, on the endpoint port named as the Service port (kube's ResolveEndpoint). A test starts its
webhook on loopback and points a selector-less Service's Endpoints at it, as one would for an out-of-cluster
webhook.
"""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.errors import StatusError
from kubelite.registry.registration import Registry


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


class EndpointsResolver:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    async def __call__(self, namespace: str, name: str, port: int) -> tuple[str, int]:
        try:
            service = await self.registry.store("", "services").get(namespace, name)
        except StatusError as exc:
            raise LookupError(f'service "{name}" not found') if exc.code == 404 else exc from exc
        spec = service.get("spec") or {}
        if spec.get("type") == "ExternalName":
            raise LookupError(f"service {namespace}/{name} is of type ExternalName, which has no endpoints")
        ports = _dicts(spec.get("ports"))
        chosen = next((p for p in ports if p.get("port") == port), None)
        if chosen is None:
            raise LookupError(f"service {namespace}/{name} has no port {port}")
        try:
            endpoints = await self.registry.store("", "endpoints").get(namespace, name)
        except StatusError as exc:
            raise LookupError(f'endpoints "{name}" not found') if exc.code == 404 else exc from exc
        for subset in _dicts(endpoints.get("subsets")):
            addresses = _dicts(subset.get("addresses"))
            subset_ports = _dicts(subset.get("ports"))
            if not addresses or not subset_ports:
                continue
            # the endpoint port of the Service port's name (kube's ResolveEndpoint: unnamed matches unnamed)
            target = next((p for p in subset_ports if (p.get("name") or "") == (chosen.get("name") or "")), None)
            if target is not None:
                return str(addresses[0].get("ip")), int(target.get("port") or port)
        raise LookupError(f"no endpoints available for service {name!r}")
