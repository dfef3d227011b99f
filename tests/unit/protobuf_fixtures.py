"""Rich objects for the protobuf round-trip tests, each in the exact form Go's encoding/json writes.

Every dict here is already "Go-normal": keys in Go struct order, no zero scalars under omitempty, structs
present where Go always prints them. That is the form kube-apiserver serves and kubelite stores, and the
form a JSON -> protobuf -> JSON round trip must return unchanged.
"""

from __future__ import annotations

from typing import Any

T = "2026-01-02T03:04:05Z"
T2 = "2026-01-02T04:05:06Z"
MICRO = "2026-01-02T03:04:05.123456Z"


def pod() -> dict[str, Any]:
    """A Pod using every field family: probes, lifecycle, env sources, many volume kinds, affinity,
    tolerations, spread constraints, security contexts, DNS, overhead, scheduling gates, status."""
    probe_http = {
        "httpGet": {
            "path": "/healthz",
            "port": "http",
            "host": "127.0.0.1",
            "scheme": "HTTPS",
            "httpHeaders": [{"name": "X-Probe", "value": "1"}],
        },
        "initialDelaySeconds": 3,
        "timeoutSeconds": 2,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 5,
        "terminationGracePeriodSeconds": 15,
    }
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": "rich",
            "generateName": "rich-",
            "namespace": "ns1",
            "uid": "00000000-0000-0000-0000-000000000001",
            "resourceVersion": "42",
            "generation": 3,
            "creationTimestamp": T,
            "deletionTimestamp": T2,
            "deletionGracePeriodSeconds": 0,
            "labels": {"app": "web", "tier": "front"},
            "annotations": {"empty": "", "note": "multi\nline"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": "web-1",
                    "uid": "00000000-0000-0000-0000-000000000002",
                    "controller": True,
                    "blockOwnerDeletion": False,
                }
            ],
            "finalizers": ["example.com/hold"],
            "managedFields": [
                {
                    "manager": "kubectl-client-side-apply",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": T,
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}},
                },
                {
                    "manager": "kubelet",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": T2,
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:status": {"f:phase": {}}},
                    "subresource": "status",
                },
            ],
        },
        "spec": {
            "volumes": [
                {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
                {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}},
                {
                    "name": "sec",
                    "secret": {
                        "secretName": "s1",
                        "items": [{"key": "k", "path": "p", "mode": 256}],
                        "defaultMode": 420,
                        "optional": False,
                    },
                },
                {"name": "cfg", "configMap": {"name": "c1", "defaultMode": 420, "optional": True}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "pvc1", "readOnly": True}},
                {
                    "name": "down",
                    "downwardAPI": {
                        "items": [
                            {
                                "path": "labels",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"},
                            },
                            {
                                "path": "cpu",
                                "resourceFieldRef": {
                                    "containerName": "web",
                                    "resource": "limits.cpu",
                                    "divisor": "1m",
                                },
                            },
                        ]
                    },
                },
                {
                    "name": "proj",
                    "projected": {
                        "sources": [
                            {
                                "serviceAccountToken": {
                                    "audience": "api",
                                    "expirationSeconds": 3607,
                                    "path": "token",
                                }
                            },
                            {
                                "configMap": {
                                    "name": "kube-root-ca.crt",
                                    "items": [{"key": "ca.crt", "path": "ca.crt"}],
                                }
                            },
                        ],
                        "defaultMode": 420,
                    },
                },
                {"name": "csi", "csi": {"driver": "csi.example.com", "volumeAttributes": {"a": "b"}}},
                {
                    "name": "eph",
                    "ephemeral": {
                        "volumeClaimTemplate": {
                            "metadata": {"labels": {"e": "1"}},
                            "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": {"storage": "1Gi"}},
                                "storageClassName": "fast",
                            },
                        }
                    },
                },
            ],
            "initContainers": [
                {
                    "name": "init",
                    "image": "busybox",
                    "command": ["sh", "-c", "true"],
                    "resources": {},
                    "restartPolicy": "Always",
                }
            ],
            "containers": [
                {
                    "name": "web",
                    "image": "nginx:1.27",
                    "command": ["nginx"],
                    "args": ["-g", "daemon off;"],
                    "workingDir": "/srv",
                    "ports": [
                        {"name": "http", "containerPort": 80, "protocol": "TCP"},
                        {
                            "name": "dns",
                            "hostPort": 5353,
                            "containerPort": 53,
                            "protocol": "UDP",
                            "hostIP": "0.0.0.0",
                        },
                    ],
                    "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "c1", "optional": True}}],
                    "env": [
                        {"name": "PLAIN", "value": "v"},
                        {"name": "EMPTY"},
                        {"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {"name": "c1", "key": "k"}}},
                        {
                            "name": "FROM_SECRET",
                            "valueFrom": {"secretKeyRef": {"name": "s1", "key": "k", "optional": False}},
                        },
                        {
                            "name": "MEM",
                            "valueFrom": {
                                "resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}
                            },
                        },
                    ],
                    "resources": {
                        "limits": {"cpu": "500m", "memory": "256Mi", "nvidia.com/gpu": "1"},
                        "requests": {"cpu": "250m", "memory": "128974848"},
                        "claims": [{"name": "gpu"}],
                    },
                    "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
                    "volumeMounts": [
                        {"name": "scratch", "mountPath": "/tmp"},
                        {
                            "name": "data",
                            "readOnly": True,
                            "mountPath": "/data",
                            "subPath": "x",
                            "mountPropagation": "None",
                        },
                    ],
                    "livenessProbe": probe_http,
                    "readinessProbe": {
                        "tcpSocket": {"port": 80},
                        "timeoutSeconds": 1,
                        "periodSeconds": 10,
                        "successThreshold": 1,
                        "failureThreshold": 3,
                    },
                    "startupProbe": {"exec": {"command": ["cat", "/ready"]}, "failureThreshold": 30},
                    "lifecycle": {
                        "postStart": {"exec": {"command": ["/bin/true"]}},
                        "preStop": {"sleep": {"seconds": 5}},
                        "stopSignal": "SIGTERM",
                    },
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "FallbackToLogsOnError",
                    "imagePullPolicy": "IfNotPresent",
                    "securityContext": {
                        "capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]},
                        "privileged": False,
                        "seLinuxOptions": {"level": "s0:c1,c2"},
                        "runAsUser": 1000,
                        "runAsNonRoot": True,
                        "readOnlyRootFilesystem": True,
                        "allowPrivilegeEscalation": False,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "stdin": True,
                    "tty": True,
                },
                {
                    "name": "grpc",
                    "image": "grpc:1",
                    "resources": {},
                    "readinessProbe": {"grpc": {"port": 9090, "service": "health"}},
                },
            ],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "activeDeadlineSeconds": 9007199254740993,
            "dnsPolicy": "None",
            "nodeSelector": {"disk": "ssd", "zone": "a"},
            "serviceAccountName": "builder",
            "serviceAccount": "builder",
            "automountServiceAccountToken": False,
            "nodeName": "node-1",
            "hostNetwork": True,
            "shareProcessNamespace": True,
            "securityContext": {
                "runAsUser": 1000,
                "runAsGroup": 3000,
                "supplementalGroups": [4000, 5000],
                "fsGroup": 2000,
                "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}],
                "fsGroupChangePolicy": "OnRootMismatch",
            },
            "imagePullSecrets": [{"name": "regcred"}],
            "hostname": "rich",
            "subdomain": "svc",
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}
                                ]
                            }
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 10,
                            "preference": {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "NotIn", "values": ["n2"]}
                                ]
                            },
                        }
                    ],
                },
                "podAntiAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 100,
                            "podAffinityTerm": {
                                "labelSelector": {
                                    "matchLabels": {"app": "web"},
                                    "matchExpressions": [{"key": "tier", "operator": "Exists"}],
                                },
                                "topologyKey": "kubernetes.io/hostname",
                            },
                        }
                    ]
                },
            },
            "schedulerName": "default-scheduler",
            "tolerations": [
                {
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                },
                {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            ],
            "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db", "db.local"]}],
            "priorityClassName": "high",
            "priority": 1000,
            "dnsConfig": {
                "nameservers": ["1.1.1.1"],
                "searches": ["svc.local"],
                "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}],
            },
            "readinessGates": [{"conditionType": "example.com/ready"}],
            "enableServiceLinks": False,
            "preemptionPolicy": "PreemptLowerPriority",
            "overhead": {"cpu": "10m", "memory": "8Mi"},
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "web"}},
                    "minDomains": 2,
                }
            ],
            "os": {"name": "linux"},
            "hostUsers": False,
            "schedulingGates": [{"name": "example.com/gate"}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
        },
        "status": {
            "observedGeneration": 3,
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": T},
                {
                    "type": "PodScheduled",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": T,
                    "reason": "Scheduled",
                    "message": "ok",
                },
            ],
            "hostIP": "10.0.0.11",
            "hostIPs": [{"ip": "10.0.0.11"}],
            "podIP": "10.244.0.5",
            "podIPs": [{"ip": "10.244.0.5"}, {"ip": "fd00::5"}],
            "startTime": T,
            "initContainerStatuses": [
                {
                    "name": "init",
                    "state": {
                        "terminated": {
                            "exitCode": 0,
                            "reason": "Completed",
                            "startedAt": T,
                            "finishedAt": T2,
                            "containerID": "containerd://a",
                        }
                    },
                    "lastState": {},
                    "ready": True,
                    "restartCount": 0,
                    "image": "busybox",
                    "imageID": "busybox@sha256:0",
                    "containerID": "containerd://a",
                    "started": False,
                }
            ],
            "containerStatuses": [
                {
                    "name": "web",
                    "state": {"running": {"startedAt": T2}},
                    "lastState": {
                        "terminated": {
                            "exitCode": 137,
                            "signal": 9,
                            "reason": "OOMKilled",
                            "startedAt": None,
                            "finishedAt": T,
                        }
                    },
                    "ready": True,
                    "restartCount": 2,
                    "image": "nginx:1.27",
                    "imageID": "nginx@sha256:1",
                    "containerID": "containerd://b",
                    "started": True,
                    "allocatedResources": {"cpu": "250m"},
                },
                {
                    "name": "grpc",
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 10s"}},
                    "lastState": {},
                    "ready": False,
                    "restartCount": 4,
                    "image": "grpc:1",
                    "imageID": "",
                },
            ],
            "qosClass": "Burstable",
        },
    }


def secret() -> dict[str, Any]:
    return {
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {"name": "bin", "namespace": "default", "creationTimestamp": T},
        "immutable": True,
        "data": {"blob": "AAEC/yBiaW5hcnkA", "empty": "", "user": "YWRtaW4="},
        "type": "Opaque",
    }


def configmap() -> dict[str, Any]:
    return {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "cfg", "namespace": "default"},
        "data": {"a": "1", "b": "", "c.json": '{"x": [1, 2]}'},
        "binaryData": {"logo.png": "iVBORw0KGgo="},
    }


def deployment() -> dict[str, Any]:
    return {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "generation": 2,
            "annotations": {"deployment.kubernetes.io/revision": "2"},
        },
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {}}]},
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 2,
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "conditions": [
                {
                    "type": "Available",
                    "status": "True",
                    "lastUpdateTime": T,
                    "lastTransitionTime": T,
                    "reason": "MinimumReplicasAvailable",
                    "message": "Deployment has minimum availability.",
                }
            ],
        },
    }


def service() -> dict[str, Any]:
    return {
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "ports": [
                {
                    "name": "http",
                    "protocol": "TCP",
                    "appProtocol": "http",
                    "port": 80,
                    "targetPort": "http",
                    "nodePort": 30080,
                },
                {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": 9090},
            ],
            "selector": {"app": "web"},
            "clusterIP": "10.96.0.10",
            "clusterIPs": ["10.96.0.10"],
            "type": "LoadBalancer",
            "externalIPs": ["192.0.2.1"],
            "sessionAffinity": "ClientIP",
            "externalTrafficPolicy": "Local",
            "healthCheckNodePort": 31000,
            "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 10800}},
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "allocateLoadBalancerNodePorts": True,
            "internalTrafficPolicy": "Cluster",
        },
        "status": {
            "loadBalancer": {
                "ingress": [{"ip": "192.0.2.10", "ipMode": "VIP", "ports": [{"port": 80, "protocol": "TCP"}]}]
            }
        },
    }


def job() -> dict[str, Any]:
    return {
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": {"name": "pi", "namespace": "default", "labels": {"batch.kubernetes.io/job-name": "pi"}},
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "activeDeadlineSeconds": 600,
            "podFailurePolicy": {
                "rules": [
                    {
                        "action": "FailJob",
                        "onExitCodes": {"containerName": "pi", "operator": "In", "values": [1, 42]},
                    }
                ]
            },
            "backoffLimit": 0,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
            "manualSelector": False,
            "template": {
                "metadata": {"labels": {"job": "pi"}},
                "spec": {
                    "containers": [
                        {"name": "pi", "image": "perl", "command": ["perl", "-e", "print 1"], "resources": {}}
                    ],
                    "restartPolicy": "Never",
                },
            },
            "ttlSecondsAfterFinished": 100,
            "completionMode": "NonIndexed",
            "suspend": False,
        },
        "status": {
            "conditions": [
                {"type": "Complete", "status": "True", "lastProbeTime": T2, "lastTransitionTime": T2}
            ],
            "startTime": T,
            "completionTime": T2,
            "succeeded": 4,
            "uncountedTerminatedPods": {},
            "ready": 0,
        },
    }


def cronjob() -> dict[str, Any]:
    return {
        "kind": "CronJob",
        "apiVersion": "batch/v1",
        "metadata": {"name": "nightly", "namespace": "default"},
        "spec": {
            "schedule": "0 3 * * *",
            "timeZone": "Etc/UTC",
            "startingDeadlineSeconds": 60,
            "concurrencyPolicy": "Forbid",
            "suspend": False,
            "jobTemplate": {
                "metadata": {},
                "spec": {
                    "template": {
                        "metadata": {},
                        "spec": {
                            "containers": [{"name": "c", "image": "busybox", "resources": {}}],
                            "restartPolicy": "OnFailure",
                        },
                    }
                },
            },
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 1,
        },
        "status": {
            "active": [{"kind": "Job", "namespace": "default", "name": "nightly-1"}],
            "lastScheduleTime": T,
        },
    }


def rbac() -> list[dict[str, Any]]:
    return [
        {
            "kind": "ClusterRole",
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {"name": "agg"},
            "rules": [
                {
                    "verbs": ["get", "list"],
                    "apiGroups": ["", "apps"],
                    "resources": ["pods", "deployments/scale"],
                },
                {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/version"]},
            ],
            "aggregationRule": {
                "clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate": "true"}}]
            },
        },
        {
            "kind": "RoleBinding",
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {"name": "rb", "namespace": "default"},
            "subjects": [
                {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"},
                {"kind": "ServiceAccount", "name": "default", "namespace": "kube-system"},
            ],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "agg"},
        },
    ]


def node() -> dict[str, Any]:
    return {
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
        "spec": {
            "podCIDR": "10.244.0.0/24",
            "podCIDRs": ["10.244.0.0/24"],
            "unschedulable": True,
            "taints": [
                {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule", "timeAdded": T}
            ],
        },
        "status": {
            "capacity": {
                "cpu": "8",
                "ephemeral-storage": "102400Mi",
                "hugepages-2Mi": "0",
                "memory": "32Gi",
                "pods": "110",
            },
            "allocatable": {"cpu": "7500m", "memory": "31Gi", "pods": "110"},
            "phase": "Running",
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True",
                    "lastHeartbeatTime": T2,
                    "lastTransitionTime": T,
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                }
            ],
            "addresses": [
                {"type": "InternalIP", "address": "10.0.0.11"},
                {"type": "Hostname", "address": "node-1"},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": "m",
                "systemUUID": "s",
                "bootID": "b",
                "kernelVersion": "6.1",
                "osImage": "Debian",
                "containerRuntimeVersion": "containerd://2.0",
                "kubeletVersion": "v1.36.4",
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
            "images": [{"names": ["nginx@sha256:1", "nginx:1.27"], "sizeBytes": 72000000000}],
        },
    }


def events() -> list[dict[str, Any]]:
    return [
        {
            "kind": "Event",
            "apiVersion": "v1",
            "metadata": {"name": "web.1", "namespace": "default"},
            "involvedObject": {
                "kind": "Pod",
                "namespace": "default",
                "name": "web",
                "uid": "u",
                "apiVersion": "v1",
                "resourceVersion": "7",
                "fieldPath": "spec.containers{web}",
            },
            "reason": "Pulled",
            "message": "Successfully pulled image",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": T,
            "lastTimestamp": T2,
            "count": 3,
            "type": "Normal",
            "eventTime": None,
            "series": {"count": 2, "lastObservedTime": MICRO},
            "reportingComponent": "kubelet",
            "reportingInstance": "node-1",
        },
        {
            "kind": "Event",
            "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": "web.2", "namespace": "default"},
            "eventTime": MICRO,
            "reportingController": "example.com/ctl",
            "reportingInstance": "ctl-1",
            "action": "Scale",
            "reason": "Scaled",
            "regarding": {
                "kind": "Deployment",
                "namespace": "default",
                "name": "web",
                "apiVersion": "apps/v1",
            },
            "note": "scaled to 3",
            "type": "Normal",
            "deprecatedFirstTimestamp": T,
            "deprecatedLastTimestamp": T,
            "deprecatedCount": 1,
        },
        {
            "kind": "Lease",
            "apiVersion": "coordination.k8s.io/v1",
            "metadata": {"name": "node-1", "namespace": "kube-node-lease"},
            "spec": {
                "holderIdentity": "node-1",
                "leaseDurationSeconds": 40,
                "acquireTime": "2026-01-02T03:04:05.000000Z",
                "renewTime": MICRO,
                "leaseTransitions": 0,
            },
        },
    ]


def discovery_and_networking() -> list[dict[str, Any]]:
    return [
        {
            "kind": "EndpointSlice",
            "apiVersion": "discovery.k8s.io/v1",
            "metadata": {
                "name": "web-abc",
                "namespace": "default",
                "labels": {"kubernetes.io/service-name": "web"},
            },
            "addressType": "IPv4",
            "endpoints": [
                {
                    "addresses": ["10.244.0.5"],
                    "conditions": {"ready": True, "serving": False, "terminating": False},
                    "targetRef": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u"},
                    "nodeName": "node-1",
                    "zone": "a",
                    "hints": {"forZones": [{"name": "a"}]},
                }
            ],
            "ports": [{"name": "http", "protocol": "TCP", "port": 80, "appProtocol": "http"}],
        },
        {
            "kind": "Ingress",
            "apiVersion": "networking.k8s.io/v1",
            "metadata": {"name": "ing", "namespace": "default"},
            "spec": {
                "ingressClassName": "nginx",
                "defaultBackend": {
                    "resource": {"apiGroup": "example.com", "kind": "Bucket", "name": "static"}
                },
                "tls": [{"hosts": ["foo.com"], "secretName": "tls"}],
                "rules": [
                    {
                        "host": "foo.com",
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {"service": {"name": "web", "port": {"name": "http"}}},
                                },
                                {
                                    "path": "/api",
                                    "pathType": "Exact",
                                    "backend": {"service": {"name": "api", "port": {"number": 8080}}},
                                },
                            ]
                        },
                    }
                ],
            },
            "status": {"loadBalancer": {}},
        },
        {
            "kind": "NetworkPolicy",
            "apiVersion": "networking.k8s.io/v1",
            "metadata": {"name": "np", "namespace": "default"},
            "spec": {
                "podSelector": {},
                "ingress": [
                    {
                        "ports": [
                            {"protocol": "TCP", "port": 80},
                            {"protocol": "TCP", "port": "http", "endPort": 90},
                        ],
                        "from": [
                            {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}},
                            {"namespaceSelector": {"matchLabels": {"team": "a"}}},
                        ],
                    }
                ],
                "policyTypes": ["Ingress", "Egress"],
            },
        },
        {
            "kind": "PodDisruptionBudget",
            "apiVersion": "policy/v1",
            "metadata": {"name": "pdb", "namespace": "default"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "maxUnavailable": 1,
                "unhealthyPodEvictionPolicy": "AlwaysAllow",
            },
            "status": {
                "observedGeneration": 1,
                "disruptedPods": {"web-1": T},
                "disruptionsAllowed": 0,
                "currentHealthy": 2,
                "desiredHealthy": 2,
                "expectedPods": 3,
                "conditions": [
                    {
                        "type": "DisruptionAllowed",
                        "status": "False",
                        "observedGeneration": 1,
                        "lastTransitionTime": T,
                        "reason": "InsufficientPods",
                        "message": "",
                    }
                ],
            },
        },
        {
            "kind": "HorizontalPodAutoscaler",
            "apiVersion": "autoscaling/v2",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
                "minReplicas": 1,
                "maxReplicas": 10,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "target": {"type": "Utilization", "averageUtilization": 80},
                        },
                    },
                    {
                        "type": "Pods",
                        "pods": {
                            "metric": {"name": "qps"},
                            "target": {"type": "AverageValue", "averageValue": "1k"},
                        },
                    },
                ],
                "behavior": {
                    "scaleUp": {
                        "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}],
                        "tolerance": "50m",
                    },
                    "scaleDown": {
                        "stabilizationWindowSeconds": 300,
                        "selectPolicy": "Min",
                        "policies": [{"type": "Percent", "value": 10, "periodSeconds": 60}],
                    },
                },
            },
            "status": {
                "lastScaleTime": T,
                "currentReplicas": 2,
                "desiredReplicas": 3,
                "currentMetrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "current": {"averageValue": "120m", "averageUtilization": 60},
                        },
                    }
                ],
            },
        },
    ]


def misc() -> list[dict[str, Any]]:
    return [
        {
            "kind": "Namespace",
            "apiVersion": "v1",
            "metadata": {"name": "team-a"},
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        },
        {
            "kind": "ControllerRevision",
            "apiVersion": "apps/v1",
            "metadata": {"name": "web-6d4c", "namespace": "default"},
            "data": {
                "spec": {
                    "template": {
                        "$patch": "replace",
                        "spec": {"containers": [{"name": "web", "image": "nginx"}]},
                    }
                }
            },
            "revision": 2,
        },
        {
            "kind": "Scale",
            "apiVersion": "autoscaling/v1",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"replicas": 5},
            "status": {"replicas": 3, "selector": "app=web"},
        },
        {
            "kind": "PriorityClass",
            "apiVersion": "scheduling.k8s.io/v1",
            "metadata": {"name": "zero"},
            "value": 0,
            "globalDefault": True,
            "preemptionPolicy": "Never",
        },
        {
            "kind": "StorageClass",
            "apiVersion": "storage.k8s.io/v1",
            "metadata": {"name": "fast"},
            "provisioner": "example.com/csi",
            "parameters": {"type": "ssd"},
            "reclaimPolicy": "Retain",
            "allowVolumeExpansion": False,
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [{"matchLabelExpressions": [{"key": "zone", "values": ["a", "b"]}]}],
        },
        {
            "kind": "SelfSubjectReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {},
            "status": {
                "userInfo": {
                    "username": "alice",
                    "uid": "1",
                    "groups": ["system:authenticated"],
                    "extra": {"scopes": ["a", "b"], "team": []},
                }
            },
        },
        {
            "kind": "SelfSubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {},
            "spec": {
                "resourceAttributes": {
                    "namespace": "default",
                    "verb": "create",
                    "resource": "pods",
                    "fieldSelector": {"rawSelector": "a=b"},
                }
            },
            "status": {"allowed": True, "reason": "RBAC: allowed"},
        },
    ]


def all_objects() -> list[tuple[str, dict[str, Any]]]:
    """(test id, object) for every rich fixture."""
    out = [
        ("pod", pod()),
        ("secret-binary", secret()),
        ("configmap-binarydata", configmap()),
        ("deployment", deployment()),
        ("service", service()),
        ("job", job()),
        ("cronjob", cronjob()),
        ("node", node()),
    ]
    for group in (rbac(), events(), discovery_and_networking(), misc()):
        out += [(f"{o['kind'].lower()}-{o['apiVersion'].replace('/', '-')}", o) for o in group]
    return out
