"""Single-agent baselines on the same providers: ``single``, ``fire`` and ``safe``."""

from __future__ import annotations

import asyncio

from factcourt.context import Context
from factcourt.nodes._shared import detect_language, fence, format_evidence
from factcourt.nodes.verifier import verify_once
from factcourt.prompts import conversation
from factcourt.providers.models import ask
from factcourt.providers.search import search
from factcourt.state import Evidence, FireStep, SearchQuery, Usage

FIRE_MAX_STEPS = 5
SAFE_SEARCHES = 5


class Trace:
    """What a baseline did: evidence, queries, usage and its steps."""

    def __init__(self, given: list[Evidence]):
        """Start from the given evidence."""
        self.evidence, self.queries, self.steps = list(given), [], []
        self.usage = Usage()
        self.p_true: float | None = None

    def prompt_fields(self, claim: str) -> dict[str, str]:
        """The claim, the evidence so far and the queries made, as the prompts show them."""
        return {
            "claim": fence(claim),
            "evidence": format_evidence(self.evidence),
            "queries": "; ".join(self.queries) or "none",
        }

    async def search(self, ctx: Context, query: str) -> bool:
        """Search once; False when the query repeats (FIRE's and SAFE's stop condition)."""
        if not query.strip() or query.lower() in (q.lower() for q in self.queries):
            return False
        found, real = await asyncio.to_thread(search, ctx, query)
        self.queries.append(query)
        known = {(e.url, e.text) for e in self.evidence}
        self.evidence += [e for e in found if (e.url, e.text) not in known]
        self.usage += Usage.search_call() if real else Usage()
        return True


async def _rate(
    ctx: Context, claim: str, question: str, trace: Trace, name: str
) -> tuple[str | None, str | None]:
    turn, usage = await verify_once(
        ctx,
        claim,
        trace.evidence,
        language=detect_language(claim),
        question=question,
        run_name=name,
        tags=[f"method:{name}"],
    )
    trace.usage += usage
    if turn.failed:
        return None, turn.failed
    trace.steps.append(turn.model_dump(mode="json"))
    trace.p_true = (turn.probabilities or {}).get("supported")
    return turn.verdict, None


async def single(ctx: Context, claim: str, given: list[Evidence], question: str = "") -> tuple:
    """One verifier call over the evidence retrieved for the claim itself."""
    trace = Trace(given)
    if ctx.retrieval_enabled:
        await trace.search(ctx, claim)
    verdict, error = await _rate(ctx, claim, question, trace, "single")
    return verdict, error, trace


async def fire(ctx: Context, claim: str, given: list[Evidence], question: str = "") -> tuple:
    """FIRE: each step the agent answers (when confident) or searches again.

    It also stops when a query repeats or after FIRE_MAX_STEPS steps, with its best verdict.
    """
    trace, verdict = Trace(given), None
    for step in range(1, FIRE_MAX_STEPS + 1):
        answer = await ask(
            ctx,
            "evaluator",
            FireStep,
            conversation(
                "en",
                "FIRE",
                **trace.prompt_fields(claim),
                step=step,
                max_steps=FIRE_MAX_STEPS,
            ),
            run_name=f"fire step {step}",
            tags=["method:fire"],
        )
        trace.usage += answer.usage
        if answer.value is None:
            return verdict, answer.error, trace
        value = answer.value
        trace.steps.append(value.model_dump())
        verdict = value.verdict
        if value.action == "answer" and value.confidence >= ctx.theta:
            break
        if not ctx.retrieval_enabled or not await trace.search(ctx, value.search_query or claim):
            break
    return verdict, None, trace


async def safe(ctx: Context, claim: str, given: list[Evidence], question: str = "") -> tuple:
    """SAFE: a fixed number of model-written searches (up to 5), then one rating."""
    trace = Trace(given)
    for step in range(SAFE_SEARCHES if ctx.retrieval_enabled else 0):
        answer = await ask(
            ctx,
            "query",
            SearchQuery,
            conversation("en", "SAFE_QUERY", **trace.prompt_fields(claim)),
            run_name=f"safe query {step + 1}",
            tags=["method:safe"],
        )
        trace.usage += answer.usage
        if answer.value is None or not await trace.search(ctx, answer.value.query):
            break
    verdict, error = await _rate(ctx, claim, question, trace, "safe")
    return verdict, error, trace
