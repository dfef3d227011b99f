"""Benchmark: protobuf decode/encode of a realistic Pod against the orjson JSON path, in one run.

Prints the one-time cost of building the protobuf descriptors (paid on the first protobuf request), then
per-operation times for JSON and protobuf and their ratios. Run: .venv/bin/python bench/protobuf_codec.py
"""

from __future__ import annotations

import sys
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson

T = "2026-03-04T05:06:07Z"


def _managed(manager: str, operation: str, fields: dict[str, Any], subresource: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {
        "manager": manager,
        "operation": operation,
        "apiVersion": "v1",
        "time": T,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }
    if subresource:
        entry["subresource"] = subresource
    return entry


def realistic_pod() -> dict[str, Any]:
    """A Pod as a ReplicaSet creates it and the kubelet reports it: the shape `kubectl get -o json` shows."""
    container_fields = {
        "f:image": {},
        "f:imagePullPolicy": {},
        "f:name": {},
        "f:ports": {
            'k:{"containerPort":8080,"protocol":"TCP"}': {".": {}, "f:containerPort": {}, "f:protocol": {}}
        },
        "f:resources": {"f:limits": {"f:memory": {}}, "f:requests": {"f:cpu": {}, "f:memory": {}}},
    }
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": "web-7c5d8f9b6d-x2k4p",
            "generateName": "web-7c5d8f9b6d-",
            "namespace": "default",
            "uid": "4f0c5f8e-3b9a-4d7e-9c1a-2b6f8e4d1a3c",
            "resourceVersion": "184467",
            "creationTimestamp": T,
            "labels": {"app": "web", "pod-template-hash": "7c5d8f9b6d", "tier": "frontend"},
            "annotations": {"kubectl.kubernetes.io/restartedAt": T, "prometheus.io/scrape": "true"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-7c5d8f9b6d",
                    "uid": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            "managedFields": [
                _managed(
                    "kube-controller-manager",
                    "Update",
                    {
                        "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}}},
                        "f:spec": {"f:containers": {'k:{"name":"web"}': container_fields}},
                    },
                ),
                _managed(
                    "kubelet",
                    "Update",
                    {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:podIP": {}}},
                    subresource="status",
                ),
            ],
        },
        "spec": {
            "volumes": [
                {
                    "name": "kube-api-access-7m2qz",
                    "projected": {
                        "sources": [
                            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                            {
                                "configMap": {
                                    "name": "kube-root-ca.crt",
                                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                }
                            },
                            {
                                "downwardAPI": {
                                    "items": [
                                        {
                                            "path": "namespace",
                                            "fieldRef": {
                                                "apiVersion": "v1",
                                                "fieldPath": "metadata.namespace",
                                            },
                                        }
                                    ]
                                }
                            },
                        ],
                        "defaultMode": 420,
                    },
                },
                {"name": "config", "configMap": {"name": "web-config", "defaultMode": 420}},
            ],
            "containers": [
                {
                    "name": "web",
                    "image": "registry.example.com/web:1.4.2",
                    "args": ["--port=8080", "--log-level=info"],
                    "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                    "env": [
                        {
                            "name": "POD_NAME",
                            "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}},
                        },
                        {"name": "MODE", "value": "production"},
                    ],
                    "resources": {
                        "limits": {"memory": "256Mi"},
                        "requests": {"cpu": "100m", "memory": "128Mi"},
                    },
                    "volumeMounts": [
                        {"name": "config", "mountPath": "/etc/web"},
                        {
                            "name": "kube-api-access-7m2qz",
                            "readOnly": True,
                            "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        },
                    ],
                    "livenessProbe": {
                        "httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                        "initialDelaySeconds": 5,
                        "timeoutSeconds": 1,
                        "periodSeconds": 10,
                        "successThreshold": 1,
                        "failureThreshold": 3,
                    },
                    "readinessProbe": {
                        "tcpSocket": {"port": 8080},
                        "timeoutSeconds": 1,
                        "periodSeconds": 5,
                        "successThreshold": 1,
                        "failureThreshold": 3,
                    },
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                    "imagePullPolicy": "IfNotPresent",
                    "securityContext": {"runAsNonRoot": True, "allowPrivilegeEscalation": False},
                }
            ],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "serviceAccount": "default",
            "nodeName": "node-1",
            "securityContext": {"fsGroup": 2000},
            "schedulerName": "default-scheduler",
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
                {
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
            ],
            "priority": 0,
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": cond, "status": "True", "lastProbeTime": None, "lastTransitionTime": T}
                for cond in (
                    "PodReadyToStartContainers",
                    "Initialized",
                    "Ready",
                    "ContainersReady",
                    "PodScheduled",
                )
            ],
            "hostIP": "10.0.0.11",
            "hostIPs": [{"ip": "10.0.0.11"}],
            "podIP": "10.244.1.17",
            "podIPs": [{"ip": "10.244.1.17"}],
            "startTime": T,
            "containerStatuses": [
                {
                    "name": "web",
                    "state": {"running": {"startedAt": T}},
                    "lastState": {},
                    "ready": True,
                    "restartCount": 0,
                    "image": "registry.example.com/web:1.4.2",
                    "imageID": "registry.example.com/web@sha256:" + "ab" * 32,
                    "containerID": "containerd://" + "cd" * 32,
                    "started": True,
                }
            ],
            "qosClass": "Burstable",
        },
    }


def _per_op(fn: Any, number: int) -> float:
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return best / number * 1e6


def main() -> None:
    from kubelite.apimachinery import protobuf

    pod = realistic_pod()

    started = time.perf_counter()
    encoded = protobuf.encode(pod)
    first_use_ms = (time.perf_counter() - started) * 1e3
    as_json = orjson.dumps(pod)
    assert protobuf.decode(encoded) == pod, "the benchmark pod must round-trip"

    number = 2000
    json_decode = _per_op(lambda: orjson.loads(as_json), number)
    pb_decode = _per_op(lambda: protobuf.decode(encoded), number)
    json_encode = _per_op(lambda: orjson.dumps(pod), number)
    pb_encode = _per_op(lambda: protobuf.encode(pod), number)

    print(f"first protobuf use (import protobuf runtime + build descriptors + encode): {first_use_ms:.1f} ms")
    print(f"pod size: JSON {len(as_json)} bytes, protobuf {len(encoded)} bytes")
    print(f"{'':8}{'JSON (orjson)':>16}{'protobuf':>14}{'protobuf/JSON':>16}")
    print(f"{'decode':8}{json_decode:>13.1f} us{pb_decode:>11.1f} us{pb_decode / json_decode:>15.1f}x")
    print(f"{'encode':8}{json_encode:>13.1f} us{pb_encode:>11.1f} us{pb_encode / json_encode:>15.1f}x")


if __name__ == "__main__":
    main()
