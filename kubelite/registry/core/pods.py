"""Pods: kube's defaults, their validation, the fields selectors may use, graceful deletion once scheduled,
and the storage of pods and pods/status (pods/binding's strategy too; its handler and pods/log's are the
route installer's).

`default_pod_spec` is SetDefaults_PodSpec with every nested default kube applies inside a pod spec
(containers, probes, handlers, ports, volumes, downward API fields, claim templates); workloads use it for
their templates. `default_pod` adds what kube defaults only on a Pod (requests from limits, service links,
host ports under host networking).
"""

from __future__ import annotations

import re
from typing import Any, Final

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.core.persistentvolumeclaims import default_claim_spec
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.pods import POD_TABLE
from kubelite.registry.validation.pods import validate_pod_create, validate_pod_update
from kubelite.registry.validation.quantities import decode_quantities
from kubelite.registry.validation.resources import quantity

DEFAULT_GRACE_SECONDS = 30
_FILE_MODE: Final = 0o644  # what kube writes as `defaultMode: 420`
_TOKEN_SECONDS: Final = 3600

# the image reference grammar of github.com/distribution/reference
_DOMAIN_COMPONENT: Final = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN: Final = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_PATH_COMPONENT: Final = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_REFERENCE: Final = re.compile(
    rf"(?P<name>(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?"
)
_HEX64: Final = re.compile(r"[a-f0-9]{64}")


def image_tag(image: str) -> str:
    """The tag kube's ParseImageName reads from an image: `latest` when there is neither tag nor digest,
    "" for a digest only or for a reference that does not parse."""
    if not image or _HEX64.fullmatch(image):
        return ""
    slash = image.find("/")
    head = image[:slash]
    has_domain = slash >= 0 and (any(ch in head for ch in ".:") or head == "localhost" or head.lower() != head)
    remainder = image[slash + 1 :] if has_domain else image
    if remainder.lower() != remainder:
        return ""  # distribution/reference: "repository name must be lowercase"
    match = _REFERENCE.fullmatch(image if has_domain else f"docker.io/{image}")
    if match is None or len(match.group("name")) > 255:
        return ""
    tag, digest = match.group("tag"), match.group("digest")
    if tag:
        return tag
    return "" if digest else "latest"


def image_pull_policy(image: str) -> str:
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


# -- defaults ------------------------------------------------------------------------------------------


def _dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a list field; anything else reads as no entries (decoding refuses wrong types)."""
    return [entry for entry in value if isinstance(entry, dict)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _default_http_get(handler: Any) -> None:
    action = handler.get("httpGet") if isinstance(handler, dict) else None
    if isinstance(action, dict):
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _default_probe(probe: Any) -> None:
    if not isinstance(probe, dict):
        return
    for key, value in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3)):
        if not probe.get(key):
            probe[key] = value
    _default_http_get(probe)


def _default_field_ref(holder: Any) -> None:
    ref = holder.get("fieldRef") if isinstance(holder, dict) else None
    if isinstance(ref, dict) and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _default_container(container: dict[str, Any]) -> None:
    """SetDefaults_Container and the defaults of what a container holds."""
    if not container.get("imagePullPolicy"):
        container["imagePullPolicy"] = image_pull_policy(str(container.get("image") or ""))
    if not container.get("terminationMessagePath"):
        container["terminationMessagePath"] = "/dev/termination-log"
    if not container.get("terminationMessagePolicy"):
        container["terminationMessagePolicy"] = "File"
    container.setdefault("resources", {})
    for port in _dicts(container.get("ports")):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
    for var in _dicts(container.get("env")):
        if isinstance(var, dict):
            _default_field_ref(var.get("valueFrom"))
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _default_probe(container.get(key))
    lifecycle = container.get("lifecycle")
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            _default_http_get(lifecycle.get(hook))


def _default_volume(volume: dict[str, Any]) -> None:
    """SetDefaults_Volume and the defaults of each volume source."""
    sources = [k for k, v in volume.items() if k != "name" and v is not None]
    if not sources:
        volume["emptyDir"] = {}
    for key in ("secret", "configMap", "downwardAPI", "projected"):
        source = volume.get(key)
        if isinstance(source, dict) and source.get("defaultMode") is None:
            source["defaultMode"] = _FILE_MODE
    host_path = volume.get("hostPath")
    if isinstance(host_path, dict) and host_path.get("type") is None:
        host_path["type"] = ""
    for item in _dicts((_dict(volume.get("downwardAPI")) or {}).get("items")):
        _default_field_ref(item)
    projected = volume.get("projected")
    if isinstance(projected, dict):
        for source in _dicts(projected.get("sources")):
            if not isinstance(source, dict):
                continue
            token = source.get("serviceAccountToken")
            if isinstance(token, dict) and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = _TOKEN_SECONDS
            for item in _dicts((_dict(source.get("downwardAPI")) or {}).get("items")):
                _default_field_ref(item)
    _default_plugin_volumes(volume)
    image = volume.get("image")
    if isinstance(image, dict) and not image.get("pullPolicy"):
        image["pullPolicy"] = image_pull_policy(str(image.get("reference") or ""))
    ephemeral = volume.get("ephemeral")
    template = ephemeral.get("volumeClaimTemplate") if isinstance(ephemeral, dict) else None
    if isinstance(template, dict) and isinstance(template.get("spec"), dict):
        default_claim_spec(template["spec"])


def _default_plugin_volumes(volume: dict[str, Any]) -> None:
    # the declarative defaults of the in-tree volume plugins
    iscsi = volume.get("iscsi")
    if isinstance(iscsi, dict) and not iscsi.get("iscsiInterface"):
        iscsi["iscsiInterface"] = "default"
    rbd = volume.get("rbd")
    if isinstance(rbd, dict):
        for key, value in (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")):
            if not rbd.get(key):
                rbd[key] = value
    azure = volume.get("azureDisk")
    if isinstance(azure, dict):
        for key, default in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared")):
            if azure.get(key) is None:
                azure[key] = default
    scale_io = volume.get("scaleIO")
    if isinstance(scale_io, dict):
        for key, value in (("storageMode", "ThinProvisioned"), ("fsType", "xfs")):
            if not scale_io.get(key):
                scale_io[key] = value


def default_pod_spec(spec: dict[str, Any]) -> None:
    """SetDefaults_PodSpec for a pod or a pod template, with the nested defaults."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = DEFAULT_GRACE_SECONDS
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in _dicts(spec.get(key)):
            if isinstance(container, dict):
                _default_container(container)
    for volume in _dicts(spec.get("volumes")):
        if isinstance(volume, dict):
            _default_volume(volume)


def default_pod(pod: Obj) -> None:
    """SetDefaults_Pod: what only a Pod (not a template) gets."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    for key in ("containers", "initContainers"):
        for container in _dicts(spec.get(key)):
            resources = container.get("resources")
            if not isinstance(resources, dict) or not isinstance(limits := resources.get("limits"), dict):
                continue
            requests = resources.get("requests")
            if not isinstance(requests, dict):
                requests = resources["requests"] = {}
            for name, value in limits.items():
                requests.setdefault(name, value)
    if spec.get("enableServiceLinks") is None:
        spec["enableServiceLinks"] = True
    if spec.get("hostNetwork") is True:
        for key in ("containers", "initContainers"):
            for container in _dicts(spec.get(key)):
                for port in _dicts(container.get("ports")):
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")


class PodStrategy(Strategy):
    tracks_generation = True
    return_deleted_object = True
    compact_in_cache = True
    watch_trigger_field = "spec.nodeName"
    selectable_fields = (
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    )

    def initial_status(self, obj: Obj) -> dict[str, Any] | None:
        return {"phase": "Pending", "qosClass": _qos_class(_dict(obj.get("spec")) or {})}

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        spec = obj.get("spec")
        if isinstance(spec, dict):
            default_pod_spec(spec)
            default_pod(obj)
            # v1's two names of the service account are one field of kube's internal pod: what the client
            # wrote under either name is under both after decoding. With neither given, the ServiceAccount
            # admission plugin names `default` (and priority and preemptionPolicy come from the Priority
            # plugin), so those are not the creator's managed fields, as in kube.
            account = spec.get("serviceAccountName") or spec.get("serviceAccount")
            if account:
                spec["serviceAccountName"] = spec["serviceAccount"] = account

    def canonicalize(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("serviceAccountName"):
            # v1's deprecated mirror of serviceAccountName, which kube's conversion writes on every read
            spec["serviceAccount"] = spec["serviceAccountName"]

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_pod_create(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pod_update(new, old)

    def grace_period(self, obj: Obj, requested: int | None) -> int:
        spec = obj.get("spec") or {}
        phase = (obj.get("status") or {}).get("phase")
        if not spec.get("nodeName") or phase in ("Succeeded", "Failed"):
            return 0  # nothing runs it: nothing to wait for
        if requested is not None:
            return max(requested, 0)
        # an explicit 0 deletes at once, as kube's; only an absent value means the default
        period = spec.get("terminationGracePeriodSeconds")
        return max(int(period), 0) if isinstance(period, int) else DEFAULT_GRACE_SECONDS


def _qos_class(spec: dict[str, Any]) -> str:
    containers = _dicts(spec.get("containers"))
    if not any(
        (_dict(c.get("resources")) or {}).get("requests") or (_dict(c.get("resources")) or {}).get("limits")
        for c in containers
    ):
        return "BestEffort"
    for container in containers:
        resources = _dict(container.get("resources")) or {}
        limits, requests = _dict(resources.get("limits")) or {}, _dict(resources.get("requests")) or {}
        for resource in ("cpu", "memory"):
            if resource not in limits:
                return "Burstable"
            if resource in requests and quantity(requests[resource]).cmp(quantity(limits[resource])) != 0:
                return "Burstable"
    return "Guaranteed"


class PodBindingStrategy(PodStrategy):
    """pods/binding: kube's assignPod writes spec.nodeName without the pod update rules (which forbid it), and the
    PodScheduled condition with it (so the status the binding wrote is kept)."""

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        pass

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []


def new_storage(ctx: StorageContext) -> ResourceStorage:
    """pods and pods/status; pods/binding and pods/log are served by their own handlers."""
    return ctx.with_status(ctx.store(PodStrategy(ctx.spec), table=POD_TABLE))


REGISTRATION = Registration("", "pods", new_storage, PodStrategy)
