"""``factcourt bench sweep``: candidate default settings scored on dev data."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_cache, add_dataset_specs, add_part, bench_settings, dataset_specs
from factcourt.commands.shared import add_settings, fail, number, out, prepare_out_folder


def cmd_bench_sweep(args: argparse.Namespace) -> int:
    """Score candidate default settings on dev data and pick the best within the call budget."""
    from factcourt.bench.sweep import run_sweep

    prepare_out_folder(Path(args.out))
    base = bench_settings(args)
    summary = run_sweep(
        dataset_specs(args.dataset),
        lambda evidence: BenchContext.make(base, search=evidence),
        Path(args.out),
        limit=args.limit,
        part=args.part,
    )
    out.print((Path(args.out) / "sweep.md").read_text(encoding="utf-8"), markup=False)
    if summary["problem"]:
        fail(summary["problem"])
        return 1
    out.print(f"chosen: {summary['chosen']}  (sweep.json and sweep.md in {escape(args.out)})")
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench sweep``."""
    p = bench_sub.add_parser(
        "sweep",
        help="candidate default settings: quality against calls per claim",
        description="Records one run per dataset with the first pass kept and every claim debated, "
        "then replays every candidate (first pass alone, jurors, rounds, routing at each theta) on "
        "those claims and picks the best mean macro-F1 within 2.5 model calls per claim, unless it "
        "gets less than one claim more right per dataset than the cheapest candidate.",
    )
    add_dataset_specs(p)
    # balanced: one TRUE and one FALSE case at least
    p.add_argument("--limit", type=number(int, 2), default=12, help="balanced cases per dataset")
    add_part(p, "dev")
    p.add_argument("--out", default="bench-out/sweep")
    add_cache(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_sweep)
