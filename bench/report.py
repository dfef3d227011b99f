"""The output: one row per figure, kubelite beside its same-run baseline, the ratio, the peer and the target;
printed as a table and saved as JSON with the machine it ran on, so runs can be compared over time.
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import subprocess
import time
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import procs


@dataclass
class Row:
    scenario: str
    #: "/s" (a rate: higher is better), "ms", "µs", "s", "B/obj", "x": costs (lower is better)
    unit: str
    kubelite: float | None
    baseline: float | None = None
    baseline_label: str = ""
    peer: float | None = None
    peer_note: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def is_rate(self) -> bool:
        return self.unit == "/s"

    @property
    def ratio(self) -> float | None:
        # a baseline that rounds to nothing (CPU below the clock tick) has no meaningful ratio
        if self.kubelite is None or self.baseline is None or abs(self.baseline) < 1e-6:
            return None
        return self.kubelite / self.baseline

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "B/obj":
        return f"{value:,.0f} B/obj"
    if unit == "MiB":
        return f"{value:,.1f} MiB"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "s":
        return f"{value:.2f} s"
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    return f"{value:,.{digits}f} {unit}"


def _cells(row: Row) -> list[str]:
    baseline = fmt(row.baseline, row.unit)
    if row.baseline_label:
        baseline = f"{row.baseline_label} {baseline}" if row.baseline is not None else row.baseline_label
    ratio = row.ratio
    ratio_text = "-" if ratio is None else f"{ratio:.0%}" if row.is_rate else f"{ratio:.2f}x"
    if row.peer is not None:
        peer = fmt(row.peer, row.unit)
        if row.kubelite and row.peer and row.is_rate:
            peer += f" (kubelite {row.kubelite / row.peer:.1f}x)"
    else:
        peer = "-"
    if row.peer_note:
        peer = f"{peer} {row.peer_note}" if row.peer is not None else row.peer_note
    target = row.target
    if row.met is not None:
        target = f"{target} {'ok' if row.met else 'MISSED'}"
    return [row.scenario, fmt(row.kubelite, row.unit), baseline, ratio_text, peer, target]


HEADERS = ["scenario", "kubelite", "baseline", "ratio", "peer: kmock", "target"]


def table(rows: list[Row], markdown: bool = False) -> str:
    cells = [_cells(r) for r in rows]
    if markdown:
        lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        lines += ["| " + " | ".join(c) + " |" for c in cells]
        return "\n".join(lines)
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, h in enumerate(HEADERS)]
    out = ["  ".join(h.ljust(w) for h, w in zip(HEADERS, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip() for cell in cells]
    return "\n".join(out)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "-"


def machine(where: procs.Placement, generator: str) -> dict[str, Any]:
    cpu = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = 0
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        memory = int(meminfo.read_text().split()[1]) * 1024
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=procs.ROOT, check=False
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "kubelite"],
        capture_output=True,
        text=True,
        cwd=procs.ROOT,
        check=False,
    ).stdout.strip()
    if commit and dirty:
        commit += " (with uncommitted changes under kubelite/)"
    if generator == "wrk":
        from bench.load import wrk_version

        load_generator = wrk_version()
    else:
        load_generator = "bench.loadgen (Python, asyncio on uvloop)"
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gib": round(memory / 2**30, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "aiohttp": _version("aiohttp"),
        "uvloop": _version("uvloop"),
        "orjson": _version("orjson"),
        "placement": where.describe(),
        "load_generator": load_generator,
        "commit": commit,
    }


def header(info: dict[str, Any]) -> str:
    return (
        f"machine: {info['cpu']}, {info['cpus']} CPUs, {info['memory_gib']} GiB; Linux {info['kernel']}; "
        f"Python {info['python']}, SQLite {info['sqlite']}, aiohttp {info['aiohttp']}, uvloop {info['uvloop']}\n"
        f"placement: {info['placement']}\nload: {info['load_generator']}\ncommit: {info['commit'] or '-'}"
    )


def save(
    path: Path, rows: list[Row], info: dict[str, Any], settings: dict[str, Any], raw: dict[str, Any], notes: list[str]
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": info,
        "settings": settings,
        "rows": [r.as_dict() for r in rows],
        "notes": notes,
        "raw": raw,
    }
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
