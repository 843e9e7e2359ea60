"""Graph ``echo``: one node."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from tests.toy_system.context import EchoContext
from tests.toy_system.nodes import judge
from tests.toy_system.state import EchoInput, EchoState


def build() -> StateGraph:
    """The graph, uncompiled."""
    builder = StateGraph(EchoState, input_schema=EchoInput, context_schema=EchoContext)
    builder.add_node("judge", judge)
    builder.add_edge(START, "judge")
    builder.add_edge("judge", END)
    return builder


graph = build().compile(name="echo")
