"""``--batch``: what ``check`` and ``detect`` share to run over a JSONL file of rows."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from factcourt.commands.shared import add_prices, add_ray, err, fail, out, prepare_out, prices_from
from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError
from factcourt.progress import Progress
from factcourt.terminal import json_text


def add_batch_options(
    parser: argparse.ArgumentParser, row: str, run_rows: Callable[[argparse.Namespace], int]
) -> None:
    """``--batch``, ``--ray`` and the prices of the summary's cost estimate.

    ``run_rows`` is the command's form over ``--batch``'s rows, run in place of its one-item form
    (``chosen``): each form reads only its own options.
    """
    parser.set_defaults(run_rows=run_rows)
    g = parser.add_argument_group("batch")
    g.add_argument(
        "--batch",
        metavar="FILE",
        help=f"check every row of a JSONL file ({row}); --out names the JSONL file of results, "
        "one line per row as it finishes: rows already there are skipped, so a killed batch resumes. "
        "--concurrency is then the rows checked at once, and several --base-url are used in turn",
    )
    add_ray(g, "the rows (with --batch)")
    add_prices(g)


class RateColumn(ProgressColumn):
    """Rows a second, as the bar measures them."""

    def render(self, task) -> Text:
        """The task's speed in rows a second."""
        return Text("" if task.speed is None else f"{task.speed:.2f} rows/s", style="progress.data.speed")


@contextlib.contextmanager
def batch_progress(quiet: bool) -> Iterator[Callable[[dict[str, Any]], None]]:
    """A bar of rows with rate and time left, drawn from the batch's events."""
    progress = Progress(
        TextColumn("[bold]rows"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[last]}"),
        console=err,
        transient=True,
        disable=quiet,
    )
    task = progress.add_task("rows", total=None, last="")

    def on_event(event: dict[str, Any]) -> None:
        if event["event"] == "batch":  # reset: the rows done before do not count in the rate
            progress.reset(task, total=event["total"], completed=event["done"], last="")
        elif event["event"] == "row":
            said = f"{event['id']}: failed" if event["error"] else event["id"]
            progress.update(task, advance=1, last=escape(said))

    with progress:
        yield on_event


def chosen(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The form of the command that ``args`` asks for: over ``--batch``'s rows, else its own."""
    batched = hasattr(args, "run_rows")  # a command with --batch
    if batched and not args.batch and args.ray:
        raise ConfigError("--ray spreads the rows of a --batch run: give --batch FILE")
    return cast(Callable[[argparse.Namespace], int], args.run_rows if batched and args.batch else args.func)


def run_batch_command(args: argparse.Namespace, kind: str, ctx: BaseContext) -> int:
    """Run ``kind`` over ``--batch``'s rows into ``--out``; print the summary; 1 when a row failed."""
    from factcourt.batch import run_batch

    if not args.out:
        raise ConfigError("--batch needs --out FILE: the JSONL file its results go to, one line per row")
    if getattr(args, "html", None):
        raise ConfigError("--html shows one result: --batch writes its results to --out")
    prepare_out(args.out)
    urls = args.base_url or []
    with batch_progress(args.json or args.quiet) as progress:
        summary = asyncio.run(
            run_batch(
                kind,
                Path(args.batch),
                Path(args.out),
                ctx,
                concurrency=args.concurrency or 4,
                replicas=urls if len(urls) > 1 else [],
                ray=args.ray,
                prices=prices_from(args),
                progress=progress,
            )
        )
    if args.json:
        print(json_text(summary, indent=2), flush=True)
    else:
        print_summary(summary)
    failed, rejected = len(summary["failed"]), len(summary["rejected"])
    if failed or rejected:
        # a rerun retries failed rows only: a rejected line stays rejected until it is fixed
        said = [f"{failed} row(s) failed (run the same command again to retry them)"] * bool(failed)
        said += [f"{rejected} line(s) were rejected (fix them in the --batch file)"] * bool(rejected)
        fail(f"{' and '.join(said)}, out of {summary['rows']}")
        return 1
    return 0


def print_summary(s: dict[str, Any]) -> None:
    """The batch's rows, verdicts, cost, and each failed or rejected row with its reason."""
    run = s["this_run"]
    out.print(
        f"[bold]{s['rows']} rows[/]: {s['finished']} finished, {len(s['failed'])} failed, "
        f"{len(s['rejected'])} rejected",
        highlight=False,
    )
    tally = ", ".join(f"{v.replace('_', ' ')} {n}" for v, n in s["verdicts"].items())
    out.print(f"{s['claims']} claims: {tally}" if s["claims"] is not None else tally, highlight=False)
    rate = "" if run["rows_per_s"] is None else f" ({run['rows_per_s']:.2f} rows/s)"
    out.print(
        f"this run: {run['rows']} rows in {run['seconds']:.1f} s{rate}, {run['from_store']} from the store; "
        f"{run['calls']} model calls, {run['input_tokens']} input + {run['output_tokens']} output tokens, "
        f"{run['search_calls']} searches, about ${run['cost_usd']:.4f}",
        highlight=False,
    )
    u = s["usage"]
    out.print(
        f"[dim]the batch's results cost {u['calls']} model calls, {u['input_tokens']} input + "
        f"{u['output_tokens']} output tokens, about ${s['cost_usd']:.4f}[/]",
        highlight=False,
    )
    for f in s["failed"]:
        said = f"{escape(f['id'])} (line {f['line']}): {escape(f['reason'])}"
        out.print(f"[red]failed[/] {said}", highlight=False)
    for r in s["rejected"]:
        named = f" ({escape(r['id'])})" if r["id"] else ""
        out.print(f"[yellow]rejected[/] line {r['line']}{named}: {escape(r['reason'])}", highlight=False)
