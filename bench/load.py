"""Closed-loop HTTP load from a separate process: wrk (with a generated Lua script) or the Python generator.

A `Workload` says what each request is, in a form both generators fill by plain text substitution:

- `cycle`: the paths in turn, with a fixed method, headers and body (gets, lists, echo baselines);
- `create`: POST one path, the body's `@NAME@` replaced by `name_prefix` + a counter (unique names);
- `update`: `pool` holds (name, resourceVersion) pairs; each request takes one, fills `@NAME@`, `@RV@` and `@N@`
  (a counter, so every write changes the object) and the response's name and resourceVersion put it back.
  An object is never in two requests at once, so optimistic concurrency never conflicts with itself.

wrk is used when it is on PATH (it costs a few microseconds of CPU per request); otherwise `bench.loadgen`
runs the same workload in a Python process. Either runs on the load core, the server on another.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

Kind = Literal["cycle", "create", "update"]


@dataclass
class Workload:
    kind: Kind
    method: str
    paths: list[str]
    body: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    name_prefix: str = ""
    pool: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class LoadResult:
    requests: int
    seconds: float
    errors: int
    p50_ms: float
    p99_ms: float

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0


def generator_name(preferred: str = "auto") -> str:
    """`wrk` or `python`: what `run` will use."""
    if preferred == "python":
        return "python"
    if shutil.which("wrk"):
        return "wrk"
    if preferred == "wrk":
        raise RuntimeError("wrk is not installed (Debian: apt-get install wrk); use --load python")
    return "python"


def wrk_version() -> str:
    out = subprocess.run(["wrk", "--version"], capture_output=True, text=True, check=False)
    return (out.stdout or out.stderr).split("Copyright")[0].strip()


def run(
    workload: Workload,
    port: int,
    *,
    connections: int,
    seconds: float,
    generator: str,
    pin: list[str],
    host: str = "127.0.0.1",
) -> LoadResult:
    """Run the workload closed-loop for `seconds`; `pin` prefixes the command (taskset) or is empty."""
    if generator == "wrk":
        return _run_wrk(workload, host, port, connections, seconds, pin)
    return _run_python(workload, host, port, connections, seconds, pin)


# -- wrk ----------------------------------------------------------------------------------------------------


def _lua_string(text: str) -> str:
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def lua_script(workload: Workload) -> str:
    paths = ", ".join(_lua_string(p) for p in workload.paths)
    headers = ", ".join(f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in workload.headers)
    pool = ", ".join(f"{{{_lua_string(n)}, {_lua_string(rv)}}}" for n, rv in workload.pool)
    body = _lua_string(workload.body) if workload.body else "nil"
    return _LUA.format(
        kind=_lua_string(workload.kind),
        method=_lua_string(workload.method),
        paths=paths,
        headers=headers,
        body=body,
        prefix=_lua_string(workload.name_prefix),
        pool=pool,
    )


# The response hook is installed only for updates: wrk skips body parsing for scripts without one.
_LUA = """
local kind, method, prefix = {kind}, {method}, {prefix}
local paths = {{{paths}}}
local headers = {{{headers}}}
local body = {body}
local pool = {{{pool}}}
local n, i = 0, 0

function request()
  n = n + 1
  if kind == "cycle" then
    i = i % #paths + 1
    return wrk.format(method, paths[i], headers, body)
  elseif kind == "create" then
    return wrk.format(method, paths[1], headers, (body:gsub("@NAME@", prefix .. n)))
  end
  local item = table.remove(pool)
  if item == nil then
    return wrk.format("GET", "/bench-pool-drained", headers, nil)
  end
  local b = body:gsub("@NAME@", item[1]):gsub("@RV@", item[2]):gsub("@N@", tostring(n))
  return wrk.format(method, (paths[1]:gsub("@NAME@", item[1])), headers, b)
end

if kind == "update" then
  function response(status, hdrs, resp)
    if status >= 200 and status < 300 then
      local name = resp:match('"name":%s*"([^"]+)"')
      local rv = resp:match('"resourceVersion":%s*"(%d+)"')
      if name and rv then table.insert(pool, {{name, rv}}) end
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCHJSON {{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d}}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def _run_wrk(workload: Workload, host: str, port: int, connections: int, seconds: float, pin: list[str]) -> LoadResult:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(lua_script(workload))
    try:
        # wrk takes whole seconds: give it more and stop it with SIGINT at the exact time (it then reports)
        cmd = [
            *pin,
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{int(seconds) + 5}s",
            "--timeout",
            "30s",
            "-s",
            script.name,
            f"http://{host}:{port}",
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(seconds)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        Path(script.name).unlink()
    for line in out.splitlines():
        if line.startswith("BENCHJSON "):
            data = json.loads(line[len("BENCHJSON ") :])
            return LoadResult(
                requests=data["requests"],
                seconds=data["duration_us"] / 1e6,
                errors=data["errors"],
                p50_ms=data["p50_us"] / 1000,
                p99_ms=data["p99_us"] / 1000,
            )
    raise RuntimeError(f"wrk gave no result: {out}\n{err}")


# -- the Python generator -----------------------------------------------------------------------------------


def _run_python(
    workload: Workload, host: str, port: int, connections: int, seconds: float, pin: list[str]
) -> LoadResult:
    spec = {"host": host, "port": port, "connections": connections, "seconds": seconds, "workload": asdict(workload)}
    root = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run(
        [*pin, sys.executable, "-m", "bench.loadgen"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        cwd=root,
        timeout=seconds + 60,
        check=False,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("BENCHJSON "):
            data = json.loads(line[len("BENCHJSON ") :])
            return LoadResult(**data)
    raise RuntimeError(f"bench.loadgen gave no result: {proc.stdout}\n{proc.stderr}")
