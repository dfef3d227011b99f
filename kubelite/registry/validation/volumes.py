"""Pod volumes (kube's ValidateVolumes and validateVolumeSource): unique DNS-label names, exactly one source
per volume, and each source's own rules (secrets, config maps, projections, host paths, claims, CSI,
ephemeral claims, images, and the required fields of the in-tree plugins).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from kubelite.apimachinery.validation import FieldError, is_dns1123_subdomain
from kubelite.registry.validation.common import (
    dns1123_label,
    integer,
    items,
    mapping,
    maybe_mapping,
    present,
    strings,
    text,
)
from kubelite.registry.validation.paths import (
    VOLUME_FIELD_PATHS,
    file_mode,
    local_descending_path,
    local_non_reserved_path,
    no_backsteps,
    object_field_selector,
    resource_field_selector,
)
from kubelite.registry.validation.persistentvolumes import HOST_PATH_TYPES, claim_template
from kubelite.registry.validation.resources import quantity

PULL_POLICIES: Final = ("Always", "IfNotPresent", "Never")


@dataclass(frozen=True, slots=True)
class Context:
    """What a volume source's rules may depend on: the volume and pod names, whether this is a Pod."""

    volume_name: str
    pod_name: str
    resource_is_pod: bool


Check = Callable[[dict[str, Any], str, Context], list[FieldError]]


def _required(*names: str) -> Check:
    def check(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
        return [FieldError.required(f"{path}.{name}", "") for name in names if not source.get(name)]

    return check


def _empty_dir(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    limit = source.get("sizeLimit")
    if limit is not None and quantity(limit).sign() < 0:
        return [FieldError.forbidden(f"{path}.sizeLimit", "SizeLimit field must be a valid resource quantity")]
    return []


def host_path_source(source: dict[str, Any], path: str, ctx: Context | None = None) -> list[FieldError]:
    target = text(source, "path")
    if not target:
        return [FieldError.required(f"{path}.path", "")]
    errs = no_backsteps(target, f"{path}.path")
    host_type = source.get("type")
    if isinstance(host_type, str) and host_type not in HOST_PATH_TYPES:
        errs.append(FieldError.not_supported(f"{path}.type", host_type, list(HOST_PATH_TYPES)))
    return errs


def _git_repo(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs = [FieldError.required(f"{path}.repository", "")] if not text(source, "repository") else []
    errs.extend(local_descending_path(text(source, "directory"), f"{path}.directory"))
    return errs


def _partition_disk(id_field: str) -> Check:
    def check(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
        errs = [FieldError.required(f"{path}.{id_field}", "")] if not text(source, id_field) else []
        partition = integer(source, "partition") or 0
        if not 0 <= partition <= 255:
            errs.append(FieldError.invalid(f"{path}.partition", partition, "must be between 1 and 255, inclusive"))
        return errs

    return check


def key_to_path(item: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not text(item, "key"):
        errs.append(FieldError.required(f"{path}.key", ""))
    if not text(item, "path"):
        errs.append(FieldError.required(f"{path}.path", ""))
    errs.extend(local_non_reserved_path(text(item, "path"), f"{path}.path"))
    errs.extend(file_mode(item.get("mode"), f"{path}.mode"))
    return errs


def _named_items(name_field: str) -> Check:
    def check(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
        errs = [FieldError.required(f"{path}.{name_field}", "")] if not text(source, name_field) else []
        errs.extend(file_mode(source.get("defaultMode"), f"{path}.defaultMode"))
        for index, item in enumerate(items(source, "items")):
            errs.extend(key_to_path(item, f"{path}.items[{index}]"))
        return errs

    return check


def _nfs(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs = _required("server", "path")(source, path, ctx)
    if not text(source, "path").startswith("/"):
        errs.append(FieldError.invalid(f"{path}.path", text(source, "path"), "must be an absolute path"))
    return errs


def _iscsi(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs = [FieldError.required(f"{path}.targetPortal", "")] if not text(source, "targetPortal") else []
    iqn = text(source, "iqn")
    if not iqn:
        errs.append(FieldError.required(f"{path}.iqn", ""))
    elif not iqn.startswith(("iqn", "eui", "naa")):
        errs.append(FieldError.invalid(f"{path}.iqn", iqn, "must be valid format starting with iqn, eui, or naa"))
    lun = integer(source, "lun") or 0
    if not 0 <= lun <= 255:
        errs.append(FieldError.invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
    chap = source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True
    if chap and not present(source, "secretRef"):
        errs.append(FieldError.required(f"{path}.secretRef", ""))
    return errs


def _flocker(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    name, uuid = text(source, "datasetName"), text(source, "datasetUUID")
    errs: list[FieldError] = []
    if not name and not uuid:
        errs.append(FieldError.required(path, "one of datasetName and datasetUUID is required"))
    if name and uuid:
        errs.append(
            FieldError.invalid(path, "resource", "datasetName and datasetUUID can not be specified simultaneously")
        )
    if "/" in name:
        errs.append(FieldError.invalid(f"{path}.datasetName", name, "must not contain '/'"))
    return errs


def _downward_file(item: dict[str, Any], path: str) -> list[FieldError]:
    errs = [FieldError.required(f"{path}.path", "")] if not text(item, "path") else []
    errs.extend(local_non_reserved_path(text(item, "path"), f"{path}.path"))
    field_ref, resource_ref = maybe_mapping(item, "fieldRef"), maybe_mapping(item, "resourceFieldRef")
    if field_ref is not None:
        errs.extend(object_field_selector(field_ref, VOLUME_FIELD_PATHS, f"{path}.fieldRef"))
        if resource_ref is not None:
            errs.append(
                FieldError.invalid(
                    path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"
                )
            )
    elif resource_ref is not None:
        errs.extend(resource_field_selector(resource_ref, f"{path}.resourceFieldRef", True))
    else:
        errs.append(FieldError.required(path, "one of fieldRef and resourceFieldRef is required"))
    errs.extend(file_mode(item.get("mode"), f"{path}.mode"))
    return errs


def _downward_api(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs = file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    for item in items(source, "items"):
        # kube checks each file against the volume's own path, not an indexed one
        errs.extend(_downward_file(item, path))
    return errs


def _fc(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    wwns, wwids = strings(source, "targetWWNs"), strings(source, "wwids")
    errs: list[FieldError] = []
    if not wwns and not wwids:
        errs.append(FieldError.required(f"{path}.targetWWNs", "must specify either targetWWNs or wwids, but not both"))
    if wwns and wwids:
        errs.append(
            FieldError.invalid(f"{path}.targetWWNs", wwns, "targetWWNs and wwids can not be specified simultaneously")
        )
    if wwns:
        lun = integer(source, "lun")
        if lun is None:
            errs.append(FieldError.required(f"{path}.lun", "lun is required if targetWWNs is specified"))
        elif not 0 <= lun <= 255:
            errs.append(FieldError.invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
    return errs


def _projected(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs = file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    seen: set[str] = set()

    def claim_path(target: str, shown: Any) -> None:
        if target in seen:
            errs.append(FieldError.invalid(path, shown, "conflicting duplicate paths"))
        seen.add(target)

    for index, entry in enumerate(items(source, "sources")):
        entry_path = f"{path}.sources[{index}]"
        count = 0
        for key in ("secret", "configMap"):
            projection = maybe_mapping(entry, key)
            if projection is None:
                continue
            count += 1
            if not text(projection, "name"):
                errs.append(FieldError.required(f"{entry_path}.{key}.name", ""))
            for item_index, item in enumerate(items(projection, "items")):
                errs.extend(key_to_path(item, f"{entry_path}.{key}.items[{item_index}]"))
                if text(item, "path"):
                    claim_path(text(item, "path"), text(projection, "name"))
        downward = maybe_mapping(entry, "downwardAPI")
        if downward is not None:
            count += 1
            for item in items(downward, "items"):
                errs.extend(_downward_file(item, f"{entry_path}.downwardAPI"))
                if text(item, "path"):
                    claim_path(text(item, "path"), text(item, "path"))
        token = maybe_mapping(entry, "serviceAccountToken")
        if token is not None:
            count += 1
            token_path = f"{entry_path}.serviceAccountToken"
            expiration = integer(token, "expirationSeconds") or 0
            if expiration < 600:
                errs.append(
                    FieldError.invalid(
                        f"{token_path}.expirationSeconds", expiration, "may not specify a duration less than 10 minutes"
                    )
                )
            if expiration > 1 << 32:
                errs.append(
                    FieldError.invalid(
                        f"{token_path}.expirationSeconds",
                        expiration,
                        "may not specify a duration larger than 2^32 seconds",
                    )
                )
            if not text(token, "path"):
                errs.append(FieldError.required(f"{path}.path", ""))
            else:
                errs.extend(local_non_reserved_path(text(token, "path"), f"{path}.path"))
        bundle = maybe_mapping(entry, "clusterTrustBundle")
        if bundle is not None:
            count += 1
            bundle_path = f"{entry_path}.clusterTrustBundle"
            if not text(bundle, "path"):
                errs.append(FieldError.required(f"{bundle_path}.path", ""))
            errs.extend(local_non_reserved_path(text(bundle, "path"), f"{bundle_path}.path"))
            claim_path(text(bundle, "path"), text(bundle, "path"))
        if count > 1:
            errs.append(FieldError.forbidden(entry_path, "may not specify more than 1 volume type per source"))
    return errs


def _csi(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    driver = text(source, "driver")
    driver_path = f"{path}.driver"
    errs = [FieldError.required(driver_path, "")] if not driver else []
    if len(driver) > 63:
        errs.append(FieldError.too_long(driver_path, "", 63))
    errs.extend(FieldError.invalid(driver_path, driver, msg) for msg in is_dns1123_subdomain(driver.lower()))
    secret = maybe_mapping(source, "nodePublishSecretRef")
    if secret is not None:
        name = text(secret, "name")
        if not name:
            errs.append(FieldError.required(f"{path}.nodePublishSecretRef.name", ""))
        else:
            errs.extend(FieldError.invalid(f"{path}.name", name, msg) for msg in is_dns1123_subdomain(name))
    return errs


def _ephemeral(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    template = maybe_mapping(source, "volumeClaimTemplate")
    if template is None:
        return [FieldError.required(f"{path}.volumeClaimTemplate", "")]
    errs = claim_template(template, f"{path}.volumeClaimTemplate")
    if ctx.pod_name and ctx.volume_name:
        claim_name = f"{ctx.pod_name}-{ctx.volume_name}"
        name_path = path.rsplit(".", 1)[0] + ".name"
        errs.extend(
            FieldError.invalid(name_path, ctx.volume_name, f'PVC name "{claim_name}": {msg}')
            for msg in is_dns1123_subdomain(claim_name)
        )
    return errs


def pull_policy(policy: str, path: str) -> list[FieldError]:
    if policy in PULL_POLICIES:
        return []
    if not policy:
        return [FieldError.required(path, "")]
    return [FieldError.not_supported(path, policy, list(PULL_POLICIES))]


def _image(source: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    errs: list[FieldError] = []
    if ctx.resource_is_pod and not text(source, "reference"):
        errs.append(FieldError.required(f"{path}.reference", ""))
    errs.extend(pull_policy(text(source, "pullPolicy"), f"{path}.pullPolicy"))
    return errs


#: (JSON key, path kube's "more than 1" error names, path its own checks use, the checks), in kube's order
SOURCES: Final[tuple[tuple[str, str, str, Check], ...]] = (
    ("emptyDir", "emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", "hostPath", host_path_source),
    ("gitRepo", "gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", _partition_disk("pdName")),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", _partition_disk("volumeID")),
    ("secret", "secret", "secret", _named_items("secretName")),
    ("nfs", "nfs", "nfs", _nfs),
    ("iscsi", "iscsi", "iscsi", _iscsi),
    ("glusterfs", "glusterfs", "glusterfs", _required("endpoints", "path")),
    ("flocker", "flocker", "flocker", _flocker),
    ("persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim", _required("claimName")),
    ("rbd", "rbd", "rbd", _required("monitors", "image")),
    ("cinder", "cinder", "cinder", _required("volumeID")),
    ("cephfs", "cephFS", "cephfs", _required("monitors")),
    ("quobyte", "quobyte", "quobyte", _required("volume")),
    ("downwardAPI", "downwarAPI", "downwardAPI", _downward_api),
    ("fc", "fc", "fc", _fc),
    ("flexVolume", "flexVolume", "flexVolume", _required("driver")),
    ("configMap", "configMap", "configMap", _named_items("name")),
    ("azureFile", "azureFile", "azureFile", _required("secretName", "shareName")),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", _required("volumePath")),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", _required("pdID")),
    ("portworxVolume", "portworxVolume", "portworxVolume", _required("volumeID")),
    ("azureDisk", "azureDisk", "azureDisk", _required("diskName", "diskURI")),
    ("storageos", "storageos", "storageos", _required("volumeName")),
    ("projected", "projected", "projected", _projected),
    ("scaleIO", "scaleIO", "scaleIO", _required("gateway", "system", "volumeName")),
    ("csi", "csi", "csi", _csi),
    ("ephemeral", "ephemeral", "ephemeral", _ephemeral),
    ("image", "image", "image", _image),
)


def volume_source(volume: dict[str, Any], path: str, ctx: Context) -> list[FieldError]:
    """validateVolumeSource: the first source is checked, any further one is Forbidden."""
    errs: list[FieldError] = []
    count = 0
    for key, forbidden_name, own_name, check in SOURCES:
        source = maybe_mapping(volume, key)
        if source is None:
            continue
        if count > 0:
            errs.append(FieldError.forbidden(f"{path}.{forbidden_name}", "may not specify more than 1 volume type"))
            continue
        count += 1
        errs.extend(check(source, f"{path}.{own_name}", ctx))
    if count == 0:
        errs.append(FieldError.required(path, "must specify a volume type"))
    return errs


def validate_volumes(
    volumes: list[dict[str, Any]], pod_name: str, path: str, resource_is_pod: bool
) -> tuple[dict[str, dict[str, Any]], list[FieldError]]:
    """ValidateVolumes: the volumes that passed, by name, and the errors."""
    errs: list[FieldError] = []
    valid: dict[str, dict[str, Any]] = {}
    created_claims = {f"{pod_name}-{text(v, 'name')}" for v in volumes if pod_name and present(v, "ephemeral")}
    for index, volume in enumerate(volumes):
        item_path = f"{path}[{index}]"
        name = text(volume, "name")
        found = volume_source(volume, item_path, Context(name, pod_name, resource_is_pod))
        if not name:
            found.append(FieldError.required(f"{item_path}.name", ""))
        else:
            found.extend(dns1123_label(name, f"{item_path}.name"))
        if name in valid:
            found.append(FieldError.duplicate(f"{item_path}.name", name))
        if found:
            errs.extend(found)
        else:
            valid[name] = volume
        claim = text(mapping(volume, "persistentVolumeClaim"), "claimName")
        if present(volume, "persistentVolumeClaim") and claim in created_claims:
            errs.append(
                FieldError.invalid(
                    f"{item_path}.persistentVolumeClaim.claimName",
                    claim,
                    "must not reference a PVC that gets created for an ephemeral volume",
                )
            )
    return valid, errs
