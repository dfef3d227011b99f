"""What survives a restart: objects keep their uid and resourceVersion, revisions keep growing, a watch
resumes from a resourceVersion handed out before the restart, and kill -9 loses no acknowledged write.

Each test has a server of its own (`fresh_server`), because each one stops it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from kubernetes import client, watch

from tests.e2e.server import KubeliteProcess


def _typed(
    proc: KubeliteProcess,
) -> tuple[Any, client.CoreV1Api, client.AppsV1Api, client.RbacAuthorizationV1Api]:
    api = proc.python_client()
    return api, client.CoreV1Api(api), client.AppsV1Api(api), client.RbacAuthorizationV1Api(api)


def _deployment(name: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]},
            },
        },
    }


#: the root CA bundle kube's controllers publish into every namespace
ROOT_CA = "kube-root-ca.crt"


def _wait_for_controllers(core: client.CoreV1Api, ns: str) -> None:
    """Until the server's own writes for a new namespace are done: its root CA bundle and default account."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        accounts = [sa.metadata.name for sa in core.list_namespaced_service_account(ns).items]
        configmaps = [cm.metadata.name for cm in core.list_namespaced_config_map(ns).items]
        if accounts == ["default"] and ROOT_CA in configmaps:
            return
        time.sleep(0.05)
    raise AssertionError(f"the controllers did not finish with namespace {ns}")


def test_restart_keeps_every_object(fresh_server: KubeliteProcess) -> None:
    api, core, apps, rbac = _typed(fresh_server)
    ns = "kept"
    core.create_namespace({"metadata": {"name": ns, "labels": {"team": "a"}}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "cm"}, "data": {"k": "v"}})
    core.create_namespaced_secret(ns, {"metadata": {"name": "s"}, "stringData": {"password": "hunter2"}})
    core.create_namespaced_service(ns, {"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}})
    apps.create_namespaced_deployment(ns, _deployment("web"))
    apps.patch_namespaced_deployment("web", ns, {"spec": {"replicas": 3}})
    rbac.create_cluster_role(
        {
            "metadata": {"name": "kept-role"},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
        }
    )

    reads: dict[str, Callable[[], Any]] = {
        "namespace": lambda: core.read_namespace(ns),
        "configmap": lambda: core.read_namespaced_config_map("cm", ns),
        "secret": lambda: core.read_namespaced_secret("s", ns),
        "service": lambda: core.read_namespaced_service("svc", ns),
        "deployment": lambda: apps.read_namespaced_deployment("web", ns),
        "clusterrole": lambda: rbac.read_cluster_role("kept-role"),
    }
    before = {name: api.sanitize_for_serialization(read()) for name, read in reads.items()}
    newest = core.list_namespaced_config_map(ns).metadata.resource_version
    api.close()

    fresh_server.restart()
    api, core, apps, rbac = _typed(fresh_server)
    try:
        after = {name: api.sanitize_for_serialization(read()) for name, read in reads.items()}
        for name in reads:
            assert after[name] == before[name], name
        assert before["deployment"]["spec"]["replicas"] == 3
        assert before["deployment"]["metadata"]["generation"] == 2
        assert before["secret"]["data"] == {"password": "aHVudGVyMg=="}

        # revisions go on from where they were: a write after the restart is newer than any before it
        written = core.create_namespaced_config_map(ns, {"metadata": {"name": "later"}})
        assert int(written.metadata.resource_version) > int(newest)
        listed = core.list_namespaced_config_map(ns)
        mine = [(i.metadata.name, i.metadata.uid) for i in listed.items if i.metadata.name != ROOT_CA]
        assert mine == [("cm", before["configmap"]["metadata"]["uid"]), ("later", written.metadata.uid)]
    finally:
        api.close()


def test_watch_resumes_across_restart(fresh_server: KubeliteProcess) -> None:
    api, core, _, _ = _typed(fresh_server)
    ns = "resumed"
    core.create_namespace({"metadata": {"name": ns}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "before"}})
    _wait_for_controllers(core, ns)  # the last writes the server makes on its own
    # a list's resourceVersion is the newest revision of the whole store: nothing is written after it
    last_rv = core.list_namespaced_config_map(ns).metadata.resource_version
    api.close()

    fresh_server.restart()
    api, core, _, _ = _typed(fresh_server)
    try:
        created = core.create_namespaced_config_map(ns, {"metadata": {"name": "after"}})
        modified = core.patch_namespaced_config_map("before", ns, {"data": {"k": "v"}})
        core.delete_namespaced_config_map("after", ns)
        events = [
            (e["type"], e["object"].metadata.name, e["object"].metadata.resource_version)
            for e in watch.Watch().stream(
                core.list_namespaced_config_map, ns, resource_version=last_rv, timeout_seconds=2
            )
        ]
    finally:
        api.close()
    assert [e[:2] for e in events] == [("ADDED", "after"), ("MODIFIED", "before"), ("DELETED", "after")]
    assert [e[2] for e in events[:2]] == [
        created.metadata.resource_version,
        modified.metadata.resource_version,
    ]
    assert int(events[2][2]) > int(modified.metadata.resource_version)


def test_kill_9_loses_no_acknowledged_write(fresh_server: KubeliteProcess) -> None:
    api, core, _, _ = _typed(fresh_server)
    ns = f"durable-{uuid.uuid4().hex[:6]}"
    core.create_namespace({"metadata": {"name": ns}})
    acknowledged: dict[str, tuple[str, dict[str, str]]] = {}
    for i in range(40):
        name = f"cm-{i:02d}"
        obj = core.create_namespaced_config_map(ns, {"metadata": {"name": name}, "data": {"i": str(i)}})
        acknowledged[name] = (obj.metadata.resource_version, {"i": str(i)})
    for i in range(0, 40, 4):
        name = f"cm-{i:02d}"
        obj = core.patch_namespaced_config_map(name, ns, {"data": {"i": f"{i}-updated"}})
        acknowledged[name] = (obj.metadata.resource_version, {"i": f"{i}-updated"})
    for i in range(1, 40, 8):
        name = f"cm-{i:02d}"
        core.delete_namespaced_config_map(name, ns)
        del acknowledged[name]
    last = core.create_namespaced_config_map(ns, {"metadata": {"name": "last"}, "data": {"i": "last"}})
    acknowledged["last"] = (last.metadata.resource_version, {"i": "last"})
    fresh_server.kill()  # right after the last answer: no shutdown code runs
    api.close()

    fresh_server.start()
    api, core, _, _ = _typed(fresh_server)
    try:
        listed = core.list_namespaced_config_map(ns)
    finally:
        api.close()
    found = {
        i.metadata.name: (i.metadata.resource_version, i.data)
        for i in listed.items
        if i.metadata.name != ROOT_CA
    }
    assert found == acknowledged
    assert len(acknowledged) == 36
