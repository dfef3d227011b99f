"""Property-based tests (hypothesis) of the Indexer against a brute-force model, as a state machine.

Random add / update / delete (by object or by tombstone) / replace, and an index added while objects are
stored, with the namespace index, a single-valued label index and a multi-valued one (duplicate values
included). After every step `get_by_key`, `list_keys`, `list`, `by_index`, `index_keys`, `index` and
`list_index_func_values` equal what scanning the model's objects gives.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubelite.client.cache.keys import DeletedFinalStateUnknown
from kubelite.client.cache.store import NAMESPACE_INDEX, Indexer, IndexFunc, meta_namespace_index_func
from tests.unit.client.property_support import machine_settings

NAMES = ["a", "b", "c"]
NAMESPACES = ["", "ns1", "ns2"]
APPS = ["", "web", "db"]
TIERS = ["", "front", "back", "front.back", "back.back"]

MACHINE_SETTINGS = machine_settings(max_examples=60, steps=40)

Obj = dict[str, Any]


def by_app(obj: Obj) -> list[str]:
    app = obj["metadata"]["labels"].get("app")
    return [app] if app else []


def by_tiers(obj: Obj) -> list[str]:
    """Several values per object, sometimes the same one twice."""
    return [tier for tier in obj["metadata"]["labels"].get("tiers", "").split(".") if tier]


def by_first_letter(obj: Obj) -> list[str]:
    return [obj["metadata"]["name"][0]]


INDEXERS: dict[str, IndexFunc] = {
    NAMESPACE_INDEX: meta_namespace_index_func,
    "app": by_app,
    "tiers": by_tiers,
}
LATE_INDEX = "letter"

#: every value an index function can produce here, so lookups of absent values are covered too
VALUES = sorted({*NAMESPACES, *APPS, "front", "back", *NAMES})

objects = st.builds(
    lambda name, namespace, app, tiers: (name, namespace, app, tiers),
    st.sampled_from(NAMES),
    st.sampled_from(NAMESPACES),
    st.sampled_from(APPS),
    st.sampled_from(TIERS),
)


class IndexerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Indexer(indexers=INDEXERS)
        self.indexers = dict(INDEXERS)
        self.model: dict[str, Obj] = {}
        self.versions = itertools.count(1)

    def make(self, spec: tuple[str, str, str, str]) -> tuple[str, Obj]:
        name, namespace, app, tiers = spec
        labels = {label: value for label, value in (("app", app), ("tiers", tiers)) if value}
        metadata: dict[str, Any] = {"name": name, "resourceVersion": str(next(self.versions))}
        metadata["labels"] = labels
        if namespace:
            metadata["namespace"] = namespace
        return (f"{namespace}/{name}" if namespace else name), {"metadata": metadata}

    def keys(self) -> list[str]:
        return sorted({f"{ns}/{name}" if ns else name for ns in NAMESPACES for name in NAMES})

    # -- rules -----------------------------------------------------------------------------------------------

    @rule(spec=objects, as_update=st.booleans())
    def add(self, spec: tuple[str, str, str, str], as_update: bool) -> None:
        key, obj = self.make(spec)
        self.model[key] = obj
        (self.store.update if as_update else self.store.add)(obj)

    @rule(spec=objects, tombstone=st.booleans())
    def delete(self, spec: tuple[str, str, str, str], tombstone: bool) -> None:
        key, obj = self.make(spec)  # the labels of the deleting object do not matter, only its key
        self.model.pop(key, None)
        self.store.delete(DeletedFinalStateUnknown(key, None) if tombstone else obj)

    @rule(specs=st.lists(objects, max_size=6))
    def replace(self, specs: list[tuple[str, str, str, str]]) -> None:
        made = [self.make(spec) for spec in specs]
        self.model = dict(made)
        self.store.replace([obj for _, obj in made], "7")

    @precondition(lambda self: LATE_INDEX not in self.indexers)
    @rule()
    def add_late_index(self) -> None:
        self.indexers[LATE_INDEX] = by_first_letter
        self.store.add_indexers({LATE_INDEX: by_first_letter})

    # -- invariants ------------------------------------------------------------------------------------------

    @invariant()
    def store_matches_model(self) -> None:
        self.store.check_invariants()
        assert sorted(self.store.list_keys()) == sorted(self.model)
        assert len(self.store) == len(self.model)
        assert sorted(id(obj) for obj in self.store.list()) == sorted(id(obj) for obj in self.model.values())
        for key in self.keys():
            assert self.store.get_by_key(key) is self.model.get(key)
            assert (key in self.store) == (key in self.model)
        assert sorted(self.store.get_indexers()) == sorted(self.indexers)

    @invariant()
    def indices_match_a_scan(self) -> None:
        for name, func in self.indexers.items():
            expected_values: set[str] = set()
            for value in VALUES:
                keys = sorted(key for key, obj in self.model.items() if value in func(obj))
                assert self.store.index_keys(name, value) == keys
                found = self.store.by_index(name, value)
                assert sorted(id(obj) for obj in found) == sorted(id(self.model[key]) for key in keys)
                if keys:
                    expected_values.add(value)
            assert sorted(self.store.list_index_func_values(name)) == sorted(expected_values)
            for probe in self.model.values():
                sharing = {key for key, obj in self.model.items() if set(func(obj)) & set(func(probe))}
                assert sorted(id(obj) for obj in self.store.index(name, probe)) == sorted(
                    id(self.model[key]) for key in sharing
                )


IndexerMachine.TestCase.settings = MACHINE_SETTINGS
TestIndexer = IndexerMachine.TestCase
