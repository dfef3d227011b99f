"""kubelite.util.clock: the fake clock moves only when stepped, and the client's clock is the same machinery.

Sleeping and deadlines on the fake clock are exercised through the client's clock in
tests/unit/client/test_clock_and_backoff.py, which runs this module's code.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kubelite.client import clock as client_clock
from kubelite.util.clock import FakeClock, RealClock


def test_real_clock_now_is_aware_utc() -> None:
    now = RealClock().now()
    assert now.tzinfo is UTC


def test_fake_clock_now_follows_steps() -> None:
    clock = FakeClock(start=10.0, wall_offset=1_700_000_000.0)
    assert clock.now() == datetime.fromtimestamp(1_700_000_010.0, UTC)
    clock.step(2.5)
    assert clock.monotonic() == 12.5
    assert clock.now() == datetime.fromtimestamp(1_700_000_012.5, UTC)
    with pytest.raises(ValueError, match="does not go back"):
        clock.set(1.0)


def test_client_clock_reads_epoch_seconds_from_the_same_machinery() -> None:
    clock = client_clock.FakeClock(start=0.0, wall_offset=100.0)
    assert isinstance(clock, FakeClock)
    clock.step(1)
    assert clock.now() == 101.0
