"""Pod priority: the Priority admission plugin resolves a pod's priority from its PriorityClass, and
PriorityClasses are validated as kube's scheduling API validates them."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.server import KubeliteProcess

NS = "default"


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def priority_class(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **extra}  # fmt: skip


def create(server: KubeliteProcess, obj: dict[str, Any]) -> Any:
    path = "/apis/scheduling.k8s.io/v1/priorityclasses" if obj["kind"] == "PriorityClass" else (
        f"/api/v1/namespaces/{NS}/pods"
    )
    return server.http("POST", path, obj)


def test_a_pod_without_a_class_gets_priority_zero_set_by_admission_not_by_its_creator(server: KubeliteProcess) -> None:
    created = server.kubectl("run", "plain", "--image=nginx")
    assert created.stdout == "pod/plain created\n"
    found = json.loads(server.kubectl("get", "pod", "plain", "-o", "json", "--show-managed-fields").stdout)
    assert (found["spec"]["priority"], found["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in found["spec"]
    (entry,) = found["metadata"]["managedFields"]
    # as kube: what admission sets is not the creator's (kubectl run's own fields and the defaults are)
    assert sorted(entry["fieldsV1"]["f:spec"]) == [
        "f:containers", "f:dnsPolicy", "f:enableServiceLinks", "f:restartPolicy", "f:schedulerName",
        "f:securityContext", "f:terminationGracePeriodSeconds",
    ]
    assert (found["spec"]["serviceAccountName"], found["spec"]["serviceAccount"]) == ("default", "default")


def test_a_system_class_gives_its_value(server: KubeliteProcess) -> None:
    created = create(server, pod("critical", priorityClassName="system-cluster-critical"))
    assert created.status == 201, created.body
    assert created.json()["spec"]["priority"] == 2_000_000_000
    assert created.json()["spec"]["preemptionPolicy"] == "PreemptLowerPriority"


def test_an_unknown_class_is_forbidden_as_kubectl_prints_it(server: KubeliteProcess) -> None:
    manifest = json.dumps(pod("lost", priorityClassName="nope"))
    result = server.kubectl("create", "-f", "-", input=manifest, check=False)
    assert result.returncode == 1
    assert result.stderr == (
        'Error from server (Forbidden): error when creating "STDIN": pods "lost" is forbidden: '
        "no PriorityClass with name nope was found\n"
    )


def test_a_stated_priority_or_policy_other_than_the_class_says_is_forbidden(server: KubeliteProcess) -> None:
    result = create(server, pod("boost", priority=5))
    assert (result.status, result.json()["reason"]) == (403, "Forbidden")
    assert result.json()["message"] == (
        'pods "boost" is forbidden: the integer value of priority (5) must not be provided in pod spec; '
        "priority admission controller computed 0 from the given PriorityClass name"
    )
    result = create(server, pod("never", preemptionPolicy="Never"))
    assert result.json()["message"] == (
        'pods "never" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod '
        "spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name"
    )
    # the class's own values may be stated
    same = create(server, pod("same", priorityClassName="system-node-critical", priority=2_000_001_000))
    assert same.status == 201, same.body


def test_the_global_default_class_names_itself_on_pods_and_is_the_only_one(server: KubeliteProcess) -> None:
    made = create(server, priority_class("batch-low", -10, globalDefault=True, preemptionPolicy="Never"))
    assert made.status == 201, made.body
    try:
        result = create(server, pod("defaulted"))
        assert result.status == 201, result.body
        spec = result.json()["spec"]
        assert (spec["priorityClassName"], spec["priority"], spec["preemptionPolicy"]) == ("batch-low", -10, "Never")
        second = create(server, priority_class("batch-high", 10, globalDefault=True))
        assert (second.status, second.json()["message"]) == (
            403,
            'priorityclasses.scheduling.k8s.io "batch-high" is forbidden: PriorityClass batch-low is already '
            "marked as default. Only one default can exist",
        )
        # the default itself may be written again
        updated = server.http("PUT", "/apis/scheduling.k8s.io/v1/priorityclasses/batch-low",
                              {**made.json(), "description": "low"})  # fmt: skip
        assert updated.status == 200, updated.body
    finally:
        server.kubectl("delete", "priorityclass", "batch-low")


def test_an_update_keeps_the_priority_set_at_create(server: KubeliteProcess) -> None:
    created = create(server, pod("kept", priorityClassName="system-cluster-critical")).json()
    spec = {k: v for k, v in created["spec"].items() if k not in ("priority", "preemptionPolicy")}
    body = {**created, "metadata": {**created["metadata"], "labels": {"touched": "yes"}}, "spec": spec}
    updated = server.http("PUT", f"/api/v1/namespaces/{NS}/pods/kept", body)
    assert updated.status == 200, updated.body
    assert (updated.json()["spec"]["priority"], updated.json()["metadata"]["labels"]) == (
        2_000_000_000, {"touched": "yes"},
    )


def test_priority_class_validation_messages(server: KubeliteProcess) -> None:
    cases = [
        (priority_class("system-mine", 5),
         'PriorityClass.scheduling.k8s.io "system-mine" is invalid: metadata.name: Forbidden: priority class names '
         "with 'system-' prefix are reserved for system use only. error: system-mine is not a known system "
         "priority class"),
        (priority_class("too-high", 1_000_000_001),
         'PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: maximum allowed value of a '
         "user defined priority is 1000000000"),
        (priority_class("odd", 1, preemptionPolicy="Sometimes"),
         'PriorityClass.scheduling.k8s.io "odd" is invalid: preemptionPolicy: Unsupported value: "Sometimes": '
         'supported values: "PreemptLowerPriority", "Never"'),
    ]  # fmt: skip
    for body, message in cases:
        result = create(server, body)
        assert (result.status, result.json()["message"]) == (422, message)
    made = create(server, priority_class("fixed", 100)).json()
    changed = server.http("PUT", "/apis/scheduling.k8s.io/v1/priorityclasses/fixed", {**made, "value": 200})
    assert (changed.status, changed.json()["message"]) == (
        422, 'PriorityClass.scheduling.k8s.io "fixed" is invalid: value: Forbidden: may not be changed in an update.',
    )
    server.kubectl("delete", "priorityclass", "fixed")


def test_an_update_may_name_the_service_account_by_either_field(server: KubeliteProcess) -> None:
    created = create(server, pod("named", serviceAccount="default")).json()
    assert (created["spec"]["serviceAccountName"], created["spec"]["serviceAccount"]) == ("default", "default")
    spec = {k: v for k, v in created["spec"].items() if k != "serviceAccount"}
    body = {**created, "metadata": {**created["metadata"], "labels": {"v": "2"}}, "spec": spec}
    updated = server.http("PUT", f"/api/v1/namespaces/{NS}/pods/named", body)
    assert updated.status == 200, updated.body
    assert updated.json()["spec"]["serviceAccount"] == "default"
