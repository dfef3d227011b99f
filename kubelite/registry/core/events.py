"""Events (core/v1 and events.k8s.io/v1): the fields `kubectl describe` selects on."""

from __future__ import annotations

from kubelite.registry.strategy import Strategy


class EventStrategy(Strategy):
    tracks_generation = False
    selectable_fields = (
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    )

    def fields(self, obj: dict) -> dict[str, str]:  # type: ignore[type-arg]
        fields = super().fields(obj)
        fields["source"] = str((obj.get("source") or {}).get("component") or "")
        return fields
