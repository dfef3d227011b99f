"""Pods and pod templates (kube's ValidatePodSpec, ValidatePodCreate, ValidatePodUpdate and
ValidatePodTemplateSpec). A pod template is checked like a pod spec under its own path prefix
(`spec.template.spec.containers[0].image`), without the checks kube keeps for real pods.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Final

from kubelite.apimachinery.validation import (
    FieldError,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    regex_error,
    validate_annotations,
    validate_labels,
)
from kubelite.registry.validation import badvalues
from kubelite.registry.validation.common import (
    INT32_MAX,
    dns1123_label,
    dns1123_subdomain,
    inclusive_range,
    integer,
    items,
    label_selector,
    label_value,
    mapping,
    maybe_mapping,
    normalized,
    qualified_name,
    semantic_equal,
    string_map,
    strings,
    text,
    valid_ip,
)
from kubelite.registry.validation.containers import (
    PodContext,
    apparmor_profile,
    containers,
    ephemeral_containers,
    id_range,
    image_whitespace,
    init_containers,
    seccomp_profile,
)
from kubelite.registry.validation.resources import pod_resource_name, quantity, requirements
from kubelite.registry.validation.volumes import validate_volumes

RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PREEMPTION_POLICIES: Final = ("PreemptLowerPriority", "Never")
MIRROR_POD_ANNOTATION: Final = "kubernetes.io/config.mirror"
DELETION_COST_ANNOTATION: Final = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD_ANNOTATION: Final = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_PREFIX: Final = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_PREFIX: Final = "container.apparmor.security.beta.kubernetes.io/"

UPDATABLE_POD_SPEC_FIELDS: Final = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
POD_UPDATE_FORBIDDEN: Final = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)


# -- annotations ---------------------------------------------------------------------------------------


def _all_containers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return items(spec, "initContainers") + items(spec, "containers") + items(spec, "ephemeralContainers")


def _seccomp_profile_text(profile: str, path: str) -> list[FieldError]:
    if profile in ("runtime/default", "docker/default", "unconfined"):
        return []
    if profile.startswith("localhost/"):
        local = profile[len("localhost/") :]
        errs: list[FieldError] = []
        if local.startswith("/"):
            errs.append(FieldError.invalid(path, local, "must be a relative path"))
        if ".." in local.split("/"):
            errs.append(FieldError.invalid(path, local, "must not contain '..'"))
        return errs
    return [FieldError.invalid(path, profile, "must be a valid seccomp profile")]


def pod_specific_annotations(annotations: dict[str, str], spec: dict[str, Any], path: str) -> list[FieldError]:
    """ValidatePodSpecificAnnotations."""
    errs: list[FieldError] = []
    if MIRROR_POD_ANNOTATION in annotations and not text(spec, "nodeName"):
        errs.append(
            FieldError.invalid(
                f"{path}[{MIRROR_POD_ANNOTATION}]",
                annotations[MIRROR_POD_ANNOTATION],
                "must set spec.nodeName if mirror pod annotation is set",
            )
        )
    if DELETION_COST_ANNOTATION in annotations:
        cost = annotations[DELETION_COST_ANNOTATION]
        try:
            valid_cost = -(2**31) <= int(cost, 10) <= INT32_MAX and cost.strip() == cost
        except ValueError:
            valid_cost = False
        if not valid_cost:
            errs.append(FieldError.invalid(f"{path}[{DELETION_COST_ANNOTATION}]", cost, "must be a 32bit integer"))
    if SECCOMP_POD_ANNOTATION in annotations:
        errs.extend(_seccomp_profile_text(annotations[SECCOMP_POD_ANNOTATION], f"{path}.{SECCOMP_POD_ANNOTATION}"))
    for key, value in annotations.items():
        if key.startswith(SECCOMP_CONTAINER_PREFIX):
            errs.extend(_seccomp_profile_text(value, f"{path}.{key}"))
    names = {text(c, "name") for c in _all_containers(spec)}
    for key, value in annotations.items():
        if not key.startswith(APPARMOR_PREFIX):
            continue
        container = key[len(APPARMOR_PREFIX) :]
        if container not in names:
            errs.append(FieldError.invalid(f"{path}[{key}]", container, "container not found"))
        if value not in ("", "runtime/default", "unconfined") and not value.startswith("localhost/"):
            errs.append(
                FieldError.invalid(f"{path}[{key}]", value, f"invalid AppArmor profile name: {json.dumps(value)}")
            )
    return errs


# -- the pod spec --------------------------------------------------------------------------------------


def _restart_policy(policy: str, path: str) -> list[FieldError]:
    if policy in RESTART_POLICIES:
        return []
    if not policy:
        return [FieldError.required(path, "")]
    return [FieldError.not_supported(path, policy, list(RESTART_POLICIES))]


def _dns_policy(policy: str, path: str) -> list[FieldError]:
    if policy in DNS_POLICIES:
        return []
    if not policy:
        return [FieldError.required(path, "")]
    return [FieldError.not_supported(path, policy, list(DNS_POLICIES))]


def _dns_config(config: dict[str, Any] | None, policy: str, path: str) -> list[FieldError]:
    if policy == "None":
        if config is None:
            return [FieldError.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not strings(config, "nameservers"):
            return [
                FieldError.required(
                    f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None"
                )
            ]
    if config is None:
        return []
    errs: list[FieldError] = []
    nameservers, searches = strings(config, "nameservers"), strings(config, "searches")
    if len(nameservers) > 3:
        errs.append(FieldError.invalid(f"{path}.nameservers", nameservers, "must not have more than 3 nameservers"))
    for index, server in enumerate(nameservers):
        errs.extend(valid_ip(server, f"{path}.nameservers[{index}]"))
    if len(searches) > 32:
        errs.append(FieldError.invalid(f"{path}.searches", searches, "must not have more than 32 search paths"))
    if len(" ".join(searches)) > 2048:
        errs.append(
            FieldError.invalid(
                f"{path}.searches",
                searches,
                "must not have more than 2048 characters (including spaces) in the search list",
            )
        )
    for index, search in enumerate(searches):
        if search != ".":
            search = search.removesuffix(".")
            errs.extend(
                FieldError.invalid(f"{path}.searches[{index}]", search, msg) for msg in _underscore_subdomain(search)
            )
    for index, option in enumerate(items(config, "options")):
        if not text(option, "name"):
            errs.append(FieldError.required(f"{path}.options[{index}]", "must not be empty"))
    return errs


_UNDERSCORE_LABEL: Final = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_UNDERSCORE_SUBDOMAIN: Final = _UNDERSCORE_LABEL + "(\\." + _UNDERSCORE_LABEL + ")*"


def _underscore_subdomain(value: str) -> list[str]:
    """IsDNS1123SubdomainWithUnderscore (the relaxed DNS search rule, on in 1.36)."""
    msgs: list[str] = []
    if len(value) > 253:
        msgs.append("must be no more than 253 characters")
    if not re.fullmatch(_UNDERSCORE_SUBDOMAIN, value):
        msgs.append(
            regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', "
                "and must start and end with an alphanumeric character",
                _UNDERSCORE_SUBDOMAIN,
                "example.com",
            )
        )
    return msgs


def _pod_security_context(context: dict[str, Any] | None, spec: dict[str, Any], path: str) -> list[FieldError]:
    if context is None:
        return []
    errs = id_range(context.get("fsGroup"), f"{path}.fsGroup")
    errs.extend(id_range(context.get("runAsUser"), f"{path}.runAsUser"))
    errs.extend(id_range(context.get("runAsGroup"), f"{path}.runAsGroup"))
    supplemental = context.get("supplementalGroups")
    if isinstance(supplemental, list):
        for index, gid in enumerate(supplemental):
            errs.extend(id_range(gid, f"{path}.supplementalGroups[{index}]"))
    if context.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        errs.append(
            FieldError.invalid(
                f"{path}.shareProcessNamespace", True, "ShareProcessNamespace and HostPID cannot both be enabled"
            )
        )
    names: set[str] = set()
    for index, sysctl in enumerate(items(context, "sysctls")):
        name = text(sysctl, "name")
        name_path = f"{path}.sysctls[{index}].name"
        if not name:
            errs.append(FieldError.required(name_path, ""))
        elif name in names:
            errs.append(FieldError.duplicate(name_path, name))
        names.add(name)
    policy = context.get("fsGroupChangePolicy")
    if isinstance(policy, str) and policy not in ("Always", "OnRootMismatch"):
        errs.append(FieldError.not_supported(f"{path}.fsGroupChangePolicy", policy, ["Always", "OnRootMismatch"]))
    errs.extend(seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile"))
    errs.extend(apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile"))
    groups_policy = context.get("supplementalGroupsPolicy")
    if isinstance(groups_policy, str) and groups_policy not in ("Merge", "Strict"):
        errs.append(FieldError.not_supported(f"{path}.supplementalGroupsPolicy", groups_policy, ["Merge", "Strict"]))
    selinux = context.get("seLinuxChangePolicy")
    if isinstance(selinux, str) and selinux not in ("MountOption", "Recursive"):
        errs.append(FieldError.not_supported(f"{path}.seLinuxChangePolicy", selinux, ["MountOption", "Recursive"]))
    return errs


def _tolerations(tolerations: list[dict[str, Any]], path: str) -> list[FieldError]:
    """ValidateTolerations."""
    errs: list[FieldError] = []
    for index, toleration in enumerate(tolerations):
        item_path = f"{path}[{index}]"
        key, operator = text(toleration, "key"), text(toleration, "operator")
        value, effect = text(toleration, "value"), text(toleration, "effect")
        if key:
            errs.extend(qualified_name(key, f"{item_path}.key"))
        if not key and operator != "Exists":
            errs.append(
                FieldError.invalid(
                    f"{item_path}.operator",
                    operator,
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(
                FieldError.invalid(
                    f"{item_path}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"
                )
            )
        if operator in ("Equal", ""):
            msgs = is_valid_label_value(value)
            if msgs:
                errs.append(FieldError.invalid(f"{item_path}.operator", value, ";".join(msgs)))
        elif operator == "Exists":
            if value:
                errs.append(
                    FieldError.invalid(
                        f"{item_path}.operator", value, "value must be empty when `operator` is 'Exists'"
                    )
                )
        else:
            errs.append(FieldError.not_supported(f"{item_path}.operator", operator, ["Equal", "Exists"]))
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errs.append(
                FieldError.not_supported(f"{item_path}.effect", effect, ["NoSchedule", "PreferNoSchedule", "NoExecute"])
            )
    return errs


def _node_selector_requirement(req: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    operator, values = text(req, "operator"), strings(req, "values")
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(FieldError.required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                FieldError.forbidden(
                    f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
            )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                FieldError.required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'")
            )
    else:
        errs.append(FieldError.invalid(f"{path}.operator", operator, "not a valid selector operator"))
    errs.extend(qualified_name(text(req, "key"), f"{path}.key"))
    if check_values:
        for index, value in enumerate(values):
            errs.extend(label_value(value, f"{path}.values[{index}]"))
    return errs


def node_selector_term(term: dict[str, Any], path: str, check_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, req in enumerate(items(term, "matchExpressions")):
        errs.extend(_node_selector_requirement(req, f"{path}.matchExpressions[{index}]", check_values))
    for index, req in enumerate(items(term, "matchFields")):
        req_path = f"{path}.matchFields[{index}]"
        if text(req, "operator") in ("In", "NotIn"):
            if len(strings(req, "values")) != 1:
                errs.append(
                    FieldError.required(
                        f"{req_path}.values",
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    )
                )
        else:
            errs.append(
                FieldError.invalid(f"{req_path}.operator", text(req, "operator"), "not a valid selector operator")
            )
        if text(req, "key") != "metadata.name":
            errs.append(FieldError.invalid(f"{req_path}.key", text(req, "key"), "not a valid field selector key"))
        else:
            for value_index, value in enumerate(strings(req, "values")):
                errs.extend(dns1123_subdomain(value, f"{req_path}.values[{value_index}]"))
    return errs


def node_selector(selector: dict[str, Any], path: str, check_values: bool = True) -> list[FieldError]:
    terms_path = f"{path}.nodeSelectorTerms"
    terms = items(selector, "nodeSelectorTerms")
    if not terms:
        return [FieldError.required(terms_path, "must have at least one node selector term")]
    errs: list[FieldError] = []
    for index, term in enumerate(terms):
        errs.extend(node_selector_term(term, f"{terms_path}[{index}]", check_values))
    return errs


def _pod_affinity_term(term: dict[str, Any], path: str) -> list[FieldError]:
    errs = label_selector(term.get("labelSelector"), f"{path}.labelSelector")
    errs.extend(label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector"))
    for namespace in strings(term, "namespaces"):
        errs.extend(FieldError.invalid(f"{path}.namespace", namespace, msg) for msg in is_dns1123_label(namespace))
    topology = text(term, "topologyKey")
    if not topology:
        errs.append(FieldError.required(f"{path}.topologyKey", "can not be empty"))
    errs.extend(qualified_name(topology, f"{path}.topologyKey"))
    return errs


def _affinity(affinity: dict[str, Any] | None, path: str) -> list[FieldError]:
    if affinity is None:
        return []
    errs: list[FieldError] = []
    node = maybe_mapping(affinity, "nodeAffinity")
    if node is not None:
        node_path = f"{path}.nodeAffinity"
        required = maybe_mapping(node, "requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            errs.extend(node_selector(required, f"{node_path}.requiredDuringSchedulingIgnoredDuringExecution"))
        for index, term in enumerate(items(node, "preferredDuringSchedulingIgnoredDuringExecution")):
            term_path = f"{node_path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
            weight = integer(term, "weight") or 0
            if not 1 <= weight <= 100:
                errs.append(FieldError.invalid(f"{term_path}.weight", weight, "must be in the range 1-100"))
            errs.extend(node_selector_term(mapping(term, "preference"), f"{term_path}.preference", False))
    for kind in ("podAffinity", "podAntiAffinity"):
        pod = maybe_mapping(affinity, kind)
        if pod is None:
            continue
        kind_path = f"{path}.{kind}"
        for index, term in enumerate(items(pod, "requiredDuringSchedulingIgnoredDuringExecution")):
            errs.extend(
                _pod_affinity_term(term, f"{kind_path}.requiredDuringSchedulingIgnoredDuringExecution[{index}]")
            )
        for index, term in enumerate(items(pod, "preferredDuringSchedulingIgnoredDuringExecution")):
            term_path = f"{kind_path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
            weight = integer(term, "weight") or 0
            if not 1 <= weight <= 100:
                errs.append(FieldError.invalid(f"{term_path}.weight", weight, "must be in the range 1-100"))
            errs.extend(_pod_affinity_term(mapping(term, "podAffinityTerm"), f"{term_path}.podAffinityTerm"))
    return errs


def _topology_spread(constraints: list[Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, constraint in enumerate(constraints):
        item_path = f"{path}[{index}]"
        skew = integer(constraint, "maxSkew") or 0
        if skew <= 0:
            errs.append(FieldError.invalid(f"{item_path}.maxSkew", skew, "must be greater than zero"))
        key, action = text(constraint, "topologyKey"), text(constraint, "whenUnsatisfiable")
        if not key:
            errs.append(FieldError.required(f"{item_path}.topologyKey", "can not be empty"))
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                FieldError.not_supported(f"{item_path}.whenUnsatisfiable", action, ["DoNotSchedule", "ScheduleAnyway"])
            )
        for later in constraints[index + 1 :]:
            if (
                isinstance(later, dict)
                and text(later, "topologyKey") == key
                and text(later, "whenUnsatisfiable") == action
            ):
                errs.append(
                    FieldError.duplicate(f"{item_path}.{{topologyKey, whenUnsatisfiable}}", f"{{{key}, {action}}}")
                )
                break
        min_domains = integer(constraint, "minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                errs.append(FieldError.invalid(f"{item_path}.minDomains", min_domains, "must be greater than zero"))
            if action != "DoNotSchedule":
                errs.append(
                    FieldError.invalid(
                        f"{item_path}.minDomains",
                        min_domains,
                        f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}",
                    )
                )
        for policy_key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_key)
            if isinstance(policy, str) and policy not in ("Honor", "Ignore"):
                errs.append(FieldError.not_supported(f"{item_path}.{policy_key}", policy, ["Honor", "Ignore"]))
        errs.extend(label_selector(constraint.get("labelSelector"), f"{item_path}.labelSelector"))
    return errs


def _host_network_ports(spec: dict[str, Any], path: str, resource_is_pod: bool) -> list[FieldError]:
    if spec.get("hostNetwork") is not True:
        return []
    errs: list[FieldError] = []
    for index, container in enumerate(items(spec, "containers")):
        for port_index, port in enumerate(items(container, "ports")):
            host, container_port = integer(port, "hostPort") or 0, integer(port, "containerPort") or 0
            if (resource_is_pod or host != 0) and host != container_port:
                errs.append(
                    FieldError.invalid(
                        f"{path}.containers[{index}].ports[{port_index}].hostPort",
                        host,
                        "must match `containerPort` when `hostNetwork` is true",
                    )
                )
    return errs


def _pod_level_resources(spec: dict[str, Any], claims: set[str], path: str) -> list[FieldError]:
    resources = maybe_mapping(spec, "resources")
    if resources is None:
        return []
    errs: list[FieldError] = []
    if resources.get("claims") is not None:
        errs.append(FieldError.forbidden(f"{path}.claims", "claims cannot be set for Resources at pod-level"))
    errs.extend(requirements(resources, claims, path, pod_resource_name))
    pod_requests = mapping(resources, "requests")
    pod_limits = mapping(resources, "limits")
    totals: dict[str, Any] = {}
    for container in items(spec, "containers"):
        for name, raw in mapping(mapping(container, "resources"), "requests").items():
            value = quantity(raw).value
            totals[name] = totals.get(name, 0) + value
    for container in items(spec, "initContainers"):
        for name, raw in mapping(mapping(container, "resources"), "requests").items():
            totals[name] = max(totals.get(name, 0), quantity(raw).value)
    for name, total in totals.items():
        pod_value = quantity(pod_requests.get(name, 0))
        if total > pod_value.value:
            shown = str(type(pod_value)(total, "DecimalSI"))
            errs.append(
                FieldError.invalid(
                    f"{path}.requests[{name}]",
                    str(pod_value),
                    f"must be greater than or equal to aggregate container requests of {shown}",
                )
            )
    for index, container in enumerate(items(spec, "containers")):
        for name, raw in mapping(mapping(container, "resources"), "limits").items():
            if name not in pod_limits:
                continue
            limit, pod_limit = quantity(raw), quantity(pod_limits[name])
            if limit > pod_limit:
                errs.append(
                    FieldError.invalid(
                        f"{path}.containers[{index}][{name}].limits",
                        str(limit),
                        f"must be less than or equal to pod limits of {pod_limit}",
                    )
                )
    return errs


def validate_pod_spec(spec: dict[str, Any], pod_name: str, path: str, resource_is_pod: bool) -> list[FieldError]:
    """ValidatePodSpec."""
    errs: list[FieldError] = []
    grace = integer(spec, "terminationGracePeriodSeconds")
    if spec.get("terminationGracePeriodSeconds") is None:
        errs.append(FieldError.required(f"{path}.terminationGracePeriodSeconds", ""))
    context = mapping(spec, "securityContext")
    host_users = context.get("hostUsers") is not False
    volumes, volume_errs = validate_volumes(items(spec, "volumes"), pod_name, f"{path}.volumes", resource_is_pod)
    errs.extend(volume_errs)
    claim_names = {text(c, "name") for c in items(spec, "resourceClaims") if text(c, "name")}
    errs.extend(_resource_claims(items(spec, "resourceClaims"), f"{path}.resourceClaims"))
    restart_policy = text(spec, "restartPolicy")
    ctx = PodContext(volumes, claim_names, grace, restart_policy, host_users)
    regular, init = items(spec, "containers"), items(spec, "initContainers")
    errs.extend(containers(regular, ctx, f"{path}.containers"))
    errs.extend(init_containers(init, regular, ctx, f"{path}.initContainers"))
    errs.extend(
        ephemeral_containers(items(spec, "ephemeralContainers"), regular, init, ctx, f"{path}.ephemeralContainers")
    )
    errs.extend(_pod_level_resources(spec, claim_names, f"{path}.resources"))
    errs.extend(_host_network_ports(spec, path, resource_is_pod))
    errs.extend(_restart_policy(restart_policy, f"{path}.restartPolicy"))
    errs.extend(_dns_policy(text(spec, "dnsPolicy"), f"{path}.dnsPolicy"))
    errs.extend(validate_labels(spec.get("nodeSelector"), f"{path}.nodeSelector"))
    errs.extend(_pod_security_context(maybe_mapping(spec, "securityContext"), spec, f"{path}.securityContext"))
    for index, secret in enumerate(spec.get("imagePullSecrets") or []):
        if not isinstance(secret, dict) or set(secret) - {"name"}:
            errs.append(FieldError.invalid(f"{path}.imagePullSecrets[{index}]", secret, "only name may be set"))
    errs.extend(_affinity(maybe_mapping(spec, "affinity"), f"{path}.affinity"))
    errs.extend(_dns_config(maybe_mapping(spec, "dnsConfig"), text(spec, "dnsPolicy"), f"{path}.dnsConfig"))
    for index, gate in enumerate(items(spec, "readinessGates")):
        errs.extend(qualified_name(text(gate, "conditionType"), f"{path}.readinessGates[{index}].conditionType"))
    seen_gates: set[str] = set()
    for index, gate in enumerate(items(spec, "schedulingGates")):
        name = text(gate, "name")
        errs.extend(qualified_name(name, f"{path}.schedulingGates[{index}]"))
        if name in seen_gates:
            errs.append(FieldError.duplicate(f"{path}.schedulingGates[{index}]", name))
        seen_gates.add(name)
    errs.extend(_topology_spread(items(spec, "topologySpreadConstraints"), f"{path}.topologySpreadConstraints"))
    if not host_users:
        for key, shown in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")):
            if spec.get(key) is True:
                errs.append(FieldError.forbidden(f"{path}.{shown}", "when `pod.Spec.HostUsers` is false"))
    for key, rule in (("serviceAccountName", is_dns1123_subdomain), ("nodeName", is_dns1123_subdomain)):
        value = text(spec, key)
        if value:
            errs.extend(FieldError.invalid(f"{path}.{key}", value, msg) for msg in rule(value))
    deadline = integer(spec, "activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= INT32_MAX:
        errs.append(FieldError.invalid(f"{path}.activeDeadlineSeconds", deadline, inclusive_range(1, INT32_MAX)))
    for key in ("hostname", "subdomain"):
        if text(spec, key):
            errs.extend(dns1123_label(text(spec, key), f"{path}.{key}"))
    errs.extend(_tolerations(items(spec, "tolerations"), f"{path}.tolerations"))
    for index, alias in enumerate(items(spec, "hostAliases")):
        errs.extend(valid_ip(text(alias, "ip"), f"{path}.hostAliases[{index}].ip"))
        for name_index, hostname in enumerate(strings(alias, "hostnames")):
            errs.extend(dns1123_subdomain(hostname, f"{path}.hostAliases[{index}].hostnames[{name_index}]"))
    if text(spec, "priorityClassName"):
        errs.extend(dns1123_subdomain(text(spec, "priorityClassName"), f"{path}.priorityClassName"))
    runtime_class = spec.get("runtimeClassName")
    if isinstance(runtime_class, str):
        errs.extend(dns1123_subdomain(runtime_class, f"{path}.runtimeClassName"))
    preemption = spec.get("preemptionPolicy")
    if isinstance(preemption, str) and preemption not in PREEMPTION_POLICIES:
        errs.append(
            FieldError.required(f"{path}.preemptionPolicy", "")
            if not preemption
            else FieldError.not_supported(f"{path}.preemptionPolicy", preemption, list(PREEMPTION_POLICIES))
        )
    overhead = maybe_mapping(spec, "overhead")
    if overhead is not None:
        errs.extend(requirements({"limits": overhead}, set(), f"{path}.overhead"))
    os_spec = maybe_mapping(spec, "os")
    if os_spec is not None:
        name = text(os_spec, "name")
        if not name:
            errs.append(FieldError.required(f"{path}.os.name", "cannot be empty"))
        elif name not in ("linux", "windows"):
            errs.append(FieldError.not_supported(f"{path}.os", name, ["linux", "windows"]))
    return errs


def _resource_claims(claims: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, claim in enumerate(claims):
        item_path = f"{path}[{index}]"
        name = text(claim, "name")
        if not name:
            errs.append(FieldError.required(f"{item_path}.name", ""))
        elif name in seen:
            errs.append(FieldError.duplicate(f"{item_path}.name", name))
        else:
            errs.extend(dns1123_label(name, f"{item_path}.name"))
            seen.add(name)
        has_name, has_template = (
            claim.get("resourceClaimName") is not None,
            claim.get("resourceClaimTemplateName") is not None,
        )
        if has_name and has_template:
            errs.append(
                FieldError.invalid(
                    item_path,
                    claim,
                    "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
                )
            )
        if not has_name and not has_template:
            errs.append(
                FieldError.invalid(
                    item_path, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
                )
            )
    return errs


# -- pods ----------------------------------------------------------------------------------------------


def _metadata_and_spec(pod: dict[str, Any]) -> list[FieldError]:
    """validatePodMetadataAndSpec without the ObjectMeta checks the store runs."""
    meta, spec = mapping(pod, "metadata"), mapping(pod, "spec")
    errs = pod_specific_annotations(string_map(meta, "annotations"), spec, "metadata.annotations")
    errs.extend(validate_pod_spec(spec, text(meta, "name"), "spec", True))
    if not text(spec, "serviceAccountName"):
        for index, volume in enumerate(items(spec, "volumes")):
            for source_index, source in enumerate(items(mapping(volume, "projected"), "sources")):
                if source.get("serviceAccountToken") is not None:
                    errs.append(
                        FieldError.forbidden(
                            f"spec.volumes[{index}].projected.sources[{source_index}].serviceAccountToken",
                            "must not be specified when serviceAccountName is not set",
                        )
                    )
    for key in ("containers", "initContainers"):
        for index, container in enumerate(items(spec, key)):
            errs.extend(image_whitespace(container, f"spec.{key}[{index}]"))
    return errs


def validate_pod_create(pod: dict[str, Any]) -> list[FieldError]:
    """ValidatePodCreate after the metadata."""
    errs = _metadata_and_spec(pod)
    spec = mapping(pod, "spec")
    if items(spec, "ephemeralContainers"):
        errs.append(FieldError.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if text(spec, "nodeName") and items(spec, "schedulingGates"):
        errs.append(FieldError.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return errs


def _container_updates(
    new: list[dict[str, Any]], old: list[dict[str, Any]], path: str
) -> tuple[list[FieldError], bool]:
    if len(new) != len(old):
        return [FieldError.forbidden(path, "pod updates may not add or remove containers")], True
    errs: list[FieldError] = []
    for index, container in enumerate(new):
        image = text(container, "image")
        if not image:
            errs.append(FieldError.required(f"{path}[{index}].image", ""))
        if image != image.strip():
            errs.append(
                FieldError.invalid(f"{path}[{index}].image", image, "must not have leading or trailing whitespace")
            )
    return errs, False


def _only_added_tolerations(new: list[dict[str, Any]], old: list[dict[str, Any]], path: str) -> list[FieldError]:
    for previous in old:
        wanted = {k: v for k, v in previous.items() if k != "tolerationSeconds"}
        if not any(
            semantic_equal({k: v for k, v in candidate.items() if k != "tolerationSeconds"}, wanted)
            for candidate in new
        ):
            return [FieldError.forbidden(path, "existing toleration can not be modified except its tolerationSeconds")]
    return _tolerations(new, path)


def spec_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    """A short rendering of what differs between two pod specs, in the place of kube's cmp.Diff."""
    lines = ["  core.PodSpec{"]
    old_n, new_n = normalized(old), normalized(new)
    for key in sorted(set(old_n) | set(new_n)):
        if old_n.get(key) == new_n.get(key):
            continue
        if key in old_n:
            lines.append(f"- \t{key}: {json.dumps(old_n[key], sort_keys=True)},")
        if key in new_n:
            lines.append(f"+ \t{key}: {json.dumps(new_n[key], sort_keys=True)},")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def validate_pod_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidatePodUpdate after the metadata update checks."""
    errs = _metadata_and_spec(new)
    errs.extend(_annotation_updates(new, old))
    new_spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(items(new_spec, key), items(old_spec, key), f"spec.{key}")
        errs.extend(found)
        if stop:
            return errs
    new_deadline, old_deadline = integer(new_spec, "activeDeadlineSeconds"), integer(old_spec, "activeDeadlineSeconds")
    if new_deadline is not None:
        if not 0 <= new_deadline <= INT32_MAX:
            errs.append(FieldError.invalid("spec.activeDeadlineSeconds", new_deadline, inclusive_range(0, INT32_MAX)))
            return errs
        if old_deadline is not None and old_deadline < new_deadline:
            errs.append(
                FieldError.invalid(
                    "spec.activeDeadlineSeconds", new_deadline, "must be less than or equal to previous value"
                )
            )
            return errs
    elif old_deadline is not None:
        errs.append(
            FieldError.invalid(
                "spec.activeDeadlineSeconds",
                badvalues.pointer(None),
                "must not update from a positive integer to nil value",
            )
        )
    errs.extend(
        _only_added_tolerations(items(new_spec, "tolerations"), items(old_spec, "tolerations"), "spec.tolerations")
    )
    old_gates = {text(g, "name") for g in items(old_spec, "schedulingGates")}
    for index, gate in enumerate(items(new_spec, "schedulingGates")):
        if text(gate, "name") not in old_gates:
            errs.append(
                FieldError.forbidden(
                    f"spec.schedulingGates[{index}].name",
                    f"only deletion is allowed, but found new scheduling gate '{text(gate, 'name')}'",
                )
            )
    if semantic_equal(new_spec, old_spec):
        return errs
    munged = copy.deepcopy(new_spec)
    for key in ("containers", "initContainers"):
        for container, previous in zip(items(munged, key), items(old_spec, key), strict=False):
            container["image"] = previous.get("image")
    munged.pop("activeDeadlineSeconds", None)
    if old_deadline is not None:
        munged["activeDeadlineSeconds"] = old_deadline
    for key in ("schedulingGates", "tolerations"):
        munged.pop(key, None)
        if key in old_spec:
            munged[key] = old_spec[key]
    old_grace, new_grace = (
        integer(old_spec, "terminationGracePeriodSeconds"),
        integer(munged, "terminationGracePeriodSeconds"),
    )
    if old_grace is not None and old_grace < 0 and new_grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if old_gates:
        new_selector, old_selector = string_map(munged, "nodeSelector"), string_map(old_spec, "nodeSelector")
        if new_selector != old_selector:
            if any(new_selector.get(k) != v for k, v in old_selector.items()):
                errs.append(
                    FieldError.invalid(
                        "spec.nodeSelector",
                        new_selector,
                        "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
                    )
                )
            munged.pop("nodeSelector", None)
            if "nodeSelector" in old_spec:
                munged["nodeSelector"] = old_spec["nodeSelector"]
    if not semantic_equal(munged, old_spec):
        errs.append(FieldError.forbidden("spec", POD_UPDATE_FORBIDDEN + "\n" + spec_diff(old_spec, munged)))
    return errs


def _annotation_updates(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidatePodSpecificAnnotationUpdates (the per-annotation rules; the rest ran with the spec)."""
    errs: list[FieldError] = []
    path = "metadata.annotations"
    new_annotations = string_map(mapping(new, "metadata"), "annotations")
    old_annotations = string_map(mapping(old, "metadata"), "annotations")
    for key, value in old_annotations.items():
        if new_annotations.get(key) == value:
            continue
        if key.startswith(APPARMOR_PREFIX):
            errs.append(FieldError.forbidden(f"{path}[{key}]", "may not remove or update AppArmor annotations"))
        if key == MIRROR_POD_ANNOTATION:
            errs.append(FieldError.forbidden(f"{path}[{key}]", "may not remove or update mirror pod annotation"))
    for key in new_annotations:
        if key in old_annotations:
            continue
        if key.startswith(APPARMOR_PREFIX):
            errs.append(FieldError.forbidden(f"{path}[{key}]", "may not add AppArmor annotations"))
        if key == MIRROR_POD_ANNOTATION:
            errs.append(FieldError.forbidden(f"{path}[{key}]", "may not add mirror pod annotation"))
    return errs


# -- templates -----------------------------------------------------------------------------------------


def validate_pod_template_spec(template: dict[str, Any], path: str) -> list[FieldError]:
    """ValidatePodTemplateSpec: a template's labels, annotations and pod spec under `path`."""
    meta, spec = mapping(template, "metadata"), mapping(template, "spec")
    errs = validate_labels(meta.get("labels"), f"{path}.labels")
    errs.extend(validate_annotations(meta.get("annotations"), f"{path}.annotations"))
    errs.extend(pod_specific_annotations(string_map(meta, "annotations"), spec, f"{path}.annotations"))
    errs.extend(validate_pod_spec(spec, "", f"{path}.spec", False))
    if items(spec, "ephemeralContainers"):
        errs.append(
            FieldError.forbidden(f"{path}.spec.ephemeralContainers", "ephemeral containers not allowed in pod template")
        )
    return errs


def validate_pod_template(obj: dict[str, Any]) -> list[FieldError]:
    """ValidatePodTemplate (the PodTemplate kind) after the metadata."""
    return validate_pod_template_spec(mapping(obj, "template"), "template")
