"""PersistentVolumes on a whole simulated cluster, through kubectl and raw HTTP: the default StorageClass,
a claim provisioned and bound by the binder and kubelite's provisioner (and its volume deleted with it), a
hand-made volume bound to a claim that fits and Released when the claim goes, pre-binding by volumeName and
selectors, the binder's events for claims it cannot serve, and a StatefulSet's volumeClaimTemplates."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.e2e.server import KubeliteProcess

T = TypeVar("T")
NS = "default"
PROVISIONER = "kubelite.io/hostpath"
AGE = re.compile(r"^\d+s$")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeliteProcess]:
    proc = KubeliteProcess(Path(tmp_path_factory.mktemp("volumes")), cluster=True, extra_args=["--nodes=1"]).start()
    try:
        yield proc
    finally:
        proc.stop()


def _wait(check: Callable[[], T | None], what: str, *, deadline: float = 45.0) -> T:
    end = time.monotonic() + deadline
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _get(proc: KubeliteProcess, path: str) -> Any:
    result = proc.http("GET", path)
    return result.json() if result.status == 200 else None


def _claim(proc: KubeliteProcess, name: str) -> Any:
    return _get(proc, f"/api/v1/namespaces/{NS}/persistentvolumeclaims/{name}")


def _volume(proc: KubeliteProcess, name: str) -> Any:
    return _get(proc, f"/api/v1/persistentvolumes/{name}")


def _create(proc: KubeliteProcess, path: str, body: dict[str, Any]) -> Any:
    result = proc.http("POST", path, body)
    assert result.status == 201, result.body
    return result.json()


def _create_claim(proc: KubeliteProcess, name: str, size: str, **spec: Any) -> Any:
    body = {
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec},
    }
    return _create(proc, f"/api/v1/namespaces/{NS}/persistentvolumeclaims", body)


def _bound(proc: KubeliteProcess, name: str) -> Any:
    claim = _claim(proc, name)
    return claim if claim and claim["status"].get("phase") == "Bound" else None


def _events(proc: KubeliteProcess, kind: str, name: str) -> list[tuple[str, str, str, str]]:
    selector = f"involvedObject.kind={kind},involvedObject.name={name}"
    items = _get(proc, f"/api/v1/namespaces/{NS}/events?fieldSelector={selector}")["items"]
    items.sort(key=lambda event: (event["firstTimestamp"], event["metadata"]["creationTimestamp"]))
    return [(e["type"], e["reason"], e["source"].get("component", ""), e["message"]) for e in items]


def _pod_running(proc: KubeliteProcess, name: str) -> bool:
    pod = _get(proc, f"/api/v1/namespaces/{NS}/pods/{name}")
    return bool(pod and pod["status"].get("phase") == "Running")


def _table(proc: KubeliteProcess, *args: str) -> list[list[str]]:
    out = proc.kubectl("get", *args).stdout
    return [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()]


def test_default_storage_class(cluster: KubeliteProcess) -> None:
    sc = _get(cluster, "/apis/storage.k8s.io/v1/storageclasses/standard")
    assert sc["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert (sc["provisioner"], sc["reclaimPolicy"], sc["volumeBindingMode"]) == (
        "kubelite.io/hostpath",
        "Delete",
        "Immediate",
    )
    rows = _table(cluster, "storageclass")
    assert rows[0] == ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]
    assert rows[1][:5] == ["standard (default)", "kubelite.io/hostpath", "Delete", "Immediate", "false"]
    assert AGE.match(rows[1][5])


def test_claim_is_provisioned_bound_used_and_deleted_with_its_volume(cluster: KubeliteProcess) -> None:
    created = _create_claim(cluster, "data", "2Gi")
    uid = created["metadata"]["uid"]
    # the DefaultStorageClass admission plugin gave it the default class
    assert created["spec"]["storageClassName"] == "standard"
    claim = _wait(lambda: _bound(cluster, "data"), "claim data Bound")
    pv_name = f"pvc-{uid}"
    assert claim["spec"]["volumeName"] == pv_name
    assert claim["metadata"]["annotations"] == {
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
        "volume.beta.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
        "volume.kubernetes.io/storage-provisioner": "kubelite.io/hostpath",
    }
    assert claim["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "2Gi"}}
    pv = _wait(lambda: (v := _volume(cluster, pv_name)) and v["status"]["phase"] == "Bound" and v, "volume Bound")
    assert pv["metadata"]["annotations"] == {"pv.kubernetes.io/provisioned-by": "kubelite.io/hostpath"}
    ref = pv["spec"]["claimRef"]
    assert {k: ref[k] for k in ("kind", "namespace", "name", "uid", "apiVersion")} == {
        "kind": "PersistentVolumeClaim",
        "namespace": NS,
        "name": "data",
        "uid": uid,
        "apiVersion": "v1",
    }
    assert {k: v for k, v in pv["spec"].items() if k != "claimRef"} == {
        "capacity": {"storage": "2Gi"},
        "accessModes": ["ReadWriteOnce"],
        "persistentVolumeReclaimPolicy": "Delete",
        "storageClassName": "standard",
        "volumeMode": "Filesystem",
        "hostPath": {"path": f"/var/local-path-provisioner/{pv_name}_{NS}_data", "type": "DirectoryOrCreate"},
    }

    rows = _table(cluster, "pvc", "data")
    assert rows[0] == [
        "NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE",
    ]  # fmt: skip
    assert rows[1][:7] == ["data", "Bound", pv_name, "2Gi", "RWO", "standard", "<unset>"]
    assert AGE.match(rows[1][7])
    rows = _table(cluster, "pv", pv_name)
    assert rows[1][:8] == [pv_name, "2Gi", "RWO", "Delete", "Bound", f"{NS}/data", "standard", "<unset>"]

    events = _wait(lambda: (e := _events(cluster, "PersistentVolumeClaim", "data")) and len(e) >= 3 and e, "events")
    assert events[0][:3] == ("Normal", "ExternalProvisioning", "persistentvolume-controller")
    assert events[0][3] == (
        "Waiting for a volume to be created either by the external provisioner 'kubelite.io/hostpath' or manually "
        "by the system administrator. If volume creation is delayed, please verify that the provisioner is running "
        "and correctly registered."
    )
    assert events[1:3] == [
        ("Normal", "Provisioning", PROVISIONER, f'External provisioner is provisioning volume for claim "{NS}/data"'),
        ("Normal", "ProvisioningSucceeded", PROVISIONER, f"Successfully provisioned volume {pv_name}"),
    ]

    pod = {
        "metadata": {"name": "uses-data"},
        "spec": {
            "containers": [{"name": "app", "image": "nginx:1.27", "volumeMounts": [{"name": "d", "mountPath": "/d"}]}],
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}],
        },
    }
    _create(cluster, f"/api/v1/namespaces/{NS}/pods", pod)
    _wait(partial(_pod_running, cluster, "uses-data"), "pod Running")
    cluster.kubectl("delete", "pod", "uses-data", "--wait=true")
    deleted = cluster.kubectl("delete", "pvc", "data").stdout
    assert deleted == 'persistentvolumeclaim "data" deleted from default namespace\n'
    _wait(lambda: cluster.http("GET", f"/api/v1/persistentvolumes/{pv_name}").status == 404, "volume deleted")


def _hand_made_volume(proc: KubeliteProcess, name: str, size: str, **spec: Any) -> Any:
    body = {
        "metadata": {"name": name, "labels": {"disk": name}},
        "spec": {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": f"/tmp/{name}"},
            **spec,
        },
    }
    _create(proc, "/api/v1/persistentvolumes", body)
    return _wait(
        lambda: (v := _volume(proc, name)) and v["status"]["phase"] == "Available" and v, f"volume {name} Available"
    )


def test_hand_made_volume_binds_to_a_claim_that_fits_and_is_released_when_it_goes(cluster: KubeliteProcess) -> None:
    _hand_made_volume(cluster, "manual-big", "10Gi", storageClassName="manual")
    _hand_made_volume(cluster, "manual-small", "3Gi", storageClassName="manual")
    _hand_made_volume(cluster, "manual-rwx", "3Gi", storageClassName="other")
    claim = _create_claim(cluster, "fits", "2Gi", storageClassName="manual")
    bound = _wait(lambda: _bound(cluster, "fits"), "claim fits Bound")
    # the smallest volume of its class that holds what it asks
    assert bound["spec"]["volumeName"] == "manual-small"
    assert bound["metadata"]["annotations"] == {
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
    }
    assert bound["status"]["capacity"] == {"storage": "3Gi"}
    pv = _wait(lambda: (v := _volume(cluster, "manual-small")) and v["status"]["phase"] == "Bound" and v, "Bound")
    assert pv["metadata"]["annotations"] == {"pv.kubernetes.io/bound-by-controller": "yes"}
    assert (pv["spec"]["claimRef"]["name"], pv["spec"]["claimRef"]["uid"]) == ("fits", claim["metadata"]["uid"])
    assert _volume(cluster, "manual-big")["status"]["phase"] == "Available"
    rows = _table(cluster, "pv", "manual-small")
    assert rows[1][:8] == ["manual-small", "3Gi", "RWO", "Retain", "Bound", f"{NS}/fits", "manual", "<unset>"]

    cluster.kubectl("delete", "pvc", "fits")
    released = _wait(
        lambda: (v := _volume(cluster, "manual-small")) and v["status"]["phase"] == "Released" and v, "Released"
    )
    # Retain: the volume stays, still naming the claim it held
    assert released["spec"]["claimRef"]["name"] == "fits"
    rows = _table(cluster, "pv", "manual-small")
    assert rows[1][:6] == ["manual-small", "3Gi", "RWO", "Retain", "Released", f"{NS}/fits"]


def test_claim_selector_and_volume_name(cluster: KubeliteProcess) -> None:
    _hand_made_volume(cluster, "picked", "1Gi", storageClassName="")
    _hand_made_volume(cluster, "labelled", "1Gi", storageClassName="")
    _create_claim(cluster, "by-name", "1Gi", storageClassName="", volumeName="picked")
    _create_claim(cluster, "by-label", "1Gi", storageClassName="", selector={"matchLabels": {"disk": "labelled"}})
    by_name = _wait(lambda: _bound(cluster, "by-name"), "claim by-name Bound")
    assert by_name["spec"]["volumeName"] == "picked"
    # the user chose the volume: only the completion is the controller's
    assert by_name["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}
    assert _wait(lambda: _bound(cluster, "by-label"), "claim by-label Bound")["spec"]["volumeName"] == "labelled"


def test_claims_the_binder_cannot_serve(cluster: KubeliteProcess) -> None:
    _create_claim(cluster, "no-class", "1Ti", storageClassName="")
    events = _wait(lambda: _events(cluster, "PersistentVolumeClaim", "no-class"), "FailedBinding")
    assert events[0] == (
        "Normal",
        "FailedBinding",
        "persistentvolume-controller",
        "no persistent volumes available for this claim and no storage class is set",
    )
    assert _claim(cluster, "no-class")["status"] == {"phase": "Pending"}

    late = {
        "metadata": {"name": "late"},
        "provisioner": "kubelite.io/hostpath",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    _create(cluster, "/apis/storage.k8s.io/v1/storageclasses", late)
    _create_claim(cluster, "waits", "1Gi", storageClassName="late")
    events = _wait(lambda: _events(cluster, "PersistentVolumeClaim", "waits"), "WaitForFirstConsumer")
    assert events[0] == (
        "Normal",
        "WaitForFirstConsumer",
        "persistentvolume-controller",
        "waiting for first consumer to be created before binding",
    )
    assert _claim(cluster, "waits")["status"] == {"phase": "Pending"}

    _create_claim(cluster, "missing-class", "1Gi", storageClassName="gold")
    events = _wait(lambda: _events(cluster, "PersistentVolumeClaim", "missing-class"), "ProvisioningFailed")
    assert events[0] == (
        "Warning",
        "ProvisioningFailed",
        "persistentvolume-controller",
        'storageclass.storage.k8s.io "gold" not found',
    )


def test_hand_made_volume_with_delete_policy_fails_without_a_deleter(cluster: KubeliteProcess) -> None:
    _hand_made_volume(cluster, "doomed", "1Gi", storageClassName="doomed", persistentVolumeReclaimPolicy="Delete")
    _create_claim(cluster, "doomed", "1Gi", storageClassName="doomed")
    _wait(lambda: _bound(cluster, "doomed"), "claim doomed Bound")
    cluster.kubectl("delete", "pvc", "doomed")
    failed = _wait(lambda: (v := _volume(cluster, "doomed")) and v["status"]["phase"] == "Failed" and v, "Failed")
    message = 'error getting deleter volume plugin for volume "doomed": no deletable volume plugin matched'
    assert failed["status"]["message"] == message
    events = _wait(lambda: _events(cluster, "PersistentVolume", "doomed"), "VolumeFailedDelete")
    assert events == [("Warning", "VolumeFailedDelete", "persistentvolume-controller", message)]


def test_the_default_class_is_absent_without_the_provisioner(tmp_path: Path) -> None:
    args = ["--nodes=0", "--controllers=*,-volume-provisioner-controller"]
    proc = KubeliteProcess(tmp_path, cluster=True, extra_args=args).start()
    try:
        assert _get(proc, "/apis/storage.k8s.io/v1/storageclasses")["items"] == []
        created = _create_claim(proc, "plain", "1Gi")
        assert "storageClassName" not in created["spec"]
    finally:
        proc.stop()


def test_a_stateful_sets_claims_are_provisioned_and_bound(cluster: KubeliteProcess) -> None:
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web"},
        "spec": {
            "serviceName": "web",
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {"name": "app", "image": "nginx:1.27", "volumeMounts": [{"name": "www", "mountPath": "/www"}]}
                    ]
                },
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "www"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    }
    _create(cluster, f"/apis/apps/v1/namespaces/{NS}/statefulsets", manifest)
    for name in ("web-0", "web-1"):
        claim = _wait(partial(_bound, cluster, f"www-{name}"), f"claim www-{name} Bound")
        assert claim["spec"]["storageClassName"] == "standard"
        assert claim["spec"]["volumeName"] == f"pvc-{claim['metadata']['uid']}"
        assert claim["metadata"]["labels"] == {"app": "web"}
        _wait(partial(_pod_running, cluster, name), f"pod {name} Running")
    rows = _table(cluster, "pvc", "-l", "app=web")
    assert [row[:6] for row in rows[1:]] == [
        [f"www-web-{o}", "Bound", _claim(cluster, f"www-web-{o}")["spec"]["volumeName"], "1Gi", "RWO", "standard"]
        for o in (0, 1)
    ]
