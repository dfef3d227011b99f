"""The bookmark timer: every interval, each watch cache tells its bookmark watchers how far it has come.

kube's cacher sends a bookmark to each watcher that asked for them about once a minute, so a client that
re-watches after a quiet spell starts from a recent resourceVersion instead of a compacted one. One timer
serves every cache; it sleeps on the injected clock, so tests step it.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubelite.storage.cacher.cacher import Cacher
from kubelite.util.clock import Clock


async def send_bookmarks_every(interval: float, cachers: Iterable[Cacher], clock: Clock) -> None:
    """Runs until cancelled."""
    while True:
        await clock.sleep(interval)
        for cacher in cachers:
            cacher.send_bookmarks()
