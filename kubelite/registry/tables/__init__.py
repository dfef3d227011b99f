"""Server-side tables (`meta.k8s.io/v1 Table`) for the built-in kinds: what `kubectl get` prints.

The printers reproduce kube-apiserver's (pkg/printers/internalversion) column for column and cell for
cell; each resource's home binds its own to its Store, and `TABLES` indexes them by (group, resource).
Kinds whose kube storage has no printer (roles, cluster roles, limit ranges) get kube's default table of
Name and Created At, which `default_table()` also offers for anything else. Bindings are create-only and
never listed, so they have no table.
"""

from __future__ import annotations

from kubelite.registry.tables.apps import (
    CONTROLLER_REVISION_TABLE,
    DAEMON_SET_TABLE,
    DEPLOYMENT_TABLE,
    REPLICA_SET_TABLE,
    STATEFUL_SET_TABLE,
)
from kubelite.registry.tables.autoscaling import HPA_TABLE
from kubelite.registry.tables.base import TableSpec, default_table
from kubelite.registry.tables.batch import CRON_JOB_TABLE, JOB_TABLE
from kubelite.registry.tables.certificates import CSR_TABLE
from kubelite.registry.tables.core import (
    CONFIGMAP_TABLE,
    ENDPOINTS_TABLE,
    NAMESPACE_TABLE,
    NODE_TABLE,
    POD_TEMPLATE_TABLE,
    RC_TABLE,
    RESOURCE_QUOTA_TABLE,
    SECRET_TABLE,
    SERVICE_ACCOUNT_TABLE,
    SERVICE_TABLE,
)
from kubelite.registry.tables.events import EVENT_TABLE, EVENTS_V1_TABLE
from kubelite.registry.tables.others import (
    CLUSTER_ROLE_BINDING_TABLE,
    ENDPOINT_SLICE_TABLE,
    INGRESS_CLASS_TABLE,
    INGRESS_TABLE,
    LEASE_TABLE,
    NETWORK_POLICY_TABLE,
    PDB_TABLE,
    PRIORITY_CLASS_TABLE,
    ROLE_BINDING_TABLE,
)
from kubelite.registry.tables.pods import POD_TABLE
from kubelite.registry.tables.storage import PV_TABLE, PVC_TABLE, STORAGE_CLASS_TABLE

TABLES: dict[tuple[str, str], TableSpec] = {
    ("", "configmaps"): CONFIGMAP_TABLE,
    ("", "endpoints"): ENDPOINTS_TABLE,
    ("", "events"): EVENT_TABLE,
    ("", "limitranges"): default_table(),
    ("", "namespaces"): NAMESPACE_TABLE,
    ("", "nodes"): NODE_TABLE,
    ("", "persistentvolumeclaims"): PVC_TABLE,
    ("", "persistentvolumes"): PV_TABLE,
    ("", "pods"): POD_TABLE,
    ("", "podtemplates"): POD_TEMPLATE_TABLE,
    ("", "replicationcontrollers"): RC_TABLE,
    ("", "resourcequotas"): RESOURCE_QUOTA_TABLE,
    ("", "secrets"): SECRET_TABLE,
    ("", "serviceaccounts"): SERVICE_ACCOUNT_TABLE,
    ("", "services"): SERVICE_TABLE,
    ("apps", "controllerrevisions"): CONTROLLER_REVISION_TABLE,
    ("apps", "daemonsets"): DAEMON_SET_TABLE,
    ("apps", "deployments"): DEPLOYMENT_TABLE,
    ("apps", "replicasets"): REPLICA_SET_TABLE,
    ("apps", "statefulsets"): STATEFUL_SET_TABLE,
    ("autoscaling", "horizontalpodautoscalers"): HPA_TABLE,
    ("batch", "cronjobs"): CRON_JOB_TABLE,
    ("batch", "jobs"): JOB_TABLE,
    ("certificates.k8s.io", "certificatesigningrequests"): CSR_TABLE,
    ("coordination.k8s.io", "leases"): LEASE_TABLE,
    ("discovery.k8s.io", "endpointslices"): ENDPOINT_SLICE_TABLE,
    ("events.k8s.io", "events"): EVENTS_V1_TABLE,
    ("networking.k8s.io", "ingressclasses"): INGRESS_CLASS_TABLE,
    ("networking.k8s.io", "ingresses"): INGRESS_TABLE,
    ("networking.k8s.io", "networkpolicies"): NETWORK_POLICY_TABLE,
    ("policy", "poddisruptionbudgets"): PDB_TABLE,
    ("rbac.authorization.k8s.io", "clusterrolebindings"): CLUSTER_ROLE_BINDING_TABLE,
    ("rbac.authorization.k8s.io", "clusterroles"): default_table(),
    ("rbac.authorization.k8s.io", "rolebindings"): ROLE_BINDING_TABLE,
    ("rbac.authorization.k8s.io", "roles"): default_table(),
    ("scheduling.k8s.io", "priorityclasses"): PRIORITY_CLASS_TABLE,
    ("storage.k8s.io", "storageclasses"): STORAGE_CLASS_TABLE,
}

__all__ = ["TABLES", "TableSpec", "default_table"]
