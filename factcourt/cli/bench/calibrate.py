"""``factcourt bench calibrate``: the first pass's calibration fitted for the model in use."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from factcourt.bench.context import BenchContext
from factcourt.cli.bench.flags import add_cache, add_dataset_specs, add_json, bench_settings, dataset_specs
from factcourt.commands.shared import add_settings, number, out, prepare_out_folder


def cmd_bench_calibrate(args: argparse.Namespace) -> int:
    """Fit the first pass's calibration for the model in use on the dev parts."""
    from factcourt.bench.calibrate import run_calibrate
    from factcourt.providers.calibration import SHIPPED

    prepare_out_folder(Path(args.out))
    base = bench_settings(args)
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


def add_command(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``bench calibrate``."""
    p = bench_sub.add_parser(
        "calibrate",
        help="fit the first pass's confidence calibration for the model in use",
        description="Runs 'plain' (the first pass's first reading) on the balanced dev part of each "
        "dataset (resumably, a folder each under --out), fits Platt scaling on them pooled and stores "
        "it with the model's identity and the prompt's digest, where every later run finds it. The "
        "table gives each dataset's scores raw and under the fit of the other datasets.",
    )
    add_dataset_specs(p)
    p.add_argument("--limit", type=number(int, 2), default=40, help="balanced dev cases per dataset")
    p.add_argument("--out", default="bench-out/calibrate")
    add_cache(p)
    p.add_argument("--ship", action="store_true", help="write the fit into the package (developers)")
    add_json(p)
    add_settings(p, BenchContext)
    p.set_defaults(func=cmd_bench_calibrate)
