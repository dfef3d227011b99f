"""The node's heartbeat: its Lease in `kube-node-lease`, as the kubelet's node lease controller keeps it.

The kubelet creates `kube-node-lease/<node name>` with `holderIdentity` the node name, `leaseDurationSeconds` 40
(`nodeLeaseDurationSeconds`) and an owner reference to its Node (so the Lease goes with the Node), and renews
`renewTime` every quarter of the duration: 10 s (pkg/kubelet/nodelease, `NodeLeaseRenewIntervalFraction` 0.25).
A failed renewal is retried after 200 ms, doubling up to 7 s. The node lifecycle controller calls a node
unreachable when neither its lease nor its status moved for `node-monitor-grace-period` (50 s since 1.32).
`renewTime` is a MicroTime: microsecond precision.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kubelite.apimachinery.meta import Obj, deep_copy

NODE_LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40
RENEW_INTERVAL = timedelta(seconds=LEASE_DURATION_SECONDS * 0.25)
RETRY_INITIAL = timedelta(milliseconds=200)
RETRY_MAX = timedelta(seconds=7)


def micro_time(when: datetime) -> str:
    """metav1.MicroTime's wire form: `2006-01-02T15:04:05.000000Z`."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def build_lease(node_name: str, now: datetime, *, node_uid: str | None = None) -> Obj:
    """The Lease the kubelet creates; the owner reference only once the Node's uid is known."""
    metadata: dict[str, object] = {"name": node_name, "namespace": NODE_LEASE_NAMESPACE}
    if node_uid:
        metadata["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid}]
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": {
            "holderIdentity": node_name,
            "leaseDurationSeconds": LEASE_DURATION_SECONDS,
            "renewTime": micro_time(now),
        },
    }


def renewed_lease(lease: Obj, now: datetime, *, node_uid: str | None = None) -> Obj:
    """A copy of `lease` renewed at `now` (and owned by the Node, if it was not yet)."""
    renewed: Obj = deep_copy(lease)
    spec = renewed.setdefault("spec", {})
    spec["holderIdentity"] = renewed["metadata"]["name"]
    spec["leaseDurationSeconds"] = LEASE_DURATION_SECONDS
    spec["renewTime"] = micro_time(now)
    if node_uid and not renewed["metadata"].get("ownerReferences"):
        name = renewed["metadata"]["name"]
        renewed["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": node_uid}]
    return renewed


def next_renewal(renewed_at: datetime) -> datetime:
    return renewed_at + RENEW_INTERVAL


def retry_delay(failures: int) -> timedelta:
    """The wait before the next attempt after `failures` consecutive failed renewals (1 or more)."""
    delay = RETRY_INITIAL * (2 ** max(failures - 1, 0))
    return min(delay, RETRY_MAX)


def lease_expired(lease: Obj, now: datetime) -> bool:
    """Whether the holder missed its renewal by the lease's whole duration."""
    spec = lease.get("spec") or {}
    renew = spec.get("renewTime")
    if not renew:
        return True
    renewed_at = datetime.fromisoformat(renew.replace("Z", "+00:00"))
    return now > renewed_at + timedelta(seconds=spec.get("leaseDurationSeconds") or LEASE_DURATION_SECONDS)
