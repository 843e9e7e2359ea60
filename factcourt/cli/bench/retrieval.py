"""``factcourt bench retrieval``: recall@k of the page a claim cites."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_json, add_part, bench_settings
from factcourt.commands.shared import add_settings, at_least_one, embedding_progress, out


def cmd_bench_retrieval(args: argparse.Namespace) -> int:
    """Recall@k of the page a claim's annotators cited, where the offline corpus holds it."""
    from factcourt.bench.retrieval import run

    ctx = bench_settings(args)
    with embedding_progress() as progress:
        found = run(Path(args.dataset), ctx, k=args.k, part=args.part, dense=args.dense, progress=progress)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    table = Table(title=f"Cited page among the first {found['k']} passages: {found['segments']} segments")
    for col in ("query / ranking", f"recall@{found['k']}", "ms a query"):
        table.add_column(col)
    for name, recall in found["recall"].items():
        table.add_row(name, f"{recall:.3f}", f"{found['ms_per_query'][name]:.1f}")
    out.print(table)
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench retrieval``."""
    p = bench_sub.add_parser(
        "retrieval", help="recall@k of the Wikipedia page a claim cites, where the offline corpus holds it"
    )
    p.add_argument(
        "--dataset", required=True, help="claims JSONL whose evidence lists reference URLs (FELM-WK)"
    )
    p.add_argument("--k", type=at_least_one, default=5, help="passages a query returns (5)")
    add_part(p, "test")
    p.add_argument(
        "--dense",
        action="store_true",
        help="also rank by the corpus's e5 embeddings (embedded at first use), and fused with BM25 "
        "as --set retrieval=hybrid searches",
    )
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_retrieval)
