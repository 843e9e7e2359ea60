"""The toy system's API: a text in, its result out; a batch row; a served run's state."""

from __future__ import annotations

from typing import Any

from factcourt.context.base import BaseContext
from factcourt.runs import run_config
from factcourt.state.records import Usage
from tests.toy_system.context import EchoContext
from tests.toy_system.state import EchoResult

__all__ = ["aecho"]  # what `factcourt` exports for it


async def aecho(
    text: str, settings: dict[str, Any] | BaseContext | None = None, **overrides: Any
) -> EchoResult:
    """Does ``text`` shout?"""
    from tests.toy_system.graph import graph

    ctx = EchoContext.make(settings, **overrides)
    state = await graph.ainvoke({"text": text}, config=run_config(ctx), context=ctx)
    return stored(state, ctx)


def stored(state: dict[str, Any], ctx: BaseContext) -> EchoResult:
    """The result of a finished run's state."""
    return EchoResult(
        text=state.get("text", ""),
        loud=state.get("loud"),
        usage=state.get("usage") or Usage(),
        error=state.get("error"),
    )


def row_problem(values: dict[str, str]) -> str | None:
    """Why a row cannot be judged: none, any text may shout."""
    return None


async def row(values: dict[str, str], ctx: BaseContext) -> EchoResult:
    """One ``echo --batch`` row's result."""
    return await aecho(values["text"], ctx)
