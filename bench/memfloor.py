"""The floor under a store of plain dicts: read every stored pod from kubelite's SQLite file and parse it.

It is what kubelite's start-up must at least do (read the rows, parse the JSON) and what its memory must at
least hold (the parsed dicts, keyed), with nothing else: so it is the baseline for start-up time with many
objects and for bytes per object. The cyclic garbage collector is off while loading, as a loader can have it
(with it on, each collection rescans every dict loaded so far: 100,000 pods load about 7x slower). Reads the
file, never writes it.

Run: `python -m bench.memfloor DB`; prints `BENCHJSON {objects, json_bytes, seconds, rss_growth}`.
"""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import sys
import time
from typing import Any

import orjson

from bench.procs import rss_bytes


def load(db: str) -> tuple[dict[str, Any], int, float]:
    gc.disable()
    start = time.perf_counter()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT c.key, l.value FROM current AS c JOIN log AS l ON l.rev = c.rev WHERE c.key LIKE '/registry/pods/%'"
    )
    objs: dict[str, Any] = {}
    size = 0
    for key, value in rows:
        size += len(value)
        objs[key] = orjson.loads(value)
    conn.close()
    elapsed = time.perf_counter() - start
    gc.enable()
    return objs, size, elapsed


def main() -> None:
    before = rss_bytes(os.getpid())
    objs, size, seconds = load(sys.argv[1])
    growth = rss_bytes(os.getpid()) - before
    result = {"objects": len(objs), "json_bytes": size, "seconds": seconds, "rss_growth": growth}
    print("BENCHJSON " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
