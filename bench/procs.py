"""The processes a benchmark run starts, where they run, and what they cost.

Cores: with two or more CPUs the servers get the first and everything that makes load (wrk, the Python
generators, watchers, this process) the second, through `taskset`; with one CPU nothing is pinned and the
output says so. CPU time and RSS are read from /proc/<pid>, so they cover the server process alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_TICKS = os.sysconf("SC_CLK_TCK")
_PORT_LINE = re.compile(r"serving insecurely on http://[^:]+:(\d+)|^port (\d+)")


@dataclass(frozen=True)
class Placement:
    server: str | None
    load: str | None

    def pin_server(self) -> list[str]:
        return ["taskset", "-c", self.server] if self.server is not None else []

    def pin_load(self) -> list[str]:
        return ["taskset", "-c", self.load] if self.load is not None else []

    def describe(self) -> str:
        if self.server is None:
            return "not pinned (one CPU, or no taskset): server and load share the CPU"
        return f"server on CPU {self.server}, load on CPU {self.load}"


def placement() -> Placement:
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or not shutil.which("taskset"):
        return Placement(None, None)
    return Placement(str(cpus[0]), str(cpus[1]))


def pin_self(where: Placement) -> None:
    """This process drives seeding, creators and bookkeeping: it belongs with the load."""
    if where.load is not None:
        os.sched_setaffinity(0, {int(where.load)})


def cpu_seconds(pid: int) -> float:
    """User + system CPU of the process (all its threads), from /proc/<pid>/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


class Server:
    """A server process that prints its port (`serving insecurely on http://host:PORT` or `port PORT`)."""

    def __init__(self, name: str, cmd: list[str], log_path: Path, env: dict[str, str] | None = None) -> None:
        self.name = name
        self.cmd = cmd
        self.log_path = log_path
        self.env = env
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        #: seconds from spawn to the line that says it is ready
        self.ready_after = 0.0

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, ready: str = "ready", timeout: float = 120.0) -> Server:
        started = time.perf_counter()
        with self.log_path.open("a") as log:
            self.proc = subprocess.Popen(
                self.cmd, stdout=subprocess.PIPE, stderr=log, text=True, cwd=ROOT, env=self.env
            )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                tail = "\n".join(self.log_path.read_text(errors="replace").splitlines()[-20:])
                raise RuntimeError(f"{self.name} exited early:\n{tail}")
            match = _PORT_LINE.search(line)
            if match:
                self.port = int(match.group(1) or match.group(2))
            if ready in line:
                self.ready_after = time.perf_counter() - started
                return self
        raise RuntimeError(f"{self.name} was not ready within {timeout}s; see {self.log_path}")

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout:
            with contextlib.suppress(OSError):
                self.proc.stdout.close()


#: the API server alone: the scenarios measure the API's paths, which a simulated cluster's components (a
#: scheduler binding the pods created, a kubelet writing their status) would add their own work to
API_SERVER_ONLY = (
    "--nodes=0",
    "--scheduler=false",
    "--controllers=namespace-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,"
    "pod-termination-controller,garbage-collector-controller",
)


def kubelite_cmd(
    data_dir: Path,
    profile: str | None = None,
    profile_out: Path | None = None,
    *,
    tls: bool = False,
    cluster: tuple[str, ...] = API_SERVER_ONLY,
) -> list[str]:
    """`kubelite serve` on a free loopback port; TLS only if asked (only start-up measures it); `cluster` are
    the flags of the simulated cluster beside it (none by default)."""
    secure = "0" if tls else "-1"
    serve = ["-m", "kubelite", "serve", "--data-dir", str(data_dir), "--insecure-port", "0", "--secure-port", secure,
             *cluster]  # fmt: skip
    if profile == "cprofile":
        assert profile_out is not None
        return [sys.executable, "-m", "cProfile", "-o", str(profile_out), *serve]
    if profile == "pyinstrument":
        assert profile_out is not None
        return [sys.executable, "-m", "pyinstrument", "-r", "text", "-o", str(profile_out), *serve]
    return [sys.executable, *serve]


def python_cmd(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]
