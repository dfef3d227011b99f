"""NetworkPolicies (networking.k8s.io/v1): a spec whose changes bump the generation."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import SpecStrategy
from kubelite.registry.tables.others import NETWORK_POLICY_TABLE

REGISTRATION = stored("networking.k8s.io", "networkpolicies", SpecStrategy, table=NETWORK_POLICY_TABLE)
