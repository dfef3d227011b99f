"""Server configuration, validated when it is built (flags named as kube-apiserver's)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path

from kubelite.controllers import catalog
from kubelite.controllers.selection import ControllerSelection, UnknownControllerError

KUBERNETES_VERSION = "v1.36.0"


class ConfigError(ValueError):
    pass


def is_loopback(address: str) -> bool:
    """Whether a bind address only listens on this machine (`localhost` counts; other names do not)."""
    if address.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        return False


#: a simulated node's size unless --node-capacity says otherwise (a roomy machine, as KWOK's default nodes)
DEFAULT_NODE_CAPACITY = {"cpu": "8", "memory": "32Gi", "pods": "110"}


@dataclass(frozen=True, slots=True)
class ClusterConfig:
    """The simulated cluster kubelite runs beside its API: nodes with their kubelets, the scheduler, and
    kube-controller-manager's controllers (`--controllers`, kube's syntax)."""

    nodes: int = 1
    node_name_prefix: str = "kubelite-node-"
    node_capacity: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_NODE_CAPACITY))
    controllers: tuple[str, ...] = ("*",)
    scheduler: bool = True
    #: one controller manager and one scheduler among replicas sharing a store, on Leases in kube-system
    leader_elect: bool = True

    def validate(self) -> None:
        if self.nodes < 0:
            raise ConfigError(f"--nodes {self.nodes} must not be negative")
        if self.nodes > 10000:
            raise ConfigError(f"--nodes {self.nodes} is more than the 10000 simulated nodes kubelite supports")
        try:
            self.controller_selection()
        except UnknownControllerError as exc:
            raise ConfigError(f"--controllers: {exc}") from exc

    def controller_selection(self) -> ControllerSelection:
        names, aliases, disabled = catalog.known_names()
        return ControllerSelection.parse(self.controllers, known=names, aliases=aliases, disabled_by_default=disabled)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    data_dir: Path
    cert_dir: Path
    insecure_port: int = 8080
    insecure_bind_address: str = "127.0.0.1"
    secure_port: int = 6443
    bind_address: str = "127.0.0.1"
    service_cluster_ip_range: str = "10.96.0.0/12"
    storage_backend: str = "sqlite"
    compaction_interval: float = 300.0
    watch_bookmark_interval: float = 60.0
    min_request_timeout: float = 1800.0
    #: the insecure port gives every caller cluster-admin: off loopback only when this acknowledges it
    insecure_allow_non_loopback: bool = False
    #: how long a client may take to send a request's line and headers (kube's ReadHeaderTimeout, 32 s)
    read_header_timeout: float = 32.0
    #: how long a keep-alive connection may wait for its next request (kube's IdleTimeout, 90 s)
    idle_timeout: float = 90.0
    #: seconds the start-up integrity check of the store may take (it then stops, with a warning); None skips it
    store_check_timeout: float | None = 10.0
    cluster: ClusterConfig = field(default_factory=ClusterConfig)

    def validate(self) -> None:
        self.cluster.validate()
        for name, port in (("--insecure-port", self.insecure_port), ("--secure-port", self.secure_port)):
            if not -1 <= port <= 65535:
                raise ConfigError(f"{name} {port} must be between 0 and 65535 (0 picks a free port, -1 disables)")
        try:
            network = ipaddress.ip_network(self.service_cluster_ip_range, strict=False)
        except ValueError as exc:
            raise ConfigError(f"--service-cluster-ip-range {self.service_cluster_ip_range!r} is not a CIDR") from exc
        if network.num_addresses < 8:
            raise ConfigError("--service-cluster-ip-range must hold at least 8 addresses (e.g. a /29 or larger)")
        if self.storage_backend != "sqlite":
            raise ConfigError(f"--storage-backend {self.storage_backend!r} is not supported; use sqlite")
        if not self.insecure_allow_non_loopback and self.insecure_port >= 0 and not is_loopback(
            self.insecure_bind_address
        ):
            raise ConfigError(
                f"--insecure-bind-address {self.insecure_bind_address} is not a loopback address, and the insecure"
                " port gives every caller cluster-admin without credentials; bind it to 127.0.0.1 or ::1, or"
                " acknowledge the exposure with --insecure-allow-non-loopback"
            )
        timeouts = (("--read-header-timeout", self.read_header_timeout), ("--idle-timeout", self.idle_timeout))
        for name, seconds in timeouts:
            if seconds <= 0:
                raise ConfigError(f"{name} must be positive (e.g. 32s)")
        if self.store_check_timeout is not None and self.store_check_timeout <= 0:
            raise ConfigError("--store-check-timeout must be positive (--skip-store-check skips the check)")
        if self.compaction_interval < 0:
            raise ConfigError("--etcd-compaction-interval must not be negative (0 disables compaction)")
