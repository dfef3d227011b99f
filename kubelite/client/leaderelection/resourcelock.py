"""The lock a leader election holds: a `coordination.k8s.io/v1` Lease (client-go's `resourcelock/leaselock.go`).

The lease's spec is the election record: who holds it, for how long, when it was acquired and last renewed, and
how often it changed hands. Updates are conditional on the resourceVersion of the lease as last read, so of two
candidates racing for an expired lease exactly one wins and the other gets a 409 Conflict.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from kubelite.client.dynamic import DynamicClient, ResourceClient
from kubelite.client.errors import ClientError

LEASES = ("coordination.k8s.io", "v1", "leases")


def format_micro_time(timestamp: float) -> str:
    """metav1.MicroTime: RFC 3339 in UTC with microseconds."""
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_micro_time(text: str | None) -> float | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass(frozen=True)
class LeaderElectionRecord:
    holder_identity: str = ""
    lease_duration_seconds: int = 0
    #: wall-clock seconds since the epoch
    acquire_time: float | None = None
    renew_time: float | None = None
    leader_transitions: int = 0

    def raw(self) -> bytes:
        """A canonical encoding: two reads are the same observation iff their raw records are equal."""
        return orjson.dumps(dataclasses.asdict(self))


class ResourceLock(Protocol):
    identity: str

    async def get(self) -> LeaderElectionRecord:
        """The current record (raises NotFound when the lock object does not exist)."""
        ...

    async def create(self, record: LeaderElectionRecord) -> None: ...

    async def update(self, record: LeaderElectionRecord) -> None:
        """Write the record over the version last read or written (raises Conflict if it changed since)."""
        ...

    def describe(self) -> str: ...


def _spec(record: LeaderElectionRecord) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "holderIdentity": record.holder_identity,
        "leaseDurationSeconds": record.lease_duration_seconds,
        "leaseTransitions": record.leader_transitions,
    }
    if record.acquire_time is not None:
        spec["acquireTime"] = format_micro_time(record.acquire_time)
    if record.renew_time is not None:
        spec["renewTime"] = format_micro_time(record.renew_time)
    return spec


def record_from_lease(lease: dict[str, Any]) -> LeaderElectionRecord:
    spec = lease.get("spec") or {}
    return LeaderElectionRecord(
        holder_identity=spec.get("holderIdentity") or "",
        lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
        acquire_time=parse_micro_time(spec.get("acquireTime")),
        renew_time=parse_micro_time(spec.get("renewTime")),
        leader_transitions=int(spec.get("leaseTransitions") or 0),
    )


class LeaseLock:
    def __init__(self, leases: ResourceClient, *, namespace: str, name: str, identity: str) -> None:
        self.leases = leases.namespace(namespace)
        self.namespace = namespace
        self.name = name
        self.identity = identity
        #: the lease as last read or written; its resourceVersion guards the next update
        self._lease: dict[str, Any] | None = None

    @classmethod
    def for_client(cls, client: DynamicClient, *, namespace: str, name: str, identity: str) -> LeaseLock:
        return cls(client.resource(LEASES), namespace=namespace, name=name, identity=identity)

    async def get(self) -> LeaderElectionRecord:
        self._lease = await self.leases.get(self.name)
        return record_from_lease(self._lease)

    async def create(self, record: LeaderElectionRecord) -> None:
        lease = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": _spec(record),
        }
        self._lease = await self.leases.create(lease)

    async def update(self, record: LeaderElectionRecord) -> None:
        if self._lease is None:
            raise ClientError("lease not initialized, call get or create first")
        lease = {**self._lease, "spec": {**(self._lease.get("spec") or {}), **_spec(record)}}
        self._lease = await self.leases.update(lease)

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"
