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


class EventsV1Strategy(Strategy):
    """events.k8s.io/v1 selects on the core names of its fields, as kube's conversion maps them."""

    tracks_generation = False

    def fields(self, obj: dict) -> dict[str, str]:  # type: ignore[type-arg]
        fields = super().fields(obj)
        regarding = obj.get("regarding") or {}
        for key in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"):
            fields[f"involvedObject.{key}"] = str(regarding.get(key) or "")
        fields["reason"] = str(obj.get("reason") or "")
        fields["reportingComponent"] = str(obj.get("reportingController") or "")
        fields["source"] = str((obj.get("deprecatedSource") or {}).get("component") or "")
        fields["type"] = str(obj.get("type") or "")
        return fields

    def supported_field_labels(self) -> frozenset[str]:
        return EventStrategy.selectable_fields and frozenset(
            {"metadata.name", "metadata.namespace", *EventStrategy.selectable_fields}
        )
