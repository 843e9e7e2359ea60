"""The registry of systems: each graph declares itself here once, and every layer loops over it.

An entry names the graph's context, input schema and state module, and imports its other parts:
the graph module, the checks of a served run's input, the command line's commands, the HTML
view, the batch row and the simulated model's rules. The registry so sits on the top floor, above
every part it names, and nothing below imports it (an import contract keeps it so): only the
entry points do (``factcourt``, the command line, the served graphs, the server, the page).

What a layer below needs of the systems is handed to it at startup by :func:`hand_down` (the
checkpoints' allow-list, the simulated model's rules, the HTML views, the batch rows, a served
thread's result); each asks for it when used, so a system appended to :data:`SYSTEMS` later is
found too. A new system is its own modules plus one :class:`System` in :data:`SYSTEMS` (and its
line in ``langgraph.json``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

import factcourt.api.audit
import factcourt.api.claims
import factcourt.api.hallucination
import factcourt.api.pyramid
import factcourt.commands.audit
import factcourt.commands.claims
import factcourt.commands.hallucination
import factcourt.commands.longqa
import factcourt.commands.pyramid
import factcourt.graphs.audit
import factcourt.graphs.factcheck
import factcourt.graphs.hallucination
import factcourt.graphs.longqa
import factcourt.graphs.pyramid
import factcourt.graphs.verify
import factcourt.nodes.audit.simulated
import factcourt.nodes.claims.simulated
import factcourt.nodes.hallucination.simulated
import factcourt.nodes.longqa.simulated
import factcourt.nodes.pyramid.simulated
from factcourt import api, batch, checkpoints, state
from factcourt.api import StoredRun
from factcourt.batch import BatchRow
from factcourt.context.audit import AuditContext
from factcourt.context.base import BaseContext
from factcourt.context.claims import PROTOCOLS, RULES, ClaimsContext
from factcourt.context.hallucination import LAYOUTS, HallucinationContext
from factcourt.context.longqa import LongQAContext
from factcourt.context.pyramid import PyramidContext
from factcourt.nodes.audit.common import input_problem as audit_input_problem
from factcourt.nodes.claims.open_case import claim_input_problem, response_input_problem
from factcourt.nodes.hallucination.gather import input_problem as hallucination_input_problem
from factcourt.nodes.longqa.gather import input_problem as longqa_input_problem
from factcourt.nodes.pyramid.open import input_problem as pyramid_input_problem
from factcourt.providers import simulated
from factcourt.report import audit as audit_view
from factcourt.report import claims as claims_view
from factcourt.report import hallucination as hallucination_view
from factcourt.report import html
from factcourt.report.html import HtmlView
from factcourt.state import audit, claims, hallucination, longqa, pyramid
from factcourt.state.records import Result

__all__ = ["BatchRow", "GraphModule", "HtmlView", "SYSTEMS", "System", "hand_down", "named", "of_command"]


class GraphModule(Protocol):
    """A graph's module: ``build()`` and the compiled ``graph`` (``factcourt.graphs.<name>``)."""

    @property
    def graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        """The compiled graph."""

    def build(self) -> StateGraph[Any, Any, Any, Any]:
        """The graph, uncompiled."""


@dataclass(frozen=True)
class System:
    """One system (one graph) as every layer finds it."""

    name: str
    """The graph's name: in ``langgraph.json``, the served graphs and a server's threads."""
    context: type[BaseContext]
    """The run-time settings the graph reads (its Studio form, its command's flags)."""
    input: type
    """The graph's input schema: a served run's input is checked against it."""
    state: ModuleType
    """The module of its state and models: what a checkpoint of it may hold."""
    graph: GraphModule
    """The module holding ``build()`` and the compiled ``graph``."""
    input_problem: Callable[[dict[str, Any]], str | None] | None = None
    """Why a served run's input is refused beyond its schema."""
    command: str | None = None
    """The ``factcourt`` command that runs it, and the ``kind`` of its result."""
    result: type[Result] | None = None
    """The model of the result the API returns (its ``kind`` is ``command``)."""
    stored: Callable[[Any, Any], Result] | None = None
    """``(state, context) -> Result``: the result of a finished run's state (a served thread's)."""
    api: ModuleType | None = None
    """The module of its Python API: its ``__all__`` is what ``factcourt`` exports for it."""
    cli: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] | None = None
    """The command line module's ``add_commands``, which registers its commands."""
    html: HtmlView | None = None
    """How the HTML report shows its result."""
    batch: BatchRow | None = None
    """Its ``--batch`` rows, when it takes them."""
    simulated: ModuleType | None = None
    """The module whose ``RULES`` (schema name -> prompt -> answer) the simulated model follows for it."""
    assistants: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    """The standard assistants a server gets for it: (name, context)."""
    page: bool = False
    """Whether the page (``factcourt ui``) offers it as a way to check text, as mode ``command``."""

    def __post_init__(self) -> None:
        """A result the report or batch rows show is a typed one: its model is named."""
        if (self.html or self.batch) and self.result is None:
            raise ValueError(f"system {self.name!r} shows results: name its result model")

    def compiled(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        """The compiled graph."""
        return self.graph.graph

    def builder(self) -> Callable[[], StateGraph[Any, Any, Any, Any]]:
        """The graph module's ``build``."""
        return self.graph.build


def _claim_assistants(graph: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(
        (f"{graph}-{protocol}-{rule}", {"protocol": protocol, "rule": rule})
        for protocol in PROTOCOLS
        for rule in RULES
    )


SYSTEMS: list[System] = [
    System(
        name="factcheck",
        context=ClaimsContext,
        input=claims.FactcheckInput,
        state=claims,
        graph=factcourt.graphs.factcheck,
        input_problem=response_input_problem,
        command="check",
        result=claims.CheckResult,
        stored=factcourt.api.claims.check_result,
        api=factcourt.api.claims,
        cli=factcourt.commands.claims.add_commands,
        html=HtmlView(claims_view.check_view, "check"),
        batch=BatchRow(
            fields=("text",),
            optional=("question",),
            problem=factcourt.api.claims.check_row_problem,
            run=factcourt.api.claims.check_row,
            items=True,
        ),
        simulated=factcourt.nodes.claims.simulated,
        assistants=_claim_assistants("factcheck"),
        page=True,
    ),
    System(
        name="verify",
        context=ClaimsContext,
        input=claims.ClaimInput,
        state=claims,
        graph=factcourt.graphs.verify,
        input_problem=claim_input_problem,
        command="verify",
        result=claims.VerifyResult,
        stored=factcourt.api.claims.verify_result,
        api=factcourt.api.claims,
        html=HtmlView(claims_view.verify_view, "verify"),
        assistants=_claim_assistants("verify"),
        page=True,
    ),
    System(
        name="hallucination",
        context=HallucinationContext,
        input=hallucination.HallucinationInput,
        state=hallucination,
        graph=factcourt.graphs.hallucination,
        input_problem=hallucination_input_problem,
        command="detect",  # the published command and result kind of system "hallucination"
        result=hallucination.DetectResult,
        stored=factcourt.api.hallucination.detect_result,
        api=factcourt.api.hallucination,
        cli=factcourt.commands.hallucination.add_commands,
        html=HtmlView(hallucination_view.detect_view, "hallucination"),
        batch=BatchRow(
            fields=("question", "answer"),
            problem=factcourt.api.hallucination.detect_row_problem,
            run=factcourt.api.hallucination.detect_row,
        ),
        simulated=factcourt.nodes.hallucination.simulated,
        assistants=tuple((f"hallucination-{layout}", {"hallucination_layout": layout}) for layout in LAYOUTS),
        page=True,
    ),
    System(
        name="pyramid",
        context=PyramidContext,
        input=pyramid.PyramidInput,
        state=pyramid,
        graph=factcourt.graphs.pyramid,
        input_problem=pyramid_input_problem,
        command="pyramid",
        api=factcourt.api.pyramid,
        cli=factcourt.commands.pyramid.add_commands,
        simulated=factcourt.nodes.pyramid.simulated,
    ),
    System(
        name="longqa",
        context=LongQAContext,
        input=longqa.LongQAInput,
        state=longqa,
        graph=factcourt.graphs.longqa,
        input_problem=longqa_input_problem,
        command="build-longqa",
        cli=factcourt.commands.longqa.add_commands,
        simulated=factcourt.nodes.longqa.simulated,
    ),
    System(
        name="audit",
        context=AuditContext,
        input=audit.AuditInput,
        state=audit,
        graph=factcourt.graphs.audit,
        input_problem=audit_input_problem,
        command="audit",
        result=audit.AuditResult,
        api=factcourt.api.audit,
        cli=factcourt.commands.audit.add_commands,
        html=HtmlView(audit_view.audit_view),
        simulated=factcourt.nodes.audit.simulated,
    ),
]


def checkpointed_types() -> list[tuple[str, str]]:
    """The models a checkpoint of any system may hold: the checkpointer's allow-list."""
    return state.checkpointed_types([system.state for system in SYSTEMS])


def named(name: str) -> System:
    """The system whose graph is ``name``; KeyError when none is."""
    for system in SYSTEMS:
        if system.name == name:
            return system
    raise KeyError(name)


def of_command(command: str) -> System | None:
    """The system whose result is of kind ``command`` (``check``, ``detect``, ...), if any."""
    return next((s for s in SYSTEMS if s.command == command), None)


def exported() -> list[str]:
    """What ``factcourt`` exports for the systems: each one's context and its API's ``__all__``."""
    names = [system.context.__name__ for system in SYSTEMS]
    for module in dict.fromkeys(system.api for system in SYSTEMS if system.api):
        names += module.__all__
    return list(dict.fromkeys(names))


def _stored_run(graph: str) -> StoredRun | None:
    """What reading a served thread of ``graph`` takes; None when no page shows its result."""
    system = next((s for s in SYSTEMS if s.name == graph), None)
    if system is None or system.stored is None:
        return None
    return StoredRun(system.compiled().builder.state_schema, system.stored, system.context)


def hand_down() -> None:
    """Hand the layers below what they need of the systems: each reads :data:`SYSTEMS` when used."""
    checkpoints.STATE_MODULES.hand(lambda: [system.state for system in SYSTEMS])
    simulated.SYSTEM_RULES.hand(lambda: [system.simulated for system in SYSTEMS if system.simulated])
    html.SHOWN.hand(
        lambda: [(s.command, s.result, s.html) for s in SYSTEMS if s.html and s.command and s.result]
    )
    batch.ROWS.hand(
        lambda: [(s.command, s.batch, s.result) for s in SYSTEMS if s.batch and s.command and s.result]
    )
    api.read_threads_with(_stored_run)


hand_down()
