"""Leader election on fake time with an in-memory lock: acquisition, renewal, takeover after the leader stops
renewing (never two leaders), release on cancel, transitions, configuration validation; the Lease mapping."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from kubelite.client.clock import FakeClock
from kubelite.client.errors import AlreadyExists, ConfigError, Conflict, NotFound, TransportError
from kubelite.client.leaderelection import (
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElectionRecord,
    LeaderElector,
)
from kubelite.client.leaderelection.resourcelock import format_micro_time, parse_micro_time, record_from_lease
from tests.unit.client.support import run, settle, until


@dataclass
class FakeServer:
    record: LeaderElectionRecord | None = None
    version: int = 0
    writes: list[str] = field(default_factory=list)


class FakeLock:
    """A lock on a shared FakeServer with optimistic concurrency, and a switch that cuts this candidate off."""

    def __init__(self, server: FakeServer, identity: str) -> None:
        self.server = server
        self.identity = identity
        self.seen_version: int | None = None
        self.unreachable = False

    def _check(self) -> None:
        if self.unreachable:
            raise TransportError("connection refused")

    async def get(self) -> LeaderElectionRecord:
        self._check()
        if self.server.record is None:
            raise NotFound({"reason": "NotFound", "code": 404})
        self.seen_version = self.server.version
        return self.server.record

    async def create(self, record: LeaderElectionRecord) -> None:
        self._check()
        if self.server.record is not None:
            raise AlreadyExists({"reason": "AlreadyExists", "code": 409})
        self._write(record)

    async def update(self, record: LeaderElectionRecord) -> None:
        self._check()
        if self.seen_version != self.server.version:
            raise Conflict({"reason": "Conflict", "code": 409})
        self._write(record)

    def _write(self, record: LeaderElectionRecord) -> None:
        self.server.version += 1
        self.server.record = record
        self.seen_version = self.server.version
        self.server.writes.append(f"{self.identity}:{record.holder_identity or '-'}")

    def describe(self) -> str:
        return "fake/lock"


class Candidate:
    def __init__(
        self, server: FakeServer, identity: str, clock: FakeClock, leaders: set[str], **kwargs: Any
    ) -> None:
        self.lock = FakeLock(server, identity)
        self.started = 0
        self.stopped = 0
        self.new_leaders: list[str] = []
        self.leaders = leaders

        async def lead() -> None:
            self.started += 1
            assert not self.leaders, f"{identity} leads while {self.leaders} also does"
            self.leaders.add(identity)
            try:
                await asyncio.Event().wait()
            finally:
                self.leaders.discard(identity)

        def stopped() -> None:
            self.stopped += 1

        self.config = LeaderElectionConfig(
            lock=self.lock,
            callbacks=LeaderCallbacks(
                on_started_leading=lead, on_stopped_leading=stopped, on_new_leader=self.new_leaders.append
            ),
            clock=clock,
            rng=random.Random(7),
            **kwargs,
        )
        self.elector = LeaderElector(self.config)
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.elector.run())


def test_single_candidate_acquires_and_renews() -> None:
    clock, server, leaders = FakeClock(), FakeServer(), set[str]()

    async def body() -> None:
        one = Candidate(server, "one", clock, leaders)
        one.start()
        await until(lambda: "one" in leaders, clock)
        assert server.record is not None
        assert (server.record.holder_identity, server.record.leader_transitions) == ("one", 0)
        acquired = server.record.acquire_time
        for _ in range(5):
            clock.step(2)
            await settle()
        assert server.record.acquire_time == acquired
        assert server.record.renew_time == clock.now()
        assert one.elector.is_leader() and one.new_leaders == ["one"]
        assert one.task is not None
        one.task.cancel()
        await asyncio.gather(one.task, return_exceptions=True)
        assert one.stopped == 1 and not leaders

    run(body)


def test_takeover_after_the_leader_stops_renewing() -> None:
    clock, server, leaders = FakeClock(), FakeServer(), set[str]()

    async def body() -> None:
        one = Candidate(server, "one", clock, leaders)
        two = Candidate(server, "two", clock, leaders)
        one.start()
        await until(lambda: "one" in leaders, clock, step=0)
        two.start()
        for _ in range(20):  # two keeps trying while one renews
            clock.step(1)
            await settle()
        assert leaders == {"one"} and two.new_leaders == ["one"]
        cut_at = clock.monotonic()
        one.lock.unreachable = True
        await until(lambda: one.stopped == 1, clock, step=0.5)
        assert clock.monotonic() - cut_at <= 12.5  # renew deadline (10s) after the last renewal
        await until(lambda: "two" in leaders, clock, step=0.5)
        assert clock.monotonic() - cut_at >= 15  # a full lease duration unchanged, on two's own clock
        assert server.record is not None
        assert (server.record.holder_identity, server.record.leader_transitions) == ("two", 1)
        assert two.new_leaders == ["one", "two"]
        assert two.task is not None
        two.task.cancel()
        await asyncio.gather(two.task, return_exceptions=True)

    run(body)


def test_release_on_cancel_hands_over_without_waiting_for_expiry() -> None:
    clock, server, leaders = FakeClock(), FakeServer(), set[str]()

    async def body() -> None:
        one = Candidate(server, "one", clock, leaders, release_on_cancel=True)
        two = Candidate(server, "two", clock, leaders)
        one.start()
        await until(lambda: "one" in leaders, clock, step=0)
        two.start()
        await until(lambda: two.new_leaders == ["one"], clock, step=0.5)
        assert one.task is not None
        one.task.cancel()
        await asyncio.gather(one.task, return_exceptions=True)
        assert server.record is not None and server.record.holder_identity == ""
        released_at = clock.monotonic()
        await until(lambda: "two" in leaders, clock, step=0.5)
        assert clock.monotonic() - released_at < 5  # one retry period (jittered), not a lease duration
        assert server.record.leader_transitions == 1
        assert two.task is not None
        two.task.cancel()
        await asyncio.gather(two.task, return_exceptions=True)

    run(body)


def test_leading_coroutine_that_returns_ends_the_election() -> None:
    clock, server = FakeClock(), FakeServer()
    stopped: list[bool] = []

    async def lead() -> None:
        return None

    async def body() -> None:
        config = LeaderElectionConfig(
            lock=FakeLock(server, "one"),
            callbacks=LeaderCallbacks(
                on_started_leading=lead, on_stopped_leading=lambda: stopped.append(True)
            ),
            clock=clock,
            release_on_cancel=True,
        )
        await LeaderElector(config).run()

    run(body)
    assert stopped == [True]
    assert server.record is not None and server.record.holder_identity == ""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lease_duration": 10, "renew_deadline": 10}, "leaseDuration must be greater than renewDeadline"),
        (
            {"renew_deadline": 4, "retry_period": 4},
            "renewDeadline must be greater than retryPeriod\\*JitterFactor",
        ),
        ({"retry_period": 0.5, "renew_deadline": 5}, "retryPeriod must be greater than zero"),
    ],
    ids=["lease-not-longer", "renew-too-short", "retry-zero"],
)
def test_config_validation(kwargs: dict[str, Any], message: str) -> None:
    async def never() -> None:
        return None

    with pytest.raises(ConfigError, match=message):
        LeaderElectionConfig(lock=FakeLock(FakeServer(), "x"), callbacks=LeaderCallbacks(never), **kwargs)
    with pytest.raises(ConfigError, match="Lock identity is empty"):
        LeaderElectionConfig(lock=FakeLock(FakeServer(), ""), callbacks=LeaderCallbacks(never))


def test_lease_mapping() -> None:
    assert format_micro_time(1_700_000_000.123456) == "2023-11-14T22:13:20.123456Z"
    assert parse_micro_time("2023-11-14T22:13:20.123456Z") == 1_700_000_000.123456
    lease = {
        "spec": {
            "holderIdentity": "a",
            "leaseDurationSeconds": 15,
            "leaseTransitions": 3,
            "acquireTime": "2023-11-14T22:13:20.000000Z",
            "renewTime": "2023-11-14T22:13:21.500000Z",
        }
    }
    assert record_from_lease(lease) == LeaderElectionRecord("a", 15, 1_700_000_000.0, 1_700_000_001.5, 3)
    assert record_from_lease({}) == LeaderElectionRecord()
