"""Run methods over a dataset: resumable, concurrent, with a progress bar showing running F1."""

from __future__ import annotations

import hashlib
import json
import random
from functools import partial
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import Case, Gold, load
from factcourt.bench.methods import HALLUCINATION_METHODS, METHODS, QA_BASELINES, Prediction, predict
from factcourt.bench.report import FLOOR, Prices, build_report, markdown, plot, write_wrong_predictions
from factcourt.errors import ConfigError, InputError
from factcourt.inputs import read_text_file
from factcourt.metrics.classification import binary_report, to_binary
from factcourt.nodes.claims.label_reading import calibration_of
from factcourt.nodes.helpers import bounded, concurrency
from factcourt.progress import Progress
from factcourt.providers.models import models
from factcourt.state.records import Usage
from factcourt.store import PredictionStore, keep_settings
from factcourt.terminal import Console

EVIDENCE_CHARS = 1000  # stored per evidence piece: enough for METEOR, small enough to keep
# the BenchContext fields a stored prediction depends on; concurrency, cache, time-outs and retries
# change how fast it comes, not what it says, so a resume may change them
PREDICTED_UNDER = (
    "model",
    "label_set",
    "not_enough_above",
    "base_url",
    "role_models",
    "structured_output",
    "logprobs",
    "temperature",
    "max_tokens",
    "protocol",
    "rule",
    "jurors",
    "roles",
    "rounds",
    "theta",
    "first_pass_theta",
    "evidence_first",
    "first_pass",
    "first_pass_votes",
    "label_readings",
    "vote_below",
    "calibration",
    "confidence_source",
    "use_roles",
    "use_debate",
    "juror_models",
    "role_texts",
    "debate_prompts",
    "change_guard",
    "jury_judge",
    "search",
    "corpus",
    "top_k",
    "epsilon",
    "hallucination_layout",
    "hallucination_judge",
    "hallucination_agents",
    "hallucination_weights",
    "hallucination_jt",
    "hallucination_beta",
    "language",
)


def in_part(case_id: str, part: str) -> bool:
    """A fixed split by id: 'dev' (for sweeps and thresholds), 'test' (for reported numbers)."""
    if part == "all":
        return True
    dev = hashlib.sha1(case_id.encode("utf-8")).digest()[0] % 2 == 0
    return dev if part == "dev" else not dev


def select(
    dataset: Path, limit: int | None, seed: int | None, *, balanced: bool = False, part: str = "all"
) -> list[tuple[Case, Gold]]:
    """The first ``limit`` cases of ``part``, or a seeded random sample of them.

    ``balanced`` takes as many TRUE as FALSE cases (half of ``limit`` each, in order).
    """
    loaded = load(dataset)
    pairs = [(c, g) for c, g in loaded if in_part(c.id, part)]
    if not pairs:
        raise InputError(
            f"no case selected: none of the {len(loaded)} cases of {dataset} is in part {part!r}"
        )
    if seed is not None:
        random.Random(seed).shuffle(pairs)
    if balanced:
        if limit is not None and limit < 2:
            raise InputError("--balanced needs --limit 2 or more (one TRUE and one FALSE case)")
        per_label = (limit or len(pairs)) // 2
        true = [p for p in pairs if p[1].label][:per_label]
        false = [p for p in pairs if not p[1].label][:per_label]
        pairs = [p for pair in zip(true, false, strict=False) for p in pair]
        if not pairs:
            raise InputError(
                f"no case selected: --balanced needs TRUE and FALSE cases, and part {part!r} of "
                f"{dataset} has only {'TRUE' if true else 'FALSE'} ones"
            )
    return pairs[:limit] if limit else pairs


def run_settings(dataset: Path, ctx: BenchContext) -> dict[str, Any]:
    """What the stored predictions depend on: the dataset's file and the answer-affecting settings.

    ``models`` are the names each role resolves to ('auto' is another model once OPENAI_API_KEY
    is set; OPENAI_BASE_URL is another endpoint).
    """
    roles = BenchContext.agent_roles()
    return {  # the dataset by content: a copy elsewhere resumes, an edited file does not
        "dataset_sha256": hashlib.sha256(dataset.read_bytes()).hexdigest(),
        **{k: getattr(ctx, k) for k in PREDICTED_UNDER},
        "models": sorted({f"{c.name} at {c.endpoint}" for c in (models(ctx)[r] for r in roles)}),
        "calibration_fit": _fit_of(ctx),
    }


def _fit_of(ctx: BenchContext) -> list[float] | None:
    """The first pass's stored calibration, (a, b): a refit changes the default's answers."""
    found = calibration_of(ctx)
    return [found.a, found.b] if found else None


def _made_under(out: Path, ctx: BenchContext, report_only: bool) -> dict[str, Any]:
    """The model and search of the stored predictions: a report-only run's own may differ."""
    stored = out / "settings.json"
    if report_only and stored.is_file():
        made = json.loads(read_text_file(stored))
        return {"model": made.get("model"), "search": made.get("search"), "models": made.get("models")}
    return {"model": ctx.model, "search": ctx.search}


def _record(method: str, case: Case, gold: Gold, prediction: Any) -> dict[str, Any]:
    return {
        "method": method,
        "id": case.id,
        "claim": case.claim,
        "gold": gold.label,
        "gold_4way": gold.label_4way,
        "gold_evidence": list(gold.evidence_text),
        "verdict": prediction.verdict,
        "error": prediction.error,
        "usage": prediction.usage.model_dump(),
        "seconds": round(prediction.seconds, 3),
        "evidence": [e[:EVIDENCE_CHARS] for e in prediction.evidence],
        "detail": prediction.detail,
        "p_true": prediction.p_true,
        "p_true_raw": prediction.p_true if prediction.p_true_raw is None else prediction.p_true_raw,
        "route": prediction.route,
        "first_round_verdict": prediction.first_round_verdict,
    }


Job = tuple[str, Case, Gold]  # a method on a case: one prediction


async def predicted(job: Job, ctx: BenchContext) -> dict[str, Any]:
    """The stored record of one method's prediction on one case."""
    method, case, gold = job
    return _record(method, case, gold, await predict(method, case, ctx))


def _lost(job: Job, reason: str) -> dict[str, Any]:
    """The record of a prediction whose Ray task failed: tried again by the next run."""
    return _record(*job, Prediction(None, reason, Usage()))


async def run_bench(
    dataset: Path,
    methods: list[str],
    ctx: BenchContext,
    out: Path,
    *,
    limit: int | None = None,
    seed: int | None = None,
    balanced: bool = False,
    part: str = "all",
    prices: Prices = Prices(),
    console: Console | None = None,
    report_only: bool = False,
    ray: str | None = None,
) -> dict[str, Any]:
    """Run every method on every selected case (skipping stored ones) and write the reports.

    ``report_only`` runs nothing: the reports cover the predictions already stored. ``ray``:
    the address of a Ray cluster ('auto' for the one this machine belongs to) whose workers
    make the predictions.
    """
    methods = list(dict.fromkeys(methods))  # one named twice would be predicted twice
    if not methods:
        raise ConfigError(f"--methods names no method; choose from {list(METHODS)}")
    if FLOOR not in methods:  # the floor every report holds its methods against
        methods.append(FLOOR)
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ConfigError(f"unknown method(s) {unknown}; choose from {list(METHODS)}")
    pairs = select(dataset, limit, seed, balanced=balanced, part=part)
    asking = [m for m in methods if m in QA_BASELINES or m in HALLUCINATION_METHODS]
    unasked = next((c.id for c, _ in pairs if not c.question.strip()), None)
    if asking and unasked is not None:  # every case would fail with "the question is empty"
        raise ConfigError(
            f"method(s) {asking} need a question per case, and case {unasked!r} of {dataset} has none"
        )
    store = PredictionStore(out / "predictions.jsonl")
    settings = run_settings(dataset, ctx)
    if report_only:  # it runs nothing: only another dataset (the stored gold labels for new ids) misleads
        keep_settings(out, {"dataset_sha256": settings["dataset_sha256"]}, "bench", record=False)
    else:  # a folder with predictions but no settings.json (an older version's) gets them now
        keep_settings(out, settings, "bench")
    # method by method: consecutive calls share prompt prefixes the local server can reuse
    # a failed prediction (a time-out on a busy machine, an endpoint down) is tried again
    todo = (
        [] if report_only else [(m, c, g) for m in methods for c, g in pairs if not store.succeeded(m, c.id)]
    )
    at_once = concurrency(ctx)
    console = console or Console(stderr=True)

    def running_f1() -> str:
        scores = []
        for m in methods:
            rs = [r for r in store.records.values() if r["method"] == m]
            if rs:
                b = binary_report([r["gold"] for r in rs], [to_binary(r["verdict"]) for r in rs])
                scores.append(f"{m} F1(F)={b['false']['f1']:.2f}")
        return "  ".join(scores)

    with Progress(
        TextColumn("[bold]bench"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[f1]}"),
        console=console,
    ) as bar:
        task = bar.add_task(
            "bench",
            total=len(pairs) * len(methods),
            completed=len(pairs) * len(methods) - len(todo),
            f1=running_f1(),
        )

        def finished(_: Job, record: dict[str, Any]) -> None:
            store.append(record)
            bar.update(task, advance=1, f1=running_f1())

        async def one(job: Job) -> None:
            finished(job, await predicted(job, ctx))

        if ray is None:
            await bounded(at_once, [partial(one, job) for job in todo])
        elif todo:
            from factcourt.fanout import cluster, fan_out

            with cluster(ray) as joined:  # in this thread: see factcourt.fanout.cluster
                fan_out(joined, todo, partial(predicted, ctx=ctx), finished, _lost, concurrency=at_once)

    ids = {c.id for c, _ in pairs}
    records = [r for r in store.records.values() if r["id"] in ids and r["method"] in methods]
    report = build_report(records, methods, prices)
    out.mkdir(parents=True, exist_ok=True)
    table = markdown(report)
    (out / "report.md").write_text(table, encoding="utf-8")
    wrong = write_wrong_predictions(records, out / "wrong_predictions.csv")
    points = plot(report, out / "f1_false_vs_cost.png")
    summary = {
        "dataset": str(dataset),
        "cases": len(pairs),
        "methods": methods,
        "settings": {
            **_made_under(out, ctx, report_only),
            "seed": seed,
            "limit": limit,
            "balanced": balanced,
            "part": part,
            "prices": prices.__dict__,
        },
        "report": report,
        "plot_points": points,
        "wrong_predictions": wrong,
    }
    (out / "report.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary
