"""Property-based tests (hypothesis) of the work queues against small models.

The plain queue runs as a state machine of add / get / done / parked workers / shut_down /
shut_down_with_drain: no item is ever handed to two workers, adds collapse while an item waits, an item added
while processing comes back exactly once after `done`, nothing added is lost (a final drain hands out
everything still owed), and the depth and adds metrics follow. The rate-limited queue adds `add_after`,
`add_rate_limited` and `forget` on a fake clock: an item becomes ready exactly when the model says, per-item
backoff doubles up to its cap and `num_requeues` counts. Separately: several worker tasks on one loop with
generated timings, and the limiters.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Hashable

from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubelite.client.clock import FakeClock
from kubelite.client.workqueue import (
    BucketRateLimiter,
    InMemoryMetricsProvider,
    ItemExponentialFailureRateLimiter,
    Queue,
    QueueShutDown,
    RateLimitingQueue,
)
from tests.unit.client.property_support import LoopHarness, given_settings, machine_settings
from tests.unit.client.support import run

ITEMS = ["a", "b", "c", "d"]

MACHINE_SETTINGS = machine_settings(max_examples=80, steps=50)
GIVEN_SETTINGS = given_settings(max_examples=60)


class QueueModel:
    """What the queue must do, stated over plain lists and sets."""

    def __init__(self) -> None:
        #: waiting to be handed out, in order
        self.queue: list[str] = []
        #: added since last handed out (each owes one more hand-out)
        self.dirty: set[str] = set()
        self.processing: set[str] = set()
        self.shutting_down = False
        #: adds that were not collapsed into an earlier one
        self.accepted_adds = 0

    def add(self, item: str) -> None:
        if self.shutting_down or item in self.dirty:
            return
        self.accepted_adds += 1
        self.dirty.add(item)
        if item not in self.processing:
            self.queue.append(item)

    def take(self) -> str:
        item = self.queue.pop(0)
        self.dirty.discard(item)
        self.processing.add(item)
        return item

    def done(self, item: str) -> None:
        self.processing.discard(item)
        if item in self.dirty:
            self.queue.append(item)


class QueueMachine(RuleBasedStateMachine):
    """The queue and its model side by side; parked workers are tasks blocked in get()."""

    def __init__(self) -> None:
        super().__init__()
        self.harness = LoopHarness()
        self.provider = InMemoryMetricsProvider()
        self.clock = FakeClock()
        self.queue = self.make_queue()
        self.model = QueueModel()
        #: workers blocked in get() because nothing was queued
        self.waiters: list[asyncio.Task[str]] = []
        #: shut_down_with_drain calls, whether each must have returned by now and whether it may have
        self.drains: list[tuple[asyncio.Task[None], bool, bool]] = []

    def make_queue(self) -> Queue[str]:
        return Queue(name="q", metrics_provider=self.provider, clock=self.clock)

    # -- bookkeeping -----------------------------------------------------------------------------------------

    def collect(self, *, emptied: bool = False) -> None:
        """Match what parked workers received against the model: each took one item from the head.

        `emptied`: nothing was being processed for a moment during the step (a drain may have seen that).
        """
        finished = [task for task in self.waiters if task.done()]
        self.waiters = [task for task in self.waiters if not task.done()]
        received: list[str] = []
        for task in finished:
            error = task.exception()
            if error is None:
                received.append(task.result())
            else:
                assert isinstance(error, QueueShutDown)
                assert self.model.shutting_down and not self.model.queue
        assert sorted(received) == sorted(self.model.queue[: len(received)])
        for _ in received:
            item = self.model.take()
            assert item not in self.model.queue
        if self.waiters:
            # a worker still waits only if there was nothing to give it
            assert not self.model.queue and not self.model.shutting_down
        drains = []
        for task, must, may in self.drains:
            must = must or not self.model.processing
            drains.append((task, must, may or must or emptied))
        self.drains = drains

    # -- rules -----------------------------------------------------------------------------------------------

    @rule(item=st.sampled_from(ITEMS))
    def add(self, item: str) -> None:
        self.model.add(item)
        self.harness.call(lambda: self.queue.add(item))
        self.collect()

    @precondition(lambda self: self.model.queue)
    @rule()
    def get(self) -> None:
        assert len(self.queue) > 0
        expected = self.model.take()
        got = self.harness.wait(self.queue.get())
        assert got == expected

    @precondition(lambda self: not self.model.queue and len(self.waiters) < 3)
    @rule()
    def park_worker(self) -> None:
        self.waiters.append(self.harness.call(lambda: asyncio.ensure_future(self.queue.get())))
        self.collect()

    @precondition(lambda self: self.model.processing)
    @rule(data=st.data())
    def done(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(sorted(self.model.processing)))
        self.model.done(item)
        emptied = not self.model.processing
        self.harness.call(lambda: self.queue.done(item))
        self.collect(emptied=emptied)

    # shutting down ends all interesting traffic, so it waits until the queue has seen some
    @precondition(lambda self: self.model.accepted_adds >= 6)
    @rule()
    def shut_down(self) -> None:
        self.model.shutting_down = True
        self.stopped()
        self.harness.call(self.queue.shut_down)
        # a plain shut down releases whoever waits for a drain
        self.drains = [(task, True, True) for task, _, _ in self.drains]
        self.collect()

    @precondition(lambda self: self.model.accepted_adds >= 6 and len(self.drains) < 2)
    @rule()
    def shut_down_with_drain(self) -> None:
        self.model.shutting_down = True
        self.stopped()
        task = self.harness.call(lambda: asyncio.ensure_future(self.queue.shut_down_with_drain()))
        self.drains.append((task, False, False))
        self.collect()

    def stopped(self) -> None:
        """The queue starts shutting down (a subclass's model forgets what only waits for a delay)."""

    # -- invariants ------------------------------------------------------------------------------------------

    @invariant()
    def matches_model(self) -> None:
        self.queue.check_invariants()
        assert len(self.queue) == len(self.model.queue)
        assert self.queue.shutting_down() == self.model.shutting_down
        recorded = self.provider.queues["q"]
        assert recorded.depth == len(self.model.dirty)
        assert recorded.adds == self.model.accepted_adds
        for task, must, may in self.drains:
            assert task.done() or not must, "a drain still waits though nothing is being processed"
            assert may or not task.done(), "a drain returned while items were being processed"

    def teardown(self) -> None:
        """Shut down, finish what is being processed, and hand out the rest: every owed item comes out."""
        try:
            owed = set(self.model.dirty)
            self.model.shutting_down = True
            self.stopped()
            self.harness.call(self.queue.shut_down)
            self.collect()
            assert not self.waiters
            for item in sorted(self.model.processing):
                self.model.done(item)
                self.harness.call(lambda item=item: self.queue.done(item))
            handed_out: set[str] = set()
            while True:
                try:
                    got = self.harness.wait(self.queue.get())
                except QueueShutDown:
                    break
                assert got == self.model.take()
                handed_out.add(got)
                self.model.done(got)
                self.harness.call(lambda got=got: self.queue.done(got))
            assert owed <= handed_out
            assert not self.model.queue and not self.model.processing and len(self.queue) == 0
        finally:
            self.harness.close()


class DelayingModel(QueueModel):
    def __init__(self, now: float, base: float, cap: float) -> None:
        super().__init__()
        self.now = now
        self.base = base
        self.cap = cap
        #: item -> (when it is due, push order); an item waits once, at its earliest due time
        self.waiting: dict[str, tuple[float, int]] = {}
        self.sequence = itertools.count()
        self.failures: dict[str, int] = {}
        self.retries = 0

    def add_after(self, item: str, delay: float) -> None:
        if self.shutting_down:
            return
        self.retries += 1
        if delay <= 0:
            self.add(item)
            return
        due = self.now + delay
        current = self.waiting.get(item)
        if current is not None and current[0] <= due:
            return
        self.waiting[item] = (due, next(self.sequence))

    def backoff(self, item: str) -> float:
        failures = self.failures.get(item, 0)
        self.failures[item] = failures + 1
        return min(self.base * 2**failures, self.cap)

    def step(self, seconds: float) -> None:
        self.now += seconds
        due = sorted((entry, item) for item, entry in self.waiting.items() if entry[0] <= self.now)
        for _, item in due:
            del self.waiting[item]
            self.add(item)


class RecordingLimiter(ItemExponentialFailureRateLimiter):
    """Remembers the delays it hands the queue, so they can be held against the model's backoff."""

    def __init__(self, base_delay: float, max_delay: float) -> None:
        super().__init__(base_delay, max_delay)
        self.handed_out: list[tuple[str, float]] = []

    def when(self, item: Hashable) -> float:
        delay = super().when(item)
        self.handed_out.append((str(item), delay))
        return delay


class RateLimitingQueueMachine(QueueMachine):
    """The queue machine again, on a rate-limited queue with delays and a fake clock."""

    #: backoff 0.5, 1, 2, then capped at 2: short enough that runs reach and pass the cap
    BASE, CAP = 0.5, 2.0

    def __init__(self) -> None:
        super().__init__()
        self.model: DelayingModel = DelayingModel(self.clock.monotonic(), self.BASE, self.CAP)
        self.queue: RateLimitingQueue[str]

    def make_queue(self) -> Queue[str]:
        self.limiter = RecordingLimiter(self.BASE, self.CAP)
        return RateLimitingQueue(
            self.limiter,
            name="q",
            metrics_provider=self.provider,
            clock=self.clock,
        )

    def stopped(self) -> None:
        self.model.waiting.clear()

    @rule(item=st.sampled_from(ITEMS), delay=st.sampled_from([0.0, 0.5, 1.0, 2.0, 4.0]))
    def add_after(self, item: str, delay: float) -> None:
        self.model.add_after(item, delay)
        self.harness.call(lambda: self.queue.add_after(item, delay))
        self.collect()

    # two items only, so that one of them fails often enough in a run to hit the cap
    @rule(item=st.sampled_from(ITEMS[:2]))
    def add_rate_limited(self, item: str) -> None:
        # the limiter counts the attempt even on a queue that is shutting down, as client-go's does
        backoff = self.model.backoff(item)
        self.model.add_after(item, backoff)
        self.harness.call(lambda: self.queue.add_rate_limited(item))
        assert self.limiter.handed_out[-1] == (item, backoff)
        self.collect()

    @rule(item=st.sampled_from(ITEMS))
    def forget(self, item: str) -> None:
        self.model.failures.pop(item, None)
        self.queue.forget(item)

    @rule(seconds=st.sampled_from([0.25, 0.5, 1.0, 3.0]))
    def step(self, seconds: float) -> None:
        self.model.step(seconds)
        self.harness.call(lambda: self.clock.step(seconds))
        self.collect()

    @invariant()
    def delays_match_model(self) -> None:
        if not self.model.shutting_down:
            assert self.queue.waiting() == len(self.model.waiting)
        for item in ITEMS:
            assert self.queue.num_requeues(item) == self.model.failures.get(item, 0)
        assert self.provider.queues["q"].retries == self.model.retries


QueueMachine.TestCase.settings = MACHINE_SETTINGS
RateLimitingQueueMachine.TestCase.settings = MACHINE_SETTINGS
TestQueueMachine = QueueMachine.TestCase
TestRateLimitingQueueMachine = RateLimitingQueueMachine.TestCase


@GIVEN_SETTINGS
@given(
    workers=st.integers(1, 4),
    script=st.lists(st.tuples(st.sampled_from(ITEMS), st.integers(0, 3)), min_size=1, max_size=40),
    work=st.lists(st.integers(0, 4), min_size=1, max_size=8),
    readd=st.lists(st.booleans(), min_size=1, max_size=8),
)
def test_concurrent_workers_never_share_and_never_lose(
    workers: int, script: list[tuple[str, int]], work: list[int], readd: list[bool]
) -> None:
    """Producers and workers interleave on one loop: an item is in one worker's hands at most, each item is
    handed out after its last add, and never more often than it was added."""

    async def body() -> None:
        queue: Queue[str] = Queue()
        in_hand: set[str] = set()
        clock = itertools.count(1)
        last_add: dict[str, int] = {}
        adds: dict[str, int] = {}
        starts: dict[str, list[int]] = {}
        turns = itertools.count()

        def add(item: str) -> None:
            if not queue.shutting_down():
                last_add[item] = next(clock)
                adds[item] = adds.get(item, 0) + 1
            queue.add(item)

        async def worker() -> None:
            while True:
                try:
                    item = await queue.get()
                except QueueShutDown:
                    return
                assert item not in in_hand, f"{item} handed to two workers"
                in_hand.add(item)
                starts.setdefault(item, []).append(next(clock))
                turn = next(turns)
                for _ in range(work[turn % len(work)]):
                    await asyncio.sleep(0)
                if turn < len(readd) and readd[turn]:
                    add(item)  # re-added while processing: must come back once, after done
                in_hand.discard(item)
                queue.done(item)
                queue.check_invariants()

        async def producer() -> None:
            for item, pause in script:
                add(item)
                for _ in range(pause):
                    await asyncio.sleep(0)

        tasks = [asyncio.create_task(worker()) for _ in range(workers)]
        await producer()
        await queue.shut_down_with_drain()
        await asyncio.gather(*tasks)
        assert len(queue) == 0 and not in_hand
        for item, added in last_add.items():
            assert max(starts[item]) > added, f"{item} was lost after its add at {added}"
            assert len(starts[item]) <= adds[item]

    run(body)


@GIVEN_SETTINGS
@given(
    ops=st.lists(st.tuples(st.sampled_from(["when", "forget"]), st.sampled_from(ITEMS)), max_size=60),
    base=st.sampled_from([0.001, 0.005, 1.0]),
    cap=st.sampled_from([0.5, 8.0, 1000.0]),
)
def test_item_backoff_doubles_to_the_cap_and_forget_resets(
    ops: list[tuple[str, str]], base: float, cap: float
) -> None:
    limiter = ItemExponentialFailureRateLimiter(base, cap)
    failures: dict[str, int] = {}
    previous: dict[str, float] = {}
    for op, item in ops:
        if op == "forget":
            limiter.forget(item)
            failures.pop(item, None)
            previous.pop(item, None)
        else:
            delay = limiter.when(item)
            assert delay == min(base * 2 ** failures.get(item, 0), cap)
            if item in previous:
                assert delay == min(previous[item] * 2, cap)
            previous[item] = delay
            failures[item] = failures.get(item, 0) + 1
        for other in ITEMS:
            assert limiter.num_requeues(other) == failures.get(other, 0)


@GIVEN_SETTINGS
@given(
    bursts=st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0]), st.integers(1, 4)), max_size=25),
    qps=st.sampled_from([1.0, 2.0, 4.0]),
    burst=st.integers(1, 5),
)
def test_bucket_limiter_never_exceeds_its_rate(
    bursts: list[tuple[float, int]], qps: float, burst: int
) -> None:
    """Grants (request time plus the wait handed back) come in order; the first `burst` are immediate; and no
    window of T seconds holds more than burst + T * qps of them."""
    clock = FakeClock()
    limiter = BucketRateLimiter(qps, burst, clock=clock)
    granted: list[float] = []
    delays: list[float] = []
    for seconds, requests in bursts:
        clock.step(seconds)
        for _ in range(requests):
            delays.append(limiter.when("any"))
            granted.append(clock.monotonic() + delays[-1])
    assert all(delay >= 0 for delay in delays)
    assert granted == sorted(granted)
    assert delays[:burst] == [0.0] * min(burst, len(delays))
    for i, j in itertools.combinations_with_replacement(range(len(granted)), 2):
        assert j - i + 1 <= burst + (granted[j] - granted[i]) * qps + 1e-9
