"""``bench calibrate``: fit the first pass's calibration for the model in use, on dev parts.

``plain`` (the first pass's first reading, raw) runs on the balanced dev part of each dataset
(resumably, in a folder per dataset). Each form (raw, a slope around raw 0.5, Platt, Platt with
the evidence's length) is fitted on all datasets but one and scored on the one left out; the form
stored is the one whose worst left-out dataset does best (then the mean, then the worst ECE), fitted
on all of them, with a slope per evidence kind (given passages, searched ones) saying how sure to be
over each. On the embedded model's dev parts a boundary moved by Platt helped six of eight sets and
cost SciFact and COVID-Fact several items each: the worst fold keeps the raw verdict ('slope').
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scipy.special import expit

from factcourt.bench.context import BenchContext
from factcourt.bench.runner import run_bench
from factcourt.errors import BackendError, InputError
from factcourt.metrics.calibration import fit_logistic, fit_platt, fit_slope, logit, platt, reliability
from factcourt.metrics.classification import binary_report
from factcourt.nodes.claims.label_reading import label_prompt_key
from factcourt.providers.calibration import Calibration, evidence_kind, leaning, model_key, save
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
    readings: dict[str, list[Reading]] = {}
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
        mine = [r for r in records if r["method"] == METHOD and r["p_true"] is not None]
        pooled[name] = [(r["p_true"], r["gold"]) for r in mine]
        readings[name] = [(r["p_true"], r["gold"], sum(len(e) for e in r["evidence"])) for r in mine]
        kinds[name] = evidence_kind(evidence)
    everything = [pair for pairs in pooled.values() for pair in pairs]
    if len({gold for _, gold in everything}) < 2:
        raise InputError(
            "no TRUE and FALSE case with a label probability to fit on (does the model give logprobs?)"
        )
    forms = leave_one_out(readings) if len(readings) > 1 else {}
    # the stored fit takes the form whose worst left-out dataset did best; one dataset: Platt
    form = best_form(forms) if forms else "platt"
    a, b, slopes = _fit_form(form, pooled, kinds)
    ctx = ctx_for(datasets[0][1])
    calibration = Calibration(
        a=a,
        b=b,
        model=model_key(ctx, "evaluator"),
        prompt=label_prompt_key(ctx.label_set),
        fitted_on={name: len(pairs) for name, pairs in pooled.items()},
        slopes=slopes,
        form=form,
    )
    where = save(calibration, ctx.label_set, folder)
    rows = [_held_out(name, pooled, kinds, form) for name in pooled]
    report = {"form": form, "a": a, "b": b, "slopes": slopes, "model": calibration.model, "saved": str(where)}
    report["datasets"] = rows
    if forms:
        report |= {"forms": forms, "best_form": form}
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _global(form: str, pairs: list[tuple[float, bool]]) -> tuple[float, float]:
    """(a, b) of ``form`` over (raw P(true), gold) pairs: calibrated P = sigmoid(a * logit(raw) + b)."""
    if form == "platt":
        return fit_platt([p for p, _ in pairs], [g for _, g in pairs])
    if form == "slope":  # the boundary stays at raw 0.5
        return fit_slope([p for p, _ in pairs], [g for _, g in pairs], 0.0), 0.0
    return 1.0, 0.0  # raw


def _fit_form(
    form: str, pooled: dict[str, list[tuple[float, bool]]], kinds: dict[str, str | None]
) -> tuple[float, float, dict[str, float]]:
    """(a, b, slope per evidence kind) of ``form`` fitted on ``pooled``."""
    a, b = _global(form, [pair for rest in pooled.values() for pair in rest])
    if form == "raw" or (form == "platt" and a <= 0):  # no boundary to fit slopes about
        return a, b, {}
    return a, b, _slopes(pooled, kinds, -b / a if form == "platt" else 0.0)


def _slopes(
    pooled: dict[str, list[tuple[float, bool]]], kinds: dict[str, str | None], boundary: float
) -> dict[str, float]:
    """One slope per evidence kind whose readings hold TRUE and FALSE cases."""
    slopes = {}
    for kind in sorted({k for k in kinds.values() if k}):
        pairs = [pair for name, rest in pooled.items() if kinds[name] == kind for pair in rest]
        if len({g for _, g in pairs}) == 2:
            slopes[kind] = fit_slope([p for p, _ in pairs], [g for _, g in pairs], boundary)
    return slopes


def _held_out(
    name: str, pooled: dict[str, list[tuple[float, bool]]], kinds: dict[str, str | None], form: str
) -> dict[str, Any]:
    """One dataset's raw scores beside those under ``form`` fitted on the other datasets."""
    pairs = pooled[name]
    raw = [p for p, _ in pairs]
    gold = [g for _, g in pairs]
    row: dict[str, Any] = {"dataset": name, "n": len(pairs), **_scores("raw", raw, gold)}
    others = {other: rest for other, rest in pooled.items() if other != name}
    if len({g for rest in others.values() for _, g in rest}) == 2:
        a, b, slopes = _fit_form(form, others, kinds)
        fit = Calibration(a, b, "", "", slopes=slopes)
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


Reading = tuple[float, bool, int]  # raw P(true), gold, characters of evidence shown
# the calibration's forms, simplest first: a tie goes to the simpler one
FORMS = ("raw", "slope", "platt", "length")
STORED_FORMS = ("raw", "slope", "platt")


def _features(reading: Reading) -> list[float]:
    return [logit(reading[0]), math.log1p(reading[2] / 1000)]


def fit_form(form: str, train: list[Reading]) -> Callable[[Reading], tuple[float, bool]]:
    """A calibration of ``form`` fitted on ``train``: reading -> (calibrated P(true), supported?).

    'raw': the reading as it is; 'slope': how sure to be, the verdict at raw 0.5; 'platt': where
    the verdict turns too; 'length': Platt with the evidence's length as a second feature, so
    long and short evidence may turn at different raw readings.
    """
    if form in STORED_FORMS:
        a, b = _global(form, [(p, g) for p, g, _ in train])
        if form == "platt":
            return lambda r: (platt(r[0], a, b), a * logit(r[0]) + b >= 0)
        return lambda r: (platt(r[0], a, b), r[0] >= 0.5)  # raw and slope: the verdict at raw 0.5
    if form == "length":
        *w, bias = fit_logistic([_features(r) for r in train], [g for _, g, _ in train])
        return lambda r: (
            float(expit(z := sum(wi * x for wi, x in zip(w, _features(r), strict=True)) + bias)),
            z >= 0,
        )
    raise ValueError(f"unknown calibration form {form!r}")


def leave_one_out(readings: dict[str, list[Reading]]) -> dict[str, list[dict[str, Any]]]:
    """Each form, fitted on all datasets but one, scored on the one left out beside the raw reading."""
    found: dict[str, list[dict[str, Any]]] = {form: [] for form in FORMS}
    for name, held in readings.items():
        train = [r for other, rest in readings.items() if other != name for r in rest]
        gold = [g for _, g, _ in held]
        raw = binary_report(gold, [p >= 0.5 for p, _, _ in held])
        for form in FORMS:
            fitted = [fit_form(form, train)(r) for r in held]
            verdicts = [v for _, v in fitted]
            scores = binary_report(gold, verdicts)
            found[form].append(
                {
                    "dataset": name,
                    "n": len(held),
                    "macro_f1": scores["macro_f1"],
                    "vs_raw": scores["macro_f1"] - raw["macro_f1"],
                    # items this form got right and the raw reading wrong, and the reverse
                    "won": sum(v == g != (p >= 0.5) for (p, g, _), v in zip(held, verdicts, strict=True)),
                    "lost": sum(v != g == (p >= 0.5) for (p, g, _), v in zip(held, verdicts, strict=True)),
                    "ece": reliability([p for p, _ in fitted], gold)["ece"],
                }
            )
    return found


def best_form(forms: dict[str, list[dict[str, Any]]]) -> str:
    """The storable form whose worst left-out dataset does best against the raw reading.

    Then the mean gain, then the worst left-out ECE (raw and slope give the same verdicts); a tie
    goes to the simpler form. 'length' is measured beside them but has no stored form.
    """

    def rank(form: str) -> tuple[float, float, float, int]:
        gains = [row["vs_raw"] for row in forms[form]]
        return (
            min(gains),
            sum(gains) / len(gains),
            -max(row["ece"] for row in forms[form]),
            -FORMS.index(form),
        )

    return max(STORED_FORMS, key=rank)
