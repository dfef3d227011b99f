"""LimitRanges: their quantities decoded and validated. kube has no printer for them: the default table."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.validation.quantities import decode_quantities


class LimitRangeStrategy(Strategy):
    tracks_generation = False

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)


REGISTRATION = stored("", "limitranges", LimitRangeStrategy)
