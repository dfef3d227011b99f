"""NamespaceLifecycle: no new objects in a missing or terminating namespace; system namespaces stay.

kube's `plugin/namespace/lifecycle`: a create in a namespace that does not exist is a 404 on the namespace,
in one that is terminating a 403; the namespaces kube-apiserver needs may not be deleted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from kubelite.admission.chain import Attributes
from kubelite.apimachinery import errors
from kubelite.apimachinery.errors import GroupResource, StatusError
from kubelite.apimachinery.meta import Obj

IMMORTAL_NAMESPACES = frozenset({"default", "kube-system", "kube-public"})

#: looks a namespace up; None when it does not exist
NamespaceGetter = Callable[[str], Awaitable[Obj | None]]


class NamespaceLifecycle:
    def __init__(self, get_namespace: NamespaceGetter) -> None:
        self._get_namespace = get_namespace

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        spec = attrs.spec
        if attrs.operation == "DELETE" and spec.group == "" and spec.resource == "namespaces":
            if attrs.name in IMMORTAL_NAMESPACES:
                raise errors.forbidden(GroupResource("", "namespaces"), attrs.name, "this namespace may not be deleted")
            return
        if not spec.namespaced or attrs.operation != "CREATE" or not attrs.namespace:
            return
        namespace = await self._get_namespace(attrs.namespace)
        if namespace is None:
            raise errors.not_found(GroupResource("", "namespaces"), attrs.namespace)
        if (namespace.get("status") or {}).get("phase") == "Terminating" or (namespace.get("metadata") or {}).get(
            "deletionTimestamp"
        ):
            if spec.resource in ("events",):  # kube lets events in, so that the deletion can be explained
                return
            raise errors.namespace_terminating(spec.group_resource, attrs.name, attrs.namespace)

    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None:
        return None


def translate_not_found(exc: StatusError) -> Obj | None:  # pragma: no cover - helper for getters
    if exc.code == 404:
        return None
    raise exc
