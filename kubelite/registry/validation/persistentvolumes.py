"""PersistentVolumes and PersistentVolumeClaims (kube's ValidatePersistentVolume*, ValidatePersistentVolumeClaim*):
access modes, capacity and storage requests, reclaim policy, exactly one volume source, volume mode, and the
update rules (a volume's source and a claim's spec are fixed once created).
"""

from __future__ import annotations

import json
import posixpath
from typing import Any, Final

from kubelite.apimachinery.validation import FieldError, is_dns1123_label, is_dns1123_subdomain, validate_annotations
from kubelite.apimachinery.validation import validate_labels as labels_check
from kubelite.registry.validation import badvalues
from kubelite.registry.validation.common import (
    dns1123_label,
    dns1123_subdomain,
    immutable,
    label_selector,
    mapping,
    maybe_mapping,
    normalized,
    present,
    semantic_equal,
    strings,
    text,
)
from kubelite.registry.validation.resources import (
    basic_resource,
    positive_quantity,
    quantity,
    quantity_value,
)

ACCESS_MODES: Final = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
RECLAIM_POLICIES: Final = ("Delete", "Recycle", "Retain")
VOLUME_MODES: Final = ("Block", "Filesystem")
HOST_PATH_TYPES: Final = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)


def access_modes(modes: list[str], path: str, required_detail: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if not modes:
        errs.append(FieldError.required(path, required_detail))
    once_pod = others = False
    for mode in modes:
        if mode not in ACCESS_MODES:
            errs.append(FieldError.not_supported(path, mode, list(ACCESS_MODES)))
        if mode == "ReadWriteOncePod":
            once_pod = True
        elif mode in ACCESS_MODES:
            others = True
    if once_pod and others:
        errs.append(FieldError.forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errs


def _class_name(value: str, path: str) -> list[FieldError]:
    return [FieldError.invalid(path, value, msg) for msg in is_dns1123_subdomain(value)]


def _data_source(source: dict[str, Any], path: str, with_namespace: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    if not text(source, "name"):
        errs.append(FieldError.required(f"{path}.name", ""))
    kind = text(source, "kind")
    if not kind:
        errs.append(FieldError.required(f"{path}.kind", ""))
    group = text(source, "apiGroup")
    if not group and kind != "PersistentVolumeClaim":
        errs.append(
            FieldError.invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup")
        )
    if group:
        errs.extend(FieldError.invalid(f"{path}.apiGroup", group, msg) for msg in is_dns1123_subdomain(group))
    namespace = text(source, "namespace")
    if with_namespace and namespace:
        errs.extend(FieldError.invalid(f"{path}.namespace", namespace, msg) for msg in is_dns1123_label(namespace))
    return errs


def claim_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    """ValidatePersistentVolumeClaimSpec."""
    errs = access_modes(strings(spec, "accessModes"), f"{path}.accessModes", "at least 1 access mode is required")
    # the required-mode error comes first, the selector's before the per-mode ones
    if errs and errs[0].type == "Required value":
        head, rest = errs[:1], errs[1:]
    else:
        head, rest = [], errs
    errs = head + label_selector(spec.get("selector"), f"{path}.selector") + rest
    storage_path = f"{path}.resources[storage]"
    requests = mapping(mapping(spec, "resources"), "requests")
    if "storage" not in requests:
        errs.append(FieldError.required(storage_path, ""))
    else:
        storage = quantity(requests["storage"])
        positive = positive_quantity(storage, storage_path)
        errs.extend(positive or quantity_value("storage", storage, storage_path))
    class_name = spec.get("storageClassName")
    if isinstance(class_name, str) and class_name:
        errs.extend(_class_name(class_name, f"{path}.storageClassName"))
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", mode, list(VOLUME_MODES)))
    source, source_ref = maybe_mapping(spec, "dataSource"), maybe_mapping(spec, "dataSourceRef")
    if source is not None:
        errs.extend(_data_source(source, f"{path}.dataSource", False))
    if source_ref is not None:
        errs.extend(_data_source(source_ref, f"{path}.dataSourceRef", True))
    if source_ref is not None and text(source_ref, "namespace"):
        if source is not None:
            errs.append(
                FieldError.invalid(
                    path, f"{path}.dataSource", "may not be specified when dataSourceRef.namespace is specified"
                )
            )
    elif source is not None and source_ref is not None:
        same = all(text(source, k) == text(source_ref, k) for k in ("apiGroup", "kind", "name"))
        if not same:
            errs.append(FieldError.invalid(path, f"{path}.dataSource", "must match dataSourceRef"))
    attributes_class = spec.get("volumeAttributesClassName")
    if isinstance(attributes_class, str) and attributes_class:
        errs.extend(_class_name(attributes_class, f"{path}.volumeAttributesClassName"))
    return errs


_TEMPLATE_META_ALLOWED: Final = frozenset({"labels", "annotations"})


def template_object_meta(meta: dict[str, Any], path: str) -> list[FieldError]:
    """ValidateTemplateObjectMeta: only labels and annotations may be set."""
    errs = validate_annotations(meta.get("annotations"), f"{path}.annotations")
    errs.extend(labels_check(meta.get("labels"), f"{path}.labels"))
    for key, value in meta.items():
        if key not in _TEMPLATE_META_ALLOWED and value not in (None, "", [], {}, 0):
            errs.append(FieldError.forbidden(f"{path}.{key}", "cannot be set"))
    return errs


def claim_template(template: dict[str, Any], path: str) -> list[FieldError]:
    errs = template_object_meta(mapping(template, "metadata"), f"{path}.metadata")
    errs.extend(claim_spec(mapping(template, "spec"), f"{path}.spec"))
    return errs


def validate_claim(claim: dict[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeClaim after the metadata."""
    return claim_spec(mapping(claim, "spec"), "spec")


def _spec_diff(old: Any, new: Any) -> str:
    # kube appends a cmp.Diff of the Go structs; a JSON rendering of both sides stands in for it
    return (
        "  {\n- "
        + json.dumps(normalized(old), sort_keys=True)
        + "\n+ "
        + json.dumps(normalized(new), sort_keys=True)
        + "\n  }\n"
    )


def validate_claim_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """ValidatePersistentVolumeClaimUpdate after the metadata."""
    errs = validate_claim(new)
    new_spec, old_spec = dict(mapping(new, "spec")), dict(mapping(old, "spec"))
    if not text(old_spec, "volumeName"):
        old_spec["volumeName"] = new_spec.get("volumeName")
    old_annotations = mapping(mapping(old, "metadata"), "annotations")
    beta_class = "volume.beta.kubernetes.io/storage-class"
    if old_spec.get("storageClassName") is None and new_spec.get("storageClassName") is not None:
        # a class may be set once, from nothing or from the beta annotation
        if beta_class not in old_annotations or new_spec["storageClassName"] == old_annotations[beta_class]:
            old_spec["storageClassName"] = new_spec["storageClassName"]
    bound = text(mapping(new, "status"), "phase") == "Bound"
    if bound:
        new_requests = dict(mapping(mapping(new_spec, "resources"), "requests"))
        old_storage = mapping(mapping(old_spec, "resources"), "requests").get("storage")
        if new_requests:
            new_requests["storage"] = old_storage
            new_spec["resources"] = {**mapping(new_spec, "resources"), "requests": new_requests}
        if new_spec.get("volumeAttributesClassName") is not None:
            new_spec["volumeAttributesClassName"] = old_spec.get("volumeAttributesClassName")
    if not semantic_equal(new_spec, old_spec):
        errs.append(
            FieldError.forbidden(
                "spec",
                "spec is immutable after creation except resources.requests and volumeAttributesClassName for "
                "bound claims\n" + _spec_diff(old_spec, new_spec),
            )
        )
    new_size = quantity(mapping(mapping(mapping(new, "spec"), "resources"), "requests").get("storage", 0))
    old_size = quantity(mapping(mapping(mapping(old, "spec"), "resources"), "requests").get("storage", 0))
    status_size = quantity(mapping(mapping(old, "status"), "capacity").get("storage", 0))
    if new_size < old_size and new_size <= status_size:
        errs.append(
            FieldError.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity")
        )
    errs.extend(immutable(mapping(new, "spec").get("volumeMode"), mapping(old, "spec").get("volumeMode"), "volumeMode"))
    return errs


# -- persistent volumes ------------------------------------------------------------------------------

#: a volume's sources in kube's order, with the fields each requires
PV_SOURCES: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("hostPath", ("path",)),
    ("gcePersistentDisk", ("pdName",)),
    ("awsElasticBlockStore", ("volumeID",)),
    ("glusterfs", ("endpoints", "path")),
    ("flocker", ()),
    ("nfs", ("server", "path")),
    ("rbd", ("monitors", "image")),
    ("quobyte", ("volume",)),
    ("cephfs", ("monitors",)),
    ("iscsi", ("targetPortal", "iqn")),
    ("cinder", ("volumeID",)),
    ("fc", ()),
    ("flexVolume", ("driver",)),
    ("azureFile", ("secretName", "shareName")),
    ("vsphereVolume", ("volumePath",)),
    ("photonPersistentDisk", ("pdID",)),
    ("portworxVolume", ("volumeID",)),
    ("azureDisk", ("diskName", "diskURI")),
    ("scaleIO", ("gateway", "system", "volumeName")),
    ("local", ("path",)),
    ("storageos", ("volumeName",)),
    ("csi", ("driver", "volumeHandle")),
)


def _pv_source(key: str, source: dict[str, Any], path: str, required: tuple[str, ...]) -> list[FieldError]:
    errs: list[FieldError] = []
    for name in required:
        if not source.get(name):
            errs.append(FieldError.required(f"{path}.{name}", ""))
            if key in ("hostPath", "local") and name == "path":
                return errs
    if key == "nfs" and not posixpath.isabs(text(source, "path")):
        errs.append(FieldError.invalid(f"{path}.path", text(source, "path"), "must be an absolute path"))
    if key == "hostPath":
        host_type = source.get("type")
        if isinstance(host_type, str) and host_type not in HOST_PATH_TYPES:
            errs.append(FieldError.not_supported(f"{path}.type", host_type, list(HOST_PATH_TYPES)))
    if key in ("hostPath", "local") and ".." in text(source, "path").split("/"):
        errs.append(FieldError.invalid(f"{path}.path", text(source, "path"), "must not contain '..'"))
    if key == "csi":
        driver = text(source, "driver")
        if len(driver) > 63:
            errs.append(FieldError.too_long(f"{path}.driver", "", 63))
        if driver:
            errs.extend(
                FieldError.invalid(f"{path}.driver", driver, msg) for msg in is_dns1123_subdomain(driver.lower())
            )
    return errs


def pv_spec(spec: dict[str, Any], name: str, path: str = "spec") -> list[FieldError]:
    """ValidatePersistentVolumeSpec for a stand-alone volume."""
    errs = access_modes(strings(spec, "accessModes"), f"{path}.accessModes", "")
    capacity = mapping(spec, "capacity")
    if not capacity:
        errs.append(FieldError.required(f"{path}.capacity", ""))
    if "storage" not in capacity or len(capacity) > 1:
        shown = badvalues.string_map({k: str(quantity(v)) for k, v in capacity.items()})
        errs.append(FieldError.not_supported(f"{path}.capacity", shown, ["storage"]))
    for resource, raw in capacity.items():
        value = quantity(raw)
        errs.extend(basic_resource(value, f"{path}.capacity[{resource}]"))
        errs.extend(positive_quantity(value, f"{path}.capacity[{resource}]"))
    policy = text(spec, "persistentVolumeReclaimPolicy")
    if policy and policy not in RECLAIM_POLICIES:
        errs.append(FieldError.not_supported(f"{path}.persistentVolumeReclaimPolicy", policy, list(RECLAIM_POLICIES)))
    affinity = maybe_mapping(spec, "nodeAffinity")
    if affinity is not None and not present(affinity, "required"):
        errs.append(FieldError.required(f"{path}.nodeAffinity.required", "must specify required node constraints"))
    count = 0
    for key, required in PV_SOURCES:
        source = maybe_mapping(spec, key)
        if source is None:
            continue
        if count > 0 and key != "flexVolume":
            errs.append(FieldError.forbidden(f"{path}.{key}", "may not specify more than 1 volume type"))
            continue
        count += 1
        child = {"gcePersistentDisk": "persistentDisk"}.get(key, key)
        errs.extend(_pv_source(key, source, f"{path}.{child}", required))
        if key == "local" and affinity is None:
            errs.append(FieldError.required(f"{path}.nodeAffinity", "Local volume requires node affinity"))
    if count == 0:
        errs.append(FieldError.required(path, "must specify a volume type"))
    host_path = maybe_mapping(spec, "hostPath")
    if host_path is not None and posixpath.normpath(text(host_path, "path") or ".") == "/" and policy == "Recycle":
        errs.append(
            FieldError.forbidden(
                f"{path}.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"
            )
        )
    class_name = text(spec, "storageClassName")
    if class_name:
        errs.extend(_class_name(class_name, f"{path}.storageClassName"))
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in VOLUME_MODES:
        errs.append(FieldError.not_supported(f"{path}.volumeMode", mode, list(VOLUME_MODES)))
    return errs


def validate_volume(volume: dict[str, Any]) -> list[FieldError]:
    name = text(mapping(volume, "metadata"), "name")
    return pv_spec(mapping(volume, "spec"), name)


def validate_volume_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errs = validate_volume(new)
    new_spec, old_spec = mapping(new, "spec"), mapping(old, "spec")
    sources = [key for key, _ in PV_SOURCES]
    new_source = {k: new_spec.get(k) for k in sources if new_spec.get(k) is not None}
    old_source = {k: old_spec.get(k) for k in sources if old_spec.get(k) is not None}
    if not semantic_equal(new_source, old_source):
        errs.append(
            FieldError.forbidden(
                "spec.persistentvolumesource",
                "spec.persistentvolumesource is immutable after creation\n" + _spec_diff(old_source, new_source),
            )
        )
    errs.extend(immutable(new_spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode"))
    old_affinity = old_spec.get("nodeAffinity")
    if old_affinity is not None and not semantic_equal(new_spec.get("nodeAffinity"), old_affinity):
        errs.append(
            FieldError.invalid(
                "nodeAffinity",
                badvalues.pointer(new_spec.get("nodeAffinity")),
                "field is immutable, except for updating from beta label to GA",
            )
        )
    return errs


def secret_reference(ref: dict[str, Any], path: str) -> list[FieldError]:
    """validatePVSecretReference."""
    errs: list[FieldError] = []
    name, namespace = text(ref, "name"), text(ref, "namespace")
    errs.extend([FieldError.required(f"{path}.name", "")] if not name else dns1123_subdomain(name, f"{path}.name"))
    errs.extend(
        [FieldError.required(f"{path}.namespace", "")]
        if not namespace
        else dns1123_label(namespace, f"{path}.namespace")
    )
    return errs


__all__ = [
    "ACCESS_MODES",
    "claim_spec",
    "claim_template",
    "pv_spec",
    "validate_claim",
    "validate_claim_update",
    "validate_volume",
    "validate_volume_update",
]
