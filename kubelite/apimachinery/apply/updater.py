"""Ownership bookkeeping of apply and update, as structured-merge-diff's `merge.Updater` does it.

Managers are keyed by an identifier (see managed.py) and each holds a versioned set of owned paths.

* Update (create, update, patch): the writer takes every path it added or modified, from everyone else;
  a path it removed is removed from everyone.
* Apply: the configuration is merged into the live object. The applier then owns exactly the paths of
  its configuration; what it owned before and no longer applies is removed from the object unless some
  other manager owns it. Another manager owning a path whose value this apply adds or changes is a
  conflict, unless forced, which moves the path to the applier. Applying the value a path already has is
  no conflict: both managers then own it.

kubelite serves one version per kind, so every manager's set is read against the same schema.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubelite.apimachinery.apply.fieldpath import Path, Set
from kubelite.apimachinery.apply.schema import Node
from kubelite.apimachinery.apply.typed import (
    ABSENT,
    Comparison,
    compare,
    ensure_named_fields_are_members,
    merge,
    remove_items,
    to_field_set,
)
from kubelite.apimachinery.meta import Obj


@dataclass(frozen=True, slots=True)
class VersionedSet:
    set: Set
    api_version: str
    applied: bool


ManagedFields = dict[str, VersionedSet]


class Conflicts(Exception):
    """Apply would change fields other managers own: (manager identifier, path) pairs, in set order."""

    def __init__(self, conflicts: list[tuple[str, Path]]) -> None:
        super().__init__(f"{len(conflicts)} conflicts")
        self.conflicts = conflicts

    @classmethod
    def from_managers(cls, sets: dict[str, Set]) -> Conflicts:
        return cls([(manager, path) for manager in sorted(sets) for path in sets[manager].paths()])


class Updater:
    def __init__(self, root: Node, ignored: Set | None = None) -> None:
        self.root = root
        #: paths no manager may own through this endpoint (kube's reset fields: status, or spec on /status)
        self.ignored = ignored if ignored is not None and not ignored.empty() else None

    def _ignore(self, fields: Set) -> Set:
        return fields if self.ignored is None else fields.recursive_difference(self.ignored)

    def _update(
        self, old: Obj, new: Obj, managers: ManagedFields, workflow: str, force: bool
    ) -> tuple[ManagedFields, Comparison]:
        comparison = compare(self.root, old, new).exclude(self.ignored)
        changed = comparison.modified.union(comparison.added)
        removed = comparison.removed
        conflicts: dict[str, Set] = {}
        for manager, versioned in managers.items():
            if manager == workflow:
                continue
            taken = versioned.set.intersection(changed)
            if taken:
                conflicts[manager] = taken
        if conflicts and not force:
            raise Conflicts.from_managers(conflicts)
        out: ManagedFields = {}
        for manager, versioned in managers.items():
            fields = versioned.set
            if manager != workflow:
                if manager in conflicts:
                    fields = fields.difference(conflicts[manager])
                fields = fields.difference(removed)
            if fields.empty():
                continue
            out[manager] = (
                versioned if fields is versioned.set else VersionedSet(fields, versioned.api_version, versioned.applied)
            )
        return out, comparison

    def update(self, old: Obj, new: Obj, version: str, managers: ManagedFields, manager: str) -> ManagedFields:
        """The managers after `manager` changed `old` into `new` by a non-apply write."""
        managers, comparison = self._update(old, new, managers, manager, force=True)
        previous = managers[manager].set if manager in managers else Set()
        fields = previous.union(comparison.modified).union(comparison.added).difference(comparison.removed)
        fields = self._ignore(fields)
        if fields.empty():
            managers.pop(manager, None)
        else:
            managers[manager] = VersionedSet(fields, version, False)
        return managers

    def apply(
        self, live: Obj, config: Obj, version: str, managers: ManagedFields, manager: str, force: bool
    ) -> tuple[Obj | None, ManagedFields]:
        """(the merged object, or None when the apply changes nothing; the managers after it)."""
        merged = merge(self.root, live, config)
        last = managers.get(manager)
        managers = dict(managers)
        managers[manager] = VersionedSet(self._ignore(to_field_set(self.root, config)), version, True)
        merged = self._prune(merged, managers, last)
        managers, _ = self._update(live, merged, managers, manager, force)
        if merged == live:
            return None, managers
        return merged, managers

    def _prune(self, merged: Obj, managers: ManagedFields, last: VersionedSet | None) -> Obj:
        """Remove what the applier applied last time, no longer applies, and nobody else owns."""
        if last is None or last.set.empty():
            return merged
        root = self.root

        def owned(value: Obj) -> Set:
            return ensure_named_fields_are_members(root, to_field_set(root, value))

        last_set = ensure_named_fields_are_members(root, last.set)
        pruned = _object(remove_items(root, merged, last_set))
        # give back what someone still owns: another manager, or this apply's configuration
        managed = Set()
        for versioned in managers.values():
            managed = managed.union(versioned.set)
        managed = ensure_named_fields_are_members(root, managed)
        merged_set = owned(merged)
        pruned = _object(remove_items(root, merged, merged_set.difference(owned(pruned).union(managed))))
        # and what was taken out but was never this applier's to begin with
        gone = merged_set.difference(owned(pruned)).intersection(last_set)
        return _object(remove_items(root, merged, gone))


def _object(value: object) -> Obj:
    return value if isinstance(value, dict) else {}


__all__ = ["ABSENT", "Conflicts", "ManagedFields", "Updater", "VersionedSet"]
