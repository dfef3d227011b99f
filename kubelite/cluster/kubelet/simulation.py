"""The simulation's rules: how long a simulated container runs, how it exits, when it turns ready.

There are no processes behind a simulated pod, so the kubelet plays each container by rules, as KWOK's stages do.
By default a container starts `SimulationTiming.start_delay` (1 s) after the kubelet admits the pod (the sandbox
and the image pull take that second), is ready as soon as it runs, and runs until the pod is deleted. Init
containers run one after another, each `init_run_time` (1 s), and exit 0. A pod whose controller owner is a Job
runs `job_run_time` (1 s) and exits 0, so the Job completes.

A test chooses other behaviour with annotations on the pod (they apply to every regular container of it):

| annotation | value | effect |
| --- | --- | --- |
| `sim.kubelite.io/run-time` | a duration | each run lasts this long, then the container exits |
| `sim.kubelite.io/exit-code` | an integer 0-255 | the exit code of a run that ends by itself (default 0) |
| `sim.kubelite.io/ready-after` | a duration | the container turns ready this long after each start |
| `sim.kubelite.io/crash-loop` | `true` | each run ends after run-time (default 1 s) with exit code (default 1) |
| `sim.kubelite.io/readiness-fail` | `true` | the readiness probe never passes: running, never ready |
| `sim.kubelite.io/ignore-sigterm` | `true` | once deleted, run on until the grace period ends; killed (137) |
| `sim.kubelite.io/cpu-usage` | a quantity (`250m`) | the CPU each running container uses (default `1m`) |
| `sim.kubelite.io/memory-usage` | a quantity (`64Mi`) | the memory each running container uses (default `1Mi`) |

A duration is Go's form (`1s`, `1.5s`, `500ms`, `2m`, `1m30s`) or a bare number of seconds. A value that does not
parse is ignored (the default applies), as a kubelet cannot refuse a pod for an annotation. What happens after a
run ends follows the pod's restartPolicy (`container_runs`), with the kubelet's crash-loop back-off.

Usage is what the resource metrics API (`metrics.k8s.io`, metrics-server's) reports and the HorizontalPodAutoscaler
reads: a constant rate per running container, so a test drives an autoscaler by annotating pods (or a template).
The default is a small figure, an idle process's, rather than zero: `kubectl top` prints what an idle cluster
prints, and an idle workload sits far below any utilization target, as a real one does. A quantity that does
not parse, or is negative, leaves the default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.quantity import QuantityError, parse_quantity

PREFIX = "sim.kubelite.io/"
RUN_TIME = PREFIX + "run-time"
EXIT_CODE = PREFIX + "exit-code"
READY_AFTER = PREFIX + "ready-after"
CRASH_LOOP = PREFIX + "crash-loop"
READINESS_FAIL = PREFIX + "readiness-fail"
IGNORE_SIGTERM = PREFIX + "ignore-sigterm"
CPU_USAGE = PREFIX + "cpu-usage"
MEMORY_USAGE = PREFIX + "memory-usage"

#: an idle container's usage: 1 millicore (in nanocores) and 1 MiB
DEFAULT_CPU_NANOCORES = 1_000_000
DEFAULT_MEMORY_BYTES = 1 << 20

CRASH_LOOP_RUN_TIME = timedelta(seconds=1)
CRASH_LOOP_EXIT_CODE = 1


@dataclass(frozen=True, kw_only=True)
class SimulationTiming:
    """The fixed delays of the simulation (annotations cannot change these)."""

    start_delay: timedelta = timedelta(seconds=1)
    init_run_time: timedelta = timedelta(seconds=1)
    job_run_time: timedelta = timedelta(seconds=1)


DEFAULT_TIMING = SimulationTiming()


@dataclass(frozen=True, kw_only=True)
class ContainerBehaviour:
    """How every regular container of one pod behaves; `run_time` None runs until killed."""

    run_time: timedelta | None = None
    exit_code: int = 0
    ready_after: timedelta = timedelta(0)
    never_ready: bool = False
    #: a stop request is not heeded: the kubelet kills the container when the grace period ends
    ignore_sigterm: bool = False


_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_GO_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(text: str) -> timedelta | None:
    """A non-negative Go duration or bare number of seconds, or None when `text` is neither."""
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return timedelta(seconds=seconds) if seconds >= 0 else None
    if not text or _GO_DURATION.sub("", text) != "":
        return None
    total = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in _GO_DURATION.findall(text))
    return timedelta(seconds=total)


def _exit_code(text: str | None) -> int | None:
    if text is None or not text.strip().isdigit():
        return None
    code = int(text)
    return code if code <= 255 else None


def _flag(text: str | None) -> bool:
    return (text or "").strip().lower() == "true"


def owned_by_job(pod: Obj) -> bool:
    return any(
        ref.get("kind") == "Job" and ref.get("apiVersion", "").startswith("batch/") and ref.get("controller")
        for ref in (pod.get("metadata") or {}).get("ownerReferences") or []
    )


def behaviour_of(pod: Obj, timing: SimulationTiming = DEFAULT_TIMING) -> ContainerBehaviour:
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    run_time = parse_duration(annotations[RUN_TIME]) if RUN_TIME in annotations else None
    exit_code = _exit_code(annotations.get(EXIT_CODE))
    ready_after = parse_duration(annotations[READY_AFTER]) if READY_AFTER in annotations else None
    if _flag(annotations.get(CRASH_LOOP)):
        run_time = run_time if run_time is not None else CRASH_LOOP_RUN_TIME
        exit_code = exit_code if exit_code else CRASH_LOOP_EXIT_CODE
    elif run_time is None and owned_by_job(pod):
        run_time = timing.job_run_time
    return ContainerBehaviour(
        run_time=run_time,
        exit_code=exit_code or 0,
        ready_after=ready_after or timedelta(0),
        never_ready=_flag(annotations.get(READINESS_FAIL)),
        ignore_sigterm=_flag(annotations.get(IGNORE_SIGTERM)),
    )


@dataclass(frozen=True, slots=True)
class ContainerUsage:
    """What one running container uses: CPU in nanocores, memory in bytes."""

    name: str
    cpu_nanocores: int
    memory_bytes: int


def _usage_quantity(text: str | None, scale: int, default: int) -> int:
    if text is None:
        return default
    try:
        quantity = parse_quantity(text.strip())
    except (QuantityError, ValueError):
        return default
    return quantity.scaled_value(scale) if quantity.sign() >= 0 else default


def container_usage(pod: Obj) -> list[ContainerUsage]:
    """The usage of each regular container of `pod` that runs now (its status says so), in status order;
    empty for a pod with none running (metrics-server has no sample of it)."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    cpu = _usage_quantity(annotations.get(CPU_USAGE), -9, DEFAULT_CPU_NANOCORES)
    memory = _usage_quantity(annotations.get(MEMORY_USAGE), 0, DEFAULT_MEMORY_BYTES)
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return [
        ContainerUsage(str(status.get("name", "")), cpu, memory)
        for status in statuses
        if "running" in (status.get("state") or {})
    ]
