"""Objects for the DaemonSet controller's unit tests, as the API serves them."""

from __future__ import annotations

from typing import Any

HASH = "6d5f9c8b7"
OLD_HASH = "5b8c6f9d4"


def node(
    name: str, *, labels: dict[str, str] | None = None, taints: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": labels or {}}, "spec": {"taints": taints} if taints else {}}


def daemon_set(
    *,
    strategy: dict[str, Any] | None = None,
    template_spec: dict[str, Any] | None = None,
    min_ready: int = 0,
    history_limit: int | None = 10,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": "agent"}},
        "template": {
            "metadata": {"labels": {"app": "agent"}},
            "spec": template_spec or {"containers": [{"name": "agent", "image": "pause"}]},
        },
        "updateStrategy": strategy or {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
        "revisionHistoryLimit": history_limit,
    }
    if min_ready:
        spec["minReadySeconds"] = min_ready
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default", "uid": "ds-uid", "generation": 1},
        "spec": spec,
        "status": {"observedGeneration": 1},
    }


def pod(
    name: str,
    node_name: str,
    *,
    revision: str = HASH,
    phase: str = "Running",
    ready: bool = True,
    created: str = "2026-01-01T00:00:00Z",
    ready_since: str = "2026-01-01T00:00:00Z",
    bound: bool = True,
    deleting: bool = False,
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "labels": {"app": "agent", "controller-revision-hash": revision},
        "creationTimestamp": created,
    }
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:10:00Z"
    spec: dict[str, Any] = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                            "values": [node_name]}]}]
                }
            }
        }
    }
    if bound:
        spec["nodeName"] = node_name
    conditions = [{"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": ready_since}]
    return {"metadata": meta, "spec": spec, "status": {"phase": phase, "conditions": conditions}}
