"""The objects the benchmark writes: a 1 KiB ConfigMap and a realistic Pod, as request-body templates.

Templates are JSON text with `@NAME@` (and for updates `@RV@`, `@N@`) placeholders, so that both load
generators (wrk's Lua and the Python one) fill them by plain substitution, without a JSON encoder per request.
"""

from __future__ import annotations

from typing import Any

import orjson

NAME = "@NAME@"
RV = "@RV@"
SEQ = "@N@"

#: the payload that makes a ConfigMap body 1 KiB, the size of the HTTP baseline's JSON
_CM_PAD = 930


def configmap(name: str = NAME, namespace: str | None = None, value: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta,
        "data": {"payload": value if value is not None else "x" * _CM_PAD},
    }


def configmap_update(namespace: str) -> str:
    """A PUT body carrying the resourceVersion it read (optimistic concurrency) and a changed value."""
    obj = configmap(NAME, namespace, SEQ + "x" * (_CM_PAD - len(SEQ)))
    obj["metadata"]["resourceVersion"] = RV
    return dumps(obj)


def pod(
    name: str = NAME,
    namespace: str | None = None,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Pod as a Deployment's ReplicaSet would create it (probes, resources, env, volumes), without the
    ownerReference: its ReplicaSet does not exist, and the garbage collector deletes pods whose owner is gone."""
    meta: dict[str, Any] = {
        "name": name,
        "labels": {"app": "web", "pod-template-hash": "7d4b9c8f6d", **(labels or {})},
    }
    if namespace:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = annotations
    container = {
        "name": "web",
        "image": "registry.example.com/shop/web:1.24.3",
        "imagePullPolicy": "IfNotPresent",
        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
        "env": [
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        ],
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
        "readinessProbe": {
            "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
            "periodSeconds": 10,
            "timeoutSeconds": 1,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
            "initialDelaySeconds": 5,
            "periodSeconds": 10,
            "timeoutSeconds": 1,
            "successThreshold": 1,
            "failureThreshold": 3,
        },
        "volumeMounts": [{"name": "config", "mountPath": "/etc/web", "readOnly": True}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {
            "containers": [container],
            "volumes": [{"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}}],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "schedulerName": "default-scheduler",
            "securityContext": {},
        },
    }


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()
