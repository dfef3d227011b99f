"""A pod on a simulated kubelet, step by step on a FakeClock: statuses, events and when to look again."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from kubelite.cluster.kubelet import identity, node, pod_lifecycle
from kubelite.cluster.kubelet.ip_allocator import PodIPAllocator
from kubelite.cluster.kubelet.qos import qos_class
from kubelite.util.clock import FakeClock

T0 = "2023-11-14T22:30:00Z"
SCHEDULED_AT = "2023-11-14T22:29:59Z"
NGINX_ID = identity.image_id("nginx")


def _at(seconds: int) -> str:
    return f"2023-11-14T22:{30 + seconds // 60:02d}:{seconds % 60:02d}Z"


def _pod(*, annotations: dict[str, str] | None = None, restart_policy: str = "Always", **spec: Any) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web", "namespace": "default", "uid": "uid-web", "resourceVersion": "7"}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "metadata": metadata,
        "spec": {
            "nodeName": "node-1",
            "restartPolicy": restart_policy,
            "containers": [{"name": "nginx", "image": "nginx"}],
            **spec,
        },
        "status": {
            "phase": "Pending",
            "conditions": [
                {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": SCHEDULED_AT}
            ],
        },
    }


class Kubelet:
    """Drives sync_pod the way the node agent will: writes each status back, syncs again when asked."""

    def __init__(self, pod: dict[str, Any]) -> None:
        self.clock = FakeClock()
        self.node = node.build_node(
            node.NodeConfig(name="node-1", node_ip="172.18.0.2", pod_cidr="10.244.1.0/24"), self.clock.now()
        )
        self.allocator = PodIPAllocator("10.244.1.0/24")
        self.pod = pod
        self.record = pod_lifecycle.admit(pod, self.node, self.clock.now(), self.allocator)
        self.last: pod_lifecycle.PodSync | None = None

    def sync(self) -> pod_lifecycle.PodSync:
        result = pod_lifecycle.sync_pod(self.pod, self.node, self.record, self.clock.now())
        self.pod["status"] = result.status
        self.record = result.record
        self.last = result
        return result

    def advance_to(self, when: datetime) -> None:
        self.clock.step((when - self.clock.now()).total_seconds())

    def step(self, seconds: float) -> pod_lifecycle.PodSync:
        self.clock.step(seconds)
        return self.sync()

    def next(self) -> pod_lifecycle.PodSync:
        assert self.last is not None and self.last.next_sync_at is not None
        self.advance_to(self.last.next_sync_at)
        return self.sync()

    def elapsed(self, when: datetime | None) -> float | None:
        return None if when is None else (when - self.record.admitted_at).total_seconds()


def _condition(kind: str, status: str, since: str, **extra: str) -> dict[str, Any]:
    return {"type": kind, "status": status, "lastProbeTime": None, "lastTransitionTime": since, **extra}


def _summary(sync: pod_lifecycle.PodSync) -> list[tuple[str, str, str]]:
    return [(event["type"], event["reason"], event["message"]) for event in sync.events]


def test_a_pod_from_admission_to_running() -> None:
    kubelet = Kubelet(_pod())
    first = kubelet.sync()
    unready = {"reason": "ContainersNotReady", "message": "containers with unready status: [nginx]"}
    assert first.status == {
        "phase": "Pending",
        "conditions": [
            _condition("PodReadyToStartContainers", "False", T0),
            _condition("Initialized", "True", T0),
            _condition("Ready", "False", T0, **unready),
            _condition("ContainersReady", "False", T0, **unready),
            _condition("PodScheduled", "True", SCHEDULED_AT),
        ],
        "hostIP": "172.18.0.2",
        "hostIPs": [{"ip": "172.18.0.2"}],
        "startTime": T0,
        "containerStatuses": [{
            "name": "nginx", "state": {"waiting": {"reason": "ContainerCreating"}}, "lastState": {},
            "ready": False, "restartCount": 0, "image": "nginx", "imageID": "", "started": False,
        }],
        "qosClass": "BestEffort",
    }
    assert first.events == []
    assert kubelet.elapsed(first.next_sync_at) == 1.0
    assert not (first.terminal or first.delete or first.release_ip)

    second = kubelet.next()
    container_id = identity.container_id("uid-web", "nginx", 0)
    assert container_id.startswith("containerd://") and len(container_id) == len("containerd://") + 64
    assert second.status == {
        "phase": "Running",
        "conditions": [
            _condition("PodReadyToStartContainers", "True", _at(1)),
            _condition("Initialized", "True", T0),
            _condition("Ready", "True", _at(1)),
            _condition("ContainersReady", "True", _at(1)),
            _condition("PodScheduled", "True", SCHEDULED_AT),
        ],
        "hostIP": "172.18.0.2",
        "hostIPs": [{"ip": "172.18.0.2"}],
        "podIP": "10.244.1.2",
        "podIPs": [{"ip": "10.244.1.2"}],
        "startTime": T0,
        "containerStatuses": [{
            "name": "nginx", "state": {"running": {"startedAt": _at(1)}}, "lastState": {},
            "ready": True, "restartCount": 0, "image": "docker.io/library/nginx:latest",
            "imageID": NGINX_ID, "containerID": container_id, "started": True,
        }],
        "qosClass": "BestEffort",
    }
    assert NGINX_ID.startswith("docker.io/library/nginx@sha256:") and len(NGINX_ID.split(":")[-1]) == 64
    size = identity.image_size("nginx")
    assert _summary(second) == [
        ("Normal", "Pulling", 'Pulling image "nginx"'),
        ("Normal", "Pulled",
         f'Successfully pulled image "nginx" in 0s (0s including waiting). Image size: {size} bytes.'),
        ("Normal", "Created", "Created container: nginx"),
        ("Normal", "Started", "Started container nginx"),
    ]
    assert second.next_sync_at is None

    # nothing left to happen: a later sync reports the same status and no events
    assert first.changed and second.changed
    later = kubelet.step(3600)
    assert later.status == second.status and later.events == [] and not later.changed


def test_events_are_ready_to_send() -> None:
    kubelet = Kubelet(_pod())
    kubelet.sync()
    events = kubelet.next().events
    pulling = events[0]
    assert pulling == {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": pulling["metadata"]["name"], "namespace": "default"},
        "involvedObject": {
            "kind": "Pod", "namespace": "default", "name": "web", "uid": "uid-web", "apiVersion": "v1",
            "resourceVersion": "7", "fieldPath": "spec.containers{nginx}",
        },
        "reason": "Pulling",
        "message": 'Pulling image "nginx"',
        "source": {"component": "kubelet", "host": "node-1"},
        "firstTimestamp": _at(1),
        "lastTimestamp": _at(1),
        "count": 1,
        "type": "Normal",
        "eventTime": None,
        "reportingComponent": "kubelet",
        "reportingInstance": "node-1",
    }
    names = [event["metadata"]["name"] for event in events]
    assert len(set(names)) == 4 and all(name.startswith("web.") for name in names)
    assert int(names[0].split(".")[1], 16) == 1_700_001_001 * 1_000_000_000


def test_init_containers_run_one_by_one() -> None:
    pod = _pod(initContainers=[{"name": "migrate", "image": "busybox:1.36"}, {"name": "seed", "image": "busybox:1.36"}])
    kubelet = Kubelet(pod)
    first = kubelet.sync()
    assert [s["state"] for s in first.status["initContainerStatuses"]] == [
        {"waiting": {"reason": "PodInitializing"}}, {"waiting": {"reason": "PodInitializing"}}
    ]
    assert first.status["containerStatuses"][0]["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert first.status["conditions"][1] == _condition(
        "Initialized", "False", T0, reason="ContainersNotInitialized",
        message="containers with incomplete status: [migrate seed]",
    )
    assert first.status["phase"] == "Pending"

    running_first = kubelet.next()
    assert kubelet.elapsed(kubelet.clock.now()) == 1.0
    migrate, seed = running_first.status["initContainerStatuses"]
    assert migrate["state"] == {"running": {"startedAt": _at(1)}} and migrate["ready"] is False
    assert seed["state"] == {"waiting": {"reason": "PodInitializing"}}
    assert running_first.status["phase"] == "Pending"
    assert running_first.status["conditions"][1]["message"] == "containers with incomplete status: [migrate seed]"
    assert [(e["reason"], e["involvedObject"]["fieldPath"]) for e in running_first.events] == [
        ("Pulling", "spec.initContainers{migrate}"), ("Pulled", "spec.initContainers{migrate}"),
        ("Created", "spec.initContainers{migrate}"), ("Started", "spec.initContainers{migrate}"),
    ]

    running_second = kubelet.next()
    migrate, seed = running_second.status["initContainerStatuses"]
    assert migrate == {
        "name": "migrate",
        "state": {"terminated": {
            "exitCode": 0, "reason": "Completed", "startedAt": _at(1), "finishedAt": _at(2),
            "containerID": identity.container_id("uid-web", "migrate", 0),
        }},
        "lastState": {}, "ready": True, "restartCount": 0, "image": "docker.io/library/busybox:1.36",
        "imageID": identity.image_id("busybox:1.36"),
        "containerID": identity.container_id("uid-web", "migrate", 0), "started": False,
    }
    assert seed["state"] == {"running": {"startedAt": _at(2)}}
    assert running_second.status["conditions"][1]["message"] == "containers with incomplete status: [seed]"

    initialized = kubelet.next()
    assert kubelet.elapsed(kubelet.clock.now()) == 3.0
    assert initialized.status["phase"] == "Running"
    assert initialized.status["conditions"][1] == _condition("Initialized", "True", _at(3))
    assert initialized.status["containerStatuses"][0]["state"] == {"running": {"startedAt": _at(3)}}
    assert [(e["reason"], e["involvedObject"]["fieldPath"]) for e in initialized.events] == [
        ("Pulling", "spec.containers{nginx}"), ("Pulled", "spec.containers{nginx}"),
        ("Created", "spec.containers{nginx}"), ("Started", "spec.containers{nginx}"),
    ]
    assert initialized.next_sync_at is None


def test_job_pods_complete() -> None:
    pod = _pod(restart_policy="Never")
    pod["metadata"]["ownerReferences"] = [
        {"apiVersion": "batch/v1", "kind": "Job", "name": "pi", "uid": "uid-job", "controller": True}
    ]
    kubelet = Kubelet(pod)
    kubelet.sync()
    assert kubelet.next().status["phase"] == "Running"
    assert kubelet.elapsed(kubelet.last.next_sync_at if kubelet.last else None) == 2.0
    done = kubelet.next()
    assert done.status["phase"] == "Succeeded"
    assert done.status["conditions"] == [
        _condition("PodReadyToStartContainers", "False", _at(2)),
        _condition("Initialized", "True", T0, reason="PodCompleted"),
        _condition("Ready", "False", _at(2), reason="PodCompleted"),
        _condition("ContainersReady", "False", _at(2), reason="PodCompleted"),
        _condition("PodScheduled", "True", SCHEDULED_AT),
    ]
    status = done.status["containerStatuses"][0]
    assert status["state"] == {"terminated": {
        "exitCode": 0, "reason": "Completed", "startedAt": _at(1), "finishedAt": _at(2),
        "containerID": identity.container_id("uid-web", "nginx", 0),
    }}
    assert (status["ready"], status["started"], status["restartCount"]) == (False, False, 0)
    assert done.status["podIP"] == "10.244.1.2"
    assert (done.terminal, done.release_ip, done.delete, done.next_sync_at) == (True, True, False, None)


def test_run_time_and_exit_code_annotations_fail_a_never_pod() -> None:
    kubelet = Kubelet(_pod(restart_policy="Never", annotations={
        "sim.kubelite.io/run-time": "1m30s", "sim.kubelite.io/exit-code": "3",
    }))
    kubelet.sync()
    kubelet.next()
    failed = kubelet.next()
    assert kubelet.elapsed(kubelet.clock.now()) == 91.0
    assert failed.status["phase"] == "Failed"
    assert failed.status["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 3
    assert failed.status["containerStatuses"][0]["state"]["terminated"]["reason"] == "Error"
    assert failed.status["conditions"][2] == _condition("Ready", "False", _at(91), reason="PodFailed")


def test_ready_after_delays_readiness() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/ready-after": "5s"}))
    kubelet.sync()
    started = kubelet.next()
    assert started.status["phase"] == "Running"
    assert started.status["containerStatuses"][0]["ready"] is False
    assert started.status["containerStatuses"][0]["started"] is True
    assert started.status["conditions"][2]["reason"] == "ContainersNotReady"
    assert kubelet.elapsed(started.next_sync_at) == 6.0
    ready = kubelet.next()
    assert ready.status["containerStatuses"][0]["ready"] is True
    assert ready.status["conditions"][2] == _condition("Ready", "True", _at(6))
    assert ready.next_sync_at is None


def test_readiness_fail_never_turns_ready() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/readiness-fail": "true"}))
    kubelet.sync()
    running = kubelet.next()
    assert running.next_sync_at is None
    later = kubelet.step(600)
    assert later.status["phase"] == "Running"
    assert later.status["containerStatuses"][0]["ready"] is False
    assert later.status["conditions"][3] == _condition(
        "ContainersReady", "False", T0, reason="ContainersNotReady", message="containers with unready status: [nginx]"
    )


def test_crash_loop_backoff_timing() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/crash-loop": "true"}))
    kubelet.sync()
    # (seconds since admission, restartCount, state kind, back-off in the message)
    seen = []
    for _ in range(12):
        sync = kubelet.next()
        status = sync.status["containerStatuses"][0]
        waiting = status["state"].get("waiting")
        seen.append((
            kubelet.elapsed(kubelet.clock.now()), status["restartCount"], next(iter(status["state"])),
            waiting["message"].split()[1] if waiting else None, sync.status["phase"],
        ))
    assert seen == [
        (1.0, 0, "running", None, "Running"),
        (2.0, 1, "running", None, "Running"),
        (3.0, 1, "waiting", "10s", "Running"),
        (13.0, 2, "running", None, "Running"),
        (14.0, 2, "waiting", "20s", "Running"),
        (34.0, 3, "running", None, "Running"),
        (35.0, 3, "waiting", "40s", "Running"),
        (75.0, 4, "running", None, "Running"),
        (76.0, 4, "waiting", "1m20s", "Running"),
        (156.0, 5, "running", None, "Running"),
        (157.0, 5, "waiting", "2m40s", "Running"),
        (317.0, 6, "running", None, "Running"),
    ]
    waiting = kubelet.step(1).status["containerStatuses"][0]
    assert waiting["state"] == {"waiting": {
        "reason": "CrashLoopBackOff",
        "message": "back-off 5m0s restarting failed container=nginx pod=web_default(uid-web)",
    }}
    assert waiting["lastState"] == {"terminated": {
        "exitCode": 1, "reason": "Error", "startedAt": _at(317), "finishedAt": _at(318),
        "containerID": identity.container_id("uid-web", "nginx", 6),
    }}
    assert waiting["containerID"] == identity.container_id("uid-web", "nginx", 6)
    assert (waiting["ready"], waiting["started"]) == (False, False)
    assert kubelet.elapsed(kubelet.last.next_sync_at if kubelet.last else None) == 618.0


def test_crash_loop_events() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/crash-loop": "true"}))
    kubelet.sync()
    kubelet.advance_to(kubelet.record.admitted_at + timedelta(seconds=13))
    sync = kubelet.sync()
    assert [(e["firstTimestamp"], e["reason"]) for e in sync.events] == [
        (_at(1), "Pulling"), (_at(1), "Pulled"), (_at(1), "Created"), (_at(1), "Started"),
        (_at(2), "Pulling"), (_at(2), "Pulled"), (_at(2), "Created"), (_at(2), "Started"),
        (_at(3), "BackOff"),
        (_at(13), "Pulling"), (_at(13), "Pulled"), (_at(13), "Created"), (_at(13), "Started"),
    ]
    back_off = sync.events[8]
    assert (back_off["type"], back_off["message"]) == (
        "Warning", "Back-off restarting failed container nginx in pod web_default(uid-web)"
    )


def test_pinned_image_is_not_pulled_again_on_restart() -> None:
    pod = _pod(annotations={"sim.kubelite.io/crash-loop": "true"})
    pod["spec"]["containers"][0]["image"] = "nginx:1.27"
    kubelet = Kubelet(pod)
    kubelet.sync()
    kubelet.next()
    restarted = kubelet.next()
    assert _summary(restarted)[0] == ("Normal", "Pulled", 'Container image "nginx:1.27" already present on machine')


def test_on_failure_restarts_until_success() -> None:
    kubelet = Kubelet(_pod(restart_policy="OnFailure", annotations={
        "sim.kubelite.io/run-time": "2s", "sim.kubelite.io/exit-code": "0",
    }))
    kubelet.sync()
    kubelet.next()
    done = kubelet.next()
    assert done.status["phase"] == "Succeeded"
    kubelet = Kubelet(_pod(restart_policy="OnFailure", annotations={"sim.kubelite.io/crash-loop": "true"}))
    kubelet.sync()
    kubelet.next()
    restarted = kubelet.next()
    assert restarted.status["phase"] == "Running"
    assert restarted.status["containerStatuses"][0]["restartCount"] == 1


def test_graceful_deletion_stops_containers_and_asks_for_delete() -> None:
    kubelet = Kubelet(_pod())
    kubelet.sync()
    kubelet.next()
    kubelet.clock.step(30)
    kubelet.pod["metadata"]["deletionTimestamp"] = "2023-11-14T22:31:01Z"
    kubelet.pod["metadata"]["deletionGracePeriodSeconds"] = 30
    stopped = kubelet.sync()
    assert _summary(stopped) == [("Normal", "Killing", "Stopping container nginx")]
    assert stopped.status["phase"] == "Succeeded"
    assert stopped.status["containerStatuses"][0]["state"] == {"terminated": {
        "exitCode": 0, "reason": "Completed", "startedAt": _at(1), "finishedAt": _at(31),
        "containerID": identity.container_id("uid-web", "nginx", 0),
    }}
    assert [c["type"] + "=" + c["status"] for c in stopped.status["conditions"]] == [
        "PodReadyToStartContainers=False", "Initialized=True", "Ready=False", "ContainersReady=False",
        "PodScheduled=True",
    ]
    assert stopped.status["conditions"][2]["reason"] == "PodCompleted"
    assert (stopped.terminal, stopped.delete, stopped.release_ip, stopped.next_sync_at) == (True, True, True, None)


def test_deletion_before_start_reports_unknown_containers() -> None:
    kubelet = Kubelet(_pod())
    kubelet.sync()
    kubelet.pod["metadata"]["deletionTimestamp"] = T0
    gone = kubelet.step(0.5)
    assert gone.status["phase"] == "Failed"
    assert gone.status["containerStatuses"][0]["state"] == {"terminated": {
        "exitCode": 137, "reason": "ContainerStatusUnknown",
        "message": "The container could not be located when the pod was terminated",
        "startedAt": None, "finishedAt": None,
    }}
    assert "podIP" not in gone.status
    assert gone.delete and gone.events == []


def test_terminal_phase_is_final() -> None:
    pod = _pod()
    pod["status"]["phase"] = "Failed"
    kubelet = Kubelet(pod)
    assert kubelet.sync().status["phase"] == "Failed"


def test_host_network_pod_uses_node_ip() -> None:
    kubelet = Kubelet(_pod(hostNetwork=True))
    kubelet.sync()
    running = kubelet.next()
    assert running.status["podIPs"] == [{"ip": "172.18.0.2"}]
    assert len(kubelet.allocator) == 0


def test_other_conditions_kept_first_and_readiness_gates() -> None:
    pod = _pod(readinessGates=[{"conditionType": "example.com/lb"}])
    pod["status"]["conditions"].insert(0, {"type": "example.com/lb", "status": "False"})
    kubelet = Kubelet(pod)
    kubelet.sync()
    running = kubelet.next()
    assert running.status["conditions"][0] == {"type": "example.com/lb", "status": "False"}
    assert running.status["conditions"][3] == _condition(
        "Ready", "False", T0, reason="ReadinessGatesNotReady",
        message='the status of pod readiness gate "example.com/lb" is not "True", but False',
    )
    assert running.status["conditions"][4] == _condition("ContainersReady", "True", _at(1))


def test_observed_generation_when_the_pod_has_one() -> None:
    pod = _pod()
    pod["metadata"]["generation"] = 2
    status = Kubelet(pod).sync().status
    assert status["observedGeneration"] == 2
    assert status["conditions"][0]["observedGeneration"] == 2


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({}, "BestEffort"),
        ({"requests": {"cpu": "100m"}}, "Burstable"),
        ({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed"),
        ({"limits": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed"),
        ({"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}, "Burstable"),
        ({"limits": {"cpu": "1"}}, "Burstable"),
    ],
    ids=["none", "request-only", "equal", "limits-only", "request-below-limit", "cpu-limit-only"],
)
def test_qos_class(resources: dict[str, Any], expected: str) -> None:
    pod = _pod()
    pod["spec"]["containers"][0]["resources"] = resources
    assert qos_class(pod) == expected


def test_deletion_during_backoff_fails_the_pod() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/crash-loop": "true"}))
    kubelet.sync()
    kubelet.next()
    kubelet.next()
    waiting = kubelet.next()
    assert waiting.status["containerStatuses"][0]["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    kubelet.pod["metadata"]["deletionTimestamp"] = _at(4)
    gone = kubelet.step(1)
    status = gone.status["containerStatuses"][0]
    assert gone.status["phase"] == "Failed"
    assert status["state"] == {"terminated": {
        "exitCode": 1, "reason": "Error", "startedAt": _at(2), "finishedAt": _at(3),
        "containerID": identity.container_id("uid-web", "nginx", 1),
    }}
    assert status["lastState"]["terminated"]["finishedAt"] == _at(2)
    assert gone.status["conditions"][3] == _condition("ContainersReady", "False", _at(3), reason="PodFailed")
    assert gone.events == [] and gone.delete


def test_deletion_while_initializing() -> None:
    kubelet = Kubelet(_pod(initContainers=[{"name": "migrate", "image": "busybox"}]))
    kubelet.sync()
    kubelet.next()
    kubelet.pod["metadata"]["deletionTimestamp"] = _at(1)
    gone = kubelet.step(0.5)
    assert _summary(gone) == [("Normal", "Killing", "Stopping container migrate")]
    assert gone.status["initContainerStatuses"][0]["state"]["terminated"]["reason"] == "Completed"
    assert gone.status["containerStatuses"][0]["state"]["terminated"]["reason"] == "ContainerStatusUnknown"
    assert gone.status["phase"] == "Failed"
    assert gone.delete


def test_containers_ignoring_sigterm_run_out_the_grace_period() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/ignore-sigterm": "true"}))
    kubelet.sync()
    kubelet.next()
    kubelet.clock.step(9)
    kubelet.pod["metadata"]["deletionTimestamp"] = _at(40)
    kubelet.pod["metadata"]["deletionGracePeriodSeconds"] = 30
    asked = kubelet.sync()
    # asked to stop at 10 s, still running: the sandbox is up, the pod not yet terminal
    assert _summary(asked) == [("Normal", "Killing", "Stopping container nginx")]
    assert asked.status["phase"] == "Running"
    assert asked.status["containerStatuses"][0]["state"] == {"running": {"startedAt": _at(1)}}
    assert asked.status["conditions"][0]["status"] == "True"
    assert (asked.delete, asked.terminal) == (False, False)
    assert kubelet.elapsed(asked.next_sync_at) == 40
    killed = kubelet.next()
    assert killed.events == []
    assert killed.status["phase"] == "Failed"
    assert killed.status["containerStatuses"][0]["state"] == {"terminated": {
        "exitCode": 137, "reason": "Error", "startedAt": _at(1), "finishedAt": _at(40),
        "containerID": identity.container_id("uid-web", "nginx", 0),
    }}
    assert (killed.delete, killed.release_ip) == (True, True)


def test_ignoring_sigterm_with_no_grace_is_killed_at_once() -> None:
    kubelet = Kubelet(_pod(annotations={"sim.kubelite.io/ignore-sigterm": "true"}))
    kubelet.sync()
    kubelet.next()
    kubelet.pod["metadata"]["deletionTimestamp"] = _at(1)
    kubelet.pod["metadata"]["deletionGracePeriodSeconds"] = 0
    gone = kubelet.step(1)
    assert gone.status["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 137
    assert gone.delete


def test_readmit_carries_on_from_the_status() -> None:
    kubelet = Kubelet(_pod())
    kubelet.sync()
    kubelet.next()
    kubelet.clock.step(60)
    running = kubelet.sync()
    assert running.events == []
    # a restarted kubelet: a fresh allocator, the pod as the API has it
    allocator = PodIPAllocator("10.244.1.0/24")
    assert pod_lifecycle.admitted_before(kubelet.pod)
    record = pod_lifecycle.readmit(kubelet.pod, kubelet.node, kubelet.clock.now(), allocator)
    assert record.admitted_at == kubelet.record.admitted_at
    assert record.pod_ip == "10.244.1.2" and len(allocator) == 1
    again = pod_lifecycle.sync_pod(kubelet.pod, kubelet.node, record, kubelet.clock.now())
    assert again.events == []
    assert not again.changed
    assert allocator.allocate("new") == "10.244.1.3"
    # an address another pod holds already is not shared: the pod gets a fresh one
    taken = PodIPAllocator("10.244.1.0/24")
    taken.allocate("someone-else")
    assert pod_lifecycle.readmit(kubelet.pod, kubelet.node, kubelet.clock.now(), taken).pod_ip == "10.244.1.3"


def test_readmit_of_a_terminal_pod_holds_no_address() -> None:
    pod = _pod(restart_policy="Never", annotations={"sim.kubelite.io/run-time": "1s"})
    kubelet = Kubelet(pod)
    kubelet.sync()
    kubelet.next()
    done = kubelet.next()
    assert done.status["phase"] == "Succeeded"
    allocator = PodIPAllocator("10.244.1.0/24")
    record = pod_lifecycle.readmit(kubelet.pod, kubelet.node, kubelet.clock.now(), allocator)
    assert record.pod_ip == "10.244.1.2" and len(allocator) == 0


def test_readmit_without_a_start_time_is_a_first_admission() -> None:
    pod = _pod()
    assert not pod_lifecycle.admitted_before(pod)
    pod["status"]["startTime"] = "garbage"
    kubelet = Kubelet(pod)
    record = pod_lifecycle.readmit(pod, kubelet.node, kubelet.clock.now(), PodIPAllocator("10.244.1.0/24"))
    assert record.admitted_at == kubelet.clock.now()
