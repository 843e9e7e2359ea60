"""MAD-Fact's importance pyramid: ``build_pyramid`` of a question (the leaderboard's golden claims).

The leaderboard that ranks models against the pyramids is :mod:`factcourt.api.pyramid.leaderboard`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from factcourt.api import checked, stop_servers_on_exit
from factcourt.context.base import BaseContext
from factcourt.context.pyramid import LeaderboardContext, PyramidContext
from factcourt.errors import InputError
from factcourt.inputs import first_complaint, read_text_file
from factcourt.nodes.pyramid.open import question_problem
from factcourt.runs import run_config
from factcourt.state.pyramid import Pyramid, PyramidInput


def pyramid_key(question: str, ctx: PyramidContext, answers: dict[str, str] | None) -> str:
    """Cache key of a pyramid: the question, the expert set and every setting that changes it."""
    from factcourt.providers.cache import cache_key
    from factcourt.providers.models import model_identity, models

    def named(choice) -> list[object]:  # a local_weights file by what it is, not by its name
        return [choice, model_identity(choice)]

    return cache_key(
        "pyramid",
        question,
        ctx.experts,
        {e: ctx.model_settings.get(e, {}) for e in ctx.experts},
        # an expert whose answer is given is never asked: its model needs no key here either
        [
            named(models(ctx.for_model(e))["answer"])
            for e in ctx.experts
            if not (answers or {}).get(e, "").strip()
        ],
        [ctx.answer_max_tokens, ctx.temperature, ctx.language, ctx.max_claims],
        [named(models(ctx)["clerk"]), named(models(ctx)["matcher"])],
        [ctx.embedder, ctx.embedding_model, ctx.similarity_threshold, ctx.same_fact_candidates],
        answers or {},
    )


@checked
async def abuild_pyramid(
    question: str,
    settings: dict[str, Any] | BaseContext | None = None,
    answers: dict[str, str] | None = None,
    **overrides: Any,
) -> Pyramid:
    """The importance pyramid of ``question`` (async); see :func:`build_pyramid`."""
    from factcourt.graphs.pyramid import graph
    from factcourt.providers.cache import store

    if problem := question_problem(question):
        raise InputError(problem)
    ctx = PyramidContext.make(settings, **overrides)
    key = pyramid_key(question, ctx, answers)
    cache = store("pyramids") if ctx.cache else None
    if cache is not None and (hit := cache.get(key)) is not None:
        return Pyramid.model_validate(hit)
    payload: PyramidInput = {"question": question, "answers": dict(answers or {})}
    state = await graph.ainvoke(payload, config=run_config(ctx), context=ctx)
    pyramid: Pyramid = state["pyramid"]
    if cache is not None and not pyramid.failed and not pyramid.notes:  # a time-out is not kept
        await asyncio.to_thread(cache.put, key, pyramid.model_dump(mode="json"))
    return pyramid


@checked
def build_pyramid(
    question: str,
    settings: dict[str, Any] | BaseContext | None = None,
    answers: dict[str, str] | None = None,
    **overrides: Any,
) -> Pyramid:
    """Build (or take from the cache) the importance pyramid of ``question``.

    The ``experts`` of the settings answer it (``answers`` gives some answers already written),
    the Clerk splits each answer, equivalent claims are merged into the golden set, and each
    golden claim gets its layer and weight. Cached per question, expert set and settings.

    Example:
        >>> p = factcourt.build_pyramid("Tell me about the Eiffel Tower.", experts=["gpt-4o", "gpt-4o-mini"])
        >>> Path("eiffel.json").write_text(p.model_dump_json(indent=2))
    """
    stop_servers_on_exit()
    return asyncio.run(abuild_pyramid(question, settings, answers, **overrides))


@checked
def load_pyramid(path: Path) -> Pyramid:
    """A pyramid saved as JSON (``Pyramid.model_dump_json``); a file that is none is one clear error."""
    text = read_text_file(path, "pyramid file")
    try:
        return Pyramid.model_validate_json(text)
    except ValidationError as exc:  # one sentence, not pydantic's "1 validation error for Pyramid"
        raise InputError(f"{path} is not a saved pyramid: {first_complaint(exc)}") from None


__all__ = [
    "LeaderboardContext",
    "abuild_pyramid",
    "build_pyramid",
    "load_pyramid",
]
