"""``factcourt bench rules``: one text under each debate rule."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from factcourt.cli.bench.flags import add_json
from factcourt.commands.shared import out, read_text


def cmd_bench_rules(args: argparse.Namespace) -> int:
    """One text under each rule."""
    from factcourt.bench.rules import run_rules

    rows = run_rules(
        read_text(args.file),
        [r.strip() for r in args.rules.split(",")],
        **({"model": args.model} if args.model is not None else {}),
    )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title="Cost per claim by rule")
    for col in (
        "rule",
        "claims",
        "wall s",
        "calls/claim",
        "tokens in/out per claim",
        "searches/claim",
        "verdicts",
    ):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["rule"],
            str(r["claims"]),
            str(r["wall_s"]),
            str(r["calls_per_claim"]),
            f"{r['input_tokens_per_claim']}/{r['output_tokens_per_claim']}",
            str(r["searches_per_claim"]),
            ", ".join(str(v) for v in r["verdicts"]),
        )
    out.print(table)
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench rules``."""
    p = bench_sub.add_parser("rules", help="one text under each debate rule: time, calls, tokens")
    p.add_argument("file", help="text file to check")
    p.add_argument("--rules", default="free,mandatory_search,adaptive")
    p.add_argument("--model", help="as in check (default: auto)")
    add_json(p)
    p.set_defaults(func=cmd_bench_rules)
