"""What a simulated kubelet does with a pod bound to its node: the next status to report, and when to look again.

`admit` is the kubelet's first sight of the pod: it records the time (the pod's startTime) and reserves the
pod's IP on the node (`ip_allocator`; a hostNetwork pod uses the node's IP). `sync_pod` is then a pure function of
(pod, node, record, now): it replays the pod's simulated history (`simulation`, `container_runs`) up to `now` and
returns the PodStatus to write to `pods/status`, the Events that happened since the last sync, the time of the
next change (when to sync again), whether the pod's IP can be released, and whether to delete the pod now.

The history, as the kubelet drives it:
1. admitted: phase Pending, hostIP(s), startTime, qosClass; containers waiting `ContainerCreating` (or
   `PodInitializing` when the pod has init containers); PodReadyToStartContainers False; no podIP yet.
2. after `start_delay` the sandbox is up: podIP, PodReadyToStartContainers True; the init containers run one by one
   (Initialized False, `containers with incomplete status: [...]`), then every container starts: Pulling, Pulled,
   Created, Started; phase Running; each container ready at once, or after `ready-after`, or never.
3. a container that exits is restarted or not by the restartPolicy, with the crash-loop back-off (waiting
   `CrashLoopBackOff`, "back-off 10s restarting failed container=..."); when none will run again the phase is
   Succeeded (all exited 0) or Failed, and the sandbox is gone (PodReadyToStartContainers False).
4. a deletionTimestamp: the kubelet stops the running containers (Killing), which exit 0 (`Completed`); a
   container that never ran is `ContainerStatusUnknown` (137); the pod takes its terminal phase and the kubelet
   deletes it with grace period 0 (`delete` in the answer), after writing that status.

Conditions come in the kubelet's order (pkg/kubelet/kubelet_pods.go `generateAPIPodStatus`): the conditions the
kubelet does not own first, as they were, then PodReadyToStartContainers, Initialized, Ready, ContainersReady,
PodScheduled, with the reasons and messages of pkg/kubelet/status/generate.go. A condition keeps its
lastTransitionTime while its status holds (the status manager's rule); PodScheduled keeps the scheduler's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.cluster.kubelet import events, identity
from kubelite.cluster.kubelet.container_runs import Attempt, Timeline, play
from kubelite.cluster.kubelet.ip_allocator import PodIPAllocator
from kubelite.cluster.kubelet.qos import qos_class
from kubelite.cluster.kubelet.simulation import DEFAULT_TIMING, SimulationTiming, behaviour_of

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
UNKNOWN_EXIT_CODE = 137


@dataclass(frozen=True)
class PodRecord:
    """What the kubelet remembers of one pod between syncs."""

    uid: str
    admitted_at: datetime
    pod_ip: str
    deletion_seen_at: datetime | None = None
    # events up to and including this instant were already returned
    events_through: datetime | None = None


@dataclass
class PodSync:
    status: Obj
    record: PodRecord
    events: list[Obj] = field(default_factory=list)
    next_sync_at: datetime | None = None
    terminal: bool = False
    release_ip: bool = False
    delete: bool = False


def node_ip(node: Obj) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address"))
    return ""


def admit(pod: Obj, node: Obj, now: datetime, allocator: PodIPAllocator | None) -> PodRecord:
    """The record of a pod the kubelet sees for the first time; reserves its IP unless it uses the host's."""
    uid = pod["metadata"]["uid"]
    if (pod.get("spec") or {}).get("hostNetwork") or allocator is None:
        ip = node_ip(node)
    else:
        ip = allocator.allocate(uid)
    return PodRecord(uid=uid, admitted_at=now, pod_ip=ip)


# -- the replay ---------------------------------------------------------------------------------------------


@dataclass
class _Replay:
    """Every container's timeline at `now`, init containers first."""

    sandbox_at: datetime
    sandbox_up: bool
    init: list[tuple[Obj, Timeline | None]]
    regular: list[tuple[Obj, Timeline | None]]
    stop_at: datetime | None
    next_change: datetime | None = None

    def note(self, when: datetime | None, now: datetime) -> None:
        if when is not None and when > now and (self.next_change is None or when < self.next_change):
            self.next_change = when


def _replay(pod: Obj, record: PodRecord, now: datetime, timing: SimulationTiming) -> _Replay:
    spec = pod.get("spec") or {}
    policy = spec.get("restartPolicy") or "Always"
    behaviour = behaviour_of(pod, timing)
    sandbox_at = record.admitted_at + timing.start_delay
    stop_at = record.deletion_seen_at
    replay = _Replay(sandbox_at, sandbox_at <= now and (stop_at is None or sandbox_at < stop_at), [], [], stop_at)
    replay.note(sandbox_at, now)
    start: datetime | None = sandbox_at if replay.sandbox_up or sandbox_at > now else None
    if stop_at is not None and sandbox_at >= stop_at:
        start = None
    for container in spec.get("initContainers") or []:
        if start is None or start > now:
            replay.init.append((container, None))
            start = None
            continue
        timeline = play(
            first_start=start, run_time=timing.init_run_time, exit_code=0,
            restart_policy="Never", now=now, stop_at=stop_at,
        )
        replay.init.append((container, timeline))
        replay.note(timeline.next_change, now)
        finished = timeline.current
        start = finished.finished_at if finished and finished.exit_code == 0 and not finished.killed else None
        if start is not None:
            replay.note(start, now)
    for container in spec.get("containers") or []:
        if start is None or start > now:
            replay.regular.append((container, None))
            continue
        timeline = play(
            first_start=start, run_time=behaviour.run_time, exit_code=behaviour.exit_code,
            restart_policy=policy, now=now, stop_at=stop_at,
        )
        replay.regular.append((container, timeline))
        replay.note(timeline.next_change, now)
        current = timeline.current
        if current is not None and current.finished_at is None and not behaviour.never_ready:
            replay.note(current.started_at + behaviour.ready_after, now)
    return replay


# -- container statuses ---------------------------------------------------------------------------------------


def _terminated(attempt: Attempt, container_id: str) -> dict[str, Any]:
    assert attempt.finished_at is not None and attempt.exit_code is not None
    return {
        "exitCode": attempt.exit_code,
        "reason": "Completed" if attempt.exit_code == 0 else "Error",
        "startedAt": rfc3339(attempt.started_at),
        "finishedAt": rfc3339(attempt.finished_at),
        "containerID": container_id,
    }


def _container_status(
    pod: Obj, container: Obj, timeline: Timeline | None, *, init: bool, waiting_reason: str,
    ready_at: datetime | None, now: datetime, terminal: bool,
) -> dict[str, Any]:
    uid = pod["metadata"]["uid"]
    name = container["name"]
    image = container.get("image", "")
    status: dict[str, Any] = {"name": name}
    last_state: dict[str, Any] = {}
    ready = started = False
    restart_count = 0
    container_id = ""
    image_ref = ""
    if timeline is None or timeline.current is None:
        if terminal:
            state = {"terminated": {
                "exitCode": UNKNOWN_EXIT_CODE,
                "reason": "ContainerStatusUnknown",
                "message": "The container could not be located when the pod was terminated",
                "startedAt": None,
                "finishedAt": None,
            }}
        else:
            state = {"waiting": {"reason": waiting_reason}}
    else:
        current = timeline.current
        restart_count = current.number
        container_id = identity.container_id(uid, name, current.number)
        image_ref = identity.image_id(image)
        image = identity.normalize_image(image)
        previous = timeline.attempts[-2] if len(timeline.attempts) > 1 else None
        if previous is not None:
            last_state = {"terminated": _terminated(previous, identity.container_id(uid, name, previous.number))}
        if current.finished_at is None:
            state = {"running": {"startedAt": rfc3339(current.started_at)}}
            started = True
            ready = ready_at is not None and now >= ready_at
        elif timeline.restart_at is not None and not terminal:
            # waiting out the back-off: the exited run is the last state, the waiting is the state
            last_state = {"terminated": _terminated(current, container_id)}
            restart_count = current.number
            assert timeline.backoff is not None
            state = {"waiting": {
                "reason": "CrashLoopBackOff",
                "message": (
                    f"back-off {events.go_duration(timeline.backoff)} restarting failed "
                    f"container={name} pod={events.pod_key(pod)}"
                ),
            }}
        else:
            state = {"terminated": _terminated(current, container_id)}
            # a regular init container that succeeded counts as ready (pkg/kubelet/status)
            ready = init and current.exit_code == 0
    status.update({
        "state": state,
        "lastState": last_state,
        "ready": ready,
        "restartCount": restart_count,
        "image": image,
        "imageID": image_ref,
    })
    if container_id:
        status["containerID"] = container_id
    status["started"] = started
    if container.get("volumeMounts"):
        status["volumeMounts"] = [_mount_status(mount) for mount in container["volumeMounts"]]
    return status


def _mount_status(mount: Obj) -> Obj:
    status: Obj = {"name": mount.get("name"), "mountPath": mount.get("mountPath")}
    if mount.get("readOnly"):
        status["readOnly"] = True
        status["recursiveReadOnly"] = "Disabled"
    return status


# -- phase and conditions ---------------------------------------------------------------------------------------


def _phase(spec: Obj, init_statuses: list[Obj], statuses: list[Obj], terminal: bool) -> str:
    """getPhase (pkg/kubelet/kubelet_pods.go) for regular init containers and containers."""
    policy = spec.get("restartPolicy") or "Always"
    pending_init = failed_init = 0
    for status in init_statuses:
        terminated = status["state"].get("terminated")
        if terminated is None:
            last = status["lastState"].get("terminated")
            if last and last["exitCode"] != 0:
                failed_init += 1
            else:
                pending_init += 1
        elif terminated["exitCode"] != 0:
            failed_init += 1
    if failed_init and policy == "Never":
        return "Failed"
    running = waiting = stopped = succeeded = 0
    for status in statuses:
        state = status["state"]
        if "running" in state:
            running += 1
        elif "terminated" in state:
            stopped += 1
            succeeded += state["terminated"]["exitCode"] == 0
        elif status["lastState"].get("terminated"):
            stopped += 1
        else:
            waiting += 1
    if pending_init or waiting:
        return "Pending"
    if running:
        return "Running"
    if stopped:
        if terminal:
            return "Succeeded" if stopped == succeeded else "Failed"
        if policy == "Always":
            return "Running"
        if stopped == succeeded:
            return "Succeeded"
        return "Failed" if policy == "Never" else "Running"
    return "Pending"


def _names(items: list[str]) -> str:
    """Go's %s of a []string: `[a b]`."""
    return "[" + " ".join(items) + "]"


def _kubelet_conditions(
    spec: Obj, old_conditions: list[Obj], init_statuses: list[Obj], statuses: list[Obj], phase: str, sandbox: bool,
) -> list[Obj]:
    conditions: list[Obj] = [{"type": "PodReadyToStartContainers", "status": "True" if sandbox else "False"}]
    incomplete = [status["name"] for status in init_statuses if not status["ready"]]
    any_started = any(status["state"].get("running") or status["lastState"].get("terminated")
                      or status["state"].get("terminated", {}).get("containerID") for status in statuses)
    if phase == "Succeeded":
        conditions.append({"type": "Initialized", "status": "True", "reason": "PodCompleted"})
    elif incomplete and not any_started:
        conditions.append({
            "type": "Initialized", "status": "False", "reason": "ContainersNotInitialized",
            "message": f"containers with incomplete status: {_names(incomplete)}",
        })
    else:
        conditions.append({"type": "Initialized", "status": "True"})
    if phase in ("Succeeded", "Failed"):
        reason = "PodCompleted" if phase == "Succeeded" else "PodFailed"
        containers_ready: Obj = {"type": "ContainersReady", "status": "False", "reason": reason}
    else:
        unready = [status["name"] for status in statuses if not status["ready"]]
        if unready:
            containers_ready = {
                "type": "ContainersReady", "status": "False", "reason": "ContainersNotReady",
                "message": f"containers with unready status: {_names(unready)}",
            }
        else:
            containers_ready = {"type": "ContainersReady", "status": "True"}
    ready = dict(containers_ready, type="Ready")
    if containers_ready["status"] == "True":
        gates = []
        present = {condition.get("type"): condition for condition in old_conditions}
        for gate in spec.get("readinessGates") or []:
            kind = gate.get("conditionType")
            if kind not in present:
                gates.append(f'corresponding condition of pod readiness gate "{kind}" does not exist.')
            elif present[kind].get("status") != "True":
                gates.append(
                    f'the status of pod readiness gate "{kind}" is not "True", but {present[kind].get("status")}'
                )
        if gates:
            ready = {
                "type": "Ready", "status": "False", "reason": "ReadinessGatesNotReady", "message": ", ".join(gates),
            }
    conditions += [ready, containers_ready, {"type": "PodScheduled", "status": "True"}]
    return conditions


def _stamp_conditions(
    generated: list[Obj], old_conditions: list[Obj], now: datetime, generation: int | None
) -> list[Obj]:
    before = {condition.get("type"): condition for condition in old_conditions}
    kept = [condition for condition in old_conditions if condition.get("type") not in KUBELET_CONDITIONS]
    stamped = []
    for condition in generated:
        old = before.get(condition["type"])
        transition = old.get("lastTransitionTime") if old and old.get("status") == condition["status"] else None
        entry: Obj = {"type": condition["type"]}
        if generation is not None:
            entry["observedGeneration"] = generation
        entry["status"] = condition["status"]
        entry["lastProbeTime"] = None
        entry["lastTransitionTime"] = transition or rfc3339(now)
        for key in ("reason", "message"):
            if key in condition:
                entry[key] = condition[key]
        stamped.append(entry)
    return kept + stamped


# -- events -----------------------------------------------------------------------------------------------------


def _container_events(
    pod: Obj, container: Obj, timeline: Timeline | None, *, init: bool,
) -> list[tuple[datetime, str, str, str, str]]:
    """(when, type, reason, message, fieldPath) for everything that happened to one container."""
    if timeline is None:
        return []
    name = container["name"]
    image = container.get("image", "")
    path = events.field_path(name, init=init)
    policy = container.get("imagePullPolicy") or ("Always" if _latest(image) else "IfNotPresent")
    found = []
    for attempt in timeline.attempts:
        when = attempt.started_at
        if attempt.number == 0 or policy == "Always":
            found.append((when, events.NORMAL, "Pulling", events.pulling(image), path))
            size = identity.image_size(image)
            found.append((when, events.NORMAL, "Pulled", events.pulled(image, when - when, size), path))
        else:
            found.append((when, events.NORMAL, "Pulled", events.already_present(image), path))
        found.append((when, events.NORMAL, "Created", events.created(name), path))
        found.append((when, events.NORMAL, "Started", events.started(name), path))
        if attempt.killed and attempt.finished_at is not None:
            found.append((attempt.finished_at, events.NORMAL, "Killing", events.killing(name), path))
    for when, _delay in timeline.backoffs:
        found.append((when, events.WARNING, "BackOff", events.back_off(name, pod), path))
    return found


def _latest(image: str) -> bool:
    last = image.rsplit("/", 1)[-1]
    return "@" not in image and (":" not in last or last.endswith(":latest"))


# -- the sync -----------------------------------------------------------------------------------------------------


def sync_pod(
    pod: Obj, node: Obj, record: PodRecord, now: datetime, *, timing: SimulationTiming = DEFAULT_TIMING,
) -> PodSync:
    metadata = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    old_status = pod.get("status") or {}
    if metadata.get("deletionTimestamp") and record.deletion_seen_at is None:
        record = replace(record, deletion_seen_at=now)
    replay = _replay(pod, record, now, timing)
    behaviour = behaviour_of(pod, timing)
    deleting = record.deletion_seen_at is not None
    init_containers = spec.get("initContainers") or []
    waiting_reason = "PodInitializing" if init_containers else "ContainerCreating"

    all_stopped = all(timeline is not None and timeline.done for _, timeline in replay.regular) or (
        deleting and all(timeline is None or timeline.done for _, timeline in replay.init + replay.regular)
    )
    killed = deleting and now >= (replay.stop_at or now)

    def statuses(pairs: list[tuple[Obj, Timeline | None]], *, init: bool, terminal: bool) -> list[Obj]:
        built = []
        for container, timeline in pairs:
            ready_at = None
            current = timeline.current if timeline else None
            if not init and current is not None and not behaviour.never_ready:
                ready_at = current.started_at + behaviour.ready_after
            built.append(_container_status(
                pod, container, timeline, init=init, waiting_reason=waiting_reason,
                ready_at=ready_at, now=now, terminal=terminal,
            ))
        return built

    terminal_by_kill = killed and all_stopped
    init_statuses = statuses(replay.init, init=True, terminal=terminal_by_kill)
    container_statuses = statuses(replay.regular, init=False, terminal=terminal_by_kill)
    phase = _phase(spec, init_statuses, container_statuses, terminal_by_kill)
    if old_status.get("phase") in ("Succeeded", "Failed"):
        phase = old_status["phase"]
    terminal = phase in ("Succeeded", "Failed")
    sandbox = replay.sandbox_up and not terminal and not killed

    generation = metadata.get("generation")
    generated = _kubelet_conditions(spec, old_status.get("conditions") or [], init_statuses, container_statuses,
                                    phase, sandbox)
    status: Obj = {"phase": phase}
    status["conditions"] = _stamp_conditions(generated, old_status.get("conditions") or [], now, generation)
    host_ip = node_ip(node)
    status["hostIP"] = host_ip
    status["hostIPs"] = [{"ip": host_ip}]
    if replay.sandbox_up or old_status.get("podIP"):
        status["podIP"] = record.pod_ip
        status["podIPs"] = [{"ip": record.pod_ip}]
    status["startTime"] = rfc3339(record.admitted_at)
    if init_containers:
        status["initContainerStatuses"] = init_statuses
    status["containerStatuses"] = container_statuses
    status["qosClass"] = qos_class(pod)
    if generation is not None:
        status["observedGeneration"] = generation

    happened: list[tuple[datetime, str, str, str, str]] = []
    for container, timeline in replay.init:
        happened += _container_events(pod, container, timeline, init=True)
    for container, timeline in replay.regular:
        happened += _container_events(pod, container, timeline, init=False)
    since = record.events_through
    node_name = (node.get("metadata") or {}).get("name", "")
    fresh = sorted(
        (item for item in happened if item[0] <= now and (since is None or item[0] > since)),
        key=lambda item: item[0],
    )
    recorded = [
        events.pod_event(
            pod, node_name=node_name, reason=reason, message=message, when=when, event_type=kind,
            container_field_path=path, sequence=index,
        )
        for index, (when, kind, reason, message, path) in enumerate(fresh)
    ]
    record = replace(record, events_through=now)
    next_sync = None if terminal else replay.next_change
    return PodSync(
        status=status,
        record=record,
        events=recorded,
        next_sync_at=next_sync,
        terminal=terminal,
        release_ip=terminal and not spec.get("hostNetwork"),
        delete=terminal and deleting,
    )
