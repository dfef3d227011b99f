"""PriorityClasses: preemptionPolicy defaults to PreemptLowerPriority."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.registry.registration import stored
from kubelite.registry.strategy import PlainStrategy
from kubelite.registry.tables.others import PRIORITY_CLASS_TABLE


class PriorityClassStrategy(PlainStrategy):
    def default(self, obj: Obj) -> None:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


REGISTRATION = stored("scheduling.k8s.io", "priorityclasses", PriorityClassStrategy, table=PRIORITY_CLASS_TABLE)
