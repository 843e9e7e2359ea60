"""The LangGraph run config of a context, below every graph so that nodes may read it too."""

from __future__ import annotations

from typing import Unpack

from langchain_core.runnables import RunnableConfig

from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError
from factcourt.providers.models import models


def run_config(ctx: BaseContext, **extra: Unpack[RunnableConfig]) -> RunnableConfig:
    """The LangGraph run config for a context (concurrency bound, tags for tracing, step limit).

    The embedded server answers as many requests at once as it has slots (one by default: on 2
    cores more slots gave no throughput, ``factcourt bench engine``) and reuses the prompt prefix
    of a slot's previous request, so where one of the graph's own agents answers on it, its calls
    run that many at a time: more only queue. The step limit is the context's own.

    A run starts here: each role's model is resolved now, once, into the context's table
    (``providers.models.models``), which the run's calls read.
    """
    return {
        "max_concurrency": ctx.local_slots if on_embedded(ctx) else ctx.max_concurrency,
        "tags": [f"{key}:{value}" for key, value in ctx.trace_metadata().items() if key != "search"],
        "metadata": ctx.trace_metadata(),
        "recursion_limit": ctx.step_limit(),
        **extra,
    }


def on_embedded(ctx: BaseContext) -> bool:
    """Whether an agent of the context's graph (one of its roles) answers on the embedded server."""
    roles = type(ctx).agent_roles() or ("answer",)  # a bare context: its model's
    endpoints = [_endpoint(ctx, role) for role in roles]  # every role's model resolved, once
    return "embedded" in endpoints


def _endpoint(ctx: BaseContext, role: str) -> str | None:
    """Where ``role`` answers; None where the run's settings alone do not say.

    An audit's target answers on settings of its own: its calls resolve it, and say what is missing.
    """
    try:
        return models(ctx)[role].endpoint
    except ConfigError:
        return None
