"""Leader election between two processes on a real kubelite Lease: exactly one leads; when the leader stops
renewing (killed) the other takes over after the lease duration; a leader that releases on shutdown hands
over at once."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server import KubeliteProcess

CANDIDATE = """
import asyncio, signal, sys
from kubelite.client import Config, DynamicClient, RESTClient
from kubelite.client.leaderelection import LeaderCallbacks, LeaderElectionConfig, LeaderElector, LeaseLock

async def main(url, identity, lease, release):
    async with RESTClient(Config(host=url)) as rest:
        lock = LeaseLock.for_client(DynamicClient(rest), namespace="default", name=sys.argv[5], identity=identity)

        async def lead():
            print("START", identity, flush=True)
            await asyncio.Event().wait()

        config = LeaderElectionConfig(
            lock=lock,
            callbacks=LeaderCallbacks(lead, lambda: print("STOP", identity, flush=True)),
            lease_duration=lease, renew_deadline=lease * 2 / 3, retry_period=1.0, release_on_cancel=release,
        )
        task = asyncio.create_task(LeaderElector(config).run())
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        print("READY", identity, flush=True)
        try:
            await task
        except asyncio.CancelledError:
            pass

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "release"))
"""


class Candidate:
    def __init__(
        self, server: KubeliteProcess, identity: str, *, lease: float, release: bool, lock: str
    ) -> None:
        self.identity = identity
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CANDIDATE,
                server.url,
                identity,
                str(lease),
                "release" if release else "keep",
                lock,
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.strip()))

    def wait_for(self, text: str, timeout: float) -> float | None:
        """When `text` was printed, or None if it was not within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                when, line = self.lines.get(timeout=remaining)
            except queue.Empty:
                return None
            if line == f"{text} {self.identity}":
                return when

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(5)  # the pipe is at its end once the process is gone
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def candidates() -> Iterator[list[Candidate]]:
    made: list[Candidate] = []
    yield made
    for candidate in made:
        candidate.stop()


def lease_spec(server: KubeliteProcess, name: str) -> dict[str, object]:
    return dict(
        server.http("GET", f"/apis/coordination.k8s.io/v1/namespaces/default/leases/{name}").json()["spec"]
    )


def start_both(
    server: KubeliteProcess, candidates: list[Candidate], *, lease: float, release: bool, lock: str
) -> tuple[Candidate, Candidate]:
    one = Candidate(server, "one", lease=lease, release=release, lock=lock)
    candidates.append(one)
    assert one.wait_for("START", 20) is not None
    two = Candidate(server, "two", lease=lease, release=release, lock=lock)
    candidates.append(two)
    assert two.wait_for("READY", 20) is not None
    return one, two


def test_one_leader_and_takeover_when_it_stops_renewing(
    server: KubeliteProcess, candidates: list[Candidate]
) -> None:
    one, two = start_both(server, candidates, lease=3.0, release=False, lock="takeover")
    # while one renews, two never leads, through several lease durations
    assert two.wait_for("START", 8) is None
    assert lease_spec(server, "takeover")["holderIdentity"] == "one"
    one.proc.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    started = two.wait_for("START", 20)
    assert started is not None
    # two waited for the lease it saw last to expire on its own clock
    assert started - killed >= 3.0 - 1.0
    spec = lease_spec(server, "takeover")
    assert (spec["holderIdentity"], spec["leaseTransitions"], spec["leaseDurationSeconds"]) == ("two", 1, 3)


def test_release_on_shutdown_hands_over_at_once(server: KubeliteProcess, candidates: list[Candidate]) -> None:
    one, two = start_both(server, candidates, lease=15.0, release=True, lock="release")
    one.proc.send_signal(signal.SIGTERM)
    assert one.wait_for("STOP", 10) is not None
    stopped = time.monotonic()
    started = two.wait_for("START", 10)
    assert started is not None and started - stopped < 5.0  # well within the 15s lease
    assert lease_spec(server, "release")["holderIdentity"] == "two"
