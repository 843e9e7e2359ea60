"""``factcourt bench corrector``: minimal corrections of false claims, held to the corrector's rubric."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_cache, add_json, add_part, bench_settings
from factcourt.commands.shared import add_settings, at_least_one, fail, out
from factcourt.terminal import json_text


def cmd_bench_corrector(args: argparse.Namespace) -> int:
    """Minimal corrections of a dataset's FALSE claims, held to the corrector's rubric."""
    from factcourt.bench.corrector import run

    summary = run(Path(args.dataset), bench_settings(args), limit=args.limit, part=args.part)
    if args.json:
        print(json_text(summary, indent=2))
    else:
        table = Table(
            title=f"Corrections within the rubric: {summary['rubric_rate']:.0%} of {summary['claims']}"
        )
        for col in ("claim", "outcome", "replacement or reason"):
            table.add_column(col)
        for row in summary["rows"]:
            table.add_row(
                escape(row["claim"]),
                row["outcome"],
                escape(row.get("replacement") or row.get("error") or "(removed)"),
            )
        out.print(table)
        out.print(
            f"fixed {summary['fixed']} (first try {summary['first_try']}), removed {summary['removed']}, "
            f"failed {summary['failed']}"
        )
    if errors := [r["error"] for r in summary["rows"] if r["outcome"] == "error"]:
        fail(f"{len(errors)} correction call(s) failed, so the rate is not trusted: {errors[0]}")
        return 1
    return 0 if summary["claims"] else 2


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench corrector``."""
    p = bench_sub.add_parser(
        "corrector", help="minimal corrections of a dataset's FALSE claims, held to the corrector's rubric"
    )
    p.add_argument("--dataset", required=True, help="claims.jsonl in the shared schema")
    p.add_argument("--evidence", choices=["given", "local", "tavily", "serper"], help="evidence condition")
    p.add_argument("--limit", type=at_least_one, default=30, help="FALSE claims to correct (30)")
    add_part(p, "test")
    add_cache(p)
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_corrector)
