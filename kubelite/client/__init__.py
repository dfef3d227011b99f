"""kubelite.client: client-go's machinery for Python, asyncio first.

    config / kubeconfig   where the server is and who we are (kubeconfig, KUBECONFIG merging, in-cluster)
    rest                  JSON requests with retries and typed Status errors (errors.py), watch streams (watch.py)
    discovery, dynamic    every resource of the server, by name or by kind, objects as dicts
    cache/                reflector -> FIFO -> indexer -> handlers: shared informers, listers
    workqueue/            dirty/processing queue, delays, rate-limited retries
    leaderelection/       one leader among candidates, on a coordination.k8s.io Lease

It uses only the documented Kubernetes API, so it works against kubelite and any conformant kube-apiserver.
"""

from kubelite.client.config import Config, load_config, load_incluster_config, load_kube_config
from kubelite.client.discovery import APIResource, DiscoveryClient
from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.errors import (
    AlreadyExists,
    ApiError,
    BadRequest,
    ClientError,
    ConfigError,
    Conflict,
    ConnectionRefused,
    Expired,
    Forbidden,
    Gone,
    InternalError,
    Invalid,
    NotFound,
    TooManyRequests,
    TransportError,
    Unauthorized,
)
from kubelite.client.rest import RESTClient
from kubelite.client.schema import GroupVersionKind, GroupVersionResource
from kubelite.client.watch import WatchEvent, WatchStream

__all__ = [
    "APIResource",
    "AlreadyExists",
    "ApiError",
    "BadRequest",
    "ClientError",
    "Config",
    "ConfigError",
    "Conflict",
    "ConnectionRefused",
    "DiscoveryClient",
    "DynamicClient",
    "Expired",
    "Forbidden",
    "Gone",
    "GroupVersionKind",
    "GroupVersionResource",
    "InternalError",
    "Invalid",
    "NotFound",
    "RESTClient",
    "ResourceClient",
    "TooManyRequests",
    "TransportError",
    "Unauthorized",
    "WatchEvent",
    "WatchStream",
    "load_config",
    "load_incluster_config",
    "load_kube_config",
]
