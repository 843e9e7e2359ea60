"""The LangGraph run config of a context, below every graph so that nodes may read it too."""

from __future__ import annotations

from typing import Any

from factcourt.context import Context
from factcourt.providers.models import choose


def run_config(ctx: Context, **extra: Any) -> dict[str, Any]:
    """The LangGraph run config for a context (concurrency bound, tags for tracing).

    The embedded server answers as many requests at once as it has slots (one by default: on 2
    cores more slots gave no throughput, ``factcourt bench engine``) and reuses the prompt prefix
    of a slot's previous request, so claims run that many at a time: more only queue.
    """
    embedded = choose(ctx, "evaluator").endpoint == "embedded"
    return {
        "max_concurrency": ctx.local_slots if embedded else ctx.max_concurrency,
        "tags": [f"protocol:{ctx.protocol}", f"rule:{ctx.rule}"],
        "metadata": {"protocol": ctx.protocol, "rule": ctx.rule, "search": ctx.search},
        "recursion_limit": 200,
        **extra,
    }
