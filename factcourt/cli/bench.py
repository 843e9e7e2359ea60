"""``factcourt bench ...`` and ``factcourt synth-sft``."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.bench.methods import METHODS
from factcourt.cli.report import add_html_option, prepare_html
from factcourt.cli.shared import (
    add_prices,
    add_ray,
    add_settings,
    at_least_one,
    embedding_progress,
    fail,
    number,
    preflight,
    prepare_out,
    prepare_out_folder,
    prices_from,
    read_text,
    settings_from,
    settings_values,
)
from factcourt.errors import ConfigError, FactcourtError
from factcourt.report import write_html
from factcourt.store import append_line
from factcourt.terminal import Console, json_text

out = Console()
# bench clerk's default fixture, shipped inside the package: found from any working folder
DECONTEXT_FIXTURE = Path(__file__).resolve().parent.parent / "bench" / "fixtures" / "decontext.jsonl"


def levels(value: str) -> tuple[int, ...]:
    """An argparse type: comma-separated numbers from 1, e.g. 1,4,8."""
    try:
        return tuple(at_least_one(item.strip()) for item in value.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"comma-separated whole numbers from 1 (e.g. 1,4,8), not {value!r}"
        ) from None


def cmd_bench_run(args: argparse.Namespace) -> int:
    """Compare methods on a labelled dataset."""
    from factcourt.bench.runner import run_bench

    if args.evidence:
        args.search = args.evidence
    args.no_cache = not args.cache  # cached answers would hide the cost of later methods
    prepare_out_folder(Path(args.out))
    prepare_html(args)
    ctx = settings_from(args, BenchContext)
    prices = prices_from(args)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    summary = asyncio.run(
        run_bench(
            Path(args.dataset),
            methods,
            ctx,
            Path(args.out),
            limit=args.limit,
            seed=args.seed,
            balanced=args.balanced,
            part=args.part,
            prices=prices,
            report_only=args.report_only,
            ray=args.ray,
        )
    )
    out.print((Path(args.out) / "report.md").read_text(encoding="utf-8"), markup=False)
    out.print(
        f"[dim]reports in {escape(args.out)}: report.json, report.md, wrong_predictions.csv "
        f"({summary['wrong_predictions']} rows), f1_false_vs_cost.png[/]"
    )
    if args.html:
        write_html(args.html, summary, "bench", Path(args.out))
    failed = {m: r["binary"]["failed"] for m, r in summary["report"].items() if r["binary"]["failed"]}
    if failed:  # counted as wrong in the report; the same command tries them again
        fail(
            f"failed predictions ({', '.join(f'{m} {n}' for m, n in failed.items())}): "
            "run the same command again to retry them"
        )
        return 1
    return 0


def cmd_bench_sweep(args: argparse.Namespace) -> int:
    """Score candidate default settings on dev data and pick the best within the call budget."""
    from factcourt.bench.sweep import run_sweep

    args.no_cache = not args.cache
    prepare_out_folder(Path(args.out))
    base = settings_from(args, BenchContext)
    summary = run_sweep(
        dataset_specs(args.dataset),
        lambda evidence: BenchContext.make(base, search=evidence),
        Path(args.out),
        limit=args.limit,
        part=args.part,
    )
    out.print((Path(args.out) / "sweep.md").read_text(encoding="utf-8"), markup=False)
    if summary["problem"]:
        fail(summary["problem"])
        return 1
    out.print(f"chosen: {summary['chosen']}  (sweep.json and sweep.md in {escape(args.out)})")
    return 0


def dataset_specs(items: list[str]) -> list[tuple[Path, str]]:
    """--dataset PATH:EVIDENCE values as (path, evidence condition) pairs."""
    datasets = []
    for item in items:
        path, sep, evidence = item.rpartition(":")
        if not sep or evidence not in ("given", "local", "tavily", "serper", "none"):
            raise ConfigError(f"--dataset takes PATH:EVIDENCE (e.g. qa.jsonl:given), not {item!r}")
        datasets.append((Path(path), evidence))
    return datasets


def cmd_bench_calibrate(args: argparse.Namespace) -> int:
    """Fit the first pass's calibration for the model in use on the dev parts."""
    from factcourt.bench.calibrate import run_calibrate
    from factcourt.providers.calibration import SHIPPED

    args.no_cache = not args.cache
    prepare_out_folder(Path(args.out))
    base = settings_from(args, BenchContext)
    report = asyncio.run(
        run_calibrate(
            dataset_specs(args.dataset),
            lambda evidence: BenchContext.make(base, search=evidence),
            Path(args.out),
            limit=args.limit,
            folder=SHIPPED if args.ship else None,
        )
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    slopes = "".join(f", slope over {kind} evidence {a:.3f}" for kind, a in report["slopes"].items())
    table = Table(title=f"Calibration of {report['model']}: a={report['a']:.3f} b={report['b']:+.3f}{slopes}")
    for col in (
        "dataset",
        "n",
        "acc raw",
        "acc held out",
        "macro-F1 raw",
        "macro-F1 held out",
        "ECE raw",
        "ECE held out",
    ):
        table.add_column(col)
    fmt = lambda x: "n/a" if x is None else f"{x:.3f}"  # noqa: E731
    for row in report["datasets"]:
        table.add_row(
            row["dataset"],
            str(row["n"]),
            *(
                fmt(row.get(f"{kind}_{score}"))
                for score in ("accuracy", "macro_f1", "ece")
                for kind in ("raw", "held_out")
            ),
        )
    out.print(table)
    out.print(f"saved to {escape(str(report['saved']))}; held out: each dataset under the fit of the others")
    if forms := report.get("forms"):
        table = Table(title="Calibration forms, each dataset left out: macro-F1 vs raw (won/lost items), ECE")
        table.add_column("form")
        for row in next(iter(forms.values())):
            table.add_column(escape(row["dataset"]))
        table.add_column("worst")
        for form, rows in forms.items():
            table.add_row(
                form + (" (best)" if form == report["best_form"] else ""),
                *(f"{r['vs_raw']:+.3f} ({r['won']}/{r['lost']}) {fmt(r['ece'])}" for r in rows),
                f"{min(r['vs_raw'] for r in rows):+.3f}",
            )
        out.print(table)
    return 0


def cmd_bench_clerk(args: argparse.Namespace) -> int:
    """Rate of self-contained claims on a decontextualisation fixture."""
    from factcourt.bench.clerk import run

    args.no_cache = not args.cache
    if args.answers:
        return _clerk_coverage(args)
    summary = run(Path(args.fixture), settings_from(args, BenchContext))
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
        [Path(p) for p in args.answers], settings_from(args, BenchContext), limit=args.limit, part=args.part
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


def _three(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def cmd_bench_answers(args: argparse.Namespace) -> int:
    """``check`` on whole answers, scored against the annotators' segment labels."""
    from factcourt.bench.answers import run

    args.no_cache = not args.cache
    prepare_out_folder(Path(args.out))
    found = run(
        Path(args.dataset),
        settings_from(args, BenchContext),
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


def cmd_bench_retrieval(args: argparse.Namespace) -> int:
    """Recall@k of the page a claim's annotators cited, where the offline corpus holds it."""
    from factcourt.bench.retrieval import run

    ctx = settings_from(args, BenchContext)
    with embedding_progress() as progress:
        found = run(Path(args.dataset), ctx, k=args.k, part=args.part, dense=args.dense, progress=progress)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    table = Table(title=f"Cited page among the first {found['k']} passages: {found['segments']} segments")
    for col in ("query / ranking", f"recall@{found['k']}", "ms a query"):
        table.add_column(col)
    for name, recall in found["recall"].items():
        table.add_row(name, f"{recall:.3f}", f"{found['ms_per_query'][name]:.1f}")
    out.print(table)
    return 0


def cmd_bench_corrector(args: argparse.Namespace) -> int:
    """Minimal corrections of a dataset's FALSE claims, held to the corrector's rubric."""
    from factcourt.bench.corrector import run

    if args.evidence:
        args.search = args.evidence
    args.no_cache = not args.cache
    summary = run(Path(args.dataset), settings_from(args, BenchContext), limit=args.limit, part=args.part)
    if args.json:
        print(json_text(summary, indent=2))
    else:
        table = Table(
            title=f"Corrections within the rubric: {summary['rubric_rate']:.0%} of {summary['claims']}"
        )
        for col in ("claim", "outcome", "replacement or reason"):
            table.add_column(col)
        for row in summary["rows"]:
            table.add_row(
                escape(row["claim"]),
                row["outcome"],
                escape(row.get("replacement") or row.get("error") or "(removed)"),
            )
        out.print(table)
        out.print(
            f"fixed {summary['fixed']} (first try {summary['first_try']}), removed {summary['removed']}, "
            f"failed {summary['failed']}"
        )
    if errors := [r["error"] for r in summary["rows"] if r["outcome"] == "error"]:
        fail(f"{len(errors)} correction call(s) failed, so the rate is not trusted: {errors[0]}")
        return 1
    return 0 if summary["claims"] else 2


def cmd_bench_perf(args: argparse.Namespace) -> int:
    """Framework overhead and concurrency on the simulated model."""
    from factcourt.bench.perf import run_perf

    rows = run_perf(args.claims, args.concurrency, args.latency, args.rule)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"{args.claims} claims, simulated model at {args.latency * 1000:.0f} ms/call")
    for col in (
        "concurrency",
        "calls",
        "wall s",
        "critical path s",
        "bound at concurrency s",
        "wall / bound",
        "overhead ms/call",
    ):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r["concurrency"]),
            str(r["calls"]),
            f"{r['wall_s']:.2f}",
            f"{r['critical_path_s']:.2f}",
            f"{r['bound_at_concurrency_s']:.2f}",
            f"{r['wall_over_bound']:.3f}",
            f"{r['overhead_ms_per_call']:.2f}",
        )
    out.print(table)
    return 0


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

    if args.evidence:
        args.search = args.evidence
    prepare_out(args.append, "--append")
    summary = asyncio.run(
        measure(
            Path(args.dataset),
            settings_from(args, BenchContext),
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


def cmd_bench_rules(args: argparse.Namespace) -> int:
    """One text under each rule."""
    from factcourt.bench.rules import run_rules

    rows = run_rules(
        read_text(args.file),
        [r.strip() for r in args.rules.split(",")],
        **({"model": args.model} if args.model is not None else {}),
    )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title="Cost per claim by rule")
    for col in (
        "rule",
        "claims",
        "wall s",
        "calls/claim",
        "tokens in/out per claim",
        "searches/claim",
        "verdicts",
    ):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["rule"],
            str(r["claims"]),
            str(r["wall_s"]),
            str(r["calls_per_claim"]),
            f"{r['input_tokens_per_claim']}/{r['output_tokens_per_claim']}",
            str(r["searches_per_claim"]),
            ", ".join(str(v) for v in r["verdicts"]),
        )
    out.print(table)
    return 0


def cmd_bench_server(args: argparse.Namespace) -> int:
    """The LangGraph server's cold start and per-run overhead."""
    from factcourt.bench.server import run_server_bench

    print(json.dumps(run_server_bench(args.runs), indent=2))
    return 0


def cmd_synth_sft(args: argparse.Namespace) -> int:
    """Build Debate-SFT training data."""
    from factcourt.bench.sft import debate_context, synth_sft

    prepare_out(args.out)
    ctx = debate_context(settings_values(args))  # the options the user gave win over the preset
    preflight(ctx)
    counts = asyncio.run(synth_sft(Path(args.dataset), Path(args.out), ctx, args.limit, args.part))
    out.print(
        f"{counts['written']} samples written to {escape(args.out)} ({counts['corrected']} with a "
        f"Corrector-written target, C_error), {counts['failed']} failed, {counts['skipped']} "
        "already there"
    )
    if counts["failed"]:
        fail(
            f"{counts['failed']} samples failed (run again to retry them); first reason: "
            f"{counts['first_error']}"
        )
        return 1
    return 0


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the ``bench`` commands and ``synth-sft``."""
    bench = sub.add_parser("bench", help="benchmarks: quality, cost and speed")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True, metavar="BENCH")

    p = bench_sub.add_parser(
        "run",
        help="compare methods on a labelled dataset",
        description="Runs each method on the same claims with the same model and retrieval, "
        "writes every prediction as it finishes (the same command resumes), and "
        "reports P/R/F1 per label, accuracy, cost and time per claim. Exit 0 done, 1 some "
        "prediction failed (the same command tries it again), 2 bad input.",
    )
    p.add_argument(
        "--dataset",
        required=True,
        help="claims.jsonl or qa.jsonl in the shared schema (meta is never shown to a method)",
    )
    p.add_argument(
        "--methods", default="jury,adversarial,single", help=f"comma-separated, from: {', '.join(METHODS)}"
    )
    p.add_argument(
        "--evidence",
        choices=["given", "local", "tavily", "serper", "none"],
        help="evidence condition (same as --search)",
    )
    p.add_argument("--limit", type=at_least_one, help="first N cases (after shuffling with --seed)")
    p.add_argument("--seed", type=int, help="shuffle the cases with this seed before --limit")
    p.add_argument("--balanced", action="store_true", help="as many TRUE as FALSE cases")
    p.add_argument(
        "--part",
        choices=["all", "dev", "test"],
        default="all",
        help="a fixed half of the cases by id: tune on 'dev', report on 'test'",
    )
    p.add_argument("--out", default="bench-out", help="folder for predictions and reports")
    p.add_argument(
        "--cache",
        action="store_true",
        help="reuse cached model answers (cost columns then count only new calls)",
    )
    p.add_argument(
        "--report-only", action="store_true", help="run nothing: rebuild the reports from stored predictions"
    )
    add_ray(p, "the predictions (each method on each case)")
    add_prices(p)
    add_html_option(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_run)

    p = bench_sub.add_parser(
        "sweep",
        help="candidate default settings: quality against calls per claim",
        description="Records one run per dataset with the first pass kept and every claim debated, "
        "then replays every candidate (first pass alone, jurors, rounds, routing at each theta) on "
        "those claims and picks the best mean macro-F1 within 2.5 model calls per claim, unless it "
        "gets less than one claim more right per dataset than the cheapest candidate.",
    )
    p.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="PATH:EVIDENCE, repeatable (e.g. ../shared/data/halueval_qa/qa.jsonl:given)",
    )
    # balanced: one TRUE and one FALSE case at least
    p.add_argument("--limit", type=number(int, 2), default=12, help="balanced cases per dataset")
    p.add_argument("--part", choices=["all", "dev", "test"], default="dev")
    p.add_argument("--out", default="bench-out/sweep")
    p.add_argument("--cache", action="store_true", help="reuse cached model answers")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_sweep)

    p = bench_sub.add_parser(
        "calibrate",
        help="fit the first pass's confidence calibration for the model in use",
        description="Runs 'plain' (the first pass's first reading) on the balanced dev part of each "
        "dataset (resumably, a folder each under --out), fits Platt scaling on them pooled and stores "
        "it with the model's identity and the prompt's digest, where every later run finds it. The "
        "table gives each dataset's scores raw and under the fit of the other datasets.",
    )
    p.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="PATH:EVIDENCE, repeatable (e.g. ../shared/data/halueval_qa/qa.jsonl:given)",
    )
    p.add_argument("--limit", type=number(int, 2), default=40, help="balanced dev cases per dataset")
    p.add_argument("--out", default="bench-out/calibrate")
    p.add_argument("--cache", action="store_true", help="reuse cached model answers")
    p.add_argument("--ship", action="store_true", help="write the fit into the package (developers)")
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_calibrate)

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
    p.add_argument(
        "--part", choices=["all", "dev", "test"], default="test", help="answers of this part (test)"
    )
    p.add_argument("--cache", action="store_true", help="reuse cached model answers")
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_clerk)

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
    p.add_argument(
        "--part", choices=["all", "dev", "test"], default="test", help="answers of this part (test)"
    )
    p.add_argument("--out", default="bench-out/answers", help="folder: answers.jsonl, resumed when run again")
    p.add_argument("--cache", action="store_true", help="reuse cached model answers")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_answers)

    p = bench_sub.add_parser(
        "retrieval", help="recall@k of the Wikipedia page a claim cites, where the offline corpus holds it"
    )
    p.add_argument(
        "--dataset", required=True, help="claims JSONL whose evidence lists reference URLs (FELM-WK)"
    )
    p.add_argument("--k", type=at_least_one, default=5, help="passages a query returns (5)")
    p.add_argument("--part", choices=["all", "dev", "test"], default="test")
    p.add_argument(
        "--dense",
        action="store_true",
        help="also rank by the corpus's e5 embeddings (embedded at first use), and fused with BM25 "
        "as --set retrieval=hybrid searches",
    )
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_retrieval)

    p = bench_sub.add_parser(
        "corrector", help="minimal corrections of a dataset's FALSE claims, held to the corrector's rubric"
    )
    p.add_argument("--dataset", required=True, help="claims.jsonl in the shared schema")
    p.add_argument("--evidence", choices=["given", "local", "tavily", "serper"], help="evidence condition")
    p.add_argument("--limit", type=at_least_one, default=30, help="FALSE claims to correct (30)")
    p.add_argument("--part", choices=["all", "dev", "test"], default="test")
    p.add_argument("--cache", action="store_true", help="reuse cached model answers")
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_corrector)

    p = bench_sub.add_parser("perf", help="overhead and concurrency on a simulated model")
    p.add_argument("--claims", type=at_least_one, default=20)
    p.add_argument("--concurrency", type=levels, default=(1, 4, 8), help="comma-separated, e.g. 1,4,8")
    p.add_argument("--latency", type=number(float, 0), default=0.05, help="seconds per simulated call")
    p.add_argument("--rule", default="free", choices=["free", "mandatory_search", "adaptive"])
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench_perf, settings_context=BenchContext)  # its --rule is the debate's

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
    p.add_argument("--part", choices=["all", "dev", "test"], default="test")
    p.add_argument("--append", help="also append the summary as one JSON line to this file")
    p.add_argument("--json", action="store_true")
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_engine)

    p = bench_sub.add_parser("rules", help="one text under each debate rule: time, calls, tokens")
    p.add_argument("file", help="text file to check")
    p.add_argument("--rules", default="free,mandatory_search,adaptive")
    p.add_argument("--model", help="as in check (default: auto)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench_rules)

    p = bench_sub.add_parser("server", help="langgraph dev: cold start and streamed-run overhead")
    p.add_argument("--runs", type=at_least_one, default=5)
    p.set_defaults(func=cmd_bench_server)

    p = sub.add_parser("synth-sft", help="build Debate-SFT data (adversarial debate + Corrector)")
    p.add_argument(
        "--dataset",
        required=True,
        help="claims with four-way labels and evidence: AVeriTeC's dev.json, or JSONL with meta.label_4way",
    )
    p.add_argument("--out", required=True, help="JSONL output (resumes when it exists)")
    p.add_argument("--limit", type=at_least_one, help="first N cases")
    p.add_argument(
        "--part",
        choices=["dev", "test", "all"],
        default="dev",
        help="the bench's fixed split; only 'dev' is synthesised: 'test' measures the trained moderator",
    )
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_synth_sft)
