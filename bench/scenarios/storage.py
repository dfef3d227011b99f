"""The storage ceiling: raw SQLite inserts of the 1 KiB ConfigMap with kubelite's durability settings, one
commit per row and 32 rows per commit (group commit under 32 clients), on the server core.

kubelite's ConfigMap create rate (from the create scenario, when it ran) is set beside the batched figure.
etcd puts would be the other ceiling; they are measured only where an `etcd` binary exists (not yet wired).
"""

from __future__ import annotations

import json
import shutil
import subprocess

from bench import procs
from bench.context import Context
from bench.report import Row


def _inserts(ctx: Context, batch: int) -> float:
    data_dir = ctx.fresh_dir(f"sqlite-{batch}")
    cmd = [
        *ctx.where.pin_server(),
        *procs.python_cmd("bench.sqlite_baseline", str(data_dir), str(ctx.settings.seconds), str(batch)),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=procs.ROOT, check=True, timeout=120).stdout
    data = json.loads(out.split("BENCHJSON ", 1)[1])
    ctx.raw[f"sqlite insert batch {batch}"] = data
    return float(data["rows"] / data["seconds"])


def storage(ctx: Context) -> list[Row]:
    single = _inserts(ctx, 1)
    batched = _inserts(ctx, 32)
    if shutil.which("etcd") is None:
        ctx.note("etcd: not installed, so no raw etcd put baseline")
    return [
        Row("storage: SQLite insert, 1 per commit (fsync each)", "/s", None, single, "raw SQLite"),
        Row(
            "storage: create ConfigMap vs SQLite 32 per commit",
            "/s",
            ctx.cache.get("create_rate"),
            batched,
            "raw SQLite",
        ),
    ]
