"""Roles: plain data objects. kube has no printer for them: the default table."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy

REGISTRATION = stored("rbac.authorization.k8s.io", "roles", PlainStrategy)
