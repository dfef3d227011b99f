"""The admission chain: mutating plugins in order, then validating plugins in order.

The handlers call `admit` before the registry runs its strategy, and pass `validate` to the registry, which
calls it on a copy of the final object just before storage (kube's order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kubelite.apimachinery.meta import Obj
from kubelite.auth.user import UserInfo
from kubelite.registry.spec import ResourceSpec


@dataclass(frozen=True, slots=True)
class Attributes:
    operation: str  # CREATE, UPDATE, DELETE, CONNECT
    spec: ResourceSpec
    namespace: str
    name: str
    subresource: str
    user: UserInfo | None
    dry_run: bool = False


class MutatingPlugin(Protocol):
    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None: ...


class ValidatingPlugin(Protocol):
    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None) -> None: ...


class AdmissionChain:
    def __init__(self, mutating: list[MutatingPlugin], validating: list[ValidatingPlugin]) -> None:
        self.mutating = mutating
        self.validating = validating

    async def admit(self, attrs: Attributes, obj: Obj | None, old: Obj | None = None) -> None:
        for plugin in self.mutating:
            await plugin.admit(attrs, obj, old)

    async def validate(self, attrs: Attributes, obj: Obj | None, old: Obj | None = None) -> None:
        for plugin in self.validating:
            await plugin.validate(attrs, obj, old)
