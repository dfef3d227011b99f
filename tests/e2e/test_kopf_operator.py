"""A real operator against a real server: tests/e2e/operators/widget_operator.py, run with `kopf run` (kopf
1.45.2) over the secure port and the admin kubeconfig, with kopf's peering (its ClusterKopfPeering CRD applied,
the operator's keep-alive in the peering object's status). Every effect is read back through the API: the status
it writes through the status subresource, its finalizer holding a deleted Widget until its deletion handler ran,
the Events it posts (core/v1, and the same Events through events.k8s.io/v1), and its pause while `kopf freeze`
holds the peering and its return on `kopf resume`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.server import KubeliteProcess

KOPF = str(Path(sys.executable).with_name("kopf"))
OPERATOR = str(Path(__file__).with_name("operators") / "widget_operator.py")
PEERING_CRDS = (Path(__file__).with_name("operators") / "peering.yaml").read_text()
IDENTITY = "widget-operator-1"
PEERING = "widgets"
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
PEERING_PATH = f"/apis/kopf.dev/v1/clusterkopfpeerings/{PEERING}"
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def widget_crd(*, plural: str = "widgets", kind: str = "Widget", group: str = "example.com") -> dict[str, Any]:
    """A namespaced CRD as operators ship them: a structural schema, status and scale subresources, columns."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {
                        "status": {},
                        "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"},
                    },
                    "additionalPrinterColumns": [
                        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
                        {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    ],
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "properties": {
                                        "size": {"type": "integer"},
                                        "replicas": {"type": "integer"},
                                        "color": {"type": "string"},
                                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                    },
                                },
                                "status": {
                                    "type": "object",
                                    "properties": {
                                        "phase": {"type": "string"},
                                        "observedSize": {"type": "integer"},
                                        "replicas": {"type": "integer"},
                                    },
                                },
                            },
                        }
                    },
                }
            ],
        },
    }


def eventually(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """The first truthy value of `check()`, polled until `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {timeout}s")
        time.sleep(0.1)


def create_established_crd(server: KubeliteProcess, crd: dict[str, Any]) -> dict[str, Any]:
    created = server.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    assert created.status == 201, created.body
    path = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd['metadata']['name']}"

    def established() -> Any:
        current = server.http("GET", path).json()
        conditions = {c["type"]: c["status"] for c in current.get("status", {}).get("conditions", [])}
        return current if conditions.get("Established") == "True" else None

    return eventually(established, f"{crd['metadata']['name']} Established", timeout=10)


def get_json(server: KubeliteProcess, path: str) -> Any:
    result = server.http("GET", path)
    return result.json() if result.status == 200 else None


def events_of(server: KubeliteProcess, name: str) -> dict[str, dict[str, Any]]:
    """The core/v1 Events about the Widget `name`, by reason."""
    listed = server.http("GET", f"/api/v1/namespaces/default/events?fieldSelector=involvedObject.name={name}")
    assert listed.status == 200, listed.body
    return {event["reason"]: event for event in listed.json()["items"]}


class Operator:
    """`kopf run` of the widget operator as a subprocess, its output in a log file the test can wait on."""

    def __init__(self, server: KubeliteProcess, log_path: Path) -> None:
        self.server = server
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "KUBECONFIG": self.server.kubeconfig,
            "HOME": str(self.server.data_dir),
            "POD_ID": IDENTITY,
        }

    def start(self) -> None:
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [KOPF, "run", "--all-namespaces", "--peering", PEERING, "--priority", "100", "--verbose", OPERATOR],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=self.env(),
            )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_for_log(self, text: str, *, after: int = 0, timeout: float = 30.0) -> None:
        """Wait until `text` is in the log past its first `after` characters."""
        eventually(lambda: text in self.log()[after:], f"operator log line {text!r}", timeout)

    def kopf(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Another kopf command (freeze, resume) against the same peering."""
        return subprocess.run(
            [KOPF, *args, "--all-namespaces", "--peering", PEERING],
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=60,
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def operator(server: KubeliteProcess) -> Iterator[Operator]:
    for document in yaml.safe_load_all(PEERING_CRDS):
        create_established_crd(server, document)
    create_established_crd(server, widget_crd())
    peering = {"apiVersion": "kopf.dev/v1", "kind": "ClusterKopfPeering", "metadata": {"name": PEERING}}
    assert server.http("POST", "/apis/kopf.dev/v1/clusterkopfpeerings", peering).status == 201
    running = Operator(server, server.data_dir / "kopf.log")
    running.start()
    try:
        eventually(
            lambda: IDENTITY in ((get_json(server, PEERING_PATH) or {}).get("status") or {}),
            "the operator's keep-alive in the peering object",
        )
        yield running
    finally:
        running.stop()
        # kopf reports what went wrong only in its log: show it with the failure
        print(running.log())


def test_the_operator_keeps_its_record_in_the_peering_object(server: KubeliteProcess, operator: Operator) -> None:
    peering = get_json(server, PEERING_PATH)
    record = peering["status"][IDENTITY]
    lastseen = datetime.fromisoformat(record["lastseen"])
    assert (sorted(peering["status"]), record["priority"], record["lifetime"]) == ([IDENTITY], 100, 10)
    assert timedelta(0) <= datetime.now(UTC) - lastseen < timedelta(seconds=30)
    # without a status subresource every change of the peering object, its status included, is a new generation
    assert peering["metadata"]["generation"] >= 2


def test_a_widget_gets_status_finalizer_and_events_then_goes_after_its_deletion_handler(
    server: KubeliteProcess, operator: Operator
) -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w1", "namespace": "default"},
        "spec": {"size": 3, "color": "red"},
    }
    created = server.http("POST", WIDGETS, widget)
    assert created.status == 201, created.body
    uid = created.json()["metadata"]["uid"]

    def handled(size: int) -> Any:
        current = get_json(server, f"{WIDGETS}/w1")
        return current if current.get("status", {}).get("observedSize") == size else None

    ready = eventually(lambda: handled(3), "status written by the creation handler")
    meta = ready["metadata"]
    # status through the status subresource and the finalizer in metadata: neither is a new generation
    assert (ready["status"], meta["finalizers"], meta["generation"]) == (
        {"phase": "Ready", "observedSize": 3},
        [FINALIZER],
        1,
    )
    assert json.loads(meta["annotations"]["kopf.zalando.org/last-handled-configuration"]) == {
        "spec": {"size": 3, "color": "red"}
    }
    reference = {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w1", "namespace": "default", "uid": uid}
    created_event = eventually(lambda: events_of(server, "w1").get("Created"), "the Created event")
    assert (
        created_event["type"],
        created_event["message"],
        created_event["involvedObject"],
        created_event["source"],
        created_event["reportingComponent"],
        created_event["metadata"]["name"].startswith("kopf-event-"),
    ) == (
        "Normal",
        "widget w1 is ready with size 3",
        reference,
        {"component": "widget-operator"},
        "widget-operator",
        True,
    )

    patched = server.http("PATCH", f"{WIDGETS}/w1", {"spec": {"size": 5}}, headers=MERGE_PATCH)
    assert (patched.status, patched.json()["metadata"]["generation"]) == (200, 2)
    resized = eventually(lambda: handled(5), "status written by the update handler")
    assert (resized["status"], resized["metadata"]["generation"]) == ({"phase": "Ready", "observedSize": 5}, 2)
    resized_event = eventually(lambda: events_of(server, "w1").get("Resized"), "the Resized event")
    assert (resized_event["type"], resized_event["message"], resized_event["involvedObject"]) == (
        "Normal",
        "size 3 -> 5",
        reference,
    )

    # the finalizer holds the object: DELETE answers with it Terminating, a new generation
    deleting = server.http("DELETE", f"{WIDGETS}/w1")
    assert deleting.status == 200, deleting.body
    terminating = deleting.json()["metadata"]
    assert (terminating["finalizers"], terminating["generation"], terminating["deletionGracePeriodSeconds"]) == (
        [FINALIZER],
        3,
        0,
    )
    eventually(lambda: server.http("GET", f"{WIDGETS}/w1").status == 404, "the Widget gone after its finalizer")
    deleting_event = eventually(lambda: events_of(server, "w1").get("Deleting"), "the Deleting event")
    assert (deleting_event["type"], deleting_event["message"], deleting_event["involvedObject"]) == (
        "Warning",
        f"widget w1 deleted at {terminating['deletionTimestamp']}",
        reference,
    )

    # the same Events through events.k8s.io/v1, where the object is `regarding` and the message `note`
    listed = server.http("GET", "/apis/events.k8s.io/v1/namespaces/default/events")
    about_w1 = sorted(
        (e["reason"], e["type"], e["note"], e["regarding"]["uid"])
        for e in listed.json()["items"]
        if e["regarding"]["name"] == "w1"
    )
    assert about_w1 == [
        ("Created", "Normal", "widget w1 is ready with size 3", uid),
        ("Deleting", "Warning", f"widget w1 deleted at {terminating['deletionTimestamp']}", uid),
        ("Resized", "Normal", "size 3 -> 5", uid),
    ]


def test_kopf_freeze_pauses_the_operator_and_resume_brings_it_back(
    server: KubeliteProcess, operator: Operator
) -> None:
    seen = len(operator.log())
    frozen = operator.kopf("freeze", "--id", "freezer", "--priority", "200", "--lifetime", "60")
    assert frozen.returncode == 0, frozen.stderr
    status = get_json(server, PEERING_PATH)["status"]
    assert (sorted(status), status["freezer"]["priority"], status["freezer"]["lifetime"]) == (
        ["freezer", IDENTITY],
        200,
        60,
    )
    # the operator sees the higher-priority peer through its watch on the peering object and pauses
    operator.wait_for_log("Pausing operations in favour of [<Peer freezer: priority=200", after=seen)
    operator.wait_for_log("Pausing the watch-stream for widgets.v1.example.com", after=seen)
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w-frozen", "namespace": "default"},
        "spec": {"size": 7},
    }
    assert server.http("POST", WIDGETS, widget).status == 201
    time.sleep(2)
    untouched = get_json(server, f"{WIDGETS}/w-frozen")
    assert ("status" in untouched, "finalizers" in untouched["metadata"]) == (False, False)

    resumed = operator.kopf("resume", "--id", "freezer")
    assert resumed.returncode == 0, resumed.stderr
    assert sorted(get_json(server, PEERING_PATH)["status"]) == [IDENTITY]
    ready = eventually(
        lambda: (get_json(server, f"{WIDGETS}/w-frozen").get("status") or {}).get("phase") == "Ready"
        and get_json(server, f"{WIDGETS}/w-frozen"),
        "the paused Widget handled after resume",
    )
    assert (ready["status"], ready["metadata"]["finalizers"]) == ({"phase": "Ready", "observedSize": 7}, [FINALIZER])
