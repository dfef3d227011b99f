"""`python -m bench`: run the benchmark scenarios, print the table, save the JSON.

    python -m bench                          # everything (about 7 minutes)
    python -m bench --quick                  # every scenario, tiny and short (the CI smoke run)
    python -m bench --scenario get,list      # a subset, with its own baselines
    python -m bench --profile cprofile       # profile kubelite during each measured phase

Results go to bench/results/<time>.json and bench/results/latest.json, or to --out.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench import procs, report
from bench.context import Context, Settings
from bench.scenarios import SCENARIOS

RESULTS = procs.ROOT / "bench" / "results"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description="kubelite's benchmark suite")
    parser.add_argument("--quick", action="store_true", help="tiny data and sub-second runs: checks it all works")
    parser.add_argument(
        "--scenario", default="", help=f"comma-separated subset of: {', '.join(SCENARIOS)} (default: all)"
    )
    parser.add_argument("--load", choices=["auto", "wrk", "python"], default="auto", help="load generator")
    parser.add_argument("--connections", type=int, default=32, help="concurrency of the HTTP scenarios")
    parser.add_argument("--profile", choices=["cprofile", "pyinstrument"], help="profile kubelite's measured phases")
    parser.add_argument("--kmock-python", help="an interpreter with kmock installed (default: bench/.kmock-venv)")
    parser.add_argument("--out", type=Path, help="write the JSON here instead of bench/results/")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    names = [n.strip() for n in args.scenario.split(",") if n.strip()] or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    settings = Settings(
        quick=args.quick,
        connections=args.connections,
        generator=args.load,
        profile=args.profile,
        kmock_python=args.kmock_python,
    )
    results_dir = args.out.parent if args.out else RESULTS
    results_dir.mkdir(parents=True, exist_ok=True)
    ctx = Context(settings, results_dir)
    procs.pin_self(ctx.where)
    info = report.machine(ctx.where, ctx.generator)
    print(report.header(info), flush=True)
    if settings.profile:
        ctx.note(f"profiled with {settings.profile}: figures are slowed by the profiler, not comparable")
    rows: list[report.Row] = []
    started = time.perf_counter()
    try:
        for name in names:
            print(f"... {name}", file=sys.stderr, flush=True)
            # another busy process on this machine skews everything: the load average tells the reader
            begun, load_before = time.perf_counter(), os.getloadavg()[0]
            rows += SCENARIOS[name](ctx)
            ctx.raw.setdefault("scenarios", {})[name] = {
                "seconds": round(time.perf_counter() - begun, 1),
                "loadavg_before": load_before,
                "loadavg_after": os.getloadavg()[0],
            }
    finally:
        ctx.close()
    elapsed = time.perf_counter() - started
    print()
    print(report.table(rows))
    for note in ctx.notes:
        print(f"note: {note}")
    print(f"({elapsed:.0f} s)")
    settings_doc = {**settings.__dict__, "scenarios": names, "seconds": settings.seconds, "elapsed": elapsed}
    if args.out:
        report.save(args.out, rows, info, settings_doc, ctx.raw, ctx.notes)
        print(f"saved {args.out}")
    else:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for path in (RESULTS / f"{stamp}.json", RESULTS / "latest.json"):
            report.save(path, rows, info, settings_doc, ctx.raw, ctx.notes)
        print(f"saved {RESULTS / f'{stamp}.json'} and latest.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
