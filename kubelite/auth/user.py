"""UserInfo: who a request is from, as every authenticator reports it (kube's `user.Info`).

Authenticators (x509 client certificates, tokens, anonymous) each produce one of these, and authorization,
admission and audit read only this, so they never care how the caller proved who it is. The well-known user
and group names below are the strings kube-apiserver and its default RBAC policy match on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: the user a request gets when no authenticator recognised it and anonymous access is on
ANONYMOUS = "system:anonymous"
#: the loopback identity kube-apiserver uses when it calls itself
APISERVER_USER = "system:apiserver"
KUBE_PROXY = "system:kube-proxy"
KUBE_CONTROLLER_MANAGER = "system:kube-controller-manager"
KUBE_SCHEDULER = "system:kube-scheduler"

#: every authenticated request carries this group, added after authentication succeeds
ALL_AUTHENTICATED = "system:authenticated"
#: the group of the anonymous user
ALL_UNAUTHENTICATED = "system:unauthenticated"
#: members bypass authorization entirely (kube's `SystemPrivilegedGroup`)
SYSTEM_MASTERS = "system:masters"
NODES_GROUP = "system:nodes"
MONITORING_GROUP = "system:monitoring"

#: key of `extra` that identifies the credential used (audit logs it), e.g. `X509SHA256=<hex>`
CREDENTIAL_ID_KEY = "authentication.kubernetes.io/credential-id"


@dataclass(frozen=True)
class UserInfo:
    """An authenticated (or anonymous) identity; immutable so it can be shared across a request's stages."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    # `extra` is excluded from the hash because mappings are not hashable; equality still compares it.
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)

    @property
    def is_anonymous(self) -> bool:
        return self.name == ANONYMOUS

    def with_groups(self, *groups: str) -> UserInfo:
        """A copy with `groups` appended (those already present are not repeated)."""
        added = tuple(g for g in dict.fromkeys(groups) if g not in self.groups)
        if not added:
            return self
        return UserInfo(name=self.name, uid=self.uid, groups=self.groups + added, extra=self.extra)


#: the identity of a request no authenticator recognised, when anonymous requests are allowed
ANONYMOUS_USER = UserInfo(name=ANONYMOUS, groups=(ALL_UNAUTHENTICATED,))
