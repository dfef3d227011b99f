"""Containers of a pod (kube's validateContainers, validateInitContainers, validateEphemeralContainers and
validateContainerCommon): names unique across all three lists, images, ports, environment, volume mounts
and devices, pull policies, resources, probes and lifecycle hooks, and security contexts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from kubelite.apimachinery.validation import FieldError, is_dns1123_subdomain
from kubelite.registry.validation.common import (
    dns1123_label,
    inclusive_range,
    integer,
    is_valid_port_name,
    is_valid_port_num,
    items,
    mapping,
    maybe_mapping,
    nonnegative,
    port_num_or_name,
    present,
    strings,
    text,
)
from kubelite.registry.validation.configdata import is_config_map_key
from kubelite.registry.validation.paths import (
    ENV_FIELD_PATHS,
    local_descending_path,
    object_field_selector,
    resource_field_selector,
)
from kubelite.registry.validation.resources import requirements
from kubelite.registry.validation.volumes import pull_policy

PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
TERMINATION_MESSAGE_POLICIES: Final = ("File", "FallbackToLogsOnError")
_ID_MAX: Final = 0xFFFFFFFF
_HTTP_HEADER_NAME_MSG: Final = (
    "a valid HTTP header must consist of alphanumeric characters or '-' "
    "(e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"
)
_RELAXED_ENV_MSG: Final = (
    "a valid environment variable name must consist only of printable ASCII characters other than '='"
)

#: fields an ephemeral container may set (kube's allowedEphemeralContainerFields)
_EPHEMERAL_FORBIDDEN: Final = (
    "ports",
    "resources",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
)


@dataclass(frozen=True, slots=True)
class PodContext:
    """What every container of one pod spec is checked against."""

    volumes: dict[str, dict[str, Any]]
    claim_names: set[str]
    grace_period: int | None
    restart_policy: str
    host_users: bool


# -- ports and environment ---------------------------------------------------------------------------


def container_ports(ports: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for index, port in enumerate(ports):
        item_path = f"{path}[{index}]"
        name = text(port, "name")
        if name:
            msgs = is_valid_port_name(name)
            if msgs:
                errs.extend(FieldError.invalid(f"{item_path}.name", name, msg) for msg in msgs)
            elif name in names:
                errs.append(FieldError.duplicate(f"{item_path}.name", name))
            else:
                names.add(name)
        container_port = integer(port, "containerPort") or 0
        if container_port == 0:
            errs.append(FieldError.required(f"{item_path}.containerPort", ""))
        else:
            errs.extend(
                FieldError.invalid(f"{item_path}.containerPort", container_port, msg)
                for msg in is_valid_port_num(container_port)
            )
        host_port = integer(port, "hostPort") or 0
        if host_port:
            errs.extend(
                FieldError.invalid(f"{item_path}.hostPort", host_port, msg) for msg in is_valid_port_num(host_port)
            )
        protocol = text(port, "protocol")
        if not protocol:
            errs.append(FieldError.required(f"{item_path}.protocol", ""))
        elif protocol not in PROTOCOLS:
            errs.append(FieldError.not_supported(f"{item_path}.protocol", protocol, list(PROTOCOLS)))
    return errs


def relaxed_env_name(value: str) -> list[str]:
    """IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation is on in 1.36)."""
    msgs: list[str] = []
    if not value:
        msgs.append("environment variable name must be non-empty")
    if any(ord(ch) > 0x7E or ord(ch) < 0x20 or ch == "=" for ch in value):
        msgs.append(_RELAXED_ENV_MSG)
    return msgs


def _key_selector(selector: dict[str, Any], path: str) -> list[FieldError]:
    errs = [
        FieldError.invalid(f"{path}.name", text(selector, "name"), msg)
        for msg in is_dns1123_subdomain(text(selector, "name"))
    ]
    key = text(selector, "key")
    if not key:
        errs.append(FieldError.required(f"{path}.key", ""))
    else:
        errs.extend(FieldError.invalid(f"{path}.key", key, msg) for msg in is_config_map_key(key))
    return errs


def _value_from(var: dict[str, Any], path: str) -> list[FieldError]:
    source = maybe_mapping(var, "valueFrom")
    if source is None:
        return []
    errs: list[FieldError] = []
    count = 0
    field_ref = maybe_mapping(source, "fieldRef")
    if field_ref is not None:
        count += 1
        errs.extend(object_field_selector(field_ref, ENV_FIELD_PATHS, f"{path}.fieldRef"))
    resource_ref = maybe_mapping(source, "resourceFieldRef")
    if resource_ref is not None:
        count += 1
        errs.extend(resource_field_selector(resource_ref, f"{path}.resourceFieldRef", False))
    for key in ("configMapKeyRef", "secretKeyRef"):
        selector = maybe_mapping(source, key)
        if selector is not None:
            count += 1
            errs.extend(_key_selector(selector, f"{path}.{key}"))
    if count == 0:
        errs.append(
            FieldError.invalid(
                path, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
            )
        )
    elif text(var, "value"):
        errs.append(FieldError.invalid(path, "", "may not be specified when `value` is not empty"))
    elif count > 1:
        errs.append(FieldError.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


def env(variables: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, var in enumerate(variables):
        item_path = f"{path}[{index}]"
        name = text(var, "name")
        if not name:
            errs.append(FieldError.required(f"{item_path}.name", ""))
        else:
            errs.extend(FieldError.invalid(f"{item_path}.name", name, msg) for msg in relaxed_env_name(name))
        errs.extend(_value_from(var, f"{item_path}.valueFrom"))
    return errs


def env_from(sources: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for index, source in enumerate(sources):
        item_path = f"{path}[{index}]"
        prefix = text(source, "prefix")
        if prefix:
            errs.extend(FieldError.invalid(f"{item_path}.prefix", prefix, msg) for msg in relaxed_env_name(prefix))
        count = 0
        for key in ("configMapRef", "secretRef"):
            ref = maybe_mapping(source, key)
            if ref is None:
                continue
            count += 1
            name = text(ref, "name")
            if not name:
                errs.append(FieldError.required(f"{item_path}.{key}.name", ""))
            else:
                prefixed = name[:-2] + "a" if name.endswith("-") else name
                errs.extend(
                    FieldError.invalid(f"{item_path}.{key}.name", name, msg) for msg in is_dns1123_subdomain(prefixed)
                )
        if count == 0:
            errs.append(FieldError.invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif count > 1:
            errs.append(FieldError.invalid(path, "", "may not have more than one field specified at a time"))
    return errs


# -- volume mounts and devices -----------------------------------------------------------------------

_PROPAGATIONS: Final = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY: Final = ("Disabled", "Enabled", "IfPossible")


def volume_mounts(container: dict[str, Any], volumes: dict[str, dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    devices = {text(d, "name"): text(d, "devicePath") for d in items(container, "volumeDevices")}
    mount_points: set[str] = set()
    privileged = mapping(container, "securityContext").get("privileged") is True
    for index, mount in enumerate(items(container, "volumeMounts")):
        item_path = f"{path}[{index}]"
        name, mount_path = text(mount, "name"), text(mount, "mountPath")
        if not name:
            errs.append(FieldError.required(f"{item_path}.name", ""))
        if name not in volumes:
            errs.append(FieldError.not_found(f"{item_path}.name", name))
        if not mount_path:
            errs.append(FieldError.required(f"{item_path}.mountPath", ""))
        if mount_path in mount_points:
            errs.append(FieldError.invalid(f"{item_path}.mountPath", mount_path, "must be unique"))
        mount_points.add(mount_path)
        if name in devices:
            errs.append(FieldError.invalid(f"{item_path}.name", name, "must not already exist in volumeDevices"))
        if mount_path in devices.values():
            errs.append(
                FieldError.invalid(
                    f"{item_path}.mountPath", mount_path, "must not already exist as a path in volumeDevices"
                )
            )
        sub_path, sub_path_expr = text(mount, "subPath"), text(mount, "subPathExpr")
        if name in volumes and present(volumes[name], "image"):
            if sub_path:
                errs.append(FieldError.invalid(f"{item_path}.subPath", sub_path, "not allowed in image volume sources"))
            if sub_path_expr:
                errs.append(
                    FieldError.invalid(f"{item_path}.subPathExpr", sub_path_expr, "not allowed in image volume sources")
                )
        # kube checks sub-paths against the list's path, not the entry's
        if sub_path:
            errs.extend(local_descending_path(sub_path, f"{path}.subPath"))
        if sub_path_expr:
            if sub_path:
                errs.append(
                    FieldError.invalid(
                        f"{item_path}.subPathExpr", sub_path_expr, "subPathExpr and subPath are mutually exclusive"
                    )
                )
            errs.extend(local_descending_path(sub_path_expr, f"{path}.subPathExpr"))
        propagation = mount.get("mountPropagation")
        if isinstance(propagation, str):
            if propagation not in _PROPAGATIONS:
                errs.append(FieldError.not_supported(f"{path}.mountPropagation", propagation, list(_PROPAGATIONS)))
            if propagation == "Bidirectional" and not privileged:
                errs.append(
                    FieldError.forbidden(
                        f"{path}.mountPropagation",
                        "Bidirectional mount propagation is available only to privileged containers",
                    )
                )
        recursive = mount.get("recursiveReadOnly")
        if isinstance(recursive, str) and recursive != "Disabled":
            rro_path = f"{path}.recursiveReadOnly"
            if recursive in ("Enabled", "IfPossible"):
                if mount.get("readOnly") is not True:
                    errs.append(FieldError.forbidden(rro_path, "may only be specified when readOnly is true"))
                if isinstance(propagation, str) and propagation != "None":
                    errs.append(
                        FieldError.forbidden(
                            rro_path, "may only be specified when mountPropagation is None or not specified"
                        )
                    )
            else:
                errs.append(FieldError.not_supported(rro_path, recursive, list(_RECURSIVE_READ_ONLY)))
    return errs


def volume_devices(container: dict[str, Any], volumes: dict[str, dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    mounts = {text(m, "name"): text(m, "mountPath") for m in items(container, "volumeMounts")}
    names: set[str] = set()
    device_paths: set[str] = set()
    for index, device in enumerate(items(container, "volumeDevices")):
        item_path = f"{path}[{index}]"
        name, device_path = text(device, "name"), text(device, "devicePath")
        volume = volumes.get(name)
        is_claim = volume is not None and (present(volume, "persistentVolumeClaim") or present(volume, "ephemeral"))
        if not name:
            errs.append(FieldError.required(f"{item_path}.name", ""))
        if name in names:
            errs.append(FieldError.invalid(f"{item_path}.name", name, "must be unique"))
        if volume is not None and not is_claim:
            errs.append(
                FieldError.invalid(
                    f"{item_path}.name",
                    name,
                    "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
                )
            )
        if volume is None:
            errs.append(FieldError.not_found(f"{item_path}.name", name))
        if not device_path:
            errs.append(FieldError.required(f"{item_path}.devicePath", ""))
        if device_path in device_paths:
            errs.append(FieldError.invalid(f"{item_path}.devicePath", device_path, "must be unique"))
        if device_path and ".." in device_path.split("/"):
            errs.append(FieldError.invalid(f"{item_path}.devicePath", device_path, "can not contain backsteps ('..')"))
        else:
            device_paths.add(device_path)
        if name in mounts:
            errs.append(FieldError.invalid(f"{item_path}.name", name, "must not already exist in volumeMounts"))
        if device_path in mounts.values():
            errs.append(
                FieldError.invalid(
                    f"{item_path}.devicePath", device_path, "must not already exist as a path in volumeMounts"
                )
            )
        if name:
            names.add(name)
    return errs


# -- probes and lifecycle ----------------------------------------------------------------------------

_SCHEMES: Final = ("HTTP", "HTTPS")


def _handler(handler: dict[str, Any], grace: int | None, path: str, probe: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    kinds = ("exec", "httpGet", "tcpSocket", "grpc") if probe else ("exec", "httpGet", "tcpSocket", "sleep")
    for kind in kinds:
        action = maybe_mapping(handler, kind)
        if action is None:
            continue
        action_path = f"{path}.{kind}"
        if count > 0:
            errs.append(FieldError.forbidden(action_path, "may not specify more than 1 handler type"))
            continue
        count += 1
        if kind == "exec":
            if not strings(action, "command"):
                errs.append(FieldError.required(f"{action_path}.command", ""))
        elif kind == "httpGet":
            if not text(action, "path"):
                errs.append(FieldError.required(f"{action_path}.path", ""))
            errs.extend(port_num_or_name(action.get("port"), f"{action_path}.port"))
            if text(action, "scheme") not in _SCHEMES:
                errs.append(FieldError.not_supported(f"{action_path}.scheme", text(action, "scheme"), list(_SCHEMES)))
            for header in items(action, "httpHeaders"):
                if not _header_name_ok(text(header, "name")):
                    errs.append(
                        FieldError.invalid(f"{action_path}.httpHeaders", text(header, "name"), _HTTP_HEADER_NAME_MSG)
                    )
        elif kind == "tcpSocket":
            errs.extend(port_num_or_name(action.get("port"), f"{action_path}.port"))
        elif kind == "grpc":
            errs.extend(port_num_or_name(integer(action, "port") or 0, f"{action_path}.port"))
        elif kind == "sleep":
            seconds = integer(action, "seconds") or 0
            if grace is not None and not 0 <= seconds <= grace:
                errs.append(
                    FieldError.invalid(
                        action_path,
                        seconds,
                        f"must be non-negative and less than terminationGracePeriodSeconds ({grace})",
                    )
                )
    if count == 0:
        errs.append(FieldError.required(path, "must specify a handler type"))
    return errs


def _header_name_ok(name: str) -> bool:
    return bool(name) and all(ch.isascii() and (ch.isalnum() or ch == "-") for ch in name)


def probe(container: dict[str, Any], key: str, grace: int | None, path: str) -> list[FieldError]:
    spec = maybe_mapping(container, key)
    if spec is None:
        return []
    errs = _handler(spec, grace, path, True)
    for name in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        errs.extend(nonnegative(integer(spec, name), f"{path}.{name}"))
    grace_override = integer(spec, "terminationGracePeriodSeconds")
    if grace_override is not None and grace_override <= 0:
        errs.append(
            FieldError.invalid(f"{path}.terminationGracePeriodSeconds", grace_override, "must be greater than 0")
        )
    if key in ("livenessProbe", "startupProbe"):
        success = integer(spec, "successThreshold") or 0
        if success != 1:
            errs.append(FieldError.invalid(f"{path}.successThreshold", success, "must be 1"))
    elif grace_override is not None:
        errs.append(
            FieldError.invalid(
                f"{path}.terminationGracePeriodSeconds", grace_override, "must not be set for readinessProbes"
            )
        )
    return errs


def lifecycle(container: dict[str, Any], grace: int | None, path: str) -> list[FieldError]:
    hooks = mapping(container, "lifecycle")
    errs: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        handler = maybe_mapping(hooks, hook)
        if handler is not None:
            errs.extend(_handler(handler, grace, f"{path}.{hook}", False))
    return errs


# -- security contexts -------------------------------------------------------------------------------

_SECCOMP_TYPES: Final = ("Localhost", "RuntimeDefault", "Unconfined")
_APPARMOR_TYPES: Final = ("Localhost", "RuntimeDefault", "Unconfined")


def id_range(value: Any, path: str) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= _ID_MAX:
        return [FieldError.invalid(path, value, inclusive_range(0, _ID_MAX))]
    return []


def seccomp_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    errs: list[FieldError] = []
    kind = text(profile, "type")
    if not kind:
        errs.append(FieldError.required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in _SECCOMP_TYPES:
        errs.append(FieldError.not_supported(f"{path}.type", kind, list(_SECCOMP_TYPES)))
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if not isinstance(local, str):
            errs.append(FieldError.required(f"{path}.localhostProfile", "must be set when seccomp type is Localhost"))
        else:
            errs.extend(local_descending_path(local, f"{path}.localhostProfile"))
    elif local is not None:
        errs.append(
            FieldError.invalid(f"{path}.localhostProfile", profile, "can only be set when seccomp type is Localhost")
        )
    return errs


def apparmor_profile(profile: Any, path: str) -> list[FieldError]:
    if not isinstance(profile, dict):
        return []
    kind = text(profile, "type")
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if not isinstance(local, str) or not local.strip():
            return [FieldError.required(f"{path}.localhostProfile", "must be set when AppArmor type is Localhost")]
        if local != local.strip():
            return [FieldError.invalid(f"{path}.localhostProfile", local, "must not be padded with whitespace")]
        return []
    if kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            return [
                FieldError.invalid(f"{path}.localhostProfile", local, "can only be set when AppArmor type is Localhost")
            ]
        return []
    if not kind:
        return [FieldError.required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [FieldError.not_supported(f"{path}.type", kind, list(_APPARMOR_TYPES))]


def security_context(context: Any, path: str, host_users: bool) -> list[FieldError]:
    """ValidateSecurityContext of one container."""
    if not isinstance(context, dict):
        return []
    errs = id_range(context.get("runAsUser"), f"{path}.runAsUser")
    errs.extend(id_range(context.get("runAsGroup"), f"{path}.runAsGroup"))
    proc_mount = context.get("procMount")
    if isinstance(proc_mount, str):
        if proc_mount not in ("Default", "Unmasked"):
            errs.append(FieldError.not_supported(f"{path}.procMount", proc_mount, ["Default", "Unmasked"]))
        if host_users and proc_mount == "Unmasked":
            errs.append(
                FieldError.invalid(f"{path}.procMount", proc_mount, "`hostUsers` must be false to use `Unmasked`")
            )
    errs.extend(seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile"))
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            errs.append(
                FieldError.invalid(
                    path, context, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
                )
            )
        if "CAP_SYS_ADMIN" in strings(mapping(context, "capabilities"), "add"):
            errs.append(
                FieldError.invalid(
                    path, context, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                )
            )
    errs.extend(apparmor_profile(context.get("appArmorProfile"), f"{path}.appArmorProfile"))
    return errs


# -- the container lists -----------------------------------------------------------------------------

_RESIZE_POLICIES: Final = ("NotRequired", "RestartContainer")


def _resize_policy(policies: list[dict[str, Any]], path: str, restart_policy: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, policy in enumerate(policies):
        name, restart = text(policy, "resourceName"), text(policy, "restartPolicy")
        if name in seen:
            errs.append(FieldError.duplicate(f"{path}[{index}]", name))
        seen.add(name)
        if not name:
            errs.append(FieldError.required(path, ""))
        elif name not in ("cpu", "memory"):
            errs.append(FieldError.not_supported(path, name, ["cpu", "memory"]))
        if not restart:
            errs.append(FieldError.required(path, ""))
        elif restart not in _RESIZE_POLICIES:
            errs.append(FieldError.not_supported(path, restart, list(_RESIZE_POLICIES)))
        if restart_policy == "Never" and restart != "NotRequired":
            errs.append(FieldError.invalid(path, restart, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
    return errs


def container_common(container: dict[str, Any], ctx: PodContext, path: str) -> list[FieldError]:
    """validateContainerCommon."""
    errs: list[FieldError] = []
    name = text(container, "name")
    if not name:
        errs.append(FieldError.required(f"{path}.name", ""))
    else:
        errs.extend(dns1123_label(name, f"{path}.name"))
    if not text(container, "image"):
        errs.append(FieldError.required(f"{path}.image", ""))
    policy = text(container, "terminationMessagePolicy")
    if not policy:
        errs.append(FieldError.required(f"{path}.terminationMessagePolicy", ""))
    elif policy not in TERMINATION_MESSAGE_POLICIES:
        errs.append(
            FieldError.not_supported(f"{path}.terminationMessagePolicy", policy, list(TERMINATION_MESSAGE_POLICIES))
        )
    errs.extend(container_ports(items(container, "ports"), f"{path}.ports"))
    errs.extend(env(items(container, "env"), f"{path}.env"))
    errs.extend(env_from(items(container, "envFrom"), f"{path}.envFrom"))
    errs.extend(volume_mounts(container, ctx.volumes, f"{path}.volumeMounts"))
    errs.extend(volume_devices(container, ctx.volumes, f"{path}.volumeDevices"))
    errs.extend(pull_policy(text(container, "imagePullPolicy"), f"{path}.imagePullPolicy"))
    errs.extend(requirements(mapping(container, "resources"), ctx.claim_names, f"{path}.resources"))
    errs.extend(_resize_policy(items(container, "resizePolicy"), f"{path}.resizePolicy", ctx.restart_policy))
    errs.extend(security_context(container.get("securityContext"), f"{path}.securityContext", ctx.host_users))
    return errs


def _host_port_conflicts(containers: list[dict[str, Any]], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for index, container in enumerate(containers):
        for port_index, port in enumerate(items(container, "ports")):
            host_port = integer(port, "hostPort") or 0
            if not host_port:
                continue
            key = f"{text(port, 'protocol')}/{text(port, 'hostIP')}/{host_port}"
            if key in seen:
                errs.append(FieldError.duplicate(f"{path}[{index}].ports[{port_index}].hostPort", key))
            seen.add(key)
    return errs


def containers(regular: list[dict[str, Any]], ctx: PodContext, path: str) -> list[FieldError]:
    """validateContainers."""
    if not regular:
        return [FieldError.required(path, "")]
    errs: list[FieldError] = []
    names: set[str] = set()
    for index, container in enumerate(regular):
        item_path = f"{path}[{index}]"
        errs.extend(container_common(container, ctx, item_path))
        name = text(container, "name")
        if name in names:
            errs.append(FieldError.duplicate(f"{item_path}.name", name))
        names.add(name)
        if present(container, "lifecycle"):
            errs.extend(lifecycle(container, ctx.grace_period, f"{item_path}.lifecycle"))
        for key in ("livenessProbe", "readinessProbe", "startupProbe"):
            errs.extend(probe(container, key, ctx.grace_period, f"{item_path}.{key}"))
        if present(container, "restartPolicy"):
            errs.append(FieldError.forbidden(f"{item_path}.restartPolicy", "may not be set for non-init containers"))
    errs.extend(_host_port_conflicts(regular, path))
    return errs


def init_containers(
    init: list[dict[str, Any]], regular: list[dict[str, Any]], ctx: PodContext, path: str
) -> list[FieldError]:
    """validateInitContainers."""
    errs: list[FieldError] = []
    names = {text(c, "name") for c in regular}
    for index, container in enumerate(init):
        item_path = f"{path}[{index}]"
        errs.extend(container_common(container, ctx, item_path))
        restart = container.get("restartPolicy")
        always = restart == "Always"
        if isinstance(restart, str) and restart != "Always":
            errs.append(FieldError.not_supported(f"{item_path}.restartPolicy", restart, ["Always"]))
        name = text(container, "name")
        if name in names:
            errs.append(FieldError.duplicate(f"{item_path}.name", name))
        elif name:
            names.add(name)
        errs.extend(_host_port_conflicts([container], path))
        if always:
            if present(container, "lifecycle"):
                errs.extend(lifecycle(container, ctx.grace_period, f"{item_path}.lifecycle"))
            for key in ("livenessProbe", "readinessProbe", "startupProbe"):
                errs.extend(probe(container, key, ctx.grace_period, f"{item_path}.{key}"))
        else:
            for key in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if present(container, key):
                    errs.append(
                        FieldError.forbidden(
                            f"{item_path}.{key}", "may not be set for init containers without restartPolicy=Always"
                        )
                    )
    return errs


def image_whitespace(container: dict[str, Any], path: str) -> list[FieldError]:
    """validateContainerOnlyForPod."""
    image = text(container, "image")
    if image != image.strip():
        return [FieldError.invalid(f"{path}.image", image, "must not have leading or trailing whitespace")]
    return []


def ephemeral_containers(
    ephemeral: list[dict[str, Any]],
    regular: list[dict[str, Any]],
    init: list[dict[str, Any]],
    ctx: PodContext,
    path: str,
) -> list[FieldError]:
    """validateEphemeralContainers."""
    errs: list[FieldError] = []
    others = {text(c, "name") for c in regular} | {text(c, "name") for c in init}
    names = set(others)
    for index, container in enumerate(ephemeral):
        item_path = f"{path}[{index}]"
        errs.extend(container_common(container, ctx, item_path))
        errs.extend(image_whitespace(container, item_path))
        name = text(container, "name")
        if name in names:
            errs.append(FieldError.duplicate(f"{item_path}.name", name))
        else:
            names.add(name)
        target = text(container, "targetContainerName")
        if target and target not in others:
            errs.append(FieldError.not_found(f"{item_path}.targetContainerName", target))
        for key in _EPHEMERAL_FORBIDDEN:
            if container.get(key) not in (None, {}, []):
                errs.append(FieldError.forbidden(f"{item_path}.{key}", "cannot be set for an Ephemeral Container"))
        for mount_index, mount in enumerate(items(container, "volumeMounts")):
            for key in ("subPath", "subPathExpr"):
                if text(mount, key):
                    errs.append(
                        FieldError.forbidden(
                            f"{item_path}.volumeMounts[{mount_index}].{key}", "cannot be set for an Ephemeral Container"
                        )
                    )
    return errs
