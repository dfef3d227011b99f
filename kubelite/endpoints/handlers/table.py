"""Table and PartialObjectMetadata conversion (what `kubectl get` asks for with `as=Table`)."""

from __future__ import annotations

from typing import Any

from kubelite.apimachinery import errors
from kubelite.apimachinery.cached import CompactObject, expanded
from kubelite.apimachinery.meta import Obj, now
from kubelite.registry.tables import TableSpec
from kubelite.registry.tables.base import Row

_INCLUDE = ("None", "Metadata", "Object")


def include_object_param(value: str | None) -> str:
    if value in (None, ""):
        return "Metadata"
    if value not in _INCLUDE:
        raise errors.bad_request(
            f'includeObject: Unsupported value: "{value}": supported values: "Metadata", "None", "Object"'
        )
    return value


def partial_metadata(obj: Obj) -> Obj:
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": obj.get("metadata") or {}}


def to_table(
    table_spec: TableSpec,
    objects: list[CompactObject],
    *,
    list_meta: dict[str, Any] | None,
    include_object: str,
    with_headers: bool = True,
    printer: Row | None = None,
) -> Obj:
    """The objects as a Table. `printer` is the serving path's own (`ResourceEncodings.table_row`), which may
    keep per-object facts; the table's plain row function otherwise. Printers read `expanded` objects (or, for
    those that say so, decode what they read themselves); the rows' `object` stays the object as given, for
    orjson to write."""
    print_row = printer or table_spec.row
    when = now()
    rows = []
    for obj in objects:
        readable = obj if table_spec.reads_compact else expanded(obj)
        row: dict[str, Any] = {"cells": print_row(readable, when)}
        if table_spec.conditions is not None:
            conditions = table_spec.conditions(readable)
            if conditions:
                row["conditions"] = conditions
        if include_object == "Metadata":
            row["object"] = partial_metadata(obj)
        elif include_object == "Object":
            row["object"] = obj
        else:  # kube's row.object is a RawExtension, which encodes an absent object as null
            row["object"] = None
        rows.append(row)
    table: Obj = {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta or {}}
    table["columnDefinitions"] = table_spec.columns if with_headers else None
    table["rows"] = rows
    return table
