"""Bearer tokens held in memory: the credentials kubelite mints for its own components.

kube-apiserver authenticates the clients it runs itself (its loopback client) with a random token it creates
at start and never writes down; kubelite does the same for every component it runs in-process (the
controller manager, the scheduler, each simulated kubelet), one token per identity, so each request of a
component reaches authorization and admission as that component's user (`system:kube-scheduler`,
`system:node:<name>` in `system:nodes`), exactly as if it came from a separate process with a client
certificate. The tokens die with the process.
"""

from __future__ import annotations

import secrets

from kubelite.auth.user import UserInfo


class TokenAuthenticator:
    """Token -> user, for tokens minted by this process."""

    def __init__(self) -> None:
        self._users: dict[str, UserInfo] = {}

    def mint(self, user: UserInfo) -> str:
        """A new random token that authenticates as `user`."""
        token = secrets.token_urlsafe(32)
        self._users[token] = user
        return token

    def revoke(self, token: str) -> None:
        self._users.pop(token, None)

    def authenticate(self, token: str) -> UserInfo | None:
        # a map lookup, as kube's static token authenticator does: the tokens are 256 random bits
        return self._users.get(token)
