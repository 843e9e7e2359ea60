"""``factcourt bench clerk``: how self-contained the Clerk's claims are; what it keeps of real answers."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_cache, add_json, add_part, bench_settings
from factcourt.commands.shared import add_settings, at_least_one, out
from factcourt.terminal import json_text

# the default fixture, shipped inside the package: found from any working folder
DECONTEXT_FIXTURE = Path(__file__).resolve().parents[2] / "bench" / "fixtures" / "decontext.jsonl"


def cmd_bench_clerk(args: argparse.Namespace) -> int:
    """Rate of self-contained claims on a decontextualisation fixture."""
    from factcourt.bench.clerk import run

    if args.answers:
        return _clerk_coverage(args)
    summary = run(Path(args.fixture), bench_settings(args))
    if args.json:
        print(json_text(summary, indent=2))
        return 0
    table = Table(title=f"Self-contained claims: {summary['self_contained_rate']:.0%} of {summary['items']}")
    for col in ("sentence", "claims", "self-contained"):
        table.add_column(col)
    for row in summary["rows"]:
        table.add_row(
            escape(row["sentence"]),
            escape(" | ".join(row["claims"]) or "(none)"),
            "yes" if row["self_contained"] else "NO",
        )
    out.print(table)
    for language, found in summary["by_language"].items():
        out.print(f"{language}: {found['rate']:.0%} of {found['items']} self-contained")
    out.print(
        f"{summary['clerk_calls']} Clerk calls for {summary['responses']} texts: "
        f"{summary['prompt_tokens']:,} prompt tokens ({summary['cached_tokens']:,} from the cache), "
        f"{summary['output_tokens']:,} written, {summary['model_seconds']:.0f} s"
    )
    return 0


def _clerk_coverage(args: argparse.Namespace) -> int:
    """What the Clerk keeps and drops of real answers (``bench clerk --answers``)."""
    from factcourt.bench.clerk import coverage

    summary = coverage(
        [Path(p) for p in args.answers], bench_settings(args), limit=args.limit, part=args.part
    )
    if args.json:
        print(json_text(summary, indent=2))
        return 0
    table = Table(title=f"What the Clerk covers ({summary['part']} part)")
    for col in (
        "answers",
        "texts",
        "sentences",
        "with a claim",
        "claims/sentence",
        "dropped",
        "checkable dropped",
        "gold covered",
    ):
        table.add_column(col)

    def share(done: int, total: int) -> str:
        return f"{done}/{total} ({done / total:.0%})" if total else "-"

    for name, found in [*((n, f["summary"]) for n, f in summary["files"].items()), ("all", summary["all"])]:
        table.add_row(
            escape(Path(name).parent.name or name),
            str(found["texts"]),
            str(found["sentences"]),
            share(found["sentences_with_claim"], found["sentences"]),
            f"{found['claims_per_sentence']:.2f}" if found["claims_per_sentence"] is not None else "-",
            escape(", ".join(f"{k} {v}" for k, v in sorted(found["dropped"].items())) or "none"),
            share(found["checkable_dropped"], found["checkable_sentences"]),
            share(found["gold_matched"], found["gold_claims"]),
        )
    out.print(table)
    out.print(
        f"{summary['all']['unresolved']} claims kept with an unresolved reference (checked with the "
        f"sentence before); {summary['all']['texts_without_claim']} answers got no claim. "
        f"{summary['clerk_calls']} Clerk calls made (answers from the cache count none): "
        f"{summary['prompt_tokens']:,} prompt tokens, "
        f"{summary['output_tokens']:,} written, {summary['model_seconds']:.0f} s"
    )
    return 0


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench clerk``."""
    p = bench_sub.add_parser("clerk", help="rate of self-contained claims on a decontextualisation fixture")
    source = p.add_mutually_exclusive_group()  # --answers replaces the fixture: both would ignore one
    source.add_argument(
        "--fixture",
        default=str(DECONTEXT_FIXTURE),
        help="JSONL: response, sentence, expect (default: the decontextualisation fixture shipped "
        "with factcourt)",
    )
    source.add_argument(
        "--answers",
        action="append",
        metavar="PATH",
        help="instead of the fixture, what the Clerk covers of the real answers of a claims file in the "
        "shared schema (rows sharing a source_response are one answer; their claims are its gold "
        "claims), repeatable",
    )
    p.add_argument("--limit", type=at_least_one, help="answers per --answers file")
    add_part(p, "test", "answers of this part (test)")
    add_cache(p)
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_clerk)
