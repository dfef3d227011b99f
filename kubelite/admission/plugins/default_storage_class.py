"""DefaultStorageClass: a claim created without a class gets the default StorageClass (kube's
`plugin/pkg/admission/storage/storageclass/setdefault`).

A claim says "no class" with `storageClassName: ""` and keeps it; only an absent (or null) class, without
the beta class annotation, is defaulted. Of several classes marked default, the newest wins, then the first
by name, as kube's GetDefaultClass picks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from kubelite.admission.chain import Attributes
from kubelite.apimachinery.meta import Obj

_DEFAULT_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)
_BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"


def _is_default(cls: Obj) -> bool:
    found = (cls.get("metadata") or {}).get("annotations") or {}
    return any(found.get(key) == "true" for key in _DEFAULT_ANNOTATIONS)


def default_class(classes: list[Obj]) -> Obj | None:
    marked = [cls for cls in classes if _is_default(cls)]
    if not marked:
        return None
    # newest first; RFC 3339 times of one format sort as text
    marked.sort(key=lambda cls: str(cls["metadata"].get("name", "")))
    marked.sort(key=lambda cls: str(cls["metadata"].get("creationTimestamp", "")), reverse=True)
    return marked[0]


class DefaultStorageClass:
    def __init__(self, list_classes: Callable[[], Awaitable[list[Obj]]]) -> None:
        self.list_classes = list_classes

    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        spec = attrs.spec
        if obj is None or attrs.operation != "CREATE" or attrs.subresource:
            return
        if (spec.group, spec.resource) != ("", "persistentvolumeclaims"):
            return
        claim_spec = obj.get("spec")
        if not isinstance(claim_spec, dict) or claim_spec.get("storageClassName") is not None:
            return
        if _BETA_CLASS_ANNOTATION in ((obj.get("metadata") or {}).get("annotations") or {}):
            return
        chosen = default_class(await self.list_classes())
        if chosen is not None:
            claim_spec["storageClassName"] = chosen["metadata"]["name"]

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        return None
