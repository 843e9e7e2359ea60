"""``bench calibrate``: fit the first pass's Platt scaling for the model in use, on dev parts.

``plain`` (the first pass's first reading, raw) runs on the balanced dev part of each dataset
(resumably, in a folder per dataset), and one (a, b) is fitted on all of them pooled. The report
says how the fit does on a dataset it never saw: each dataset's ECE and accuracy under the fit of
the other datasets (leave one dataset out), beside the raw reading's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import run_bench
from factcourt.errors import InputError
from factcourt.metrics.calibration import fit_platt, platt, reliability
from factcourt.metrics.classification import binary_report
from factcourt.providers.calibration import Calibration, model_key, prompt_key, save
from factcourt.store import PredictionStore

METHOD = "plain"


async def run_calibrate(
    datasets: list[tuple[Path, str]],
    ctx_for: Any,
    out: Path,
    *,
    limit: int,
    folder: Path | None = None,
) -> dict[str, Any]:
    """Predict, fit, save; returns the report (also written to ``out/calibration.json``)."""
    pooled: dict[str, list[tuple[float, bool]]] = {}
    for path, evidence in datasets:
        name = f"{path.parent.name}-{path.stem}-{evidence}"
        # 'plain' reads raw; off, the folder's settings do not change with the fit it makes
        ctx = BenchContext.make(ctx_for(evidence), calibration="off")
        await run_bench(path, [METHOD], ctx, out / name, limit=limit, balanced=True, part="dev")
        records = PredictionStore(out / name / "predictions.jsonl").records.values()
        pooled[name] = [
            (r["p_true"], r["gold"]) for r in records if r["method"] == METHOD and r["p_true"] is not None
        ]
    everything = [pair for pairs in pooled.values() for pair in pairs]
    if len({gold for _, gold in everything}) < 2:
        raise InputError(
            "no TRUE and FALSE case with a label probability to fit on (does the model give logprobs?)"
        )
    a, b = fit_platt([p for p, _ in everything], [g for _, g in everything])
    ctx = ctx_for(datasets[0][1])
    calibration = Calibration(
        a=a,
        b=b,
        model=model_key(ctx),
        prompt=prompt_key(),
        fitted_on={name: len(pairs) for name, pairs in pooled.items()},
    )
    where = save(calibration, folder)
    rows = [_held_out(name, pairs, pooled) for name, pairs in pooled.items()]
    report = {"a": a, "b": b, "model": calibration.model, "saved": str(where), "datasets": rows}
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _held_out(name: str, pairs: list[tuple[float, bool]], pooled: dict[str, list]) -> dict[str, Any]:
    """One dataset's raw scores beside those under the fit of the other datasets."""
    others = [pair for other, rest in pooled.items() if other != name for pair in rest]
    raw = [p for p, _ in pairs]
    gold = [g for _, g in pairs]
    row: dict[str, Any] = {"dataset": name, "n": len(pairs), **_scores("raw", raw, gold)}
    if len({g for _, g in others}) == 2:
        a, b = fit_platt([p for p, _ in others], [g for _, g in others])
        row |= _scores("held_out", [platt(p, a, b) for p in raw], gold)
    return row


def _scores(prefix: str, p_true: list[float], gold: list[bool]) -> dict[str, float | None]:
    binary = binary_report(gold, [p >= 0.5 for p in p_true])
    return {
        f"{prefix}_accuracy": binary["accuracy"],
        f"{prefix}_macro_f1": binary["macro_f1"],
        f"{prefix}_ece": reliability(p_true, gold)["ece"],
    }
