"""The toy's one registry entry: all a fifth system adds to the layers that loop over systems."""

from __future__ import annotations

from factcourt.systems import BatchRow, HtmlView, System
from tests.toy_system import state
from tests.toy_system.context import EchoContext

ECHO = System(
    name="echo",
    context=EchoContext,
    input=state.EchoInput,
    state=state,
    graph="tests.toy_system.graph",
    command="echo",
    result=state.EchoResult,
    stored="tests.toy_system.api:stored",
    api="tests.toy_system.api",
    cli="tests.toy_system.cli",
    html=HtmlView("tests.toy_system.html:view"),
    batch=BatchRow(
        fields=("text",), problem="tests.toy_system.api:row_problem", run="tests.toy_system.api:row"
    ),
    simulated="tests.toy_system.simulated",
)
