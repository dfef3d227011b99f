"""Listers: read-only views of an informer's cache, by label selector or by name (client-go's
`GenericLister`). They never call the server; a miss is a NotFound shaped like the server's."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.selectors import LabelSelector, parse_label_selector
from kubelite.client.cache.store import NAMESPACE_INDEX, Indexer
from kubelite.client.errors import NotFound

Selector = str | LabelSelector | None


def _selector(selector: Selector) -> LabelSelector:
    if selector is None:
        return LabelSelector.everything()
    if isinstance(selector, LabelSelector):
        return selector
    return parse_label_selector(selector)


def _labels(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _not_found(group: str, resource: str, name: str) -> NotFound:
    qualified = f"{resource}.{group}" if group else resource
    details: dict[str, Any] = {"name": name, "kind": resource}
    if group:
        details["group"] = group
    return NotFound(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": f'{qualified} "{name}" not found',
            "reason": "NotFound",
            "details": details,
            "code": 404,
        }
    )


class Lister:
    """All objects of the cache; `namespace(ns)` narrows to one namespace."""

    def __init__(self, indexer: Indexer, *, resource: str = "", group: str = "") -> None:
        self.indexer = indexer
        self.resource = resource
        self.group = group

    def list(self, selector: Selector = None) -> list[Obj]:
        chosen = _selector(selector)
        objects = self.indexer.list()
        if chosen.empty:
            return objects
        return [obj for obj in objects if chosen.matches(_labels(obj))]

    def get(self, name: str) -> Obj:
        """A cluster-scoped object by name."""
        obj = self.indexer.get_by_key(name)
        if obj is None:
            raise _not_found(self.group, self.resource, name)
        return obj

    def namespace(self, namespace: str) -> NamespaceLister:
        return NamespaceLister(self, namespace)


class NamespaceLister:
    def __init__(self, parent: Lister, namespace: str) -> None:
        self.parent = parent
        self.namespace_name = namespace

    def list(self, selector: Selector = None) -> list[Obj]:
        chosen = _selector(selector)
        objects = self.parent.indexer.by_index(NAMESPACE_INDEX, self.namespace_name)
        if chosen.empty:
            return objects
        return [obj for obj in objects if chosen.matches(_labels(obj))]

    def get(self, name: str) -> Obj:
        obj = self.parent.indexer.get_by_key(f"{self.namespace_name}/{name}")
        if obj is None:
            raise _not_found(self.parent.group, self.parent.resource, name)
        return obj
