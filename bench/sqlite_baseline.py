"""The storage ceiling: raw inserts of the benchmark's JSON into SQLite, as kubelite's writer thread makes them.

Opens the file with kubelite's own `schema.connect`/`schema.init` (WAL, `synchronous=FULL`, the same tables)
and runs the writer's two statements per object (`log` row, `current` pointer), `batch` objects per
transaction: batch 1 is a lone writer paying one fsync per write, batch 32 is group commit under 32
concurrent clients. Nothing else: no HTTP, no validation, no event loop.

Run: `python -m bench.sqlite_baseline DIR SECONDS BATCH`; prints `BENCHJSON {rows, seconds}`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import orjson

from bench import objects
from kubelite.storage.sqlite import schema


def insert_rows(data_dir: Path, seconds: float, batch: int) -> tuple[int, float]:
    conn = schema.connect(schema.db_path(data_dir), writer=True)
    rev, _ = schema.init(conn)
    template = orjson.dumps(objects.configmap("cm-0", "bench"))
    rows = 0
    start = time.perf_counter()
    stop_at = start + seconds
    while time.perf_counter() < stop_at:
        conn.execute("BEGIN IMMEDIATE")
        for _ in range(batch):
            rev += 1
            key = f"/registry/configmaps/bench/cm-{rev}"
            value = template.replace(b'"cm-0"', f'"cm-{rev}"'.encode())
            conn.execute(
                "INSERT INTO log (rev, key, deleted, prev_rev, value) VALUES (?, ?, ?, ?, ?)",
                (rev, key, 0, None, value),
            )
            conn.execute(
                "INSERT INTO current (key, rev) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev",
                (key, rev),
            )
        conn.execute("COMMIT")
        rows += batch
    elapsed = time.perf_counter() - start
    conn.close()
    return rows, elapsed


def main() -> None:
    data_dir, seconds, batch = Path(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
    data_dir.mkdir(parents=True, exist_ok=True)
    rows, elapsed = insert_rows(data_dir, seconds, batch)
    print("BENCHJSON " + json.dumps({"rows": rows, "seconds": elapsed}), flush=True)


if __name__ == "__main__":
    main()
