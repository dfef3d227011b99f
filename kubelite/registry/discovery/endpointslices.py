"""EndpointSlices: kube bumps their generation on any change outside metadata, and on label changes."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.others import ENDPOINT_SLICE_TABLE


class EndpointSliceStrategy(Strategy):
    tracks_generation = True

    def spec_changed(self, new: Obj, old: Obj) -> bool:
        new_meta, old_meta = new.get("metadata") or {}, old.get("metadata") or {}
        labels_changed = new_meta.get("labels") != old_meta.get("labels")
        return labels_changed or super().spec_changed(new, old)


REGISTRATION = stored("discovery.k8s.io", "endpointslices", EndpointSliceStrategy, table=ENDPOINT_SLICE_TABLE)
