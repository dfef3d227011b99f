"""The events table, for core/v1 Events and for events.k8s.io/v1 Events alike.

kube serves both groups from one storage of internal Events, so both print through the same `printEvent`. An
events.k8s.io object names its fields differently (`regarding`, `note`, `reportingController`,
`deprecatedCount`, ...); it is read through the same field map kube's conversion uses, then printed like a
core Event: Last Seen falls back to First Seen, which falls back to the event time, and a series overrides
both the last-seen time and the count.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.duration import since
from kubelite.apimachinery.meta import Obj
from kubelite.registry.core.event_conversion import to_core
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, col, dig, integer, name_col, name_of, text

EVENT_COLUMNS = [
    col("Last Seen", "string", d.EVENT_LAST_TIMESTAMP),
    col("Type", "string", d.EVENT_TYPE),
    col("Reason", "string", d.EVENT_REASON),
    col("Object", "string", d.EVENT_INVOLVED_OBJECT),
    col("Subobject", "string", d.OBJECT_REFERENCE_FIELD_PATH, 1),
    col("Source", "string", d.EVENT_SOURCE, 1),
    col("Message", "string", d.EVENT_MESSAGE),
    col("First Seen", "string", d.EVENT_FIRST_TIMESTAMP, 1),
    col("Count", "string", d.EVENT_COUNT, 1),
    name_col(1),
]

def _source(event: Obj) -> str:
    component = text(event, "source", "component") or text(event, "reportingComponent")
    instance = text(event, "source", "host") or text(event, "reportingInstance")
    return f"{component}, {instance}" if instance else component


def _target(event: Obj) -> str:
    kind = text(event, "involvedObject", "kind").lower()
    name = text(event, "involvedObject", "name")
    return f"{kind}/{name}" if name else kind


def event_row(event: Obj, now: datetime) -> list[Any]:
    if text(event, "firstTimestamp"):
        first_seen = since(text(event, "firstTimestamp"), now)
    else:
        first_seen = since(text(event, "eventTime"), now)
    last_seen = since(text(event, "lastTimestamp"), now) if text(event, "lastTimestamp") else first_seen
    count = integer(event, "count")
    series = dig(event, "series")
    if isinstance(series, dict):
        last_seen = since(text(series, "lastObservedTime"), now)
        count = integer(series, "count")
    elif count == 0:
        # singleton events written through the new API carry no count
        count = 1
    return [
        last_seen,
        text(event, "type"),
        text(event, "reason"),
        _target(event),
        text(event, "involvedObject", "fieldPath"),
        _source(event),
        text(event, "message").strip(),
        first_seen,
        count,
        name_of(event),
    ]


EVENT_TABLE = TableSpec(EVENT_COLUMNS, event_row)
EVENTS_V1_TABLE = TableSpec(EVENT_COLUMNS, lambda event, now: event_row(to_core(event), now))
