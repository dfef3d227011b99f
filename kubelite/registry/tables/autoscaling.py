"""The horizontal pod autoscalers table, with the Targets cell kube's `formatHPAMetrics` writes.

Each metric prints as `current/target` (`cpu: 45%/80%`, `500m/1 (avg)`), `<unknown>` until the autoscaler has
observed it; past two metrics the rest collapse into `+ N more...`. A v2 object without metrics is shown with
the 80% CPU utilization target that v2 defaulting gives it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import TableSpec, age, age_col, col, dig, integer, items, name_col, name_of, text
from kubelite.registry.tables.quantity import canonical_quantity

DEFAULT_METRICS = [
    {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
    }
]

_SOURCE_FIELDS = {
    "External": "external",
    "Pods": "pods",
    "Object": "object",
    "Resource": "resource",
    "ContainerResource": "containerResource",
}


def _quantity(value: Any) -> str:
    return canonical_quantity(value)


def _status_source(statuses: list[Any], index: int, field: str) -> Any:
    if index < len(statuses):
        source = dig(statuses[index], field)
        if isinstance(source, dict):
            return source
    return None


def _format_metric(spec: Any, statuses: list[Any], index: int) -> str:
    kind = text(spec, "type")
    field = _SOURCE_FIELDS.get(kind)
    if field is None:
        return "<unknown type>"
    target = dig(spec, field, "target")
    current = _status_source(statuses, index, field)
    if kind == "Pods":
        observed = _quantity(dig(current, "current", "averageValue")) if current else "<unknown>"
        return f"{observed}/{_quantity(dig(target, 'averageValue'))}"
    if kind in ("External", "Object"):
        if dig(target, "averageValue") is not None:
            average = dig(current, "current", "averageValue")
            observed = _quantity(average) if average is not None else "<unknown>"
            return f"{observed}/{_quantity(dig(target, 'averageValue'))} (avg)"
        observed = _quantity(dig(current, "current", "value")) if current else "<unknown>"
        return f"{observed}/{_quantity(dig(target, 'value'))}"
    resource = text(spec, field, "name")
    if dig(target, "averageValue") is not None:
        observed = _quantity(dig(current, "current", "averageValue")) if current else "<unknown>"
        return f"{resource}: {observed}/{_quantity(dig(target, 'averageValue'))}"
    utilization = dig(current, "current", "averageUtilization")
    observed = f"{utilization}%" if isinstance(utilization, int) else "<unknown>"
    wanted = dig(target, "averageUtilization")
    return f"{resource}: {observed}/{f'{wanted}%' if isinstance(wanted, int) else '<auto>'}"


def format_hpa_metrics(hpa: Obj) -> str:
    specs = items(hpa, "spec", "metrics") or DEFAULT_METRICS
    statuses = items(hpa, "status", "currentMetrics")
    shown = [_format_metric(spec, statuses, index) for index, spec in enumerate(specs)]
    limit = 2
    if len(shown) > limit:
        return f"{', '.join(shown[:limit])} + {len(shown) - limit} more..."
    return ", ".join(shown)


def _hpa_row(hpa: Obj, now: datetime) -> list[Any]:
    reference = f"{text(hpa, 'spec', 'scaleTargetRef', 'kind')}/{text(hpa, 'spec', 'scaleTargetRef', 'name')}"
    min_replicas = dig(hpa, "spec", "minReplicas")
    return [
        name_of(hpa),
        reference,
        format_hpa_metrics(hpa),
        # v2 defaulting sets minReplicas to 1
        str(min_replicas) if isinstance(min_replicas, int) else "1",
        integer(hpa, "spec", "maxReplicas"),
        integer(hpa, "status", "currentReplicas"),
        age(hpa, now),
    ]


HPA_TABLE = TableSpec(
    [
        name_col(),
        col("Reference", "string", d.HPA_SCALE_TARGET_REF),
        col("Targets", "string", d.HPA_METRICS),
        col("MinPods", "string", d.HPA_MIN_REPLICAS),
        col("MaxPods", "string", d.HPA_MAX_REPLICAS),
        col("Replicas", "string", d.HPA_CURRENT_REPLICAS),
        age_col(),
    ],
    _hpa_row,
)
