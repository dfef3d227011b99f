"""Services (kube's ValidateService and ValidateServiceUpdate): ports and their names, selector, type and
the rules tied to it (ExternalName, headless, node ports, load balancers), session affinity, cluster IPs
and IP families, traffic policies, and what may not change once allocated.
"""

from __future__ import annotations

from typing import Any, Final

from kubelite.apimachinery.validation import FieldError, validate_labels
from kubelite.registry.validation import badvalues
from kubelite.registry.validation.common import (
    dns1123_label,
    dns1123_subdomain,
    integer,
    is_valid_port_num,
    items,
    mapping,
    maybe_mapping,
    non_special_ip,
    parse_ip,
    port_num_or_name,
    qualified_name,
    string_map,
    strings,
    text,
    valid_cidr,
    valid_ip,
)

TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
SESSION_AFFINITIES: Final = ("ClientIP", "None")
IP_FAMILIES: Final = ("IPv4", "IPv6")
IP_FAMILY_POLICIES: Final = ("PreferDualStack", "RequireDualStack", "SingleStack")
TRAFFIC_POLICIES: Final = ("Cluster", "Local")
TRAFFIC_DISTRIBUTIONS: Final = ("PreferClose", "PreferSameNode", "PreferSameZone")
MAX_AFFINITY_SECONDS: Final = 86400
TOPOLOGY_HINTS_ANNOTATION: Final = "service.kubernetes.io/topology-aware-hints"
TOPOLOGY_MODE_ANNOTATION: Final = "service.kubernetes.io/topology-mode"
SOURCE_RANGES_ANNOTATION: Final = "service.beta.kubernetes.io/load-balancer-source-ranges"


def is_headless(spec: dict[str, Any]) -> bool:
    ips = strings(spec, "clusterIPs")
    return len(ips) == 1 and ips[0] == "None"


def externally_accessible(spec: dict[str, Any]) -> bool:
    kind = text(spec, "type")
    return kind in ("LoadBalancer", "NodePort") or (kind == "ClusterIP" and bool(strings(spec, "externalIPs")))


def needs_health_check(spec: dict[str, Any]) -> bool:
    return text(spec, "type") == "LoadBalancer" and text(spec, "externalTrafficPolicy") == "Local"


def _port(port: dict[str, Any], require_name: bool, names: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    name = text(port, "name")
    if require_name and not name:
        errs.append(FieldError.required(f"{path}.name", ""))
    elif name:
        errs.extend(dns1123_label(name, f"{path}.name"))
        if name in names:
            errs.append(FieldError.duplicate(f"{path}.name", name))
        else:
            names.add(name)
    number = integer(port, "port") or 0
    errs.extend(FieldError.invalid(f"{path}.port", number, msg) for msg in is_valid_port_num(number))
    protocol = text(port, "protocol")
    if not protocol:
        errs.append(FieldError.required(f"{path}.protocol", ""))
    elif protocol not in PROTOCOLS:
        errs.append(FieldError.not_supported(f"{path}.protocol", protocol, list(PROTOCOLS)))
    errs.extend(port_num_or_name(port.get("targetPort"), f"{path}.targetPort"))
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str):
        errs.extend(qualified_name(app_protocol, f"{path}.appProtocol"))
    return errs


def _service_port_struct(port: dict[str, Any]) -> badvalues.RawValue:
    # the (protocol, port) key of kube's duplicate check, printed as the internal core.ServicePort
    return badvalues.struct(
        [
            ("Name", '""'),
            ("Protocol", badvalues.json_text(text(port, "protocol"))),
            ("AppProtocol", "null"),
            ("Port", str(integer(port, "port") or 0)),
            ("TargetPort", "0"),
            ("NodePort", "0"),
        ]
    )


def _cluster_ips(spec: dict[str, Any]) -> list[FieldError]:
    """ValidateServiceClusterIPsRelatedFields."""
    if text(spec, "type") == "ExternalName":
        return []
    errs: list[FieldError] = []
    ips_path = "spec.clusterIPs"
    cluster_ip, ips = text(spec, "clusterIP"), strings(spec, "clusterIPs")
    if cluster_ip:
        if not ips:
            errs.append(FieldError.required(ips_path, ""))
        elif ips[0] != cluster_ip:
            errs.append(FieldError.invalid(ips_path, badvalues.string_slice(ips), "first value must match `clusterIP`"))
    elif ips:
        errs.append(
            FieldError.invalid(ips_path, badvalues.string_slice(ips), "must be empty when `clusterIP` is not specified")
        )
    families = strings(spec, "ipFamilies")
    seen: set[str] = set()
    for index, family in enumerate(families):
        if family not in IP_FAMILIES:
            errs.append(FieldError.not_supported(f"spec.ipFamilies[{index}]", family, list(IP_FAMILIES)))
        if family in seen:
            errs.append(FieldError.duplicate(f"spec.ipFamilies[{index}]", family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if isinstance(policy, str) and policy not in IP_FAMILY_POLICIES:
        errs.append(FieldError.not_supported("spec.ipFamilyPolicy", policy, list(IP_FAMILY_POLICIES)))
    invalid_ips = False
    for index, ip in enumerate(ips):
        if index == 0 and ip == "None":
            if len(ips) > 1:
                invalid_ips = True
                errs.append(
                    FieldError.invalid(ips_path, badvalues.string_slice(ips), "'None' must be the first and only value")
                )
            continue
        found = valid_ip(ip, f"{ips_path}[{index}]")
        invalid_ips = invalid_ips or bool(found)
        errs.extend(found)
    if len(ips) > 2:
        errs.append(FieldError.invalid(ips_path, badvalues.string_slice(ips), "may only hold up to 2 values"))
    if invalid_ips:
        return errs
    if len(ips) > 1:
        versions = {parsed.version for ip in ips if (parsed := parse_ip(ip)) is not None}
        if len(versions) != len(ips):
            errs.append(
                FieldError.invalid(
                    ips_path, badvalues.string_slice(ips), "may specify no more than one IP for each IP family"
                )
            )
    if not is_headless(spec) and ips and families:
        for index, ip in enumerate(ips[: len(families)]):
            parsed = parse_ip(ip)
            is_v6 = parsed is not None and parsed.version == 6
            if families[index] == "IPv4" and is_v6:
                errs.append(
                    FieldError.invalid(
                        f"{ips_path}[{index}]", ip, f"expected an IPv4 value as indicated by `ipFamilies[{index}]`"
                    )
                )
            if families[index] == "IPv6" and not is_v6:
                errs.append(
                    FieldError.invalid(
                        f"{ips_path}[{index}]", ip, f"expected an IPv6 value as indicated by `ipFamilies[{index}]`"
                    )
                )
    return errs


def validate_service(svc: dict[str, Any]) -> list[FieldError]:
    """ValidateService after the metadata."""
    errs: list[FieldError] = []
    meta, spec = mapping(svc, "metadata"), mapping(svc, "spec")
    annotations = string_map(meta, "annotations")
    kind = text(spec, "type")
    if (
        TOPOLOGY_MODE_ANNOTATION in annotations
        and TOPOLOGY_HINTS_ANNOTATION in annotations
        and annotations[TOPOLOGY_MODE_ANNOTATION] != annotations[TOPOLOGY_HINTS_ANNOTATION]
    ):
        errs.append(
            FieldError.invalid(
                f"metadata.annotations[{TOPOLOGY_MODE_ANNOTATION}]",
                annotations[TOPOLOGY_MODE_ANNOTATION],
                f"must match annotations[{TOPOLOGY_HINTS_ANNOTATION}] when both are specified",
            )
        )
    ports = items(spec, "ports")
    if not ports and not is_headless(spec) and kind != "ExternalName":
        errs.append(FieldError.required("spec.ports", ""))
    if kind in ("LoadBalancer", "NodePort") and is_headless(spec):
        errs.append(FieldError.invalid("spec.clusterIPs[0]", "None", f"may not be set to 'None' for {kind} services"))
    elif kind == "ExternalName":
        if strings(spec, "clusterIPs"):
            errs.append(FieldError.forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
        if strings(spec, "ipFamilies"):
            errs.append(FieldError.forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
        if spec.get("ipFamilyPolicy") is not None:
            errs.append(FieldError.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
        cname = text(spec, "externalName").removesuffix(".")
        if cname:
            errs.extend(dns1123_subdomain(cname, "spec.externalName"))
        else:
            errs.append(FieldError.required("spec.externalName", ""))
    names: set[str] = set()
    for index, port in enumerate(ports):
        errs.extend(_port(port, len(ports) > 1, names, f"spec.ports[{index}]"))
    if spec.get("selector") is not None:
        errs.extend(validate_labels(spec.get("selector"), "spec.selector"))
    affinity = text(spec, "sessionAffinity")
    if not affinity:
        errs.append(FieldError.required("spec.sessionAffinity", ""))
    elif affinity not in SESSION_AFFINITIES:
        errs.append(FieldError.not_supported("spec.sessionAffinity", affinity, list(SESSION_AFFINITIES)))
    config = maybe_mapping(spec, "sessionAffinityConfig")
    if affinity == "ClientIP":
        errs.extend(_client_ip_config(config))
    elif affinity == "None" and config is not None:
        errs.append(FieldError.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
    errs.extend(_cluster_ips(spec))
    for index, ip in enumerate(strings(spec, "externalIPs")):
        found = valid_ip(ip, f"spec.externalIPs[{index}]")
        errs.extend(found or non_special_ip(ip, f"spec.externalIPs[{index}]"))
    if not kind:
        errs.append(FieldError.required("spec.type", ""))
    elif kind not in TYPES:
        errs.append(FieldError.not_supported("spec.type", kind, list(TYPES)))
    if kind == "ClusterIP":
        for index, port in enumerate(ports):
            if integer(port, "nodePort"):
                errs.append(
                    FieldError.forbidden(f"spec.ports[{index}].nodePort", "may not be used when `type` is 'ClusterIP'")
                )
    node_ports: set[tuple[str, int]] = set()
    for index, port in enumerate(ports):
        node_port = integer(port, "nodePort") or 0
        if not node_port:
            continue
        key = (text(port, "protocol"), node_port)
        if key in node_ports:
            errs.append(FieldError.duplicate(f"spec.ports[{index}].nodePort", node_port))
        node_ports.add(key)
    port_keys: set[tuple[str, int]] = set()
    for index, port in enumerate(ports):
        key = (text(port, "protocol"), integer(port, "port") or 0)
        if key in port_keys:
            errs.append(FieldError.duplicate(f"spec.ports[{index}]", _service_port_struct(port)))
        port_keys.add(key)
    errs.extend(_source_ranges(spec, annotations, kind))
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        errs.append(
            FieldError.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'")
        )
    if kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        errs.append(FieldError.required("allocateLoadBalancerNodePorts", ""))
    errs.extend(_load_balancer_class(spec, None))
    errs.extend(_external_traffic(spec))
    internal = spec.get("internalTrafficPolicy")
    if internal is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        errs.append(FieldError.required("spec.internalTrafficPolicy", ""))
    if isinstance(internal, str) and internal not in TRAFFIC_POLICIES:
        errs.append(FieldError.not_supported("spec.internalTrafficPolicy", internal, list(TRAFFIC_POLICIES)))
    distribution = spec.get("trafficDistribution")
    if isinstance(distribution, str) and distribution not in TRAFFIC_DISTRIBUTIONS:
        errs.append(FieldError.not_supported("spec.trafficDistribution", distribution, list(TRAFFIC_DISTRIBUTIONS)))
    return errs


def _client_ip_config(config: dict[str, Any] | None) -> list[FieldError]:
    path = "spec.sessionAffinityConfig"
    detail = "when session affinity type is ClientIP"
    if config is None:
        return [FieldError.required(path, detail)]
    client_ip = maybe_mapping(config, "clientIP")
    if client_ip is None:
        return [FieldError.required(f"{path}.clientIP", detail)]
    timeout = integer(client_ip, "timeoutSeconds")
    if timeout is None:
        return [FieldError.required(f"{path}.clientIP.timeoutSeconds", detail)]
    if not 0 < timeout <= MAX_AFFINITY_SECONDS:
        return [
            FieldError.invalid(
                f"{path}.clientIP.timeoutSeconds",
                timeout,
                f"must be greater than 0 and less than {MAX_AFFINITY_SECONDS}",
            )
        ]
    return []


def _source_ranges(spec: dict[str, Any], annotations: dict[str, str], kind: str) -> list[FieldError]:
    errs: list[FieldError] = []
    ranges = strings(spec, "loadBalancerSourceRanges")
    if ranges:
        path = "spec.LoadBalancerSourceRanges"
        if kind != "LoadBalancer":
            errs.append(FieldError.forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
        for index, value in enumerate(ranges):
            errs.extend(valid_cidr(value.strip(), f"{path}[{index}]"))
    elif SOURCE_RANGES_ANNOTATION in annotations:
        path = f"metadata.annotations[{SOURCE_RANGES_ANNOTATION}]"
        if kind != "LoadBalancer":
            errs.append(FieldError.forbidden(path, "may only be used when `type` is 'LoadBalancer'"))
        value = annotations[SOURCE_RANGES_ANNOTATION].strip()
        if value:
            for cidr in value.split(","):
                errs.extend(valid_cidr(cidr.strip(), path))
    return errs


def _load_balancer_class(spec: dict[str, Any], old_spec: dict[str, Any] | None) -> list[FieldError]:
    errs: list[FieldError] = []
    lb_class = spec.get("loadBalancerClass")
    is_lb = text(spec, "type") == "LoadBalancer"
    if old_spec is not None and is_lb and text(old_spec, "type") == "LoadBalancer":
        if old_spec.get("loadBalancerClass") != lb_class:
            errs.append(
                FieldError.invalid("spec.loadBalancerClass", badvalues.pointer(lb_class), "may not change once set")
            )
    if is_lb:
        if isinstance(lb_class, str):
            errs.extend(qualified_name(lb_class, "spec.loadBalancerClass"))
    elif lb_class is not None:
        errs.append(FieldError.forbidden("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'"))
    return errs


def _external_traffic(spec: dict[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    policy = text(spec, "externalTrafficPolicy")
    if not externally_accessible(spec):
        if policy:
            errs.append(
                FieldError.invalid(
                    "spec.externalTrafficPolicy", policy, "may only be set for externally-accessible services"
                )
            )
    elif not policy:
        errs.append(FieldError.required("spec.externalTrafficPolicy", ""))
    elif policy not in TRAFFIC_POLICIES:
        errs.append(FieldError.not_supported("spec.externalTrafficPolicy", policy, list(TRAFFIC_POLICIES)))
    health = integer(spec, "healthCheckNodePort") or 0
    if not needs_health_check(spec):
        if health:
            errs.append(
                FieldError.invalid(
                    "spec.healthCheckNodePort",
                    health,
                    "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
                )
            )
    elif not health:
        errs.append(FieldError.required("spec.healthCheckNodePort", ""))
    else:
        errs.extend(FieldError.invalid("spec.healthCheckNodePort", health, msg) for msg in is_valid_port_num(health))
    return errs


def _cluster_ip_changes(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """validateUpgradeDowngradeClusterIPs."""
    if "ExternalName" in (text(spec, "type"), text(old_spec, "type")):
        return []
    if is_headless(spec) and is_headless(old_spec):
        return []
    errs: list[FieldError] = []
    new_ips, old_ips = strings(spec, "clusterIPs"), strings(old_spec, "clusterIPs")
    shown = badvalues.string_slice(new_ips) if "clusterIPs" in spec else badvalues.string_slice(None)
    if len(old_ips) == len(new_ips):
        for index, ip in enumerate(old_ips):
            if ip != new_ips[index]:
                errs.append(FieldError.invalid(f"spec.clusterIPs[{index}]", shown, "may not change once set"))
    elif len(old_ips) > len(new_ips):
        if not new_ips:
            errs.append(FieldError.invalid("spec.clusterIPs[0]", shown, "primary clusterIP can not be unset"))
        if old_ips and new_ips and new_ips[0] != old_ips[0]:
            errs.append(FieldError.invalid("spec.clusterIPs[0]", shown, "may not change once set"))
        if len(new_ips) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errs.append(
                FieldError.invalid(
                    "spec.ipFamilyPolicy",
                    badvalues.pointer(spec.get("ipFamilyPolicy")),
                    "must be set to 'SingleStack' when releasing the secondary clusterIP",
                )
            )
    elif old_ips and new_ips[0] != old_ips[0]:
        errs.append(FieldError.invalid("spec.clusterIPs[0]", shown, "may not change once set"))
    return errs


def _family_changes(spec: dict[str, Any], old_spec: dict[str, Any]) -> list[FieldError]:
    """validateUpgradeDowngradeIPFamilies."""
    if "ExternalName" in (text(spec, "type"), text(old_spec, "type")):
        return []
    if is_headless(spec) or is_headless(old_spec):
        return []
    errs: list[FieldError] = []
    new, old = strings(spec, "ipFamilies"), strings(old_spec, "ipFamilies")
    shown = badvalues.string_slice(new)
    if len(old) == len(new):
        for index, family in enumerate(old):
            if family != new[index]:
                errs.append(FieldError.invalid("spec.ipFamilies[0]", shown, "may not change once set"))
    elif len(old) > len(new):
        if not strings(spec, "clusterIPs"):
            errs.append(FieldError.invalid("spec.ipFamilies[0]", shown, "primary ipFamily can not be unset"))
        if new and new[0] != old[0]:
            errs.append(
                FieldError.invalid(
                    "spec.ipFamilies[0]", badvalues.string_slice(strings(spec, "clusterIPs")), "may not change once set"
                )
            )
        if len(new) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errs.append(
                FieldError.invalid(
                    "spec.ipFamilyPolicy",
                    badvalues.pointer(spec.get("ipFamilyPolicy")),
                    "must be set to 'SingleStack' when releasing the secondary ipFamily",
                )
            )
    elif old and new and new[0] != old[0]:
        errs.append(
            FieldError.invalid(
                "spec.ipFamilies[0]", badvalues.string_slice(strings(spec, "clusterIPs")), "may not change once set"
            )
        )
    return errs


def validate_service_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidateServiceUpdate after the metadata update checks."""
    spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    errs = _cluster_ip_changes(spec, old_spec)
    errs.extend(_family_changes(spec, old_spec))
    errs.extend(e for e in _load_balancer_class(spec, old_spec) if e.detail == "may not change once set")
    if needs_health_check(old_spec) and needs_health_check(spec):
        if integer(spec, "healthCheckNodePort") != integer(old_spec, "healthCheckNodePort"):
            errs.append(FieldError.forbidden("spec.healthCheckNodePort", "field is immutable"))
    return errs + validate_service(new)
