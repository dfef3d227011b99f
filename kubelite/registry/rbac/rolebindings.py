"""RoleBindings: plain data objects."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.others import ROLE_BINDING_TABLE

REGISTRATION = stored("rbac.authorization.k8s.io", "rolebindings", PlainStrategy, table=ROLE_BINDING_TABLE)
