"""The built-in resources kubelite serves, as discovery describes them (Kubernetes v1.36)."""

from __future__ import annotations

from kubelite.registry.spec import ResourceSpec, SubresourceSpec

CRUD_NO_COLLECTION = ("create", "delete", "get", "list", "patch", "update", "watch")

STATUS = SubresourceSpec("status")


def _scale() -> SubresourceSpec:
    return SubresourceSpec("scale", group="autoscaling", version="v1", kind="Scale")


_ALL = ("all",)

BUILTIN_RESOURCES: tuple[ResourceSpec, ...] = (
    # core/v1
    ResourceSpec("", "v1", "bindings", "Binding", "binding", True, verbs=("create",)),
    ResourceSpec("", "v1", "configmaps", "ConfigMap", "configmap", True, short_names=("cm",)),
    ResourceSpec(
        "",
        "v1",
        "endpoints",
        "Endpoints",
        "endpoints",
        True,
        short_names=("ep",),
        warning="v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice",
    ),
    ResourceSpec("", "v1", "events", "Event", "event", True, short_names=("ev",)),
    ResourceSpec("", "v1", "limitranges", "LimitRange", "limitrange", True, short_names=("limits",)),
    ResourceSpec(
        "",
        "v1",
        "namespaces",
        "Namespace",
        "namespace",
        False,
        short_names=("ns",),
        verbs=CRUD_NO_COLLECTION,
        subresources=(SubresourceSpec("finalize", verbs=("update",)), STATUS),
        name_rule="label",
    ),
    ResourceSpec("", "v1", "nodes", "Node", "node", False, short_names=("no",), subresources=(STATUS,)),
    ResourceSpec(
        "",
        "v1",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        "persistentvolumeclaim",
        True,
        short_names=("pvc",),
        subresources=(STATUS,),
    ),
    ResourceSpec(
        "",
        "v1",
        "persistentvolumes",
        "PersistentVolume",
        "persistentvolume",
        False,
        short_names=("pv",),
        subresources=(STATUS,),
    ),
    ResourceSpec(
        "",
        "v1",
        "pods",
        "Pod",
        "pod",
        True,
        short_names=("po",),
        categories=_ALL,
        subresources=(
            SubresourceSpec("binding", group="", version="v1", kind="Binding", verbs=("create",)),
            SubresourceSpec("eviction", group="policy", version="v1", kind="Eviction", verbs=("create",)),
            SubresourceSpec("log", verbs=("get",)),
            STATUS,
        ),
    ),
    ResourceSpec("", "v1", "podtemplates", "PodTemplate", "podtemplate", True),
    ResourceSpec(
        "",
        "v1",
        "replicationcontrollers",
        "ReplicationController",
        "replicationcontroller",
        True,
        short_names=("rc",),
        categories=_ALL,
        subresources=(_scale(), STATUS),
    ),
    ResourceSpec(
        "",
        "v1",
        "resourcequotas",
        "ResourceQuota",
        "resourcequota",
        True,
        short_names=("quota",),
        subresources=(STATUS,),
    ),
    ResourceSpec("", "v1", "secrets", "Secret", "secret", True),
    ResourceSpec("", "v1", "serviceaccounts", "ServiceAccount", "serviceaccount", True, short_names=("sa",)),
    ResourceSpec(
        "",
        "v1",
        "services",
        "Service",
        "service",
        True,
        short_names=("svc",),
        categories=_ALL,
        verbs=("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
        subresources=(STATUS,),
        name_rule="label1035",
    ),
    # apps/v1
    ResourceSpec("apps", "v1", "controllerrevisions", "ControllerRevision", "controllerrevision", True),
    ResourceSpec(
        "apps",
        "v1",
        "daemonsets",
        "DaemonSet",
        "daemonset",
        True,
        short_names=("ds",),
        categories=_ALL,
        subresources=(STATUS,),
    ),
    ResourceSpec(
        "apps",
        "v1",
        "deployments",
        "Deployment",
        "deployment",
        True,
        short_names=("deploy",),
        categories=_ALL,
        subresources=(_scale(), STATUS),
    ),
    ResourceSpec(
        "apps",
        "v1",
        "replicasets",
        "ReplicaSet",
        "replicaset",
        True,
        short_names=("rs",),
        categories=_ALL,
        subresources=(_scale(), STATUS),
    ),
    ResourceSpec(
        "apps",
        "v1",
        "statefulsets",
        "StatefulSet",
        "statefulset",
        True,
        short_names=("sts",),
        categories=_ALL,
        subresources=(_scale(), STATUS),
    ),
    # autoscaling/v2
    ResourceSpec(
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscaler",
        True,
        short_names=("hpa",),
        categories=_ALL,
        subresources=(STATUS,),
    ),
    # authentication.k8s.io/v1 and authorization.k8s.io/v1: reviews are computed, never stored
    ResourceSpec(
        "authentication.k8s.io",
        "v1",
        "selfsubjectreviews",
        "SelfSubjectReview",
        "selfsubjectreview",
        False,
        verbs=("create",),
    ),
    ResourceSpec(
        "authorization.k8s.io",
        "v1",
        "localsubjectaccessreviews",
        "LocalSubjectAccessReview",
        "localsubjectaccessreview",
        True,
        verbs=("create",),
    ),
    ResourceSpec(
        "authorization.k8s.io",
        "v1",
        "selfsubjectaccessreviews",
        "SelfSubjectAccessReview",
        "selfsubjectaccessreview",
        False,
        verbs=("create",),
    ),
    ResourceSpec(
        "authorization.k8s.io",
        "v1",
        "selfsubjectrulesreviews",
        "SelfSubjectRulesReview",
        "selfsubjectrulesreview",
        False,
        verbs=("create",),
    ),
    ResourceSpec(
        "authorization.k8s.io",
        "v1",
        "subjectaccessreviews",
        "SubjectAccessReview",
        "subjectaccessreview",
        False,
        verbs=("create",),
    ),
    # batch/v1
    ResourceSpec(
        "batch",
        "v1",
        "cronjobs",
        "CronJob",
        "cronjob",
        True,
        short_names=("cj",),
        categories=_ALL,
        subresources=(STATUS,),
    ),
    ResourceSpec("batch", "v1", "jobs", "Job", "job", True, categories=_ALL, subresources=(STATUS,)),
    # certificates.k8s.io/v1
    ResourceSpec(
        "certificates.k8s.io",
        "v1",
        "certificatesigningrequests",
        "CertificateSigningRequest",
        "certificatesigningrequest",
        False,
        short_names=("csr",),
        subresources=(SubresourceSpec("approval"), STATUS),
        name_rule="path",
    ),
    # coordination.k8s.io/v1
    ResourceSpec("coordination.k8s.io", "v1", "leases", "Lease", "lease", True),
    # discovery.k8s.io/v1
    ResourceSpec("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", "endpointslice", True),
    # events.k8s.io/v1
    ResourceSpec("events.k8s.io", "v1", "events", "Event", "event", True, short_names=("ev",)),
    # networking.k8s.io/v1
    ResourceSpec("networking.k8s.io", "v1", "ingressclasses", "IngressClass", "ingressclass", False),
    ResourceSpec(
        "networking.k8s.io",
        "v1",
        "ingresses",
        "Ingress",
        "ingress",
        True,
        short_names=("ing",),
        subresources=(STATUS,),
    ),
    ResourceSpec(
        "networking.k8s.io",
        "v1",
        "networkpolicies",
        "NetworkPolicy",
        "networkpolicy",
        True,
        short_names=("netpol",),
    ),
    # policy/v1
    ResourceSpec(
        "policy",
        "v1",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        "poddisruptionbudget",
        True,
        short_names=("pdb",),
        subresources=(STATUS,),
    ),
    # rbac.authorization.k8s.io/v1
    ResourceSpec(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterrolebindings",
        "ClusterRoleBinding",
        "clusterrolebinding",
        False,
        name_rule="path",
    ),
    ResourceSpec(
        "rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", "clusterrole", False, name_rule="path"
    ),
    ResourceSpec(
        "rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", "rolebinding", True, name_rule="path"
    ),
    ResourceSpec("rbac.authorization.k8s.io", "v1", "roles", "Role", "role", True, name_rule="path"),
    # scheduling.k8s.io/v1
    ResourceSpec(
        "scheduling.k8s.io",
        "v1",
        "priorityclasses",
        "PriorityClass",
        "priorityclass",
        False,
        short_names=("pc",),
    ),
    # storage.k8s.io/v1
    ResourceSpec("storage.k8s.io", "v1", "storageclasses", "StorageClass", "storageclass", False, short_names=("sc",)),
)

#: the order kube-apiserver lists its groups in /apis (its priority order), first version preferred
GROUP_ORDER: tuple[str, ...] = (
    "apps",
    "events.k8s.io",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "networking.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "apiextensions.k8s.io",
    "scheduling.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
)
