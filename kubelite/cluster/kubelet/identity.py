"""Stable fake identifiers for a simulated node and its containers.

A real node has a machine ID, a system UUID and a boot ID; a real container runtime names containers by a
random 64-hex ID and images by their content digest. The simulation derives each from the names it belongs to
(a hash), so the same node, pod or image gets the same identifier in every run and tests can predict them.
Image references are normalised the way containerd reports them (`nginx` -> `docker.io/library/nginx:latest`).
"""

from __future__ import annotations

import hashlib
import uuid

CONTAINER_RUNTIME = "containerd"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def machine_id(node_name: str) -> str:
    """/etc/machine-id's form: 32 lowercase hex digits."""
    return _digest("machine-id", node_name)[:32]


def system_uuid(node_name: str) -> str:
    """The DMI product UUID's form: a UUID, dashed."""
    return str(uuid.UUID(hex=_digest("system-uuid", node_name)[:32]))


def boot_id(node_name: str, boot: int = 0) -> str:
    """/proc/sys/kernel/random/boot_id's form; `boot` counts the node's restarts, each a new boot."""
    return str(uuid.UUID(hex=_digest("boot-id", node_name, str(boot))[:32]))


def container_id(pod_uid: str, container_name: str, attempt: int) -> str:
    """`containerd://<64 hex>`: one ID per run of a container (a restart is a new container)."""
    return f"{CONTAINER_RUNTIME}://{_digest('container', pod_uid, container_name, str(attempt))}"


def normalize_image(image: str) -> str:
    """The fully qualified reference containerd reports for an image name as written in a pod spec."""
    name, _, digest = image.partition("@")
    first, _, rest = name.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        domain, path = first, rest
    else:
        domain, path = "docker.io", name
    if domain == "docker.io" and "/" not in path:
        path = f"library/{path}"
    if digest:
        return f"{domain}/{path}@{digest}"
    if ":" not in path.rsplit("/", 1)[-1]:
        path = f"{path}:latest"
    return f"{domain}/{path}"


def image_id(image: str) -> str:
    """`<repository>@sha256:<digest>`, the containerStatuses[].imageID of a pulled image."""
    reference = normalize_image(image)
    if "@" in reference:
        return reference
    repository = reference.rsplit(":", 1)[0] if ":" in reference.rsplit("/", 1)[-1] else reference
    return f"{repository}@sha256:{_digest('image', reference)}"


def image_size(image: str) -> int:
    """A plausible, stable compressed size in bytes (20-80 MB), for the Pulled event's message."""
    return 20_000_000 + int(_digest("image-size", normalize_image(image))[:8], 16) % 60_000_000
