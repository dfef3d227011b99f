"""PodDisruptionBudgets: a spec whose changes bump the generation."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import SpecStrategy
from kubelite.registry.tables.others import PDB_TABLE

REGISTRATION = stored("policy", "poddisruptionbudgets", SpecStrategy, table=PDB_TABLE)
