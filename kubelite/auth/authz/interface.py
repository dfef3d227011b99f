"""The authorizer seam: what is asked (kube's authorizer.Attributes) and what is answered."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kubelite.auth.user import UserInfo


@dataclass(frozen=True, slots=True)
class AuthorizationAttributes:
    user: UserInfo | None
    verb: str
    namespace: str = ""
    api_group: str = ""
    api_version: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    #: for non-resource requests (/healthz, /version, ...)
    path: str = ""
    resource_request: bool = True


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ResourceRule:
    verbs: tuple[str, ...]
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NonResourceRule:
    verbs: tuple[str, ...]
    non_resource_urls: tuple[str, ...] = ()


class Authorizer(Protocol):
    def authorize(self, attrs: AuthorizationAttributes) -> Decision: ...

    def rules_for(self, user: UserInfo | None, namespace: str) -> tuple[list[ResourceRule], list[NonResourceRule]]:
        """What the user may do in the namespace (answers SelfSubjectRulesReview)."""
        ...
