"""The LangGraph run config of a context, below every graph so that nodes may read it too."""

from __future__ import annotations

from typing import Any

from factcourt.context.base import BaseContext
from factcourt.providers.models import choose


def run_config(ctx: BaseContext, **extra: Any) -> dict[str, Any]:
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
        "recursion_limit": 200,
        **extra,
    }
