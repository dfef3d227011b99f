"""Tables of the apps/v1 kinds: deployments, replica sets, stateful sets, daemon sets, controller revisions.

Desired replica counts default to 1 as v1 decoding would, since kube prints its defaulted internal objects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d
from kubelite.registry.tables.base import (
    TableSpec,
    age,
    age_col,
    col,
    containers_col,
    dig,
    images_col,
    integer,
    items,
    mapping,
    name_col,
    name_of,
    text,
)
from kubelite.registry.tables.format import (
    SelectorError,
    container_cells,
    format_label_selector,
    format_labels,
    selector_string,
    template_containers,
)

READY_DESC = "Number of the pod with ready state"


def _desired(obj: Obj) -> int:
    return integer(obj, "spec", "replicas", default=1)


def _deployment_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec"))
    try:
        selector = selector_string(dig(obj, "spec", "selector"))
    except SelectorError:
        selector = "<invalid>"
    return [
        name_of(obj),
        f"{integer(obj, 'status', 'readyReplicas')}/{_desired(obj)}",
        integer(obj, "status", "updatedReplicas"),
        integer(obj, "status", "availableReplicas"),
        age(obj, now),
        names,
        images,
        selector,
    ]


DEPLOYMENT_TABLE = TableSpec(
    [
        name_col(),
        col("Ready", "string", READY_DESC),
        col("Up-to-date", "string", d.DEPLOYMENT_UPDATED),
        col("Available", "string", d.DEPLOYMENT_AVAILABLE),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.DEPLOYMENT_SELECTOR, 1),
    ],
    _deployment_row,
)


def _replica_set_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec"))
    return [
        name_of(obj),
        _desired(obj),
        integer(obj, "status", "replicas"),
        integer(obj, "status", "readyReplicas"),
        age(obj, now),
        names,
        images,
        format_label_selector(dig(obj, "spec", "selector")),
    ]


REPLICA_SET_TABLE = TableSpec(
    [
        name_col(),
        col("Desired", "integer", d.RS_SPEC_REPLICAS),
        col("Current", "integer", d.RS_STATUS_REPLICAS),
        col("Ready", "integer", d.RS_STATUS_READY),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.RS_SPEC_SELECTOR, 1),
    ],
    _replica_set_row,
)


def _stateful_set_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec"))
    ready = f"{integer(obj, 'status', 'readyReplicas')}/{_desired(obj)}"
    return [name_of(obj), ready, age(obj, now), names, images]


STATEFUL_SET_TABLE = TableSpec(
    [name_col(), col("Ready", "string", READY_DESC), age_col(), containers_col(), images_col()],
    _stateful_set_row,
)


def _daemon_set_row(obj: Obj, now: datetime) -> list[Any]:
    names, images = container_cells(template_containers(obj, "spec"))
    return [
        name_of(obj),
        integer(obj, "status", "desiredNumberScheduled"),
        integer(obj, "status", "currentNumberScheduled"),
        integer(obj, "status", "numberReady"),
        integer(obj, "status", "updatedNumberScheduled"),
        integer(obj, "status", "numberAvailable"),
        format_labels(mapping(obj, "spec", "template", "spec", "nodeSelector")),
        age(obj, now),
        names,
        images,
        format_label_selector(dig(obj, "spec", "selector")),
    ]


DAEMON_SET_TABLE = TableSpec(
    [
        name_col(),
        col("Desired", "integer", d.DS_DESIRED),
        col("Current", "integer", d.DS_CURRENT),
        col("Ready", "integer", d.DS_READY),
        col("Up-to-date", "integer", d.DS_UPDATED),
        col("Available", "integer", d.DS_AVAILABLE),
        col("Node Selector", "string", d.POD_NODE_SELECTOR),
        age_col(),
        containers_col(),
        images_col(),
        col("Selector", "string", d.DS_SPEC_SELECTOR, 1),
    ],
    _daemon_set_row,
)


def controller_of(obj: Obj) -> str:
    """The controlling owner as `kind.group/name` in lower case (`daemonset.apps/fluentd`), else `<none>`."""
    for owner in items(obj, "metadata", "ownerReferences"):
        if dig(owner, "controller") is True:
            api_version = text(owner, "apiVersion")
            group = api_version.split("/", 1)[0] if "/" in api_version else ""
            kind = text(owner, "kind")
            if not kind and not group:
                return text(owner, "name")
            qualified = f"{kind}.{group}" if group else kind
            return f"{qualified.lower()}/{text(owner, 'name')}"
    return "<none>"


CONTROLLER_REVISION_TABLE = TableSpec(
    [
        name_col(),
        col("Controller", "string", "Controller of the object"),
        col("Revision", "string", d.CONTROLLER_REVISION_REVISION),
        age_col(),
    ],
    lambda obj, now: [name_of(obj), controller_of(obj), integer(obj, "revision"), age(obj, now)],
)
