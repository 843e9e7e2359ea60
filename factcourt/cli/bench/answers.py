"""``factcourt bench answers``: whole answers checked, scored on the false segments they flag."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_cache, add_json, add_part, bench_settings
from factcourt.commands.shared import add_settings, at_least_one, out, prepare_out_folder
from factcourt.terminal import json_text


def _three(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_bench_answers(args: argparse.Namespace) -> int:
    """``check`` on whole answers, scored against the annotators' segment labels."""
    from factcourt.bench.answers import run

    prepare_out_folder(Path(args.out))
    found = run(
        Path(args.dataset),
        bench_settings(args),
        out=Path(args.out),
        limit=args.limit,
        part=args.part,
        quiet=args.quiet or args.json,
    )
    if args.json:
        print(json_text(found, indent=2))
        return 0
    if not found["answers"]:
        out.print(f"no answer was checked: {found['failed_answers']} failed (see {escape(found['out'])})")
        return 1
    table = Table(
        title=f"False segments of {found['answers']} answers ({found['part']} part): "
        f"{found['false_segments']} of {found['segments']} segments are false"
    )
    for col in ("reading", "flagged", "precision", "recall", "F1", "coverage", "answers judged right"):
        table.add_column(col)
    for name in ("default", "plain", "all_flagged"):
        row = found[name]
        table.add_row(
            name.replace("_", " "),
            str(row["flagged"]),
            *(_three(row[k]) for k in ("precision", "recall", "f1", "coverage", "response_accuracy")),
        )
    out.print(table)
    out.print(
        "flagged: segments with a refuted claim (not enough evidence flags nothing); coverage: "
        "segments with a claim supported or refuted"
    )
    out.print(
        f"segments with a claim {_three(found['coverage'])}; "
        f"per answer: {found['claims_per_answer']:.1f} claims "
        f"({found['unresolved_per_answer']:.1f} with an unresolved reference), "
        f"{found['calls_per_answer']:.1f} calls, {found['seconds_per_answer']:.0f} s; dropped: "
        + (escape(", ".join(f"{k} {v}" for k, v in sorted(found["dropped"].items()))) or "none")
        + (f"; {found['failed_answers']} answers failed" if found["failed_answers"] else "")
    )
    return 1 if found["failed_answers"] else 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench answers``."""
    p = bench_sub.add_parser(
        "answers", help="check whole answers end to end and score the false segments they flag (FELM-WK)"
    )
    p.add_argument(
        "--dataset",
        required=True,
        help="response-level JSONL in the shared schema with meta.segments and meta.segment_labels "
        "(e.g. ../shared/data/felm_wk/claims_response_level.jsonl)",
    )
    p.add_argument("--limit", type=at_least_one, help="answers of the part, in order (all)")
    add_part(p, "test", "answers of this part (test)")
    p.add_argument("--out", default="bench-out/answers", help="folder: answers.jsonl, resumed when run again")
    add_cache(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_answers)
