"""``factcourt pyramid`` and ``factcourt leaderboard``: MAD-Fact's long-form evaluation (§5-6.2)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.commands.report import add_html_option, prepare_html
from factcourt.commands.shared import (
    add_ray,
    add_settings,
    emit_result,
    fail,
    out,
    preflight,
    prepare_out,
    prepare_out_folder,
    settings_values,
)
from factcourt.context.pyramid import LeaderboardContext, PyramidContext
from factcourt.errors import InputError
from factcourt.report import write_html


def model_list(value: str) -> list[str]:
    """A comma-separated list of model names, none empty and none twice (a usage error otherwise)."""
    names = [n.strip() for n in value.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"a comma-separated list of model names, not {value!r}")
    if len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(f"a model is named twice in {value!r}")
    return names


def checked_settings(args: argparse.Namespace, models: list[str]):
    """The run's context with the experts set, checked with every expert and target before any call."""
    ctx = LeaderboardContext.make(settings_values(args))
    preflight(ctx, [*models, *ctx.experts])
    return ctx


def cmd_pyramid(args: argparse.Namespace) -> int:
    """Build one question's pyramid, print its layers, save it as JSON."""
    from factcourt.api.pyramid import abuild_pyramid, load_pyramid, question_problem

    prepare_out(args.out)
    if args.load:
        pyramid = load_pyramid(Path(args.load))
    else:
        if problem := question_problem(args.question or ""):
            raise InputError(f"{problem}: pass it with --question, or --load a saved pyramid")
        ctx = checked_settings(args, [])
        pyramid = asyncio.run(abuild_pyramid(args.question or "", ctx))
    emit_result(pyramid, args, lambda _: print_pyramid(pyramid))
    return 1 if pyramid.failed and not pyramid.answered else 0


def print_pyramid(pyramid) -> None:
    """The golden claims by layer, with their weights and the experts that stated them."""
    table = Table(title=f"Pyramid: {escape(pyramid.question)}", expand=True)
    for col, ratio in (("layer", 1), ("weight", 1), ("claim", 6), ("stated by", 3)):
        table.add_column(col, ratio=ratio)
    for g in sorted(pyramid.claims, key=lambda g: (g.layer, g.id)):
        table.add_row(str(g.layer), f"{g.weight:g}", escape(g.text), escape(", ".join(g.experts)))
    out.print(table)
    for expert, reason in pyramid.failed.items():
        out.print(f"[yellow]expert {escape(expert)} failed:[/] {escape(reason)}", highlight=False)
    for note in pyramid.notes:
        out.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    u = pyramid.usage
    out.print(
        f"[dim]G = {pyramid.levels}; {len(pyramid.claims)} golden claims; {u.calls} model calls, "
        f"{u.input_tokens} input + {u.output_tokens} output tokens[/]"
    )


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """Rank the targets by the weighted long-form factuality of their answers."""
    from factcourt.api.pyramid.leaderboard import run_leaderboard

    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, not {args.limit}")
    prepare_out_folder(Path(args.out))
    prepare_html(args)
    ctx = checked_settings(args, args.targets)
    summary = asyncio.run(
        run_leaderboard(
            Path(args.prompts),
            args.targets,
            ctx,
            Path(args.out),
            limit=args.limit,
            seed=args.seed,
            report_only=args.report_only,
            ray=args.ray,
        )
    )
    out.print((Path(args.out) / "report.md").read_text(encoding="utf-8"), markup=False)
    out.print(
        f"[dim]in {args.out}: report.md, report.json, answers.jsonl ({summary['answers']} answers), "
        "leaderboard.png, pyramids/, records.jsonl (run the same command again to resume)[/]"
    )
    if args.html:
        write_html(args.html, summary, "leaderboard", Path(args.out))
    report = summary["report"]
    if report["first_error"]:
        fail(
            f"some steps failed (counted in the report; run the same command again to retry them); "
            f"first reason: {report['first_error']}"
        )
        return 1
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``pyramid`` and ``leaderboard``."""
    p = sub.add_parser(
        "pyramid",
        help="build a question's importance pyramid from expert answers (MAD-Fact)",
        description="Each expert answers the question, the Clerk splits each answer into claims, "
        "equivalent claims are merged into one golden set, and each golden claim goes to layer "
        "G - f + 1 (f = experts that stated it) with weight G + 2 - layer (4, 3, 2 for G = 3). "
        "Exit 0 built, 1 no expert answered, 2 bad input.",
    )
    p.add_argument("--question", "-q", help="the question")
    p.add_argument("--load", help="print a pyramid saved as JSON instead of building one")
    p.add_argument("--json", action="store_true", help="print the pyramid as JSON")
    p.add_argument("--out", help="also save the pyramid as JSON to this file")
    add_settings(p, PyramidContext)
    p.set_defaults(func=cmd_pyramid)

    p = sub.add_parser(
        "leaderboard",
        help="rank models by the long-form factuality of their answers (MAD-Fact Tables 7-8)",
        description="Each target answers each prompt; the answer is checked claim by claim (the "
        "check pipeline, any --preset/--rule) and scored against the prompt's importance pyramid "
        "(built from the experts' answers): weighted precision, R@gamma and F1@gamma (gamma 1.0 "
        "and 0.8), SAFE's F1@64 and F1@178. Writes report.md, report.json, answers.jsonl, "
        "leaderboard.png and pyramids/ to --out. Resumable: run the same command again after "
        "a crash or Ctrl-C; --report-only reports what is done so far. Models: local:qwen-1.5b, "
        "local:qwen-0.5b, local:smollm2, or any name of an endpoint (--set model_settings=...). "
        "Exit 0 done, 1 some prompt failed for some model or some pyramid lacks an expert (counted "
        "in the report; the same command tries them again), 2 bad input.",
    )
    p.add_argument("--prompts", required=True, help="JSONL of prompts ({'id', 'prompt'|'question', 'topic'})")
    p.add_argument("--targets", required=True, type=model_list, help="models to rank, comma-separated")
    p.add_argument("--limit", type=int, help="a topic-balanced sample of this many prompts")
    p.add_argument("--seed", type=int, help="shuffle each topic before sampling")
    p.add_argument("--out", required=True, help="folder for the reports and the resumable records")
    p.add_argument("--report-only", action="store_true", help="run nothing: report what is stored")
    add_ray(p, "the answers, pyramids, checks and scores (stage by stage, each prompt a unit)")
    add_html_option(p)
    add_settings(p, LeaderboardContext)
    p.set_defaults(func=cmd_leaderboard)
