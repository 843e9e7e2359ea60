"""The toy's one registry entry: all a fifth system adds to the layers that loop over systems."""

from __future__ import annotations

from factcourt.systems import BatchRow, HtmlView, System
from tests.toy_system import api, cli, graph, html, simulated, state
from tests.toy_system.context import EchoContext

ECHO = System(
    name="echo",
    context=EchoContext,
    input=state.EchoInput,
    state=state,
    graph=graph,
    command="echo",
    result=state.EchoResult,
    stored=api.stored,
    api=api,
    cli=cli.add_commands,
    html=HtmlView(html.view),
    batch=BatchRow(fields=("text",), problem=api.row_problem, run=api.row),
    simulated=simulated,
)
