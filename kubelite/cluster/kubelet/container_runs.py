"""One container's runs on a simulated node: when each attempt starts and ends, and when the next one will.

The kubelet restarts a container that exited according to the pod's restartPolicy (Always: always; OnFailure:
when the exit code is not 0; Never: not at all), behind the crash-loop back-off of
pkg/kubelet/kuberuntime (`doBackOff`, client-go's `flowcontrol.Backoff`, 10 s initial, 5 min cap): the first exit
is restarted at once and sets the back-off to 10 s; each later exit waits out the current back-off counted from
the exit, then the restart doubles it, up to 300 s. A back-off entry untouched for twice the cap (10 min, a
container that ran that long) has expired: the next exit is restarted at once again, from 10 s.

`play` is deterministic: given the first start, the behaviour and `now`, it replays every attempt up to `now`.
A kill (`stop_at`, the pod being deleted) ends a running attempt with `kill_exit_code` (0: the process heeded
SIGTERM; 137: it was SIGKILLed at the end of the grace period) and prevents further starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

BACKOFF_INITIAL = timedelta(seconds=10)
BACKOFF_MAX = timedelta(minutes=5)


@dataclass(frozen=True)
class Attempt:
    """One run of the container; `number` is the restartCount while it runs."""

    number: int
    started_at: datetime
    finished_at: datetime | None = None
    exit_code: int | None = None
    killed: bool = False


@dataclass
class Timeline:
    """What `play` found: the attempts started by `now`, and what the container waits for."""

    attempts: list[Attempt] = field(default_factory=list)
    # while waiting out a back-off: how long, and when the restart comes
    backoff: timedelta | None = None
    restart_at: datetime | None = None
    # no attempt is running and none will start
    done: bool = False
    next_change: datetime | None = None
    # (when, delay) for every back-off entered by now: the BackOff events
    backoffs: list[tuple[datetime, timedelta]] = field(default_factory=list)

    @property
    def current(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def running(self) -> bool:
        current = self.current
        return current is not None and current.finished_at is None


def should_restart(restart_policy: str, exit_code: int) -> bool:
    if restart_policy == "Never":
        return False
    if restart_policy == "OnFailure":
        return exit_code != 0
    return True


def play(
    *,
    first_start: datetime,
    run_time: timedelta | None,
    exit_code: int,
    restart_policy: str,
    now: datetime,
    stop_at: datetime | None = None,
    kill_exit_code: int = 0,
) -> Timeline:
    timeline = Timeline()
    start = first_start
    backoff: timedelta | None = None
    backoff_updated: datetime | None = None
    while True:
        if stop_at is not None and start >= stop_at:
            timeline.done = True
            timeline.backoff = timeline.restart_at = None
            return timeline
        if start > now:
            timeline.next_change = start if stop_at is None else min(start, stop_at)
            return timeline
        end = start + run_time if run_time is not None else None
        code, killed = exit_code, False
        if stop_at is not None and (end is None or stop_at < end):
            end, code, killed = stop_at, kill_exit_code, True
        number = len(timeline.attempts)
        if end is None or end > now:
            timeline.attempts.append(Attempt(number, start))
            timeline.backoff = timeline.restart_at = None
            timeline.next_change = end
            return timeline
        timeline.attempts.append(Attempt(number, start, end, code, killed))
        if killed or not should_restart(restart_policy, code):
            timeline.done = True
            timeline.backoff = timeline.restart_at = None
            return timeline
        if backoff is None or backoff_updated is None or end - backoff_updated > 2 * BACKOFF_MAX:
            delay, backoff = timedelta(0), BACKOFF_INITIAL
            backoff_updated = end
        else:
            delay = backoff
            timeline.backoffs.append((end, delay))
            backoff_updated = end + delay
            backoff = min(backoff * 2, BACKOFF_MAX)
        start = end + delay
        timeline.backoff = delay if delay else None
        timeline.restart_at = start if delay else None
