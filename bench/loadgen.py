"""The Python load generator: runs one `bench.load.Workload` closed-loop, for machines without wrk.

Reads a JSON spec on stdin (host, port, connections, seconds, workload), keeps `connections` keep-alive
connections busy for `seconds`, and prints `BENCHJSON {requests, seconds, errors, p50_ms, p99_ms}`. It runs in
its own process on the load core; requests are prebuilt bytes and responses are read, not parsed, except
for updates, which need the new resourceVersion.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from typing import Any

from bench.httpclient import Connection, build_request

_NAME = re.compile(rb'"name":\s*"([^"]+)"')
_RV = re.compile(rb'"resourceVersion":\s*"(\d+)"')


class _Requests:
    """Makes each next request of a workload, and takes back what an update's response says."""

    def __init__(self, workload: dict[str, Any], host: str) -> None:
        self.kind: str = workload["kind"]
        self.method: str = workload["method"]
        self.paths: list[str] = workload["paths"]
        self.body: str = workload["body"]
        self.headers = [tuple(h) for h in workload["headers"]]
        self.prefix: str = workload["name_prefix"]
        self.pool: list[tuple[str, str]] = [(n, rv) for n, rv in workload["pool"]]
        self.host = host
        self.n = 0
        self.cycle = [build_request(self.method, p, self.body.encode(), self.headers, host) for p in self.paths]

    def next(self) -> bytes:
        self.n += 1
        if self.kind == "cycle":
            return self.cycle[self.n % len(self.cycle)]
        if self.kind == "create":
            body = self.body.replace("@NAME@", f"{self.prefix}{self.n}")
            return build_request(self.method, self.paths[0], body.encode(), self.headers, self.host)
        if not self.pool:
            return build_request("GET", "/bench-pool-drained", b"", self.headers, self.host)
        name, rv = self.pool.pop()
        body = self.body.replace("@NAME@", name).replace("@RV@", rv).replace("@N@", str(self.n))
        path = self.paths[0].replace("@NAME@", name)
        return build_request(self.method, path, body.encode(), self.headers, self.host)

    def returned(self, status: int, body: bytes) -> None:
        if self.kind == "update" and 200 <= status < 300:
            name, rv = _NAME.search(body), _RV.search(body)
            if name and rv:
                self.pool.append((name.group(1).decode(), rv.group(1).decode()))


async def _main(spec: dict[str, Any]) -> dict[str, Any]:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    requests = _Requests(spec["workload"], spec["host"])
    latencies: list[float] = []
    errors = 0
    stop_at = 0.0

    async def worker() -> None:
        nonlocal errors
        conn = await Connection.open(spec["host"], spec["port"])
        try:
            while time.perf_counter() < stop_at:
                raw = requests.next()
                start = time.perf_counter()
                status, body = await conn.roundtrip(raw)
                latencies.append(time.perf_counter() - start)
                if not 200 <= status < 300:
                    errors += 1
                requests.returned(status, body)
        finally:
            conn.close()

    start = time.perf_counter()
    stop_at = start + spec["seconds"]
    await asyncio.gather(*(worker() for _ in range(spec["connections"])))
    elapsed = time.perf_counter() - start
    latencies.sort()

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000 if latencies else 0.0

    return {"requests": len(latencies), "seconds": elapsed, "errors": errors, "p50_ms": pct(0.5), "p99_ms": pct(0.99)}


def main() -> None:
    spec = json.load(sys.stdin)
    result = asyncio.run(_main(spec))
    print("BENCHJSON " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
