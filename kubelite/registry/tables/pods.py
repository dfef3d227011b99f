"""The pods table: what `kubectl get pods` shows, computed from a v1 Pod the way kube's `printPod` does.

The Status cell is the subtle part. It starts from the phase (or `status.reason`), is replaced by the state of
the first init container that has not finished (`Init:1/3`, `Init:CrashLoopBackOff`, `Init:ExitCode:1`), then,
once initialisation is over, by the waiting or terminated reason of the containers (the first one listed wins,
so the scan runs backwards), and finally by `Terminating` or `Unknown` for a pod being deleted. Restart counts
add a `(5m ago)` note from the latest container termination. Sidecars (init containers with `restartPolicy:
Always`) count as containers for readiness and restarts.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubelite.apimachinery.cached import CompactObject, expanded
from kubelite.apimachinery.duration import human_duration, nanoseconds, parse_time
from kubelite.apimachinery.meta import Obj, content_identity
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, age, age_col, col, dig, integer, items, name_col, name_of, text

POD_COLUMNS = [
    name_col(),
    col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", "The aggregate status of the containers in this pod."),
    col(
        "Restarts",
        "string",
        "The number of times the containers in this pod have been restarted and when the last container in "
        "this pod has restarted.",
    ),
    age_col(),
    col("IP", "string", d.POD_IP, 1),
    col("Node", "string", d.POD_NODE_NAME, 1),
    col("Nominated Node", "string", d.POD_NOMINATED_NODE, 1),
    col("Readiness Gates", "string", d.POD_READINESS_GATES, 1),
]

NODE_UNREACHABLE_REASON = "NodeLost"


def _is_sidecar(container: Any) -> bool:
    return isinstance(container, dict) and container.get("restartPolicy") == "Always"


def _condition_true(pod: Obj, kind: str) -> bool:
    return any(text(c, "type") == kind and text(c, "status") == "True" for c in items(pod, "status", "conditions"))


def _terminated_at(status: Any) -> datetime | None:
    if not isinstance(dig(status, "lastState", "terminated"), dict):
        return None
    return parse_time(text(status, "lastState", "terminated", "finishedAt"))


def _later(current: datetime | None, candidate: datetime | None) -> datetime | None:
    if candidate is None:
        return current
    return candidate if current is None or current < candidate else current


def _terminated_reason(terminated: Any, prefix: str) -> str:
    if text(terminated, "reason"):
        return prefix + text(terminated, "reason")
    if integer(terminated, "signal"):
        return f"{prefix}Signal:{integer(terminated, 'signal')}"
    return f"{prefix}ExitCode:{integer(terminated, 'exitCode')}"


class _PodState:
    """The running totals printPod accumulates while it walks the container statuses."""

    def __init__(self, pod: Obj) -> None:
        self.pod = pod
        # a pod's status is born Pending when it is created
        self.phase = text(pod, "status", "phase") or "Pending"
        self.reason = text(pod, "status", "reason") or self.phase
        if any(
            text(c, "type") == "PodScheduled" and text(c, "reason") == "SchedulingGated"
            for c in items(pod, "status", "conditions")
        ):
            self.reason = "SchedulingGated"
        self.init_specs = {text(c, "name"): c for c in items(pod, "spec", "initContainers")}
        self.total = len(items(pod, "spec", "containers")) + sum(
            1 for c in items(pod, "spec", "initContainers") if _is_sidecar(c)
        )
        self.ready = 0
        self.restarts = 0
        self.last_restart: datetime | None = None
        # once initialisation is over only sidecars' restarts carry over from the init containers
        self._sidecar_restarts = 0
        self._sidecar_last: datetime | None = None

    def walk_init_containers(self) -> bool:
        """Fold in the init containers; True while the pod is still initialising."""
        sidecar_restarts = 0
        sidecar_last: datetime | None = None
        initializing = False
        init_count = len(items(self.pod, "spec", "initContainers"))
        for index, status in enumerate(items(self.pod, "status", "initContainerStatuses")):
            count = integer(status, "restartCount")
            self.restarts += count
            self.last_restart = _later(self.last_restart, _terminated_at(status))
            sidecar = _is_sidecar(self.init_specs.get(text(status, "name")))
            if sidecar:
                sidecar_restarts += count
                sidecar_last = _later(sidecar_last, _terminated_at(status))
            terminated = dig(status, "state", "terminated")
            waiting_reason = text(status, "state", "waiting", "reason")
            if isinstance(terminated, dict) and integer(terminated, "exitCode") == 0:
                continue
            if sidecar and dig(status, "started") is True:
                if dig(status, "ready") is True:
                    self.ready += 1
                continue
            if isinstance(terminated, dict):
                self.reason = _terminated_reason(terminated, "Init:")
            elif waiting_reason and waiting_reason != "PodInitializing":
                self.reason = "Init:" + waiting_reason
            else:
                self.reason = f"Init:{index}/{init_count}"
            initializing = True
            break
        self._sidecar_restarts, self._sidecar_last = sidecar_restarts, sidecar_last
        return initializing

    def walk_containers(self) -> None:
        """Fold in the app containers, last to first so the first listed container's reason wins."""
        self.restarts = self._sidecar_restarts
        self.last_restart = self._sidecar_last
        has_running = False
        for status in reversed(items(self.pod, "status", "containerStatuses")):
            self.restarts += integer(status, "restartCount")
            self.last_restart = _later(self.last_restart, _terminated_at(status))
            terminated = dig(status, "state", "terminated")
            if text(status, "state", "waiting", "reason"):
                self.reason = text(status, "state", "waiting", "reason")
            elif isinstance(terminated, dict):
                self.reason = _terminated_reason(terminated, "")
            elif dig(status, "ready") is True and isinstance(dig(status, "state", "running"), dict):
                has_running = True
                self.ready += 1
        if self.reason == "Completed" and has_running:
            self.reason = "Running" if _condition_true(self.pod, "Ready") else "NotReady"


def pod_status(pod: Obj) -> tuple[int, int, str, int, datetime | None]:
    """Ready containers, total containers, the Status reason, restarts and the last restart time."""
    state = _PodState(pod)
    initializing = state.walk_init_containers()
    if not initializing or _condition_true(pod, "Initialized"):
        state.walk_containers()
    deleting = dig(pod, "metadata", "deletionTimestamp") is not None
    if deleting and text(pod, "status", "reason") == NODE_UNREACHABLE_REASON:
        state.reason = "Unknown"
    elif deleting and state.phase not in ("Failed", "Succeeded"):
        state.reason = "Terminating"
    return state.ready, state.total, state.reason, state.restarts, state.last_restart


def _pod_ip(pod: Obj) -> str:
    # v1 -> internal conversion prefers status.podIP over status.podIPs when they disagree
    ip = text(pod, "status", "podIP")
    if not ip:
        ips = items(pod, "status", "podIPs")
        ip = text(ips[0], "ip") if ips else ""
    return ip or "<none>"


def _readiness_gates(pod: Obj) -> str:
    gates = items(pod, "spec", "readinessGates")
    if not gates:
        return "<none>"
    conditions = items(pod, "status", "conditions")
    true_count = 0
    for gate in gates:
        for condition in conditions:
            if text(condition, "type") == text(gate, "conditionType"):
                if text(condition, "status") == "True":
                    true_count += 1
                break
    return f"{true_count}/{len(gates)}"


@dataclass(frozen=True, slots=True)
class _PodFacts:
    """What a pod's row shows that depends on the pod alone (its age and how long ago it restarted depend on
    the time of the request too)."""

    ready: str
    reason: str
    restarts: int
    last_restart: datetime | None
    ip: str
    node: str
    nominated_node: str
    readiness_gates: str


class _FactsByRevision:
    """Facts of the pods printed last, by `content_identity`, least recently used first out. A list of pods
    prints mostly the pods it printed before, and computing their facts means decoding the containers and
    statuses the watch cache holds as JSON.

    The identity is the stored content's; one instance serves one resource in one group-version (core/v1
    pods), owned by its serving path (`PodPrinter`), so facts of another encoding never mix in."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str], _PodFacts] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def of(self, pod: CompactObject) -> _PodFacts:
        ident = content_identity(pod)
        if ident is None:
            return _facts(pod)  # a dry run's object: nothing identifies its content
        facts = self._entries.get(ident)
        if facts is not None:
            self._entries.move_to_end(ident)
            return facts
        facts = self._entries[ident] = _facts(pod)
        if len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return facts


def _facts(pod: CompactObject) -> _PodFacts:
    readable = expanded(pod)
    ready, total, reason, restarts, last_restart = pod_status(readable)
    return _PodFacts(
        ready=f"{ready}/{total}",
        reason=reason,
        restarts=restarts,
        last_restart=last_restart,
        ip=_pod_ip(readable),
        node=text(readable, "spec", "nodeName") or "<none>",
        nominated_node=text(readable, "status", "nominatedNodeName") or "<none>",
        readiness_gates=_readiness_gates(readable),
    )


#: facts kept per serving path; about 200 bytes each, so at most ~10 MB
FACTS_PER_PRINTER = 50_000


def _row(pod: CompactObject, facts: _PodFacts, now: datetime) -> list[Any]:
    restarts_cell = str(facts.restarts)
    if facts.restarts and facts.last_restart is not None:
        restarts_cell = f"{facts.restarts} ({human_duration(nanoseconds(now - facts.last_restart))} ago)"
    return [
        name_of(pod),
        facts.ready,
        facts.reason,
        restarts_cell,
        age(pod, now),
        facts.ip,
        facts.node,
        facts.nominated_node,
        facts.readiness_gates,
    ]


def pod_row(pod: CompactObject, now: datetime) -> list[Any]:
    """The row, computed afresh."""
    return _row(pod, _facts(pod), now)


class PodPrinter:
    """The pods' row function for one serving path, keeping each pod's facts by revision."""

    def __init__(self, max_entries: int = FACTS_PER_PRINTER) -> None:
        self.facts = _FactsByRevision(max_entries)

    def __call__(self, pod: CompactObject, now: datetime) -> list[Any]:
        return _row(pod, self.facts.of(pod), now)


def pod_conditions(pod: Obj) -> list[dict[str, str]]:
    phase = text(pod, "status", "phase")
    if phase == "Succeeded":
        message = "The pod has completed successfully."
    elif phase == "Failed":
        message = "The pod failed."
    else:
        return []
    return [{"type": "Completed", "status": "True", "reason": phase, "message": message}]


POD_TABLE = TableSpec(POD_COLUMNS, pod_row, pod_conditions, new_printer=PodPrinter, reads_compact=True)
