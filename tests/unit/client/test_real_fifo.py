"""RealFIFO: every delta in arrival order, Replace's synthetic deletions, initial population, resync."""

from __future__ import annotations

import pytest

from kubelite.client.cache.fifo import FIFOClosedError
from kubelite.client.cache.real_fifo import RealFIFO
from kubelite.client.cache.store import Indexer
from tests.unit.client.support import cm, run
from tests.unit.client.test_delta_fifo import pop_all, summary


def test_every_delta_in_order() -> None:
    fifo = RealFIFO(known_objects=Indexer())
    fifo.add(cm("a", rv="1"))
    fifo.add(cm("b", rv="2"))
    fifo.update(cm("a", rv="3"))
    fifo.delete(cm("b", rv="4"))
    assert fifo.list_keys() == ["default/a", "default/b"]
    assert fifo.get_by_key("default/a")["metadata"]["resourceVersion"] == "3"
    popped = run(lambda: pop_all(fifo))
    assert popped == [
        ([("Added", "a", "1")], False),
        ([("Added", "b", "2")], False),
        ([("Updated", "a", "3")], False),
        ([("Deleted", "b", "4")], False),
    ]


def test_replace_deletes_first_then_replaced() -> None:
    known = Indexer()
    known.add(cm("kept", rv="1"))
    known.add(cm("gone", rv="2"))
    fifo = RealFIFO(known_objects=known)
    fifo.add(cm("pending", rv="3"))
    fifo.add(cm("deleted-while-queued", rv="4"))
    fifo.delete(cm("deleted-while-queued", rv="5"))
    fifo.replace([cm("kept", rv="1"), cm("new", rv="6")], "6")
    assert [summary([d])[0] for d in _deltas(fifo)] == [
        ("Added", "pending", "3"),
        ("Added", "deleted-while-queued", "4"),
        ("Deleted", "deleted-while-queued", "5"),
        ("Deleted", "tombstone:default/pending", "3"),
        ("Deleted", "tombstone:default/gone", "2"),
        ("Replaced", "kept", "1"),
        ("Replaced", "new", "6"),
    ]


def _deltas(fifo: RealFIFO) -> list:  # type: ignore[type-arg]
    return list(fifo._items)


def test_initial_population_counts_everything_queued_at_first_replace() -> None:
    fifo = RealFIFO(known_objects=Indexer())
    fifo.replace([cm("a"), cm("b")], "5")
    fifo.add(cm("c"))
    popped = run(lambda: pop_all(fifo))
    assert [initial for _, initial in popped] == [True, True, False]
    assert fifo.has_synced()


def test_resync_skips_queued_keys() -> None:
    known = Indexer()
    known.add(cm("quiet", rv="1"))
    known.add(cm("busy", rv="1"))
    fifo = RealFIFO(known_objects=known)
    fifo.update(cm("busy", rv="2"))
    fifo.resync()
    assert [summary([d])[0] for d in _deltas(fifo)] == [("Updated", "busy", "2"), ("Sync", "quiet", "1")]


def test_needs_known_objects() -> None:
    with pytest.raises(ValueError):
        RealFIFO(known_objects=None)  # type: ignore[arg-type]


def test_closed() -> None:
    fifo = RealFIFO(known_objects=Indexer())
    fifo.close()

    async def body() -> None:
        with pytest.raises(FIFOClosedError):
            await fifo.pop(lambda deltas, initial: None)

    run(body)


def test_pop_waits_for_a_push() -> None:
    import asyncio

    fifo = RealFIFO(known_objects=Indexer())

    async def body() -> list[str]:
        got: list[str] = []
        waiter = asyncio.create_task(
            fifo.pop(lambda deltas, initial: got.append(deltas[0].object["metadata"]["name"]))
        )
        await asyncio.sleep(0)
        assert not waiter.done()
        fifo.add(cm("late"))
        await waiter
        return got

    assert run(body) == ["late"]
