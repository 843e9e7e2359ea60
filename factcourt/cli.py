"""The command line: ``factcourt check | verify | detect | audit | pyramid | leaderboard | models | ...``.

Exit codes: 0 done, 1 the run failed, 2 bad input or configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import logging
import os
import signal
import sys
import threading
import warnings
from collections import Counter
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.cli_shared import (
    add_settings,
    emit_result,
    err,
    fail,
    number,
    out,
    output_lock,
    preflight,
    prepare_out,
    read_text,
    run_with_progress,
    say_how_it_runs,
    settings_from,
    settings_values,
    warn_if_corpus_misses_language,
)
from factcourt.context.base import ROLES, BaseContext
from factcourt.context.claims import ClaimsContext
from factcourt.errors import FactcourtError, InputError

VERDICT_STYLE = {
    "supported": "green",
    "refuted": "red",
    "not_enough_evidence": "yellow",
    "conflicting_evidence": "magenta",
    None: "bold red",
}


# ------------------------------------------------------------------------------ input


# --------------------------------------------------------------------------- settings


# --------------------------------------------------------------------------- running


async def check_resumably(text: str, question: str, ctx: ClaimsContext, quiet: bool, keep: bool) -> dict:
    """Run ``factcheck`` under a SQLite checkpointer so that a crashed run resumes."""
    from factcourt.checkpoints import DURABILITY, resumable_check

    async with resumable_check(text, question, ctx, keep=keep) as run:
        say_how_it_runs(run, quiet, "this same text")
        result = await run_with_progress(run.graph, run.payload, ctx, run.config, quiet, DURABILITY)
    return result


def print_report(result: dict) -> None:
    """A readable table of claims, then scores, drops and usage."""
    from factcourt.providers.search import LANGUAGE_NOT_COVERED

    table = Table(title="Claims", expand=True)
    for col, kw in [
        ("id", {"width": 4}),
        ("claim", {"ratio": 5}),
        ("verdict", {"ratio": 2}),
        ("decided by", {"ratio": 2}),
        ("evidence", {"ratio": 2}),
    ]:
        table.add_column(col, **kw)
    for c in result["claims"]:
        verdict = c["verdict"] or f"failed: {c['error']}"
        if c.get("confidence") is not None:
            verdict += f" ({c['confidence']:.2f})"
        if c.get("language_not_covered"):
            verdict += f"\n{LANGUAGE_NOT_COVERED} ({c['language_not_covered']})"
        tally = Counter(c["votes"].values())
        votes = ", ".join(f"{n} {v.replace('_', ' ')}" for v, n in tally.most_common())
        if c.get("route") == "first_pass":
            votes = "first pass"
        elif c.get("summaries"):  # DebateCV: the moderator's verdict, the debaters cast no votes
            votes = f"moderator (round {c['summaries'][-1]['round']})"
        elif c.get("route") == "debate":
            votes = f"jury: {votes}"
        urls = list(dict.fromkeys(e["url"] for e in c["evidence"] if e["url"]))
        evidence = f"{len(c['evidence'])}: {urls[0]}" if urls else str(len(c["evidence"]))
        table.add_row(  # the text, the reasons and the URLs are the user's or a model's: no markup
            escape(c["id"]),
            escape(c["text"]),
            f"[{VERDICT_STYLE.get(c['verdict'], '')}]{escape(verdict)}[/]",
            votes,
            escape(evidence),
        )
    out.print(table)
    s = result["scores"]
    precision = "n/a" if s.get("precision") is None else f"{s['precision']:.2f}"
    out.print(
        f"[bold]precision {precision}[/]  supported {s.get('supported', 0)}  refuted "
        f"{s.get('refuted', 0)}  not enough evidence {s.get('not_enough_evidence', 0)}  "
        f"conflicting {s.get('conflicting_evidence', 0)}  failed {s.get('failed', 0)}"
    )
    if uncovered := result.get("language_not_covered"):
        out.print(
            f"[yellow]{uncovered} claim(s): {LANGUAGE_NOT_COVERED}, so their verdicts rest on no "
            "evidence from it[/]"
        )
    for d in result["dropped"]:
        out.print(f"[dim]dropped ({d['reason']}): {escape(d['sentence'])}[/]")
    u = result["usage"]
    out.print(
        f"[dim]{u['calls']} model calls, {u['input_tokens']} input + {u['output_tokens']} "
        f"output tokens, {u['search_calls']} searches[/]"
    )
    if result.get("correction"):
        print_correction(result)


def print_correction(result: dict) -> None:
    """The corrected text and a diff against the original."""
    corrected = result["correction"]["text"]
    out.rule("corrected text")
    out.print(corrected, markup=False)
    out.rule("diff")
    diff = difflib.unified_diff(
        result["response"].splitlines(), corrected.splitlines(), "original", "corrected", lineterm=""
    )
    out.print("\n".join(diff) or "(no change)", markup=False)
    for failure in result["correction"].get("failed", []):
        out.print(
            f"[yellow]not rewritten ({failure['claim_id']}):[/] {escape(failure['error'])}", highlight=False
        )


# --------------------------------------------------------------------------- commands


def cmd_check(args: argparse.Namespace) -> int:
    """Check a long-form text."""
    from factcourt.api import report
    from factcourt.inputs import long_question
    from factcourt.nodes.agents.clerk import response_problem

    text = read_text(args.file)
    if problem := response_problem(text) or long_question(args.question or ""):
        raise InputError(problem)
    prepare_out(args.out)
    ctx = settings_from(args, ClaimsContext)
    warn_if_corpus_misses_language(text, ctx)
    state = asyncio.run(
        check_resumably(text, args.question or "", ctx, args.json or args.quiet, args.keep_checkpoint)
    )
    result = report(state, ctx) | {"response": text}
    emit_result(result, args, print_report)
    return exit_code(result)


def exit_code(result: dict) -> int:
    """0 when every part of the text was checked; 1, with one sentence, when any part failed.

    A failed Clerk call or a failed claim never passes for an empty or partial success: the
    result still holds everything that was checked, and each failure with its reason.
    """
    failed_parts = [d for d in result["dropped"] if d["reason"] == "clerk_failed"]
    failed_claims = [c for c in result["claims"] if c["verdict"] is None]
    unrewritten = (result.get("correction") or {}).get("failed", [])
    if not failed_parts and not failed_claims:
        if unrewritten:  # --correct: a refuted sentence kept as it was is no "no change"
            fail(
                f"{len(unrewritten)} refuted sentence(s) could not be rewritten; first "
                f"reason: {unrewritten[0]['error']}"
            )
            return 1
        return 0
    if failed_parts and not result["claims"]:
        fail(f"the Clerk could not split the text into claims: {failed_parts[0]['error']}")
    else:
        reasons = [d["error"] for d in failed_parts] + [c["error"] for c in failed_claims]
        fail(
            f"{len(failed_claims)} of {len(result['claims'])} claims and "
            f"{len(failed_parts)} part(s) of the text could not be checked; first reason: {reasons[0]}"
        )
    return 1


def cmd_verify(args: argparse.Namespace) -> int:
    """Check one claim."""
    from factcourt.api import context_with_given, verify
    from factcourt.inputs import read_evidence_file

    prepare_out(args.out)
    evidence = read_evidence_file(Path(args.evidence)) if args.evidence else None
    ctx = context_with_given(ClaimsContext, evidence, settings_values(args), {})
    preflight(ctx)
    result = verify(args.claim, evidence, args.question or "", ctx)
    if result["error"]:
        emit_result(result, args, lambda r: None)
        fail(f"the claim could not be checked: {result['error']}")
        return 1

    def render(r: dict) -> None:
        out.print(f"[bold]{escape(r['text'])}[/]")
        out.print(
            f"verdict: [{VERDICT_STYLE.get(r['verdict'], '')}]{r['verdict']}[/] after {r['rounds']} round(s)"
        )
        if r["justification"]:
            out.print(f"justification: {escape(r['justification'])}")
        if first := r.get("first_pass"):
            sure = "" if first["confidence"] is None else f" ({first['confidence']:.2f})"
            how = "decided there" if r["route"] == "first_pass" else "contested: debated"
            out.print(f"[dim]first pass: {first['verdict']}{sure}, {how}[/]")
        for t in r["transcript"]:
            out.print(f"[dim]R{t['round']} {t['speaker']}: {t['verdict'] or ''} {escape(t['text'])}[/]")
        out.print(f"[dim]{r['usage']['calls']} model calls, {r['usage']['search_calls']} searches[/]")

    emit_result(result, args, render)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    """Show which model each role uses and where its weights are."""
    from factcourt.providers.models import choose

    ctx = BaseContext.from_dict({"model": args.model} if args.model is not None else {})
    table = Table(title="Models by role")
    for col in ("role", "model", "endpoint", "structured output", "weights"):
        table.add_column(col)
    for role in ROLES:
        c = choose(ctx, role)
        weights = c.weights
        if weights:
            weights += " (present)" if Path(weights).exists() else " (fetched on first use)"
        table.add_row(role, escape(c.name), escape(c.endpoint), c.method, escape(weights))
    out.print(table)
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    """Show what the cache directory holds; ``--clear`` deletes the caches and crashed runs."""
    from factcourt import checkpoints
    from factcourt.paths import cache_dir
    from factcourt.providers import cache

    if args.clear:
        answers = cache.clear()
        deleted, live = checkpoints.clear()
        out.print(
            f"deleted {answers} cached answers and searches and the checkpoints of {deleted} "
            f"unfinished run(s); {live} live run(s) kept"
        )
    table = Table(title=f"Cache: {escape(str(cache_dir()))}")
    for col in ("file", "MB"):
        table.add_column(col)
    for path in sorted(p for p in cache_dir().rglob("*") if p.is_file()):
        table.add_row(escape(str(path.relative_to(cache_dir()))), f"{path.stat().st_size / 1e6:.2f}")
    out.print(table)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run ``langgraph dev`` for this project (Studio and the HTTP API)."""
    from factcourt.server import PROJECT_ROOT, check_port_free, langgraph_dev

    check_port_free(args.port)
    command, env = langgraph_dev(args.port, reload=not args.no_reload)
    os.chdir(PROJECT_ROOT)  # langgraph.json's graph paths resolve against the working directory
    os.execvpe(command[0], command, env)
    return 0  # not reached


def cmd_assistants(args: argparse.Namespace) -> int:
    """Create one assistant per graph, protocol and rule on a running server."""
    from factcourt.server import create_standard_assistants

    made = asyncio.run(create_standard_assistants(args.url, args.timeout))
    table = Table(title=f"Assistants on {escape(args.url)}")
    for col in ("name", "assistant_id", "context"):
        table.add_column(col)
    for a in made:
        table.add_row(escape(a["name"]), a["assistant_id"], escape(json.dumps(a.get("context") or {})))
    out.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="factcourt",
        description="Check what an LLM wrote: agents debate each claim over retrieved evidence. "
        "With no OPENAI_API_KEY it runs offline on an embedded llama.cpp model and a "
        "local Wikipedia corpus.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "check",
        help="check a long-form text (MAD-Fact pipeline)",
        description="Split a text into claims, debate each, and score the text.",
    )
    p.add_argument("file", nargs="?", default="-", help="text file, or - for standard input")
    p.add_argument("--question", "-q", help="the question the text answers")
    p.add_argument("--correct", action="store_true", help="rewrite refuted claims and show a diff")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", help="also write the JSON result to this file")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument(
        "--keep-checkpoint",
        action="store_true",
        help="keep the run's checkpoints after it finishes (by default only a crashed run's are kept, "
        "to resume it; `factcourt cache --clear` deletes those)",
    )
    add_settings(p)
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
    add_settings(p)
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("models", help="show the model each role uses")
    p.add_argument("--model", help="as in check")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("cache", help="show the cache directory; --clear empties it")
    p.add_argument(
        "--clear",
        action="store_true",
        help="delete the cached answers and searches and the checkpoints of unfinished runs that "
        "are not live (the model weights stay)",
    )
    p.set_defaults(func=cmd_cache)

    p = sub.add_parser("serve", help="start the LangGraph server and Studio (langgraph dev)")
    p.add_argument("--port", type=port_number, default=2024)
    p.add_argument("--no-reload", action="store_true")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "assistants",
        help="create the standard assistants on a LangGraph server",
        description="One assistant per claim graph (factcheck, verify), protocol and "
        "rule, e.g. factcheck-jury-adaptive, and one per hallucination layout (hallucination-agents, "
        "hallucination-team). Existing ones are kept.",
    )
    p.add_argument("--url", default="http://127.0.0.1:2024", help="the server's URL")
    p.add_argument(
        "--timeout",
        type=number(float, 0, above=True),
        default=30.0,
        help="seconds to wait for each reply (30)",
    )
    p.set_defaults(func=cmd_assistants)

    from factcourt.bench.cli import add_bench_commands

    add_bench_commands(sub, add_settings)
    from factcourt.detect_cli import add_detect_command

    add_detect_command(sub, add_settings)
    from factcourt.leaderboard_cli import add_leaderboard_commands

    add_leaderboard_commands(sub, add_settings)
    from factcourt.longqa_cli import add_longqa_command

    add_longqa_command(sub, add_settings)
    from factcourt.audit_cli import add_audit_command

    add_audit_command(sub, add_settings)
    _debug_everywhere(parser)
    return parser


def _debug_everywhere(parser: argparse.ArgumentParser) -> None:
    """Accept ``--debug`` after any subcommand too, as the error messages suggest it."""
    for action in parser._actions:  # argparse lists subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                # SUPPRESS: a subcommand without the flag leaves the main parser's value alone
                command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
                _debug_everywhere(command)


def port_number(value: str) -> int:
    """A TCP port, 1 to 65535, or a usage error (exit 2)."""
    try:
        port = int(value)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, not {value!r}")
    return port


def _quiet_unstarted_steps_on_ctrl_c() -> None:
    """Ctrl-C drops the run's steps that had not started, and Python warns of each such coroutine.

    Nothing is lost (a resumable run resumes from its checkpoints), so the warnings ("coroutine
    'arun_with_retry' was never awaited") are noise before "interrupted": silenced from the Ctrl-C on.
    """
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous) or getattr(previous, "quiets_unstarted", False):
        return  # ignored (a background job), or wrapped by an earlier main() in this process

    def on_ctrl_c(signum: int, frame: object) -> None:
        warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        previous(signum, frame)

    on_ctrl_c.quiets_unstarted = True  # type: ignore[attr-defined]
    if threading.current_thread() is threading.main_thread():  # where Python allows handlers
        signal.signal(signal.SIGINT, on_ctrl_c)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a command and map errors to exit codes."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    parser = build_parser()
    args = parser.parse_args(argv)
    from factcourt.providers.local_server import allow_starts, install_exit_handlers

    install_exit_handlers()
    _quiet_unstarted_steps_on_ctrl_c()
    allow_starts()  # main() may run again in this process (tests) after a Ctrl-C
    try:
        with output_lock(args):
            return args.func(args)
    except FactcourtError as exc:
        fail(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        from factcourt.providers.local_server import stop_all

        stop_all()  # at once, unless another process uses the server: no keep-alive after Ctrl-C
        err.print("[yellow]interrupted[/]")
        return 130
    except Exception as exc:  # noqa: BLE001
        if args.debug:
            raise
        # its first line: a library's message (pydantic's, say) runs to many; --debug shows them
        said = next(iter(str(exc).strip().splitlines()), "")
        fail(f"{type(exc).__name__}: {said} (run with --debug for details)")
        return 1
    finally:
        from factcourt.tracing import flush_traces

        flush_traces()


def run() -> None:
    """Console entry point: ``main``, then an exit that no pending trace upload can delay.

    With tracing on and LangSmith unreachable, the client's exit handlers retry for tens of
    seconds; :func:`flush_traces` already gave uploads a bounded chance, so the process ends
    here without running them (the embedded model server is left first).
    """
    code = main()
    from factcourt.tracing import tracing_enabled

    if not tracing_enabled():
        sys.exit(code)
    from factcourt.providers.local_server import leave_all

    leave_all()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
