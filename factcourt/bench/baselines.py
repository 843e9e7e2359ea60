"""Baselines on the same providers: six on claims, four on QA pairs.

``single``, ``fire`` and ``safe`` rate a claim as MAD-Fact compares them; ``cot_claim``,
``majority`` and ``cooperation`` as DebateCV compares them (§5.1). ``cot``, ``self_reflection``,
``mad`` and ``madr`` judge whether the answer to a question hallucinates, as IMPD-MACD compares them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from factcourt.bench.context import BenchContext
from factcourt.bench.prompts_en import EN
from factcourt.bench.schemas import ClaimCot, CoopInstruction, FireStep, HallucinationCheck, MadrCritique
from factcourt.inputs import detect_language
from factcourt.nodes.agents.verifier import verify_once
from factcourt.nodes.claims.label_reading import read_label
from factcourt.nodes.hallucination.gather import item_problem
from factcourt.nodes.hallucination.protocol import EMPTY, OPPONENT_CHARS, clip, vote
from factcourt.nodes.hallucination.team_turn import item_fields
from factcourt.nodes.helpers import claim_query, fence, format_evidence
from factcourt.prompts import Pair, conversation
from factcourt.providers.models import ask
from factcourt.providers.search import search
from factcourt.state.records import Evidence, SearchQuery, Usage

FIRE_MAX_STEPS = 5
SAFE_SEARCHES = 5
# Du et al. (2023)'s defaults, which the IMPD-MACD paper kept for its MAD baseline
MAD_AGENTS, MAD_ROUNDS = 3, 2
# MADR (Kim et al. 2024): critique-and-refine iterations at most (ours: the IMPD paper gives none)
MADR_ROUNDS = 2
# DebateCV's Majority (Lin et al.): three independent CoT agents
MAJORITY_AGENTS = 3
# CAMEL's cooperation: instructions the AI user gives at most (ours: the paper gives no turn limit)
COOP_TURNS = 3
# label 1 (no hallucination) is reported as 'supported', as the impd methods report it
# a label of None (no verdict) reads as none
QA_VERDICTS: dict[int | None, str] = {1: "supported", 0: "refuted"}


class Trace:
    """What a baseline did: evidence, queries, usage and its steps."""

    def __init__(self, given: list[Evidence]):
        """Start from the given evidence."""
        self.evidence = list(given)
        self.queries: list[str] = []
        self.steps: list[dict[str, Any]] = []
        self.usage = Usage()
        self.p_true: float | None = None
        self.p_silent: float | None = None  # label_set='three': P(the evidence does not address it)
        self.first_round: str | None = None  # a debate's round-1 verdict: its flips compare it
        self.error: str | None = None  # the last failed call's reason

    def prompt_fields(self, claim: str) -> dict[str, str]:
        """The claim, the evidence so far and the queries made, as the prompts show them."""
        return {
            "claim": fence(claim),
            "evidence": format_evidence(self.evidence),
            "queries": "; ".join(self.queries) or "none",
        }

    async def search(self, ctx: BenchContext, query: str) -> bool:
        """Search once; False when the query repeats (FIRE's and SAFE's stop condition)."""
        if not query.strip() or query.lower() in (q.lower() for q in self.queries):
            return False
        found, real = await asyncio.to_thread(search, ctx, query)
        self.queries.append(query)
        known = {(e.url, e.text) for e in self.evidence}
        self.evidence += [e for e in found if (e.url, e.text) not in known]
        self.usage += Usage.search_call() if real else Usage()
        return True


# what every baseline returns: its verdict (None when it failed), why it failed, and its trace
Judged = tuple[str | None, str | None, Trace]


async def _rate(
    ctx: BenchContext, claim: str, question: str, trace: Trace, name: str
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


async def single(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """One verifier call over the evidence retrieved for the claim itself."""
    trace = Trace(given)
    if ctx.retrieval_enabled:
        await trace.search(ctx, claim)
    verdict, error = await _rate(ctx, claim, question, trace, "single")
    return verdict, error, trace


async def plain(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """The floor: one label-only reading over the claim's evidence, raw, the likelier label.

    It is the default's first reading, byte for byte: no reasoning, calibration or second reading.
    """
    trace = Trace(given)
    if ctx.retrieval_enabled:
        await trace.search(ctx, claim_query(claim, question))
    reading = await read_label(
        ctx,
        claim,
        trace.evidence,
        language=detect_language(claim),
        question=question,
        run_name="plain",
        tags=["method:plain"],
    )
    trace.usage += reading.usage
    trace.p_true, trace.p_silent = reading.p_true, reading.p_silent
    return reading.verdict, reading.error, trace


async def fire(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
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
                EN.FIRE,
                **trace.prompt_fields(claim),
                step=step,
                max_steps=FIRE_MAX_STEPS,
            ),
            run_name=f"fire step {step}",
            tags=["method:fire"],
        )
        trace.usage += answer.usage
        if answer.value is None:  # failed, not the last step's verdict: the next run tries again
            return None, answer.error, trace
        value = answer.value
        trace.steps.append(value.model_dump())
        verdict = value.verdict
        if value.action == "answer" and value.confidence >= ctx.theta:
            break
        if not ctx.retrieval_enabled or not await trace.search(ctx, value.search_query or claim):
            break
    return verdict, None, trace


async def safe(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """SAFE: a fixed number of model-written searches (up to 5), then one rating."""
    trace = Trace(given)
    for step in range(SAFE_SEARCHES if ctx.retrieval_enabled else 0):
        answer = await ask(
            ctx,
            "query",
            SearchQuery,
            conversation(EN.SAFE_QUERY, **trace.prompt_fields(claim)),
            run_name=f"safe query {step + 1}",
            tags=["method:safe"],
        )
        trace.usage += answer.usage
        if answer.value is None or not await trace.search(ctx, answer.value.query):
            break
    verdict, error = await _rate(ctx, claim, question, trace, "safe")
    return verdict, error, trace


async def _claim_trace(ctx: BenchContext, claim: str, given: list[Evidence]) -> Trace:
    """The given evidence, plus one search of the claim where retrieval is on (as ``single``)."""
    trace = Trace(given)
    if ctx.retrieval_enabled:
        await trace.search(ctx, claim)
    return trace


async def _claim_step(
    ctx: BenchContext,
    trace: Trace,
    schema: type[BaseModel],
    pair: Pair,
    fields: Mapping[str, object],
    step: dict[str, Any],
    sample: int = 0,
) -> Any:
    """One call of a claim baseline, recorded in the steps; its value, or None when it failed."""
    answer = await ask(
        ctx,
        "evaluator",
        schema,
        conversation(pair, **fields),
        run_name=" ".join(f"{k} {v}" for k, v in step.items()),
        tags=[f"method:{step['method']}"],
        metadata=step,
        sample=sample,
    )
    trace.usage += answer.usage
    trace.steps.append({**step, **(answer.value.model_dump() if answer.value else {"failed": answer.error})})
    trace.error = answer.error
    return answer.value


async def cot_claim(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """DebateCV's CoT baseline: one step-by-step call over the evidence, four verdicts."""
    trace = await _claim_trace(ctx, claim, given)
    fields = {"claim": fence(claim), "evidence": format_evidence(trace.evidence)}
    value = await _claim_step(ctx, trace, ClaimCot, EN.CLAIM_COT, fields, {"method": "cot_claim"})
    return (value.verdict, None, trace) if value else (None, trace.error, trace)


async def majority(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """DebateCV's Majority: MAJORITY_AGENTS independent CoT answers, then a majority-vote call.

    The agents are samples of one prompt (``sample=k``): they differ at the paper's temperature
    (0.7, ``--set temperature=0.7``) and agree at 0. Where the vote call fails, the most
    frequent verdict stands (a tie: the first agent's among the tied).
    """
    trace = await _claim_trace(ctx, claim, given)
    fields = {"claim": fence(claim), "evidence": format_evidence(trace.evidence)}
    answers = await asyncio.gather(
        *(
            _claim_step(ctx, trace, ClaimCot, EN.CLAIM_COT, fields, {"method": "majority", "agent": k + 1}, k)
            for k in range(MAJORITY_AGENTS)
        )
    )
    said = [(k + 1, a) for k, a in enumerate(answers) if a is not None]
    if not said:
        return None, trace.error, trace
    listed = "\n".join(f"Agent {k}: {a.verdict}: {clip(a.reasoning, OPPONENT_CHARS)}" for k, a in said)
    vote_fields = {**fields, "answers": fence(listed), "agents": len(said)}
    voted = await _claim_step(ctx, trace, ClaimCot, EN.CLAIM_MAJORITY, vote_fields, {"method": "majority"})
    if voted is not None:
        return voted.verdict, None, trace
    counts = Counter(a.verdict for _, a in said)
    return next(a.verdict for _, a in said if counts[a.verdict] == max(counts.values())), None, trace


async def cooperation(ctx: BenchContext, claim: str, given: list[Evidence], question: str = "") -> Judged:
    """DebateCV's Cooperation (CAMEL): an AI user instructs an AI assistant to solve the CoT task.

    Each turn the user gives one instruction and the assistant carries it out with a verdict;
    the dialogue ends when the user says the task is done or after COOP_TURNS instructions, and
    the assistant's last verdict stands.
    """
    trace = await _claim_trace(ctx, claim, given)
    fields = {"claim": fence(claim), "evidence": format_evidence(trace.evidence)}
    dialogue: list[str] = []
    verdict = None
    for turn in range(1, COOP_TURNS + 1):
        seen = {**fields, "dialogue": fence("\n".join(dialogue)) or EMPTY}
        step = {"method": "cooperation", "turn": turn}
        user = await _claim_step(
            ctx,
            trace,
            CoopInstruction,
            EN.COOP_USER,
            {**seen, "task": EN.CLAIM_COT_ASK, "turn": turn, "turns": COOP_TURNS},
            {**step, "speaker": "user"},
        )
        if user is None or (user.task_done and verdict):
            break
        answer = await _claim_step(
            ctx,
            trace,
            ClaimCot,
            EN.COOP_ASSISTANT,
            {**seen, "instruction": fence(user.instruction)},
            {**step, "speaker": "assistant"},
        )
        if answer is None:
            break
        verdict = answer.verdict
        dialogue += [
            f"User: {clip(user.instruction, OPPONENT_CHARS)}",
            f"Assistant: {verdict}: {clip(answer.reasoning, OPPONENT_CHARS)}",
        ]
    return (verdict, None, trace) if verdict else (None, trace.error, trace)


async def _qa_trace(
    ctx: BenchContext, question: str, answer: str, given: list[Evidence]
) -> tuple[Trace, str | None]:
    """The knowledge the pair is judged over, or why it cannot be judged (the graph's rule).

    With retrieval on, the question is searched once.
    """
    trace = Trace(given)
    if problem := item_problem(question, answer):
        return trace, problem
    if ctx.retrieval_enabled:
        await trace.search(ctx, question)
    return trace, None


async def _check(
    ctx: BenchContext, trace: Trace, role: str, pair: Pair, fields: Mapping[str, object], step: dict[str, Any]
) -> tuple[HallucinationCheck | None, str | None]:
    """One step-by-step check of the pair; a failure is recorded in the steps, never raised."""
    run_name = " ".join(f"{k} {v}" for k, v in step.items())
    answer = await ask(
        ctx,
        role,
        HallucinationCheck,
        conversation(pair, **fields),
        run_name=run_name,
        tags=[f"method:{step['method']}"],
        metadata=step,
    )
    trace.usage += answer.usage
    trace.steps.append({**step, **(answer.value.model_dump() if answer.value else {"failed": answer.error})})
    return answer.value, answer.error


async def cot(ctx: BenchContext, question: str, answer: str, given: list[Evidence]) -> Judged:
    """CoT: one step-by-step call decides whether the answer hallucinates."""
    trace, problem = await _qa_trace(ctx, question, answer, given)
    if problem:
        return None, problem, trace
    fields = item_fields(question, answer, trace.evidence)
    check, error = await _check(ctx, trace, "evaluator", EN.HALU_COT, fields, {"method": "cot"})
    if check is None:
        return None, error, trace
    return QA_VERDICTS[1 if check.conclusion == "no_hallucination" else 0], None, trace


def _said(check: HallucinationCheck) -> str:
    return f"{check.conclusion}: {clip(check.reasoning, OPPONENT_CHARS)}"


async def self_reflection(ctx: BenchContext, question: str, answer: str, given: list[Evidence]) -> Judged:
    """Self-Reflection: a CoT answer, then one call that critiques it and gives the final conclusion.

    A failed reflection is recorded and the first answer stands.
    """
    trace, problem = await _qa_trace(ctx, question, answer, given)
    if problem:
        return None, problem, trace
    fields = item_fields(question, answer, trace.evidence)
    step = {"method": "self_reflection"}
    first, error = await _check(ctx, trace, "evaluator", EN.HALU_COT, fields, {**step, "step": "answer"})
    if first is None:
        return None, error, trace
    seen = {**fields, "own": fence(_said(first))}
    reflected, _ = await _check(
        ctx, trace, "evaluator", EN.HALU_REFLECT, seen, {**step, "step": "reflection"}
    )
    final = reflected or first
    return QA_VERDICTS[1 if final.conclusion == "no_hallucination" else 0], None, trace


def _mad_seen(last: list[HallucinationCheck | None], agent: int) -> dict[str, str]:
    """What an agent sees of the last round: its own answer and the other agents' answers."""
    said = [_said(c) if c else "" for c in last]
    others = "\n".join(f"Agent {n + 1}: {s}" for n, s in enumerate(said) if n != agent and s)
    return {"own": fence(said[agent]) or EMPTY, "others": fence(others) or EMPTY}


async def mad(ctx: BenchContext, question: str, answer: str, given: list[Evidence]) -> Judged:
    """MAD (Du et al. 2023): identical agents answer, then update their answers with the others'.

    MAD_AGENTS agents answer; in each of the MAD_ROUNDS - 1 later rounds every agent sees its
    own and the others' last answers and updates its own; the last answers' majority decides
    (a tie is hallucination, as in impd's vote).

    The agents differ only by their number in the prompt: at temperature 0 that, not sampling,
    is what keeps their answers (and cache keys) apart. A failed turn is recorded and the
    agent's last good answer stands.
    """
    trace, problem = await _qa_trace(ctx, question, answer, given)
    if problem:
        return None, problem, trace
    item = item_fields(question, answer, trace.evidence)
    last: list[HallucinationCheck | None] = [None] * MAD_AGENTS
    errors: list[str] = []
    for round_ in range(1, MAD_ROUNDS + 1):
        done = await asyncio.gather(
            *(
                _check(
                    ctx,
                    trace,
                    "debater",
                    EN.HALU_MAD,
                    {**item, **_mad_seen(last, n), "agent": n + 1, "agents": MAD_AGENTS, "round": round_},
                    {"method": "mad", "agent": n + 1, "round": round_},
                )
                for n in range(MAD_AGENTS)
            )
        )
        errors += [f"round {round_} agent {n + 1}: {e}" for n, (c, e) in enumerate(done) if c is None]
        last = [c or before for (c, _), before in zip(done, last, strict=True)]
        if round_ == 1:
            first = vote([c for c in last if c], [])
            trace.first_round = None if first is None else QA_VERDICTS[first]
    label = vote([c for c in last if c], [])  # vote reads only each answer's conclusion
    if label is None:
        return None, "no MAD agent answered: " + "; ".join(errors), trace
    return QA_VERDICTS[label], None, trace


async def madr(ctx: BenchContext, question: str, answer: str, given: list[Evidence]) -> Judged:
    """MADR (Kim et al. 2024): a CoT explanation, then debate-and-refine iterations.

    Each iteration two critics review the explanation, one against a typology of errors and one
    open-ended, each seeing the other's last review; when both find it faithful the debate has
    converged and the explanation stands, else a refiner revises it with both critiques. At most
    MADR_ROUNDS iterations; the last explanation's conclusion decides. A failed critique or
    revision ends the iterations and the last explanation stands.
    """
    trace, problem = await _qa_trace(ctx, question, answer, given)
    if problem:
        return None, problem, trace
    item = item_fields(question, answer, trace.evidence)
    current, error = await _check(
        ctx, trace, "evaluator", EN.HALU_COT, item, {"method": "madr", "step": "answer"}
    )
    if current is None:
        return None, error, trace
    reviews: list[MadrCritique | None] = [None, None]
    for round_ in range(1, MADR_ROUNDS + 1):
        explanation = fence(_said(current))
        reviews = list(
            await asyncio.gather(
                *(
                    _critique(ctx, trace, item, explanation, reviews[1 - n], focus, round_, n + 1)
                    for n, focus in enumerate(EN.HALU_MADR_FOCUS)
                )
            )
        )
        if None in reviews or all(r.faithful for r in reviews if r):
            break
        critiques = "\n".join(
            f"Reviewer {n + 1}: {clip(r.critique, OPPONENT_CHARS)}" for n, r in enumerate(reviews) if r
        )
        seen = {**item, "own": explanation, "critiques": fence(critiques)}
        step = {"method": "madr", "step": "refine", "round": round_}
        revised, _ = await _check(ctx, trace, "evaluator", EN.HALU_MADR_REFINE, seen, step)
        if revised is None:
            break
        current = revised
    return QA_VERDICTS[1 if current.conclusion == "no_hallucination" else 0], None, trace


async def _critique(
    ctx: BenchContext,
    trace: Trace,
    item: dict[str, str],
    explanation: str,
    other: MadrCritique | None,
    focus: str,
    round_: int,
    critic: int,
) -> MadrCritique | None:
    """One MADR critic's review, recorded in the steps."""
    step = {"method": "madr", "step": "critique", "round": round_, "critic": critic}
    fields = {
        **item,
        "explanation": explanation,
        "other": fence(clip(other.critique, OPPONENT_CHARS)) if other else EMPTY,
        "focus": focus,
    }
    answer = await ask(
        ctx,
        "debater",
        MadrCritique,
        conversation(EN.HALU_MADR_CRITIC, **fields),
        run_name=" ".join(f"{k} {v}" for k, v in step.items()),
        tags=["method:madr"],
        metadata=step,
    )
    trace.usage += answer.usage
    trace.steps.append({**step, **(answer.value.model_dump() if answer.value else {"failed": answer.error})})
    return answer.value
