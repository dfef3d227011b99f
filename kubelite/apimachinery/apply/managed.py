"""metadata.managedFields on the wire, and the managers they become in memory.

Each entry names a manager, the operation it wrote with (Apply or Update), the API version, the time of
its last change, and its fields (FieldsV1). In memory the entries are keyed by a manager identifier: the
entry without its fields, type and time, as JSON; an Update entry also keeps its apiVersion in the key, so
one manager's updates through two versions stay apart, while an applier is one entry whatever the
version. Entries are written back sorted: Apply before Update, then oldest first, then by manager,
apiVersion and subresource.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from kubelite.apimachinery.apply.fieldpath import FieldsError, Set
from kubelite.apimachinery.apply.updater import ManagedFields, VersionedSet
from kubelite.apimachinery.meta import parse_rfc3339, rfc3339

APPLY, UPDATE = "Apply", "Update"
FIELDS_V1 = "FieldsV1"
_CANONICAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class ManagedFieldsError(ValueError):
    """managedFields that cannot be decoded (kube then falls back to the stored entries)."""


@dataclass(slots=True)
class Managed:
    fields: ManagedFields = field(default_factory=dict)
    #: identifier -> RFC 3339 time of the manager's last change (None when the entry had none)
    times: dict[str, str | None] = field(default_factory=dict)

    def copy(self) -> Managed:
        return Managed(dict(self.fields), dict(self.times))


def identifier(manager: str, operation: str, api_version: str = "", subresource: str = "") -> str:
    """kube's BuildManagerIdentifier: the entry's JSON without fields, fieldsType and time."""
    entry: dict[str, str] = {}
    if manager:
        entry["manager"] = manager
    if operation:
        entry["operation"] = operation
    if api_version and operation != APPLY:
        entry["apiVersion"] = api_version
    if subresource:
        entry["subresource"] = subresource
    return orjson.dumps(entry).decode()


def parse_identifier(ident: str) -> dict[str, str]:
    try:
        parsed = orjson.loads(ident)
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _text(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return value if isinstance(value, str) else ""


def _normalized_time(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    if _CANONICAL_TIME.fullmatch(value):
        return value
    try:
        return rfc3339(parse_rfc3339(value))
    except ValueError:
        return value


def decode(entries: Any) -> Managed:
    """kube's DecodeManagedFields."""
    managed = Managed()
    if entries is None:
        return managed
    if not isinstance(entries, list):
        raise ManagedFieldsError("managedFields must be a list")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ManagedFieldsError(f"managed fields entry {index} must be an object")
        operation = _text(entry, "operation")
        if operation not in (APPLY, UPDATE):
            raise ManagedFieldsError("operation must be `Apply` or `Update`")
        api_version = _text(entry, "apiVersion")
        if not api_version:
            raise ManagedFieldsError("apiVersion must not be empty")
        fields_type = _text(entry, "fieldsType")
        if fields_type == "":
            raise ManagedFieldsError(f"missing fieldsType in managed fields entry {index}")
        if fields_type != FIELDS_V1:
            raise ManagedFieldsError(f'invalid fieldsType "{fields_type}" in managed fields entry {index}')
        ident = identifier(_text(entry, "manager"), operation, api_version, _text(entry, "subresource"))
        raw = entry.get("fieldsV1")
        try:
            fields = Set.from_fields(raw if raw is not None else {})
        except FieldsError as exc:
            raise ManagedFieldsError(f"error decoding set: {exc}") from exc
        managed.fields[ident] = VersionedSet(fields, api_version, operation == APPLY)
        managed.times[ident] = _normalized_time(entry.get("time"))
    return managed


def is_reset(entries: Any) -> bool:
    """A request that sends `[]` or `[{}]` asks for managedFields to be cleared."""
    if not isinstance(entries, list):
        return False
    return len(entries) == 0 or (len(entries) == 1 and entries[0] == {})


def seconds(time: str | None) -> float:
    """Unix seconds of an entry's time, 0 when it has none (the order entries are written in)."""
    if not time:
        return 0
    try:
        return parse_rfc3339(time).timestamp()
    except ValueError:
        return 0


def encode(managed: Managed) -> list[dict[str, Any]] | None:
    """The managedFields entries; None when there are none (the field is then left out)."""
    if not managed.fields:
        return None
    entries: list[dict[str, Any]] = []
    for ident, versioned in managed.fields.items():
        parsed = parse_identifier(ident)
        entry: dict[str, Any] = {}
        if parsed.get("manager"):
            entry["manager"] = parsed["manager"]
        entry["operation"] = APPLY if versioned.applied else parsed.get("operation") or UPDATE
        entry["apiVersion"] = versioned.api_version
        time = managed.times.get(ident)
        if time:
            entry["time"] = time
        entry["fieldsType"] = FIELDS_V1
        entry["fieldsV1"] = versioned.set.to_fields()
        if parsed.get("subresource"):
            entry["subresource"] = parsed["subresource"]
        entries.append(entry)
    entries.sort(
        key=lambda e: (
            e["operation"],
            seconds(e.get("time")),
            e.get("manager", ""),
            e["apiVersion"],
            e.get("subresource", ""),
        )
    )
    return entries
