"""A pod's phase and the conditions the kubelet owns, from its containers' statuses.

The phase is the kubelet's `getPhase` (pkg/kubelet/kubelet_pods.go) for regular init containers and containers.
The conditions come in the kubelet's order (`generateAPIPodStatus`): those it does not own first, as they were,
then PodReadyToStartContainers, Initialized, Ready, ContainersReady, PodScheduled, with the reasons and messages
of pkg/kubelet/status/generate.go (readiness gates included). A condition keeps its lastTransitionTime while its
status holds, as the status manager does; PodScheduled keeps the scheduler's.
"""

from __future__ import annotations

from datetime import datetime

from kubelite.apimachinery.meta import Obj, rfc3339

KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")


def pod_phase(spec: Obj, init_statuses: list[Obj], statuses: list[Obj], terminal: bool) -> str:
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


def kubelet_conditions(
    spec: Obj, old_conditions: list[Obj], init_statuses: list[Obj], statuses: list[Obj], phase: str, sandbox: bool,
) -> list[Obj]:
    conditions: list[Obj] = [{"type": "PodReadyToStartContainers", "status": "True" if sandbox else "False"}]
    incomplete = [status["name"] for status in init_statuses if not status["ready"]]
    # HasAnyRegularContainerStarted: a pod whose containers ran stays initialized
    any_started = any(
        "running" in status["state"] or "terminated" in status["state"] or status["lastState"].get("terminated")
        for status in statuses
    )
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


def stamp_conditions(
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
