"""``factcourt bench perf``: framework overhead and concurrency on the simulated model."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_json
from factcourt.commands.shared import at_least_one, number, out


def levels(value: str) -> tuple[int, ...]:
    """An argparse type: comma-separated numbers from 1, e.g. 1,4,8."""
    try:
        return tuple(at_least_one(item.strip()) for item in value.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"comma-separated whole numbers from 1 (e.g. 1,4,8), not {value!r}"
        ) from None


def cmd_bench_perf(args: argparse.Namespace) -> int:
    """Framework overhead and concurrency on the simulated model."""
    from factcourt.bench.perf import run_perf

    rows = run_perf(args.claims, args.concurrency, args.latency, args.rule)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"{args.claims} claims, simulated model at {args.latency * 1000:.0f} ms/call")
    for col in (
        "concurrency",
        "calls",
        "wall s",
        "critical path s",
        "bound at concurrency s",
        "wall / bound",
        "overhead ms/call",
    ):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r["concurrency"]),
            str(r["calls"]),
            f"{r['wall_s']:.2f}",
            f"{r['critical_path_s']:.2f}",
            f"{r['bound_at_concurrency_s']:.2f}",
            f"{r['wall_over_bound']:.3f}",
            f"{r['overhead_ms_per_call']:.2f}",
        )
    out.print(table)
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench perf``."""
    p = bench_sub.add_parser("perf", help="overhead and concurrency on a simulated model")
    p.add_argument("--claims", type=at_least_one, default=20)
    p.add_argument("--concurrency", type=levels, default=(1, 4, 8), help="comma-separated, e.g. 1,4,8")
    p.add_argument("--latency", type=number(float, 0), default=0.05, help="seconds per simulated call")
    p.add_argument("--rule", default="free", choices=["free", "mandatory_search", "adaptive"])
    add_json(p)
    p.set_defaults(func=cmd_bench_perf, settings_context=BenchContext)  # its --rule is the debate's
