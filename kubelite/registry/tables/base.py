"""The shape of a server-side table and the pieces every kind's table is built from.

A `TableSpec` is what kube's `printers.TableHandler` registers per kind: the column definitions and the
function that turns one object into one row of cells. kube-apiserver always prints the wide form
(`GenerateOptions{Wide: true}`), so `row` returns every cell, priority-1 columns included, and kubectl drops
those it does not show. Objects arrive as plain v1 JSON dicts (cached ones through `apimachinery.cached`'s
`expanded`, which `to_table` applies), so the accessors here read them without assuming any field is present.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubelite.apimachinery.duration import parse_time, since
from kubelite.apimachinery.meta import Obj
from kubelite.registry.tables import descriptions as d

Row = Callable[[Obj, datetime], list[Any]]
Conditions = Callable[[Obj], list[dict[str, str]]]


@dataclass(frozen=True)
class TableSpec:
    #: `columnDefinitions` exactly as kube sends them
    columns: list[dict[str, Any]]
    #: object, now (UTC aware) -> the row's cells, typed as kube types them (str, int, bool)
    row: Row
    #: the row's `conditions` (kube marks finished pods `Completed`), when the kind has any
    conditions: Conditions | None = None
    #: makes a printer that keeps per-object facts between requests (the pods' does), for each resource
    #: serving path to own one; kinds without one print with `row`
    new_printer: Callable[[], Row] | None = None
    #: `row` and `conditions` take the cached object as it is and decode what they read themselves (through
    #: `apimachinery.cached.expanded`), so that a printer keeping facts decodes only what it has not kept
    reads_compact: bool = False

    def printer(self) -> Row:
        """A row function for one serving path: its own keeping printer, or the plain `row`."""
        return self.new_printer() if self.new_printer is not None else self.row

    @property
    def column_names(self) -> list[str]:
        return [column["name"] for column in self.columns]


def col(name: str, type_: str, description: str, priority: int = 0, fmt: str = "") -> dict[str, Any]:
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


def name_col(priority: int = 0) -> dict[str, Any]:
    return col("Name", "string", d.OBJECT_NAME, priority, "name")


def age_col() -> dict[str, Any]:
    return col("Age", "string", d.CREATION_TIMESTAMP)


CONTAINERS_DESC = "Names of each container in the template."
IMAGES_DESC = "Images referenced by each container in the template."


def containers_col(priority: int = 1) -> dict[str, Any]:
    return col("Containers", "string", CONTAINERS_DESC, priority)


def images_col(priority: int = 1) -> dict[str, Any]:
    return col("Images", "string", IMAGES_DESC, priority)


def dig(obj: Any, *path: str) -> Any:
    """The value at `path`, or None as soon as a step is missing or not an object."""
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def text(obj: Any, *path: str) -> str:
    value = dig(obj, *path)
    return value if isinstance(value, str) else ""


def integer(obj: Any, *path: str, default: int = 0) -> int:
    value = dig(obj, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def items(obj: Any, *path: str) -> list[Any]:
    value = dig(obj, *path)
    return value if isinstance(value, list) else []


def mapping(obj: Any, *path: str) -> dict[str, Any]:
    value = dig(obj, *path)
    return value if isinstance(value, dict) else {}


def name_of(obj: Obj) -> str:
    return text(obj, "metadata", "name")


def age(obj: Obj, now: datetime) -> str:
    return since(text(obj, "metadata", "creationTimestamp"), now)


def created_at(obj: Obj) -> str:
    """The default table's `Created At` cell: the creation time in RFC 3339, Go's zero time when unset."""
    when = parse_time(text(obj, "metadata", "creationTimestamp"))
    if when is None:
        return "0001-01-01T00:00:00Z"
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def default_table() -> TableSpec:
    """kube's `DefaultTableConvertor`, used by kinds without a printer: Name and Created At."""
    return TableSpec(
        columns=[name_col(), col("Created At", "date", d.CREATION_TIMESTAMP)],
        row=lambda obj, _now: [name_of(obj), created_at(obj)],
    )
