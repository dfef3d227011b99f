"""SIGTERM and SIGINT at every stage of a server process: start-up, serving and shutdown.

`ShutdownSignals.install()` runs first thing in `kubelite serve`, before any slow import or step, so no
stage ignores a signal:

- during start-up (imports, opening the store, loading the watch caches) a signal raises `ShutdownRequested`
  in the main thread, wherever it is, even in a step that never yields to the event loop; start-up unwinds
  through its cleanups and the process exits 0. Nothing was acknowledged yet, so a cleanup still waiting
  after `STARTUP_GRACE` seconds (a write stuck on a locked store, say) is not waited for: exit 0 then too;
- while serving, a signal asks for a graceful shutdown (the ports close, the store closes), exit 0;
- a second signal, or a shutdown still running `FORCE_AFTER` seconds after the first, ends the process at
  once with exit code 1, as kube-apiserver's signal handler does on a second signal.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: how long a shutdown may take after the first signal before the process is ended regardless
FORCE_AFTER = 10.0
#: how long an interrupted start-up may take to unwind
STARTUP_GRACE = 2.0


class ShutdownRequested(SystemExit):
    """Raised by a signal during start-up. A SystemExit, so that the event loop lets it through and ends its run,
    and that `except Exception` in a start-up step cannot swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(0)
        self.signum = signum


class ShutdownSignals:
    def __init__(self) -> None:
        self._on_signal: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.received: int | None = None
        self._previous: dict[int, Any] = {}
        #: ends the process if the shutdown the first signal started does not finish in time
        self._watchdog: threading.Timer | None = None

    def install(self) -> None:
        for sig in SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)

    def uninstall(self) -> None:
        """The caller's handlers back; a shutdown that finished needs no watchdog (a caller of `main` goes on)."""
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def serving(self, loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> None:
        """From now on a signal calls `stop` in `loop` instead of interrupting what runs."""
        self._loop, self._on_signal = loop, stop

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.received is not None:
            log.warning("second signal %s: exiting now", signal.Signals(signum).name)
            os._exit(1)
        self.received = signum
        log.info("%s received: shutting down", signal.Signals(signum).name)
        starting = self._loop is None or self._on_signal is None
        self._watchdog = threading.Timer(STARTUP_GRACE if starting else FORCE_AFTER, _exit_now, (0 if starting else 1,))
        self._watchdog.daemon = True
        self._watchdog.start()
        if starting:
            raise ShutdownRequested(signum)
        assert self._loop is not None and self._on_signal is not None
        self._loop.call_soon_threadsafe(self._on_signal)


def _exit_now(code: int) -> None:
    if code:
        log.error("shutdown did not finish within %.0fs of the signal: exiting now", FORCE_AFTER)
    else:
        log.warning("interrupted start-up still unwinding after %.0fs: exiting without waiting", STARTUP_GRACE)
    os._exit(code)
