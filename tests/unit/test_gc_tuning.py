"""The collector tuning: survivors of full collections are frozen, and a sweep still finds frozen cycles."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from kubelite.server.gc_tuning import YOUNG_THRESHOLD, FreezeAfterFullCollection, sweep


@pytest.fixture
def frozen_clean() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_survivors_of_a_full_collection_are_frozen(frozen_clean: None) -> None:
    tuner = FreezeAfterFullCollection()
    tuner.install()
    try:
        kept = [[i] for i in range(1000)]
        gc.collect(2)
        assert tuner.freezes == 1
        assert gc.get_freeze_count() >= len(kept)
        gc.collect(1)  # a younger collection leaves the frozen alone
        assert tuner.freezes == 1
    finally:
        tuner.uninstall()
    assert tuner._on_collection not in gc.callbacks


def test_a_sweep_collects_cycles_that_died_after_being_frozen(frozen_clean: None) -> None:
    class Node:
        def __init__(self) -> None:
            self.me = self

    node = Node()
    alive = weakref.ref(node)
    gc.freeze()
    del node  # a cycle: only the cyclic collector can free it, and it is frozen
    gc.collect()
    assert alive() is not None
    sweep()
    assert alive() is None
    assert gc.get_freeze_count() > 0  # the survivors are frozen again


def test_the_young_generation_is_collected_less_often_while_installed() -> None:
    before = gc.get_threshold()
    tuner = FreezeAfterFullCollection()
    tuner.install()
    try:
        assert gc.get_threshold() == (max(before[0], YOUNG_THRESHOLD), before[1], before[2])
        tuner.install()  # twice: still one set of thresholds to restore
    finally:
        tuner.uninstall()
    assert gc.get_threshold() == before
