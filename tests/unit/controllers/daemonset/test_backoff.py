"""flowcontrol.Backoff, as the DaemonSet controller uses it for failed pods."""

from __future__ import annotations

from kubelite.controllers.daemonset.backoff import Backoff


def test_the_backoff_doubles_up_to_its_maximum_and_starts_over_when_quiet() -> None:
    backoff = Backoff(initial=1.0, maximum=4.0)
    assert not backoff.in_backoff_since_update("k", 0.0)
    backoff.next("k", 0.0)
    assert backoff.get("k") == 1.0
    assert backoff.in_backoff_since_update("k", 0.5)
    assert not backoff.in_backoff_since_update("k", 1.0)
    for now, expected in ((1.0, 2.0), (3.0, 4.0), (7.0, 4.0)):
        backoff.next("k", now)
        assert backoff.get("k") == expected
    # untouched for more than twice the maximum: expired, and collected
    assert not backoff.in_backoff_since_update("k", 15.5)
    backoff.next("k", 15.5)
    assert backoff.get("k") == 1.0
    backoff.gc(24.0)
    assert backoff.get("k") == 0.0
