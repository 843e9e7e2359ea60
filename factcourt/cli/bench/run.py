"""``factcourt bench run``: methods compared on a labelled dataset."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.markup import escape

from factcourt.bench.context import BenchContext
from factcourt.bench.methods import METHODS
from factcourt.cli.bench.flags import EVIDENCE_CONDITIONS, add_cache, add_part, bench_settings
from factcourt.commands.report import add_html_option, prepare_html
from factcourt.commands.shared import (
    add_prices,
    add_ray,
    add_settings,
    at_least_one,
    fail,
    out,
    prepare_out_folder,
    prices_from,
)
from factcourt.report import write_html


def cmd_bench_run(args: argparse.Namespace) -> int:
    """Compare methods on a labelled dataset."""
    from factcourt.bench.runner import run_bench

    prepare_out_folder(Path(args.out))
    prepare_html(args)
    ctx = bench_settings(args)
    prices = prices_from(args)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    summary = asyncio.run(
        run_bench(
            Path(args.dataset),
            methods,
            ctx,
            Path(args.out),
            limit=args.limit,
            seed=args.seed,
            balanced=args.balanced,
            part=args.part,
            prices=prices,
            report_only=args.report_only,
            ray=args.ray,
        )
    )
    out.print((Path(args.out) / "report.md").read_text(encoding="utf-8"), markup=False)
    out.print(
        f"[dim]reports in {escape(args.out)}: report.json, report.md, wrong_predictions.csv "
        f"({summary['wrong_predictions']} rows), f1_false_vs_cost.png[/]"
    )
    if args.html:
        write_html(args.html, summary, "bench", Path(args.out))
    failed = {m: r["binary"]["failed"] for m, r in summary["report"].items() if r["binary"]["failed"]}
    if failed:  # counted as wrong in the report; the same command tries them again
        fail(
            f"failed predictions ({', '.join(f'{m} {n}' for m, n in failed.items())}): "
            "run the same command again to retry them"
        )
        return 1
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench run``."""
    p = bench_sub.add_parser(
        "run",
        help="compare methods on a labelled dataset",
        description="Runs each method on the same claims with the same model and retrieval, "
        "writes every prediction as it finishes (the same command resumes), and "
        "reports P/R/F1 per label, accuracy, cost and time per claim. Exit 0 done, 1 some "
        "prediction failed (the same command tries it again), 2 bad input.",
    )
    p.add_argument(
        "--dataset",
        required=True,
        help="claims.jsonl or qa.jsonl in the shared schema (meta is never shown to a method)",
    )
    p.add_argument(
        "--methods", default="jury,adversarial,single", help=f"comma-separated, from: {', '.join(METHODS)}"
    )
    p.add_argument("--evidence", choices=EVIDENCE_CONDITIONS, help="evidence condition (same as --search)")
    p.add_argument("--limit", type=at_least_one, help="first N cases (after shuffling with --seed)")
    p.add_argument("--seed", type=int, help="shuffle the cases with this seed before --limit")
    p.add_argument("--balanced", action="store_true", help="as many TRUE as FALSE cases")
    add_part(p, "all", "a fixed half of the cases by id: tune on 'dev', report on 'test'")
    p.add_argument("--out", default="bench-out", help="folder for predictions and reports")
    add_cache(p, "reuse cached model answers (cost columns then count only new calls)")
    p.add_argument(
        "--report-only", action="store_true", help="run nothing: rebuild the reports from stored predictions"
    )
    add_ray(p, "the predictions (each method on each case)")
    add_prices(p)
    add_html_option(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_run)
