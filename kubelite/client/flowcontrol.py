"""A token bucket (golang.org/x/time/rate's Limiter, the one client-go's QPS/burst and workqueue's overall
rate limiter use): `qps` tokens a second refill a bucket of `burst`, each request takes one, and a request
that finds the bucket empty reserves a future token and waits for it."""

from __future__ import annotations

from kubelite.client.clock import Clock, RealClock
from kubelite.client.errors import ConfigError


class TokenBucket:
    def __init__(self, qps: float, burst: int, *, clock: Clock | None = None) -> None:
        if qps <= 0:
            raise ConfigError(f"a token bucket needs qps > 0, got {qps}")
        if burst < 1:
            raise ConfigError(f"a token bucket needs burst >= 1, got {burst}")
        self.qps = qps
        self.burst = burst
        self._clock = clock or RealClock()
        #: tokens available at `_last`; negative when reservations were made ahead of refill
        self._tokens = float(burst)
        self._last = self._clock.monotonic()

    def _refill(self) -> None:
        now = self._clock.monotonic()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
        self._last = now

    def reserve(self) -> float:
        """Take a token now, returning how long the caller must wait before acting on it (0 if none)."""
        self._refill()
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.qps

    def try_accept(self) -> bool:
        """Take a token only if one is available right away."""
        self._refill()
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False

    async def wait(self) -> None:
        """Take a token, sleeping until it is due."""
        delay = self.reserve()
        if delay > 0:
            await self._clock.sleep(delay)
