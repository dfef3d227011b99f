"""Nodes: their quantities decoded, allocatable defaulted from capacity, validation, and
spec.unschedulable for field selectors. A Node is created with the status it is sent (kube's nodeStrategy keeps
it: a kubelet registers its node with capacity, addresses and conditions at once); updates of the main resource
keep the stored status, /status the stored spec."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.apimachinery.validation import FieldError
from kubelite.registry.registration import stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.core import NODE_TABLE
from kubelite.registry.validation.cluster import validate_node, validate_node_update
from kubelite.registry.validation.quantities import decode_quantities


class NodeStrategy(Strategy):
    tracks_generation = False
    selectable_fields = ("spec.unschedulable",)

    def prepare_for_create(self, obj: Obj) -> None:
        pass  # the status is kept, unlike for other kinds with a status subresource

    def default(self, obj: Obj) -> None:
        decode_quantities(self.spec, obj)
        status = obj.get("status")
        if isinstance(status, dict) and status.get("allocatable") is None and status.get("capacity") is not None:
            status["allocatable"] = dict(status["capacity"])

    def validate(self, obj: Obj) -> list[FieldError]:
        return validate_node(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_node_update(new, old)


REGISTRATION = stored("", "nodes", NodeStrategy, table=NODE_TABLE)
