"""The LangGraph run config of a context, below every graph so that nodes may read it too."""

from __future__ import annotations

from typing import Unpack

from langchain_core.runnables import RunnableConfig

from factcourt.context.base import BaseContext
from factcourt.providers.models import choose


def run_config(ctx: BaseContext, **extra: Unpack[RunnableConfig]) -> RunnableConfig:
    """The LangGraph run config for a context (concurrency bound, tags for tracing).

    The embedded server answers as many requests at once as it has slots (one by default: on 2
    cores more slots gave no throughput, ``factcourt bench engine``) and reuses the prompt prefix
    of a slot's previous request, so claims run that many at a time: more only queue.
    """
    embedded = choose(ctx, "evaluator").endpoint == "embedded"
    return {
        "max_concurrency": ctx.local_slots if embedded else ctx.max_concurrency,
        "tags": [f"{key}:{value}" for key, value in ctx.trace_metadata().items() if key != "search"],
        "metadata": ctx.trace_metadata(),
        "recursion_limit": step_limit(ctx),
        **extra,
    }


def step_limit(ctx: BaseContext) -> int:
    """LangGraph's step limit of a run: 200 steps, and more for each round of each speaker.

    A claim's debate takes a few steps (retrieve, speak, route) per speaker and round: at a fixed
    limit, a run of many rounds debated to the end and then failed with GraphRecursionError.
    """
    rounds = max(int(getattr(ctx, name, 0) or 0) for name in ("rounds", "max_rounds", "hallucination_rounds"))
    speakers = max(len(getattr(ctx, "speakers", ())), 2 * len(getattr(ctx, "hallucination_agents", ())), 2)
    return 200 + rounds * (3 * speakers + 4)
