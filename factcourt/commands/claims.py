"""``factcourt check`` and ``factcourt verify``: the claim court (MAD-Fact's jury, DebateCV's debate)."""

from __future__ import annotations

import argparse
import asyncio
import difflib
from collections import Counter
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
    read_text,
    run_progress,
    settings_from,
    settings_values,
    warn_if_corpus_misses_language,
)
from factcourt.context.claims import ClaimsContext
from factcourt.errors import ConfigError
from factcourt.state.claims import UNCHECKED_WORDS, CheckResult, Correction, VerifyResult

VERDICT_STYLE = {
    "supported": "green",
    "refuted": "red",
    "not_enough_evidence": "yellow",
    "conflicting_evidence": "magenta",
    None: "bold red",
}
# A verdict as the table reads it: not_enough_evidence is no verdict on the claim, it was not checked.
VERDICT_WORDS = {"not_enough_evidence": UNCHECKED_WORDS["not_enough_evidence"]}


def ways_to_check(evidence_flag: bool) -> str:
    """What would check a claim the offline corpus decides nothing about (only the command's own flags)."""
    ways = ["set TAVILY_API_KEY or SERPER_API_KEY to search the web", "give your own documents with --corpus"]
    if evidence_flag:
        ways.append("your evidence with --evidence")
    return f"{', '.join(ways[:-1])}, or {ways[-1]}"


def print_report(result: CheckResult) -> None:
    """A readable table of claims, then scores, drops and usage."""
    from factcourt.api import LANGUAGE_NOT_COVERED

    table = Table(title="Claims", expand=True)
    columns: list[tuple[str, dict[str, Any]]] = [
        ("id", {"width": 4}),
        ("claim", {"ratio": 5}),
        ("verdict", {"ratio": 2}),
        ("decided by", {"ratio": 2}),
        ("evidence", {"ratio": 2}),
    ]
    for col, kw in columns:
        table.add_column(col, **kw)
    for c in result.claims:
        verdict = VERDICT_WORDS.get(c.verdict or "", c.verdict or f"failed: {c.error}")
        if c.confidence is not None and not c.unchecked_reason:  # the reason says more
            verdict += f" ({c.confidence:.2f})"
        verdict = f"[{VERDICT_STYLE.get(c.verdict, '')}]{escape(verdict)}[/]"
        if c.unchecked_reason:
            verdict += f"\n[dim]{escape(c.unchecked_reason)}[/]"
        if c.language_not_covered:
            verdict += escape(f"\n{LANGUAGE_NOT_COVERED} ({c.language_not_covered})")
        tally = Counter(c.votes.values())
        votes = ", ".join(f"{n} {v.replace('_', ' ')}" for v, n in tally.most_common())
        if c.route == "first_pass":
            votes = "first pass"
        elif c.summaries:  # DebateCV: the moderator's verdict, the debaters cast no votes
            votes = f"moderator (round {c.summaries[-1].round})"
        elif c.route == "debate":
            votes = f"jury: {votes}"
        urls = list(dict.fromkeys(e.url for e in c.evidence if e.url))
        evidence = f"{len(c.evidence)}: {urls[0]}" if urls else str(len(c.evidence))
        claim = c.text
        if c.unresolved:  # checked with the sentence before in view: say so
            claim += f'\n("{c.unresolved}" unresolved; read after: {c.context or "nothing"})'
        table.add_row(  # the text, the reasons and the URLs are the user's or a model's: no markup
            escape(c.id),
            escape(claim),
            verdict,
            votes,
            escape(evidence),
        )
    out.print(table)
    s = result.scores
    checked = any(c.verdict in ("supported", "refuted") for c in result.claims)
    # MAD-Fact's precision counts an unchecked claim as unsupported: 0.00 would read "all false"
    precision = "n/a" if s.get("precision") is None or not checked else f"{s['precision']:.2f}"
    out.print(f"[bold]precision {precision}[/]  {result.summary_line()}", highlight=False)
    if result.settings.search == "local" and any(c.mark == "not_enough_evidence" for c in result.claims):
        out.print(f"[yellow]to check the rest: {ways_to_check(evidence_flag=False)}[/]", highlight=False)
    if uncovered := result.language_not_covered:
        out.print(
            f"[yellow]{uncovered} claim(s): {LANGUAGE_NOT_COVERED}, so their verdicts rest on no "
            "evidence from it[/]"
        )
    for d in result.dropped:
        out.print(f"[dim]dropped ({d.reason}): {escape(d.sentence)}[/]")
    print_usage(result.usage)
    if result.correction:
        print_correction(result.response, result.correction)


def print_correction(original: str, correction: Correction) -> None:
    """The corrected text and a diff against the original."""
    out.rule("corrected text")
    out.print(correction.text, markup=False)
    out.rule("diff")
    diff = difflib.unified_diff(
        original.splitlines(), correction.text.splitlines(), "original", "corrected", lineterm=""
    )
    out.print("\n".join(diff) or "(no change)", markup=False)
    for failure in correction.failed:
        out.print(
            f"[yellow]not rewritten ({failure.claim_id}):[/] {escape(failure.error or '')}", highlight=False
        )


def cmd_check(args: argparse.Namespace) -> int:
    """Check a long-form text."""
    from factcourt.api.claims import acheck

    text = read_text(args.file)
    prepare_out(args.out)
    prepare_html(args)
    ctx = settings_from(args, ClaimsContext)
    warn_if_corpus_misses_language(text, ctx)
    quiet = args.json or args.quiet
    with run_progress(quiet, "this same text") as progress:
        result = asyncio.run(
            acheck(
                text,
                args.question or "",
                ctx,
                progress=progress,
                resumable=True,
                keep_checkpoint=args.keep_checkpoint,
            )
        )
    result.response = text
    emit_result(result, args, print_report)
    return exit_code(result)


def cmd_check_rows(args: argparse.Namespace) -> int:
    """Check every text of ``--batch``."""
    if args.file != "-" or args.question:
        raise ConfigError("--batch reads the texts and questions from its rows: give no FILE or --question")
    return run_batch_command(args, "check", settings_from(args, ClaimsContext))


def cmd_verify(args: argparse.Namespace) -> int:
    """Check one claim."""
    from factcourt.api import context_with_given
    from factcourt.api.claims import verify
    from factcourt.inputs import read_evidence_file

    prepare_out(args.out)
    prepare_html(args)
    evidence = read_evidence_file(Path(args.evidence)) if args.evidence else None
    ctx = context_with_given(ClaimsContext, evidence, settings_values(args), {})
    preflight(ctx)
    result = verify(args.claim, evidence, args.question or "", ctx)
    if result.error:
        emit_result(result, args, lambda r: None)
        return exit_code(result)

    def render(r: VerifyResult) -> None:
        out.print(f"[bold]{escape(r.text)}[/]")
        words = VERDICT_WORDS.get(r.verdict or "", r.verdict)
        out.print(f"verdict: [{VERDICT_STYLE.get(r.verdict, '')}]{words}[/] after {r.rounds} round(s)")
        if r.unchecked_reason:
            out.print(f"why not: {escape(r.unchecked_reason)}", highlight=False)
        if r.verdict == "not_enough_evidence" and ctx.search == "local":
            out.print(f"[yellow]to check it: {ways_to_check(evidence_flag=True)}[/]", highlight=False)
        if r.justification:
            out.print(f"justification: {escape(r.justification)}")
        if first := r.first_pass:
            sure = "" if first.confidence is None else f" ({first.confidence:.2f})"
            how = "decided there" if r.route == "first_pass" else "contested: debated"
            out.print(f"[dim]first pass: {first.verdict}{sure}, {how}[/]")
        for t in r.transcript:
            out.print(f"[dim]R{t.round} {t.speaker}: {t.verdict or ''} {escape(t.text)}[/]")
        failed = f" ({r.usage.failed} failed)" if r.usage.failed else ""
        out.print(f"[dim]{r.usage.calls} model calls{failed}, {r.usage.search_calls} searches[/]")

    emit_result(result, args, render)
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``check`` and ``verify``."""
    p = sub.add_parser(
        "check",
        help="check a long-form text (MAD-Fact pipeline)",
        description="Split a text into claims, debate each, and score the text.",
    )
    p.add_argument("file", nargs="?", default="-", help="text file, or - for standard input")
    p.add_argument("--question", "-q", help="the question the text answers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", help="also write the JSON result to this file (with --batch: the results)")
    add_html_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_batch_options(p, '{"id", "text", "question" (optional)}', cmd_check_rows)
    p.add_argument(
        "--keep-checkpoint",
        action="store_true",
        help="keep the run's checkpoints after it finishes (by default only a crashed run's are kept, "
        "to resume it; `factcourt cache --clear` deletes those)",
    )
    add_settings(p, ClaimsContext)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "verify",
        help="check one claim (DebateCV or jury)",
        description="Debate one claim, over given evidence or retrieved evidence.",
    )
    p.add_argument("--claim", required=True, help="the claim")
    p.add_argument("--evidence", help="JSON or JSONL file of evidence ({'text', 'url', 'title'})")
    p.add_argument("--question", "-q", help="context for the claim")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", help="also write the JSON result to this file")
    add_html_option(p)
    add_settings(p, ClaimsContext)
    p.set_defaults(func=cmd_verify)
