"""What FACT-AUDIT's agents share: the objects, per-agent settings, the memory pool's views."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal, TypeVar, overload

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from factcourt.context.audit import AuditContext
from factcourt.providers.models import Answer, ask, reading_models
from factcourt.state.audit import AuditCase, AuditState, CaseRecord, Scenario

T = TypeVar("T", bound=BaseModel)

# the objects as the paper names them, by the ids the CLI and the state use
OBJECTS = {"complex_claim": "Complex Claim", "fake_news": "Fake News", "social_rumor": "Social Rumor"}
# the initial taxonomies of the authors' data/fact_cat.json (the paper's figures are images)
INITIAL_TAXONOMY = {
    "complex_claim": [
        "multiple_facts_combination",
        "reasoning_with_structural_table_data",
        "facts_change_over_time",
        "subtle_factual_differences",
        "adversarial_examples_in_factuality",
        "internet_spread_and_journalistic_verification",
        "domain-specific_claims",
        "multilingual_claims",
        "complex_claims_with_multi-step_reasoning",
    ],
    "fake_news": [
        "satire_or_parody_news",
        "news_content_with_mismatched_headline_or_caption",
        "misleading_use_of_information",
        "genuine_content_mixed_with_false_context",
        "impersonated_genuine_source",
        "camouflaged_with_the_style_of_reliable_news_publishers",
        "manipulated_content",
        "fabricated_content",
        "real_news",
    ],
    "social_rumor": [
        "wish_rumor",
        "dread_rumor",
        "wedge_driving_rumor",
        "temporal_dynamics_rumor",
        "urban_legend_rumor",
        "anticipatory_rumor",
        "none_rumor",
    ],
}
EXAMPLE_CHARS = 400  # a response or comment as shown to the Prober and the Appraiser


def objects_problem(objects: list[str]) -> str | None:
    """Why a list of objects cannot be audited, or None."""
    if not objects:
        return "no object to audit; choose from " + ", ".join(OBJECTS)
    unknown = [o for o in objects if o not in OBJECTS]
    if unknown:
        return f"unknown object(s) {unknown}; choose from {', '.join(OBJECTS)}"
    if len(set(objects)) < len(objects):
        return f"an object is named twice in {objects}"
    return None


def input_problem(payload: dict[str, Any]) -> str | None:
    """Why a served run's input (its schema checked) cannot be audited, or None (all objects by default)."""
    return objects_problem(payload["objects"]) if "objects" in payload else None


@overload
async def consult(
    ctx: AuditContext,
    role: str,
    schema: type[T],
    messages: Sequence[BaseMessage],
    *,
    run_name: str,
    **kwargs: Any,
) -> Answer[T]: ...
@overload
async def consult(
    ctx: AuditContext,
    role: str,
    schema: None,
    messages: Sequence[BaseMessage],
    *,
    run_name: str,
    **kwargs: Any,
) -> Answer[Any]: ...
async def consult(
    ctx: AuditContext,
    role: str,
    schema: type[T] | None,
    messages: Sequence[BaseMessage],
    *,
    run_name: str,
    **kwargs: Any,
) -> Answer[T]:
    """``ask`` with the agent's own temperature and answer length (the paper's per agent)."""
    own: dict[str, Any] = {
        "temperature": ctx.audit_temperatures.get(role, ctx.temperature),
        "max_tokens": ctx.audit_max_tokens.get(role, ctx.max_tokens),
    }

    def agent() -> AuditContext:  # its own temperature and length; the models of the run (the target's own)
        if role == "target":
            return reading_models(target_context(ctx, **own), target_context(ctx))
        return reading_models(replace(ctx, **own), ctx)

    settings = ctx.kept(("agent", role), agent)  # made once a run
    if "sample" in kwargs and ctx.audit_seed:  # another run's samples are not this run's cache hits
        kwargs["sample"] = [ctx.audit_seed, kwargs["sample"]]
    tags = ["system:audit", f"role:{role}"]
    return await ask(settings, role, schema, messages, run_name=run_name, tags=tags, **kwargs)


def target_context(ctx: AuditContext, **overrides: Any) -> AuditContext:
    """The target's settings: its model (role 'target', else the auditor's) with its model_settings."""
    return ctx.for_model(ctx.model_of("target"), **overrides)


def current_object(state: AuditState) -> str:
    """The object being audited."""
    return state["objects"][state["object_index"]]


def taxonomy_of(state: AuditState, obj: str) -> list[Scenario]:
    """The object's scenarios so far."""
    return [s for s in state.get("taxonomy", []) if s.object == obj]


def records_of(state: AuditState, obj: str, scenario: str) -> list[CaseRecord]:
    """Every memory-pool entry of a scenario, graded or not."""
    return [r for r in state.get("memory", []) if r.object == obj and r.scenario == scenario]


def new_record(
    obj: str, scenario: str, number: int, origin: Literal["seed", "probe"], **fields: Any
) -> CaseRecord:
    """A memory-pool entry numbered within its scenario."""
    return CaseRecord(id=f"{obj}/{scenario}/{number}", object=obj, scenario=scenario, origin=origin, **fields)


def case_question(case: AuditCase) -> str:
    """The case as Fig 12's question (the authors' code inserts the prompt's dict)."""
    return json.dumps(
        {"source_claim": case.source_claim, "auxiliary_info": case.auxiliary_info}, ensure_ascii=False
    )


def case_json(cases: list[AuditCase]) -> str:
    """Cases as the JSON the Quality Inspector reads and writes."""
    return json.dumps([c.model_dump() for c in cases], ensure_ascii=False, indent=1)


def refused(state: AuditState, ctx: AuditContext, obj: str) -> dict[str, Any]:
    """One more Appraiser turn without a new scenario; enough in a row stop the object's taxonomy."""
    refusals = state.get("refusals", 0) + 1
    if refusals < ctx.audit_rejections:
        return {"refusals": refusals}
    return {"refusals": refusals, "stops": {**state.get("stops", {}), obj: "rejections"}}
