"""Leader election (client-go's `tools/leaderelection`): of many candidates running the same code, one leads.

A candidate tries to acquire the lock every `retry_period` (jittered); once it holds it, it renews every
`retry_period`, and if renewing keeps failing for `renew_deadline` it stops leading. Others take over when
they have seen the same record unchanged for `lease_duration`: expiry is judged by each candidate's own clock,
from when it observed the record, never by comparing clocks across machines.

`run()` acquires, runs `on_started_leading()` as a task, renews, and when leadership is lost, the leading
coroutine finishes, or `run()` is cancelled, cancels that task, releases the lease if `release_on_cancel`
(so a successor need not wait out the lease), and calls `on_stopped_leading()`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from kubelite.client.clock import Clock, RealClock, with_deadline
from kubelite.client.errors import ClientError, ConfigError, NotFound
from kubelite.client.leaderelection.resourcelock import LeaderElectionRecord, ResourceLock

log = logging.getLogger(__name__)

#: acquisition retries wait retry_period * (1 + random * JITTER_FACTOR)
JITTER_FACTOR = 1.2


@dataclass
class LeaderCallbacks:
    #: an async function: its coroutine runs as a task while this candidate leads
    on_started_leading: Callable[[], Coroutine[Any, Any, None]]
    on_stopped_leading: Callable[[], Awaitable[None] | None] = lambda: None
    #: called with the identity of every new leader observed (including this candidate)
    on_new_leader: Callable[[str], None] | None = None


@dataclass(kw_only=True)
class LeaderElectionConfig:
    lock: ResourceLock
    callbacks: LeaderCallbacks
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    release_on_cancel: bool = False
    name: str = ""
    clock: Clock = field(default_factory=RealClock)
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        if self.lease_duration <= self.renew_deadline:
            raise ConfigError("leaseDuration must be greater than renewDeadline")
        if self.renew_deadline <= JITTER_FACTOR * self.retry_period:
            raise ConfigError("renewDeadline must be greater than retryPeriod*JitterFactor")
        if self.lease_duration < 1:
            raise ConfigError("leaseDuration must be greater than zero")
        if self.renew_deadline < 1:
            raise ConfigError("renewDeadline must be greater than zero")
        if self.retry_period < 1:
            raise ConfigError("retryPeriod must be greater than zero")
        if not self.lock.identity:
            raise ConfigError("Lock identity is empty")


class LeaderElector:
    def __init__(self, config: LeaderElectionConfig) -> None:
        self.config = config
        self.clock = config.clock
        # what this candidate last saw in the lock, and when (monotonic) it first saw it so
        self._observed: LeaderElectionRecord = LeaderElectionRecord()
        self._observed_raw = b""
        self._observed_time = float("-inf")
        self._reported_leader = ""

    @property
    def identity(self) -> str:
        return self.config.lock.identity

    def is_leader(self) -> bool:
        return self._observed.holder_identity == self.identity

    def get_leader(self) -> str:
        return self._observed.holder_identity

    def _lease_valid(self, now: float) -> bool:
        return self._observed_time + self._observed.lease_duration_seconds > now

    def _observe(self, record: LeaderElectionRecord) -> None:
        self._observed = record
        self._observed_raw = record.raw()
        self._observed_time = self.clock.monotonic()

    def check(self, max_tolerable_expired_lease: float) -> str | None:
        """For a health check: an error message when this candidate thinks it leads but has not renewed for
        longer than the lease plus the tolerance."""
        if not self.is_leader():
            return None
        overdue = self.clock.monotonic() - (self._observed_time + self.config.lease_duration)
        if overdue > max_tolerable_expired_lease:
            return f"failed election to renew leadership on lease {self.config.name or self.config.lock.describe()}"
        return None

    # -- one attempt ------------------------------------------------------------------------------------------

    async def try_acquire_or_renew(self) -> bool:
        now = self.clock.now()
        record = LeaderElectionRecord(
            holder_identity=self.identity,
            lease_duration_seconds=int(self.config.lease_duration),
            acquire_time=now,
            renew_time=now,
        )
        lock = self.config.lock
        if self.is_leader() and self._lease_valid(self.clock.monotonic()):
            # the common case: renew over what we wrote last, without reading first
            renewed = LeaderElectionRecord(
                holder_identity=self.identity,
                lease_duration_seconds=record.lease_duration_seconds,
                acquire_time=self._observed.acquire_time,
                renew_time=now,
                leader_transitions=self._observed.leader_transitions,
            )
            try:
                await lock.update(renewed)
                self._observe(renewed)
                return True
            except ClientError as exc:
                log.debug(
                    "%s: fast renewal of %s failed, reading it: %s", self.identity, lock.describe(), exc
                )
        try:
            old = await lock.get()
        except NotFound:
            try:
                await lock.create(record)
            except ClientError as exc:
                log.info(
                    "%s: error initially creating lease lock %s: %s", self.identity, lock.describe(), exc
                )
                return False
            self._observe(record)
            return True
        except ClientError as exc:
            log.info("%s: error retrieving resource lock %s: %s", self.identity, lock.describe(), exc)
            return False
        if old.raw() != self._observed_raw:
            self._observe(old)
        if old.holder_identity and self._lease_valid(self.clock.monotonic()) and not self.is_leader():
            log.debug("%s: lock is held by %s and has not yet expired", self.identity, old.holder_identity)
            return False
        if self.is_leader():
            record = LeaderElectionRecord(
                holder_identity=self.identity,
                lease_duration_seconds=record.lease_duration_seconds,
                acquire_time=old.acquire_time,
                renew_time=now,
                leader_transitions=old.leader_transitions,
            )
        else:
            record = LeaderElectionRecord(
                holder_identity=self.identity,
                lease_duration_seconds=record.lease_duration_seconds,
                acquire_time=now,
                renew_time=now,
                leader_transitions=old.leader_transitions + 1,
            )
        try:
            await lock.update(record)
        except ClientError as exc:
            log.info("%s: failed to update lock %s: %s", self.identity, lock.describe(), exc)
            return False
        self._observe(record)
        return True

    async def release(self) -> bool:
        """Give the lease up (holder cleared, 1-second duration) if this candidate holds it."""
        if not self.is_leader():
            return True
        now = self.clock.now()
        record = LeaderElectionRecord(
            lease_duration_seconds=1,
            acquire_time=now,
            renew_time=now,
            leader_transitions=self._observed.leader_transitions,
        )
        try:
            await self.config.lock.update(record)
        except ClientError as exc:
            log.warning("%s: failed to release lock %s: %s", self.identity, self.config.lock.describe(), exc)
            return False
        self._observe(record)
        return True

    def _report_transition(self) -> None:
        leader = self._observed.holder_identity
        if leader == self._reported_leader:
            return
        self._reported_leader = leader
        if self.config.callbacks.on_new_leader is not None and leader:
            try:
                self.config.callbacks.on_new_leader(leader)
            except Exception:
                log.exception("on_new_leader failed")

    # -- the loops --------------------------------------------------------------------------------------------

    async def _acquire(self) -> None:
        while True:
            acquired = await self.try_acquire_or_renew()
            self._report_transition()
            if acquired:
                log.info("%s: successfully acquired lease %s", self.identity, self.config.lock.describe())
                return
            period = self.config.retry_period
            await self.clock.sleep(period + self.config.rng.random() * JITTER_FACTOR * period)

    async def _renew_until_lost(self) -> None:
        async def renew_once() -> None:
            while not await self.try_acquire_or_renew():
                await self.clock.sleep(self.config.retry_period)

        while True:
            try:
                await with_deadline(self.clock, self.config.renew_deadline, renew_once())
            except TimeoutError:
                log.info("%s: failed to renew lease %s", self.identity, self.config.lock.describe())
                return
            self._report_transition()
            await self.clock.sleep(self.config.retry_period)

    async def run(self) -> None:
        leading: asyncio.Task[None] | None = None
        try:
            await self._acquire()
            leading = asyncio.create_task(
                self.config.callbacks.on_started_leading(), name=f"leading {self.identity}"
            )
            renewing = asyncio.create_task(self._renew_until_lost(), name=f"renewing {self.identity}")
            try:
                await asyncio.wait({leading, renewing}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                renewing.cancel()
                await asyncio.wait({renewing})
        finally:
            if leading is not None and not leading.done():
                leading.cancel()
                await asyncio.wait({leading})
            if leading is not None and leading.done() and not leading.cancelled() and leading.exception():
                log.error("%s: the leading coroutine failed: %r", self.identity, leading.exception())
            if self.config.release_on_cancel:
                await self.release()
            result = self.config.callbacks.on_stopped_leading()
            if inspect.isawaitable(result):
                await result


async def run_leader_election(config: LeaderElectionConfig) -> None:
    """Run one candidate until it stops leading (or is cancelled)."""
    await LeaderElector(config).run()
