"""Tables of the remaining kinds with a kube printer: networking, policy, RBAC bindings, scheduling,
coordination and discovery (ingresses, network policies, disruption budgets, role bindings, priority classes,
leases, endpoint slices).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, age, age_col, col, dig, integer, items, name_col, name_of, text
from kubelite.registry.tables.format import format_label_selector, int_or_string

# -- networking.k8s.io ---------------------------------------------------------------------------------------


def ingress_hosts(rules: list[Any]) -> str:
    """`formatHosts`: the first three rule hosts, `*` when no rule names one."""
    shown: list[str] = []
    limit, more = 3, False
    for rule in rules:
        if len(shown) == limit:
            more = True
        if not more and text(rule, "host"):
            shown.append(text(rule, "host"))
    if not shown:
        return "*"
    joined = ",".join(shown)
    return f"{joined} + {len(rules) - limit} more..." if more else joined


def ingress_address(ingress: Obj) -> str:
    found = {
        text(entry, "ip") or text(entry, "hostname")
        for entry in items(ingress, "status", "loadBalancer", "ingress")
        if text(entry, "ip") or text(entry, "hostname")
    }
    return ",".join(sorted(found))


def _ingress_row(ingress: Obj, now: datetime) -> list[Any]:
    class_name = dig(ingress, "spec", "ingressClassName")
    return [
        name_of(ingress),
        class_name if isinstance(class_name, str) else "<none>",
        ingress_hosts(items(ingress, "spec", "rules")),
        ingress_address(ingress),
        "80, 443" if items(ingress, "spec", "tls") else "80",
        age(ingress, now),
    ]


INGRESS_TABLE = TableSpec(
    [
        name_col(),
        col(
            "Class",
            "string",
            "The name of the IngressClass resource that should be used for additional configuration",
        ),
        col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule"),
        col("Address", "string", "Address is a list containing ingress points for the load-balancer"),
        col("Ports", "string", "Ports of TLS configurations that open"),
        age_col(),
    ],
    _ingress_row,
)


def _ingress_class_parameters(obj: Obj) -> str:
    parameters = dig(obj, "spec", "parameters")
    if not isinstance(parameters, dict):
        return "<none>"
    rendered = text(parameters, "kind")
    if isinstance(parameters.get("apiGroup"), str):
        rendered += "." + parameters["apiGroup"]
    return f"{rendered}/{text(parameters, 'name')}"


INGRESS_CLASS_TABLE = TableSpec(
    [
        name_col(),
        col("Controller", "string", "Controller that is responsible for handling this class"),
        col("Parameters", "string", "A reference to a resource with additional parameters"),
        age_col(),
    ],
    lambda obj, now: [
        name_of(obj),
        text(obj, "spec", "controller"),
        _ingress_class_parameters(obj),
        age(obj, now),
    ],
)

NETWORK_POLICY_TABLE = TableSpec(
    [name_col(), col("Pod-Selector", "string", d.NETWORK_POLICY_POD_SELECTOR), age_col()],
    lambda obj, now: [name_of(obj), format_label_selector(dig(obj, "spec", "podSelector")), age(obj, now)],
)

# -- policy --------------------------------------------------------------------------------------------------


def _budget(obj: Obj, field: str) -> str:
    value = dig(obj, "spec", field)
    return "N/A" if value is None else int_or_string(value)


PDB_TABLE = TableSpec(
    [
        name_col(),
        col("Min Available", "string", "The minimum number of pods that must be available."),
        col("Max Unavailable", "string", "The maximum number of pods that may be unavailable."),
        col(
            "Allowed Disruptions",
            "integer",
            "Calculated number of pods that may be disrupted at this time.",
        ),
        age_col(),
    ],
    lambda obj, now: [
        name_of(obj),
        _budget(obj, "minAvailable"),
        _budget(obj, "maxUnavailable"),
        integer(obj, "status", "disruptionsAllowed"),
        age(obj, now),
    ],
)

# -- rbac.authorization.k8s.io -------------------------------------------------------------------------------


def subjects_cells(binding: Obj) -> list[str]:
    """`rbac.SubjectsStrings`: users, groups and `namespace/name` service accounts, each `, `-joined."""
    users: list[str] = []
    groups: list[str] = []
    service_accounts: list[str] = []
    for subject in items(binding, "subjects"):
        kind = text(subject, "kind")
        if kind == "ServiceAccount":
            service_accounts.append(f"{text(subject, 'namespace')}/{text(subject, 'name')}")
        elif kind == "User":
            users.append(text(subject, "name"))
        elif kind == "Group":
            groups.append(text(subject, "name"))
    return [", ".join(users), ", ".join(groups), ", ".join(service_accounts)]


def _binding_row(binding: Obj, now: datetime) -> list[Any]:
    role = f"{text(binding, 'roleRef', 'kind')}/{text(binding, 'roleRef', 'name')}"
    return [name_of(binding), role, age(binding, now), *subjects_cells(binding)]


def _binding_table(role_ref_description: str, noun: str) -> TableSpec:
    return TableSpec(
        [
            name_col(),
            col("Role", "string", role_ref_description),
            age_col(),
            col("Users", "string", f"Users in the {noun}", 1),
            col("Groups", "string", f"Groups in the {noun}", 1),
            col("ServiceAccounts", "string", f"ServiceAccounts in the {noun}", 1),
        ],
        _binding_row,
    )


ROLE_BINDING_TABLE = _binding_table(d.ROLE_BINDING_ROLE_REF, "roleBinding")
CLUSTER_ROLE_BINDING_TABLE = _binding_table(d.CLUSTER_ROLE_BINDING_ROLE_REF, "clusterRoleBinding")

# -- scheduling.k8s.io ---------------------------------------------------------------------------------------


def _priority_class_row(obj: Obj, now: datetime) -> list[Any]:
    global_default = dig(obj, "globalDefault")
    return [
        name_of(obj),
        integer(obj, "value"),
        global_default if isinstance(global_default, bool) else False,
        age(obj, now),
        # v1 defaulting fills in the preemption policy
        text(obj, "preemptionPolicy") or "PreemptLowerPriority",
    ]


PRIORITY_CLASS_TABLE = TableSpec(
    [
        name_col(),
        col("Value", "integer", d.PRIORITY_CLASS_VALUE),
        col("Global-Default", "boolean", d.PRIORITY_CLASS_GLOBAL_DEFAULT),
        age_col(),
        col("PreemptionPolicy", "string", d.PRIORITY_CLASS_PREEMPTION),
    ],
    _priority_class_row,
)

# -- coordination.k8s.io -------------------------------------------------------------------------------------

LEASE_TABLE = TableSpec(
    [name_col(), col("Holder", "string", d.LEASE_HOLDER), age_col()],
    lambda obj, now: [name_of(obj), text(obj, "spec", "holderIdentity"), age(obj, now)],
)

# -- discovery.k8s.io ----------------------------------------------------------------------------------------


def _list_with_more(values: list[str], limit: int = 3) -> str:
    """`listWithMoreString`: the first three values, `+ N more...`, or `<unset>` when there are none."""
    joined = ",".join(values[:limit])
    if len(values) > limit:
        return f"{joined} + {len(values) - limit} more..."
    return joined or "<unset>"


def _slice_port(port: Any) -> str:
    number = dig(port, "port")
    if isinstance(number, int):
        return str(number)
    name = dig(port, "name")
    return name if isinstance(name, str) else "*"


def _slice_addresses(endpoint_slice: Obj) -> list[str]:
    endpoints = items(endpoint_slice, "endpoints")
    return [str(address) for endpoint in endpoints for address in items(endpoint, "addresses")]


ENDPOINT_SLICE_TABLE = TableSpec(
    [
        name_col(),
        col("AddressType", "string", d.ENDPOINT_SLICE_ADDRESS_TYPE),
        col("Ports", "string", d.ENDPOINT_SLICE_PORTS),
        col("Endpoints", "string", d.ENDPOINT_SLICE_ENDPOINTS),
        age_col(),
    ],
    lambda obj, now: [
        name_of(obj),
        text(obj, "addressType"),
        _list_with_more([_slice_port(port) for port in items(obj, "ports")]),
        _list_with_more(_slice_addresses(obj)),
        age(obj, now),
    ],
)
