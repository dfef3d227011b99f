"""The operations of the API, in a form neutral to OpenAPI v2 and v3.

paths.py decides what operations exist and what they take and return; v3.py and v2.py only render these
records in their spec's syntax. Keeping one description of the API means both documents always agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

ParamType = Literal["string", "integer", "boolean"]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    location: Literal["path", "query"]
    type: ParamType
    description: str
    required: bool = False


@dataclass(frozen=True, slots=True)
class Schema:
    """A request or response body: a named definition, or a plain JSON type (logs, proxied bodies)."""

    definition: str | None = None
    type: str | None = None

    @staticmethod
    def ref(definition: str) -> Schema:
        return Schema(definition=definition)

    @staticmethod
    def of_type(json_type: str) -> Schema:
        return Schema(type=json_type)


@dataclass(frozen=True, slots=True)
class Body:
    schema: Schema
    media_types: tuple[str, ...]
    required: bool


@dataclass(frozen=True, slots=True)
class Response:
    code: int
    description: str
    schema: Schema | None = None


@dataclass(frozen=True, slots=True)
class Operation:
    method: str
    operation_id: str
    description: str
    tag: str
    params: tuple[Param, ...] = ()
    body: Body | None = None
    responses: tuple[Response, ...] = ()
    #: what the responses can be encoded as
    produces: tuple[str, ...] = ()
    #: x-kubernetes-action; None for the discovery endpoints, which kube leaves unmarked
    action: str | None = None
    #: x-kubernetes-group-version-kind of the operation, as {"group", "version", "kind"}
    gvk: dict[str, str] | None = None


@dataclass(slots=True)
class PathItem:
    path: str
    operations: list[Operation] = field(default_factory=list)

    def common_params(self) -> list[Param]:
        """Parameters every operation of the path shares; kube-openapi lists these on the path itself."""
        if not self.operations:
            return []
        shared = set(self.operations[0].params)
        for op in self.operations[1:]:
            shared &= set(op.params)
        return sort_params(shared)

    def operation_params(self, op: Operation) -> list[Param]:
        common = set(self.common_params())
        return sort_params(p for p in op.params if p not in common)


def sort_params(params: Iterable[Param]) -> list[Param]:
    """kube-openapi orders parameters by name (then location, for `path`, which proxy takes as both)."""
    return sorted(params, key=lambda p: (p.name, p.location))
