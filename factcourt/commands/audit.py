"""``factcourt audit``: audit a model's fact-checking ability (FACT-AUDIT, graph ``audit``)."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

from rich.markup import escape

from factcourt.commands.report import add_html_option, prepare_html
from factcourt.commands.shared import (
    add_ray,
    add_settings,
    err,
    fail,
    out,
    preflight,
    prepare_out_folder,
    say_how_it_runs,
    settings_values,
)
from factcourt.context.audit import AUDIT_SCALES, AuditContext
from factcourt.errors import ConfigError, FactcourtError, InputError
from factcourt.report import write_html


def cmd_audit(args: argparse.Namespace) -> int:
    """Run the audit (``--runs`` times) with a progress display and write the reports.

    Exit 1 if nothing was graded (in a run, with ``--runs``), 2 on bad input.
    """
    from factcourt.api.audit import audit_context, audit_objects, audit_run_key
    from factcourt.api.audit.report import runs_json, write_runs

    if args.runs < 1:
        raise InputError(f"--runs must be at least 1, not {args.runs}")
    values = settings_values(args)
    if args.auditor_model:
        if "model" in values and values["model"] != args.auditor_model:
            raise ConfigError("--auditor-model and --model name different models: give one")
        values["model"] = args.auditor_model
    ctx = audit_context(args.scale, args.target_model, args.target_base_url, values, {})
    objects = audit_objects(args.objects)
    folder = Path(args.out)
    prepare_out_folder(folder)  # not after the audit: write_audit would fail with hours of work
    prepare_html(args)
    preflight(ctx)
    if args.runs == 1:
        [(code, report)] = _audit_runs(objects, [Run(ctx, folder)], args)
        if args.html:
            write_html(args.html, report, "audit", folder)
        return code
    reports: dict[int, dict[str, Any]] = {}
    todo: dict[int, Run] = {}
    for k in range(1, args.runs + 1):
        # a run of its own: its seed picks other examples and keys other sampled answers
        run_ctx = replace(ctx, audit_seed=ctx.audit_seed + k - 1)
        run_folder = folder / f"run-{k}"
        finished = _finished_run(run_folder, audit_run_key(objects, run_ctx))
        if finished is not None:  # the same command after a crash goes on where it stopped
            err.print(
                f"[bold]run {k} of {args.runs}: finished before[/] (read back from {escape(str(run_folder))})"
            )
            reports[k] = finished
        else:
            todo[k] = Run(run_ctx, run_folder, f"run {k} of {args.runs}")
    for k, (code, report) in zip(todo, _audit_runs(objects, list(todo.values()), args), strict=False):
        if code == 2:
            return code
        reports[k] = report
    empty = [k for k in sorted(reports) if not reports[k]["counts"]["graded"]]
    summary = runs_json([reports[k] for k in sorted(reports)])
    paths = write_runs(summary, folder)
    if args.html:
        write_html(args.html, summary, "audit", folder)
    overall = summary["overall"]
    if overall["runs"]:
        out.print(
            f"over {overall['runs']} run{'s' if overall['runs'] > 1 else ''}: "
            + "  ".join(_spread(name, overall[m], unit) for name, m, unit in _OVER_RUNS)
        )
    out.print(f"[dim]wrote {escape(', '.join(str(p) for p in paths.values()))}[/]")
    if empty:
        fail(
            f"run {', '.join(map(str, empty))} graded nothing: the figures are over "
            f"{overall['runs']} of {args.runs} runs"
        )
        return 1
    return 0


_OVER_RUNS = (("IMR", "imr", "%"), ("JFR", "jfr", "%"), ("Grade", "grade", ""))


def _spread(name: str, metric: dict[str, Any], unit: str) -> str:
    """``IMR 40.00 ± 5.00%``; a single run has no sd, so none is shown."""
    sd = "" if metric["sd"] is None else f" ± {metric['sd']:.2f}"
    return f"{name} {metric['mean']:.2f}{sd}{unit}"


def _finished_run(folder: Path, key: str) -> dict[str, Any] | None:
    """The report of a run finished with these objects and settings, if ``folder`` holds one."""
    import json

    try:
        report: dict[str, Any] = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if report.get("run_key") != key or report.get("error") or not report["counts"]["graded"]:
        return None  # another audit's, or one to redo
    return report


@dataclass(frozen=True)
class Run:
    """One audit run to make: its settings, the folder of its reports, and its name on the console."""

    ctx: AuditContext
    folder: Path
    title: str = ""


def _audit_runs(
    objects: list[str], runs: list[Run], args: argparse.Namespace
) -> list[tuple[int, dict[str, Any]]]:
    """Make the runs, each one's reports written as it finishes; their (exit code, report) in order.

    Here one after the other (bad input, exit 2, stops them), or with --ray all at once on the
    cluster, one run per task.
    """
    if args.ray is None:
        done = []
        for run in runs:
            if run.title:
                err.print(f"[bold]{run.title}[/] (audit_seed={run.ctx.audit_seed})")
            report = asyncio.run(run_audit(objects, run.ctx, args.quiet, args.keep_checkpoint))
            done.append(_finish(objects, run, report))
            if done[-1][0] == 2:
                break
        return done
    if not runs:
        return []
    from factcourt.fanout import cluster, fan_out

    by_seed = {run.ctx.audit_seed: run for run in runs}
    finished: dict[int, tuple[int, dict[str, Any]]] = {}

    def on_outcome(ctx: AuditContext, report: dict[str, Any]) -> None:
        run = by_seed[ctx.audit_seed]
        if run.title:
            err.print(f"[bold]{run.title}[/]: finished on the Ray cluster (audit_seed={ctx.audit_seed})")
        finished[ctx.audit_seed] = _finish(objects, run, report)

    with cluster(args.ray) as ray:
        work = partial(audited, objects, args.keep_checkpoint)
        fan_out(ray, [run.ctx for run in runs], work, on_outcome, _lost, concurrency=1)
    return [finished[run.ctx.audit_seed] for run in runs]


async def audited(objects: list[str], keep: bool, ctx: AuditContext) -> dict[str, Any]:
    """One run's report (report.json's, with the cases), made on a Ray worker (no progress display there)."""
    from factcourt.api.audit import aaudit

    return (await aaudit(objects, settings=ctx, keep_checkpoint=keep)).model_dump(mode="json")


def _lost(ctx: AuditContext, reason: str) -> NoReturn:
    """A run whose Ray task failed stops the command; the runs finished are kept."""
    raise FactcourtError(
        f"the audit run with audit_seed={ctx.audit_seed} failed on the Ray cluster ({reason}): "
        "run the same command again"
    )


def _finish(objects: list[str], run: Run, report: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Write a run's reports to its folder and say how it went; (exit code, report)."""
    from factcourt.api.audit import audit_run_key
    from factcourt.api.audit.report import write_audit

    report |= {"run_key": audit_run_key(objects, run.ctx)}
    paths = write_audit(report, run.folder)
    if report["models"]["self_audit"]:
        err.print("[yellow]note:[/] the auditor is the target: a self-audit flatters it (see report.md)")
    if report["error"]:
        fail(report["error"])
        return 2, report
    overall, c = report["overall"], report["counts"]
    if overall["n"]:
        out.print(
            f"IMR {overall['imr']:.2f}%  JFR {overall['jfr']:.2f}%  Grade {overall['grade']:.2f}  over "
            f"{overall['n']} graded cases ({c['target_failed']} the target failed, {c['dropped']} dropped)"
        )
    out.print(f"[dim]wrote {escape(', '.join(str(p) for p in paths.values()))}[/]")
    if not c["graded"]:
        fail(f"no case was graded: {_first_reason(report)}")
        return 1, report
    return 0, report


def _first_reason(report: dict[str, Any]) -> str:
    reasons = [r["error"] for r in report["cases"] if r["error"]] + report["notes"]
    return reasons[0] if reasons else "no case was written"


async def run_audit(objects: list[str], ctx: AuditContext, quiet: bool, keep: bool) -> dict[str, Any]:
    """The audit's report (report.json's, with the cases), under the checkpointer, drawing its progress.

    A crashed audit resumes.
    """
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    from factcourt.api.audit import aaudit
    from factcourt.metrics.audit import poor
    from factcourt.progress import Progress

    progress = Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        TextColumn("{task.completed} graded"),
        TextColumn("{task.fields[imr]}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=quiet,
    )
    task = progress.add_task("starting", total=None, imr="")
    graded = low = 0

    def on_event(chunk: dict[str, Any]) -> None:
        nonlocal graded, low
        if chunk["event"] == "run":
            say_how_it_runs(chunk, quiet, "this audit (graded cases are not redone)")
        elif chunk["event"] == "audit_scenario":
            progress.update(task, description=f"{chunk['object']} / {chunk['scenario']}")
        elif chunk["event"] == "audit_case" and chunk["status"] == "graded":
            graded, low = graded + 1, low + poor(chunk["grade"])
            progress.update(task, completed=graded, imr=f"running IMR {100 * low / graded:.1f}%")

    with progress:
        # ctx holds --scale already: the API's default scale must not fill in what it left at a default
        result = await aaudit(objects, settings=ctx, scale=None, keep_checkpoint=keep, progress=on_event)
    return result.model_dump(mode="json")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``audit``."""
    p = sub.add_parser(
        "audit",
        help="audit a model's fact-checking ability (FACT-AUDIT)",
        description="Agents write test cases for the target model per scenario of a taxonomy of "
        "complex claims, fake news and social rumors, grade its verdicts and justifications 1-10, "
        "probe its weak spots and add scenarios where it fails. Writes report.md, report.json, "
        "cases.jsonl and imr_by_scenario.png to --out. A killed audit resumes when run again with "
        "the same options. Exit 0 done, 1 no case graded (in some run, with --runs), 2 bad input.",
    )
    p.add_argument("--target-model", required=True, help="the model under audit: local, a model name, ...")
    p.add_argument("--target-base-url", help="the target's OpenAI-compatible endpoint, if not the auditor's")
    p.add_argument("--auditor-model", help="the model of every auditing agent (default: as --model)")
    p.add_argument(
        "--objects",
        nargs="+",
        metavar="OBJECT",
        help="objects to audit, in order: complex_claim fake_news social_rumor (default all)",
    )
    p.add_argument(
        "--scale",
        choices=list(AUDIT_SCALES),
        default="paper",
        help="'paper': the paper's numbers (30 graded cases per scenario, up to 16 scenarios per object, "
        "three [[Stop]]s, 10 examples for the Prober); 'code': the same but as the authors' code "
        "(one [[Stop]], 5 examples); "
        "'smoke': 2 scenarios per object, 3 cases each, at most 1 added (about 150 calls). "
        "--set audit_...=N changes any of them",
    )
    p.add_argument("--out", required=True, help="folder for the reports")
    p.add_argument(
        "--runs",
        type=int,
        default=1,
        help="audit N times, with audit_seed, audit_seed+1, ... (the paper reports the mean and sd "
        "of 3 runs): each run's reports go to OUT/run-K, the mean ± sd to OUT/runs.md and runs.json; "
        "the same command again goes on after the last finished run",
    )
    add_ray(p, "the runs (with --runs; each run a unit, its progress not shown)")
    add_html_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument(
        "--keep-checkpoint", action="store_true", help="keep the audit's checkpoints after it finishes"
    )
    add_settings(p, AuditContext)
    p.set_defaults(func=cmd_audit)
