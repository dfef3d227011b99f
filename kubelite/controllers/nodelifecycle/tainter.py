"""The rate-limited queue of nodes waiting for their NoExecute taint (kube's RateLimitedTimedQueue with a
token bucket, one per zone), on times given by the caller.

Tainting a node NoExecute evicts its pods, so kube adds those taints at `--node-eviction-rate` (0.1 nodes a
second, a burst of one) per zone: one node goes at once, a whole rack going down is evicted over minutes.
A node stays a member after its taint is added (so it is not queued again) until it is removed, when it is
healthy again or its taint must change.
"""

from __future__ import annotations

#: --node-eviction-rate
EVICTION_QPS = 0.1
#: --secondary-node-eviction-rate: the rate in a partially disrupted large zone
SECONDARY_EVICTION_QPS = 0.01
#: --large-cluster-size-threshold: a partially disrupted zone at most this large stops evicting altogether
LARGE_CLUSTER_THRESHOLD = 50
EVICTION_BURST = 1


class TokenBucket:
    """flowcontrol's token bucket: `qps` tokens a second up to `burst`; qps 0 never accepts."""

    def __init__(self, qps: float, now: float, *, burst: int = EVICTION_BURST, full: bool = True) -> None:
        self.qps = qps
        self.burst = burst
        self.tokens = float(burst) if full and qps > 0 else 0.0
        self.last = now

    def try_accept(self, now: float) -> bool:
        if self.qps <= 0:
            return False
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) * self.qps)
        self.last = max(self.last, now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def saturated(self, now: float) -> bool:
        return self.qps <= 0 or min(float(self.burst), self.tokens + (now - self.last) * self.qps) < 1.0


class ZoneTainter:
    def __init__(self, now: float, qps: float = EVICTION_QPS) -> None:
        self.limiter = TokenBucket(qps, now)
        #: name -> when it may be processed, in the order added
        self._queue: dict[str, float] = {}
        self._members: set[str] = set()

    def add(self, name: str, now: float) -> bool:
        """Queue the node unless it is a member already; whether it was added."""
        if name in self._members:
            return False
        self._members.add(name)
        self._queue[name] = now
        return True

    def remove(self, name: str) -> bool:
        """Forget the node entirely; whether it was a member."""
        self._queue.pop(name, None)
        if name in self._members:
            self._members.discard(name)
            return True
        return False

    def swap_limiter(self, qps: float, now: float) -> None:
        if qps == self.limiter.qps:
            return
        # a bucket that was empty stays empty: a zone that just tainted a node waits its turn still
        self.limiter = TokenBucket(qps, now, full=not self.limiter.saturated(now))

    def queued(self) -> list[str]:
        return list(self._queue)

    def take(self, now: float) -> str | None:
        """Kube's Try, one step: the head of the queue when the limiter gives a token (taken even when the
        head is not due yet, as kube's) and the head is due; the caller then reports `finished` or `retry`."""
        if not self._queue or not self.limiter.try_accept(now):
            return None
        name, at = min(self._queue.items(), key=lambda item: item[1])
        return name if now >= at else None

    def finished(self, name: str) -> None:
        """Done: out of the queue, still a member (not queued again until removed)."""
        self._queue.pop(name, None)

    def retry(self, name: str, at: float) -> None:
        if name in self._members:
            self._queue[name] = at
