"""Events (core/v1 and events.k8s.io/v1): the fields `kubectl describe` selects on, and the storage of both
APIs: events.k8s.io/v1 is the core/v1 store seen through `event_conversion`, as kube stores events once."""

from __future__ import annotations

from kubelite.apimachinery.meta import Obj
from kubelite.registry.core.event_conversion import EventsV1Store
from kubelite.registry.registration import Registration, ResourceStorage, StorageContext, stored
from kubelite.registry.strategy import Strategy
from kubelite.registry.tables.events import EVENT_TABLE, EVENTS_V1_TABLE


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

    def fields(self, obj: Obj) -> dict[str, str]:
        fields = super().fields(obj)
        fields["source"] = str((obj.get("source") or {}).get("component") or "")
        return fields


REGISTRATION = stored("", "events", EventStrategy, table=EVENT_TABLE)


def new_events_v1_storage(ctx: StorageContext) -> ResourceStorage:
    """events.k8s.io/v1 over the registered core/v1 store (register core/v1 events first)."""
    return ResourceStorage(EventsV1Store(ctx.spec, ctx.registry.store("", "events"), table=EVENTS_V1_TABLE))


EVENTS_V1_REGISTRATION = Registration("events.k8s.io", "events", new_events_v1_storage, EventStrategy)
