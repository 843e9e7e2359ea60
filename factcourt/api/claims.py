"""The claim court's API: ``check`` a long text (MAD-Fact), ``verify`` one claim (DebateCV)."""

from __future__ import annotations

import asyncio
from typing import Any

from factcourt.api import (
    ProgressHook,
    checked,
    context_with_given,
    run_graph,
    run_resumably,
    stop_servers_on_exit,
)
from factcourt.context.base import BaseContext
from factcourt.context.claims import ClaimsContext
from factcourt.errors import FactcourtError, InputError
from factcourt.inputs import long_question, strip_controls
from factcourt.nodes.agents.clerk import response_problem
from factcourt.nodes.claims.open_case import claim_problem
from factcourt.runs import run_config
from factcourt.state.claims import (
    CheckResult,
    CheckSettings,
    ClaimInput,
    ClaimReport,
    ClaimResult,
    VerifyResult,
)
from factcourt.state.records import Claim, ClerkSplit, Evidence, Usage


def _order(results: list[ClaimResult]) -> list[ClaimResult]:
    return sorted(results, key=lambda r: (len(r.claim.id), r.claim.id))


def check_result(state: dict[str, Any], ctx: ClaimsContext) -> CheckResult:
    """The final state of a ``factcheck`` run as its result."""
    results = _order(state.get("results", []))
    total = state.get("usage") or Usage()
    for result in results:
        total = total + result.usage
    return CheckResult(
        question=state.get("question", ""),
        language=state.get("language"),
        settings=CheckSettings(
            protocol=ctx.protocol,
            rule=ctx.rule,
            search=ctx.search,
            model=ctx.model,
            jurors=len(ctx.speakers),
            rounds=ctx.max_rounds,
        ),
        claims=[ClaimReport.of(r) for r in results],
        dropped=state.get("dropped", []),
        scores=state.get("scores", {}),
        language_not_covered=sum(r.uncovered_language is not None for r in results),
        usage=total,
        correction=state.get("correction"),
        response=state.get("response", ""),  # the text the spans point into (the HTML report marks it)
    )


@checked
async def acheck(
    text: str,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    *,
    progress: ProgressHook | None = None,
    resumable: bool = False,
    keep_checkpoint: bool = False,
    split: ClerkSplit | None = None,
    **overrides: Any,
) -> CheckResult:
    """Check a long-form text (async); ``resumable``: under checkpoints, so a crashed check resumes.

    ``split``: the Clerk's split of this very text made before (a pyramid's), taken instead of
    asking the Clerk again.
    """
    from factcourt.graphs.factcheck import build, graph

    if split is None:  # a split given was made of this very text, spans and all
        text, question = strip_controls(text), strip_controls(question or "")
    if problem := response_problem(text) or long_question(question or ""):
        raise InputError(problem)
    if split is not None and split.response != text:
        raise InputError("the split given is of another text: its claims' spans would point elsewhere")
    ctx = ClaimsContext.make(settings, **overrides)
    payload: dict[str, Any] = {"response": text, "question": question or ""}
    if split is not None:
        payload |= {"claims": split.claims, "dropped": split.dropped}
    if resumable:
        identity = [text, question or ""]
        state = await run_resumably(
            "factcheck", build, identity, payload, ctx, progress, keep=keep_checkpoint
        )
    else:
        state = await run_graph(graph, payload, ctx, run_config(ctx), progress)
    return check_result(state, ctx)


def check_row_problem(values: dict[str, str]) -> str | None:
    """Why a ``check --batch`` row's texts cannot be checked, as :func:`acheck` would refuse them."""
    return response_problem(values["text"]) or long_question(values.get("question", ""))


async def check_row(values: dict[str, str], ctx: BaseContext) -> CheckResult:
    """A ``check --batch`` row's result (resumable)."""
    return await acheck(values["text"], values.get("question", ""), ctx, resumable=True)


@checked
def check(
    text: str, question: str = "", settings: dict[str, Any] | BaseContext | None = None, **overrides: Any
) -> CheckResult:
    """Check a long-form text; the result's JSON is what ``factcourt check --json`` prints.

    Example:
        >>> factcourt.check("Paris is the capital of France.", rule="adaptive")["scores"]
    """
    stop_servers_on_exit()
    return asyncio.run(acheck(text, question, settings, **overrides))


@checked
async def averify(
    claim: str,
    evidence: list[Evidence] | None = None,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> VerifyResult:
    """Check one claim (async)."""
    from factcourt.graphs.verify import graph

    claim, question = strip_controls(claim), strip_controls(question or "")
    if problem := claim_problem(claim) or long_question(question):
        raise InputError(problem)
    ctx = context_with_given(
        ClaimsContext, evidence, settings, overrides
    )  # as `verify --evidence`: no search on top
    payload: ClaimInput = {"claim": Claim(id="c1", text=claim), "question": question}
    if evidence is not None:
        payload["given_evidence"] = evidence
    state = await graph.ainvoke(payload, config=run_config(ctx), context=ctx)
    return verify_result(state, ctx)


def verify_result(state: dict[str, Any], ctx: ClaimsContext) -> VerifyResult:
    """The final state of a ``verify`` run as its result: its one claim's report."""
    if not state.get("results"):
        raise FactcourtError("the run holds no result of its claim")
    return VerifyResult.of(state["results"][0])


@checked
def verify(
    claim: str,
    evidence: list[Evidence] | None = None,
    question: str = "",
    settings: dict[str, Any] | BaseContext | None = None,
    **overrides: Any,
) -> VerifyResult:
    """Check one claim, with optional given evidence; the result's JSON is what ``verify --json`` prints."""
    stop_servers_on_exit()
    return asyncio.run(averify(claim, evidence, question, settings, **overrides))


__all__ = [
    "acheck",
    "averify",
    "check",
    "verify",
]
