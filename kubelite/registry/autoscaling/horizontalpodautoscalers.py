"""HorizontalPodAutoscalers (autoscaling/v2): a spec whose changes bump the generation."""

from __future__ import annotations

from kubelite.registry.registration import stored
from kubelite.registry.strategy import SpecStrategy
from kubelite.registry.tables.autoscaling import HPA_TABLE

REGISTRATION = stored("autoscaling", "horizontalpodautoscalers", SpecStrategy, table=HPA_TABLE)
