"""``factcourt build-longqa``: long-form questions from short seeds (graph ``longqa``)."""

from __future__ import annotations

import argparse
import asyncio
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.markup import escape

from factcourt.commands.shared import (
    add_settings,
    err,
    fail,
    prepare_out_folder,
    settings_from,
    warn_if_corpus_misses_language,
)
from factcourt.context.longqa import LongQAContext
from factcourt.terminal import json_text


def cmd_build_longqa(args: argparse.Namespace) -> int:
    """Build (or resume), or import a review sheet; then rewrite the outputs and print the stats."""
    from factcourt.api.longqa import (
        STORED_SETTINGS,
        build_seeds,
        import_review,
        seeds_problem,
        stored_records,
        unimported_review,
        write_outputs,
    )
    from factcourt.errors import InputError
    from factcourt.inputs import load_seeds
    from factcourt.store import keep_settings

    out = Path(args.out)
    if args.import_review:
        prepare_out_folder(out)
        import_review(out, Path(args.import_review))
        report = write_outputs(out, stored_records(out), None)
        return show(report, out, args)
    if not args.seeds:
        raise InputError("give the seeds with --seeds FILE (or --import-review SHEET to apply a review)")
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, not {args.limit}")
    seeds = load_seeds(Path(args.seeds))
    if args.shuffle is not None:
        random.Random(args.shuffle).shuffle(seeds)
    seeds = seeds[: args.limit] if args.limit else seeds
    if bad := seeds_problem(seeds):
        raise InputError(f"{args.seeds}: seed {bad[0].id}: {bad[1]}; shorten it or leave it out")
    ctx = settings_from(args, LongQAContext)
    prepare_out_folder(out)
    if unimported := unimported_review(out):  # before the build's calls, not after them
        raise InputError(unimported)
    # stored outcomes are reused: a build under other settings would mix them in one set
    keep_settings(out, {k: v for k, v in asdict(ctx).items() if k in STORED_SETTINGS}, "build-longqa")
    warn_if_corpus_misses_language(" ".join(s.question for s in seeds), ctx)
    asyncio.run(build_seeds(seeds, ctx, out, console=err, quiet=args.json or args.quiet))
    # the outputs hold every stored seed: a build of fewer seeds must not drop the others' questions
    records = stored_records(out)
    report = write_outputs(out, records, ctx)
    code = show(report, out, args)
    if report["failures"]:
        first = next(iter(report["failures"].items()))
        fail(
            f"{len(report['failures'])} of {len(records)} seeds failed (run again to retry "
            f"them); first, {first[0]}: {first[1]}"
        )
        return 1
    return code


def show(report: dict[str, Any], out: Path, args: argparse.Namespace) -> int:
    """Print the report as JSON or as the summary a person reads."""
    from factcourt.commands.shared import out as console

    if args.json:
        print(json_text(report, indent=2))
        return 0
    s = report["stats"]
    ratio = s["question_length_ratio"]
    rate = lambda v: "n/a" if v is None else f"{v:.0%}"  # noqa: E731
    console.print(
        f"[bold]{s['kept']} question(s) kept[/] of {s['built']} built from {s['seeds']} seeds: "
        f"retention {rate(s['retention'])} after review ({s['reviewed']} reviewed, {s['dropped_in_review']} "
        f"dropped, {s['unreviewed']} awaiting review); facts kept by the verifier {s['facts_kept']} of "
        f"{s['facts_gathered']}",
        highlight=False,
    )
    if ratio["mean"] is not None:
        console.print(
            f"question length ratio new/seed: mean {ratio['mean']:.1f}x, pooled {ratio['pooled']:.1f}x "
            "(not the paper's answer length ratio, which needs answers)"
        )
    console.print("topics: " + escape(", ".join(f"{t} {n}" for t, n in s["topics"].items()) or "none"))
    for note, n in report["notes"].items():
        console.print(f"[yellow]note:[/] {escape(note)} ({n} seed(s))", highlight=False)
    console.print(
        f"[dim]wrote {escape(str(out))}/longhalluqa.jsonl (the questions kept at both review stages), "
        "review.csv "
        f"(a row per question and stage: fill decision keep/drop and reason; import with "
        f"--import-review), triples.jsonl, report.md, report.json; "
        f"{report['usage']['calls']} model calls[/]"
    )
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``build-longqa``."""
    p = sub.add_parser(
        "build-longqa",
        help="build LongHalluQA-style long-form questions from short seed questions",
        description="For each seed question: gather knowledge (the seed's source and best answers, "
        "plus web search with a key, or the local corpus), keep the facts the verifier supports "
        "with confidence >= longqa_theta, write one sub-question per fact, cluster them by topic "
        "and fuse 1-3 candidates with the original into one long-form question. Resumable: run "
        "the same command again after a stop. Writes OUT/review.csv (one row per question and "
        "review stage), OUT/longhalluqa.jsonl (the questions kept at both stages), "
        "triples.jsonl, report.md and report.json. Exit 0 done, 1 some seeds failed, 2 bad input.",
    )
    p.add_argument("--seeds", help="seed file: HalluQA's JSON, or JSON/JSONL rows with 'question'")
    p.add_argument("--out", required=True, help="output folder (also holds the resumable state)")
    p.add_argument("--limit", type=int, help="build only the first N seeds")
    p.add_argument(
        "--shuffle", type=int, metavar="SEED", help="shuffle the seeds with this random seed first"
    )
    p.add_argument(
        "--import-review",
        metavar="SHEET",
        help="apply a filled review.csv (decision keep/drop, stage, reason; a row with no stage "
        "decides both stages) and rewrite the outputs; runs no model",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_settings(p, LongQAContext)
    p.set_defaults(func=cmd_build_longqa)
