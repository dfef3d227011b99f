"""What every scenario shares in one run: settings, placement, the servers it starts, and the raw figures.

The HTTP baseline server starts once and stays up (idle, it costs nothing); kubelite and kmock start per
scenario on fresh data, so one scenario's leftovers do not weigh on the next. Only one of them makes load
at a time, all on the server core.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import orjson

from bench import load, procs
from bench.httpclient import request

T = TypeVar("T")


@dataclass
class Settings:
    quick: bool = False
    #: closed-loop concurrency of the HTTP scenarios (the issue's 32 connections)
    connections: int = 32
    #: load generator: auto (wrk if installed), wrk or python
    generator: str = "auto"
    #: cprofile or pyinstrument: profile kubelite during each measured phase
    profile: str | None = None
    #: an interpreter with kmock installed, or None to look in the usual places
    kmock_python: str | None = None

    @property
    def seconds(self) -> float:
        return 0.3 if self.quick else 4.0

    @property
    def warmup(self) -> float:
        return 0.0 if self.quick else 1.0


@dataclass
class Measured:
    """One closed-loop run against one server."""

    rate: float
    p50_ms: float
    p99_ms: float
    errors: int
    requests: int
    #: the server's CPU per request (all its threads), and its utilisation of the core over the run
    cpu_us: float
    cpu_util: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Context:
    settings: Settings
    results_dir: Path
    where: procs.Placement = field(default_factory=procs.placement)
    raw: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.generator = load.generator_name(self.settings.generator)
        self.tmp = Path(tempfile.mkdtemp(prefix="kubelite-bench-"))
        self._servers: list[procs.Server] = []
        self._baseline: procs.Server | None = None
        self._loop = asyncio.new_event_loop()

    # -- plumbing ------------------------------------------------------------------------------------------

    def run(self, coro: Awaitable[T]) -> T:
        return self._loop.run_until_complete(coro)

    def close(self) -> None:
        for server in self._servers:
            server.stop()
        self._loop.close()
        subprocess.run(["rm", "-rf", str(self.tmp)], check=False)

    def fresh_dir(self, name: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.tmp))
        return path

    def start_server(self, name: str, cmd: list[str], env: dict[str, str] | None = None) -> procs.Server:
        """Start a server on the server core; `close` stops it if the scenario does not."""
        server = procs.Server(name, [*self.where.pin_server(), *cmd], self.tmp / f"{name}.log", env)
        self._servers.append(server)
        return server.start()

    def stop(self, server: procs.Server) -> None:
        server.stop()
        if server in self._servers:
            self._servers.remove(server)

    # -- servers -------------------------------------------------------------------------------------------

    def baseline(self) -> procs.Server:
        if self._baseline is None:
            self._baseline = self.start_server("baseline", procs.python_cmd("bench.baseline_server"))
        return self._baseline

    def kubelite(self, data_dir: Path | None = None, profile_as: str | None = None) -> procs.Server:
        """A kubelite on `data_dir` (fresh if None); profiled as `profile_as` when profiling is on."""
        data_dir = data_dir or self.fresh_dir("kubelite")
        profile = self.settings.profile if profile_as else None
        out = None
        if profile:
            out = self.results_dir / f"profile-{profile_as}.{'prof' if profile == 'cprofile' else 'txt'}"
        return self.start_server("kubelite", procs.kubelite_cmd(data_dir, profile, out))

    def profiled(self, server: procs.Server, data_dir: Path, name: str) -> procs.Server:
        """Restart kubelite under the profiler for the measured phase only (set-up is left out)."""
        if not self.settings.profile:
            return server
        self.stop(server)
        return self.kubelite(data_dir, profile_as=name)

    def kmock_python(self) -> str | None:
        """An interpreter that imports kmock, or None (then the peer column says why)."""
        if "kmock_python" in self.cache:
            return self.cache["kmock_python"]
        candidates = (
            [self.settings.kmock_python]
            if self.settings.kmock_python
            else [
                str(procs.ROOT / "bench" / ".kmock-venv" / "bin" / "python"),
                str(procs.ROOT / ".venv" / "bin" / "python"),
            ]
        )
        found = None
        for python in candidates:
            if python and os.access(python, os.X_OK):
                check = subprocess.run([python, "-c", "import kmock"], capture_output=True, check=False)
                if check.returncode == 0:
                    found = python
                    break
        if found is None:
            self.note("kmock: not installed (bench/prepare.sh puts it in bench/.kmock-venv); peer column empty")
        self.cache["kmock_python"] = found
        return found

    def kmock(self, preload: Sequence[tuple[str, str, dict[str, Any]]] = ()) -> procs.Server | None:
        """kmock holding `preload` ([resource as `v1/pods`, namespace, object]), or None if it is not installed."""
        python = self.kmock_python()
        if python is None:
            return None
        path = self.tmp / "kmock-preload.json"
        entries = [[r, ns, {**o, "metadata": {**o["metadata"], "namespace": ns}}] for r, ns, o in preload]
        path.write_bytes(orjson.dumps(entries))
        return self.start_server("kmock", [python, str(procs.ROOT / "bench" / "kmock_server.py"), str(path)])

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # -- measuring -----------------------------------------------------------------------------------------

    def measure(
        self,
        label: str,
        server: procs.Server,
        workload: load.Workload,
        connections: int = 0,
        refresh: Callable[[], list[tuple[str, str]]] | None = None,
    ) -> Measured:
        """Warm up, then one measured run. Creates warm up under other names; updates re-read their pool."""
        connections = connections or self.settings.connections
        if self.settings.warmup:
            warmup = replace(workload, name_prefix=workload.name_prefix + "w")
            self._load(server, warmup, connections, self.settings.warmup)
            if refresh is not None:
                workload = replace(workload, pool=refresh())
        cpu_before = server.cpu()
        result = self._load(server, workload, connections, self.settings.seconds)
        cpu = server.cpu() - cpu_before
        measured = Measured(
            rate=result.rate,
            p50_ms=result.p50_ms,
            p99_ms=result.p99_ms,
            errors=result.errors,
            requests=result.requests,
            cpu_us=cpu / result.requests * 1e6 if result.requests else 0.0,
            cpu_util=cpu / result.seconds if result.seconds else 0.0,
        )
        self.raw[label] = measured.as_dict()
        if result.errors:
            self.note(f"{label}: {result.errors} of {result.requests} requests failed")
        return measured

    def _load(self, server: procs.Server, workload: load.Workload, connections: int, seconds: float) -> load.LoadResult:
        return load.run(
            workload,
            server.port,
            connections=connections,
            seconds=seconds,
            generator=self.generator,
            pin=self.where.pin_load(),
        )

    def blob(self, name: str, body: bytes) -> str:
        """Register `body` on the baseline server; returns the path that serves it."""
        server = self.baseline()
        status, _ = self.run(request("127.0.0.1", server.port, "PUT", f"/_blob/{name}", body))
        assert status == 204, status
        return f"/blob/{name}"
