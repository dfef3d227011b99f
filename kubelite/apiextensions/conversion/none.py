"""Strategy `None`: the versions share one schema, so converting is rewriting apiVersion (kube's
nopConverter)."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj


def set_api_version(obj: Obj, api_version: str) -> Obj:
    """A copy of `obj` in `api_version`; nested values are shared, as cached objects are read-only."""
    if obj.get("apiVersion") == api_version:
        return obj
    converted = dict(obj)
    converted["apiVersion"] = api_version
    return converted


class NoneConverter:
    async def convert(self, objects: list[Obj], to_api_version: str) -> list[Obj]:
        return [set_api_version(obj, to_api_version) for obj in objects]

    async def close(self) -> None:
        return None
