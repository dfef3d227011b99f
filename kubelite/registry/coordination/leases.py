"""Leases: plain data objects (leader election, node heartbeats)."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.others import LEASE_TABLE

REGISTRATION = stored("coordination.k8s.io", "leases", PlainStrategy, table=LEASE_TABLE)
