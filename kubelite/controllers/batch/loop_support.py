"""What the Job, CronJob and TTL-after-finished loops share: reading the clock as a datetime, finding an
object's controlling owner, and remembering writes whose echo the informers have not delivered yet.

Informers lag the writes a loop makes. A loop that reads its own object back before the watch brings the new
version would act on the old status a second time (count a finished pod twice, start a run again), so each
write is remembered until the cache has moved past it: `StatusWrites` for the loop's own object, and
`FinalizerExpectations` for the tracking finalizers a Job removed from its pods (kube's finalizer
expectations). Both forget after a TTL, as kube's expectations do, in case a watch event was lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kubelite.client.clock import Clock

#: how long a remembered write or finalizer removal holds a sync back (kube's ExpectationsTimeout)
EXPECTATIONS_TTL_SECONDS = 300.0


def now_of(clock: Clock) -> datetime:
    """The clock's wall time as the aware datetime the pure logic reads."""
    return datetime.fromtimestamp(clock.now(), UTC)


def controller_of(obj: Mapping[str, Any], api_version: str, kind: str) -> dict[str, Any] | None:
    """The owner reference marked controller, when it is of `kind` in `api_version`'s group."""
    group = api_version.split("/")[0] if "/" in api_version else ""
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if not ref.get("controller"):
            continue
        ref_version = str(ref.get("apiVersion") or "")
        ref_group = ref_version.split("/")[0] if "/" in ref_version else ""
        # another version of the same group still names the same controller, as kube compares group and kind
        if ref.get("kind") == kind and ref_group == group:
            return dict(ref)
        return None
    return None


def with_kind(obj: Mapping[str, Any], api_version: str, kind: str) -> dict[str, Any]:
    """The object with apiVersion and kind filled in (an event's involvedObject names them)."""
    return {**obj, "apiVersion": obj.get("apiVersion") or api_version, "kind": obj.get("kind") or kind}


@dataclass
class StatusWrites:
    """Per key, the resourceVersions a loop's writes have replaced: while the cache still shows one of them,
    it has not seen the loop's latest write."""

    ttl: float = EXPECTATIONS_TTL_SECONDS
    _replaced: dict[str, tuple[set[str], float]] = field(default_factory=dict)

    def wrote(self, key: str, replaced: str, now: float) -> None:
        versions, _ = self._replaced.get(key, (set(), now))
        versions.add(replaced)
        self._replaced[key] = (versions, now)

    def stale(self, key: str, cached: str, now: float) -> bool:
        """Whether `cached` is a version this loop has already replaced (so the cache lags)."""
        entry = self._replaced.get(key)
        if entry is None:
            return False
        versions, since = entry
        if cached in versions and now - since <= self.ttl:
            return True
        del self._replaced[key]
        return False

    def forget(self, key: str) -> None:
        self._replaced.pop(key, None)


@dataclass
class FinalizerExpectations:
    """Per Job key, the uids of pods whose tracking finalizer the loop removed and the cache still shows."""

    ttl: float = EXPECTATIONS_TTL_SECONDS
    _pending: dict[str, dict[str, float]] = field(default_factory=dict)

    def expect_removals(self, key: str, uids: list[str], now: float) -> None:
        pending = self._pending.setdefault(key, {})
        for uid in uids:
            pending[uid] = now

    def observed(self, key: str, uid: str) -> None:
        pending = self._pending.get(key)
        if pending is not None:
            pending.pop(uid, None)
            if not pending:
                del self._pending[key]

    def pending(self, key: str, now: float) -> bool:
        found = self._pending.get(key)
        if not found:
            return False
        live = {uid: since for uid, since in found.items() if now - since <= self.ttl}
        if live:
            self._pending[key] = live
            return True
        del self._pending[key]
        return False

    def forget(self, key: str) -> None:
        self._pending.pop(key, None)
