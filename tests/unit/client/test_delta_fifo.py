"""DeltaFIFO: per-key deltas, deletion dedup, tombstones from Replace, Resync, initial population, pop order."""

from __future__ import annotations

from typing import Any

import pytest

from kubelite.client.cache.delta_fifo import DeltaFIFO
from kubelite.client.cache.fifo import Delta, DeltaType, FIFOClosedError
from kubelite.client.cache.keys import DeletedFinalStateUnknown
from kubelite.client.cache.store import Indexer
from tests.unit.client.support import cm, run

A, U, D, R, S = DeltaType.ADDED, DeltaType.UPDATED, DeltaType.DELETED, DeltaType.REPLACED, DeltaType.SYNC


def summary(deltas: list[Delta]) -> list[tuple[str, str, str]]:
    out = []
    for delta in deltas:
        obj = delta.object
        if isinstance(obj, DeletedFinalStateUnknown):
            rv = (obj.obj or {}).get("metadata", {}).get("resourceVersion", "-")
            out.append((delta.type.value, "tombstone:" + obj.key, rv))
        else:
            out.append((delta.type.value, obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))
    return out


async def pop_all(fifo: Any) -> list[tuple[list[tuple[str, str, str]], bool]]:
    popped: list[tuple[list[tuple[str, str, str]], bool]] = []
    while len(fifo):
        await fifo.pop(lambda deltas, initial: popped.append((summary(deltas), initial)))
    return popped


def test_deltas_accumulate_per_key_in_first_arrival_order() -> None:
    fifo = DeltaFIFO()
    fifo.add(cm("a", rv="1"))
    fifo.add(cm("b", rv="2"))
    fifo.update(cm("a", rv="3"))
    fifo.check_invariants()
    assert fifo.list_keys() == ["default/a", "default/b"]
    assert [o["metadata"]["resourceVersion"] for o in fifo.list()] == ["3", "2"]
    assert summary(fifo.get_by_key("default/a") or []) == [("Added", "a", "1"), ("Updated", "a", "3")]
    popped = run(lambda: pop_all(fifo))
    assert popped == [
        ([("Added", "a", "1"), ("Updated", "a", "3")], False),
        ([("Added", "b", "2")], False),
    ]


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        (cm("a", rv="5"), cm("a", rv="6"), [("Deleted", "a", "5")]),
        (DeletedFinalStateUnknown("default/a", cm("a", rv="4")), cm("a", rv="6"), [("Deleted", "a", "6")]),
        (cm("a", rv="5"), DeletedFinalStateUnknown("default/a", cm("a", rv="4")), [("Deleted", "a", "5")]),
    ],
    ids=["two-real-keeps-older", "tombstone-then-real-keeps-real", "real-then-tombstone-keeps-real"],
)
def test_consecutive_deletes_collapse(first: Any, second: Any, kept: list[tuple[str, str, str]]) -> None:
    known = Indexer()
    known.add(cm("a", rv="4"))
    fifo = DeltaFIFO(known_objects=known)
    fifo.delete(first)
    fifo.delete(second)
    assert summary(fifo.get_by_key("default/a") or []) == kept


def test_delete_of_unknown_object_is_dropped() -> None:
    fifo = DeltaFIFO(known_objects=Indexer())
    fifo.delete(cm("ghost"))
    assert len(fifo) == 0
    bare = DeltaFIFO()
    bare.delete(cm("ghost"))
    assert len(bare) == 0


def test_replace_queues_tombstones_for_known_and_queued_objects() -> None:
    known = Indexer()
    known.add(cm("kept", rv="1"))
    known.add(cm("gone", rv="2"))
    fifo = DeltaFIFO(known_objects=known, emit_delta_type_replaced=True)
    fifo.add(cm("pending", rv="3"))  # queued, never popped, and absent from the relist
    fifo.replace([cm("kept", rv="1"), cm("new", rv="4")], "4")
    fifo.check_invariants()
    by_key = {key: summary(fifo.get_by_key(key) or []) for key in fifo.list_keys()}
    assert by_key == {
        "default/pending": [("Added", "pending", "3"), ("Deleted", "tombstone:default/pending", "3")],
        "default/gone": [("Deleted", "tombstone:default/gone", "2")],
        "default/kept": [("Replaced", "kept", "1")],
        "default/new": [("Replaced", "new", "4")],
    }


def test_replace_without_known_objects_uses_the_queue_and_sync_type() -> None:
    fifo = DeltaFIFO()
    fifo.add(cm("a", rv="1"))
    fifo.add(cm("b", rv="2"))
    fifo.replace([cm("b", rv="2")], "2")
    assert summary(fifo.get_by_key("default/a") or []) == [
        ("Added", "a", "1"),
        ("Deleted", "tombstone:default/a", "1"),
    ]
    assert summary(fifo.get_by_key("default/b") or []) == [("Added", "b", "2"), ("Sync", "b", "2")]


def test_initial_population_and_has_synced() -> None:
    known = Indexer()
    known.add(cm("stale"))
    fifo = DeltaFIFO(known_objects=known, emit_delta_type_replaced=True)
    assert not fifo.has_synced()
    fifo.replace([cm("a"), cm("b")], "10")
    assert not fifo.has_synced()
    fifo.add(cm("c"))  # arrives after the initial list
    popped = run(lambda: pop_all(fifo))
    # the initial population is the two listed objects and the one tombstone
    assert [initial for _, initial in popped] == [True, True, True, False]
    assert fifo.has_synced()


def test_empty_replace_syncs_at_once() -> None:
    fifo = DeltaFIFO(known_objects=Indexer())
    fifo.replace([], "1")
    assert fifo.has_synced()


def test_resync_skips_keys_with_pending_deltas() -> None:
    known = Indexer()
    known.add(cm("quiet", rv="1"))
    known.add(cm("busy", rv="1"))
    fifo = DeltaFIFO(known_objects=known)
    fifo.update(cm("busy", rv="2"))
    fifo.resync()
    assert summary(fifo.get_by_key("default/busy") or []) == [("Updated", "busy", "2")]
    assert summary(fifo.get_by_key("default/quiet") or []) == [("Sync", "quiet", "1")]


def test_transformer_applies_to_everything_but_tombstones_and_syncs() -> None:
    def strip(obj: dict[str, Any]) -> dict[str, Any]:
        return {**obj, "metadata": {**obj["metadata"], "managedFields": None, "resourceVersion": "T"}}

    known = Indexer()
    known.add(cm("k", rv="1"))
    fifo = DeltaFIFO(known_objects=known, transformer=strip)
    fifo.add(cm("a", rv="1"))
    fifo.resync()
    assert summary(fifo.get_by_key("default/a") or []) == [("Added", "a", "T")]
    assert summary(fifo.get_by_key("default/k") or []) == [("Sync", "k", "1")]


def test_pop_on_closed_empty_queue_raises() -> None:
    fifo = DeltaFIFO()
    fifo.add(cm("a"))
    fifo.close()

    async def body() -> None:
        await fifo.pop(lambda deltas, initial: None)  # what was queued is still handed out
        with pytest.raises(FIFOClosedError):
            await fifo.pop(lambda deltas, initial: None)

    run(body)
    assert fifo.closed


def test_key_of_deltas_and_tombstones() -> None:
    fifo = DeltaFIFO()
    assert fifo.key_of([Delta(A, cm("x", "ns"))]) == "ns/x"
    assert fifo.key_of(DeletedFinalStateUnknown("k", None)) == "k"
    with pytest.raises(ValueError):
        fifo.key_of([])
