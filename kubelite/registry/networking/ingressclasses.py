"""IngressClasses (networking.k8s.io/v1): a spec whose changes bump the generation."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import SpecStrategy
from kubelite.registry.tables.others import INGRESS_CLASS_TABLE

REGISTRATION = stored("networking.k8s.io", "ingressclasses", SpecStrategy, table=INGRESS_CLASS_TABLE)
