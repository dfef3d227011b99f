"""The listening sockets and their accept loop: backlog, failed accepts, and the open-file limit.

uvloop's own server stops listening for good after one failed accept (EMFILE, when the process is out of
file descriptors) and logs nothing, so every later client is refused. kubelite accepts by itself instead,
the way Go's `http.Server.Serve` does: a failed accept is counted and logged (at most one line per
`LOG_EVERY` seconds), accepting pauses with a backoff from 5 ms doubling to 1 s while new clients wait in
the backlog, then resumes. Each accepted socket goes to the loop's `connect_accepted_socket`, which runs
the TLS handshake (bounded by the read-header timeout, as Go bounds it) and the HTTP protocol.

The backlog is the kernel's `net.core.somaxconn`, as Go's listeners use; aiohttp's sites would otherwise
listen again with their default of 128.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import ssl
import time
from pathlib import Path

from aiohttp import web

log = logging.getLogger(__name__)

ACCEPT_BACKOFF_MIN = 0.005
ACCEPT_BACKOFF_MAX = 1.0
#: connections accepted per wake-up of the loop before other work gets a turn
ACCEPT_BATCH = 128
#: at most one log line per this many seconds about failed accepts
LOG_EVERY = 5.0
#: failures that pass by themselves (a client gone before its accept); retried at once, as Go does
_TRANSIENT = frozenset({errno.ECONNABORTED, errno.EPROTO, errno.EPERM})


def listen_backlog() -> int:
    """Go's listen backlog: net.core.somaxconn (capped at 65535 for old kernels' 16-bit field)."""
    try:
        value = int(Path("/proc/sys/net/core/somaxconn").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return socket.SOMAXCONN
    return max(1, min(value, 65535))


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(listen_backlog())
        sock.setblocking(False)
    except BaseException:
        sock.close()  # an address in use, say: the caller reports it, and no descriptor is left behind
        raise
    return sock


class AcceptFailures:
    """Failed accepts, counted, and logged at most once per `LOG_EVERY` seconds with how many there were."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.total = 0
        self._unlogged = 0
        self._logged_at = float("-inf")

    def record(self, exc: OSError, retry_in: float) -> None:
        self.total += 1
        self._unlogged += 1
        now = time.monotonic()
        if now - self._logged_at < LOG_EVERY:
            return
        log.error(
            "%s: accept failed: %s; retrying in %.0fms (%d failed accepts since the last report, %d in all)",
            self.name, exc, retry_in * 1000, self._unlogged, self.total,
        )
        self._logged_at = now
        self._unlogged = 0


class ListenerSite(web.BaseSite):
    """An aiohttp site serving an already bound socket through kubelite's own accept loop."""

    __slots__ = ("_backoff", "_handshake_timeout", "_paused", "_pending", "_sock", "_tls", "failures")

    def __init__(
        self,
        runner: web.BaseRunner,
        sock: socket.socket,
        *,
        ssl_context: ssl.SSLContext | None,
        handshake_timeout: float,
    ) -> None:
        super().__init__(runner, ssl_context=ssl_context)
        self._sock = sock
        self._tls = ssl_context
        self._handshake_timeout = handshake_timeout
        address = sock.getsockname()
        self.failures = AcceptFailures(f"{'https' if ssl_context else 'http'}://{address[0]}:{address[1]}")
        self._backoff = 0.0
        self._paused: asyncio.TimerHandle | None = None
        self._pending: set[asyncio.Task[None]] = set()

    @property
    def name(self) -> str:
        return self.failures.name

    async def start(self) -> None:
        await super().start()
        asyncio.get_running_loop().add_reader(self._sock.fileno(), self._accept)

    async def stop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._paused is not None:
            self._paused.cancel()
            self._paused = None
        if self._sock.fileno() >= 0:
            loop.remove_reader(self._sock.fileno())
            self._sock.close()
        for task in list(self._pending):  # handshakes in progress
            task.cancel()
        await super().stop()

    def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(ACCEPT_BATCH):
            try:
                conn, _ = self._sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _TRANSIENT:
                    continue
                self._pause(loop, exc)
                return
            self._backoff = 0.0
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            task = loop.create_task(self._connect(loop, conn))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    def _pause(self, loop: asyncio.AbstractEventLoop, exc: OSError) -> None:
        """Stop accepting for a while (descriptors run out: pending clients wait in the backlog)."""
        self._backoff = min(ACCEPT_BACKOFF_MAX, self._backoff * 2 or ACCEPT_BACKOFF_MIN)
        self.failures.record(exc, self._backoff)
        loop.remove_reader(self._sock.fileno())
        self._paused = loop.call_later(self._backoff, self._resume, loop)

    def _resume(self, loop: asyncio.AbstractEventLoop) -> None:
        self._paused = None
        if self._sock.fileno() >= 0:
            loop.add_reader(self._sock.fileno(), self._accept)

    async def _connect(self, loop: asyncio.AbstractEventLoop, conn: socket.socket) -> None:
        server = self._runner.server
        assert server is not None
        try:
            if self._tls is None:
                await loop.connect_accepted_socket(server, conn)
            else:
                await loop.connect_accepted_socket(
                    server, conn, ssl=self._tls, ssl_handshake_timeout=self._handshake_timeout
                )
        except (TimeoutError, OSError, ssl.SSLError) as exc:
            # a failed or abandoned TLS handshake: the transport is closed already
            log.debug("%s: connection not established: %s", self.name, exc)
