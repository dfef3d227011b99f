"""kube-controller-manager's --controllers semantics (selection.py) and the bearer tokens of components."""

from __future__ import annotations

import pytest

from kubelite.auth.authn.tokens import TokenAuthenticator
from kubelite.auth.user import UserInfo
from kubelite.controllers.selection import ControllerSelection, UnknownControllerError

KNOWN = ["deployment-controller", "job-controller", "bootstrap-signer-controller"]
ALIASES = {"deployment": "deployment-controller", "job": "job-controller"}
OFF = {"bootstrap-signer-controller"}


def select(flag: str) -> ControllerSelection:
    return ControllerSelection.parse(flag, known=KNOWN, aliases=ALIASES, disabled_by_default=OFF)


def test_star_enables_the_controllers_on_by_default_only() -> None:
    chosen = select("*")
    assert [name for name in KNOWN if chosen.enabled(name)] == ["deployment-controller", "job-controller"]


def test_a_name_enables_and_a_minus_disables_whatever_the_order_of_star() -> None:
    assert select("*,-job").enabled("job-controller") is False
    assert select("-job,*").enabled("job-controller") is False
    assert select("*,bootstrap-signer-controller").enabled("bootstrap-signer-controller") is True


def test_without_star_only_the_named_run() -> None:
    chosen = select("deployment")
    assert chosen.enabled("deployment-controller") is True
    assert chosen.enabled("job-controller") is False


def test_the_first_entry_naming_a_controller_decides() -> None:
    assert select("job,-job").enabled("job-controller") is True
    assert select("-job,job").enabled("job-controller") is False


def test_unknown_names_are_refused_with_kubes_message() -> None:
    with pytest.raises(UnknownControllerError) as err:
        select("*,-replicaset")
    assert str(err.value) == "'replicaset' is not in the list of known controllers"


def test_tokens_authenticate_their_user_until_revoked() -> None:
    tokens = TokenAuthenticator()
    node = UserInfo(name="system:node:n0", groups=("system:nodes",))
    token = tokens.mint(node)
    assert tokens.authenticate(token) == node
    assert tokens.authenticate(token + "x") is None
    assert tokens.mint(node) != token
    tokens.revoke(token)
    assert tokens.authenticate(token) is None
