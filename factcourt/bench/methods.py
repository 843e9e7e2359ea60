"""The methods a benchmark compares, on the same model, retrieval and claims."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from factcourt.api.claims import averify
from factcourt.api.hallucination import adetect
from factcourt.bench import baselines
from factcourt.bench.context import BenchContext
from factcourt.bench.datasets import Case
from factcourt.context.claims import OURS, PRESETS
from factcourt.context.hallucination import HALLUCINATION_AGENTS
from factcourt.state.records import Evidence, Usage

# method name -> context overrides of the debate engine. 'default' is exactly what `check` runs;
# the MAD-Fact rules and DebateCV run as their papers do (PRESETS), unless named 'default-...'.
MADFACT, DEBATECV = PRESETS["madfact"], PRESETS["debatecv"]
DEBATE_METHODS: dict[str, dict[str, Any]] = {
    "default": {},
    "reader": {"reader": "trained"},  # the trained reader (factcourt/readers/) decides every claim
    "routed": {"first_pass_theta": 0.95},  # the dev sweep's pick: contested claims go to the jury
    # every claim debated and every juror heard, so that sweeps can replay fewer jurors or rounds
    "default-record": {"first_pass": "record", "jurors": 3, "rounds": 2, "settled_stop": False},
    "jury": {**MADFACT, "rule": "free", "juror_models": []},  # one model, whatever --juror-models says
    "jury-various": {**MADFACT, "rule": "free"},  # Table 5: a model per juror (--juror-models a,b,c)
    "jury-judge": {**MADFACT, "rule": "free", "juror_models": [], "jury_judge": "model"},  # §6.2.3's Judge
    "jury-ours": {**MADFACT, "rule": "free", "juror_models": [], **OURS["madfact"]},  # our roles and guard
    "jury-free": {**MADFACT, "rule": "free"},
    "jury-mandatory_search": {**MADFACT, "rule": "mandatory_search"},
    "jury-adaptive": {**MADFACT, "rule": "adaptive"},
    # one round of 3 or 5 jurors with our roles and guard: a vote of several readings next to one call
    "jury-3x1": {**MADFACT, "rule": "free", **OURS["madfact"], "rounds": 1},
    "jury-5x1": {**MADFACT, "rule": "free", **OURS["madfact"], "jurors": 5, "rounds": 1},
    "adversarial": DEBATECV,  # the moderator may stop after round 1 (App. B, Fig. 2)
    "adversarial-adaptive": {**DEBATECV, "rule": "adaptive"},
    "adversarial-free": {**DEBATECV, "rule": "free"},  # no stop before round 2 (Alg. 1)
    "adversarial-ours": {**DEBATECV, **OURS["debatecv"]},  # temperature 0, no round-1 stop
    # the preset with our prompts: what moderators trained on SynDeC in our format are measured with
    "adversarial-our_prompts": {**DEBATECV, "debate_prompts": "ours"},
    "jury-no_roles": {**MADFACT, "rule": "free", "use_roles": False},
    "jury-no_debate": {**MADFACT, "rule": "free", "use_debate": False},
    "jury-no_search": {**MADFACT, "rule": "free", "search": "none"},
}
BASELINES: dict[str, Callable[..., Awaitable[baselines.Judged]]] = {
    "plain": baselines.plain,
    "single": baselines.single,
    "fire": baselines.fire,
    "safe": baselines.safe,
    # DebateCV's baselines (§5.1): run them with --evidence given --set temperature=0.7
    "cot_claim": baselines.cot_claim,
    "majority": baselines.majority,
    "cooperation": baselines.cooperation,
}
# The IMPD-MACD paper's baselines: they judge the QA pair itself, as impd does
QA_BASELINES: dict[str, Callable[..., Awaitable[baselines.Judged]]] = {
    "cot": baselines.cot,
    "self_reflection": baselines.self_reflection,
    "mad": baselines.mad,
    "madr": baselines.madr,
}
# IMPD-MACD as the paper runs it where it gives a value: the judge's word stops and decides, its
# quality scores s1-s4 times c_t make J_t (App. C.3, Eq. 15), Q_t is shown to it and to the Refiner
# (Eqs. 13, 18), and each stance also retrieves for its own viewpoint (§3.1)
IMPD_PAPER: dict[str, Any] = {
    "hallucination_judge": "paper",
    "hallucination_jt": "paper",
    "hallucination_scores": "quality",
    "hallucination_retrieval": "stance",
}
# the ablations of Table 2, each one agent (or the external knowledge) fewer
ABLATIONS: dict[str, dict[str, Any]] = {
    "no_knowledge": {"search": "none"},
    **{
        f"no_{agent}": {"hallucination_agents": [a for a in HALLUCINATION_AGENTS if a != agent]}
        for agent in HALLUCINATION_AGENTS
    },
}
# IMPD-MACD (graph ``hallucination``) judges the QA pair itself: label 1 (no hallucination) is
# reported as 'supported', so the TRUE columns are the paper's positive class. 'impd' and its
# ablations are ours: a judge of the teams' dispute whose word the teams' agreed conclusion
# overrules, no c_t or Q_t, one retrieval for both teams.
HALLUCINATION_METHODS: dict[str, dict[str, Any]] = {
    "impd": {},
    "impd-team": {"hallucination_layout": "team"},  # one call per team: 3 calls a round
    "impd-paper_judge": {"hallucination_judge": "paper"},  # the judge's word alone stops and decides
    **{f"impd-{name}": ablation for name, ablation in ABLATIONS.items()},
    "impd-paper": IMPD_PAPER,
    **{f"impd-paper-{name}": {**IMPD_PAPER, **ablation} for name, ablation in ABLATIONS.items()},
}
METHODS = (*DEBATE_METHODS, *BASELINES, *QA_BASELINES, *HALLUCINATION_METHODS)


@dataclass
class Prediction:
    """One method's answer on one case, with what it cost."""

    verdict: str | None
    error: str | None
    usage: Usage
    seconds: float = 0.0  # the wall time of the whole prediction, set by ``predict``
    evidence: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)
    p_true: float | None = None
    p_true_raw: float | None = None  # before calibration; None when the same as p_true
    route: str | None = None
    first_round_verdict: str | None = None


async def predict(method: str, case: Case, ctx: BenchContext) -> Prediction:
    """Run ``method`` on ``case``; exceptions become a failed prediction, never a verdict."""
    start = time.perf_counter()
    given = list(case.evidence) if ctx.search == "given" else []
    if method in BASELINES or method in QA_BASELINES:
        run = _baseline
    elif method in HALLUCINATION_METHODS:
        run = _detect
    else:
        run = _debate
    try:
        prediction = await run(method, case, ctx, given)
    except Exception as exc:  # noqa: BLE001  one broken case must not stop the benchmark
        prediction = Prediction(None, f"{type(exc).__name__}: {exc}", Usage())
    prediction.seconds = time.perf_counter() - start
    prediction.route = prediction.route or ("debate" if prediction.first_round_verdict else None)  # mad, impd
    return prediction


async def _baseline(method: str, case: Case, ctx: BenchContext, given: list[Evidence]) -> Prediction:
    if method in QA_BASELINES:
        qa = QA_BASELINES[method]
        verdict, error, trace = await qa(ctx, case.question, case.answer or case.claim, given)
    else:
        verdict, error, trace = await BASELINES[method](ctx, case.claim, given, case.question)
    return Prediction(
        verdict,
        error,
        trace.usage,
        evidence=[e.text for e in trace.evidence],
        detail={"steps": trace.steps, "queries": trace.queries}
        | ({"p_silent": trace.p_silent} if trace.p_silent is not None else {}),
        p_true=trace.p_true,
        first_round_verdict=trace.first_round,
    )


async def _debate(method: str, case: Case, ctx: BenchContext, given: list[Evidence]) -> Prediction:
    run_ctx = BenchContext.make(ctx, **DEBATE_METHODS[method])
    result = await averify(case.claim, given or None, case.question, run_ctx)
    # the prediction's detail keeps the debate as its JSON (a result read by key gives it)
    detail = {key: result[key] for key in ("transcript", "summaries", "queries", "rounds", "first_pass")}
    return Prediction(
        result.verdict,
        result.error,
        result.usage,
        evidence=[e.text for e in result.evidence],
        detail=detail,
        p_true=result.p_true,
        p_true_raw=result.p_true_raw,
        route=result.route,
        first_round_verdict=result.first_round_verdict,
    )


async def _detect(method: str, case: Case, ctx: BenchContext, given: list[Evidence]) -> Prediction:
    """One QA pair through the hallucination debate, as a verdict on 'the answer is right'.

    Its P(true) is the deciding judge's confidence (the winner's token probability, else its
    stated c_t; none when the teams or a vote decided), so the reliability bins test it.
    """
    run_ctx = BenchContext.make(ctx, **HALLUCINATION_METHODS[method])
    knowledge = given if run_ctx.search == "given" else None
    result = await adetect(case.question, case.answer or case.claim, knowledge, run_ctx)
    shown = ("rounds", "stop_reason", "winner", "dispute", "quality", "decided_by", "findings", "notes")
    detail = {key: result[key] for key in (*shown, "judgements", "teams", "queries")}
    return Prediction(
        baselines.QA_VERDICTS.get(result.label),
        result.error,
        result.usage,
        evidence=[e.text for e in result.knowledge],
        detail=detail,
        p_true=result.p_no_hallucination,
        first_round_verdict=baselines.QA_VERDICTS.get(result.first_round_label),
    )
