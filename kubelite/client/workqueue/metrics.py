"""Work queue metrics hooks (client-go's `util/workqueue/metrics.go`): a provider makes the instruments, the
queue records into them. Nothing is recorded without a provider. `InMemoryMetricsProvider` keeps plain
numbers, for tests and for a program that exports them its own way.

Per queue: depth (items waiting), adds (total), latency (seconds from add to get), work duration (seconds from
get to done), unfinished work (seconds that items in processing have been processing, summed), longest running
processor (seconds) and retries (rate-limited or delayed re-adds).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Protocol

from kubelite.client.clock import Clock


class Gauge(Protocol):
    def inc(self) -> None: ...

    def dec(self) -> None: ...


class SettableGauge(Protocol):
    def set(self, value: float) -> None: ...


class Counter(Protocol):
    def inc(self) -> None: ...


class Histogram(Protocol):
    def observe(self, value: float) -> None: ...


class MetricsProvider(Protocol):
    def new_depth_metric(self, name: str) -> Gauge: ...

    def new_adds_metric(self, name: str) -> Counter: ...

    def new_latency_metric(self, name: str) -> Histogram: ...

    def new_work_duration_metric(self, name: str) -> Histogram: ...

    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGauge: ...

    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGauge: ...

    def new_retries_metric(self, name: str) -> Counter: ...


@dataclass
class Recorded:
    """Plain numbers for one queue, as InMemoryMetricsProvider records them."""

    depth: int = 0
    adds: int = 0
    retries: int = 0
    latencies: list[float] = field(default_factory=list)
    work_durations: list[float] = field(default_factory=list)
    unfinished_work_seconds: float = 0.0
    longest_running_processor_seconds: float = 0.0


class _Instrument:
    def __init__(self, record: Recorded, attribute: str) -> None:
        self._record = record
        self._attribute = attribute

    def inc(self) -> None:
        setattr(self._record, self._attribute, getattr(self._record, self._attribute) + 1)

    def dec(self) -> None:
        setattr(self._record, self._attribute, getattr(self._record, self._attribute) - 1)

    def set(self, value: float) -> None:
        setattr(self._record, self._attribute, value)

    def observe(self, value: float) -> None:
        getattr(self._record, self._attribute).append(value)


class InMemoryMetricsProvider:
    def __init__(self) -> None:
        self.queues: dict[str, Recorded] = {}

    def _for(self, name: str, attribute: str) -> _Instrument:
        return _Instrument(self.queues.setdefault(name, Recorded()), attribute)

    def new_depth_metric(self, name: str) -> Gauge:
        return self._for(name, "depth")

    def new_adds_metric(self, name: str) -> Counter:
        return self._for(name, "adds")

    def new_latency_metric(self, name: str) -> Histogram:
        return self._for(name, "latencies")

    def new_work_duration_metric(self, name: str) -> Histogram:
        return self._for(name, "work_durations")

    def new_unfinished_work_seconds_metric(self, name: str) -> SettableGauge:
        return self._for(name, "unfinished_work_seconds")

    def new_longest_running_processor_seconds_metric(self, name: str) -> SettableGauge:
        return self._for(name, "longest_running_processor_seconds")

    def new_retries_metric(self, name: str) -> Counter:
        return self._for(name, "retries")


class QueueMetrics:
    """What a queue records, timed by its clock. A queue without a provider gets `NoQueueMetrics`."""

    def __init__(self, provider: MetricsProvider, name: str, clock: Clock) -> None:
        self._clock = clock
        self._depth = provider.new_depth_metric(name)
        self._adds = provider.new_adds_metric(name)
        self._latency = provider.new_latency_metric(name)
        self._work_duration = provider.new_work_duration_metric(name)
        self._unfinished = provider.new_unfinished_work_seconds_metric(name)
        self._longest = provider.new_longest_running_processor_seconds_metric(name)
        self._retries = provider.new_retries_metric(name)
        #: when each queued item was added (first add since its last get)
        self._added_at: dict[Hashable, float] = {}
        #: when each item in processing was taken
        self._processing_since: dict[Hashable, float] = {}

    def add(self, item: Hashable) -> None:
        self._adds.inc()
        self._depth.inc()
        self._added_at.setdefault(item, self._clock.monotonic())

    def get(self, item: Hashable) -> None:
        self._depth.dec()
        now = self._clock.monotonic()
        self._processing_since[item] = now
        added = self._added_at.pop(item, None)
        if added is not None:
            self._latency.observe(now - added)

    def done(self, item: Hashable) -> None:
        started = self._processing_since.pop(item, None)
        if started is not None:
            self._work_duration.observe(self._clock.monotonic() - started)

    def retry(self) -> None:
        self._retries.inc()

    def update_unfinished_work(self) -> None:
        now = self._clock.monotonic()
        ages = [now - started for started in self._processing_since.values()]
        self._unfinished.set(sum(ages))
        self._longest.set(max(ages, default=0.0))


class NoQueueMetrics(QueueMetrics):
    def __init__(self) -> None:
        pass

    def add(self, item: Hashable) -> None:
        pass

    def get(self, item: Hashable) -> None:
        pass

    def done(self, item: Hashable) -> None:
        pass

    def retry(self) -> None:
        pass

    def update_unfinished_work(self) -> None:
        pass
