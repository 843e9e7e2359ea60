"""``factcourt bench engine``: seconds and tokens per model call on the same prompts."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_json, add_part, bench_settings
from factcourt.commands.shared import add_settings, at_least_one, fail, out, prepare_out
from factcourt.errors import FactcourtError
from factcourt.store import append_line


def _cost_line(cost: dict[str, Any]) -> str:
    """One repeat's tokens per call and the floor they imply at the server's measured rates."""
    c = cost["by_role"].get("evaluator")
    if not c:
        return "-"
    share = "-" if cost["cached_share"] is None else f"{cost['cached_share']:.0%}"
    floor = "-" if c["floor_seconds_per_claim"] is None else f"{c['floor_seconds_per_claim']:.1f} s"
    return (
        f"{c['prompt_tokens_per_claim']:.0f} prompt tokens ({share} from cache), "
        f"{c['evaluated_tokens_per_claim']:.0f} evaluated, {c['output_tokens_per_claim']:.0f} written; "
        f"floor {floor}"
    )


def cmd_bench_engine(args: argparse.Namespace) -> int:
    """Seconds and tokens per call on the same verifier prompts, repeated."""
    from factcourt.bench.engine import measure

    prepare_out(args.append, "--append")
    summary = asyncio.run(
        measure(
            Path(args.dataset),
            bench_settings(args),
            limit=args.limit,
            repeats=args.repeats,
            part=args.part,
        )
    )
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        table = Table(title=f"{summary['model']} on {summary['endpoint']} ({summary['structured_output']})")
        table.add_column("measure")
        table.add_column("value", justify="right")
        for key, value in summary.items():
            if key not in (
                "endpoint",
                "model",
                "structured_output",
                "dataset",
                "first_error",
                "cost_per_repeat",
            ):
                table.add_row(key.replace("_", " "), str(value))
        for k, cost in enumerate(summary["cost_per_repeat"], 1):
            table.add_row(f"cost per call, repeat {k}", _cost_line(cost))
        out.print(table)
    if args.append:
        try:
            append_line(Path(args.append), json.dumps(summary))  # a torn last line dropped first
        except OSError as exc:  # printed above: nothing is lost
            raise FactcourtError(f"could not append to {args.append} ({exc.strerror})") from exc
    if summary["failed_calls"]:
        calls = summary["prompts"] * summary["repeats"]
        fail(f"{summary['failed_calls']} of {calls} calls failed; first reason: {summary['first_error']}")
        return 1
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench engine``."""
    p = bench_sub.add_parser(
        "engine",
        help="seconds and tokens per model call on the same prompts: servers, slots",
        description="Sends the verifier's first-pass prompts of the same balanced items (the "
        "'single' method) --repeats times without the cache, as many at once as a run sends "
        "(--concurrency, or the embedded server's slots), after one "
        "untimed warm-up call, and reports median seconds and tokens per call and generated tokens "
        "per second. Compare endpoints with --base-url and --set structured_output=..., slots "
        "with --set local_slots=N.",
    )
    p.add_argument("--dataset", required=True, help="claims.jsonl or qa.jsonl in the shared schema")
    p.add_argument(
        "--evidence", choices=["given", "local", "none"], default="given", help="evidence condition"
    )
    p.add_argument("--limit", type=at_least_one, default=20, help="prompts (balanced items)")
    p.add_argument("--repeats", type=at_least_one, default=3, help="times each prompt is sent")
    add_part(p, "test")
    p.add_argument("--append", help="also append the summary as one JSON line to this file")
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_engine)
