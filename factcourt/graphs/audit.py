"""Graph ``audit`` (FACT-AUDIT): audit a target model's fact-checking, object by object.

Per object: every scenario of the initial taxonomy in turn gets seed cases (Inquirer), checked
and repaired (Quality Inspector), evaluated (reference, target, grade), then probes (Prober)
until the scenario's budget of graded cases is met (or twice it asked); with the queue empty,
the Appraiser proposes a new scenario, which the scenario judge accepts into the queue or
rejects, until the Appraiser stops, too many proposals in a row are rejected, or the scenario
cap is reached. The routers' labels name why,
so Studio draws every branch.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from factcourt.context.audit import AuditContext
from factcourt.nodes.audit.appraiser import appraiser
from factcourt.nodes.audit.common import current_object, records_of, taxonomy_of
from factcourt.nodes.audit.evaluator import evaluate
from factcourt.nodes.audit.inquirer import inquirer
from factcourt.nodes.audit.inspector import inspector
from factcourt.nodes.audit.prober import prober
from factcourt.nodes.audit.scenario_judge import scenario_judge
from factcourt.nodes.audit.taxonomy import next_object
from factcourt.state.audit import AuditInput, AuditState


def after_object(state: AuditState) -> Literal["audit", "done"]:
    """Audit the next object, or end after the last (or on bad input)."""
    if state.get("error") or state["object_index"] >= len(state["objects"]):
        return "done"
    return "audit"


NextStep = Literal["evaluate", "probe", "next_scenario", "appraise", "scenario_cap"]


def next_step(state: AuditState, runtime: Runtime[AuditContext]) -> NextStep:
    """Evaluate pending cases, probe up to the budget, then the next scenario, the Appraiser or the cap."""
    ctx = runtime.context
    if state.get("pending"):
        return "evaluate"
    obj = current_object(state)
    records = records_of(state, obj, state["scenario"])
    graded = sum(r.status == "graded" for r in records)
    # the budget is of graded cases, as the authors' memory pool; twice it asked bounds an
    # auditor or a target that keeps failing
    if graded < ctx.audit_cases_per_scenario and len(records) < 2 * ctx.audit_cases_per_scenario:
        return "probe"
    audited = len(taxonomy_of(state, obj)) - len(state.get("queue", []))
    if audited >= ctx.audit_scenario_cap:
        return "scenario_cap"
    return "next_scenario" if state.get("queue") else "appraise"


def after_appraiser(state: AuditState) -> Literal["proposal", "stop", "rejections", "again"]:
    """Judge a proposal; end the object on [[Stop]] or too many turns without a scenario; else ask again."""
    stop = state.get("stops", {}).get(current_object(state))
    if stop == "appraiser_stop":
        return "stop"
    if stop == "rejections":
        return "rejections"
    return "proposal" if state.get("proposal") else "again"


def after_judge(state: AuditState) -> Literal["accepted", "rejected", "rejections"]:
    """Audit an accepted scenario; after a rejection the Appraiser tries again, up to the limit."""
    if state.get("stops", {}).get(current_object(state)) == "rejections":
        return "rejections"
    return "accepted" if state["appraisals"][-1].outcome == "accepted" else "rejected"


NEXT_STEP: dict[Hashable, str] = {
    "evaluate": "evaluate",
    "probe": "prober",
    "next_scenario": "inquirer",
    "appraise": "appraiser",
    "scenario_cap": "next_object",
}


def build() -> StateGraph[AuditState, AuditContext, AuditInput, AuditState]:
    """Wire the audit loop."""
    builder = StateGraph(AuditState, context_schema=AuditContext, input_schema=AuditInput)
    for name, node in [
        ("next_object", next_object),
        ("inquirer", inquirer),
        ("inspector", inspector),
        ("evaluate", evaluate),
        ("prober", prober),
        ("appraiser", appraiser),
        ("scenario_judge", scenario_judge),
    ]:
        builder.add_node(name, node)
    builder.add_edge(START, "next_object")
    builder.add_conditional_edges("next_object", after_object, {"audit": "inquirer", "done": END})
    builder.add_edge("inquirer", "inspector")
    builder.add_conditional_edges("inspector", next_step, NEXT_STEP)
    builder.add_conditional_edges("evaluate", next_step, NEXT_STEP)
    builder.add_edge("prober", "inspector")
    builder.add_conditional_edges(
        "appraiser",
        after_appraiser,
        {
            "proposal": "scenario_judge",
            "again": "appraiser",
            "stop": "next_object",
            "rejections": "next_object",
        },
    )
    builder.add_conditional_edges(
        "scenario_judge",
        after_judge,
        {"accepted": "inquirer", "rejected": "appraiser", "rejections": "next_object"},
    )
    return builder


graph = build().compile(name="audit")
