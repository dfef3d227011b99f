"""AlwaysAllow: every request is authorized (kube's `--authorization-mode=AlwaysAllow`), until RBAC lands."""

from __future__ import annotations

from kubelite.auth.authz.interface import AuthorizationAttributes, Decision, NonResourceRule, ResourceRule
from kubelite.auth.user import UserInfo


class AlwaysAllow:
    def authorize(self, attrs: AuthorizationAttributes) -> Decision:
        return Decision(True)

    def rules_for(self, user: UserInfo | None, namespace: str) -> tuple[list[ResourceRule], list[NonResourceRule]]:
        return [ResourceRule(("*",), ("*",), ("*",))], [NonResourceRule(("*",), ("*",))]
