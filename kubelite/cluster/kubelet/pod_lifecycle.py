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
4. a deletionTimestamp: the kubelet stops the running containers (Killing), which exit 0 (`Completed`), or,
   when they ignore SIGTERM (`simulation`), run on until the pod's deletionGracePeriodSeconds are over and are
   then killed (137, `Error`); a container that never ran is `ContainerStatusUnknown` (137); the pod takes its
   terminal phase and the kubelet deletes it with grace period 0 (`delete` in the answer), after writing that
   status.

`readmit` is a restarted kubelet's first sight of a pod it ran before: the record is rebuilt from the status
(startTime, podIP, whose address is held again) so the replay carries on where it was, without repeating events.

The containers' entries are `container_status`'s, the phase and conditions `pod_conditions`'s; the status's
fields come in the order kube serves them (phase, conditions, hostIP(s), podIP(s), startTime, the container
statuses, qosClass, observedGeneration).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from kubelite.apimachinery.meta import Obj, parse_rfc3339, rfc3339
from kubelite.cluster.kubelet import events, identity
from kubelite.cluster.kubelet.container_runs import Timeline, play
from kubelite.cluster.kubelet.container_status import container_status
from kubelite.cluster.kubelet.ip_allocator import PodIPAllocator
from kubelite.cluster.kubelet.pod_conditions import kubelet_conditions, pod_phase, stamp_conditions
from kubelite.cluster.kubelet.qos import qos_class
from kubelite.cluster.kubelet.simulation import DEFAULT_TIMING, ContainerBehaviour, SimulationTiming, behaviour_of

# a simulated pull takes no time; the start delay stands for it
PULL_TIME = timedelta(0)


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
    """The answer of one sync: what to write, what to record, and what to do next."""

    status: Obj
    record: PodRecord
    # whether `status` differs from the pod's: the status manager writes only then
    changed: bool = True
    events: list[Obj] = field(default_factory=list)
    # None: nothing will change by itself (the next sync comes with the next change to the pod)
    next_sync_at: datetime | None = None
    terminal: bool = False
    # the pod's IP may go back to the node's allocator
    release_ip: bool = False
    # delete the pod now, with gracePeriodSeconds 0 and a uid precondition, after writing `status`
    delete: bool = False


def node_ip(node: Obj) -> str:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address"))
    return ""


def admit(pod: Obj, node: Obj, now: datetime, allocator: PodIPAllocator | None) -> PodRecord:
    """The record of a pod the kubelet sees for the first time; reserves its IP unless it uses the host's.

    The IP goes back to the allocator when a sync says `release_ip`, or when the pod disappears without reaching
    a terminal phase (deleted with grace period 0): that is the caller's to notice."""
    uid = pod["metadata"]["uid"]
    if (pod.get("spec") or {}).get("hostNetwork") or allocator is None:
        ip = node_ip(node)
    else:
        ip = allocator.allocate(uid)
    return PodRecord(uid=uid, admitted_at=now, pod_ip=ip)


def admitted_before(pod: Obj) -> bool:
    """Whether a kubelet already ran this pod: only a kubelet sets startTime."""
    return bool((pod.get("status") or {}).get("startTime"))


def readmit(pod: Obj, node: Obj, now: datetime, allocator: PodIPAllocator | None) -> PodRecord:
    """The record of a pod a kubelet ran before it restarted (`admitted_before`): admitted at its startTime,
    with the IP its status shows held again unless the pod is over (a terminal pod's address went back)."""
    uid = pod["metadata"]["uid"]
    status = pod.get("status") or {}
    try:
        admitted_at = parse_rfc3339(status["startTime"])
    except (KeyError, TypeError, ValueError):
        return admit(pod, node, now, allocator)
    ip = str(status.get("podIP") or "")
    terminal = status.get("phase") in ("Succeeded", "Failed")
    if (pod.get("spec") or {}).get("hostNetwork") or allocator is None:
        ip = node_ip(node)
    elif not terminal and not (ip and allocator.reserve(uid, ip)):
        # no address yet, or one this node cannot hold (another pod's, another range's): a fresh one
        ip = allocator.allocate(uid)
    seen = now if (pod.get("metadata") or {}).get("deletionTimestamp") else None
    return PodRecord(uid=uid, admitted_at=admitted_at, pod_ip=ip, deletion_seen_at=seen, events_through=now)


def kill_at(pod: Obj, record: PodRecord, behaviour: ContainerBehaviour) -> datetime | None:
    """When the pod's containers stop, once it is being deleted: at once, or at the end of its grace period
    for containers that ignore SIGTERM."""
    if record.deletion_seen_at is None:
        return None
    if not behaviour.ignore_sigterm:
        return record.deletion_seen_at
    grace = (pod.get("metadata") or {}).get("deletionGracePeriodSeconds")
    seconds = grace if isinstance(grace, int) and not isinstance(grace, bool) and grace > 0 else 0
    return record.deletion_seen_at + timedelta(seconds=seconds)


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


def _replay(
    pod: Obj, record: PodRecord, now: datetime, timing: SimulationTiming, behaviour: ContainerBehaviour,
) -> _Replay:
    spec = pod.get("spec") or {}
    policy = spec.get("restartPolicy") or "Always"
    sandbox_at = record.admitted_at + timing.start_delay
    stop_at = kill_at(pod, record, behaviour)
    kill_exit_code = 137 if behaviour.ignore_sigterm else 0
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
            restart_policy="Never", now=now, stop_at=stop_at, kill_exit_code=kill_exit_code,
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
            restart_policy=policy, now=now, stop_at=stop_at, kill_exit_code=kill_exit_code,
        )
        replay.regular.append((container, timeline))
        replay.note(timeline.next_change, now)
        current = timeline.current
        if current is not None and current.finished_at is None and not behaviour.never_ready:
            replay.note(current.started_at + behaviour.ready_after, now)
    return replay


# -- events -----------------------------------------------------------------------------------------------------


def _container_events(
    pod: Obj, container: Obj, timeline: Timeline | None, *, init: bool, kill_started: datetime | None,
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
            found.append((when, events.NORMAL, "Pulled", events.pulled(image, PULL_TIME, size), path))
        else:
            found.append((when, events.NORMAL, "Pulled", events.already_present(image), path))
        found.append((when, events.NORMAL, "Created", events.created(name), path))
        found.append((when, events.NORMAL, "Started", events.started(name), path))
        # the kubelet says it stops a container when it asks it to, however long the container takes
        stopping = attempt.killed or (attempt.finished_at is None and attempt is timeline.current)
        if kill_started is not None and stopping and attempt.started_at <= kill_started:
            found.append((kill_started, events.NORMAL, "Killing", events.killing(name), path))
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
    behaviour = behaviour_of(pod, timing)
    replay = _replay(pod, record, now, timing, behaviour)
    deleting = record.deletion_seen_at is not None
    init_containers = spec.get("initContainers") or []
    waiting_reason = "PodInitializing" if init_containers else "ContainerCreating"

    def statuses(pairs: list[tuple[Obj, Timeline | None]], *, init: bool, terminal: bool) -> list[Obj]:
        built = []
        for container, timeline in pairs:
            ready_at = None
            current = timeline.current if timeline else None
            if not init and current is not None and not behaviour.never_ready:
                ready_at = current.started_at + behaviour.ready_after
            built.append(container_status(
                pod, container, timeline, init=init, waiting_reason=waiting_reason,
                ready_at=ready_at, now=now, terminal=terminal,
            ))
        return built

    # the containers of a pod being deleted are all stopped once the kill is through
    terminal_by_kill = replay.stop_at is not None and replay.stop_at <= now
    init_statuses = statuses(replay.init, init=True, terminal=terminal_by_kill)
    container_statuses = statuses(replay.regular, init=False, terminal=terminal_by_kill)
    phase = pod_phase(spec, init_statuses, container_statuses, terminal_by_kill)
    if old_status.get("phase") in ("Succeeded", "Failed"):
        phase = old_status["phase"]
    terminal = phase in ("Succeeded", "Failed")
    sandbox = replay.sandbox_up and not terminal and not terminal_by_kill

    generation = metadata.get("generation")
    generated = kubelet_conditions(spec, old_status.get("conditions") or [], init_statuses, container_statuses,
                                    phase, sandbox)
    status: Obj = {"phase": phase}
    status["conditions"] = stamp_conditions(generated, old_status.get("conditions") or [], now, generation)
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
        happened += _container_events(pod, container, timeline, init=True, kill_started=record.deletion_seen_at)
    for container, timeline in replay.regular:
        happened += _container_events(pod, container, timeline, init=False, kill_started=record.deletion_seen_at)
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
        changed=status != old_status,
        events=recorded,
        next_sync_at=next_sync,
        terminal=terminal,
        release_ip=terminal and not spec.get("hostNetwork"),
        delete=terminal and deleting,
    )
