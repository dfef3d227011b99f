"""Leader election on a coordination.k8s.io/v1 Lease (client-go's `tools/leaderelection`)."""

from kubelite.client.leaderelection.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElector,
    run_leader_election,
)
from kubelite.client.leaderelection.resourcelock import LeaderElectionRecord, LeaseLock, ResourceLock

__all__ = [
    "LeaderCallbacks",
    "LeaderElectionConfig",
    "LeaderElectionRecord",
    "LeaderElector",
    "LeaseLock",
    "ResourceLock",
    "run_leader_election",
]
