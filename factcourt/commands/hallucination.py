"""``factcourt detect``: does an answer to a question hallucinate? (graph ``hallucination``)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from factcourt.commands.batch import add_batch_options, run_batch_command
from factcourt.commands.report import add_html_option, prepare_html
from factcourt.commands.shared import (
    add_settings,
    emit_result,
    exit_code,
    out,
    preflight,
    prepare_out,
    print_usage,
    run_progress,
    settings_values,
)
from factcourt.context.hallucination import HALLUCINATION_AGENTS, HallucinationContext
from factcourt.errors import ConfigError
from factcourt.state.hallucination import DetectResult
from factcourt.state.records import Evidence


def cmd_detect(args: argparse.Namespace) -> int:
    """Debate whether the answer hallucinates; exit 1 when the item could not be judged."""
    from factcourt.api.hallucination import adetect
    from factcourt.inputs import read_evidence_file

    if args.question is None or args.answer is None:
        raise ConfigError("detect needs --question and --answer, or --batch FILE")
    prepare_out(args.out)
    prepare_html(args)
    knowledge = read_evidence_file(Path(args.knowledge), "--knowledge") if args.knowledge else None
    ctx = detect_context(args, knowledge)
    with run_progress(args.json or args.quiet, "this detection") as progress:
        result = asyncio.run(adetect(args.question, args.answer, knowledge, ctx, progress=progress))
    emit_result(result, args, print_detection)
    return exit_code(result)


def cmd_detect_rows(args: argparse.Namespace) -> int:
    """Detect over every question and answer of ``--batch``."""
    if args.question or args.answer or args.knowledge:
        raise ConfigError("--batch reads questions and answers from its rows: give no --question or --answer")
    return run_batch_command(args, "detect", detect_context(args, None))


def detect_context(args: argparse.Namespace, knowledge: list[Evidence] | None) -> HallucinationContext:
    """The detection's settings (``--without`` leaves agents out), checked before any call."""
    from factcourt.api import context_with_given

    overrides: dict[str, Any] = {}
    if args.without:
        overrides["hallucination_agents"] = [a for a in HALLUCINATION_AGENTS if a not in args.without]
    ctx = context_with_given(HallucinationContext, knowledge, settings_values(args), overrides)
    preflight(ctx)
    return ctx


def print_detection(result: DetectResult) -> None:
    """The verdict, the hallucinations found with their spans and evidence, notes and cost."""
    if result.error:
        return
    style = "green" if result.label == 1 else "red"
    verdict = "no hallucination (1)" if result.label == 1 else "hallucination (0)"
    dispute = "n/a" if result.dispute is None else f"{result.dispute:.2f}"
    out.print(f"[bold {style}]{verdict}[/]  decided by the {result.decided_by}", highlight=False)
    p = result.p_no_hallucination
    out.print(
        f"[dim]{result.rounds} round(s), stopped: {result.stop_reason}, winner "
        f"{result.winner}, last dispute {dispute}"
        + ("" if p is None else f", judge's P(no hallucination) {p:.2f}")
        + "[/]"
    )
    if result.explanation:
        out.print(result.explanation, markup=False)
    if result.findings:
        table = Table(title="Hallucinations found", expand=True)
        for col, ratio in (("type", 2), ("p", 1), ("span", 4), ("evidence", 5)):
            table.add_column(col, ratio=ratio)
        for f in result.findings:
            span = f.span if f.verbatim else f"{f.span} (not verbatim)"
            table.add_row(escape(f.type), f"{f.probability:.2f}", escape(span), escape(f.evidence))
        out.print(table)
    for note in result.notes:
        out.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    print_usage(result.usage, f"{len(result.knowledge)} knowledge statements")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``detect``."""
    p = sub.add_parser(
        "detect",  # the published command of system "hallucination"
        help="does an answer to a question hallucinate? (IMPD-MACD debate)",
        description="Pro and Con teams (Logic, Context-Consistency, Factual and Comprehensive "
        "agents) debate whether the answer hallucinates, a judge scores the dispute each round, "
        "and a refiner reports the label (1 = no hallucination, 0 = hallucination), the types "
        "found, their spans and the evidence. Exit 0 judged, 1 not judged (e.g. search down), "
        "2 bad input.",
    )
    p.add_argument("--question", "-q", help="the question (required without --batch)")
    p.add_argument("--answer", "-a", help="the answer to check (required without --batch)")
    p.add_argument(
        "--knowledge",
        help="JSON or JSONL file of knowledge ({'text', 'url', 'title'} or strings); used alone "
        "(search 'given') unless --search is set",
    )
    p.add_argument(
        "--without",
        action="append",
        choices=list(HALLUCINATION_AGENTS),
        default=[],
        help="ablation: leave this agent out of both teams (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", help="also write the JSON result to this file (with --batch: the results)")
    add_html_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_batch_options(p, '{"id", "question", "answer"}', cmd_detect_rows)
    add_settings(p, HallucinationContext)
    p.set_defaults(func=cmd_detect)
