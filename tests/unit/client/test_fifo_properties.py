"""Property-based tests (hypothesis) of the informer queues against models, as state machines.

DeltaFIFO: random add / update / delete / tombstone delete / replace / resync / pop / close, popped into
an Indexer the way an informer applies deltas. After every step each key's deltas equal the model's (in
order, consecutive deletions merged), keys wait in first-arrival order, each key is popped once per enqueue
with all its deltas, Replace emits Replaced (or Sync) for the listed objects and a DeletedFinalStateUnknown
for every queued or known key it no longer lists, and `has_synced` turns true once the first Replace's keys
are popped. Variants cover known objects or none, Replaced or Sync, with and without a transformer.

RealFIFO: the same operations; every delta comes out in arrival order, one per pop, nothing merged.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubelite.client.cache.delta_fifo import DeltaFIFO
from kubelite.client.cache.fifo import Delta, DeltaType, FIFOClosedError
from kubelite.client.cache.keys import DeletedFinalStateUnknown, meta_namespace_key
from kubelite.client.cache.real_fifo import RealFIFO
from kubelite.client.cache.store import Indexer
from tests.unit.client.property_support import LoopHarness, machine_settings
from tests.unit.client.support import cm, run

NAMES = ["a", "b", "c", "d"]
A, U, D, R, S = DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED, DeltaType.REPLACED, DeltaType.SYNC

MACHINE_SETTINGS = machine_settings(max_examples=60, steps=40)

Obj = dict[str, Any]


def mark(obj: Obj) -> Obj:
    """The test transformer: a visible trace on every object it saw."""
    return {**obj, "transformed": True}


def key(name: str) -> str:
    return f"default/{name}"


def unwrap(obj: Any) -> Any:
    return obj.obj if isinstance(obj, DeletedFinalStateUnknown) else obj


class FIFOMachine(RuleBasedStateMachine):
    """What both FIFO machines share: fresh objects, the consumer's store and its mirror, the pop rules."""

    TRANSFORM = False

    def __init__(self) -> None:
        super().__init__()
        self.harness = LoopHarness()
        self.versions = itertools.count(1)
        #: what the consumer has applied: the FIFO's known objects, and a plain-dict mirror of it
        self.store = Indexer()
        self.mirror: dict[str, Obj] = {}
        self.closed = False
        self.populated = False

    def fresh(self, name: str) -> Obj:
        return cm(name, rv=str(next(self.versions)))

    def tf(self, obj: Any) -> Any:
        """What the queue must hold for an object that went through the transformer."""
        if not self.TRANSFORM or isinstance(obj, DeletedFinalStateUnknown):
            return obj
        return mark(obj)

    def apply(self, deltas: list[Delta]) -> None:
        """The consumer, as an informer: deletions leave the store, everything else is stored."""
        for delta in deltas:
            name_key = meta_namespace_key(delta.object)
            if delta.type is D:
                self.store.delete(delta.object)
                self.mirror.pop(name_key, None)
            else:
                self.store.update(delta.object)
                self.mirror[name_key] = delta.object

    def pop(self) -> tuple[list[Delta], bool]:
        popped: list[tuple[list[Delta], bool]] = []
        fifo: Any = self.fifo  # type: ignore[attr-defined]
        returned = self.harness.wait(fifo.pop(lambda deltas, initial: popped.append((list(deltas), initial))))
        assert len(popped) == 1
        assert returned == popped[0][0]
        self.apply(returned)
        return popped[0]

    @invariant()
    def store_matches_mirror(self) -> None:
        assert self.store.list_keys() == list(self.mirror)
        self.store.check_invariants()

    def teardown(self) -> None:
        self.harness.close()


class DeltaFIFOMachine(FIFOMachine):
    """As an informer uses it: the consumer's store as known objects, relists as Replaced."""

    KNOWN = True
    EMIT_REPLACED = True

    def __init__(self) -> None:
        super().__init__()
        self.fifo = DeltaFIFO(
            known_objects=self.store if self.KNOWN else None,
            emit_delta_type_replaced=self.EMIT_REPLACED,
            transformer=mark if self.TRANSFORM else None,
        )
        #: per key its pending deltas; dict order is the order keys arrived in
        self.items: dict[str, list[Delta]] = {}
        #: keys of the first Replace not popped yet (None until a first Replace populates the queue)
        self.initial: set[str] | None = None

    # -- the model -------------------------------------------------------------------------------------------

    def push(self, k: str, delta: Delta) -> None:
        deltas = self.items.setdefault(k, [])
        deltas.append(delta)
        if len(deltas) >= 2 and deltas[-1].type is D and deltas[-2].type is D:
            # two deletions in a row are one; a real final state beats a tombstone
            older, newer = deltas[-2], deltas[-1]
            deltas[-2:] = [newer if isinstance(older.object, DeletedFinalStateUnknown) else older]

    def knows(self, k: str) -> bool:
        return self.KNOWN and k in self.mirror

    def has_synced(self) -> bool:
        return self.populated and not self.initial

    # -- rules -----------------------------------------------------------------------------------------------

    @rule(name=st.sampled_from(NAMES))
    def add(self, name: str) -> None:
        obj = self.fresh(name)
        self.populated = True
        self.push(key(name), Delta(A, self.tf(obj)))
        self.fifo.add(obj)

    @rule(name=st.sampled_from(NAMES))
    def update(self, name: str) -> None:
        obj = self.fresh(name)
        self.populated = True
        self.push(key(name), Delta(U, self.tf(obj)))
        self.fifo.update(obj)

    @rule(name=st.sampled_from(NAMES), tombstone=st.booleans())
    def delete(self, name: str, tombstone: bool) -> None:
        k = key(name)
        obj: Any = DeletedFinalStateUnknown(k, self.mirror.get(k)) if tombstone else self.fresh(name)
        self.populated = True
        if self.knows(k) or k in self.items:
            self.push(k, Delta(D, self.tf(obj)))
        self.fifo.delete(obj)

    @rule(names=st.lists(st.sampled_from(NAMES), max_size=5))
    def replace(self, names: list[str]) -> None:
        objs = [self.fresh(name) for name in names]
        listed = {key(name) for name in names}
        # first the deletions the list implies: for queued keys, then for keys only the consumer knows
        gone = [
            DeletedFinalStateUnknown(k, unwrap(deltas[-1].object))
            for k, deltas in self.items.items()
            if k not in listed
        ]
        if self.KNOWN:
            gone += [
                DeletedFinalStateUnknown(k, obj)
                for k, obj in self.mirror.items()
                if k not in listed and k not in self.items
            ]
        # a key whose newest delta is already a deletion gets one more, which the merge of deletions absorbs
        for tombstone in gone:
            self.push(tombstone.key, Delta(D, tombstone))
        for obj in objs:
            self.push(meta_namespace_key(obj), Delta(R if self.EMIT_REPLACED else S, self.tf(obj)))
        if not self.populated:
            self.populated = True
            self.initial = set(self.items)
        self.fifo.replace(objs, "1")

    @rule()
    def resync(self) -> None:
        if self.KNOWN:
            for k, obj in self.mirror.items():
                if k not in self.items:
                    self.push(k, Delta(S, obj))
        self.fifo.resync()

    @precondition(lambda self: self.items)
    @rule()
    def pop_next(self) -> None:
        expected_in_initial = not self.has_synced()
        k = next(iter(self.items))
        expected = self.items.pop(k)
        if self.initial is not None:
            self.initial.discard(k)
        deltas, in_initial = self.pop()
        assert deltas == expected
        assert in_initial == expected_in_initial

    @rule()
    def close(self) -> None:
        self.closed = True
        self.fifo.close()

    @precondition(lambda self: self.closed and not self.items)
    @rule()
    def pop_closed(self) -> None:
        try:
            self.harness.wait(self.fifo.pop(lambda deltas, initial: None))
        except FIFOClosedError:
            return
        raise AssertionError("pop on a closed, empty DeltaFIFO returned")

    # -- invariants ------------------------------------------------------------------------------------------

    @invariant()
    def matches_model(self) -> None:
        self.fifo.check_invariants()
        assert self.fifo.list_keys() == list(self.items)
        assert len(self.fifo) == len(self.items)
        for name in NAMES:
            assert self.fifo.get_by_key(key(name)) == self.items.get(key(name))
        assert self.fifo.list() == [deltas[-1].object for deltas in self.items.values()]
        assert self.fifo.has_synced() == self.has_synced()
        assert self.fifo.closed == self.closed

    @invariant()
    def no_two_deletions_in_a_row(self) -> None:
        for k in self.fifo.list_keys():
            types = [delta.type for delta in self.fifo.get_by_key(k) or []]
            assert [D, D] not in [types[i : i + 2] for i in range(len(types) - 1)]


class DeltaFIFOSyncTransformMachine(DeltaFIFOMachine):
    """Relists as Sync deltas, with a transformer (the transformer must still see listed objects)."""

    EMIT_REPLACED = False
    TRANSFORM = True


class DeltaFIFOWithoutKnownObjectsMachine(DeltaFIFOMachine):
    """No consumer store: deletions and Replace's tombstones are judged by the queue alone."""

    KNOWN = False
    EMIT_REPLACED = False
    TRANSFORM = True


class RealFIFOMachine(FIFOMachine):
    """Every delta one by one, in arrival order; its model is a plain list."""

    def __init__(self) -> None:
        super().__init__()
        self.fifo = RealFIFO(known_objects=self.store, transformer=mark if self.TRANSFORM else None)
        #: every pending delta, oldest first, and whether it belongs to the initial population
        self.deltas: list[tuple[Delta, bool]] = []

    def push(self, delta: Delta) -> None:
        self.deltas.append((delta, False))

    def queued_keys(self) -> list[str]:
        return list(dict.fromkeys(meta_namespace_key(delta.object) for delta, _ in self.deltas))

    def has_synced(self) -> bool:
        return self.populated and not any(initial for _, initial in self.deltas)

    @rule(name=st.sampled_from(NAMES), kind=st.sampled_from([A, U]))
    def add_or_update(self, name: str, kind: DeltaType) -> None:
        obj = self.fresh(name)
        self.populated = True
        self.push(Delta(kind, self.tf(obj)))
        (self.fifo.add if kind is A else self.fifo.update)(obj)

    @rule(name=st.sampled_from(NAMES), tombstone=st.booleans())
    def delete(self, name: str, tombstone: bool) -> None:
        k = key(name)
        obj: Any = DeletedFinalStateUnknown(k, self.mirror.get(k)) if tombstone else self.fresh(name)
        self.populated = True
        self.push(Delta(D, self.tf(obj)))  # every deletion is queued, known or not
        self.fifo.delete(obj)

    @rule(names=st.lists(st.sampled_from(NAMES), max_size=5))
    def replace(self, names: list[str]) -> None:
        objs = [self.fresh(name) for name in names]
        listed = {key(name) for name in names}
        newest: dict[str, Delta] = {}
        for delta, _ in self.deltas:
            newest[meta_namespace_key(delta.object)] = delta
        for k, delta in newest.items():
            if k not in listed and delta.type is not D:
                self.push(Delta(D, DeletedFinalStateUnknown(k, unwrap(delta.object))))
        for k, obj in self.mirror.items():
            if k not in listed and k not in newest:
                self.push(Delta(D, DeletedFinalStateUnknown(k, obj)))
        for obj in objs:
            self.push(Delta(R, self.tf(obj)))
        if not self.populated:
            self.populated = True
            self.deltas = [(delta, True) for delta, _ in self.deltas]
        self.fifo.replace(objs, "1")

    @rule()
    def resync(self) -> None:
        queued = set(self.queued_keys())
        for k, obj in self.mirror.items():
            if k not in queued:
                self.push(Delta(S, obj))
        self.fifo.resync()

    @precondition(lambda self: self.deltas)
    @rule()
    def pop_next(self) -> None:
        expected_in_initial = not self.has_synced()
        expected, _ = self.deltas.pop(0)
        deltas, in_initial = self.pop()
        assert deltas == [expected]
        assert in_initial == expected_in_initial

    @rule()
    def close(self) -> None:
        self.closed = True
        self.fifo.close()

    @precondition(lambda self: self.closed and not self.deltas)
    @rule()
    def pop_closed(self) -> None:
        try:
            self.harness.wait(self.fifo.pop(lambda deltas, initial: None))
        except FIFOClosedError:
            return
        raise AssertionError("pop on a closed, empty RealFIFO returned")

    @invariant()
    def matches_model(self) -> None:
        assert len(self.fifo) == len(self.deltas)
        assert self.fifo.list() == [delta.object for delta, _ in self.deltas]
        assert self.fifo.list_keys() == self.queued_keys()
        for name in NAMES:
            pending = [d.object for d, _ in self.deltas if meta_namespace_key(d.object) == key(name)]
            assert self.fifo.get_by_key(key(name)) == (pending[-1] if pending else None)
        assert self.fifo.has_synced() == self.has_synced()
        assert self.fifo.closed == self.closed


class RealFIFOTransformMachine(RealFIFOMachine):
    """With a transformer: every object is transformed once on the way in, never tombstones or resyncs."""

    TRANSFORM = True


for machine in (
    DeltaFIFOMachine,
    DeltaFIFOSyncTransformMachine,
    DeltaFIFOWithoutKnownObjectsMachine,
    RealFIFOMachine,
    RealFIFOTransformMachine,
):
    machine.TestCase.settings = MACHINE_SETTINGS

TestDeltaFIFO = DeltaFIFOMachine.TestCase
TestDeltaFIFOSyncTransform = DeltaFIFOSyncTransformMachine.TestCase
TestDeltaFIFOWithoutKnownObjects = DeltaFIFOWithoutKnownObjectsMachine.TestCase
TestRealFIFO = RealFIFOMachine.TestCase
TestRealFIFOTransform = RealFIFOTransformMachine.TestCase


def test_replace_as_sync_still_transforms_listed_objects() -> None:
    """Regression: a DeltaFIFO that relists as Sync skipped its transformer for the listed objects (only
    resync's Syncs, taken from the already transformed store, may skip it)."""
    known = Indexer()
    known.add(mark(cm("k", rv="1")))
    fifo = DeltaFIFO(known_objects=known, transformer=mark)
    fifo.replace([cm("a", rv="2")], "2")
    assert fifo.get_by_key("default/a") == [Delta(S, mark(cm("a", rv="2")))]
    tombstone = DeletedFinalStateUnknown("default/k", mark(cm("k", rv="1")))
    assert fifo.get_by_key("default/k") == [Delta(D, tombstone)]

    async def drain() -> None:
        await fifo.pop(lambda deltas, initial: known.delete(deltas[-1].object))
        await fifo.pop(lambda deltas, initial: known.add(deltas[-1].object))

    run(drain)
    fifo.resync()
    assert fifo.get_by_key("default/a") == [Delta(S, mark(cm("a", rv="2")))]
