"""The registry of systems: each graph declares itself here once, and every layer loops over it.

An entry names the graph's context, input schema and state module, and where its other parts
live: the graph module, the checks of a served run's input, the command line module, the HTML
view, the batch row and the simulated model's rules. Parts above this module
(the graphs, nodes, API, command line) are named by ``"module:attribute"`` and loaded when
used, so every layer may import the registry: the providers and the checkpointer too.

The API, the command line, the HTML report, batch runs, the server's assistants, the served
graphs, the checkpoints' allow-list and the simulated model read this list; a new system is
its own modules plus one :class:`System` in :data:`SYSTEMS` (and its line in ``langgraph.json``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from factcourt import state
from factcourt.context.audit import AuditContext
from factcourt.context.base import BaseContext
from factcourt.context.claims import PROTOCOLS, RULES, ClaimsContext
from factcourt.context.hallucination import LAYOUTS, HallucinationContext
from factcourt.context.longqa import LongQAContext
from factcourt.context.pyramid import PyramidContext
from factcourt.state import audit, claims, hallucination, longqa, pyramid
from factcourt.state.records import Result


def load(reference: str) -> Any:
    """What ``"module:attribute"`` names (a module alone without the colon)."""
    module, _, attribute = reference.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


@dataclass(frozen=True)
class BatchRow:
    """A system's ``--batch`` rows: the text fields of a row and how one row is run."""

    fields: tuple[str, ...]
    """Text fields each row must have."""
    optional: tuple[str, ...] = ()
    """Text fields a row may have."""
    problem: str = ""
    """``values -> str | None``: why a row's texts cannot be run, as the API would refuse them."""
    run: str = ""
    """``async (values, ctx) -> Result``: one row's result (its ``failure()``: is it a full one?)."""
    items: bool = False
    """Whether a row's result holds items (claims) the summary counts."""


@dataclass(frozen=True)
class HtmlView:
    """How the HTML report shows a system's result: a view of it and the template that draws the view."""

    view: str
    """``result -> dict``: the template's values."""
    template: str = "tables"
    """A template of ``factcourt/report/templates`` (``tables`` shows a view's ``body``)."""


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
    graph: str
    """The module holding ``build()`` and the compiled ``graph`` (``factcourt.graphs.<name>``)."""
    input_problem: str | None = None
    """``payload -> str | None``: why a served run's input is refused beyond its schema."""
    command: str | None = None
    """The ``factcourt`` command that runs it, and the ``kind`` of its result."""
    result: type[Result] | None = None
    """The model of the result the API returns (its ``kind`` is ``command``)."""
    stored: str | None = None
    """``(state, context) -> Result``: the result of a finished run's state (a served thread's)."""
    api: str | None = None
    """The module of its Python API: its ``__all__`` is what ``factcourt`` exports for it."""
    cli: str | None = None
    """The command line module whose ``add_commands`` registers its commands."""
    html: HtmlView | None = None
    """How the HTML report shows its result."""
    batch: BatchRow | None = None
    """Its ``--batch`` rows, when it takes them."""
    simulated: str | None = None
    """The module whose ``RULES`` (schema name -> prompt -> answer) the simulated model follows for it."""
    assistants: tuple[tuple[str, dict[str, Any]], ...] = field(default=())
    """The standard assistants a server gets for it: (name, context)."""

    def __post_init__(self) -> None:
        """A result the report or batch rows show is a typed one: its model is named."""
        if (self.html or self.batch) and self.result is None:
            raise ValueError(f"system {self.name!r} shows results: name its result model")

    def compiled(self) -> Any:
        """The compiled graph."""
        return load(f"{self.graph}:graph")

    def builder(self) -> Callable[[], Any]:
        """The graph module's ``build``."""
        return load(f"{self.graph}:build")


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
        graph="factcourt.graphs.factcheck",
        input_problem="factcourt.nodes.claims.open_case:response_input_problem",
        command="check",
        result=claims.CheckResult,
        stored="factcourt.api.claims:check_result",
        api="factcourt.api.claims",
        cli="factcourt.cli.claims",
        html=HtmlView("factcourt.report.claims:check_view", "check"),
        batch=BatchRow(
            fields=("text",),
            optional=("question",),
            problem="factcourt.api.claims:check_row_problem",
            run="factcourt.api.claims:check_row",
            items=True,
        ),
        simulated="factcourt.nodes.claims.simulated",
        assistants=_claim_assistants("factcheck"),
    ),
    System(
        name="verify",
        context=ClaimsContext,
        input=claims.ClaimInput,
        state=claims,
        graph="factcourt.graphs.verify",
        input_problem="factcourt.nodes.claims.open_case:claim_input_problem",
        command="verify",
        result=claims.VerifyResult,
        stored="factcourt.api.claims:verify_result",
        api="factcourt.api.claims",
        html=HtmlView("factcourt.report.claims:verify_view", "verify"),
        assistants=_claim_assistants("verify"),
    ),
    System(
        name="hallucination",
        context=HallucinationContext,
        input=hallucination.HallucinationInput,
        state=hallucination,
        graph="factcourt.graphs.hallucination",
        input_problem="factcourt.nodes.hallucination.gather:input_problem",
        command="detect",
        result=hallucination.DetectResult,
        stored="factcourt.api.hallucination:detect_result",
        api="factcourt.api.hallucination",
        cli="factcourt.cli.detect",
        html=HtmlView("factcourt.report.hallucination:detect_view", "detect"),
        batch=BatchRow(
            fields=("question", "answer"),
            problem="factcourt.api.hallucination:detect_row_problem",
            run="factcourt.api.hallucination:detect_row",
        ),
        simulated="factcourt.nodes.hallucination.simulated",
        assistants=tuple((f"hallucination-{layout}", {"hallucination_layout": layout}) for layout in LAYOUTS),
    ),
    System(
        name="pyramid",
        context=PyramidContext,
        input=pyramid.PyramidInput,
        state=pyramid,
        graph="factcourt.graphs.pyramid",
        input_problem="factcourt.nodes.pyramid.open:input_problem",
        command="pyramid",
        api="factcourt.api.pyramid",
        cli="factcourt.cli.leaderboard",
        simulated="factcourt.nodes.pyramid.simulated",
    ),
    System(
        name="longqa",
        context=LongQAContext,
        input=longqa.LongQAInput,
        state=longqa,
        graph="factcourt.graphs.longqa",
        input_problem="factcourt.nodes.longqa.gather:input_problem",
        command="build-longqa",
        cli="factcourt.cli.longqa",
        simulated="factcourt.nodes.longqa.simulated",
    ),
    System(
        name="audit",
        context=AuditContext,
        input=audit.AuditInput,
        state=audit,
        graph="factcourt.graphs.audit",
        input_problem="factcourt.nodes.audit.common:input_problem",
        command="audit",
        result=audit.AuditResult,
        api="factcourt.api.audit",
        cli="factcourt.cli.audit",
        html=HtmlView("factcourt.report.audit:audit_view"),
        simulated="factcourt.nodes.audit.simulated",
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


def roles() -> tuple[str, ...]:
    """Every system's agent roles, in the registry's order (``factcourt models`` lists them)."""
    return tuple(dict.fromkeys(role for system in SYSTEMS for role in system.context.agent_roles()))


def _api_modules() -> list[ModuleType]:
    """The systems' API modules, each once (the claim court's serves two graphs)."""
    return [load(module) for module in dict.fromkeys(system.api for system in SYSTEMS if system.api)]


def exported() -> list[str]:
    """What ``factcourt`` exports for the systems: each one's context and its API's ``__all__``."""
    names = [system.context.__name__ for system in SYSTEMS]
    for module in _api_modules():
        names += module.__all__
    return list(dict.fromkeys(names))


def public(name: str, owner: str) -> Any:
    """The context or API function ``name`` of a system, as module ``owner`` exports it.

    ``factcourt.check`` and ``factcourt.api.check`` are found here, so no module but this names
    every system. AttributeError when no system exports ``name``.
    """
    if not name.startswith("__"):
        for system in SYSTEMS:
            if system.context.__name__ == name:
                return system.context
        for module in _api_modules():
            if name in module.__all__:
                return getattr(module, name)
    raise AttributeError(f"module {owner!r} has no attribute {name!r}")
