"""The toy system's one stage: ask the model."""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from factcourt.providers.models import ask
from tests.toy_system.context import EchoContext
from tests.toy_system.state import EchoState, Shout


async def judge(state: EchoState, runtime: Runtime[EchoContext]) -> dict:
    """Does the text shout? (the judge's role answers)."""
    marks = "!" * runtime.context.echo_marks
    prompt = f"Does this text contain {marks!r}?\n<text>{state['text']}</text>"
    reply = await ask(runtime.context, "shouter", Shout, [HumanMessage(prompt)], run_name="echo")
    if reply.value is None:
        return {"error": reply.error or "no answer", "usage": reply.usage}
    return {"loud": reply.value.loud, "usage": reply.usage}
