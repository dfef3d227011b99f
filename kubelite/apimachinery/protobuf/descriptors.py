"""Protobuf message classes for the Kubernetes messages in schema.json, built on first use.

The wire work (parsing and serializing) is done by the `protobuf` package's upb runtime, which needs
descriptors. They are built here from kubelite's compact schema (schema.json): one proto2 file per
Kubernetes protobuf package, so the message full names are Kubernetes' own (`k8s.io.api.core.v1.Pod`).
Building them costs about 30 ms, so nothing happens at import time; `message_classes` builds everything
once, on the first protobuf request, and the server's start-up never pays for it.
"""

from __future__ import annotations

import threading
from typing import Any

from kubelite.apimachinery.protobuf.schema import load

_SCALARS = {
    "string": 9,  # FieldDescriptorProto.TYPE_STRING
    "bytes": 12,
    "bool": 8,
    "int32": 5,
    "int64": 3,
    "uint32": 13,
    "uint64": 4,
    "double": 1,
}
_TYPE_MESSAGE = 11
_LABEL_OPTIONAL, _LABEL_REPEATED = 1, 3

_lock = threading.Lock()
_classes: dict[str, Any] | None = None


def package_of(full_name: str) -> str:
    return full_name.rsplit(".", 1)[0]


def _entry_name(field_name: str) -> str:
    """protoc's name for a map field's entry message: `matchLabels` -> `MatchLabelsEntry`."""
    camel = "".join(part[:1].upper() + part[1:] for part in field_name.split("_"))
    return camel + "Entry"


def _set_type(target: Any, typ: str) -> None:
    if typ in _SCALARS:
        target.type = _SCALARS[typ]
    else:
        target.type = _TYPE_MESSAGE
        target.type_name = "." + typ


def _file_protos() -> list[Any]:
    """FileDescriptorProtos for every package in the schema, dependencies first."""
    from google.protobuf import descriptor_pb2

    field_proto = descriptor_pb2.FieldDescriptorProto  # its enums type the fields set below
    messages = load().messages
    by_package: dict[str, list[str]] = {}
    for full in messages:
        by_package.setdefault(package_of(full), []).append(full)
    deps: dict[str, set[str]] = {pkg: set() for pkg in by_package}
    for full, fields in messages.items():
        for row in fields:
            typ = row[2]
            if typ not in _SCALARS and package_of(typ) != package_of(full):
                deps[package_of(full)].add(package_of(typ))

    ordered: list[str] = []
    visiting: set[str] = set()

    def visit(pkg: str) -> None:
        if pkg in ordered:
            return
        if pkg in visiting:
            raise ValueError(f"protobuf packages import each other in a cycle through {pkg}")
        visiting.add(pkg)
        for dep in sorted(deps[pkg]):
            visit(dep)
        visiting.discard(pkg)
        ordered.append(pkg)

    for pkg in sorted(by_package):
        visit(pkg)

    files = []
    for pkg in ordered:
        fdp = descriptor_pb2.FileDescriptorProto(name=pkg.replace(".", "/") + "/generated.proto", package=pkg)
        fdp.syntax = "proto2"
        fdp.dependency.extend(dep.replace(".", "/") + "/generated.proto" for dep in sorted(deps[pkg]))
        for full in by_package[pkg]:
            msg = fdp.message_type.add(name=full.rsplit(".", 1)[1])
            for row in messages[full]:
                json_name, number, typ, mods = row[0], row[1], row[2], row[3]
                name = row[4] if len(row) > 4 else json_name
                field = msg.field.add(name=name, number=number, json_name=name)
                if "m" in mods:
                    entry = msg.nested_type.add(name=_entry_name(name))
                    entry.options.map_entry = True
                    entry.field.add(name="key", number=1, type=_SCALARS["string"], label=_LABEL_OPTIONAL)
                    value = entry.field.add(name="value", number=2, label=_LABEL_OPTIONAL)
                    _set_type(value, typ)
                    field.type = field_proto.TYPE_MESSAGE
                    field.type_name = f".{full}.{entry.name}"
                    field.label = field_proto.LABEL_REPEATED
                else:
                    _set_type(field, typ)
                    field.label = field_proto.LABEL_REPEATED if "r" in mods else field_proto.LABEL_OPTIONAL
        files.append(fdp)
    return files


def _build() -> dict[str, Any]:
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    for fdp in _file_protos():
        pool.Add(fdp)
    return {
        full: message_factory.GetMessageClass(pool.FindMessageTypeByName(full)) for full in load().messages
    }


def message_classes() -> dict[str, Any]:
    """Every schema message's class by full name (built once, thread-safe)."""
    global _classes
    if _classes is None:
        with _lock:
            if _classes is None:
                _classes = _build()
    return _classes
