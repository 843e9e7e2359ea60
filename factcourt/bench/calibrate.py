"""``bench calibrate``: fit the first pass's Platt scaling for the model in use, on dev parts.

``plain`` (the first pass's first reading, raw) runs on the balanced dev part of each dataset
(resumably, in a folder per dataset), and one (a, b) is fitted on all of them pooled: it says where
the verdict turns. A slope per evidence kind (given passages, searched ones) around that boundary
says how sure to be over each kind. The report says how the fit does on a dataset it never saw:
each dataset's ECE and accuracy under the fit of the other datasets (leave one dataset out: the
boundary from all the others, the slope from the others of its kind), beside the raw reading's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import run_bench
from factcourt.errors import BackendError, InputError
from factcourt.metrics.calibration import fit_platt, fit_slope, reliability
from factcourt.metrics.classification import binary_report
from factcourt.providers.calibration import Calibration, evidence_kind, leaning, model_key, prompt_key, save
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
    kinds: dict[str, str | None] = {}
    for path, evidence in datasets:
        name = f"{path.parent.name}-{path.stem}-{evidence}"
        # 'plain' reads raw; off, the folder's settings do not change with the fit it makes
        ctx = BenchContext.make(ctx_for(evidence), calibration="off")
        await run_bench(path, [METHOD], ctx, out / name, limit=limit, balanced=True, part="dev")
        records = PredictionStore(out / name / "predictions.jsonl").records.values()
        failed = [r for r in records if r["method"] == METHOD and r.get("error")]
        if failed:  # a fit on the readings that came back would be a fit on a biased few
            raise BackendError(
                f"{len(failed)} of the readings of {path} failed ({failed[0]['error']}): run the same "
                "command again once the endpoint answers"
            )
        pooled[name] = [
            (r["p_true"], r["gold"]) for r in records if r["method"] == METHOD and r["p_true"] is not None
        ]
        kinds[name] = evidence_kind(evidence)
    everything = [pair for pairs in pooled.values() for pair in pairs]
    if len({gold for _, gold in everything}) < 2:
        raise InputError(
            "no TRUE and FALSE case with a label probability to fit on (does the model give logprobs?)"
        )
    a, b = _fit(everything)
    slopes = _slopes(pooled, kinds, -b / a) if a > 0 else {}
    ctx = ctx_for(datasets[0][1])
    calibration = Calibration(
        a=a,
        b=b,
        model=model_key(ctx),
        prompt=prompt_key(ctx.label_set),
        fitted_on={name: len(pairs) for name, pairs in pooled.items()},
        slopes=slopes,
    )
    where = save(calibration, folder)
    rows = [_held_out(name, pooled, kinds) for name in pooled]
    report = {"a": a, "b": b, "slopes": slopes, "model": calibration.model, "saved": str(where)}
    report["datasets"] = rows
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _fit(pairs: list[tuple[float, bool]]) -> tuple[float, float]:
    return fit_platt([p for p, _ in pairs], [g for _, g in pairs])


def _slopes(pooled: dict[str, list], kinds: dict[str, str | None], boundary: float) -> dict[str, float]:
    """One slope per evidence kind whose readings hold TRUE and FALSE cases."""
    slopes = {}
    for kind in sorted({k for k in kinds.values() if k}):
        pairs = [pair for name, rest in pooled.items() if kinds[name] == kind for pair in rest]
        if len({g for _, g in pairs}) == 2:
            slopes[kind] = fit_slope([p for p, _ in pairs], [g for _, g in pairs], boundary)
    return slopes


def _held_out(name: str, pooled: dict[str, list], kinds: dict[str, str | None]) -> dict[str, Any]:
    """One dataset's raw scores beside those under the fit of the other datasets."""
    pairs = pooled[name]
    raw = [p for p, _ in pairs]
    gold = [g for _, g in pairs]
    row: dict[str, Any] = {"dataset": name, "n": len(pairs), **_scores("raw", raw, gold)}
    others = {other: rest for other, rest in pooled.items() if other != name}
    if len({g for rest in others.values() for _, g in rest}) == 2:
        a, b = _fit([pair for rest in others.values() for pair in rest])
        fit = Calibration(a, b, "", "", slopes=_slopes(others, kinds, -b / a) if a > 0 else {})
        verdicts = [leaning(p, fit) for p in raw]  # a flat slope shows 0.5 on both sides
        row |= _scores("held_out", [fit.apply(p, kinds[name]) for p in raw], gold, verdicts)
    return row


def _scores(
    prefix: str, p_true: list[float], gold: list[bool], verdicts: list[bool] | None = None
) -> dict[str, float | None]:
    binary = binary_report(gold, verdicts if verdicts is not None else [p >= 0.5 for p in p_true])
    return {
        f"{prefix}_accuracy": binary["accuracy"],
        f"{prefix}_macro_f1": binary["macro_f1"],
        f"{prefix}_ece": reliability(p_true, gold)["ece"],
    }
