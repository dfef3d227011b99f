"""Serve metrics.k8s.io/v1beta1 when kubelite simulates nodes, as a cluster with metrics-server installed does.

kube-apiserver itself does not serve the group: metrics-server registers the APIService
`v1beta1.metrics.k8s.io` and the aggregator proxies to it. kubelite has no aggregator, and its samples are
computed from the stored pods (`registry/metrics`), so the group is installed like a built-in one, beside the
others, on the same routes and discovery. An API server without simulated nodes has nobody to sample and
does not serve it, as a cluster without metrics-server does not.
"""

from __future__ import annotations

from kubelite.cluster.kubelet.simulation import container_usage
from kubelite.endpoints.installer import ResourceRoutes, ScopeOptions
from kubelite.registry.metrics.resource_metrics import (
    NODE_METRICS,
    POD_METRICS,
    NodeMetricsStorage,
    PodMetricsStorage,
)
from kubelite.registry.registration import Registry


def install_metrics_api(routes: ResourceRoutes, registry: Registry, options: ScopeOptions) -> None:
    pods, nodes = registry.store("", "pods"), registry.store("", "nodes")
    routes.install(POD_METRICS, PodMetricsStorage(pods, container_usage, registry.clock), {}, options)
    routes.install(NODE_METRICS, NodeMetricsStorage(nodes, pods, container_usage, registry.clock), {}, options)
