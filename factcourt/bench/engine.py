"""``factcourt bench engine``: seconds and tokens per model call on the same verifier prompts.

The first-pass prompts of the same items (the ``single`` method) are sent ``repeats`` times
with the cache off, as many at a time as a run would (``--concurrency``, or the embedded
server's slots), after one untimed warm-up call (the embedded server's start). Seconds are
medians per prompt over the repeats, then the median of those over the prompts, so one slow
call on a shared machine does not move the figure. The first repeat is also given alone:
llama.cpp's server keeps earlier prompts in memory and serves a repeated one without evaluating
it again (most prompts of a second repeat needed one token evaluated), so only the first repeat
says what a new prompt costs. Compare servers by running it once per endpoint (``--base-url``,
``--set structured_output=...``), and slots by ``--set local_slots=N`` on the embedded server.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import Case
from factcourt.bench.methods import Prediction, predict
from factcourt.bench.report import role_costs
from factcourt.bench.runner import select
from factcourt.nodes.helpers import bounded, concurrency
from factcourt.progress import Progress
from factcourt.providers.models import models
from factcourt.terminal import Console


async def _one_pass(
    cases: list[Case], ctx: BenchContext, limit: int, advance: Callable[[], None]
) -> tuple[list[Prediction], float]:
    async def one(case: Case) -> Prediction:
        prediction = await predict("single", case, ctx)
        advance()
        return prediction

    start = time.perf_counter()
    predictions = await bounded(limit, [partial(one, c) for c in cases])
    return predictions, time.perf_counter() - start


def summarise(runs: list[tuple[list[Prediction], float]]) -> dict[str, Any]:
    """Medians per prompt over the repeats, then over prompts; throughput per repeat."""
    per_prompt = list(zip(*(predictions for predictions, _ in runs), strict=True))
    # the answered calls of each prompt, for prompts with at least one
    answered = [ps for ps in ([p for p in repeats if p.error is None] for repeats in per_prompt) if ps]
    seconds = [statistics.median(p.seconds for p in ps) for ps in answered]
    first = [p.seconds for p in runs[0][0] if p.error is None]
    input_tokens = [statistics.median(p.usage.input_tokens for p in ps) for ps in answered]
    output_tokens = [statistics.median(p.usage.output_tokens for p in ps) for ps in answered]
    walls = [wall for _, wall in runs]
    generated = [sum(p.usage.output_tokens for p in predictions) for predictions, _ in runs]
    # the same prompt, the same verdict every time: what temperature 0 promises
    stable = [len({p.verdict for p in ps}) == 1 for ps in answered if len(ps) == len(runs)]
    return {
        "prompts": len(per_prompt),
        "repeats": len(runs),
        "failed_calls": sum(p.error is not None for ps in per_prompt for p in ps),
        "first_error": next((p.error for ps in per_prompt for p in ps if p.error), None),
        "unparsable_answers": sum(p.usage.unparsable for ps in per_prompt for p in ps),
        "median_s_per_call": round(statistics.median(seconds), 2) if seconds else None,
        "mean_s_per_call": round(statistics.fmean(seconds), 2) if seconds else None,
        "median_s_per_call_first_repeat": round(statistics.median(first), 2) if first else None,
        "median_input_tokens": statistics.median(input_tokens) if input_tokens else None,
        "median_output_tokens": statistics.median(output_tokens) if output_tokens else None,
        "wall_s_per_repeat": [round(w, 1) for w in walls],
        "output_tokens_per_s": round(
            statistics.median(g / w for g, w in zip(generated, walls, strict=True)), 2
        ),
        "same_verdict_every_repeat": f"{sum(stable)}/{len(stable)}",
        # per repeat: the first pays for every prompt, the later ones show what the cache serves
        "cost_per_repeat": [
            role_costs([{"usage": p.usage.model_dump()} for p in predictions]) for predictions, _ in runs
        ],
    }


async def measure(
    dataset: Path,
    ctx: BenchContext,
    *,
    limit: int = 20,
    repeats: int = 3,
    part: str = "test",
    console: Console | None = None,
) -> dict[str, Any]:
    """Warm the endpoint up, then send the prompts ``repeats`` times; the summary with settings."""
    ctx = BenchContext.make(ctx, cache=False)
    at_once = concurrency(ctx)  # the embedded server's slots, as in a run
    cases = [case for case, _ in select(dataset, limit, None, balanced=True, part=part)]
    with Progress(
        TextColumn("[bold]engine"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
    ) as bar:
        task = bar.add_task("engine", total=1 + repeats * len(cases))
        await predict("single", cases[0], ctx)  # the embedded server starts here, untimed
        bar.advance(task)
        runs = [await _one_pass(cases, ctx, at_once, lambda: bar.advance(task)) for _ in range(repeats)]
    choice = models(ctx)["evaluator"]  # the role of the verifier call
    return {
        "endpoint": choice.endpoint,
        "model": choice.name,
        "structured_output": choice.method,
        "slots": ctx.local_slots if choice.endpoint == "embedded" else None,
        "threads": ctx.local_threads if choice.endpoint == "embedded" else None,
        "concurrency": at_once,
        "dataset": str(dataset),
        "part": part,
        **summarise(runs),
    }
