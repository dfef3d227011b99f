"""The scheduling loop's pieces together, at a small scale: every pod placed, spread over the nodes. The figures
at scale come from `python -m bench.scheduler_micro`."""

from __future__ import annotations

from bench.scheduler_micro import run


def test_a_thousand_pods_are_placed_on_a_hundred_nodes() -> None:
    _, placed = run(1_000, 100)
    assert sum(placed.values()) == 1_000
    assert len(placed) == 100  # least-allocated scoring spreads them
