"""One container's entry in a pod's status (`containerStatuses[]`, `initContainerStatuses[]`), from its runs.

The shapes are the kubelet's (`convertToAPIContainerStatuses`): a container that has not run waits with the
pod's default reason (`ContainerCreating`, or `PodInitializing` when the pod has init containers) and shows the
image as written with an empty imageID; once it runs, the runtime's view: the normalised image, its digest, a
containerID per run, `started`, `ready`, `restartCount`, and the previous run as `lastState`. A container waiting
out its crash-loop back-off shows the run that exited as `lastState` and `CrashLoopBackOff` as its state. A
container of a terminated pod that never ran is `ContainerStatusUnknown` with exit code 137.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj, rfc3339
from kubelite.cluster.kubelet import events, identity
from kubelite.cluster.kubelet.container_runs import Attempt, Timeline

UNKNOWN_EXIT_CODE = 137


def _terminated(attempt: Attempt, container_id: str) -> dict[str, Any]:
    assert attempt.finished_at is not None and attempt.exit_code is not None
    return {
        "exitCode": attempt.exit_code,
        "reason": "Completed" if attempt.exit_code == 0 else "Error",
        "startedAt": rfc3339(attempt.started_at),
        "finishedAt": rfc3339(attempt.finished_at),
        "containerID": container_id,
    }


def container_status(
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
